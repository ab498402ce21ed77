//===- HostTestSupport.h - Program and data for trainer tests ---*- C++ -*-===//
//
// The trainer tests drive memopt::rt::trainerMain with a hand-written
// Program: a per-pixel linear model y = w * x + b on 1x2x2 images, MSE
// loss, SGD with momentum 0.9 written out by hand, a State that tracks the
// running mean of the inputs, and an ONNX model built with onnx_proto that
// holds its initial weights (the file the program names, written into a
// temporary directory). Data sets are written into temporary directories.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_UNITTESTS_RUNTIME_HOSTTESTSUPPORT_H
#define MEMOPT_UNITTESTS_RUNTIME_HOSTTESTSUPPORT_H

#include "memopt/Runtime/Program.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace memopt::rt::test {

/// Batch size, channels, height, width of the test program's input/target.
inline constexpr int64_t kBatch = 2, kHeight = 2, kWidth = 2;
inline constexpr size_t kArenaBytes = 256;

/// The test program. `learningRate` is reset to 0.1 by resetTestProgram().
const Program &testProgram();
/// The same program with `learningRate` and `evalStep` null.
const Program &fixedTestProgram();
void resetTestProgram();
/// The bytes the trainer allocates for testProgram(): the arena, every
/// argument, the loss (updated params alias their arguments).
size_t testProgramBytes();
/// Initial values of the model's initializers.
inline constexpr float kInitialW = 0.5f, kInitialB = 0.0f;
/// The test program's ONNX model (initializers w, b and x_mean of shape 1,
/// float32, and an int64 one the program does not train), serialized.
const std::string &testModel();

/// A fresh directory under the system's temporary directory, removed with
/// its contents on destruction.
class TempDir {
public:
  TempDir();
  ~TempDir();
  const std::string &path() const { return dir; }
  std::string operator/(const std::string &name) const {
    return dir + "/" + name;
  }

private:
  std::string dir;
};

/// The file testModel() is written to once, in a temporary directory
/// removed at exit; the test programs' weightsFile (an absolute path).
const std::string &testModelFile();

void makeDirs(const std::string &path);
void writeText(const std::string &path, const std::string &contents);
std::string readText(const std::string &path);
bool exists(const std::string &path);

/// .npy writers; `shape` as in NumPy.
void writeNpyF32(const std::string &path, const std::vector<int64_t> &shape,
                 const std::vector<float> &values);
void writeNpyU8(const std::string &path, const std::vector<int64_t> &shape,
                const std::vector<uint8_t> &values);
void writeNpyU16(const std::string &path, const std::vector<int64_t> &shape,
                 const std::vector<uint16_t> &values);
/// Grayscale PNG of `bitDepth` 8 or 16 (libpng; only with MEMOPT_HAVE_PNG).
void writePng(const std::string &path, int height, int width, int bitDepth,
              const std::vector<uint16_t> &values);
/// One-frame MONOCHROME2 DICOM, 16 bits allocated, `bitsStored` (DCMTK; only
/// with MEMOPT_HAVE_DCMTK).
void writeDicom(const std::string &path, int height, int width, int bitsStored,
                const std::vector<uint16_t> &values);

/// Sample `s` of the linear data set: x (4 values) and targets 2*x + 1.
void linearSample(int s, std::vector<float> &x, std::vector<float> &t);
/// A data set of `count` samples NAME=s<i> as float32 .npy files of shape
/// 1x2x2 with the values of linearSample().
void writeLinearDataset(const std::string &dir, int count);

/// What the trainer should compute without shuffling: the test program's
/// step run `steps` times over linearSample(0..count) in sorted order, in
/// batches of kBatch (an incomplete last batch dropped), at `lr`.
struct Simulated {
  float w, b, xMean;
  std::vector<float> losses;
};
Simulated simulate(int count, int steps, float lr);

/// Runs trainerMain(program, {"trainer", args...}) and captures its output.
struct RunResult {
  int exitCode;
  std::string out, err;
};
RunResult runTrainer(const std::vector<std::string> &args,
                     const Program &program = testProgram());

/// The float32 initializers of an ONNX model file, by name.
std::map<std::string, std::vector<float>>
readInitializers(const std::string &path);

} // namespace memopt::rt::test

#endif // MEMOPT_UNITTESTS_RUNTIME_HOSTTESTSUPPORT_H
