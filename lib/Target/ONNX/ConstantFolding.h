//===- ConstantFolding.h - Evaluate ONNX nodes on host tensors --*- C++ -*-===//

#ifndef MEMOPT_LIB_TARGET_ONNX_CONSTANTFOLDING_H
#define MEMOPT_LIB_TARGET_ONNX_CONSTANTFOLDING_H

#include "HostTensor.h"

#include "llvm/ADT/ArrayRef.h"

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
