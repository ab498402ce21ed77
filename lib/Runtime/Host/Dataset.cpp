//===- Dataset.cpp - A directory of input/target sample pairs -------------===//

#include "memopt/Runtime/Dataset.h"

#include "memopt/Runtime/ImageFile.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <map>
#include <sys/stat.h>

namespace memopt::rt {

namespace {

std::string stemOf(const std::string &name) {
  size_t dot = name.find_last_of('.');
  return dot == std::string::npos ? name : name.substr(0, dot);
}

/// The image files of `dir` by stem.
Status listImages(const std::string &dir,
                  std::map<std::string, std::string> &files) {
  DIR *handle = ::opendir(dir.c_str());
  if (!handle)
    return Status::error(dir + ": " + std::strerror(errno));
  std::vector<std::string> names;
  while (dirent *entry = ::readdir(handle))
    if (entry->d_name[0] != '.')
      names.push_back(entry->d_name);
  ::closedir(handle);
  std::sort(names.begin(), names.end());

  for (const std::string &name : names) {
    std::string path = dir + "/" + name;
    struct stat info;
    if (::stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode))
      continue;
    if (Status status = checkImageType(path); !status.ok())
      return status;
    auto [it, inserted] = files.emplace(stemOf(name), path);
    if (!inserted)
      return Status::error(path + ": same name as " + it->second);
  }
  return Status();
}

/// Whether a file of shape `file` holds a sample of shape `sample`.
bool matches(const Dims &file, const Dims &sample) {
  if (file == sample)
    return true;
  if (sample.size != file.size + 1 || sample[0] != 1)
    return false;
  return Dims(sample.values + 1, sample.size - 1) == file;
}

Status checkFile(const std::string &path, const Dims &sampleShape,
                 Dims &shape, bool labelMap = false) {
  if (Status status = readImageShape(path, shape, labelMap); !status.ok())
    return status;
  if (matches(shape, sampleShape))
    return Status();
  std::string expected = shapeText(sampleShape);
  if (sampleShape.size > 1 && sampleShape[0] == 1)
    expected +=
        " or " + shapeText(Dims(sampleShape.values + 1, sampleShape.size - 1));
  return Status::error(path + ": has shape " + shapeText(shape) +
                       ", expected " + expected);
}

} // namespace

Status Dataset::open(const std::string &dir, const Dims &inputShape,
                     const Dims &targetShape, Dataset &dataset,
                     int64_t targetClasses) {
  dataset = Dataset();
  dataset.targetClasses = targetClasses;
  dataset.inputElements = inputShape.product();
  dataset.targetElements = targetShape.product();
  std::string inputDir = dir + "/inputs", targetDir = dir + "/targets";
  std::map<std::string, std::string> inputs, targets;
  if (Status status = listImages(inputDir, inputs); !status.ok())
    return status;
  if (Status status = listImages(targetDir, targets); !status.ok())
    return status;

  for (const auto &[stem, path] : targets)
    if (!inputs.count(stem))
      return Status::error(path + ": no input " + inputDir + "/" + stem +
                           ".{npy,png,dcm}");
  for (const auto &[stem, path] : inputs) {
    auto target = targets.find(stem);
    if (target == targets.end())
      return Status::error(path + ": no target " + targetDir + "/" + stem +
                           ".{npy,png,dcm}");
    Sample sample{stem, {path, {}}, {target->second, {}}};
    if (Status status = checkFile(path, inputShape, sample.input.shape);
        !status.ok())
      return status;
    if (Status status =
            checkFile(target->second, targetShape, sample.target.shape,
                      targetClasses > 0);
        !status.ok())
      return status;
    dataset.samples.push_back(std::move(sample));
  }
  if (dataset.samples.empty())
    return Status::error(inputDir + ": no samples");
  return Status();
}

Status Dataset::loadBatch(const uint32_t *indices, size_t count, float *inputs,
                          float *targets) const {
  for (size_t i = 0; i < count; ++i) {
    const Sample &sample = samples[indices[i]];
    if (Status status = readImage(sample.input.path, sample.input.shape,
                                  inputs + i * inputElements);
        !status.ok())
      return status;
    float *target = targets + i * targetElements;
    if (Status status =
            targetClasses > 0
                ? readLabelMap(sample.target.path, sample.target.shape,
                               targetClasses, target)
                : readImage(sample.target.path, sample.target.shape, target);
        !status.ok())
      return status;
  }
  return Status();
}

} // namespace memopt::rt
