//===- ImageFormats.h - One reader per sample file format -------*- C++ -*-===//
//
// Each reader fills `shape` from the file's header and, given a sink, reads
// the pixels into it, scaled as ImageFile.h says, after checking that the
// shape is the sink's (checkShape). Failure messages are the cause only;
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
};

/// Fails unless a file's `shape` is the sink's.
Status checkShape(const Dims &shape, const PixelSink &sink);

Status readNpy(const std::string &path, Dims &shape, const PixelSink *sink);
Status readPng(const std::string &path, Dims &shape, const PixelSink *sink);
Status readDicom(const std::string &path, Dims &shape, const PixelSink *sink);

} // namespace memopt::rt::detail

#endif // MEMOPT_LIB_RUNTIME_HOST_IMAGEFORMATS_H
