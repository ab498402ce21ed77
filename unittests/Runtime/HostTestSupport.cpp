//===- HostTestSupport.cpp - A tiny program and data for trainer tests ----===//

#include "HostTestSupport.h"

#include "memopt/Runtime/StepTrace.h"

#include "gtest/gtest.h"

#include <onnx/onnx_pb.h>

#ifdef MEMOPT_HAVE_PNG
#include <png.h>
#endif
#ifdef MEMOPT_HAVE_DCMTK
#include <dcmtk/dcmdata/dctk.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace memopt::rt::test {

namespace {

double learningRate = 0.1;

enum ArgIndex { kX, kT, kW, kB, kXMean, kWBuf, kBBuf, kStep, kNumArgs };
enum ResultIndex {
  kLoss,
  kNewW,
  kNewB,
  kNewXMean,
  kNewWBuf,
  kNewBBuf,
  kNumResults
};

constexpr int64_t kPixels = kBatch * kHeight * kWidth;

const TensorSpec kArgs[kNumArgs] = {
    {"x", Role::Input, ElementType::F32, 4, {kBatch, 1, kHeight, kWidth}},
    {"t", Role::Target, ElementType::F32, 4, {kBatch, 1, kHeight, kWidth}},
    {"w", Role::Param, ElementType::F32, 1, {1}},
    {"b", Role::Param, ElementType::F32, 1, {1}},
    {"x_mean", Role::State, ElementType::F32, 1, {1}},
    {"w.momentum_buffer", Role::OptState, ElementType::F32, 1, {1}},
    {"b.momentum_buffer", Role::OptState, ElementType::F32, 1, {1}},
    {"step", Role::Step, ElementType::I64, 0, {}},
};

const TensorSpec kResults[kNumResults] = {
    {"loss", Role::Output, ElementType::F32, 0, {}},
    {"w", Role::Param, ElementType::F32, 1, {1}},
    {"b", Role::Param, ElementType::F32, 1, {1}},
    {"x_mean", Role::State, ElementType::F32, 1, {1}},
    {"w.momentum_buffer", Role::OptState, ElementType::F32, 1, {1}},
    {"b.momentum_buffer", Role::OptState, ElementType::F32, 1, {1}},
};

float arg(void *const *args, int i) {
  return *static_cast<const float *>(args[i]);
}

/// The mean squared error of the batch, its gradients and the input mean;
/// uses the arena for the residuals, as generated code would.
float forward(void *const *args, void *arena, float &gradW, float &gradB,
              float &meanX) {
  const float *x = static_cast<const float *>(args[kX]);
  const float *t = static_cast<const float *>(args[kT]);
  float w = arg(args, kW), b = arg(args, kB);
  float *residual = static_cast<float *>(arena);
  double loss = 0, gw = 0, gb = 0, sum = 0;
  for (int64_t i = 0; i < kPixels; ++i) {
    residual[i] = w * x[i] + b - t[i];
    loss += residual[i] * residual[i];
    gw += 2 * residual[i] * x[i];
    gb += 2 * residual[i];
    sum += x[i];
  }
  gradW = static_cast<float>(gw / kPixels);
  gradB = static_cast<float>(gb / kPixels);
  meanX = static_cast<float>(sum / kPixels);
  return static_cast<float>(loss / kPixels);
}

void step(void *const *args, void *const *results, void *const *arenas) {
  float gradW, gradB, meanX;
  float loss = forward(args, arenas[0], gradW, gradB, meanX);
  traceKernel("forward", "linear"); // as generated steps mark their kernels
  int64_t number = *static_cast<const int64_t *>(args[kStep]);
  // Read every argument before writing a result: they may share buffers.
  float w = arg(args, kW), b = arg(args, kB), xMean = arg(args, kXMean);
  float wBuf = arg(args, kWBuf), bBuf = arg(args, kBBuf);
  wBuf = number == 1 ? gradW : 0.9f * wBuf + gradW;
  bBuf = number == 1 ? gradB : 0.9f * bBuf + gradB;
  const float lr = static_cast<float>(learningRate);
  *static_cast<float *>(results[kLoss]) = loss;
  *static_cast<float *>(results[kNewW]) = w - lr * wBuf;
  *static_cast<float *>(results[kNewB]) = b - lr * bBuf;
  *static_cast<float *>(results[kNewXMean]) = 0.9f * xMean + 0.1f * meanX;
  *static_cast<float *>(results[kNewWBuf]) = wBuf;
  *static_cast<float *>(results[kNewBBuf]) = bBuf;
}

void evalStep(void *const *args, void *const *results,
              void *const *arenas) {
  for (int r = kNewW; r < kNumResults; ++r)
    if (results[r])
      std::abort(); // only Output results have buffers
  float gradW, gradB, meanX;
  *static_cast<float *>(results[kLoss]) =
      forward(args, arenas[0], gradW, gradB, meanX);
}

onnx::TensorProto *addInitializer(onnx::GraphProto &graph, const char *name,
                                  float value, bool raw) {
  onnx::TensorProto *tensor = graph.add_initializer();
  tensor->set_name(name);
  tensor->set_data_type(onnx::TensorProto::FLOAT);
  tensor->add_dims(1);
  if (raw)
    tensor->set_raw_data(&value, sizeof(value));
  else
    tensor->add_float_data(value);
  return tensor;
}

} // namespace

