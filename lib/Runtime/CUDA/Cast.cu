//===- Cast.cu - tg.cast between f32, bf16 and f16 on the GPU -------------===//
//
// The conversions of mixed precision (tg-amp) on device memory, with the
// CPU backend's semantics (lib/Runtime/CPU/Cast.cpp): f32 -> bf16/f16
// rounds to nearest even (CUDA's __float2bfloat16_rn / __float2half_rn),
// widening is exact, bf16 <-> f16 goes through f32 (exact, then rounded
// once). One element per thread iteration, no state: the same bits on
// every run.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/Kernels.h"

#include "KernelSupport.cuh"

namespace memopt::rt {
using namespace detail;
using cuda::checkLaunch;
using cuda::kLaunchThreads;
using cuda::launchBlocks;

namespace {

__global__ void convertKernel(cuda::Load in, cuda::Store out, int64_t n) {
  MEMOPT_GRID_LOOP(i, n) out.set(i, in[i]);
}

} // namespace

void convertElements(const void *input, ElementType from, void *output,
                     ElementType to, int64_t count) {
  const char *op = "cast";
  require(from != ElementType::I64 && to != ElementType::I64, op,
          "converts float tensors (f32, bf16, f16) only, not i64");
  if (count == 0)
    return;
  if (from == to) {
    if (input != output)
      MEMOPT_CUDA_CHECK(op, cudaMemcpyAsync(output, input,
                                            count * elementBytes(to),
                                            cudaMemcpyDeviceToDevice,
                                            cuda::stream()));
    return;
  }
  convertKernel<<<launchBlocks(count), kLaunchThreads, 0, cuda::stream()>>>(
      cuda::Load{input, from}, cuda::Store{output, to}, count);
  checkLaunch(op);
}

void cast(ConstTensor input, Tensor output) {
  checkCast(input, output);
  convertElements(input.data, input.type, output.data, output.type,
                  input.numel());
}

} // namespace memopt::rt
