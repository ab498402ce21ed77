//===- PngFile.cpp - Grayscale PNG sample files (libpng) ------------------===//
//
// libpng reports errors by longjmp to the setjmp in readPng: every C++ object
// that is alive across it is constructed before the setjmp, so the jump
// skips no destructor.
//
//===----------------------------------------------------------------------===//

#include "ImageFormats.h"

#ifdef MEMOPT_HAVE_PNG

#include <png.h>

#include <cerrno>
#include <csetjmp>
#include <cstdio>
#include <cstring>
#include <vector>

namespace memopt::rt::detail {

namespace {

/// The libpng state of one read, released on every path out of readPng.
struct PngRead {
  FILE *file = nullptr;
  png_structp png = nullptr;
  png_infop info = nullptr;
  char message[256] = {};

  ~PngRead() {
    if (png)
      png_destroy_read_struct(&png, info ? &info : nullptr, nullptr);
    if (file)
      std::fclose(file);
  }
};

void onError(png_structp png, png_const_charp message) {
  auto *read = static_cast<PngRead *>(png_get_error_ptr(png));
  std::snprintf(read->message, sizeof(read->message), "%s", message);
  png_longjmp(png, 1);
}

void onWarning(png_structp, png_const_charp) {}

} // namespace

Status readPng(const std::string &path, Dims &shape, const PixelSink *sink) {
  PngRead read;
  std::vector<png_byte> image;
  std::vector<png_bytep> rows;

  read.file = std::fopen(path.c_str(), "rb");
  if (!read.file)
    return Status::error(std::strerror(errno));
  png_byte signature[8];
  if (std::fread(signature, 1, 8, read.file) != 8 ||
      png_sig_cmp(signature, 0, 8) != 0)
    return Status::error("not a PNG file");
  read.png =
      png_create_read_struct(PNG_LIBPNG_VER_STRING, &read, onError, onWarning);
  if (read.png)
    read.info = png_create_info_struct(read.png);
  if (!read.png || !read.info)
    return Status::error("out of memory");
  if (setjmp(png_jmpbuf(read.png)))
    return Status::error(std::string("invalid PNG: ") + read.message);

  png_init_io(read.png, read.file);
  png_set_sig_bytes(read.png, 8);
  png_read_info(read.png, read.info);
  png_uint_32 width = png_get_image_width(read.png, read.info);
  png_uint_32 height = png_get_image_height(read.png, read.info);
  int colorType = png_get_color_type(read.png, read.info);
  int bitDepth = png_get_bit_depth(read.png, read.info);
  if (colorType != PNG_COLOR_TYPE_GRAY)
    return Status::error("not a grayscale PNG (color type " +
                         std::to_string(colorType) +
                         "), expected 8- or 16-bit grayscale");
  shape = Dims{static_cast<int64_t>(height), static_cast<int64_t>(width)};
  if (!sink || !sink->data)
    return Status();
  if (Status status = checkShape(shape, *sink); !status.ok())
    return status;

  if (bitDepth < 8)
    png_set_expand_gray_1_2_4_to_8(read.png);
  if (bitDepth == 16)
    png_set_swap(read.png); // little-endian host: uint16 in native order
  png_set_interlace_handling(read.png);
  png_read_update_info(read.png, read.info);
  size_t rowBytes = png_get_rowbytes(read.png, read.info);
  image.resize(rowBytes * height);
  rows.resize(height);
  for (png_uint_32 y = 0; y < height; ++y)
    rows[y] = image.data() + y * rowBytes;
  png_read_image(read.png, rows.data());

  size_t count = static_cast<size_t>(width) * height;
  if (bitDepth == 16) {
    for (size_t i = 0; i < count; ++i) {
      uint16_t value;
      std::memcpy(&value, image.data() + 2 * i, 2);
      sink->data[i] = sink->pixel(value, 65535.0f);
    }
  } else {
    for (size_t i = 0; i < count; ++i)
      sink->data[i] = sink->pixel(image[i], 255.0f);
  }
  return Status();
}

} // namespace memopt::rt::detail

#else // !MEMOPT_HAVE_PNG

namespace memopt::rt::detail {

Status readPng(const std::string &, Dims &, const PixelSink *) {
  return Status::error(
      "this binary was built without PNG support (install libpng-dev)");
}

} // namespace memopt::rt::detail

#endif // MEMOPT_HAVE_PNG
