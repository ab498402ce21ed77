//===- DicomFile.cpp - DICOM sample files (DCMTK) -------------------------===//
//
// One frame, one unsigned sample per pixel, 8 or 16 bits allocated. The
// stored bits (BitsStored ending at HighBit) are scaled by 2^BitsStored - 1.
// Compressed pixel data is decoded with DCMTK's RLE, JPEG and JPEG-LS codecs.
//
//===----------------------------------------------------------------------===//

#include "ImageFormats.h"

#ifdef MEMOPT_HAVE_DCMTK

#include <dcmtk/dcmdata/dcdeftag.h>
#include <dcmtk/dcmdata/dcfilefo.h>
#include <dcmtk/dcmdata/dcrledrg.h>
#include <dcmtk/dcmjpeg/djdecode.h>
#include <dcmtk/dcmjpls/djdecode.h>
#include <dcmtk/oflog/oflog.h>

#include <mutex>

namespace memopt::rt::detail {

namespace {

/// Registers the decoders and silences DCMTK's own log: the trainer reports
/// failures itself, one line each.
void initializeDcmtk() {
  static std::once_flag once;
  std::call_once(once, [] {
    OFLog::configure(OFLogger::FATAL_LOG_LEVEL);
    DcmRLEDecoderRegistration::registerCodecs();
    DJDecoderRegistration::registerCodecs();
    DJLSDecoderRegistration::registerCodecs();
  });
}

Status readUint16(DcmDataset &dataset, const DcmTagKey &tag, const char *name,
                  Uint16 &value) {
  if (dataset.findAndGetUint16(tag, value).bad())
    return Status::error(std::string("no ") + name + " attribute");
  return Status();
}

template <typename T>
void scalePixels(const T *raw, size_t count, unsigned bitsStored,
                 unsigned highBit, float *pixels) {
  unsigned shift = highBit + 1 - bitsStored;
  unsigned mask = (1u << bitsStored) - 1;
  float range = static_cast<float>(mask);
  for (size_t i = 0; i < count; ++i)
    pixels[i] = static_cast<float>((raw[i] >> shift) & mask) / range;
}

} // namespace

Status readDicom(const std::string &path, Dims &shape, const PixelSink *sink) {
  initializeDcmtk();
  DcmFileFormat file;
  OFCondition loaded = file.loadFile(path.c_str());
  if (loaded.bad())
    return Status::error(std::string("not a readable DICOM file: ") +
                         loaded.text());
  DcmDataset &dataset = *file.getDataset();

  Uint16 rows = 0, columns = 0, bitsAllocated = 0, bitsStored = 0, highBit = 0,
         samplesPerPixel = 1, pixelRepresentation = 0;
  if (Status status = readUint16(dataset, DCM_Rows, "Rows", rows); !status.ok())
    return status;
  if (Status status = readUint16(dataset, DCM_Columns, "Columns", columns);
      !status.ok())
    return status;
  if (Status status = readUint16(dataset, DCM_BitsAllocated, "BitsAllocated",
                                 bitsAllocated);
      !status.ok())
    return status;
  if (Status status =
          readUint16(dataset, DCM_BitsStored, "BitsStored", bitsStored);
      !status.ok())
    return status;
  // DCMTK zeroes the value of a missing attribute: keep the defaults.
  if (dataset.findAndGetUint16(DCM_HighBit, highBit).bad())
    highBit = bitsStored - 1;
  if (dataset.findAndGetUint16(DCM_SamplesPerPixel, samplesPerPixel).bad())
    samplesPerPixel = 1;
  if (dataset.findAndGetUint16(DCM_PixelRepresentation, pixelRepresentation)
          .bad())
    pixelRepresentation = 0;
  Sint32 frames = 1;
  if (dataset.findAndGetSint32(DCM_NumberOfFrames, frames).bad())
    frames = 1;

  if (samplesPerPixel != 1)
    return Status::error("SamplesPerPixel is " +
                         std::to_string(samplesPerPixel) +
                         ", expected 1 (grayscale)");
  if (frames != 1)
    return Status::error("NumberOfFrames is " + std::to_string(frames) +
                         ", expected 1");
  if (pixelRepresentation != 0)
    return Status::error("signed pixel data (PixelRepresentation 1) is not "
                         "supported");
  if (bitsAllocated != 8 && bitsAllocated != 16)
    return Status::error("BitsAllocated is " + std::to_string(bitsAllocated) +
                         ", expected 8 or 16");
  if (bitsStored < 1 || bitsStored > bitsAllocated ||
      highBit >= bitsAllocated || highBit + 1 < bitsStored)
    return Status::error("inconsistent BitsStored " +
                         std::to_string(bitsStored) + " / HighBit " +
                         std::to_string(highBit));
  shape = Dims{rows, columns};
  if (sink && sink->classIndices)
    return Status::error("a DICOM file is an image, not a label map; save "
                         "class indices as 8/16-bit PNG or integer .npy");
  if (!sink || !sink->data)
    return Status();
  if (Status status = checkShape(shape, *sink); !status.ok())
    return status;

  if (OFCondition decoded =
          dataset.chooseRepresentation(EXS_LittleEndianExplicit, nullptr);
      decoded.bad())
    return Status::error(std::string("cannot decode the pixel data: ") +
                         decoded.text());
  size_t count = static_cast<size_t>(rows) * columns;
  unsigned long stored = 0;
  if (bitsAllocated == 8) {
    const Uint8 *raw = nullptr;
    if (dataset.findAndGetUint8Array(DCM_PixelData, raw, &stored).bad() || !raw)
      return Status::error("no pixel data");
    if (stored < count)
      return Status::error("truncated pixel data: " + std::to_string(stored) +
                           " values, expected " + std::to_string(count));
    scalePixels(raw, count, bitsStored, highBit, sink->data);
    return Status();
  }
  const Uint16 *raw = nullptr;
  if (dataset.findAndGetUint16Array(DCM_PixelData, raw, &stored).bad() || !raw)
    return Status::error("no pixel data");
  if (stored < count)
    return Status::error("truncated pixel data: " + std::to_string(stored) +
                         " values, expected " + std::to_string(count));
  scalePixels(raw, count, bitsStored, highBit, sink->data);
  return Status();
}

} // namespace memopt::rt::detail

#else // !MEMOPT_HAVE_DCMTK

namespace memopt::rt::detail {

Status readDicom(const std::string &, Dims &, const PixelSink *) {
  return Status::error(
      "this binary was built without DICOM support (install libdcmtk-dev)");
}

} // namespace memopt::rt::detail

#endif // MEMOPT_HAVE_DCMTK
