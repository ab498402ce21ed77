//===- ReferenceCase.h - PyTorch reference cases for the kernels -*- C++ -*-===//
//
// Reads the NAME.case files that python/memopt/testing/make_reference.py
// writes (operands, attributes, PyTorch outputs and autograd gradients) and
// compares kernel results with them by relative error.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_UNITTESTS_RUNTIME_REFERENCECASE_H
#define MEMOPT_UNITTESTS_RUNTIME_REFERENCECASE_H

#include "memopt/Runtime/Kernels.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace memopt::rt::testing {

/// Tolerances on ||actual - expected|| / ||expected||.
inline constexpr double kForwardTolerance = 1e-5;
inline constexpr double kGradientTolerance = 1e-4;

struct RefTensor {
  Dims shape;
  std::vector<float> data;
};

/// A buffer for a kernel result, shaped like a reference tensor.
struct Buffer {
  Dims shape;
  std::vector<float> data;
  explicit Buffer(const Dims &shape)
      : shape(shape), data(static_cast<size_t>(shape.product()), -777.0f) {}
  Tensor view() { return Tensor(data.data(), shape); }
};

/// 64-byte aligned scratch memory for a convolution.
class Workspace {
public:
  explicit Workspace(size_t bytes);
  ~Workspace();
  Workspace(const Workspace &) = delete;
  Workspace &operator=(const Workspace &) = delete;
  void *get() const { return data; }

private:
  void *data = nullptr;
};

class RefCase {
public:
  /// Reads `path`; returns an error message on failure.
  static std::optional<std::string> read(const std::string &path,
                                         RefCase &result);

  const std::string &name() const { return fileName; }
  const std::string &op() const { return opName; }

  bool has(const std::string &tensor) const;
  const RefTensor &tensor(const std::string &name) const;
  /// A view of a reference tensor as a kernel operand.
  ConstTensor in(const std::string &name) const;
  /// A view of an optional operand: absent (null) when the case has none.
  ConstTensor optionalIn(const std::string &name) const;
  /// A result buffer shaped like reference tensor `name`.
  Buffer out(const std::string &name) const { return Buffer(tensor(name).shape); }

  const std::vector<std::string> &attr(const std::string &name) const;
  Dims dims(const std::string &name) const;
  int64_t integer(const std::string &name) const;
  double real(const std::string &name) const;
  bool flag(const std::string &name) const { return integer(name) != 0; }
  std::string word(const std::string &name) const { return attr(name).at(0); }

private:
  std::string fileName, opName;
  std::map<std::string, std::vector<std::string>> attrs;
  std::map<std::string, RefTensor> tensors;
};

/// The directory of the reference cases: $MEMOPT_RUNTIME_REFERENCE_DIR, else
/// the one the build generates.
std::string referenceDirectory();

/// The cases of family `op`, sorted by file name; nullopt when the reference
/// directory is absent or holds no case of that family.
std::optional<std::vector<RefCase>> loadCases(const std::string &op);

/// Expects `actual` to be within `tolerance` of reference tensor `expected`
/// of `c`, and records the error under `kernel` for the summary.
void expectClose(const RefCase &c, const char *kernel, const Buffer &actual,
                 const std::string &expected, double tolerance);

/// Expects `actual` to be within `tolerance` of `expected` (same size), and
/// records the error under `kernel`; `what` names the compared values.
void expectCloseValues(const RefCase &c, const char *kernel,
                       const std::vector<float> &actual,
                       const std::vector<float> &expected,
                       const std::string &what, double tolerance);

/// Prints, per kernel, the number of comparisons and the largest relative
/// error recorded since the last call.
void printErrorSummary();

} // namespace memopt::rt::testing

/// Loads the cases of family `op` into `var` or skips the test.
#define MEMOPT_LOAD_CASES(var, op)                                             \
  auto var##Loaded = ::memopt::rt::testing::loadCases(op);                     \
  if (!var##Loaded)                                                            \
    GTEST_SKIP() << "no '" << op << "' reference cases in "                   \
                 << ::memopt::rt::testing::referenceDirectory()                \
                 << " (generate them with "                                    \
                    "python/memopt/testing/make_reference.py)";                \
  const std::vector<::memopt::rt::testing::RefCase> &var = *var##Loaded

#endif // MEMOPT_UNITTESTS_RUNTIME_REFERENCECASE_H
