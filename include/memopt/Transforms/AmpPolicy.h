//===- AmpPolicy.h - Which ops tg-amp runs in low precision -----*- C++ -*-===//
//
// The precision table of mixed precision, per tg op name: `low` ops run in
// bf16/fp16 with their operands cast there (convolutions, matrix products),
// `fp32` ops take f32 operands (reductions, exp/log/sigmoid, losses,
// BatchNorm with given statistics), `follow` ops run in their operands'
// type (BatchNorm, activations, adds, pooling, resize, concatenation):
// low as soon as one operand is low. tg-amp, memopt-opt and memopt-compile
// (to check --amp-fp32-ops and --amp-low-ops before the import) share it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_TRANSFORMS_AMPPOLICY_H
#define MEMOPT_TRANSFORMS_AMPPOLICY_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <optional>
#include <string>

namespace memopt {

/// Where an op of the forward function runs under mixed precision.
enum class AmpPrecision { low, fp32, follow };

class AmpPolicy {
public:
  /// The default table with the ops of `fp32Ops` moved to fp32 and those of
  /// `lowOps` to low. Names are tg op names, with or without the `tg.`
  /// prefix; a name that is not in the table, or in both lists, is an error
  /// that names it.
  static llvm::Expected<AmpPolicy> build(llvm::ArrayRef<std::string> fp32Ops,
                                         llvm::ArrayRef<std::string> lowOps);

  /// The precision of the op named `opName` ("tg.conv"); none for an op
  /// outside the table (tg.constant and tg.cast, which tg-amp handles
  /// itself, gradient and optimizer ops, other dialects).
  std::optional<AmpPrecision> lookup(llvm::StringRef opName) const;

private:
  llvm::StringMap<AmpPrecision> table;
};

} // namespace memopt

#endif // MEMOPT_TRANSFORMS_AMPPOLICY_H
