//===- ImageFile.h - Reading one sample file of a data set ------*- C++ -*-===//
//
// The formats of docs/contract.md (data), chosen by extension
// (case-insensitive):
//   .npy  float32, uint8 or uint16, C order, any rank up to kMaxRank
//   .png  grayscale, 1 to 16 bits per pixel (shape H,W)
//   .dcm  DICOM, one frame, one unsigned sample per pixel (shape H,W);
//         uncompressed, RLE, JPEG or JPEG-LS
// Integer pixels are scaled to [0, 1] by their type's range: uint8 / 255,
// uint16 / 65535, a PNG's bit depth, a DICOM's BitsStored (the values are
// the stored ones: no Modality LUT, no inversion of MONOCHROME1). Float32
// values are read as they are.
//
// Every failure message starts with the file's path.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_IMAGEFILE_H
#define MEMOPT_RUNTIME_IMAGEFILE_H

#include "memopt/Runtime/Status.h"
#include "memopt/Runtime/Tensor.h"

#include <string>

namespace memopt::rt {

/// A shape as NumPy prints it: "(2, 3)", "(5,)", "()".
std::string shapeText(const Dims &shape);

/// Fails unless `path` has one of the extensions above.
Status checkImageType(const std::string &path);

/// The shape of the image at `path`, read from its header only, and whether
/// its type is supported.
Status readImageShape(const std::string &path, Dims &shape);

/// Reads the image at `path`, whose shape must be `shape` (as returned by
/// readImageShape), into `pixels` (shape.product() floats).
Status readImage(const std::string &path, const Dims &shape, float *pixels);

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_IMAGEFILE_H
