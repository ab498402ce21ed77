//===- LowPrecision.h - bf16 / f16 storage types of the CPU kernels -*- C++
//-*-===//
//
// Mixed precision (tg-amp) stores activations in bf16 or f16 and computes
// in f32: a kernel templated over its storage type `T` (float, BF16, F16)
// loads each element as a float, computes, and stores it back rounded to
// nearest even. BF16 and F16 convert implicitly to float and assign from
// float, so that a kernel body written for float (`out[i] = f(in[i])`)
// compiles unchanged for them. The conversions are the IEEE ones, in
// integer and float arithmetic only (no F16C / AVX512-BF16 instructions:
// the runtime does not depend on -march), bit-identical to oneDNN's and
// PyTorch's: NaN stays NaN, overflow rounds to infinity.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CPU_LOWPRECISION_H
#define MEMOPT_LIB_RUNTIME_CPU_LOWPRECISION_H

#include "Common.h"

#include <cstdint>
#include <cstring>

namespace memopt::rt::detail {

inline uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

inline float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// f32 -> bf16, round to nearest even; NaN stays a (quiet) NaN.
inline uint16_t bf16FromFloat(float f) {
  uint32_t u = floatBits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u)
    return static_cast<uint16_t>((u >> 16) | 0x40u);
  u += 0x7fffu + ((u >> 16) & 1u);
  return static_cast<uint16_t>(u >> 16);
}

inline float floatFromBf16(uint16_t h) {
  return bitsFloat(static_cast<uint32_t>(h) << 16);
}

/// f32 -> IEEE binary16, round to nearest even (subnormals included,
/// overflow to infinity, NaN to a quiet NaN). The float additions do the
/// rounding: they need the default rounding mode, which the runtime never
/// changes.
inline uint16_t f16FromFloat(float f) {
  const float scaleToInf = 0x1.0p+112f, scaleToZero = 0x1.0p-110f;
  float base = (__builtin_fabsf(f) * scaleToInf) * scaleToZero;
  const uint32_t w = floatBits(f);
  const uint32_t shl1 = w + w;
  const uint32_t sign = w & 0x80000000u;
  uint32_t bias = shl1 & 0xff000000u;
  if (bias < 0x71000000u)
    bias = 0x71000000u;
  base = bitsFloat((bias >> 1) + 0x07800000u) + base;
  const uint32_t bits = floatBits(base);
  const uint32_t expBits = (bits >> 13) & 0x00007c00u;
  const uint32_t mantissaBits = bits & 0x00000fffu;
  const uint32_t nonsign = expBits + mantissaBits;
  return static_cast<uint16_t>((sign >> 16) |
                               (shl1 > 0xff000000u ? 0x7e00u : nonsign));
}

inline float floatFromF16(uint16_t h) {
  const uint32_t w = static_cast<uint32_t>(h) << 16;
  const uint32_t sign = w & 0x80000000u;
  const uint32_t twoW = w + w;
  const float normalized = bitsFloat((twoW >> 4) + (0xe0u << 23)) * 0x1.0p-112f;
  const float denormalized = bitsFloat((twoW >> 17) | (126u << 23)) - 0.5f;
  const uint32_t result = sign | (twoW < (1u << 27) ? floatBits(denormalized)
                                                    : floatBits(normalized));
  return bitsFloat(result);
}

/// A bf16 element: reads as float, assigns from float.
struct BF16 {
  uint16_t bits;
  operator float() const { return floatFromBf16(bits); }
  BF16 &operator=(float f) {
    bits = bf16FromFloat(f);
    return *this;
  }
  /// Rounds the sum once per addition, as a low-precision tensor does.
  BF16 &operator+=(float f) { return *this = float(*this) + f; }
};

/// An IEEE binary16 element: reads as float, assigns from float.
struct F16 {
  uint16_t bits;
  operator float() const { return floatFromF16(bits); }
  F16 &operator=(float f) {
    bits = f16FromFloat(f);
    return *this;
  }
  /// Rounds the sum once per addition, as a low-precision tensor does.
  F16 &operator+=(float f) { return *this = float(*this) + f; }
};

static_assert(sizeof(BF16) == 2 && sizeof(F16) == 2, "2-byte storage");

/// "f32", "bf16", "f16", "i64", for messages.
const char *typeName(ElementType type);

/// Calls `body(T())` with `T` the storage type of `type` (float, BF16 or
/// F16); aborts for i64.
template <typename Body>
void dispatchFloatType(const char *kernel, ElementType type, Body body) {
  switch (type) {
  case ElementType::F32:
    return body(float());
  case ElementType::BF16:
    return body(BF16());
  case ElementType::F16:
    return body(F16());
  case ElementType::I64:
    break;
  }
  fatal(kernel, "takes float tensors (f32, bf16 or f16), not i64");
}

/// Aborts unless `tensor` has element type `type` (the kernel's storage
/// type, which all its activation tensors share).
void requireType(const char *kernel, const char *name, ElementType actual,
                 ElementType expected);

} // namespace memopt::rt::detail

#endif // MEMOPT_LIB_RUNTIME_CPU_LOWPRECISION_H
