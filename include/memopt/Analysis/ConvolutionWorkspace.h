//===- ConvolutionWorkspace.h - Library workspace of convolutions -*- C++ -*-===//
//
// The scratch memory a convolution kernel of the CPU runtime needs, asked
// from the runtime itself (oneDNN picks its implementation for the CPU at
// hand). The arena plan reserves it, the cost model and the memory timeline
// report it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_ANALYSIS_CONVOLUTIONWORKSPACE_H
#define MEMOPT_ANALYSIS_CONVOLUTIONWORKSPACE_H

#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <cstdint>

namespace memopt {

/// The workspace bytes that the CPU runtime reports for `op`, 0 for an op
/// that is not a convolution. Fails (with a diagnostic) when memopt was
/// built without the CPU runtime.
mlir::FailureOr<uint64_t> queryConvolutionWorkspace(mlir::Operation *op);

} // namespace memopt

#endif // MEMOPT_ANALYSIS_CONVOLUTIONWORKSPACE_H
