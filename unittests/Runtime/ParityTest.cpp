//===- ParityTest.cpp - Runtime kernels against PyTorch autograd ----------===//
//
// Runs every kernel on the operands of the reference cases that
// python/memopt/testing/make_reference.py generated with PyTorch, and
// compares results (relative error <= 1e-5) and gradients (<= 1e-4). Each
// test prints the largest error per kernel; without reference files the
// tests skip.
//
//===----------------------------------------------------------------------===//

#include "ReferenceCase.h"

#include "memopt/Runtime/Kernels.h"

#include "gtest/gtest.h"

#include <functional>

using namespace memopt::rt;
using namespace memopt::rt::testing;

namespace {

constexpr double kFwd = kForwardTolerance;
constexpr double kGrad = kGradientTolerance;

class RuntimeParity : public ::testing::Test {
protected:
  void TearDown() override { printErrorSummary(); }
};

ResizeMode resizeMode(const std::string &word) {
  return word == "nearest" ? ResizeMode::Nearest : ResizeMode::Bilinear;
}

CoordinateMode coordinateMode(const std::string &word) {
  if (word == "half_pixel")
    return CoordinateMode::HalfPixel;
  if (word == "pytorch_half_pixel")
    return CoordinateMode::PytorchHalfPixel;
  if (word == "align_corners")
    return CoordinateMode::AlignCorners;
  return CoordinateMode::Asymmetric;
}

NearestMode nearestMode(const std::string &word) {
  if (word == "round_prefer_floor")
    return NearestMode::RoundPreferFloor;
  if (word == "round_prefer_ceil")
    return NearestMode::RoundPreferCeil;
  if (word == "floor")
    return NearestMode::Floor;
  return NearestMode::Ceil;
}

PadMode padMode(const std::string &word) {
  if (word == "reflect")
    return PadMode::Reflect;
  if (word == "edge")
    return PadMode::Edge;
  return PadMode::Constant;
}

/// Parameter updates are small next to the parameters: compare the step
/// new - old as well, with a tolerance that allows for the rounding of the
/// subtraction (a wrong formula is off by O(1)).
constexpr double kStepTolerance = 1e-3;

void expectStepClose(const RefCase &c, const char *kernel, const Buffer &actual,
                     const std::string &newName, const std::string &oldName) {
  const std::vector<float> &old = c.tensor(oldName).data;
  const std::vector<float> &ref = c.tensor(newName).data;
  std::vector<float> step(old.size()), refStep(old.size());
  for (size_t i = 0; i < old.size(); ++i) {
    step[i] = actual.data[i] - old[i];
    refStep[i] = ref[i] - old[i];
  }
  expectCloseValues(c, kernel, step, refStep, newName + " - " + oldName,
                    kStepTolerance);
}

/// The bias gradient of a convolution: grad_output summed over N, H, W.
void checkBiasGradient(const RefCase &c) {
  if (!c.has("grad_bias"))
    return;
  Buffer gb = c.out("grad_bias");
  reduceSum(c.in("grad_output"), gb.view(), Dims{0, 2, 3}, false);
  expectClose(c, "reduce_sum (conv bias gradient)", gb, "grad_bias", kGrad);
}

} // namespace

