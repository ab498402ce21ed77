//===- MSSSIM.cpp - The MS-SSIM loss as a tg subgraph ---------------------===//
//
// Multi-scale SSIM (Wang, Simoncelli and Bovik 2003) exactly as
// pytorch_msssim 1.0.0 computes ms_ssim(X, Y, data_range=1,
// size_average=True): at each of 5 scales the Gaussian-filtered means,
// variances and covariance (an 11-tap window of sigma 1.5, applied without
// padding along H then along W, per channel), the contrast-structure map
// cs = (2 sigma_xy + C2) / (sigma_x^2 + sigma_y^2 + C2) and, at the last
// scale, ssim = (2 mu_x mu_y + C1) / (mu_x^2 + mu_y^2 + C1) * cs, each
// averaged over positions per image and channel; between scales 2x2
// average pooling (padded by one where a side is odd, the padding counted
// in the divisor as F.avg_pool2d does). MS-SSIM is the product of
// relu(cs_i)^w_i over the first 4 scales and relu(ssim_5)^w_5, averaged
// over images and channels. Powers are exp(w log v): tg has no pow.
//
//===----------------------------------------------------------------------===//

#include "MSSSIM.h"

#include "memopt/Dialect/TG/IR/TGOps.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace memopt::tg;

namespace {

constexpr int64_t kWindowSize = 11;
constexpr double kWindowSigma = 1.5;
constexpr double kScaleWeights[] = {0.0448, 0.2856, 0.3001, 0.2363, 0.1333};
// (K1 * L)^2 and (K2 * L)^2 with K = (0.01, 0.03) and data range L = 1.
constexpr double kC1 = 0.01 * 0.01;
constexpr double kC2 = 0.03 * 0.03;

/// The 1-D Gaussian window of pytorch_msssim's _fspecial_gauss_1d, which
/// computes it in float32 whatever the images' type, to the last bit: the
/// variances E[x^2] - E[x]^2 cancel, so that one ulp of the window moves
/// the loss by 1e-5. The exponent is a float32 quotient, the exponential
/// and the sum are correctly rounded (as PyTorch's are for these 11 values),
/// the normalization a float32 division.
SmallVector<float> gaussianWindow() {
  SmallVector<float> window;
  double sum = 0.0;
  for (int64_t i = 0; i < kWindowSize; ++i) {
    float x = static_cast<float>(i - kWindowSize / 2);
    float exponent = -(x * x) / static_cast<float>(2 * kWindowSigma *
                                                    kWindowSigma);
    float g = static_cast<float>(std::exp(static_cast<double>(exponent)));
    window.push_back(g);
    sum += g;
  }
  for (float &g : window)
    g /= static_cast<float>(sum);
  return window;
}

/// Emits the ops of one MS-SSIM evaluation; every value it makes is
/// N x C x H x W at the current scale, N x C per scale, or rank 0.
class MSSSIMEmitter {
public:
  MSSSIMEmitter(OpBuilder &builder, Location loc, RankedTensorType type)
      : builder(builder), loc(loc), elementType(type.getElementType()) {
    int64_t channels = type.getDimSize(1);
    windowH = window(channels, {kWindowSize, 1});
    windowW = window(channels, {1, kWindowSize});
    c1 = scalar(kC1);
    c2 = scalar(kC2);
    two = scalar(2.0);
  }

  Value scalar(double value) {
    return ConstantOp::createScalar(builder, loc, elementType, value);
  }
  template <typename OpTy> Value binary(Value lhs, Value rhs) {
    return OpTy::create(builder, loc, lhs, rhs);
  }
  template <typename OpTy> Value unary(Value input) {
    return OpTy::create(builder, loc, input);
  }
  /// The mean over `axes` without them (all axes: rank 0).
  Value mean(Value input, ArrayRef<int64_t> axes) {
    return ReduceMeanOp::create(builder, loc, input, axes,
                                /*keepdims=*/false);
  }

  /// The "valid" Gaussian filter of each channel: along H, then along W.
  Value gaussian(Value x) {
    int64_t channels = cast<RankedTensorType>(x.getType()).getDimSize(1);
    for (Value weight : {windowH, windowW})
      x = ConvOp::create(builder, loc, x, weight, Value(), {1, 1},
                           {0, 0, 0, 0}, {1, 1}, channels);
    return x;
  }

  /// F.avg_pool2d(x, kernel_size=2, padding=[H % 2, W % 2]).
  Value halve(Value x) {
    auto shape = cast<RankedTensorType>(x.getType()).getShape();
    int64_t padH = shape[2] % 2, padW = shape[3] % 2;
    return AvgPoolOp::create(builder, loc, x, {2, 2}, {2, 2},
                               {padH, padW, padH, padW},
                               /*ceil_mode=*/false,
                               /*count_include_pad=*/true);
  }