const std::string &testModel() {
  static const std::string serialized = [] {
    onnx::ModelProto model;
    model.set_ir_version(8);
    model.set_producer_name("memopt-host-test");
    model.add_opset_import()->set_version(17);
    onnx::GraphProto &graph = *model.mutable_graph();
    graph.set_name("linear");
    addInitializer(graph, "w", kInitialW, /*raw=*/true);
    addInitializer(graph, "b", kInitialB, /*raw=*/false);
    addInitializer(graph, "x_mean", 0.0f, /*raw=*/false);
    onnx::TensorProto *untouched = graph.add_initializer();
    untouched->set_name("untouched");
    untouched->set_data_type(onnx::TensorProto::INT64);
    untouched->add_int64_data(42);
    onnx::ValueInfoProto *x = graph.add_input();
    x->set_name("x");
    x->mutable_type()->mutable_tensor_type()->set_elem_type(
        onnx::TensorProto::FLOAT);
    graph.add_output()->set_name("y");
    onnx::NodeProto *mul = graph.add_node();
    mul->set_op_type("Mul");
    mul->add_input("x");
    mul->add_input("w");
    mul->add_output("xw");
    onnx::NodeProto *add = graph.add_node();
    add->set_op_type("Add");
    add->add_input("xw");
    add->add_input("b");
    add->add_output("y");
    std::string bytes;
    model.SerializeToString(&bytes);
    return bytes;
  }();
  return serialized;
}

namespace {

Program makeProgram(bool full) {
  Program program{};
  program.modelName = "linear";
  program.args = kArgs;
  program.numArgs = kNumArgs;
  program.results = kResults;
  program.numResults = kNumResults;
  program.lossIndex = kLoss;
  static const ArenaSpec arenas[] = {{kArenaBytes, MemorySpace::Device, 0}};
  program.arenas = arenas;
  program.numArenas = 1;
  program.weightsFile = testModelFile().c_str();
  program.step = step;
  program.learningRate = full ? &learningRate : nullptr;
  program.evalStep = full ? evalStep : nullptr;
  return program;
}

template <typename T>
void writeNpy(const std::string &path, const char *descr,
              const std::vector<int64_t> &shape, const std::vector<T> &values) {
  std::string dims;
  for (int64_t d : shape)
    dims += std::to_string(d) + ", ";
  if (shape.size() > 1)
    dims.resize(dims.size() - 2);
  else if (shape.size() == 1)
    dims.resize(dims.size() - 1);
  std::string header = std::string("{'descr': '") + descr +
                       "', 'fortran_order': False, 'shape': (" + dims + "), }";
  while ((10 + header.size() + 1) % 64)
    header += ' ';
  header += '\n';
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(header.size() & 0xff);
  bytes += static_cast<char>(header.size() >> 8);
  bytes += header;
  bytes.append(reinterpret_cast<const char *>(values.data()),
               values.size() * sizeof(T));
  writeText(path, bytes);
}

} // namespace

const Program &testProgram() {
  static const Program program = makeProgram(true);
  return program;
}

