//===- ConstantFoldingTest.cpp - Host evaluation of ONNX shape graphs -----===//

#include "ConstantFolding.h"

#include "gtest/gtest.h"

using namespace memopt::onnx_import;

namespace {
onnx::NodeProto makeNode(const std::string &op) {
  onnx::NodeProto node;
  node.set_op_type(op);
  node.set_name(op + "_test");
  return node;
}

void addIntsAttr(onnx::NodeProto &node, const std::string &name,
                 std::initializer_list<int64_t> values) {
  onnx::AttributeProto *attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INTS);
  for (int64_t v : values)
    attr->add_ints(v);
}

void addIntAttr(onnx::NodeProto &node, const std::string &name, int64_t v) {
  onnx::AttributeProto *attr = node.add_attribute();
  attr->set_name(name);
  attr->set_type(onnx::AttributeProto::INT);
  attr->set_i(v);
}

HostTensor ints(std::initializer_list<int64_t> shape,
                std::vector<int64_t> values) {
  return HostTensor::makeInts(llvm::SmallVector<int64_t>(shape), values);
}

FoldResult fold(const onnx::NodeProto &node,
                std::vector<const HostTensor *> inputs,
                llvm::SmallVector<HostTensor> &outputs, std::string &error) {
  return foldNode(node, inputs, outputs, error);
}
} // namespace

TEST(ConstantFolding, IntegerDivisionTruncatesTowardZero) {
  HostTensor a = ints({3}, {7, -7, 6}), b = ints({}, {2});
  llvm::SmallVector<HostTensor> out;
  std::string error;
  ASSERT_EQ(fold(makeNode("Div"), {&a, &b}, out, error), FoldResult::Folded);
  EXPECT_EQ(out[0].ints, (std::vector<int64_t>{3, -3, 3}));
  EXPECT_EQ(out[0].shape, (llvm::SmallVector<int64_t>{3}));
}

TEST(ConstantFolding, SignOfIntsAndFloats) {
  HostTensor a = ints({3}, {-4, 0, 9});
  HostTensor f = HostTensor::makeFloats(llvm::SmallVector<int64_t>{3},
                                        {-2.5, 0.0, 0.25});
  llvm::SmallVector<HostTensor> signs, floatSigns;
  std::string error;
  ASSERT_EQ(fold(makeNode("Sign"), {&a}, signs, error), FoldResult::Folded);
  EXPECT_EQ(signs[0].ints, (std::vector<int64_t>{-1, 0, 1}));
  ASSERT_EQ(fold(makeNode("Sign"), {&f}, floatSigns, error),
            FoldResult::Folded);
  EXPECT_EQ(floatSigns[0].floats, (std::vector<double>{-1.0, 0.0, 1.0}));
}

TEST(ConstantFolding, BroadcastsLikeNumPy) {
  HostTensor a = ints({2, 1}, {10, 20}), b = ints({3}, {1, 2, 3});
  llvm::SmallVector<HostTensor> out;
  std::string error;
  ASSERT_EQ(fold(makeNode("Add"), {&a, &b}, out, error), FoldResult::Folded);
  EXPECT_EQ(out[0].shape, (llvm::SmallVector<int64_t>{2, 3}));
  EXPECT_EQ(out[0].ints, (std::vector<int64_t>{11, 12, 13, 21, 22, 23}));
}

TEST(ConstantFolding, IncompatibleBroadcastIsAnError) {
  HostTensor a = ints({2}, {1, 2}), b = ints({3}, {1, 2, 3});
  llvm::SmallVector<HostTensor> out;
  std::string error;
  EXPECT_EQ(fold(makeNode("Mul"), {&a, &b}, out, error), FoldResult::Error);
  EXPECT_NE(error.find("broadcast"), std::string::npos);
}

TEST(ConstantFolding, SliceWithNegativeStepReverses) {
  // PyTorch's F.pad export reverses the pads with Slice(step=-1).
  HostTensor data = ints({4}, {1, 2, 3, 4});
  HostTensor starts = ints({1}, {-1}), ends = ints({1}, {INT64_MIN});
  HostTensor axes = ints({1}, {0}), steps = ints({1}, {-1});
  llvm::SmallVector<HostTensor> out;
  std::string error;
  ASSERT_EQ(fold(makeNode("Slice"), {&data, &starts, &ends, &axes, &steps}, out,
                 error),
            FoldResult::Folded);
  EXPECT_EQ(out[0].ints, (std::vector<int64_t>{4, 3, 2, 1}));
}

