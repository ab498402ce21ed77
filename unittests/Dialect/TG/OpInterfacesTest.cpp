//===- OpInterfacesTest.cpp - Per-op facts of the tg dialect --------------===//
//
// The facts that passes read from tg::KernelOpInterface and
// tg::GradientOpInterface: which ops have them, and what representative ops
// answer. The FLOPs and bytes are also checked through the cost model
// (test/Analysis/estimate-cost.mlir), the gradients through autodiff
// (test/Dialect/TG/Transforms/autodiff-rules.mlir).
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/TG/IR/TGOps.h"
#include "memopt/InitAllDialects.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace memopt;

namespace {

class TGOpInterfaces : public ::testing::Test {
protected:
  TGOpInterfaces() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The ops of `body`, parsed as the body of a function with arguments
  /// `signature`, in order.
  SmallVector<Operation *> parse(StringRef signature, StringRef body) {
    std::string source = ("func.func @f(" + signature + ") {\n" + body +
                          "\n  return\n}\n")
                             .str();
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module) << source;
    SmallVector<Operation *> ops;
    if (module)
      for (Operation &op : module->lookupSymbol<func::FuncOp>("f")
                               .getBody()
                               .front()
                               .without_terminator())
        ops.push_back(&op);
    return ops;
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

/// Records the convolution an op describes.
class RecordingPolicy : public tg::WorkspacePolicy {
public:
  FailureOr<uint64_t>
  convolution(Operation *, const tg::ConvolutionProblem &problem) const override {
    kind = problem.kind;
    input.assign(problem.input.begin(), problem.input.end());
    output.assign(problem.output.begin(), problem.output.end());
    return uint64_t(4096);
  }
  mutable tg::ConvolutionProblem::Kind kind{};
  mutable SmallVector<int64_t> input, output;
};

} // namespace

// Every op runs a kernel but the constant (data in the binary), the
// terminator of a fused body, the transfers between pipeline stages and
// tg-offload's copies to host memory and back.
TEST_F(TGOpInterfaces, EveryOpButConstantYieldAndTransfersIsAKernel) {
  unsigned ops = 0;
  for (RegisteredOperationName name : context.getRegisteredOperations()) {
    if (name.getDialectNamespace() != "tg")
      continue;
    ++ops;
    bool runsNoKernel =
        llvm::is_contained({"tg.constant", "tg.yield", "tg.send", "tg.recv",
                            "tg.offload_start", "tg.offload_wait",
                            "tg.prefetch_start", "tg.prefetch_wait"},
                           name.getStringRef());
    EXPECT_EQ(name.hasInterface<tg::KernelOpInterface>(), !runsNoKernel)
        << name.getStringRef().str();
  }
  EXPECT_GT(ops, 50u);
}

TEST_F(TGOpInterfaces, GradientOpsAndOptimizerUpdatesAreNotDifferentiable) {
  for (StringRef name : {"tg.conv_backward_data", "tg.relu_backward",
                         "tg.batch_norm_backward", "tg.sgd_update",
                         "tg.mse_loss_backward", "tg.fused_elementwise",
                         "tg.sign"}) {
    auto registered = RegisteredOperationName::lookup(name, &context);
    ASSERT_TRUE(registered) << name.str();
    EXPECT_FALSE(registered->hasInterface<tg::GradientOpInterface>())
        << name.str();
  }
  // The losses are differentiable forward ops: deep supervision sums
  // several of them (tg-autodiff).
  for (StringRef name : {"tg.conv", "tg.relu", "tg.add", "tg.cast",
                         "tg.batch_norm", "tg.concat", "tg.reduce_mean",
                         "tg.mse_loss"}) {
    auto registered = RegisteredOperationName::lookup(name, &context);
    ASSERT_TRUE(registered) << name.str();
    EXPECT_TRUE(registered->hasInterface<tg::GradientOpInterface>())
        << name.str();
  }
}

TEST_F(TGOpInterfaces, ElementwiseOpsOverwriteOperandsOfTheirType) {
  SmallVector<Operation *> ops =
      parse("%a: tensor<2x4xf32>, %b: tensor<4xf32>",
            "%0 = tg.relu %a : tensor<2x4xf32>\n"
            "%1 = tg.add %a, %0 : (tensor<2x4xf32>, tensor<2x4xf32>) -> "
            "tensor<2x4xf32>\n"
            "%2 = tg.add %a, %b : (tensor<2x4xf32>, tensor<4xf32>) -> "
            "tensor<2x4xf32>\n"
            "%3 = tg.relu_backward %0, %1 : tensor<2x4xf32>");
  ASSERT_EQ(ops.size(), 4u);
  auto facts = [](Operation *op) { return cast<tg::KernelOpInterface>(op); };
  EXPECT_EQ(facts(ops[0]).getInPlaceOperands(0),
            (SmallVector<unsigned, 2>{0}));
  EXPECT_EQ(facts(ops[1]).getInPlaceOperands(0),
            (SmallVector<unsigned, 2>{0, 1}));
  // A broadcast operand is read again after its element was written.
  EXPECT_TRUE(facts(ops[2]).getInPlaceOperands(0).empty());
  EXPECT_EQ(facts(ops[3]).getInPlaceOperands(0),
            (SmallVector<unsigned, 2>{0, 1}));
  for (Operation *op : ops) {
    EXPECT_TRUE(facts(op).isCheapToRecompute());
    EXPECT_EQ(facts(op).getUpdatedOperand(0), Value());
  }
  EXPECT_EQ(facts(ops[0]).getFlops(), 8u);
  EXPECT_EQ(facts(ops[3]).getFlops(), 16u);
}

TEST_F(TGOpInterfaces, BatchNormUpdatesItsRunningStatistics) {
  SmallVector<Operation *> ops = parse(
      "%x: tensor<2x3x4x4xf32>, %c: tensor<3xf32>, %m: tensor<3xf32>, "
      "%v: tensor<3xf32>",
      "%y, %rm, %rv, %sm, %si = tg.batch_norm %x, %c, %c, %m, %v : "
      "(tensor<2x3x4x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, "
      "tensor<3xf32>) -> (tensor<2x3x4x4xf32>, tensor<3xf32>, "
      "tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)");
  ASSERT_EQ(ops.size(), 1u);
  auto bn = cast<tg::BatchNormOp>(ops[0]);
  auto facts = cast<tg::KernelOpInterface>(ops[0]);
  EXPECT_EQ(facts.getInPlaceOperands(0), (SmallVector<unsigned, 2>{0}));
  EXPECT_TRUE(facts.getInPlaceOperands(1).empty());
  EXPECT_EQ(facts.getUpdatedOperand(0), Value());
  EXPECT_EQ(facts.getUpdatedOperand(1), bn.getRunningMean());
  EXPECT_EQ(facts.getUpdatedOperand(2), bn.getRunningVar());
  EXPECT_FALSE(facts.isCheapToRecompute());
}

TEST_F(TGOpInterfaces, ConvolutionsDescribeTheirForwardConvolution) {
  SmallVector<Operation *> ops = parse(
      "%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, "
      "%dy: tensor<1x6x8x8xf32>",
      "%0 = tg.conv %x, %w {pads = array<i64: 1, 1, 1, 1>} : "
      "(tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x6x8x8xf32>\n"
      "%1 = tg.conv_backward_data %dy, %w {pads = array<i64: 1, 1, 1, 1>, "
      "input_shape = array<i64: 1, 4, 8, 8>} : "
      "(tensor<1x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<1x4x8x8xf32>");
  ASSERT_EQ(ops.size(), 2u);
  using Kind = tg::ConvolutionProblem::Kind;
  const Kind kinds[] = {Kind::Forward, Kind::BackwardData};
  for (auto [op, kind] : llvm::zip_equal(ops, kinds)) {
    RecordingPolicy policy;
    auto facts = cast<tg::KernelOpInterface>(op);
    EXPECT_EQ(*facts.getWorkspaceBytes(policy), 4096u);
    EXPECT_EQ(policy.kind, kind);
    EXPECT_EQ(policy.input, (SmallVector<int64_t>{1, 4, 8, 8}));
    EXPECT_EQ(policy.output, (SmallVector<int64_t>{1, 6, 8, 8}));
    EXPECT_FALSE(facts.isCheapToRecompute());
    // 2 FLOPs per output element (384) per tap (4 x 3 x 3).
    EXPECT_EQ(facts.getFlops(), 2u * 384 * 36);
  }
}

TEST_F(TGOpInterfaces, CastMovesBytesWithoutFlops) {
  SmallVector<Operation *> ops =
      parse("%x: tensor<2x8xf32>", "%0 = tg.cast %x : tensor<2x8xf32> to "
                                   "tensor<2x8xbf16>");
  ASSERT_EQ(ops.size(), 1u);
  auto facts = cast<tg::KernelOpInterface>(ops[0]);
  EXPECT_EQ(facts.getFlops(), 0u);
  EXPECT_EQ(facts.getBytesRead(), 64u);
  EXPECT_EQ(facts.getBytesWritten(), 32u);
  EXPECT_TRUE(facts.getInPlaceOperands(0).empty());
  EXPECT_TRUE(facts.isCheapToRecompute());
  RecordingPolicy policy;
  EXPECT_EQ(*facts.getWorkspaceBytes(policy), 0u);
}

TEST_F(TGOpInterfaces, OptimizerUpdatesUpdateTheirState) {
  SmallVector<Operation *> ops = parse(
      "%p: tensor<6xf32>, %g: tensor<6xf32>, %m: tensor<6xf32>, "
      "%s: tensor<i64>",
      "%0, %1 = tg.sgd_update %p, %g, %m, step %s {momentum = 0.9} : "
      "tensor<6xf32>");
  ASSERT_EQ(ops.size(), 1u);
  auto facts = cast<tg::KernelOpInterface>(ops[0]);
  EXPECT_EQ(facts.getUpdatedOperand(0), ops[0]->getOperand(0));
  EXPECT_EQ(facts.getUpdatedOperand(1), ops[0]->getOperand(2));
  EXPECT_FALSE(facts.isCheapToRecompute());
  // p -= lr * d (2), buf = m * buf + (1 - damp) * d (3), per element.
  EXPECT_EQ(facts.getFlops(), 6u * 5);
}
