//===- ImageFile.cpp - Reading one sample file of a data set --------------===//

#include "memopt/Runtime/ImageFile.h"

#include "ImageFormats.h"

#include "memopt/Runtime/FileIO.h"

#include <cctype>

namespace memopt::rt {

namespace {

using Reader = Status (*)(const std::string &, Dims &,
                          const detail::PixelSink *);

std::string lowerExtension(const std::string &path) {
  size_t dot = path.find_last_of("./");
  if (dot == std::string::npos || path[dot] != '.')
    return "";
  std::string ext = path.substr(dot);
  for (char &c : ext)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext;
}

Reader readerFor(const std::string &path) {
  std::string ext = lowerExtension(path);
  if (ext == ".npy")
    return detail::readNpy;
  if (ext == ".png")
    return detail::readPng;
  if (ext == ".dcm")
    return detail::readDicom;
  return nullptr;
}

} // namespace

std::string shapeText(const Dims &shape) {
  std::string text = "(";
  for (int i = 0; i < shape.size; ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + (shape.size == 1 ? ",)" : ")");
}

namespace detail {

Status checkShape(const Dims &shape, const PixelSink &sink) {
  if (shape == sink.shape)
    return Status();
  return Status::error("has shape " + shapeText(shape) + ", expected " +
                       shapeText(sink.shape));
}

} // namespace detail

Status checkImageType(const std::string &path) {
  if (!readerFor(path))
    return Status::error(
        path + ": unsupported file type (expected .npy, .png or .dcm)");
  return checkRegularFile(path);
}

Status readImageShape(const std::string &path, Dims &shape) {
  if (Status status = checkImageType(path); !status.ok())
    return status;
  Reader reader = readerFor(path);
  if (Status status = reader(path, shape, nullptr); !status.ok())
    return Status::error(path + ": " + status.message());
  return Status();
}

Status readImage(const std::string &path, const Dims &shape, float *pixels) {
  if (Status status = checkImageType(path); !status.ok())
    return status;
  Reader reader = readerFor(path);
  Dims actual;
  detail::PixelSink sink{pixels, shape};
  if (Status status = reader(path, actual, &sink); !status.ok())
    return Status::error(path + ": " + status.message());
  return Status();
}

} // namespace memopt::rt
