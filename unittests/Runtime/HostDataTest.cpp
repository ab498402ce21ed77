//===- HostDataTest.cpp - Sample files and data sets ----------------------===//
//
// Each format's scaling (.npy float32/uint8/uint16, 8- and 16-bit PNG,
// DICOM by BitsStored), pairing and order, and every bad input: one
// `error: <file>: <cause>` line and exit status 1 before the first step.
//
//===----------------------------------------------------------------------===//

#include "HostTestSupport.h"

#include "memopt/Runtime/Dataset.h"
#include "memopt/Runtime/ImageFile.h"

#include "gtest/gtest.h"

#include <functional>
#include <sys/stat.h>
#include <unistd.h>

using namespace memopt::rt;
using namespace memopt::rt::test;

namespace {

std::vector<float> readAll(const std::string &path, Dims &shape) {
  Status status = readImageShape(path, shape);
  EXPECT_TRUE(status.ok()) << status.message();
  std::vector<float> pixels(static_cast<size_t>(shape.product()));
  status = readImage(path, shape, pixels.data());
  EXPECT_TRUE(status.ok()) << status.message();
  return pixels;
}

/// A .npy file with the header dict `dict` and `payload` bytes of data.
void writeNpyRaw(const std::string &path, const std::string &dict,
                 size_t payload) {
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(dict.size() + 1);
  bytes += '\x00';
  bytes += dict + "\n" + std::string(payload, '\0');
  writeText(path, bytes);
}

std::string npyError(const std::string &path) {
  Dims shape;
  Status status = readImageShape(path, shape);
  return status.ok() ? "" : status.message();
}

TEST(RuntimeHostData, NpyTypesAreScaledByTheirRange) {
  TempDir dir;
  Dims shape;
  writeNpyF32(dir / "f.npy", {1, 2, 2}, {0.5f, -2.0f, 3.0f, 1e6f});
  EXPECT_EQ(readAll(dir / "f.npy", shape),
            (std::vector<float>{0.5f, -2.0f, 3.0f, 1e6f}));
  EXPECT_EQ(shape, (Dims{1, 2, 2}));
  writeNpyU8(dir / "u8.npy", {2, 2}, {0, 255, 51, 1});
  EXPECT_EQ(readAll(dir / "u8.npy", shape),
            (std::vector<float>{0.0f, 1.0f, 51 / 255.0f, 1 / 255.0f}));
  EXPECT_EQ(shape, (Dims{2, 2}));
  writeNpyU16(dir / "u16.npy", {2, 2}, {0, 65535, 256, 1});
  EXPECT_EQ(readAll(dir / "u16.npy", shape),
            (std::vector<float>{0.0f, 1.0f, 256 / 65535.0f, 1 / 65535.0f}));
}

TEST(RuntimeHostData, NpyRejectsWhatItCannotRead) {
  TempDir dir;
  writeNpyRaw(dir / "fortran.npy",
              "{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }", 16);
  EXPECT_EQ(npyError(dir / "fortran.npy"),
            dir / "fortran.npy" +
                ": Fortran-order arrays are not supported, save it in C order");
  writeNpyRaw(dir / "f8.npy",
              "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 2), }",
              32);
  EXPECT_EQ(npyError(dir / "f8.npy"),
            dir / "f8.npy" +
                ": unsupported dtype '<f8', expected float32, uint8 or uint16");
  writeNpyRaw(dir / "be.npy",
              "{'descr': '>f4', 'fortran_order': False, 'shape': (2, 2), }",
              16);
  EXPECT_EQ(npyError(dir / "be.npy"),
            dir / "be.npy" +
                ": big-endian data ('>f4') is not supported, expected "
                "little-endian");
  writeNpyRaw(dir / "short.npy",
              "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }",
              15);
  EXPECT_EQ(npyError(dir / "short.npy"),
            dir / "short.npy" + ": truncated: 15 bytes of data, expected 16");
  writeText(dir / "text.npy", "hello");
  EXPECT_EQ(npyError(dir / "text.npy"), dir / "text.npy" + ": not a .npy file");
  EXPECT_EQ(npyError(dir / "missing.npy"),
            dir / "missing.npy" + ": No such file or directory");
  EXPECT_EQ(npyError(dir / "image.jpg"),
            dir / "image.jpg" +
                ": unsupported file type (expected .npy, .png or .dcm)");
}

TEST(RuntimeHostData, PngIsScaledByItsBitDepth) {
#ifndef MEMOPT_HAVE_PNG
  GTEST_SKIP() << "built without libpng";
#else
  TempDir dir;
  Dims shape;
  writePng(dir / "eight.png", 2, 3, 8, {0, 255, 51, 1, 2, 3});
  EXPECT_EQ(readAll(dir / "eight.png", shape),
            (std::vector<float>{0.0f, 1.0f, 51 / 255.0f, 1 / 255.0f, 2 / 255.0f,
                                3 / 255.0f}));
  EXPECT_EQ(shape, (Dims{2, 3}));
  writePng(dir / "sixteen.png", 2, 2, 16, {0, 65535, 258, 1});
  EXPECT_EQ(readAll(dir / "sixteen.png", shape),
            (std::vector<float>{0.0f, 1.0f, 258 / 65535.0f, 1 / 65535.0f}));
  writeText(dir / "fake.png", "\x89PNG\r\n\x1a\nbroken");
  EXPECT_NE(npyError(dir / "fake.png").find(dir / "fake.png: invalid PNG: "),
            std::string::npos);
#endif
}

TEST(RuntimeHostData, DicomIsScaledByBitsStored) {
#ifndef MEMOPT_HAVE_DCMTK
  GTEST_SKIP() << "built without DCMTK";
#else
  TempDir dir;
  Dims shape;
  writeDicom(dir / "x.dcm", 2, 2, 12, {0, 4095, 2048, 1});
  EXPECT_EQ(readAll(dir / "x.dcm", shape),
            (std::vector<float>{0.0f, 1.0f, 2048 / 4095.0f, 1 / 4095.0f}));
  EXPECT_EQ(shape, (Dims{2, 2}));
  writeText(dir / "bad.dcm", "not dicom at all");
  EXPECT_EQ(npyError(dir / "bad.dcm").rfind(dir / "bad.dcm: ", 0), 0u);
#endif
}

TEST(RuntimeHostData, PairsByStemInSortedOrder) {
  TempDir dir;
  // Inputs of shape H,W for samples of 1,H,W; targets in another format.
  writeNpyU8(dir / "inputs/b.npy", {2, 2}, {1, 2, 3, 4});
  writeNpyU8(dir / "inputs/a.npy", {2, 2}, {5, 6, 7, 8});
  writeNpyF32(dir / "targets/a.npy", {1, 2, 2}, {1, 1, 1, 1});
  writeNpyF32(dir / "targets/b.npy", {1, 2, 2}, {2, 2, 2, 2});
  writeText(dir / "inputs/.hidden", "ignored");
  makeDirs(dir / "inputs/subdir");
  Dataset dataset;
  Status status = Dataset::open(dir.path(), {1, 2, 2}, {1, 2, 2}, dataset);
  ASSERT_TRUE(status.ok()) << status.message();
  ASSERT_EQ(dataset.size(), 2u);
  EXPECT_EQ(dataset.sample(0).name, "a");
  EXPECT_EQ(dataset.sample(1).name, "b");
  std::vector<float> inputs(8), targets(8);
  uint32_t order[] = {1, 0};
  ASSERT_TRUE(dataset.loadBatch(order, 2, inputs.data(), targets.data()).ok());
  EXPECT_EQ(inputs[0], 1 / 255.0f);
  EXPECT_EQ(inputs[4], 5 / 255.0f);
  EXPECT_EQ(targets, (std::vector<float>{2, 2, 2, 2, 1, 1, 1, 1}));
}

TEST(RuntimeHostData, MixedFormatsTrain) {
#if !defined(MEMOPT_HAVE_PNG) || !defined(MEMOPT_HAVE_DCMTK)
  GTEST_SKIP() << "built without libpng or DCMTK";
#else
  TempDir dir;
  writePng(dir / "data/inputs/a.png", 2, 2, 16, {0, 1000, 2000, 3000});
  writeNpyF32(dir / "data/targets/a.npy", {2, 2}, {1, 1, 1, 1});
  writeDicom(dir / "data/inputs/b.dcm", 2, 2, 10, {0, 1023, 512, 7});
  writePng(dir / "data/targets/b.png", 2, 2, 8, {255, 255, 0, 0});
  resetTestProgram();
  RunResult result = runTrainer(
      {"--data", dir / "data", "--steps", "3", "--out", dir / "out.onnx"});
  EXPECT_EQ(result.exitCode, 0) << result.err;
  EXPECT_TRUE(exists(dir / "out.onnx"));
#endif
}

struct BadData {
  const char *what;
  std::function<void(const std::string &)> make; // writes into DIR
  std::string message;                           // after "error: DIR/"
};

TEST(RuntimeHostData, BadDataFailsBeforeTraining) {
  const BadData cases[] = {
      {"wrong shape",
       [](const std::string &d) {
         writeLinearDataset(d, 2);
         writeNpyF32(d + "/inputs/s1.npy", {1, 3, 2}, std::vector<float>(6));
       },
       "inputs/s1.npy: has shape (1, 3, 2), expected (1, 2, 2) or (2, 2)"},
      {"wrong target shape",
       [](const std::string &d) {
         writeLinearDataset(d, 2);
         writeNpyF32(d + "/targets/s0.npy", {4}, std::vector<float>(4));
       },
       "targets/s0.npy: has shape (4,), expected (1, 2, 2) or (2, 2)"},
      {"missing target",
       [](const std::string &d) {
         writeLinearDataset(d, 2);
         writeNpyF32(d + "/inputs/extra.npy", {2, 2}, std::vector<float>(4));
       },
       "inputs/extra.npy: no target DIR/targets/extra.{npy,png,dcm}"},
      {"missing input",
       [](const std::string &d) {
         writeLinearDataset(d, 2);
         writeNpyF32(d + "/targets/extra.npy", {2, 2}, std::vector<float>(4));
       },
       "targets/extra.npy: no input DIR/inputs/extra.{npy,png,dcm}"},
      {"unreadable file",
       [](const std::string &d) {
         writeLinearDataset(d, 2);
         writeText(d + "/inputs/s1.npy", "garbage");
       },
       "inputs/s1.npy: not a .npy file"},
      {"wrong dtype",
       [](const std::string &d) {
         writeLinearDataset(d, 2);
         writeNpyRaw(d + "/targets/s1.npy",
                     "{'descr': '<i4', 'fortran_order': False, 'shape': (2, "
                     "2), }",
                     16);
       },
       "targets/s1.npy: unsupported dtype '<i4', expected float32, uint8 or "
       "uint16"},
      {"unsupported file",
       [](const std::string &d) {
         writeLinearDataset(d, 2);
         writeText(d + "/inputs/notes.txt", "hi");
       },
       "inputs/notes.txt: unsupported file type (expected .npy, .png or "
       ".dcm)"},
      {"duplicate stem",
       [](const std::string &d) {
         writeLinearDataset(d, 2);
         writeText(d + "/inputs/s0.png", "");
       },
       "inputs/s0.png: same name as DIR/inputs/s0.npy"},
      {"empty data set",
       [](const std::string &d) {
         makeDirs(d + "/inputs");
         makeDirs(d + "/targets");
       },
       "inputs: no samples"},
      {"no targets directory",
       [](const std::string &d) { makeDirs(d + "/inputs"); },
       "targets: No such file or directory"},
      {"FIFO among the inputs",
       [](const std::string &d) {
         writeLinearDataset(d, 2);
         std::string path = d + "/inputs/s1.npy";
         ::unlink(path.c_str());
         ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
       },
       "inputs/s1.npy: not a regular file (a FIFO); only regular files are "
       "read, remove or replace it"},
      {"header length beyond the file",
       [](const std::string &d) {
         writeLinearDataset(d, 2);
         // Version 2.0: a uint32 header length, here almost 4 GiB.
         writeText(d + "/inputs/s1.npy",
                   std::string("\x93NUMPY\x02\x00\xf0\xff\xff\xff", 12) +
                       "{'descr': '<f4'}");
       },
       "inputs/s1.npy: truncated .npy header: it declares 4294967280 bytes, "
       "the file has 16 after the prefix"},
      {"shape beyond the file",
       [](const std::string &d) {
         writeLinearDataset(d, 2);
         writeNpyRaw(d + "/inputs/s1.npy",
                     "{'descr': '<f4', 'fortran_order': False, 'shape': "
                     "(4611686018427387904, 8), }",
                     16);
       },
       "inputs/s1.npy: truncated: 16 bytes of data, far less than shape "
       "(4611686018427387904, 8) needs"},
      {"fewer samples than a batch",
       [](const std::string &d) { writeLinearDataset(d, 1); },
       ": 1 samples, fewer than the batch size 2"},
  };
  for (const BadData &bad : cases) {
    TempDir dir;
    std::string data = dir / "data";
    bad.make(data);
    resetTestProgram();
    RunResult result =
        runTrainer({"--data", data, "--steps", "2", "--out", dir / "out.onnx"});
    std::string expected = bad.message;
    for (size_t at; (at = expected.find("DIR")) != std::string::npos;)
      expected.replace(at, 3, data);
    std::string separator = expected[0] == ':' ? "" : "/";
    EXPECT_EQ(result.exitCode, 1) << bad.what;
    EXPECT_EQ(result.err, "error: " + data + separator + expected + "\n")
        << bad.what;
    EXPECT_EQ(result.out, "") << bad.what;
    EXPECT_FALSE(exists(dir / "out.onnx")) << bad.what;
  }
}

TEST(RuntimeHostData, ValidationDataIsCheckedToo) {
  TempDir dir;
  writeLinearDataset(dir / "train", 2);
  writeLinearDataset(dir / "val", 2);
  writeText(dir / "val/inputs/s0.npy", "garbage");
  resetTestProgram();
  RunResult result =
      runTrainer({"--data", dir / "train", "--val-data", dir / "val", "--steps",
                  "2", "--out", dir / "out.onnx"});
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.err,
            "error: " + dir / "val/inputs/s0.npy" + ": not a .npy file\n");
}