TEST_F(RuntimeParity, Conv) {
  MEMOPT_LOAD_CASES(cases, "conv");
  for (const RefCase &c : cases) {
    Dims s = c.dims("strides"), d = c.dims("dilations");
    Dims p = c.dims("pads");
    int64_t g = c.integer("groups");
    ConstTensor bias = c.optionalIn("bias");

    Buffer y = c.out("output");
    Workspace ws(convWorkspaceBytes(c.tensor("input").shape,
                                      c.tensor("weight").shape, bias.present(),
                                      y.shape, s, p, d, g));
    conv(c.in("input"), c.in("weight"), bias, y.view(), s, p, d, g, ws.get());
    expectClose(c, "conv", y, "output", kFwd);

    Buffer gx = c.out("grad_input");
    Workspace wsData(convBackwardDataWorkspaceBytes(
        c.tensor("grad_output").shape, c.tensor("weight").shape, gx.shape, s,
        p, d, g));
    convBackwardData(c.in("grad_output"), c.in("weight"), gx.view(), s, p, d,
                       g, wsData.get());
    expectClose(c, "conv_backward_data", gx, "grad_input", kGrad);

    Buffer gw = c.out("grad_weight");
    Workspace wsFilter(convBackwardFilterWorkspaceBytes(
        c.tensor("grad_output").shape, c.tensor("input").shape, gw.shape, s, p,
        d, g));
    convBackwardFilter(c.in("grad_output"), c.in("input"), gw.view(), s, p,
                         d, g, wsFilter.get());
    expectClose(c, "conv_backward_filter", gw, "grad_weight", kGrad);
    checkBiasGradient(c);
  }
}

TEST_F(RuntimeParity, ConvTranspose) {
  MEMOPT_LOAD_CASES(cases, "conv_transpose");
  for (const RefCase &c : cases) {
    Dims s = c.dims("strides"), d = c.dims("dilations"),
         op = c.dims("output_padding");
    Dims p = c.dims("pads");
    int64_t g = c.integer("groups");

    Buffer y = c.out("output");
    Workspace ws(convTransposeWorkspaceBytes(
        c.tensor("input").shape, c.tensor("weight").shape, true, y.shape, s, p,
        d, op, g));
    convTranspose(c.in("input"), c.in("weight"), c.in("bias"), y.view(), s,
                    p, d, op, g, ws.get());
    expectClose(c, "conv_transpose", y, "output", kFwd);

    // The input gradient of a transposed convolution is a convolution.
    Buffer gx = c.out("grad_input");
    Workspace wsData(convWorkspaceBytes(c.tensor("grad_output").shape,
                                          c.tensor("weight").shape, false,
                                          gx.shape, s, p, d, g));
    conv(c.in("grad_output"), c.in("weight"), ConstTensor(), gx.view(), s, p,
           d, g, wsData.get());
    expectClose(c, "conv (conv_transpose input gradient)", gx,
                "grad_input", kGrad);

    Buffer gw = c.out("grad_weight");
    Workspace wsFilter(convTransposeBackwardFilterWorkspaceBytes(
        c.tensor("grad_output").shape, c.tensor("input").shape, gw.shape, s, p,
        d, op, g));
    convTransposeBackwardFilter(c.in("grad_output"), c.in("input"),
                                  gw.view(), s, p, d, op, g, wsFilter.get());
    expectClose(c, "conv_transpose_backward_filter", gw, "grad_weight",
                kGrad);
    checkBiasGradient(c);
  }
}

TEST_F(RuntimeParity, BatchNorm) {
  MEMOPT_LOAD_CASES(cases, "batch_norm");
  for (const RefCase &c : cases) {
    double eps = c.real("epsilon"), momentum = c.real("momentum");
    Buffer y = c.out("output"), rm = c.out("new_running_mean"),
           rv = c.out("new_running_var"), sm = c.out("saved_mean"),
           si = c.out("saved_inv_std");
    batchNorm(c.in("input"), c.in("scale"), c.in("bias"), c.in("running_mean"),
              c.in("running_var"), y.view(), rm.view(), rv.view(), sm.view(),
              si.view(), eps, momentum);
    expectClose(c, "batch_norm", y, "output", kFwd);
    expectClose(c, "batch_norm (new_running_mean)", rm, "new_running_mean",
                kFwd);
    expectClose(c, "batch_norm (new_running_var)", rv, "new_running_var",
                kFwd);
    expectClose(c, "batch_norm (saved_mean)", sm, "saved_mean", kFwd);
    expectClose(c, "batch_norm (saved_inv_std)", si, "saved_inv_std", kFwd);

    Buffer gx = c.out("grad_input"), gs = c.out("grad_scale"),
           gb = c.out("grad_bias");
    batchNormBackward(c.in("grad_output"), c.in("input"), c.in("scale"),
                      c.in("saved_mean"), c.in("saved_inv_std"), gx.view(),
                      gs.view(), gb.view());
    expectClose(c, "batch_norm_backward (grad_input)", gx, "grad_input", kGrad);
    expectClose(c, "batch_norm_backward (grad_scale)", gs, "grad_scale", kGrad);
    expectClose(c, "batch_norm_backward (grad_bias)", gb, "grad_bias", kGrad);

    Buffer inference = c.out("inference_output");
    batchNormInference(c.in("input"), c.in("scale"), c.in("bias"),
                       c.in("running_mean"), c.in("running_var"),
                       inference.view(), eps);
    expectClose(c, "batch_norm_inference", inference, "inference_output", kFwd);
  }
}

