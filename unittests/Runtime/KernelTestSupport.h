//===- KernelTestSupport.h - Shared checks of the kernel tests ---*- C++ -*-===//

#ifndef MEMOPT_UNITTESTS_RUNTIME_KERNELTESTSUPPORT_H
#define MEMOPT_UNITTESTS_RUNTIME_KERNELTESTSUPPORT_H

#include <algorithm>
#include <cmath>
#include <vector>

namespace memopt::rt::test_support {

/// The largest difference between `got` and `want`, in units of the
/// largest |want|.
inline double relativeError(const std::vector<float> &got,
                           const std::vector<float> &want) {
  double worst = 0, scale = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    worst = std::max(worst, double(std::fabs(got[i] - want[i])));
    scale = std::max(scale, double(std::fabs(want[i])));
  }
  return scale == 0 ? worst : worst / scale;
}

} // namespace memopt::rt::test_support

#endif // MEMOPT_UNITTESTS_RUNTIME_KERNELTESTSUPPORT_H