const Program &fixedTestProgram() {
  static const Program program = makeProgram(false);
  return program;
}

void resetTestProgram() { learningRate = 0.1; }

size_t testProgramBytes() {
  size_t bytes = kArenaBytes + 4; // the loss
  for (const TensorSpec &spec : kArgs)
    bytes +=
        spec.numElements() * (spec.elementType == ElementType::I64 ? 8 : 4);
  return bytes;
}

TempDir::TempDir() {
  std::string pattern =
      (std::filesystem::temp_directory_path() / "memopt-host-XXXXXX").string();
  char *made = ::mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  dir = pattern;
}

TempDir::~TempDir() { std::filesystem::remove_all(dir); }

const std::string &testModelFile() {
  static const TempDir dir;
  static const std::string path = [] {
    std::string file = dir / "linear.weights.onnx";
    writeText(file, testModel());
    return file;
  }();
  return path;
}

void makeDirs(const std::string &path) {
  std::filesystem::create_directories(path);
}

void writeText(const std::string &path, const std::string &contents) {
  makeDirs(std::filesystem::path(path).parent_path().string());
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file << contents;
  ASSERT_TRUE(file.good()) << path;
}

std::string readText(const std::string &path) {
  std::ifstream file(path, std::ios::binary);
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}

bool exists(const std::string &path) { return std::filesystem::exists(path); }

void writeNpyF32(const std::string &path, const std::vector<int64_t> &shape,
                 const std::vector<float> &values) {
  writeNpy(path, "<f4", shape, values);
}

void writeNpyU8(const std::string &path, const std::vector<int64_t> &shape,
                const std::vector<uint8_t> &values) {
  writeNpy(path, "|u1", shape, values);
}

void writeNpyU16(const std::string &path, const std::vector<int64_t> &shape,
                 const std::vector<uint16_t> &values) {
  writeNpy(path, "<u2", shape, values);
}

#ifdef MEMOPT_HAVE_PNG
void writePng(const std::string &path, int height, int width, int bitDepth,
              const std::vector<uint16_t> &values) {
  makeDirs(std::filesystem::path(path).parent_path().string());
  FILE *file = std::fopen(path.c_str(), "wb");
  ASSERT_NE(file, nullptr);
  png_structp png =
      png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, nullptr, nullptr);
  png_infop info = png_create_info_struct(png);
  std::vector<png_byte> image(static_cast<size_t>(height) * width *
                              (bitDepth / 8));
  for (size_t i = 0; i < values.size(); ++i) {
    if (bitDepth == 8) {
      image[i] = static_cast<png_byte>(values[i]);
    } else {
      image[2 * i] = static_cast<png_byte>(values[i] >> 8); // big-endian
      image[2 * i + 1] = static_cast<png_byte>(values[i] & 0xff);
    }
  }
  if (setjmp(png_jmpbuf(png)))
    FAIL() << "libpng failed writing " << path;
  png_init_io(png, file);
  png_set_IHDR(png, info, width, height, bitDepth, PNG_COLOR_TYPE_GRAY,
               PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_write_info(png, info);
  for (int y = 0; y < height; ++y)
    png_write_row(png, image.data() +
                           static_cast<size_t>(y) * width * (bitDepth / 8));
  png_write_end(png, nullptr);
  png_destroy_write_struct(&png, &info);
  std::fclose(file);
}
#endif

#ifdef MEMOPT_HAVE_DCMTK
void writeDicom(const std::string &path, int height, int width, int bitsStored,
                const std::vector<uint16_t> &values) {
  makeDirs(std::filesystem::path(path).parent_path().string());
  DcmFileFormat file;
  DcmDataset *dataset = file.getDataset();
  char uid[100];
  dataset->putAndInsertString(DCM_SOPClassUID,
                              UID_SecondaryCaptureImageStorage);
  dataset->putAndInsertString(DCM_SOPInstanceUID,
                              dcmGenerateUniqueIdentifier(uid));
  dataset->putAndInsertString(DCM_PhotometricInterpretation, "MONOCHROME2");
  dataset->putAndInsertUint16(DCM_SamplesPerPixel, 1);
  dataset->putAndInsertUint16(DCM_Rows, static_cast<Uint16>(height));
  dataset->putAndInsertUint16(DCM_Columns, static_cast<Uint16>(width));
  dataset->putAndInsertUint16(DCM_BitsAllocated, 16);
  dataset->putAndInsertUint16(DCM_BitsStored, static_cast<Uint16>(bitsStored));
  dataset->putAndInsertUint16(DCM_HighBit, static_cast<Uint16>(bitsStored - 1));
  dataset->putAndInsertUint16(DCM_PixelRepresentation, 0);
  dataset->putAndInsertUint16Array(DCM_PixelData, values.data(), values.size());
  ASSERT_TRUE(file.saveFile(path.c_str(), EXS_LittleEndianExplicit).good());
}
#endif

