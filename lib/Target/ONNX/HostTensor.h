//===- HostTensor.h - Small tensors known at import time --------*- C++ -*-===//
//
// PyTorch exports compute shapes, pads and scales with small subgraphs
// (Shape, Gather, Concat, Cast, ...). The importer evaluates those on host
// tensors so that every tg op receives static attributes.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_TARGET_ONNX_HOSTTENSOR_H
#define MEMOPT_LIB_TARGET_ONNX_HOSTTENSOR_H

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/SmallVector.h"

#include <onnx/onnx_pb.h>

#include <cstdint>
#include <string>
#include <vector>

namespace memopt::onnx_import {

/// A dense tensor held on the host. Integer and boolean tensors keep their
/// values in `ints`, floating-point tensors in `floats`: int64 shape
/// arithmetic must stay exact, which doubles do not guarantee.
struct HostTensor {
  int32_t dtype = onnx::TensorProto::FLOAT;
  llvm::SmallVector<int64_t> shape;
  std::vector<int64_t> ints;
  std::vector<double> floats;

  bool isFloat() const;
  int64_t numElements() const;
  /// Element `i` as a double / as an integer, whatever the storage.
  double getDouble(int64_t i) const;
  int64_t getInt(int64_t i) const;

  static HostTensor makeInts(llvm::ArrayRef<int64_t> shape,
                             std::vector<int64_t> values,
                             int32_t dtype = onnx::TensorProto::INT64);
  static HostTensor makeFloats(llvm::ArrayRef<int64_t> shape,
                               std::vector<double> values,
                               int32_t dtype = onnx::TensorProto::FLOAT);
};

/// True for the ONNX element types memopt can compute with at run time.
bool isRuntimeFloatType(int32_t dtype);

/// Byte size of one element of `dtype` in a TensorProto's raw_data, or 0 for
/// the types memopt does not read (strings, complex numbers).
size_t rawElementSize(int32_t dtype);

/// Reads an ONNX TensorProto; fails (with `error` set) on external data or an
/// element type it cannot represent.
bool readTensorProto(const onnx::TensorProto &proto, HostTensor &out,
                     std::string &error);

/// Converts to a DenseElementsAttr of `elementType` (a float type).
mlir::DenseElementsAttr toElementsAttr(const HostTensor &tensor,
                                       mlir::Type elementType);

/// Row-major strides of `shape`.
llvm::SmallVector<int64_t> stridesOf(llvm::ArrayRef<int64_t> shape);

} // namespace memopt::onnx_import

#endif // MEMOPT_LIB_TARGET_ONNX_HOSTTENSOR_H