TEST(ConstantFolding, GatherPicksAlongAxis) {
  HostTensor data = ints({2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor index = ints({}, {-1});
  onnx::NodeProto node = makeNode("Gather");
  addIntAttr(node, "axis", 1);
  llvm::SmallVector<HostTensor> out;
  std::string error;
  ASSERT_EQ(fold(node, {&data, &index}, out, error), FoldResult::Folded);
  EXPECT_EQ(out[0].shape, (llvm::SmallVector<int64_t>{2}));
  EXPECT_EQ(out[0].ints, (std::vector<int64_t>{3, 6}));
}

TEST(ConstantFolding, ConcatJoinsInnerChunks) {
  HostTensor a = ints({2, 1}, {1, 2}), b = ints({2, 2}, {3, 4, 5, 6});
  onnx::NodeProto node = makeNode("Concat");
  addIntAttr(node, "axis", 1);
  llvm::SmallVector<HostTensor> out;
  std::string error;
  ASSERT_EQ(fold(node, {&a, &b}, out, error), FoldResult::Folded);
  EXPECT_EQ(out[0].shape, (llvm::SmallVector<int64_t>{2, 3}));
  EXPECT_EQ(out[0].ints, (std::vector<int64_t>{1, 3, 4, 2, 5, 6}));
}

TEST(ConstantFolding, TransposeAndReshape) {
  HostTensor a = ints({2, 3}, {1, 2, 3, 4, 5, 6});
  onnx::NodeProto transpose = makeNode("Transpose");
  addIntsAttr(transpose, "perm", {1, 0});
  llvm::SmallVector<HostTensor> out;
  std::string error;
  ASSERT_EQ(fold(transpose, {&a}, out, error), FoldResult::Folded);
  EXPECT_EQ(out[0].ints, (std::vector<int64_t>{1, 4, 2, 5, 3, 6}));

  HostTensor shape = ints({2}, {-1, 2});
  llvm::SmallVector<HostTensor> reshaped;
  ASSERT_EQ(fold(makeNode("Reshape"), {&out[0], &shape}, reshaped, error),
            FoldResult::Folded);
  EXPECT_EQ(reshaped[0].shape, (llvm::SmallVector<int64_t>{3, 2}));
}

TEST(ConstantFolding, ReshapeRejectsTwoInferredDims) {
  HostTensor a = ints({4}, {1, 2, 3, 4}), shape = ints({2}, {-1, -1});
  llvm::SmallVector<HostTensor> out;
  std::string error;
  EXPECT_EQ(fold(makeNode("Reshape"), {&a, &shape}, out, error),
            FoldResult::Error);
  EXPECT_NE(error.find("-1"), std::string::npos);
}

TEST(ConstantFolding, CastFloatToIntTruncates) {
  HostTensor a = HostTensor::makeFloats({2}, {2.7, -2.7});
  onnx::NodeProto node = makeNode("Cast");
  addIntAttr(node, "to", onnx::TensorProto::INT64);
  llvm::SmallVector<HostTensor> out;
  std::string error;
  ASSERT_EQ(fold(node, {&a}, out, error), FoldResult::Folded);
  EXPECT_EQ(out[0].ints, (std::vector<int64_t>{2, -2}));
}

TEST(ConstantFolding, UnknownOpIsNotFoldable) {
  HostTensor a = ints({1}, {1});
  llvm::SmallVector<HostTensor> out;
  std::string error;
  EXPECT_EQ(fold(makeNode("LSTM"), {&a}, out, error), FoldResult::NotFoldable);
}

TEST(ConstantFolding, SliceAxisNormalizationClamps) {
  int64_t start = -100, end = 100;
  EXPECT_EQ(normalizeSliceAxis(5, start, end, 2), 3);
  EXPECT_EQ(start, 0);
  EXPECT_EQ(end, 5);
}

TEST(ShapeOps, UnsqueezeAndSqueezeFromAxesInput) {
  HostTensor axes = ints({1}, {0});
  llvm::SmallVector<int64_t> shape;
  std::string error;
  EXPECT_EQ(resolveShapeOp(makeNode("Unsqueeze"), {3, 4}, {nullptr, &axes},
                           shape, error),
            ShapeOpResult::Resolved);
  EXPECT_EQ(shape, (llvm::SmallVector<int64_t>{1, 3, 4}));
  EXPECT_EQ(resolveShapeOp(makeNode("Squeeze"), {3, 4}, {nullptr, &axes}, shape,
                           error),
            ShapeOpResult::Error);
}
