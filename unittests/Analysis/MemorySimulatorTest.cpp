//===- MemorySimulatorTest.cpp - The questions the memory planners ask ---===//
//
// Live bytes per point of an order, what is live at an op, and the peak if
// a value were absent for a while (rematerialization, offload), on small
// steps whose numbers can be checked by hand: 32x32 f32 is 4096 bytes,
// 16x16 f32 1024.
//
//===----------------------------------------------------------------------===//

#include "memopt/Analysis/MemorySimulator.h"
#include "memopt/InitAllDialects.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "gtest/gtest.h"

#include <random>

using namespace mlir;
using namespace memopt;

namespace {

class MemorySimulatorTest : public ::testing::Test {
protected:
  MemorySimulatorTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  func::FuncOp parse(StringRef source) {
    module = parseSourceString<ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    return *module->getOps<func::FuncOp>().begin();
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

/// Two 4 KiB values pooled late: the given order holds both and a pooled
/// value at op 2; pooling each at once needs less.
constexpr StringLiteral kPoolLate = R"mlir(
func.func @f(%x: tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32> {
  %a = tg.relu %x : tensor<1x1x32x32xf32>
  %b = tg.sigmoid %x : tensor<1x1x32x32xf32>
  %c = tg.max_pool %a {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  %d = tg.max_pool %b {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  %e = tg.add %c, %d : (tensor<1x1x16x16xf32>, tensor<1x1x16x16xf32>) -> tensor<1x1x16x16xf32>
  return %e : tensor<1x1x16x16xf32>
}
)mlir";

TEST_F(MemorySimulatorTest, LiveBytesAndPeakOfAnOrder) {
  MemorySimulator simulator(parse(kPoolLate), /*inPlace=*/true);
  // %e is computed in the step's result buffer: four arena values.
  ASSERT_EQ(simulator.values().size(), 4u);
  SmallVector<unsigned> given = simulator.givenOrder();
  EXPECT_EQ(simulator.liveBytes(given),
            SmallVector<uint64_t>({4096, 8192, 9216, 6144, 2048}));
  EXPECT_EQ(simulator.peak(given), 9216u);
  // Pool %a before %b exists.
  SmallVector<unsigned> early = {0, 2, 1, 3, 4};
  EXPECT_EQ(simulator.liveBytes(early),
            SmallVector<uint64_t>({4096, 5120, 5120, 6144, 2048}));
  EXPECT_EQ(simulator.peak(early), 6144u);
}

TEST_F(MemorySimulatorTest, WhatIsLiveAtAnOp) {
  func::FuncOp function = parse(kPoolLate);
  MemorySimulator simulator(function, /*inPlace=*/true);
  Block &body = function.getBody().front();
  auto index = [&](unsigned op) {
    return simulator.valueIndex(std::next(body.begin(), op)->getResult(0));
  };
  MemorySimulator::Layout given = simulator.layout(simulator.givenOrder());
  EXPECT_EQ(simulator.liveAt(given, 2),
            SmallVector<unsigned>({index(0), index(1), index(2)}));
  EXPECT_EQ(simulator.liveAt(given, 4),
            SmallVector<unsigned>({index(2), index(3)}));
  EXPECT_EQ(index(4), MemorySimulator::kNone);
}

TEST_F(MemorySimulatorTest, PeakIfAValueWereAbsent) {
  func::FuncOp function = parse(kPoolLate);
  MemorySimulator simulator(function, /*inPlace=*/true);
  SmallVector<unsigned> given = simulator.givenOrder();
  MemorySimulator::Layout layout = simulator.layout(given);
  SmallVector<uint64_t> live = simulator.liveBytes(given, layout);
  EXPECT_EQ(live, simulator.liveBytes(given));
  unsigned a = simulator.valueIndex(function.getBody().front().front()
                                        .getResult(0));
  unsigned b = a + 1;
  // %b offloaded after op 1 and back before op 3: op 2 holds 5120, the
  // peak moves to op 1 (%a and %b).
  EXPECT_EQ(simulator.peakWithout(layout, live, b, 2, 2), 8192u);
  // %a absent at op 1 only: op 2 still needs it.
  EXPECT_EQ(simulator.peakWithout(layout, live, a, 1, 1), 9216u);
  // Outside its life a value frees nothing.
  EXPECT_EQ(simulator.peakWithout(layout, live, a, 3, 4), 9216u);
}

TEST_F(MemorySimulatorTest, PeakIfSeveralValuesWereAbsent) {
  // tg-remat's ties: values absent at once, each over its own positions
  // (live bytes 4096, 8192, 9216, 6144, 2048).
  func::FuncOp function = parse(kPoolLate);
  MemorySimulator simulator(function, /*inPlace=*/true);
  MemorySimulator::Layout layout = simulator.layout(simulator.givenOrder());
  MemorySimulator::LiveMax live(
      simulator.liveBytes(simulator.givenOrder(), layout));
  unsigned a = simulator.valueIndex(function.getBody().front().front()
                                        .getResult(0));
  unsigned b = a + 1;
  // One absence: peakWithout's answer.
  EXPECT_EQ(simulator.peakWithout(layout, live, {{b, 2, 2}}),
            simulator.peakWithout(layout, live, b, 2, 2));
  EXPECT_EQ(simulator.peakWithout(layout, live, {{b, 2, 2}}), 8192u);
  // %a absent at op 1, %b at op 2: 4096 and 5120 there; op 3's 6144
  // is the peak.
  EXPECT_EQ(simulator.peakWithout(layout, live, {{a, 1, 1}, {b, 2, 2}}),
            6144u);
  // Overlapping absences add up where they overlap (op 1: 0 bytes).
  EXPECT_EQ(simulator.peakWithout(layout, live, {{a, 1, 1}, {b, 1, 3}}),
            5120u);
  // Outside their lives values free nothing.
  EXPECT_EQ(simulator.peakWithout(layout, live, {{a, 3, 4}, {b, 4, 4}}),
            9216u);
}

TEST(MemorySimulatorLiveMaxTest, RangeMaximaAreTheScansOnes) {
  // peakWithout's range maxima against a scan of every range, on arrays
  // of every length up to 40 (the sparse table's levels at and between
  // powers of two); an empty or out-of-range range is 0.
  std::mt19937 random(5);
  for (unsigned length = 0; length <= 40; ++length) {
    SmallVector<uint64_t> live;
    for (unsigned i = 0; i < length; ++i)
      live.push_back(random() % 1000);
    MemorySimulator::LiveMax most(live);
    for (unsigned from = 0; from <= length; ++from)
      for (unsigned to = from; to <= length + 1; ++to) {
        uint64_t scanned = 0;
        for (unsigned at = from; at <= to && at < length; ++at)
          scanned = std::max(scanned, live[at]);
        EXPECT_EQ(most.max(from, to), scanned)
            << "length " << length << ", [" << from << ", " << to << "]";
      }
    EXPECT_EQ(most.max(1, 0), 0u);
  }
}

/// relu then sigmoid over it: with in-place writes one buffer.
constexpr StringLiteral kChain = R"mlir(
func.func @f(%x: tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32> {
  %a = tg.relu %x {memopt.workspace_bytes = 100 : i64} : tensor<1x1x32x32xf32>
  %b = tg.sigmoid %a : tensor<1x1x32x32xf32>
  %c = tg.max_pool %b {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x1x32x32xf32>) -> tensor<1x1x16x16xf32>
  return %c : tensor<1x1x16x16xf32>
}
)mlir";

TEST_F(MemorySimulatorTest, InPlaceWritesAndWorkspacesCountOnce) {
  func::FuncOp function = parse(kChain);
  MemorySimulator inPlace(function, /*inPlace=*/true);
  MemorySimulator copies(function, /*inPlace=*/false);
  SmallVector<unsigned> given = inPlace.givenOrder();
  // The workspace (100 bytes, aligned to 128) counts during its op only.
  EXPECT_EQ(inPlace.liveBytes(given),
            SmallVector<uint64_t>({4096 + 128, 4096, 4096}));
  EXPECT_EQ(copies.liveBytes(given),
            SmallVector<uint64_t>({4096 + 128, 8192, 4096}));
  // %a and %b share a buffer: without %a, the buffer is still %b's from
  // op 1 on.
  unsigned a = inPlace.valueIndex(function.getBody().front().front()
                                      .getResult(0));
  MemorySimulator::Layout shared = inPlace.layout(given),
                          separate = copies.layout(given);
  EXPECT_EQ(inPlace.peakWithout(shared, inPlace.liveBytes(given, shared), a,
                                0, 2),
            4096u);
  EXPECT_EQ(copies.peakWithout(separate, copies.liveBytes(given, separate),
                               a, 0, 1),
            4096u);
}

/// The buffers of a layout as (first, last, bytes), in the plan's order.
SmallVector<std::tuple<unsigned, unsigned, uint64_t>>
intervals(const MemorySimulator::Layout &layout) {
  SmallVector<std::tuple<unsigned, unsigned, uint64_t>> buffers;
  for (const MemorySimulator::Buffer &buffer : layout.buffers)
    buffers.push_back({buffer.first, buffer.last, buffer.bytes});
  return buffers;
}

TEST_F(MemorySimulatorTest, AnOrdersLayoutIsTheReorderedStepsLayout) {
  // tg-remat's fit tests take the layout of the scheduled order from the
  // graph before the reordering.
  func::FuncOp function = parse(kPoolLate);
  MemorySimulator before(function, /*inPlace=*/true);
  ASSERT_FALSE(before.layoutDependsOnGivenOrder());
  SmallVector<unsigned> early = {0, 2, 1, 3, 4};
  MemorySimulator::Layout ofEarly = before.layout(early);
  Block &body = function.getBody().front();
  SmallVector<Operation *> ops =
      llvm::to_vector(llvm::make_pointer_range(body.without_terminator()));
  for (unsigned index : early)
    ops[index]->moveBefore(body.getTerminator());
  MemorySimulator after(function, /*inPlace=*/true);
  SmallVector<unsigned> given = after.givenOrder();
  EXPECT_EQ(intervals(after.layout(given)), intervals(ofEarly));
  EXPECT_EQ(after.liveBytes(given), before.liveBytes(early));
}

/// %x read by two concats: the slice it is computed in is the first
/// concat's in the block.
constexpr StringLiteral kTwoConcats = R"mlir(
func.func @f(%x: tensor<1x1x4x4xf32>) -> (tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>) {
  %a = tg.relu %x : tensor<1x1x4x4xf32>
  %b = tg.sigmoid %x : tensor<1x1x4x4xf32>
  %c = tg.concat %a, %b {axis = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
  %d = tg.concat %b, %a {axis = 1 : i64} : (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32>
  return %c, %d : tensor<1x2x4x4xf32>, tensor<1x2x4x4xf32>
}
)mlir";

TEST_F(MemorySimulatorTest, ALayoutWithSharedConcatOperandsFollowsTheOrder) {
  func::FuncOp function = parse(kTwoConcats);
  EXPECT_TRUE(
      MemorySimulator(function, /*inPlace=*/true).layoutDependsOnGivenOrder());
  EXPECT_FALSE(
      MemorySimulator(function, /*inPlace=*/false).layoutDependsOnGivenOrder());
}

} // namespace