TEST(RuntimeHostData, ClashingOutputsFailBeforeTraining) {
  TempDir dir;
  writeLinearDataset(dir / "data", 2);
  resetTestProgram();
  RunResult same = runTrainer({"--data", dir / "data", "--steps", "1", "--out",
                               dir / "r.json", "--report", dir / "r.json"});
  EXPECT_EQ(same.exitCode, 1);
  EXPECT_EQ(same.err, "error: --report " + dir / "r.json" + " and --out " +
                          dir / "r.json" +
                          " are the same file; one would overwrite the other, "
                          "give --report another path\n");

  // Another spelling of the same path, and a hard link: compared by identity.
  makeDirs(dir / "sub");
  writeText(dir / "trace.json", "old");
  ASSERT_EQ(::link((dir / "trace.json").c_str(), (dir / "hard.json").c_str()),
            0);
  RunResult spelled =
      runTrainer({"--data", dir / "data", "--steps", "1", "--out",
                  dir / "sub/../out.onnx", "--trace", dir / "out.onnx"});
  EXPECT_NE(spelled.err.find("are the same file"), std::string::npos)
      << spelled.err;
  RunResult hard =
      runTrainer({"--data", dir / "data", "--steps", "1", "--out",
                  dir / "out.onnx", "--report", dir / "trace.json", "--trace",
                  dir / "hard.json"});
  EXPECT_NE(hard.err.find("are the same file"), std::string::npos) << hard.err;
  EXPECT_EQ(readText(dir / "trace.json"), "old");
  EXPECT_FALSE(exists(dir / "out.onnx"));
}