  /// Per image and channel (N x C): mean cs, and with `last` mean ssim.
  std::pair<Value, Value> scale(Value x, Value y, bool last) {
    Value muX = gaussian(x), muY = gaussian(y);
    Value muXX = binary<MulOp>(muX, muX), muYY = binary<MulOp>(muY, muY);
    Value muXY = binary<MulOp>(muX, muY);
    Value varX = binary<SubOp>(gaussian(binary<MulOp>(x, x)), muXX);
    Value varY = binary<SubOp>(gaussian(binary<MulOp>(y, y)), muYY);
    Value covXY = binary<SubOp>(gaussian(binary<MulOp>(x, y)), muXY);
    // One op per statement: the order of function arguments is unspecified.
    Value csNum = binary<AddOp>(binary<MulOp>(covXY, two), c2);
    Value csDen = binary<AddOp>(binary<AddOp>(varX, varY), c2);
    Value csMap = binary<DivOp>(csNum, csDen);
    Value cs = mean(csMap, {2, 3});
    if (!last)
      return {cs, Value()};
    Value lNum = binary<AddOp>(binary<MulOp>(muXY, two), c1);
    Value lDen = binary<AddOp>(binary<AddOp>(muXX, muYY), c1);
    Value luminance = binary<DivOp>(lNum, lDen);
    return {cs, mean(binary<MulOp>(luminance, csMap), {2, 3})};
  }

  /// relu(v)^weight as exp(weight * log(relu(v))).
  Value power(Value v, double weight) {
    Value logV = unary<LogOp>(unary<ReluOp>(v));
    return unary<ExpOp>(binary<MulOp>(logV, scalar(weight)));
  }

  /// MS-SSIM of x against y, rank 0.
  Value msssim(Value x, Value y) {
    constexpr size_t levels = std::size(kScaleWeights);
    Value product;
    for (size_t i = 0; i < levels; ++i) {
      bool last = i + 1 == levels;
      auto [cs, ssim] = scale(x, y, last);
      Value factor = power(last ? ssim : cs, kScaleWeights[i]);
      product = product ? binary<MulOp>(product, factor) : factor;
      if (!last) {
        x = halve(x);
        y = halve(y);
      }
    }
    return mean(product, {});
  }

private:
  /// The window as a depthwise C x 1 x kH x kW convolution weight.
  Value window(int64_t channels, std::array<int64_t, 2> size) {
    auto type = RankedTensorType::get({channels, 1, size[0], size[1]},
                                      elementType);
    SmallVector<Attribute> values;
    for (int64_t c = 0; c < channels; ++c)
      for (float g : gaussianWindow())
        values.push_back(builder.getFloatAttr(elementType, g));
    return ConstantOp::create(builder, loc, type,
                              DenseElementsAttr::get(type, values));
  }

  OpBuilder &builder;
  Location loc;
  Type elementType;
  Value windowH, windowW;
  Value c1, c2, two;
};

} // namespace

LogicalResult memopt::tg::detail::checkMSSSIMShape(RankedTensorType output,
                                                   std::string &why) {
  if (output.getRank() != 4) {
    llvm::raw_string_ostream(why)
        << "needs N x C x H x W images, got '" << output << "'";
    return failure();
  }
  int64_t height = output.getDimSize(2), width = output.getDimSize(3);
  if (std::min(height, width) > kMSSSIMMinSideExclusive)
    return success();
  why = llvm::formatv(
      "needs images of at least {0}x{0} (5 scales: the {1}-wide Gaussian "
      "window must fit after 4 halvings, as pytorch_msssim asserts), but the "
      "model's output is {2}x{3}; train at a larger size or use loss=l1",
      kMSSSIMMinSideExclusive + 1, kWindowSize, height, width);
  return failure();
}

Value memopt::tg::detail::emitMSSSIMLoss(OpBuilder &builder, Location loc,
                                         Value prediction, Value target,
                                         bool withL1) {
  MSSSIMEmitter emitter(builder, loc,
                        cast<RankedTensorType>(prediction.getType()));
  Value msssim = emitter.msssim(prediction, target);
  Value loss = emitter.binary<SubOp>(emitter.scalar(1.0), msssim);
  if (!withL1)
    return loss;
  // Zhao et al.'s mix, with L1 the plain mean absolute error.
  Value l1 = emitter.mean(
      emitter.unary<AbsOp>(emitter.binary<SubOp>(prediction, target)), {});
  Value ssimTerm =
      emitter.binary<MulOp>(loss, emitter.scalar(kMSSSIMMixAlpha));
  Value l1Term =
      emitter.binary<MulOp>(l1, emitter.scalar(1.0 - kMSSSIMMixAlpha));
  return emitter.binary<AddOp>(ssimTerm, l1Term);
}
