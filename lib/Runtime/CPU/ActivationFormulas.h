//===- ActivationFormulas.h - Per-element formulas of both backends -*- C++ -*-===//
//
// The forward and gradient formulas of hard_sigmoid, hard_swish, elu,
// softplus, erf and prelu, and tg.compare's predicates, as functors that the CPU kernels
// (Activation.cpp) and the CUDA kernels (lib/Runtime/CUDA/Activation.cu)
// both instantiate, so that the two backends compute the same float
// expression per element. Each follows PyTorch's CPU kernel; comments name
// the deviations. Private to the runtime libraries.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CPU_ACTIVATIONFORMULAS_H
#define MEMOPT_LIB_RUNTIME_CPU_ACTIVATIONFORMULAS_H

#include "memopt/Runtime/HostDevice.h"
#include "memopt/Runtime/Kernels.h"

#include <math.h>

namespace memopt::rt::formulas {

/// tg.compare: 1 where `a predicate b` holds, else 0 (NaN compares false,
/// as in PyTorch).
struct Compare {
  Comparison predicate;
  MEMOPT_HOST_DEVICE float operator()(float a, float b) const {
    bool holds = predicate == Comparison::Less           ? a < b
                 : predicate == Comparison::LessEqual    ? a <= b
                 : predicate == Comparison::Greater      ? a > b
                 : predicate == Comparison::GreaterEqual ? a >= b
                                                         : a == b;
    return holds ? 1.0f : 0.0f;
  }
};

/// ONNX HardSigmoid: max(0, min(1, alpha * x + beta)).
struct HardSigmoid {
  float alpha, beta;
  MEMOPT_HOST_DEVICE float operator()(float x) const {
    float v = alpha * x + beta;
    return v < 0 ? 0.0f : (v > 1 ? 1.0f : v);
  }
};
/// The gradient passes inside the linear part only (open interval).
struct HardSigmoidGrad {
  float alpha, beta;
  MEMOPT_HOST_DEVICE float operator()(float dy, float x) const {
    float v = alpha * x + beta;
    return v > 0 && v < 1 ? alpha * dy : 0.0f;
  }
};

/// torch.nn.functional.hardswish: x * min(max(x + 3, 0), 6) / 6.
struct HardSwish {
  MEMOPT_HOST_DEVICE float operator()(float x) const {
    float r = x + 3.0f;
    r = r < 0 ? 0.0f : (r > 6 ? 6.0f : r);
    return x * r / 6.0f;
  }
};
struct HardSwishGrad {
  MEMOPT_HOST_DEVICE float operator()(float dy, float x) const {
    if (x < -3.0f)
      return 0.0f;
    return x <= 3.0f ? dy * (x / 3.0f + 0.5f) : dy;
  }
};

struct Elu {
  float alpha;
  MEMOPT_HOST_DEVICE float operator()(float x) const {
    return x > 0 ? x : alpha * expm1f(x);
  }
};
struct EluGrad {
  float alpha;
  MEMOPT_HOST_DEVICE float operator()(float dy, float x) const {
    return x > 0 ? dy : dy * alpha * expf(x);
  }
};

/// PyTorch's softplus with beta 1 and threshold 20 (ONNX Softplus has no
/// threshold; above it log1p(exp(x)) rounds to x in float anyway).
struct Softplus {
  MEMOPT_HOST_DEVICE float operator()(float x) const {
    return x > 20.0f ? x : log1pf(expf(x));
  }
};
struct SoftplusGrad {
  MEMOPT_HOST_DEVICE float operator()(float dy, float x) const {
    if (x > 20.0f)
      return dy;
    float z = expf(x);
    return dy * z / (z + 1.0f);
  }
};

struct Erf {
  MEMOPT_HOST_DEVICE float operator()(float x) const { return erff(x); }
};
/// d erf(x) / dx = 2 / sqrt(pi) * exp(-x^2).
struct ErfGrad {
  MEMOPT_HOST_DEVICE float operator()(float dy, float x) const {
    return dy * 1.12837916709551257390f * expf(-x * x);
  }
};

struct PRelu {
  MEMOPT_HOST_DEVICE float operator()(float x, float slope) const {
    return x > 0 ? x : slope * x;
  }
};
/// `dy` and `x` are read at one index, `slope` at its broadcast index.
struct PReluGrad {
  MEMOPT_HOST_DEVICE float operator()(float dy, float x, float slope) const {
    return x > 0 ? dy : slope * dy;
  }
};

} // namespace memopt::rt::formulas

#endif // MEMOPT_LIB_RUNTIME_CPU_ACTIVATIONFORMULAS_H