TEST(RuntimeHostData, OutputsThroughLinksNeverOntoDevices) {
  TempDir dir;
  writeLinearDataset(dir / "data", 2);
  resetTestProgram();
  // A device node (or FIFO) is refused, not replaced.
  RunResult device = runTrainer(
      {"--data", dir / "data", "--steps", "1", "--out", "/dev/null"});
  EXPECT_EQ(device.exitCode, 1);
  EXPECT_EQ(device.err, "error: cannot write --out /dev/null: it is a "
                        "character device, not a regular file; give a file "
                        "name\n");
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  RunResult fifo = runTrainer(
      {"--data", dir / "data", "--steps", "1", "--report", dir / "fifo",
       "--out", dir / "out.onnx"});
  EXPECT_NE(fifo.err.find("it is a FIFO, not a regular file"),
            std::string::npos);

  // A symbolic link is written through: the link stays, its target is
  // replaced atomically.
  makeDirs(dir / "results");
  writeText(dir / "results/model.onnx", "old");
  ASSERT_EQ(::symlink("results/model.onnx", (dir / "latest.onnx").c_str()), 0);
  RunResult linked = runTrainer(
      {"--data", dir / "data", "--steps", "1", "--out", dir / "latest.onnx"});
  ASSERT_EQ(linked.exitCode, 0) << linked.err;
  struct stat info;
  ASSERT_EQ(::lstat((dir / "latest.onnx").c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  EXPECT_NE(readText(dir / "results/model.onnx"), "old");

  // A dangling link is refused.
  ASSERT_EQ(::symlink("nowhere/x.onnx", (dir / "dangling.onnx").c_str()), 0);
  RunResult dangling = runTrainer(
      {"--data", dir / "data", "--steps", "1", "--out", dir / "dangling.onnx"});
  EXPECT_EQ(dangling.err, "error: cannot write --out " + dir / "dangling.onnx" +
                              ": it is a symbolic link that cannot be "
                              "followed (No such file or directory)\n");
}

TEST(RuntimeHostData, UnwritableOutputsFailBeforeTraining) {
  TempDir dir;
  writeLinearDataset(dir / "data", 2);
  resetTestProgram();
  RunResult missingDir = runTrainer({"--data", dir / "data", "--steps", "1",
                                     "--out", dir / "no/such/dir/out.onnx"});
  EXPECT_EQ(missingDir.exitCode, 1);
  EXPECT_EQ(missingDir.err, "error: cannot write --out " +
                                dir / "no/such/dir/out.onnx" +
                                ": No such file or directory\n");
  EXPECT_EQ(missingDir.out, "");

  makeDirs(dir / "adir");
  RunResult isDir = runTrainer(
      {"--data", dir / "data", "--steps", "1", "--out", dir / "adir"});
  EXPECT_EQ(isDir.err,
            "error: cannot write --out " + dir / "adir" + ": Is a directory\n");

  RunResult report =
      runTrainer({"--data", dir / "data", "--steps", "1", "--out",
                  dir / "out.onnx", "--report", dir / "no/report.json"});
  EXPECT_EQ(report.err, "error: cannot write --report " +
                            dir / "no/report.json" +
                            ": No such file or directory\n");
  EXPECT_FALSE(exists(dir / "out.onnx"));

  writeText(dir / "file", "");
  RunResult checkpoints =
      runTrainer({"--data", dir / "data", "--steps", "1", "--out",
                  dir / "out.onnx", "--checkpoint-dir", dir / "file/ckpt"});
  EXPECT_EQ(checkpoints.err, "error: cannot create --checkpoint-dir " +
                                 dir / "file/ckpt" + ": Not a directory\n");
}

} // namespace
