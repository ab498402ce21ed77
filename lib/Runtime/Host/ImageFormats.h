//===- ImageFormats.h - One reader per sample file format -------*- C++ -*-===//
//
// Each reader fills `shape` from the file's header and, given a sink, reads
// the pixels into it, scaled as ImageFile.h says, after checking that the
// shape is the sink's (checkShape). A sink of class indices gets the
// integer pixels unscaled (PixelSink::pixel). Failure messages are the cause only;
// readImageShape() and readImage() add the path.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_HOST_IMAGEFORMATS_H
#define MEMOPT_LIB_RUNTIME_HOST_IMAGEFORMATS_H

#include "memopt/Runtime/Status.h"
#include "memopt/Runtime/Tensor.h"

#include <string>

namespace memopt::rt::detail {

/// Where a reader puts the pixels: `shape.product()` floats at `data`.
struct PixelSink {
  float *data;
  Dims shape;
  /// Integer pixels are class indices of a label map, stored as they are
  /// instead of scaled to [0, 1]; a reader of non-integer pixels refuses
  /// them then.
  bool classIndices = false;

  /// An integer pixel of a type whose largest value is `range`.
  float pixel(uint32_t value, float range) const {
    return classIndices ? static_cast<float>(value)
                        : static_cast<float>(value) / range;
  }
};

/// Fails unless a file's `shape` is the sink's.
Status checkShape(const Dims &shape, const PixelSink &sink);

Status readNpy(const std::string &path, Dims &shape, const PixelSink *sink);
Status readPng(const std::string &path, Dims &shape, const PixelSink *sink);
Status readDicom(const std::string &path, Dims &shape, const PixelSink *sink);

} // namespace memopt::rt::detail

#endif // MEMOPT_LIB_RUNTIME_HOST_IMAGEFORMATS_H
