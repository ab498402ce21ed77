//===- DeepSupervision.cpp - One loss per output of a U-Net ---------------===//
//
// The weights of deep supervision (nnU-Net's: 1/2^i by output, the lowest
// resolution's set to 0, normalized to sum 1) and the downsampling of the
// one target per sample to each output's shape: nearest for label maps, as
// nnU-Net's DownsampleSegForDSTransform (F.interpolate, "nearest-exact"),
// the mean of each block for images.
//
//===----------------------------------------------------------------------===//

#include "DeepSupervision.h"

#include "memopt/Dialect/TG/IR/TGOps.h"
#include "memopt/Dialect/TG/Transforms/Passes.h"

#include "llvm/ADT/StringExtras.h"

#include <cmath>

using namespace mlir;
using namespace memopt::tg;

std::optional<DeepSupervision>
memopt::tg::parseDeepSupervision(StringRef spec, std::string &error) {
  DeepSupervision result;
  if (spec == "nnunet" || spec == "halving") {
    result.scheme = spec == "nnunet" ? DeepSupervision::Scheme::nnunet
                                     : DeepSupervision::Scheme::halving;
    return result;
  }
  result.scheme = DeepSupervision::Scheme::given;
  SmallVector<StringRef> parts;
  spec.split(parts, ',');
  for (StringRef part : parts) {
    double weight;
    if (part.trim().getAsDouble(weight) || !std::isfinite(weight) ||
        weight < 0.0) {
      error = ("deep-supervision must be nnunet, halving or the weights "
               "W0,W1,... of the outputs (non-negative numbers), got '" +
               spec + "'")
                  .str();
      return std::nullopt;
    }
    result.weights.push_back(weight);
  }
  if (llvm::none_of(result.weights, [](double w) { return w > 0.0; })) {
    error = ("deep-supervision weights '" + spec +
             "' are all 0: at least one output must be trained")
                .str();
    return std::nullopt;
  }
  return result;
}

std::optional<SmallVector<double>>
DeepSupervision::weightsFor(unsigned numOutputs, std::string &error) const {
  if (scheme == Scheme::given) {
    if (weights.size() == numOutputs)
      return weights;
    error = "deep-supervision gives " + std::to_string(weights.size()) +
            " weights, but the model has " + std::to_string(numOutputs) +
            " outputs: give one per output, full resolution first";
    return std::nullopt;
  }
  if (scheme == Scheme::nnunet && numOutputs < 2) {
    error = "deep-supervision=nnunet leaves out the lowest-resolution output "
            "and needs at least 2 outputs, but the model has 1";
    return std::nullopt;
  }
  SmallVector<double> result;
  for (unsigned i = 0; i < numOutputs; ++i)
    result.push_back(std::ldexp(1.0, -static_cast<int>(i)));
  if (scheme == Scheme::nnunet)
    result.back() = 0.0;
  double sum = 0.0;
  for (double w : result)
    sum += w;
  for (double &w : result)
    w /= sum;
  return result;
}

static std::string spatialShape(RankedTensorType type) {
  return llvm::join(llvm::map_range(type.getShape().drop_front(2),
                                    [](int64_t d) { return std::to_string(d); }),
                    "x");
}

LogicalResult
memopt::tg::detail::checkDeepSupervisedShape(RankedTensorType full,
                                             RankedTensorType output,
                                             std::string &why) {
  if (output.getRank() != full.getRank() || output.getRank() < 3) {
    why = "has rank " + std::to_string(output.getRank()) +
          ", but deep supervision needs N x C x spatial outputs of output "
          "#0's rank " +
          std::to_string(full.getRank());
    return failure();
  }
  if (output.getDimSize(0) != full.getDimSize(0) ||
      output.getDimSize(1) != full.getDimSize(1)) {
    why = "has N x C = " + std::to_string(output.getDimSize(0)) + " x " +
          std::to_string(output.getDimSize(1)) + ", but output #0 has " +
          std::to_string(full.getDimSize(0)) + " x " +
          std::to_string(full.getDimSize(1)) +
          "; deep supervision needs the same batch and channels at every "
          "resolution";
    return failure();
  }
  for (int64_t axis = 2; axis < full.getRank(); ++axis)
    if (full.getDimSize(axis) % output.getDimSize(axis) != 0) {
      why = "has the spatial shape " + spatialShape(output) +
            ", which does not divide output #0's " + spatialShape(full) +
            " (the target's); deep supervision downsamples the target by an "
            "integer factor per axis";
      return failure();
    }
  return success();
}

Value memopt::tg::detail::emitDownsampledTarget(OpBuilder &builder,
                                                Location loc, Value target,
                                                RankedTensorType targetType,
                                                bool labelMap) {
  ArrayRef<int64_t> from = cast<RankedTensorType>(target.getType()).getShape();
  ArrayRef<int64_t> to = targetType.getShape();
  if (from == to)
    return target;
  if (labelMap) {
    // F.interpolate(size=to, mode="nearest-exact") reads index
    // floor((i + 0.5) * f) = f * i + f / 2 of an axis shrunk f times.
    SmallVector<int64_t> starts, steps;
    for (auto [size, newSize] : llvm::zip_equal(from, to)) {
      steps.push_back(size / newSize);
      starts.push_back(steps.back() / 2);
    }
    return SliceOp::create(builder, loc, targetType, target, starts, from,
                           steps);
  }
  // The mean of each block, one axis at a time so that the split stays
  // within the runtime's rank limit: the axis becomes (size / f, f), then
  // the f elements are averaged.
  Value result = target;
  for (auto [axis, newSize] : llvm::enumerate(to)) {
    SmallVector<int64_t> shape(
        cast<RankedTensorType>(result.getType()).getShape());
    if (shape[axis] == newSize)
      continue;
    int64_t factor = shape[axis] / newSize;
    shape[axis] = newSize;
    shape.insert(shape.begin() + axis + 1, factor);
    Value split = ReshapeOp::create(builder, loc, targetType.clone(shape),
                                    result, shape);
    result = ReduceMeanOp::create(builder, loc, split,
                                  ArrayRef<int64_t>{int64_t(axis) + 1},
                                  /*keepdims=*/false);
  }
  return result;
}