TEST_F(RuntimeParity, Unary) {
  MEMOPT_LOAD_CASES(cases, "unary");
  using Forward = std::function<void(const RefCase &, ConstTensor, Tensor)>;
  using Backward =
      std::function<void(const RefCase &, ConstTensor, ConstTensor, Tensor)>;
  auto plain = [](void (*f)(ConstTensor, Tensor)) {
    return [f](const RefCase &, ConstTensor x, Tensor y) { f(x, y); };
  };
  auto plainBackward = [](void (*f)(ConstTensor, ConstTensor, Tensor)) {
    return [f](const RefCase &, ConstTensor dy, ConstTensor s, Tensor dx) {
      f(dy, s, dx);
    };
  };
  // kind -> forward kernel, backward kernel and its saved operand.
  struct Kernels {
    Forward forward;
    Backward backward;
    const char *saved;
  };
  std::map<std::string, Kernels> table = {
      {"relu", {plain(relu), plainBackward(reluBackward), "output"}},
      {"sigmoid", {plain(sigmoid), plainBackward(sigmoidBackward), "output"}},
      {"tanh", {plain(memopt::rt::tanh), plainBackward(tanhBackward), "output"}},
      {"neg", {plain(neg), nullptr, nullptr}},
      {"exp", {plain(memopt::rt::exp), nullptr, nullptr}},
      {"log", {plain(memopt::rt::log), nullptr, nullptr}},
      {"sqrt", {plain(memopt::rt::sqrt), nullptr, nullptr}},
      {"abs", {plain(memopt::rt::abs), nullptr, nullptr}},
      {"sign", {plain(sign), nullptr, nullptr}},
      {"leaky_relu",
       {[](const RefCase &c, ConstTensor x, Tensor y) {
          leakyRelu(x, y, c.real("alpha"));
        },
        [](const RefCase &c, ConstTensor dy, ConstTensor x, Tensor dx) {
          leakyReluBackward(dy, x, dx, c.real("alpha"));
        },
        "input"}},
      {"hard_sigmoid",
       {[](const RefCase &c, ConstTensor x, Tensor y) {
          hardSigmoid(x, y, c.real("alpha"), c.real("beta"));
        },
        [](const RefCase &c, ConstTensor dy, ConstTensor x, Tensor dx) {
          hardSigmoidBackward(dy, x, dx, c.real("alpha"), c.real("beta"));
        },
        "input"}},
      {"hard_swish", {plain(hardSwish), plainBackward(hardSwishBackward),
                      "input"}},
      {"elu",
       {[](const RefCase &c, ConstTensor x, Tensor y) {
          elu(x, y, c.real("alpha"));
        },
        [](const RefCase &c, ConstTensor dy, ConstTensor x, Tensor dx) {
          eluBackward(dy, x, dx, c.real("alpha"));
        },
        "input"}},
      {"softplus",
       {plain(softplus), plainBackward(softplusBackward), "input"}},
      {"erf", {plain(memopt::rt::erf), plainBackward(erfBackward), "input"}},
      {"clip",
       {[](const RefCase &c, ConstTensor x, Tensor y) {
          clip(x, y, c.real("min"), c.real("max"));
        },
        [](const RefCase &c, ConstTensor dy, ConstTensor x, Tensor dx) {
          clipBackward(dy, x, dx, c.real("min"), c.real("max"));
        },
        "input"}},
  };
  for (const RefCase &c : cases) {
    std::string kind = c.word("kind");
    ASSERT_TRUE(table.count(kind)) << c.name() << ": unknown kind " << kind;
    const Kernels &k = table[kind];
    Buffer y = c.out("output");
    k.forward(c, c.in("input"), y.view());
    expectClose(c, kind.c_str(), y, "output", kFwd);
    if (!k.backward)
      continue;
    Buffer gx = c.out("grad_input");
    k.backward(c, c.in("grad_output"), c.in(k.saved), gx.view());
    expectClose(c, (kind + "_backward").c_str(), gx, "grad_input", kGrad);
  }
}

