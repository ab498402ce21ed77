//===- ShapeInferenceTest.cpp - tg ops built from C++ ---------------------===//
//
// The importer and later passes build tg ops through the C++ API; these tests
// check that the inferred types are right and that failures are reported
// rather than aborting.
//
//===----------------------------------------------------------------------===//

#include "memopt/Dialect/TG/IR/TGOps.h"
#include "memopt/InitAllDialects.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

using namespace mlir;
using namespace memopt;

namespace {
class TGShapeInference : public ::testing::Test {
protected:
  TGShapeInference() : builder(&context) {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
    auto func = func::FuncOp::create(builder, builder.getUnknownLoc(), "f",
                                     builder.getFunctionType({}, {}));
    builder.setInsertionPointToEnd(func.addEntryBlock());
  }

  Value argument(ArrayRef<int64_t> shape) {
    Block *block = builder.getInsertionBlock();
    return block->addArgument(RankedTensorType::get(shape, builder.getF32Type()),
                              builder.getUnknownLoc());
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};
} // namespace

TEST_F(TGShapeInference, StridedConvolution) {
  Value x = argument({2, 3, 65, 64}), w = argument({8, 3, 3, 3});
  auto conv = tg::ConvOp::create(
      builder, builder.getUnknownLoc(), x, w, Value(),
      builder.getDenseI64ArrayAttr({2, 2}),
      builder.getDenseI64ArrayAttr({1, 1, 1, 1}),
      builder.getDenseI64ArrayAttr({1, 1}), builder.getI64IntegerAttr(1));
  EXPECT_EQ(conv.getType().getShape(), (ArrayRef<int64_t>{2, 8, 33, 32}));
}

TEST_F(TGShapeInference, BatchNormYieldsStatistics) {
  Value x = argument({2, 4, 5, 5});
  Value c = argument({4});
  auto bn = tg::BatchNormOp::create(builder, builder.getUnknownLoc(), x, c, c,
                                    c, c, llvm::APFloat(1e-5),
                                    llvm::APFloat(0.1));
  EXPECT_EQ(bn.getOutput().getType(), x.getType());
  EXPECT_EQ(bn.getSavedInvStd().getType(), c.getType());
  EXPECT_DOUBLE_EQ(bn.getMomentum().convertToDouble(), 0.1);
}

TEST_F(TGShapeInference, FailedInferenceIsDiagnosedNotFatal) {
  Value a = argument({2, 3}), b = argument({4, 3});
  SmallVector<Type> types;
  std::string message;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  LogicalResult result = tg::AddOp::inferReturnTypes(
      &context, builder.getUnknownLoc(), ValueRange{a, b},
      builder.getDictionaryAttr({}), nullptr, {}, types);
  EXPECT_TRUE(failed(result));
  EXPECT_NE(message.find("do not broadcast"), std::string::npos);
}
