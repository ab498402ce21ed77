//===- Tensor.h - Non-owning tensor views of the runtime ---------*- C++ -*-===//
//
// The runtime never owns tensor memory: the static memory plan places every
// tensor in an arena and the generated code hands the kernels views of it. A
// view is a data pointer plus a row-major (C-contiguous) shape of at most
// kMaxRank dimensions. Nothing here allocates.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_TENSOR_H
#define MEMOPT_RUNTIME_TENSOR_H

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>

namespace memopt::rt {

/// The largest rank a runtime tensor can have.
inline constexpr int kMaxRank = 8;

/// The element type of a tensor. The values are stored in checkpoints:
/// never renumber them.
enum class ElementType : int32_t { F32 = 0, I64 = 1, BF16 = 2, F16 = 3 };

/// The size in bytes of one element of `type`.
constexpr size_t elementBytes(ElementType type) {
  return type == ElementType::I64 ? 8
         : type == ElementType::F32 ? 4
                                    : 2;
}

/// A short list of int64 values: a shape, or a per-axis attribute (slice
/// starts, pads, axes, a permutation). Fixed capacity, no allocation.
struct Dims {
  int size = 0;
  int64_t values[2 * kMaxRank] = {};

  Dims() = default;
  Dims(std::initializer_list<int64_t> list) {
    for (int64_t v : list)
      values[size++] = v;
  }
  Dims(const int64_t *data, int count) : size(count) {
    for (int i = 0; i < count; ++i)
      values[i] = data[i];
  }

  int64_t operator[](int i) const { return values[i]; }
  int64_t &operator[](int i) { return values[i]; }
  const int64_t *begin() const { return values; }
  const int64_t *end() const { return values + size; }

  /// The product of the values: the element count of a shape (1 for rank 0).
  int64_t product() const {
    int64_t n = 1;
    for (int i = 0; i < size; ++i)
      n *= values[i];
    return n;
  }

  friend bool operator==(const Dims &a, const Dims &b) {
    if (a.size != b.size)
      return false;
    for (int i = 0; i < a.size; ++i)
      if (a.values[i] != b.values[i])
        return false;
    return true;
  }
  friend bool operator!=(const Dims &a, const Dims &b) { return !(a == b); }
};

/// A row-major view of `shape.product()` elements at `data`. `T` is `float`
/// for results and `const float` for operands; a `Tensor` converts to a
/// `ConstTensor` implicitly. A view with a null `data` stands for an absent
/// optional operand (the bias of a convolution, the C of a gemm).
///
/// `type` says what `data` holds: f32 (the default) or, for mixed
/// precision, bf16 / f16 (2-byte elements; `data` then only carries the
/// address, and the kernels that take low-precision tensors read it through
/// `elements<T>()`). Kernels that take f32 only check it.
template <typename T> struct TensorView {
  T *data = nullptr;
  Dims shape;
  ElementType type = ElementType::F32;

  TensorView() = default;
  TensorView(T *data, Dims shape, ElementType type = ElementType::F32)
      : data(data), shape(shape), type(type) {}
  /// Tensor -> ConstTensor (not the reverse).
  template <typename U,
            typename = std::enable_if_t<std::is_convertible_v<U *, T *>>>
  TensorView(const TensorView<U> &other)
      : data(other.data), shape(other.shape), type(other.type) {}

  int rank() const { return shape.size; }
  int64_t dim(int i) const { return shape[i]; }
  int64_t numel() const { return shape.product(); }
  size_t bytes() const {
    return static_cast<size_t>(numel()) * elementBytes(type);
  }
  /// The elements as `E` (`const E` for a ConstTensor): the caller has
  /// checked that `type` stores E.
  template <typename E> auto elements() const {
    using Target = std::conditional_t<std::is_const_v<T>, const E, E>;
    return reinterpret_cast<Target *>(data);
  }
  bool present() const { return data != nullptr; }
  T &operator[](int64_t i) const { return data[i]; }
};

using Tensor = TensorView<float>;
using ConstTensor = TensorView<const float>;

/// The row-major strides of `shape`, in elements.
inline Dims contiguousStrides(const Dims &shape) {
  Dims strides = shape;
  int64_t stride = 1;
  for (int i = shape.size - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape[i];
  }
  return strides;
}

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_TENSOR_H