TEST_F(RuntimeParity, Binary) {
  MEMOPT_LOAD_CASES(cases, "binary");
  std::map<std::string, void (*)(ConstTensor, ConstTensor, Tensor)> table = {
      {"add", add}, {"sub", sub}, {"mul", mul}, {"div", div}};
  for (const RefCase &c : cases) {
    std::string kind = c.word("kind");
    Buffer y = c.out("output");
    table.at(kind)(c.in("lhs"), c.in("rhs"), y.view());
    expectClose(c, kind.c_str(), y, "output", kFwd);
  }
}

TEST_F(RuntimeParity, MaxPool) {
  MEMOPT_LOAD_CASES(cases, "max_pool");
  for (const RefCase &c : cases) {
    Dims k = c.dims("kernel"), s = c.dims("strides"), d = c.dims("dilations");
    Dims p = c.dims("pads");
    bool ceil = c.flag("ceil_mode");
    Buffer y = c.out("output");
    maxPool(c.in("input"), y.view(), k, s, p, d, ceil);
    expectClose(c, "max_pool", y, "output", kFwd);
    Buffer gx = c.out("grad_input");
    maxPoolBackward(c.in("grad_output"), c.in("input"), gx.view(), k, s, p,
                      d, ceil);
    expectClose(c, "max_pool_backward", gx, "grad_input", kGrad);
  }
}

TEST_F(RuntimeParity, AvgPool) {
  MEMOPT_LOAD_CASES(cases, "avg_pool");
  for (const RefCase &c : cases) {
    Dims k = c.dims("kernel"), s = c.dims("strides");
    Dims p = c.dims("pads");
    bool ceil = c.flag("ceil_mode"), include = c.flag("count_include_pad");
    Buffer y = c.out("output");
    avgPool(c.in("input"), y.view(), k, s, p, ceil, include);
    expectClose(c, "avg_pool", y, "output", kFwd);
    Buffer gx = c.out("grad_input");
    avgPoolBackward(c.in("grad_output"), gx.view(), k, s, p, ceil, include);
    expectClose(c, "avg_pool_backward", gx, "grad_input", kGrad);
  }
}

TEST_F(RuntimeParity, GlobalAvgPool) {
  MEMOPT_LOAD_CASES(cases, "global_avg_pool");
  for (const RefCase &c : cases) {
    Buffer y = c.out("output");
    globalAvgPool(c.in("input"), y.view());
    expectClose(c, "global_avg_pool", y, "output", kFwd);
  }
}

