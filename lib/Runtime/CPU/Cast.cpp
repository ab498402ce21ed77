//===- Cast.cpp - tg.cast between f32, bf16 and f16
//------------------------===//
//
// The conversions of mixed precision (tg-amp): f32 -> bf16/f16 rounds to
// nearest even, bf16/f16 -> f32 is exact, bf16 <-> f16 goes through f32
// (exact, then rounded once). Every element is independent, so the loops
// split over threads; each conversion is a branch-free integer/float
// sequence (LowPrecision.h) that the compiler vectorizes, compiled once more
// for AVX-512 and AVX2 (picked at load time) so that the 16-lane units of
// this machine's CPUs do the work where present.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "Common.h"
#include "LowPrecision.h"

namespace memopt::rt {
using namespace detail;

namespace detail {

const char *typeName(ElementType type) {
  switch (type) {
  case ElementType::F32:
    return "f32";
  case ElementType::I64:
    return "i64";
  case ElementType::BF16:
    return "bf16";
  case ElementType::F16:
    return "f16";
  }
  return "unknown";
}

void requireType(const char *kernel, const char *name, ElementType actual,
                 ElementType expected) {
  if (actual != expected)
    fatal(kernel, std::string(name) + " is " + typeName(actual) +
                      ", expected " + typeName(expected) +
                      " (the kernel's tensors share one element type)");
}

} // namespace detail

namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define MEMOPT_VECTOR_CLONES                                                   \
  __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define MEMOPT_VECTOR_CLONES
#endif

MEMOPT_VECTOR_CLONES
void toBf16(const float *in, uint16_t *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = bf16FromFloat(in[i]);
}

MEMOPT_VECTOR_CLONES
void fromBf16(const uint16_t *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = floatFromBf16(in[i]);
}

MEMOPT_VECTOR_CLONES
void toF16(const float *in, uint16_t *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = f16FromFloat(in[i]);
}

MEMOPT_VECTOR_CLONES
void fromF16(const uint16_t *in, float *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = floatFromF16(in[i]);
}

MEMOPT_VECTOR_CLONES
void bf16ToF16(const uint16_t *in, uint16_t *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = f16FromFloat(floatFromBf16(in[i]));
}

MEMOPT_VECTOR_CLONES
void f16ToBf16(const uint16_t *in, uint16_t *out, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    out[i] = bf16FromFloat(floatFromF16(in[i]));
}

} // namespace

void convertElements(const void *input, ElementType from, void *output,
                     ElementType to, int64_t count) {
  const char *kernel = "cast";
  require(from != ElementType::I64 && to != ElementType::I64, kernel,
          "converts float tensors (f32, bf16, f16) only, not i64");
  auto in16 = static_cast<const uint16_t *>(input);
  auto out16 = static_cast<uint16_t *>(output);
  auto in32 = static_cast<const float *>(input);
  auto out32 = static_cast<float *>(output);
  parallelFor(count, count, [&](int64_t begin, int64_t end) {
    int64_t n = end - begin;
    if (from == to) {
      std::memmove(static_cast<char *>(output) + begin * elementBytes(to),
                   static_cast<const char *>(input) + begin * elementBytes(to),
                   n * elementBytes(to));
    } else if (from == ElementType::F32) {
      if (to == ElementType::BF16)
        toBf16(in32 + begin, out16 + begin, n);
      else
        toF16(in32 + begin, out16 + begin, n);
    } else if (to == ElementType::F32) {
      if (from == ElementType::BF16)
        fromBf16(in16 + begin, out32 + begin, n);
      else
        fromF16(in16 + begin, out32 + begin, n);
    } else if (from == ElementType::BF16) {
      bf16ToF16(in16 + begin, out16 + begin, n);
    } else {
      f16ToBf16(in16 + begin, out16 + begin, n);
    }
  });
}

void cast(ConstTensor input, Tensor output) {
  checkCast(input, output);
  convertElements(input.data, input.type, output.data, output.type,
                  input.numel());
}

} // namespace memopt::rt
