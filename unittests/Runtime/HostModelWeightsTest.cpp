//===- HostModelWeightsTest.cpp - Initial weights from an ONNX file -------===//
//
// The binary reads its initial weights from an ONNX file: the program's
// Param and State specs are the manifest the file is checked against, and
// a file of another model (a missing tensor, another element type or
// shape), a missing, truncated or non-regular file is one line that names
// the file, the tensor and the fix. `--weights` replaces the file; `--out`
// may not overwrite it.
//
//===----------------------------------------------------------------------===//

#include "HostTestSupport.h"

#include "memopt/Runtime/ModelWeights.h"

#include "gtest/gtest.h"

#include <onnx/onnx_pb.h>

#include <sys/stat.h>
#include <unistd.h>

using namespace memopt::rt;
using namespace memopt::rt::test;

namespace {

/// The test model with `edit` applied to its initializer `name`.
std::string editedModel(const std::string &name,
                        void (*edit)(onnx::TensorProto &)) {
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromString(testModel()));
  for (onnx::TensorProto &tensor : *model.mutable_graph()->mutable_initializer())
    if (tensor.name() == name)
      edit(tensor);
  std::string bytes;
  model.SerializeToString(&bytes);
  return bytes;
}

class RuntimeHostModelWeights : public testing::Test {
protected:
  /// loadInitialValues of `file` into w and b (float32 of shape 1).
  Status load(const std::string &file) {
    return loadInitialValues(file, {{&wSpec, &w}, {&bSpec, &b}});
  }
  /// The message of a failed load of `file`, checked to be one line that
  /// starts with the file's name.
  std::string failedLoad(const std::string &file) {
    Status status = load(file);
    EXPECT_FALSE(status.ok());
    EXPECT_EQ(status.message().rfind(file + ": ", 0), 0u) << status.message();
    EXPECT_EQ(status.message().find('\n'), std::string::npos);
    return status.message();
  }
  /// failedLoad of a file that holds `contents`.
  std::string failure(const std::string &contents) {
    writeText(dir / "m.onnx", contents);
    return failedLoad(dir / "m.onnx");
  }
  TempDir dir;
  TensorSpec wSpec{"w", Role::Param, ElementType::F32, 1, {1}};
  TensorSpec bSpec{"b", Role::Param, ElementType::F32, 1, {1}};
  float w = -1.0f, b = -1.0f;
};

TEST_F(RuntimeHostModelWeights, LoadsRawAndFloatData) {
  ASSERT_TRUE(load(testModelFile()).ok());
  EXPECT_EQ(w, kInitialW);
  EXPECT_EQ(b, kInitialB);
}

TEST_F(RuntimeHostModelWeights, AnotherShapeNamesTheTensorAndTheFix) {
  std::string message = failure(editedModel("b", [](onnx::TensorProto &t) {
    t.set_dims(0, 2);
    t.add_float_data(1.0f);
  }));
  EXPECT_NE(message.find("initializer 'b' has shape (2,), the binary was "
                         "compiled for (1,)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("not the model this binary was compiled from: pass "
                         "--weights"),
            std::string::npos)
      << message;
}

TEST_F(RuntimeHostModelWeights, AnotherModelLacksTheFirstTensor) {
  std::string message = failure(editedModel(
      "w", [](onnx::TensorProto &t) { t.set_name("encoder.weight"); }));
  EXPECT_NE(message.find("no initializer 'w'"), std::string::npos) << message;
}

TEST_F(RuntimeHostModelWeights, AnotherElementType) {
  std::string message = failure(editedModel("w", [](onnx::TensorProto &t) {
    t.set_data_type(onnx::TensorProto::DOUBLE);
  }));
  EXPECT_NE(message.find("initializer 'w' has ONNX data type 11, the binary "
                         "was compiled for 1"),
            std::string::npos)
      << message;
}

TEST_F(RuntimeHostModelWeights, ExternalDataPointsToTheWeightsFile) {
  std::string message = failure(editedModel("w", [](onnx::TensorProto &t) {
    t.set_data_location(onnx::TensorProto::EXTERNAL);
  }));
  EXPECT_NE(message.find("uses external data; pass --weights with the "
                         "NAME.weights.onnx"),
            std::string::npos)
      << message;
}

TEST_F(RuntimeHostModelWeights, TruncatedFilesFailWithoutACrash) {
  const std::string &model = testModel();
  for (size_t size = 0; size < model.size(); ++size) {
    writeText(dir / "t.onnx", model.substr(0, size));
    Status status = load(dir / "t.onnx");
    if (!status.ok()) {
      EXPECT_EQ(status.message().rfind(dir / "t.onnx: ", 0), 0u);
    }
  }
  EXPECT_NE(failure("not a protobuf \xff\xff\xff").find("not an ONNX model"),
            std::string::npos);
}

TEST_F(RuntimeHostModelWeights, OversizedFileIsRefusedBeforeReading) {
  // A sparse file: its size is checked before a byte is read.
  writeText(dir / "big.onnx", testModel());
  ASSERT_EQ(::truncate((dir / "big.onnx").c_str(),
                       static_cast<off_t>(kMaxModelFileBytes) + 1),
            0);
  EXPECT_EQ(failedLoad(dir / "big.onnx"),
            dir / "big.onnx" +
                ": 2147483648 bytes, more than the 2 GiB an ONNX file holds "
                "without external data; pass --weights with the "
                "NAME.weights.onnx memopt-compile wrote");
}