TEST_F(RuntimeParity, Resize) {
  MEMOPT_LOAD_CASES(cases, "resize");
  for (const RefCase &c : cases) {
    ResizeMode mode = resizeMode(c.word("mode"));
    CoordinateMode coord = coordinateMode(c.word("coordinate_mode"));
    NearestMode nearest = nearestMode(c.word("nearest_mode"));
    Scales scales = {std::stod(c.attr("scales").at(0)),
                     std::stod(c.attr("scales").at(1))};
    std::string label = c.word("mode") + " " + c.word("coordinate_mode");
    if (mode == ResizeMode::Nearest)
      label += " " + c.word("nearest_mode");
    Buffer y = c.out("output");
    resize(c.in("input"), y.view(), mode, coord, nearest, scales);
    expectClose(c, ("resize " + label).c_str(), y, "output", kFwd);
    Buffer gx = c.out("grad_input");
    resizeBackward(c.in("grad_output"), gx.view(), mode, coord, nearest,
                   scales);
    expectClose(c, ("resize_backward " + label).c_str(), gx, "grad_input",
                kGrad);
  }
}

TEST_F(RuntimeParity, Concat) {
  MEMOPT_LOAD_CASES(cases, "concat");
  for (const RefCase &c : cases) {
    std::vector<ConstTensor> inputs;
    for (int64_t i = 0; i < c.integer("count"); ++i)
      inputs.push_back(c.in("input" + std::to_string(i)));
    Buffer y = c.out("output");
    concat(inputs.data(), static_cast<int>(inputs.size()), y.view(),
           c.integer("axis"));
    expectClose(c, "concat", y, "output", kFwd);
  }
}

TEST_F(RuntimeParity, Slice) {
  MEMOPT_LOAD_CASES(cases, "slice");
  for (const RefCase &c : cases) {
    Dims starts = c.dims("starts"), ends = c.dims("ends"),
         steps = c.dims("steps");
    Buffer y = c.out("output");
    slice(c.in("input"), y.view(), starts, ends, steps);
    expectClose(c, "slice", y, "output", kFwd);
    Buffer gx = c.out("grad_input");
    sliceBackward(c.in("grad_output"), gx.view(), starts, ends, steps);
    expectClose(c, "slice_backward", gx, "grad_input", kGrad);
  }
}

TEST_F(RuntimeParity, Pad) {
  MEMOPT_LOAD_CASES(cases, "pad");
  for (const RefCase &c : cases) {
    Buffer y = c.out("output");
    pad(c.in("input"), y.view(), c.dims("pads"), padMode(c.word("mode")),
        c.real("value"));
    expectClose(c, ("pad " + c.word("mode")).c_str(), y, "output", kFwd);
    Buffer gx = c.out("grad_input");
    padBackward(c.in("grad_output"), gx.view(), c.dims("pads"),
                padMode(c.word("mode")));
    expectClose(c, ("pad_backward " + c.word("mode")).c_str(), gx,
                "grad_input", kGrad);
  }
}

TEST_F(RuntimeParity, Transpose) {
  MEMOPT_LOAD_CASES(cases, "transpose");
  for (const RefCase &c : cases) {
    Buffer y = c.out("output");
    transpose(c.in("input"), y.view(), c.dims("perm"));
    expectClose(c, "transpose", y, "output", kFwd);
  }
}

TEST_F(RuntimeParity, Broadcast) {
  MEMOPT_LOAD_CASES(cases, "broadcast");
  for (const RefCase &c : cases) {
    Buffer y = c.out("output");
    broadcast(c.in("input"), y.view());
    expectClose(c, "broadcast", y, "output", kFwd);
  }
}

TEST_F(RuntimeParity, Reduce) {
  MEMOPT_LOAD_CASES(cases, "reduce");
  for (const RefCase &c : cases) {
    Dims axes = c.dims("axes");
    bool keepdims = c.flag("keepdims");
    Buffer y = c.out("output");
    bool sum = c.word("kind") == "sum";
    (sum ? reduceSum : reduceMean)(c.in("input"), y.view(), axes, keepdims);
    expectClose(c, sum ? "reduce_sum" : "reduce_mean", y, "output", kFwd);
  }
}

