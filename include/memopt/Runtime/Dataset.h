//===- Dataset.h - A directory of input/target sample pairs -----*- C++ -*-===//
//
// docs/contract.md (data): DIR/inputs/NAME.EXT pairs with
// DIR/targets/NAME.EXT by stem (the two extensions may differ); ImageFile.h lists the formats. Samples
// are sorted by NAME (byte order). Files whose name starts with '.' and
// subdirectories are ignored; any other file must be a supported image with
// a partner.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_DATASET_H
#define MEMOPT_RUNTIME_DATASET_H

#include "memopt/Runtime/Status.h"
#include "memopt/Runtime/Tensor.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace memopt::rt {

class Dataset {
public:
  struct File {
    std::string path;
    Dims shape; // as stored in the file
  };
  struct Sample {
    std::string name;
    File input, target;
  };

  /// Lists and pairs the files of `dir` and checks every file's header
  /// against the sample shapes: the program's Input and Target shapes
  /// without the batch dimension. A file whose shape lacks a leading 1 of
  /// the sample shape (H,W for 1,H,W) matches too. Fails, naming the file,
  /// on a missing partner, an unreadable or unsupported file, a wrong shape,
  /// and on an empty data set.
  static Status open(const std::string &dir, const Dims &inputShape,
                     const Dims &targetShape, Dataset &dataset);

  size_t size() const { return samples.size(); }
  const Sample &sample(size_t i) const { return samples[i]; }

  /// Reads the samples `indices[0..count)` into consecutive sample slots of
  /// `inputs` and `targets` (one batch).
  Status loadBatch(const uint32_t *indices, size_t count, float *inputs,
                   float *targets) const;

private:
  std::vector<Sample> samples;
  int64_t inputElements = 0, targetElements = 0;
};

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_DATASET_H
