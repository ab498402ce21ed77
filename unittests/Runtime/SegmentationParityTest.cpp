//===- SegmentationParityTest.cpp - Segmentation kernels against PyTorch --===//
//
// The kernels of segmentation networks (prelu, softmax and log_softmax over
// an axis, instance normalization, the cross-entropy and Dice losses) on
// the reference cases of python/memopt/testing/make_reference.py, with the
// tolerances of ParityTest.cpp. The Dice reference is memopt.losses.
//
//===----------------------------------------------------------------------===//

#include "ReferenceCase.h"

#include "memopt/Runtime/Kernels.h"

#include "gtest/gtest.h"

using namespace memopt::rt;
using namespace memopt::rt::testing;

namespace {

class SegmentationParity : public ::testing::Test {
protected:
  void TearDown() override { printErrorSummary(); }
};

TEST_F(SegmentationParity, PRelu) {
  MEMOPT_LOAD_CASES(cases, "prelu");
  for (const RefCase &c : cases) {
    Buffer y = c.out("output");
    prelu(c.in("input"), c.in("slope"), y.view());
    expectClose(c, "prelu", y, "output", kForwardTolerance);
    Buffer gx = c.out("grad_input");
    preluBackward(c.in("grad_output"), c.in("input"), c.in("slope"),
                  gx.view());
    expectClose(c, "prelu_backward", gx, "grad_input", kGradientTolerance);
  }
}

TEST_F(SegmentationParity, Softmax) {
  MEMOPT_LOAD_CASES(cases, "softmax");
  for (const RefCase &c : cases) {
    bool log = c.word("kind") == "log_softmax";
    int64_t axis = c.integer("axis");
    Buffer y = c.out("output");
    (log ? logSoftmax : softmax)(c.in("input"), y.view(), axis);
    expectClose(c, log ? "log_softmax" : "softmax", y, "output",
                kForwardTolerance);
    Buffer gx = c.out("grad_input");
    (log ? logSoftmaxBackward : softmaxBackward)(c.in("grad_output"),
                                                 c.in("output"), gx.view(),
                                                 axis);
    expectClose(c, log ? "log_softmax_backward" : "softmax_backward", gx,
                "grad_input", kGradientTolerance);
  }
}

TEST_F(SegmentationParity, InstanceNorm) {
  MEMOPT_LOAD_CASES(cases, "instance_norm");
  for (const RefCase &c : cases) {
    Buffer y = c.out("output"), mean = c.out("saved_mean"),
           inv = c.out("saved_inv_std");
    instanceNorm(c.in("input"), c.in("scale"), c.in("bias"), y.view(),
                 mean.view(), inv.view(), c.real("epsilon"));
    expectClose(c, "instance_norm", y, "output", kForwardTolerance);
    expectClose(c, "instance_norm (saved_mean)", mean, "saved_mean",
                kForwardTolerance);
    expectClose(c, "instance_norm (saved_inv_std)", inv, "saved_inv_std",
                kForwardTolerance);
    Buffer gx = c.out("grad_input"), gs = c.out("grad_scale"),
           gb = c.out("grad_bias");
    instanceNormBackward(c.in("grad_output"), c.in("input"), c.in("scale"),
                         c.in("saved_mean"), c.in("saved_inv_std"), gx.view(),
                         gs.view(), gb.view());
    expectClose(c, "instance_norm_backward (grad_input)", gx, "grad_input",
                kGradientTolerance);
    expectClose(c, "instance_norm_backward (grad_scale)", gs, "grad_scale",
                kGradientTolerance);
    expectClose(c, "instance_norm_backward (grad_bias)", gb, "grad_bias",
                kGradientTolerance);
  }
}

TEST_F(SegmentationParity, Losses) {
  MEMOPT_LOAD_CASES(cases, "segmentation_loss");
  // Dice's epsilon is memopt.losses.DICE_EPSILON, the op's default.
  constexpr double kDiceEpsilon = 1.0;
  for (const RefCase &c : cases) {
    bool dice = c.word("kind") == "dice";
    Buffer loss = c.out("loss");
    if (dice)
      diceLoss(c.in("logits"), c.in("target"), loss.view(), kDiceEpsilon);
    else
      crossEntropyLoss(c.in("logits"), c.in("target"), loss.view());
    expectClose(c, dice ? "dice_loss" : "cross_entropy_loss", loss, "loss",
                kForwardTolerance);
    Buffer gl = c.out("grad_logits");
    if (dice)
      diceLossBackward(c.in("grad_loss"), c.in("logits"), c.in("target"),
                       gl.view(), kDiceEpsilon);
    else
      crossEntropyLossBackward(c.in("grad_loss"), c.in("logits"),
                               c.in("target"), gl.view());
    expectClose(c, dice ? "dice_loss_backward" : "cross_entropy_loss_backward",
                gl, "grad_logits", kGradientTolerance);
  }
}

} // namespace