TEST_F(RuntimeParity, MatMul) {
  MEMOPT_LOAD_CASES(cases, "matmul");
  for (const RefCase &c : cases) {
    Buffer y = c.out("output");
    matmul(c.in("lhs"), c.in("rhs"), y.view());
    expectClose(c, "matmul", y, "output", kFwd);
  }
}

TEST_F(RuntimeParity, Gemm) {
  MEMOPT_LOAD_CASES(cases, "gemm");
  for (const RefCase &c : cases) {
    Buffer y = c.out("output");
    gemm(c.in("a"), c.in("b"), c.optionalIn("c"), y.view(), c.real("alpha"),
         c.real("beta"), c.flag("trans_a"), c.flag("trans_b"));
    expectClose(c, "gemm", y, "output", kFwd);
  }
}

TEST_F(RuntimeParity, Loss) {
  MEMOPT_LOAD_CASES(cases, "loss");
  using Forward = void (*)(ConstTensor, ConstTensor, Tensor);
  using Backward = void (*)(ConstTensor, ConstTensor, ConstTensor, Tensor);
  std::map<std::string, std::pair<Forward, Backward>> table = {
      {"mse", {mseLoss, mseLossBackward}},
      {"l1", {l1Loss, l1LossBackward}},
      {"bce", {bceLoss, bceLossBackward}}};
  for (const RefCase &c : cases) {
    std::string kind = c.word("kind");
    auto [forward, backward] = table.at(kind);
    Buffer loss = c.out("loss");
    forward(c.in("prediction"), c.in("target"), loss.view());
    expectClose(c, (kind + "_loss").c_str(), loss, "loss", kFwd);
    Buffer gp = c.out("grad_prediction");
    backward(c.in("grad_loss"), c.in("prediction"), c.in("target"), gp.view());
    expectClose(c, (kind + "_loss_backward").c_str(), gp, "grad_prediction",
                kGrad);
  }
}

TEST_F(RuntimeParity, SGD) {
  MEMOPT_LOAD_CASES(cases, "sgd");
  for (const RefCase &c : cases) {
    // Without momentum the op has no buffer.
    bool hasBuffer = c.has("momentum_buffer");
    Buffer p = c.out("new_param");
    Buffer buf = hasBuffer ? c.out("new_momentum_buffer") : Buffer(Dims{0});
    sgdUpdate(c.in("param"), c.in("grad"), c.optionalIn("momentum_buffer"),
              c.integer("step"), p.view(), hasBuffer ? buf.view() : Tensor(),
              c.real("lr"), c.real("momentum"), c.real("dampening"),
              c.real("weight_decay"), c.flag("nesterov"));
    expectClose(c, "sgd_update (new_param)", p, "new_param", kFwd);
    expectStepClose(c, "sgd_update (param step)", p, "new_param", "param");
    if (hasBuffer)
      expectClose(c, "sgd_update (new_momentum_buffer)", buf,
                  "new_momentum_buffer", kFwd);
  }
}

TEST_F(RuntimeParity, Adam) {
  MEMOPT_LOAD_CASES(cases, "adam");
  for (const RefCase &c : cases) {
    Buffer p = c.out("new_param"), m = c.out("new_exp_avg"),
           v = c.out("new_exp_avg_sq");
    adamUpdate(c.in("param"), c.in("grad"), c.in("exp_avg"),
               c.in("exp_avg_sq"), c.integer("step"), p.view(), m.view(),
               v.view(), c.real("lr"), c.real("beta1"), c.real("beta2"),
               c.real("eps"), c.real("weight_decay"), c.flag("decoupled"));
    expectClose(c, "adam_update (new_param)", p, "new_param", kFwd);
    expectClose(c, "adam_update (new_exp_avg)", m, "new_exp_avg", kFwd);
    expectClose(c, "adam_update (new_exp_avg_sq)", v, "new_exp_avg_sq", kFwd);
    expectStepClose(c, "adam_update (param step)", p, "new_param", "param");
  }
}
