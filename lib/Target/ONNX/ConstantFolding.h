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

/// The indices of ONNX Gather along an axis of size `dim`, normalized to
/// [0, dim) (negative ones count from the end), in `normalized`. Fails with
/// `error` naming the first index outside [-dim, dim).
bool normalizeGatherIndices(const HostTensor &indices, int64_t dim,
                            llvm::SmallVectorImpl<int64_t> &normalized,
                            std::string &error);

/// ONNX GatherND with batch_dims = 0 as a Gather along axis 0 of the data
/// with its first `depth` axes (the length of an index tuple) flattened into
/// one: `flat` holds each tuple's row-major offset into those axes
/// (normalized), `indexShape` the indices' shape without the tuple axis.
struct GatherNDPlan {
  int64_t depth = 0;
  llvm::SmallVector<int64_t> indexShape;
  llvm::SmallVector<int64_t> flat;
};
/// Plans a GatherND of data of shape `dataShape`; fails with `error` for
/// batch_dims != 0, indices of rank 0, a tuple length outside [1, rank] or
/// an index out of range.
bool planGatherND(llvm::ArrayRef<int64_t> dataShape, const HostTensor &indices,
                  int64_t batchDims, GatherNDPlan &plan, std::string &error);

} // namespace memopt::onnx_import

#endif // MEMOPT_LIB_TARGET_ONNX_CONSTANTFOLDING_H