TEST_F(RuntimeHostModelWeights, MissingFileSaysWhereItIsLookedFor) {
  EXPECT_EQ(failedLoad(dir / "BIN.weights.onnx"),
            dir / "BIN.weights.onnx" +
                ": No such file or directory; the binary reads its initial "
                "weights from it (memopt-compile writes it beside the "
                "binary): keep it there, or pass --weights FILE.onnx");
}

TEST_F(RuntimeHostModelWeights, FifoIsRefusedNotRead) {
  ASSERT_EQ(::mkfifo((dir / "fifo").c_str(), 0600), 0);
  EXPECT_NE(failedLoad(dir / "fifo").find("not a regular file (a FIFO)"),
            std::string::npos);
}

TEST_F(RuntimeHostModelWeights, WeightsFileBesideTheExecutable) {
  Program program{};
  program.weightsFile = "train.weights.onnx";
  std::string path = initialWeightsPath(program, "");
  EXPECT_EQ(path.substr(path.size() - 19), "/train.weights.onnx") << path;
  EXPECT_EQ(path.front(), '/');
  EXPECT_EQ(initialWeightsPath(program, "other.onnx"), "other.onnx");
  program.weightsFile = "/abs/m.onnx";
  EXPECT_EQ(initialWeightsPath(program, ""), "/abs/m.onnx");
}

TEST_F(RuntimeHostModelWeights, TrainedModelNeedsEveryTensor) {
  writeText(dir / "m.onnx", editedModel("b", [](onnx::TensorProto &t) {
              t.set_name("bias");
            }));
  Status status =
      writeTrainedModel(dir / "m.onnx", {{&bSpec, &b}}, dir / "out.onnx");
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("no initializer 'b'"), std::string::npos);
}

class RuntimeHostWeightsFlag : public testing::Test {
protected:
  void SetUp() override {
    resetTestProgram();
    writeLinearDataset(dir / "data", 5);
  }
  std::vector<std::string> args(const std::string &weights) {
    return {"--data",  dir / "data", "--out",     dir / "out.onnx",
            "--steps", "2",          "--weights", weights, "--no-shuffle"};
  }
  TempDir dir;
};

TEST_F(RuntimeHostWeightsFlag, ReplacesTheProgramsFile) {
  writeText(dir / "start.onnx", editedModel("w", [](onnx::TensorProto &t) {
              float w = 3.0f;
              t.set_raw_data(&w, sizeof(w));
            }));
  RunResult result = runTrainer(args(dir / "start.onnx"));
  ASSERT_EQ(result.exitCode, 0) << result.err;
  // A fine-tuning run starts from the file's w, not the program's.
  std::vector<std::string> plain = {"--data",  dir / "data",
                                    "--out",   dir / "plain.onnx",
                                    "--steps", "2", "--no-shuffle"};
  ASSERT_EQ(runTrainer(plain).exitCode, 0);
  EXPECT_NE(readInitializers(dir / "out.onnx")["w"][0],
            readInitializers(dir / "plain.onnx")["w"][0]);
  EXPECT_EQ(readInitializers(dir / "plain.onnx")["w"][0],
            simulate(5, 2, 0.1f).w);
}

TEST_F(RuntimeHostWeightsFlag, WrongFileIsOneLineExitOne) {
  writeText(dir / "other.onnx", editedModel("x_mean", [](onnx::TensorProto &t) {
              t.add_dims(1);
            }));
  RunResult result = runTrainer(args(dir / "other.onnx"));
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_EQ(result.err,
            "error: " + dir / "other.onnx" +
                ": initializer 'x_mean' has shape (1, 1), the binary was "
                "compiled for (1,); it is not the model this binary was "
                "compiled from: pass --weights with that model (or a --out "
                "trained from it), or recompile\n");
  EXPECT_FALSE(exists(dir / "out.onnx"));
}

TEST_F(RuntimeHostWeightsFlag, OutMayNotOverwriteTheWeights) {
  writeText(dir / "w.onnx", testModel());
  std::vector<std::string> command = args(dir / "w.onnx");
  command[3] = dir / "w.onnx";
  RunResult result = runTrainer(command);
  EXPECT_EQ(result.exitCode, 1);
  EXPECT_NE(result.err.find("--out " + dir / "w.onnx" +
                            " and the initial weights " + dir / "w.onnx" +
                            " are the same file"),
            std::string::npos)
      << result.err;
  EXPECT_EQ(readText(dir / "w.onnx"), testModel());
}

TEST_F(RuntimeHostWeightsFlag, ProgramWithoutAFileNeedsTheFlag) {
  Program program = testProgram();
  program.weightsFile = nullptr;
  std::vector<std::string> command = {"--data", dir / "data", "--out",
                                      dir / "out.onnx", "--steps", "1"};
  RunResult result = runTrainer(command, program);
  EXPECT_EQ(result.exitCode, 2);
  EXPECT_EQ(result.err, "error: --weights: this binary names no file of "
                        "initial weights (memopt-compile -o names one); pass "
                        "--weights FILE.onnx\n");
  command.insert(command.end(), {"--weights", testModelFile()});
  EXPECT_EQ(runTrainer(command, program).exitCode, 0);
}

} // namespace
