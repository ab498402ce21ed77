//===- ReferenceCase.cpp - PyTorch reference cases for the kernels --------===//

#include "ReferenceCase.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace memopt::rt::testing {

namespace {

struct ErrorRecord {
  int comparisons = 0;
  double maxError = 0;
};

std::map<std::string, ErrorRecord> &errorLog() {
  static std::map<std::string, ErrorRecord> log;
  return log;
}

} // namespace

Workspace::Workspace(size_t bytes) {
  if (bytes)
    data = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
}

Workspace::~Workspace() { std::free(data); }

std::optional<std::string> RefCase::read(const std::string &path,
                                         RefCase &result) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return "cannot open " + path;
  result.fileName = std::filesystem::path(path).filename().string();
  std::string line;
  std::vector<std::string> order;
  if (!std::getline(file, line) || line != "memopt-reference 1")
    return path + ": not a memopt reference case";
  while (std::getline(file, line) && line != "data") {
    std::istringstream words(line);
    std::string kind, name;
    words >> kind >> name;
    if (kind == "op") {
      result.opName = name;
    } else if (kind == "attr") {
      std::vector<std::string> &values = result.attrs[name];
      for (std::string v; words >> v;)
        values.push_back(v);
    } else if (kind == "tensor") {
      RefTensor &t = result.tensors[name];
      words >> t.shape.size;
      for (int i = 0; i < t.shape.size; ++i)
        words >> t.shape[i];
      order.push_back(name);
    } else {
      return path + ": unexpected line '" + line + "'";
    }
  }
  for (const std::string &name : order) {
    RefTensor &t = result.tensors[name];
    t.data.resize(static_cast<size_t>(t.shape.product()));
    if (!file.read(reinterpret_cast<char *>(t.data.data()),
                   static_cast<std::streamsize>(t.data.size() * sizeof(float))))
      return path + ": truncated data of tensor '" + name + "'";
  }
  return std::nullopt;
}

bool RefCase::has(const std::string &name) const {
  return tensors.count(name) != 0;
}

const RefTensor &RefCase::tensor(const std::string &name) const {
  auto it = tensors.find(name);
  if (it == tensors.end()) {
    std::fprintf(stderr, "%s: no tensor '%s'\n", fileName.c_str(),
                 name.c_str());
    std::abort();
  }
  return it->second;
}

ConstTensor RefCase::in(const std::string &name) const {
  const RefTensor &t = tensor(name);
  return ConstTensor(t.data.data(), t.shape);
}

ConstTensor RefCase::optionalIn(const std::string &name) const {
  return has(name) ? in(name) : ConstTensor();
}

const std::vector<std::string> &RefCase::attr(const std::string &name) const {
  auto it = attrs.find(name);
  if (it == attrs.end()) {
    std::fprintf(stderr, "%s: no attribute '%s'\n", fileName.c_str(),
                 name.c_str());
    std::abort();
  }
  return it->second;
}

Dims RefCase::dims(const std::string &name) const {
  Dims d;
  for (const std::string &v : attr(name))
    d.values[d.size++] = std::stoll(v);
  return d;
}

int64_t RefCase::integer(const std::string &name) const {
  return std::stoll(attr(name).at(0));
}

double RefCase::real(const std::string &name) const {
  return std::stod(attr(name).at(0));
}

std::string referenceDirectory() {
  if (const char *env = std::getenv("MEMOPT_RUNTIME_REFERENCE_DIR"))
    return env;
  return MEMOPT_RUNTIME_REFERENCE_DIR;
}

std::optional<std::vector<RefCase>> loadCases(const std::string &op) {
  namespace fs = std::filesystem;
  std::error_code error;
  std::vector<std::string> paths;
  for (const fs::directory_entry &entry :
       fs::directory_iterator(referenceDirectory(), error)) {
    std::string name = entry.path().filename().string();
    if (name.size() > op.size() + 1 && name.compare(0, op.size() + 1, op + "_") == 0 &&
        entry.path().extension() == ".case")
      paths.push_back(entry.path().string());
  }
  if (error || paths.empty())
    return std::nullopt;
  std::sort(paths.begin(), paths.end());
  std::vector<RefCase> cases;
  for (const std::string &path : paths) {
    RefCase c;
    if (std::optional<std::string> message = RefCase::read(path, c)) {
      ADD_FAILURE() << *message;
      continue;
    }
    // conv_* must not pick up conv_transpose cases and the like.
    if (c.op() == op)
      cases.push_back(std::move(c));
  }
  if (cases.empty())
    return std::nullopt;
  return cases;
}

void expectCloseValues(const RefCase &c, const char *kernel,
                       const std::vector<float> &actual,
                       const std::vector<float> &expected,
                       const std::string &what, double tolerance) {
  ASSERT_EQ(actual.size(), expected.size())
      << c.name() << ": " << kernel << " result '" << what << "'";
  double diff = 0, norm = 0;
  for (size_t i = 0; i < expected.size(); ++i) {
    double d = static_cast<double>(actual[i]) - expected[i];
    diff += d * d;
    norm += static_cast<double>(expected[i]) * expected[i];
  }
  // An all-zero reference is compared absolutely.
  double error = norm > 0 ? std::sqrt(diff / norm) : std::sqrt(diff);
  ErrorRecord &record = errorLog()[kernel];
  ++record.comparisons;
  record.maxError = std::max(record.maxError, error);
  EXPECT_LE(error, tolerance) << c.name() << ": " << kernel << " result '"
                              << what << "' has relative error " << error;
}

void expectClose(const RefCase &c, const char *kernel, const Buffer &actual,
                 const std::string &expected, double tolerance) {
  expectCloseValues(c, kernel, actual.data, c.tensor(expected).data, expected,
                    tolerance);
}

void printErrorSummary() {
  for (const auto &[kernel, record] : errorLog())
    std::printf("[  parity  ] %-36s %3d comparisons, max relative error %.3g\n",
                kernel.c_str(), record.comparisons, record.maxError);
  errorLog().clear();
}

} // namespace memopt::rt::testing
