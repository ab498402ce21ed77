//===- ConstantFolding.h - Evaluate ONNX nodes on host tensors --*- C++ -*-===//

#ifndef MEMOPT_LIB_TARGET_ONNX_CONSTANTFOLDING_H
#define MEMOPT_LIB_TARGET_ONNX_CONSTANTFOLDING_H

#include "HostTensor.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>

namespace memopt::onnx_import {

enum class FoldResult { Folded, NotFoldable, Error };

/// Evaluates `node` when every input is known (a null entry is an absent
/// optional input). Returns NotFoldable for ops the folder does not know, and
/// Error with `error` set when the inputs are invalid for the op.
FoldResult foldNode(const onnx::NodeProto &node,
                    llvm::ArrayRef<const HostTensor *> inputs,
                    llvm::SmallVectorImpl<HostTensor> &outputs,
                    std::string &error);

enum class ShapeOpResult { Resolved, NeedsConstant, Error, NotAShapeOp };

/// The shape a Reshape fixed at export time (`exportOut`, from `exportIn`)
/// takes when only the batch changed its input to `in`: the one axis where
/// `in` differs from `exportIn` holds the batch as its outer factor, and
/// the output axis whose leading elements match that axis's takes the same
/// factor (torch.export's `view(b, n, heads, d)`, `view(b * n, d)`).
/// None when the batch would be split across axes or the axis is unclear.
std::optional<llvm::SmallVector<int64_t>>
rebatchedShape(llvm::ArrayRef<int64_t> exportIn, llvm::ArrayRef<int64_t> exportOut,
               llvm::ArrayRef<int64_t> in);

/// Computes the output shape of a pure shape op (Reshape, Flatten, Squeeze,
/// Unsqueeze) from the input shape and its constant inputs, without data.
ShapeOpResult resolveShapeOp(const onnx::NodeProto &node,
                             llvm::ArrayRef<int64_t> inShape,
                             llvm::ArrayRef<const HostTensor *> inputs,
                             llvm::SmallVectorImpl<int64_t> &outShape,
                             std::string &error);

/// Normalizes ONNX Slice parameters for one axis of size `dim` (negative
/// indices count from the end, out-of-range ones are clamped as the ONNX
/// specification says). Returns the number of selected elements.
int64_t normalizeSliceAxis(int64_t dim, int64_t &start, int64_t &end,
                           int64_t step);

} // namespace memopt::onnx_import

#endif // MEMOPT_LIB_TARGET_ONNX_CONSTANTFOLDING_H
