//===- MicrobatchTiesTest.cpp - Which copies of a value are tied ----------===//
//
// A pipelined stage run as two microbatches, as tg-microbatch leaves it:
// each microbatch's forward after the other's, the received activation
// of microbatch k tagged with its tag plus k times the stride, the copies
// of an op at its location.
//
//===----------------------------------------------------------------------===//

#include "memopt/Planning/MicrobatchTies.h"
#include "memopt/InitAllDialects.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace memopt;

namespace {

constexpr StringLiteral kTwoMicrobatches = R"mlir(
func.func @stage(%w: tensor<2x2x3x3xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>)
    attributes {memopt.microbatch = #memopt.microbatch<microbatches = 2, in_flight = 1, order = "F0 B0 F1 B1">} {
  %r0 = tg.recv from stage 0 tag 0 forward : tensor<1x2x4x4xf32> loc("skip")
  %a0 = tg.relu %r0 : tensor<1x2x4x4xf32> loc("relu")
  %r1 = tg.recv from stage 0 tag 4 forward : tensor<1x2x4x4xf32> loc("skip")
  %a1 = tg.relu %r1 : tensor<1x2x4x4xf32> loc("relu")
  return %a0, %a1 : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
)mlir";

class MicrobatchTiesTest : public ::testing::Test {
protected:
  MicrobatchTiesTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = parseSourceString<ModuleOp>(kTwoMicrobatches, &context);
    EXPECT_TRUE(module);
    function = *module->getOps<func::FuncOp>().begin();
    for (Operation &op : function.getBody().front().without_terminator())
      forward.push_back(&op);
  }

  Value result(unsigned op) { return forward[op]->getResult(0); }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
  func::FuncOp function;
  SmallVector<Operation *> forward;
};

TEST_F(MicrobatchTiesTest, StageValuesAreTiedReceivedOnesWhereAsked) {
  MicrobatchTies own(function, forward);
  EXPECT_EQ(own.size(), 1u);
  EXPECT_EQ(own.copies(), 2u);
  EXPECT_EQ(own.copiesOf(result(1)), ArrayRef<Value>({result(1), result(3)}));
  EXPECT_TRUE(own.representative(result(1)));
  EXPECT_FALSE(own.representative(result(3)));
  // Each received value stands alone.
  EXPECT_EQ(own.copiesOf(result(2)), ArrayRef<Value>(result(2)));
  EXPECT_TRUE(own.representative(result(2)));

  // Their tags differ by the stride, and nothing else does.
  MicrobatchTies all(function, forward, MicrobatchTies::Transfers::Tied);
  EXPECT_EQ(all.size(), 2u);
  EXPECT_EQ(all.copiesOf(result(0)), ArrayRef<Value>({result(0), result(2)}));
  EXPECT_EQ(all.copiesOf(result(3)), ArrayRef<Value>({result(1), result(3)}));
}

TEST_F(MicrobatchTiesTest, NoTiesWithoutMicrobatches) {
  function->removeAttr("memopt.microbatch");
  MicrobatchTies none(function, forward, MicrobatchTies::Transfers::Tied);
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(none.copies(), 1u);
  EXPECT_EQ(none.copiesOf(result(0)), ArrayRef<Value>(result(0)));
}

} // namespace
