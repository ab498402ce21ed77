//===- HostLabelMapTest.cpp - Label maps of --loss=ce|dice ----------------===//
//
// Targets of the segmentation losses are integer class maps: read unscaled
// from 8/16-bit PNG and uint8/uint16/int32/int64 .npy, checked against the
// class count with an error naming the file and pixel; float32 and DICOM
// label maps are refused, and int32/int64 files are not images.
//
//===----------------------------------------------------------------------===//

#include "HostTestSupport.h"

#include "memopt/Runtime/ImageFile.h"

#include "gtest/gtest.h"

#include <cstring>

using namespace memopt::rt;
using namespace memopt::rt::test;

namespace {

/// A little-endian .npy of `dtype` ('<i4', '<i8', ...) with `values`.
template <typename T>
void writeNpyInts(const std::string &path, const std::string &dtype,
                  const std::vector<int64_t> &shape,
                  const std::vector<T> &values) {
  std::string dims;
  for (int64_t d : shape)
    dims += std::to_string(d) + ", ";
  std::string dict = "{'descr': '" + dtype +
                     "', 'fortran_order': False, 'shape': (" + dims + "), }";
  std::string bytes = "\x93NUMPY";
  bytes += '\x01';
  bytes += '\x00';
  bytes += static_cast<char>(dict.size() + 1);
  bytes += '\x00';
  bytes += dict + "\n";
  std::string data(values.size() * sizeof(T), '\0');
  std::memcpy(data.data(), values.data(), data.size());
  writeText(path, bytes + data);
}

Status readLabels(const std::string &path, int64_t classes,
                  std::vector<float> &labels) {
  Dims shape;
  if (Status status = readImageShape(path, shape, /*labelMap=*/true);
      !status.ok())
    return status;
  labels.assign(static_cast<size_t>(shape.product()), -1.0f);
  return readLabelMap(path, shape, classes, labels.data());
}

TEST(RuntimeHostLabelMap, IntegerFilesAreReadUnscaled) {
  TempDir dir;
  std::vector<float> labels;
  writeNpyU8(dir / "u8.npy", {2, 2}, {0, 1, 2, 1});
  ASSERT_TRUE(readLabels(dir / "u8.npy", 3, labels).ok());
  EXPECT_EQ(labels, (std::vector<float>{0, 1, 2, 1}));
  writeNpyU16(dir / "u16.npy", {2, 2}, {0, 300, 2, 1});
  ASSERT_TRUE(readLabels(dir / "u16.npy", 301, labels).ok());
  EXPECT_EQ(labels, (std::vector<float>{0, 300, 2, 1}));
  writeNpyInts<int32_t>(dir / "i32.npy", "<i4", {1, 3}, {2, 0, 1});
  ASSERT_TRUE(readLabels(dir / "i32.npy", 3, labels).ok());
  EXPECT_EQ(labels, (std::vector<float>{2, 0, 1}));
  writeNpyInts<int64_t>(dir / "i64.npy", "<i8", {3}, {1, 1, 0});
  ASSERT_TRUE(readLabels(dir / "i64.npy", 2, labels).ok());
  EXPECT_EQ(labels, (std::vector<float>{1, 1, 0}));
#ifdef MEMOPT_HAVE_PNG
  writePng(dir / "eight.png", 2, 2, 8, {0, 3, 1, 2});
  ASSERT_TRUE(readLabels(dir / "eight.png", 4, labels).ok());
  EXPECT_EQ(labels, (std::vector<float>{0, 3, 1, 2}));
  writePng(dir / "sixteen.png", 1, 2, 16, {1000, 7});
  ASSERT_TRUE(readLabels(dir / "sixteen.png", 1001, labels).ok());
  EXPECT_EQ(labels, (std::vector<float>{1000, 7}));
#endif
}

TEST(RuntimeHostLabelMap, LabelsOutsideTheClassesNameFileAndPixel) {
  TempDir dir;
  std::vector<float> labels;
  writeNpyU8(dir / "big.npy", {2, 3}, {0, 1, 2, 1, 3, 0});
  Status status = readLabels(dir / "big.npy", 3, labels);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            dir / "big.npy" +
                ": label 3 at pixel (1, 1) is outside [0, 3): the model has "
                "3 output channels (classes)");
  writeNpyInts<int32_t>(dir / "neg.npy", "<i4", {2}, {0, -1});
  status = readLabels(dir / "neg.npy", 3, labels);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find(dir / "neg.npy: label -1 at pixel (0, 1)"),
            std::string::npos);
}

TEST(RuntimeHostLabelMap, FloatAndDicomAreNotLabelMaps) {
  TempDir dir;
  std::vector<float> labels;
  writeNpyF32(dir / "f.npy", {2}, {0, 1});
  Status status = readLabels(dir / "f.npy", 2, labels);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.message(),
            dir / "f.npy" +
                ": float32 data is not a label map; save class indices as "
                "uint8, uint16, int32 or int64");
  // int32 data is a label map only: as an image it is refused from its
  // header on, before any training.
  writeNpyInts<int32_t>(dir / "i32.npy", "<i4", {2}, {0, 1});
  Dims shape;
  status = readImageShape(dir / "i32.npy", shape);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("int32/int64 data is read only as a label "
                                  "map (targets of --loss=ce|dice)"),
            std::string::npos);
#ifdef MEMOPT_HAVE_DCMTK
  writeDicom(dir / "d.dcm", 2, 2, 8, {0, 1, 1, 0});
  status = readLabels(dir / "d.dcm", 2, labels);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.message().find("a DICOM file is an image, not a label map"),
            std::string::npos);
#endif
}

} // namespace