void linearSample(int s, std::vector<float> &x, std::vector<float> &t) {
  x.resize(4);
  t.resize(4);
  for (int i = 0; i < 4; ++i) {
    x[i] = std::sin(0.7f * static_cast<float>(4 * s + i + 1));
    t[i] = 2 * x[i] + 1;
  }
}

void writeLinearDataset(const std::string &dir, int count) {
  for (int s = 0; s < count; ++s) {
    std::vector<float> x, t;
    linearSample(s, x, t);
    std::string name = "s" + std::to_string(s) + ".npy";
    writeNpyF32(dir + "/inputs/" + name, {1, 2, 2}, x);
    writeNpyF32(dir + "/targets/" + name, {1, 2, 2}, t);
  }
}

Simulated simulate(int count, int steps, float lr) {
  learningRate = lr;
  std::vector<float> x(kPixels), t(kPixels), sx, st;
  float w = kInitialW, b = kInitialB, xMean = 0, wBuf = 0, bBuf = 0, loss = 0;
  int64_t number = 0;
  alignas(64) unsigned char arena[kArenaBytes];
  void *args[kNumArgs] = {x.data(), t.data(), &w,    &b,
                          &xMean,   &wBuf,    &bBuf, &number};
  void *results[kNumResults] = {&loss, &w, &b, &xMean, &wBuf, &bBuf};
  Simulated simulated;
  int perEpoch = count / static_cast<int>(kBatch);
  for (number = 1; number <= steps; ++number) {
    int first = static_cast<int>((number - 1) % perEpoch * kBatch);
    for (int i = 0; i < kBatch; ++i) {
      linearSample(first + i, sx, st);
      std::copy(sx.begin(), sx.end(), x.begin() + 4 * i);
      std::copy(st.begin(), st.end(), t.begin() + 4 * i);
    }
    void *arenas[] = {arena};
    step(args, results, arenas);
    simulated.losses.push_back(loss);
  }
  simulated.w = w;
  simulated.b = b;
  simulated.xMean = xMean;
  resetTestProgram();
  return simulated;
}

RunResult runTrainer(const std::vector<std::string> &args,
                     const Program &program) {
  std::vector<std::string> storage = {"trainer"};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char *> argv;
  for (std::string &arg : storage)
    argv.push_back(arg.data());
  argv.push_back(nullptr);
  testing::internal::CaptureStdout();
  testing::internal::CaptureStderr();
  int code =
      trainerMain(static_cast<int>(storage.size()), argv.data(), program);
  std::fflush(stdout);
  std::fflush(stderr);
  RunResult result{code, testing::internal::GetCapturedStdout(),
                   testing::internal::GetCapturedStderr()};
  return result;
}

std::map<std::string, std::vector<float>>
readInitializers(const std::string &path) {
  onnx::ModelProto model;
  std::string bytes = readText(path);
  EXPECT_TRUE(model.ParseFromString(bytes)) << path;
  std::map<std::string, std::vector<float>> values;
  for (const onnx::TensorProto &tensor : model.graph().initializer()) {
    if (tensor.data_type() != onnx::TensorProto::FLOAT)
      continue;
    std::vector<float> &v = values[tensor.name()];
    if (tensor.has_raw_data()) {
      v.resize(tensor.raw_data().size() / 4);
      std::memcpy(v.data(), tensor.raw_data().data(), v.size() * 4);
    } else {
      v.assign(tensor.float_data().begin(), tensor.float_data().end());
    }
  }
  return values;
}

} // namespace memopt::rt::test
