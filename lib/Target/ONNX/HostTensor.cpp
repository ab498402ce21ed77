//===- HostTensor.cpp - Small tensors known at import time ----------------===//

#include "HostTensor.h"

#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/Support/Endian.h"

#include <cstring>

using namespace memopt::onnx_import;

bool HostTensor::isFloat() const {
  return dtype == onnx::TensorProto::FLOAT ||
         dtype == onnx::TensorProto::DOUBLE ||
         dtype == onnx::TensorProto::FLOAT16 ||
         dtype == onnx::TensorProto::BFLOAT16;
}

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

double HostTensor::getDouble(int64_t i) const {
  return isFloat() ? floats[i] : static_cast<double>(ints[i]);
}

int64_t HostTensor::getInt(int64_t i) const {
  return isFloat() ? static_cast<int64_t>(floats[i]) : ints[i];
}

HostTensor HostTensor::makeInts(llvm::ArrayRef<int64_t> shape,
                                std::vector<int64_t> values, int32_t dtype) {
  HostTensor t;
  t.dtype = dtype;
  t.shape.assign(shape.begin(), shape.end());
  t.ints = std::move(values);
  return t;
}

HostTensor HostTensor::makeFloats(llvm::ArrayRef<int64_t> shape,
                                  std::vector<double> values, int32_t dtype) {
  HostTensor t;
  t.dtype = dtype;
  t.shape.assign(shape.begin(), shape.end());
  t.floats = std::move(values);
  return t;
}

bool memopt::onnx_import::isRuntimeFloatType(int32_t dtype) {
  return dtype == onnx::TensorProto::FLOAT ||
         dtype == onnx::TensorProto::FLOAT16 ||
         dtype == onnx::TensorProto::BFLOAT16;
}

llvm::SmallVector<int64_t>
memopt::onnx_import::stridesOf(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
    strides[i] = strides[i + 1] * shape[i + 1];
  return strides;
}

namespace {
double halfBitsToDouble(uint16_t bits, bool bfloat) {
  const llvm::fltSemantics &sem =
      bfloat ? llvm::APFloat::BFloat() : llvm::APFloat::IEEEhalf();
  return llvm::APFloat(sem, llvm::APInt(16, bits)).convertToDouble();
}
} // namespace

size_t memopt::onnx_import::rawElementSize(int32_t dtype) {
  switch (dtype) {
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::INT32:
  case onnx::TensorProto::UINT32:
    return 4;
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    return 8;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
  case onnx::TensorProto::INT16:
  case onnx::TensorProto::UINT16:
    return 2;
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::BOOL:
    return 1;
  default:
    return 0;
  }
}

namespace {
/// Decodes one little-endian raw element.
void decodeRaw(int32_t dtype, const char *p, HostTensor &out) {
  using namespace llvm::support;
  switch (dtype) {
  case onnx::TensorProto::FLOAT: {
    uint32_t bits = endian::read32le(p);
    float f;
    std::memcpy(&f, &bits, 4);
    out.floats.push_back(f);
    return;
  }
  case onnx::TensorProto::DOUBLE: {
    uint64_t bits = endian::read64le(p);
    double d;
    std::memcpy(&d, &bits, 8);
    out.floats.push_back(d);
    return;
  }
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    out.floats.push_back(halfBitsToDouble(
        endian::read16le(p), dtype == onnx::TensorProto::BFLOAT16));
    return;
  case onnx::TensorProto::INT64:
  case onnx::TensorProto::UINT64:
    out.ints.push_back(static_cast<int64_t>(endian::read64le(p)));
    return;
  case onnx::TensorProto::INT32:
    out.ints.push_back(static_cast<int32_t>(endian::read32le(p)));
    return;
  case onnx::TensorProto::UINT32:
    out.ints.push_back(endian::read32le(p));
    return;
  case onnx::TensorProto::INT16:
    out.ints.push_back(static_cast<int16_t>(endian::read16le(p)));
    return;
  case onnx::TensorProto::UINT16:
    out.ints.push_back(endian::read16le(p));
    return;
  case onnx::TensorProto::INT8:
    out.ints.push_back(static_cast<int8_t>(*p));
    return;
  default: // UINT8, BOOL
    out.ints.push_back(static_cast<uint8_t>(*p));
    return;
  }
}
} // namespace

bool memopt::onnx_import::readTensorProto(const onnx::TensorProto &proto,
                                          HostTensor &out, std::string &error) {
  out = HostTensor();
  out.dtype = proto.data_type();
  for (int64_t d : proto.dims()) {
    if (d < 0) {
      error = "tensor '" + proto.name() + "' has a negative dimension";
      return false;
    }
    out.shape.push_back(d);
  }
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    error = "tensor '" + proto.name() +
            "' keeps its data in an external file, which is not supported; "
            "re-export without external data";
    return false;
  }
  size_t elementSize = rawElementSize(out.dtype);
  if (elementSize == 0) {
    error = "tensor '" + proto.name() + "' has unsupported element type " +
            onnx::TensorProto::DataType_Name(
                static_cast<onnx::TensorProto::DataType>(out.dtype));
    return false;
  }
  int64_t n = out.numElements();
  if (proto.has_raw_data()) {
    const std::string &raw = proto.raw_data();
    if (raw.size() != static_cast<size_t>(n) * elementSize) {
      error = "tensor '" + proto.name() + "' holds " +
              std::to_string(raw.size()) + " bytes of data, expected " +
              std::to_string(n * elementSize);
      return false;
    }
    for (int64_t i = 0; i < n; ++i)
      decodeRaw(out.dtype, raw.data() + i * elementSize, out);
    return true;
  }
  switch (out.dtype) {
  case onnx::TensorProto::FLOAT:
    out.floats.assign(proto.float_data().begin(), proto.float_data().end());
    break;
  case onnx::TensorProto::DOUBLE:
    out.floats.assign(proto.double_data().begin(), proto.double_data().end());
    break;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
    for (int32_t bits : proto.int32_data())
      out.floats.push_back(halfBitsToDouble(
          static_cast<uint16_t>(bits), out.dtype == onnx::TensorProto::BFLOAT16));
    break;
  case onnx::TensorProto::INT64:
    out.ints.assign(proto.int64_data().begin(), proto.int64_data().end());
    break;
  case onnx::TensorProto::UINT64:
  case onnx::TensorProto::UINT32:
    out.ints.assign(proto.uint64_data().begin(), proto.uint64_data().end());
    break;
  default:
    out.ints.assign(proto.int32_data().begin(), proto.int32_data().end());
    break;
  }
  size_t have = out.isFloat() ? out.floats.size() : out.ints.size();
  if (have != static_cast<size_t>(n)) {
    error = "tensor '" + proto.name() + "' holds " + std::to_string(have) +
            " values, expected " + std::to_string(n);
    return false;
  }
  return true;
}

mlir::DenseElementsAttr
memopt::onnx_import::toElementsAttr(const HostTensor &tensor,
                                    mlir::Type elementType) {
  auto type = mlir::RankedTensorType::get(tensor.shape, elementType);
  auto floatType = mlir::cast<mlir::FloatType>(elementType);
  llvm::SmallVector<llvm::APFloat> values;
  values.reserve(tensor.numElements());
  for (int64_t i = 0, e = tensor.numElements(); i < e; ++i) {
    llvm::APFloat value(tensor.getDouble(i));
    bool lost;
    value.convert(floatType.getFloatSemantics(),
                  llvm::APFloat::rmNearestTiesToEven, &lost);
    values.push_back(value);
  }
  return mlir::DenseElementsAttr::get(type, values);
}
