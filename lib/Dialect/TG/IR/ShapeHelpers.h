//===- ShapeHelpers.h - Shape rules shared by tg ops ------------*- C++ -*-===//
//
// Checks and shape computations that forward and backward ops share, so that
// a backward op recomputes the shape of its forward op with the very code
// that infers it (conv_backward_data checks its operands against the
// output size of conv). Private to the dialect library.
//
// Functions taking a `std::optional<Location>` diagnose at that location when
// it is given (type inference); those taking an `Operation *` emit an op
// error (verifiers).
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_DIALECT_TG_IR_SHAPEHELPERS_H
#define MEMOPT_LIB_DIALECT_TG_IR_SHAPEHELPERS_H

#include "memopt/Dialect/TG/IR/TGOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Operation.h"
#include "mlir/Support/LLVM.h"

#include <optional>
#include <string>
#include <utility>

namespace memopt::tg::detail {

/// Emits `message` at `loc` when a location is known and returns failure.
mlir::LogicalResult fail(std::optional<mlir::Location> loc,
                         const llvm::Twine &message);

/// The type of `value` when it is a statically shaped tensor of rank `rank`
/// (any rank when negative).
mlir::FailureOr<mlir::RankedTensorType>
rankedOperand(std::optional<mlir::Location> loc, mlir::Value value,
              llvm::StringRef name, int64_t rank = -1);

mlir::LogicalResult checkLength(std::optional<mlir::Location> loc,
                                llvm::ArrayRef<int64_t> values, size_t expected,
                                llvm::StringRef name);

mlir::LogicalResult checkAllAtLeast(std::optional<mlir::Location> loc,
                                    llvm::ArrayRef<int64_t> values,
                                    int64_t minimum, llvm::StringRef name);

/// Checks a shape attribute: `rank` dimensions, each at least 1.
mlir::LogicalResult checkShapeAttr(std::optional<mlir::Location> loc,
                                   llvm::ArrayRef<int64_t> shape, size_t rank,
                                   llvm::StringRef name);

/// Checks strides, pads and dilations of a window op over `spatialAxes`
/// axes: one stride and dilation per axis, the pads' begins then ends.
mlir::LogicalResult checkWindow(std::optional<mlir::Location> loc,
                                size_t spatialAxes,
                                llvm::ArrayRef<int64_t> strides,
                                llvm::ArrayRef<int64_t> pads,
                                llvm::ArrayRef<int64_t> dilations);

/// The name of spatial axis `axis` of `spatialAxes` (1 to 3) in messages:
/// the last of depth, height and width.
llvm::StringRef spatialAxisName(size_t axis, size_t spatialAxes);

/// The type of an operand of a rank-generic window op: statically shaped,
/// of rank 3, 4 or 5 (N x C x 1 to 3 spatial axes).
mlir::FailureOr<mlir::RankedTensorType>
spatialOperand(std::optional<mlir::Location> loc, mlir::Value value,
               llvm::StringRef name);

/// The types of two operands of a rank-generic window op: statically
/// shaped, `first` of rank 3, 4 or 5 (N x C x 1 to 3 spatial axes) and
/// `second` of the same rank.
mlir::FailureOr<std::pair<mlir::RankedTensorType, mlir::RankedTensorType>>
spatialOperands(std::optional<mlir::Location> loc, mlir::Value first,
                llvm::StringRef firstName, mlir::Value second,
                llvm::StringRef secondName);

/// Output extent of a sliding window along one axis; fails when no window
/// fits.
mlir::FailureOr<int64_t> windowExtent(std::optional<mlir::Location> loc,
                                      int64_t in, int64_t kernel,
                                      int64_t stride, int64_t padLo,
                                      int64_t padHi, int64_t dilation,
                                      bool ceilMode, llvm::StringRef axis);

mlir::RankedTensorType withShape(mlir::RankedTensorType type,
                                 llvm::ArrayRef<int64_t> shape);

/// Fails with "<what> must have one element type" unless all `types` agree.
mlir::LogicalResult checkSameElementType(std::optional<mlir::Location> loc,
                                         llvm::ArrayRef<mlir::Type> types,
                                         llvm::StringRef what);

/// Checks the per-channel operands of a batch normalization: rank 1 with as
/// many elements as `input` has channels (axis 1).
mlir::LogicalResult checkChannelOperands(std::optional<mlir::Location> loc,
                                         mlir::RankedTensorType input,
                                         mlir::ValueRange operands,
                                         llvm::ArrayRef<llvm::StringRef> names);

/// "2x3x4"; the empty string for rank 0.
std::string shapeString(llvm::ArrayRef<int64_t> shape);

//===----------------------------------------------------------------------===//
// Output shapes of forward ops
//===----------------------------------------------------------------------===//

/// Output shape of tg.conv for an `input` and a `weight` shape of one rank
/// (3 to 5; no bias).
mlir::FailureOr<llvm::SmallVector<int64_t>>
convShape(std::optional<mlir::Location> loc, llvm::ArrayRef<int64_t> input,
            llvm::ArrayRef<int64_t> weight, llvm::ArrayRef<int64_t> strides,
            llvm::ArrayRef<int64_t> pads, llvm::ArrayRef<int64_t> dilations,
            int64_t groups);

/// Output shape of tg.conv_transpose for an `input` and a `weight` shape.
mlir::FailureOr<llvm::SmallVector<int64_t>> convTransposeShape(
    std::optional<mlir::Location> loc, llvm::ArrayRef<int64_t> input,
    llvm::ArrayRef<int64_t> weight, llvm::ArrayRef<int64_t> strides,
    llvm::ArrayRef<int64_t> pads, llvm::ArrayRef<int64_t> dilations,
    llvm::ArrayRef<int64_t> outputPadding, int64_t groups);

/// Output shape of tg.max_pool (and of tg.avg_pool with unit dilations)
/// for an `input` shape of rank 3 to 5.
mlir::FailureOr<llvm::SmallVector<int64_t>>
poolShape(std::optional<mlir::Location> loc, llvm::ArrayRef<int64_t> input,
            llvm::ArrayRef<int64_t> kernel, llvm::ArrayRef<int64_t> strides,
            llvm::ArrayRef<int64_t> pads, llvm::ArrayRef<int64_t> dilations,
            bool ceilMode);

/// The dilations of the ops without a dilation attribute (average
/// pooling): one per spatial axis of `kernel`.
llvm::SmallVector<int64_t> unitDilations(llvm::ArrayRef<int64_t> kernel);

/// Checks the `sizes` and `scales` of a resize of `spatialAxes` axes: one
/// positive value per axis each.
mlir::LogicalResult checkResizeAttrs(std::optional<mlir::Location> loc,
                                     llvm::ArrayRef<int64_t> sizes,
                                     llvm::ArrayRef<double> scales,
                                     size_t spatialAxes);

/// Output shape of tg.pad (and the gradient shape tg.pad_backward reads):
/// `pads` holds rank begin then rank end paddings, all non-negative; a
/// reflect pad must be smaller than its axis.
mlir::FailureOr<llvm::SmallVector<int64_t>>
padShape(std::optional<mlir::Location> loc, llvm::ArrayRef<int64_t> input,
         llvm::ArrayRef<int64_t> pads, memopt::tg::PadMode mode);

/// Output shape of tg.gather (and the gradient shape tg.gather_backward
/// reads): `input` of rank >= 1, `axis` in range and every index in
/// [0, input[axis]).
mlir::FailureOr<llvm::SmallVector<int64_t>>
gatherShape(std::optional<mlir::Location> loc, llvm::ArrayRef<int64_t> input,
            int64_t axis, mlir::DenseIntElementsAttr indices);

/// Output shape of tg.slice.
mlir::FailureOr<llvm::SmallVector<int64_t>>
sliceShape(std::optional<mlir::Location> loc, llvm::ArrayRef<int64_t> input,
           llvm::ArrayRef<int64_t> starts, llvm::ArrayRef<int64_t> ends,
           llvm::ArrayRef<int64_t> steps);

//===----------------------------------------------------------------------===//
// Verifier checks
//===----------------------------------------------------------------------===//

/// Fails with "'<name>' must be <requirement>, got <value>" unless `holds`.
mlir::LogicalResult verifyAttrValue(mlir::Operation *op, llvm::StringRef name,
                                    double value, bool holds,
                                    llvm::StringRef requirement);

/// Per-channel operands share one element type, which may differ from the
/// input's: mixed precision keeps statistics in f32 under a bf16 input.
mlir::LogicalResult verifyChannelTypes(mlir::Operation *op,
                                       mlir::ValueRange channels);

/// The bounds of a clip: `min` must not exceed `max`.
mlir::LogicalResult verifyClipBounds(mlir::Operation *op, double min,
                                     double max);

/// ONNX derives resize sizes as floor(in * scale); `sizes` must agree with
/// `scales` for an input of spatial sizes `inputSizes` to less than a pixel.
mlir::LogicalResult verifyResizeScales(mlir::Operation *op,
                                       llvm::ArrayRef<int64_t> inputSizes,
                                       llvm::ArrayRef<int64_t> sizes,
                                       llvm::ArrayRef<double> scales);

} // namespace memopt::tg::detail

#endif // MEMOPT_LIB_DIALECT_TG_IR_SHAPEHELPERS_H
