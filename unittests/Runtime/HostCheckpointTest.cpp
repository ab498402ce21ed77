//===- HostCheckpointTest.cpp - Checkpoints, resume and the data order ----===//
//
// A resumed run ends bit-identical to an uninterrupted one (mid-epoch, with
// shuffling); a checkpoint interrupted mid-write leaves the previous one
// loadable; a truncated, corrupt or foreign newest checkpoint is reported,
// never silently skipped; the shuffle order depends on the seed only.
//
//===----------------------------------------------------------------------===//

#include "HostTestSupport.h"

#include "memopt/Runtime/Checkpoint.h"
#include "memopt/Runtime/DataOrder.h"

#include "gtest/gtest.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <sys/stat.h>
#include <unistd.h>

using namespace memopt::rt;
using namespace memopt::rt::test;

namespace {

std::string checkpointPath(const std::string &dir, int step) {
  char name[64];
  std::snprintf(name, sizeof(name), "/checkpoint-%010d.mckpt", step);
  return dir + name;
}

std::vector<std::string> listDir(const std::string &dir) {
  std::vector<std::string> names;
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

/// Overwrites `size` bytes at `offset` of checkpoint `path` with `value` and
/// recomputes its CRC, as a crafted (not a corrupted) file would.
void patchCheckpoint(const std::string &path, size_t offset, uint64_t value,
                     size_t size) {
  std::string bytes = readText(path);
  std::memcpy(bytes.data() + offset, &value, size);
  uLong crc = crc32_z(crc32(0L, Z_NULL, 0),
                      reinterpret_cast<const Bytef *>(bytes.data()),
                      bytes.size() - 4);
  uint32_t stored = static_cast<uint32_t>(crc);
  std::memcpy(bytes.data() + bytes.size() - 4, &stored, 4);
  writeText(path, bytes);
}

/// Field offsets of the checkpoint format (version 3).
constexpr size_t kBatchSizeOffset = 24 + 8 + 8; // after step, samples
constexpr size_t kLayoutBytes = 6 * 4;          // rank, ..., replicas
constexpr size_t kEngineLengthOffset =
    24 + 8 * 6 + 8 + kLayoutBytes; // before the engine

class RuntimeHostCheckpoint : public testing::Test {
protected:
  void SetUp() override {
    resetTestProgram();
    // 5 samples in batches of 2: 2 steps per epoch, one sample dropped.
    writeLinearDataset(dir / "data", 5);
    RunResult reference = run("reference", 9, false);
    ASSERT_EQ(reference.exitCode, 0) << reference.err;
  }

  /// Trains to `steps` with shuffling (seed 7), checkpointing every 3 steps.
  RunResult run(const std::string &name, int steps, bool resume,
                const std::string &seed = "7") {
    std::vector<std::string> args = {"--data",   dir / "data",
                                     "--steps",  std::to_string(steps),
                                     "--seed",   seed,
                                     "--out",    dir / (name + ".onnx"),
                                     "--report", dir / (name + ".json")};
    if (name != "reference")
      args.insert(args.end(), {"--checkpoint-dir", dir / "ckpt",
                               "--checkpoint-every", "3"});
    if (resume)
      args.push_back("--resume");
    return runTrainer(args);
  }

  void expectSameAsReference(const std::string &name) {
    EXPECT_EQ(readText(dir / (name + ".onnx")),
              readText(dir / "reference.onnx"));
    std::string report = readText(dir / (name + ".json"));
    std::string reference = readText(dir / "reference.json");
    auto losses = [](const std::string &json) {
      size_t at = json.find("\"loss\": [");
      return json.substr(at, json.find(']', at) - at);
    };
    EXPECT_EQ(losses(report), losses(reference));
  }

  TempDir dir;
};

TEST_F(RuntimeHostCheckpoint, ResumeMidEpochIsBitIdentical) {
  ASSERT_EQ(run("first", 5, false).exitCode, 0);
  // Checkpoints at steps 3 and 5 (the end); lose step 5 as a crash would.
  EXPECT_EQ(listDir(dir / "ckpt"),
            (std::vector<std::string>{"checkpoint-0000000003.mckpt",
                                      "checkpoint-0000000005.mckpt"}));
  std::filesystem::remove(checkpointPath(dir / "ckpt", 5));

  RunResult resumed = run("resumed", 9, true);
  ASSERT_EQ(resumed.exitCode, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("resumed from " + checkpointPath(dir / "ckpt", 3) +
                             " at step 3\n"),
            std::string::npos);
  expectSameAsReference("resumed");
  EXPECT_NE(readText(dir / "resumed.json").find("\"resumed_from_step\": 3"),
            std::string::npos);
  // Only the two newest checkpoints are kept.
  EXPECT_EQ(listDir(dir / "ckpt"),
            (std::vector<std::string>{"checkpoint-0000000006.mckpt",
                                      "checkpoint-0000000009.mckpt"}));
}

TEST_F(RuntimeHostCheckpoint, ResumeAtAnEpochBoundaryIsBitIdentical) {
  ASSERT_EQ(run("first", 6, false).exitCode, 0);
  RunResult resumed = run("resumed", 9, true);
  ASSERT_EQ(resumed.exitCode, 0) << resumed.err;
  expectSameAsReference("resumed");
  // A checkpoint beyond the run's last step is not silently reused.
  RunResult shorter = run("shorter", 8, true);
  EXPECT_EQ(shorter.exitCode, 1);
  EXPECT_EQ(shorter.err, "error: " + checkpointPath(dir / "ckpt", 9) +
                             ": at step 9, past the 8 steps of this run\n");
}

TEST_F(RuntimeHostCheckpoint, ResumeWithoutCheckpointStartsAtStepOne) {
  RunResult fresh = run("fresh", 9, true);
  ASSERT_EQ(fresh.exitCode, 0) << fresh.err;
  EXPECT_NE(fresh.out.find("no checkpoint in " + dir / "ckpt" +
                           ": starting at step 1"),
            std::string::npos);
  expectSameAsReference("fresh");
}

TEST_F(RuntimeHostCheckpoint, InterruptedWriteLeavesThePreviousOne) {
  ASSERT_EQ(run("first", 5, false).exitCode, 0);
  // A run killed while writing step 6: its temporary file is partial.
  std::string partial = checkpointPath(dir / "ckpt", 6) + ".tmp";
  writeText(partial, readText(checkpointPath(dir / "ckpt", 5)).substr(0, 40));
  RunResult resumed = run("resumed", 9, true);
  ASSERT_EQ(resumed.exitCode, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("at step 5\n"), std::string::npos);
  expectSameAsReference("resumed");
  EXPECT_FALSE(exists(partial)); // cleaned up by the next checkpoint
}

TEST_F(RuntimeHostCheckpoint, CorruptNewestIsReportedNotSkipped) {
  ASSERT_EQ(run("first", 5, false).exitCode, 0);
  std::string newest = checkpointPath(dir / "ckpt", 5);
  std::string previous = checkpointPath(dir / "ckpt", 3);
  std::string good = readText(newest);
  std::string hint = "; the previous checkpoint " + previous +
                     " may be intact: remove the corrupt one to resume from "
                     "it\n";

  writeText(newest, good.substr(0, good.size() - 10));
  RunResult truncated = run("resumed", 9, true);
  EXPECT_EQ(truncated.exitCode, 1);
  EXPECT_EQ(truncated.err,
            "error: " + newest + ": corrupt checkpoint (truncated: " +
                std::to_string(good.size() - 10) + " bytes, expected " +
                std::to_string(good.size()) + ")" + hint);
  EXPECT_FALSE(exists(dir / "resumed.onnx"));

  std::string flipped = good;
  flipped[good.size() / 2] ^= 0x10;
  writeText(newest, flipped);
  RunResult corrupt = run("resumed", 9, true);
  EXPECT_EQ(corrupt.exitCode, 1);
  EXPECT_EQ(corrupt.err, "error: " + newest +
                             ": corrupt checkpoint (checksum mismatch)" + hint);

  writeText(newest, "MEMOPTCX" + good.substr(8));
  EXPECT_EQ(run("resumed", 9, true).err,
            "error: " + newest + ": not a memopt checkpoint (bad magic)" +
                hint);

  writeText(newest, "");
  EXPECT_EQ(run("resumed", 9, true).err,
            "error: " + newest + ": corrupt checkpoint (truncated: 0 bytes)" +
                hint);

  // Removing the corrupt one resumes from the previous, as the hint says.
  std::filesystem::remove(newest);
  RunResult resumed = run("resumed", 9, true);
  ASSERT_EQ(resumed.exitCode, 0) << resumed.err;
  expectSameAsReference("resumed");
}

TEST_F(RuntimeHostCheckpoint, ResumeNeedsTheSameDataOrder) {
  ASSERT_EQ(run("first", 3, false).exitCode, 0);
  RunResult otherSeed = run("resumed", 9, true, "8");
  EXPECT_EQ(otherSeed.exitCode, 1);
  EXPECT_EQ(otherSeed.err,
            "error: " + checkpointPath(dir / "ckpt", 3) +
                ": written for 5 samples shuffled with --seed 7; resume with "
                "the same --data, --seed and --no-shuffle\n");
  writeLinearDataset(dir / "data", 6);
  RunResult moreData = run("resumed", 9, true);
  EXPECT_EQ(moreData.exitCode, 1);
  EXPECT_NE(moreData.err.find("written for 5 samples"), std::string::npos);
}

TEST_F(RuntimeHostCheckpoint, ResumeNeedsTheSameBatchSize) {
  ASSERT_EQ(run("first", 3, false).exitCode, 0);
  std::string path = checkpointPath(dir / "ckpt", 3);
  patchCheckpoint(path, kBatchSizeOffset, 4, 8);
  RunResult resumed = run("resumed", 9, true);
  EXPECT_EQ(resumed.exitCode, 1);
  EXPECT_EQ(resumed.err,
            "error: " + path +
                ": written by a binary that trains batches of 4, this one "
                "trains batches of 2; resume with the binary compiled with "
                "--batch=4 or use another --checkpoint-dir\n");
}

TEST_F(RuntimeHostCheckpoint, CraftedLengthsFailWithoutAllocating) {
  ASSERT_EQ(run("first", 3, false).exitCode, 0);
  std::string path = checkpointPath(dir / "ckpt", 3);
  // A valid CRC over a length of almost 4 GiB: checked against the file's
  // size, not allocated.
  patchCheckpoint(path, kEngineLengthOffset, 0xfffffff0u, 4);
  RunResult resumed = run("resumed", 9, true);
  EXPECT_EQ(resumed.exitCode, 1);
  EXPECT_EQ(resumed.err, "error: " + path + ": malformed checkpoint\n");
}

TEST_F(RuntimeHostCheckpoint, AFifoIsNotReadAsACheckpoint) {
  makeDirs(dir / "ckpt");
  std::string path = checkpointPath(dir / "ckpt", 3);
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  RunResult resumed = run("resumed", 9, true);
  EXPECT_EQ(resumed.exitCode, 1);
  EXPECT_EQ(resumed.err, "error: " + path +
                             ": not a regular file (a FIFO); only regular "
                             "files are read, remove or replace it\n");
}

TEST(RuntimeHostCheckpointFile, RejectsAnotherProgramsTensors) {
  TempDir dir;
  float w = 1.5f, v = 2.5f;
  TensorSpec specW = {"w", Role::Param, ElementType::F32, 1, {1}};
  TensorSpec specV = {"v", Role::Param, ElementType::F32, 1, {1}};
  TensorSpec specWide = {"w", Role::Param, ElementType::F32, 1, {2}};
  TrainingProgress progress;
  progress.step = 1;
  progress.losses = {0.5f};
  progress.stepSeconds = {0.25};
  std::string path;
  ASSERT_TRUE(writeCheckpoint(dir.path(), progress, {{&specW, &w}}, path).ok());
  EXPECT_EQ(path, checkpointPath(dir.path(), 1));

  TrainingProgress read;
  float restored = 0;
  Status status = readCheckpoint(path, read, {{&specW, &restored}});
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(restored, 1.5f);
  EXPECT_EQ(read.step, 1);
  EXPECT_EQ(read.losses, progress.losses);
  EXPECT_EQ(read.stepSeconds, progress.stepSeconds);

  EXPECT_EQ(readCheckpoint(path, read, {{&specV, &v}}).message(),
            path + ": written by another program: it holds 'w' (1,) where "
                   "this one has 'v' (1,)");
  float wide[2];
  EXPECT_EQ(readCheckpoint(path, read, {{&specWide, wide}}).message(),
            path + ": written by another program: it holds 'w' (1,) where "
                   "this one has 'w' (2,)");
  EXPECT_EQ(readCheckpoint(path, read, {}).message(),
            path + ": written by another program: it holds 1 tensors, this "
                   "one 0");
}

TEST(RuntimeHostDataOrder, SortedWithoutShuffle) {
  DataOrder order(5, /*shuffle=*/false, 123);
  auto next = [&] {
    const uint32_t *batch = order.nextBatch(2);
    return std::vector<uint32_t>(batch, batch + 2);
  };
  EXPECT_EQ(next(), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(next(), (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(order.state().epoch, 0u);
  // 1 left < 2: a new epoch, the same order.
  EXPECT_EQ(next(), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(order.state().epoch, 1u);
}

std::vector<uint32_t> epochs(uint64_t seed, int count) {
  DataOrder order(7, true, seed);
  std::vector<uint32_t> visited;
  for (int e = 0; e < count; ++e) {
    const uint32_t *batch = order.nextBatch(7);
    visited.insert(visited.end(), batch, batch + 7);
  }
  return visited;
}

TEST(RuntimeHostDataOrder, ShuffleDependsOnTheSeedOnly) {
  std::vector<uint32_t> a = epochs(42, 3);
  EXPECT_EQ(a, epochs(42, 3));
  EXPECT_NE(a, epochs(43, 3));
  for (int e = 0; e < 3; ++e) {
    std::vector<uint32_t> epoch(a.begin() + 7 * e, a.begin() + 7 * e + 7);
    std::sort(epoch.begin(), epoch.end());
    std::vector<uint32_t> all(7);
    std::iota(all.begin(), all.end(), 0u);
    EXPECT_EQ(epoch, all) << "epoch " << e << " is a permutation";
  }
  EXPECT_NE(std::vector<uint32_t>(a.begin(), a.begin() + 7),
            std::vector<uint32_t>(a.begin() + 7, a.begin() + 14));
  // The documented algorithm (mt19937_64, Fisher-Yates, rejection draws)
  // gives this order on every platform.
  EXPECT_EQ(std::vector<uint32_t>(a.begin(), a.begin() + 7),
            (std::vector<uint32_t>{1, 4, 3, 5, 0, 2, 6}));
}

TEST(RuntimeHostDataOrder, RestoreContinuesTheSequence) {
  DataOrder original(5, true, 9);
  original.nextBatch(2);
  original.nextBatch(2);
  original.nextBatch(2); // epoch 1, position 2
  DataOrder::State state = original.state();
  EXPECT_EQ(state.epoch, 1u);
  EXPECT_EQ(state.position, 2u);
  DataOrder restored(5, true, 0);
  ASSERT_TRUE(restored.restore(state).ok());
  for (int i = 0; i < 7; ++i) {
    const uint32_t *a = original.nextBatch(2), *b = restored.nextBatch(2);
    EXPECT_EQ(std::vector<uint32_t>(a, a + 2), std::vector<uint32_t>(b, b + 2));
  }
  EXPECT_FALSE(restored.restore({0, 0, "not an engine"}).ok());
}

} // namespace
