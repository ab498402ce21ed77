//===- HostDevice.h - Code shared by CPU and CUDA kernels -------*- C++ -*-===//
//
// MEMOPT_HOST_DEVICE marks functions that the CPU kernels call and the CUDA
// kernels call on the device: `__host__ __device__` under nvcc, nothing in
// plain C++. Public because Random.h, which the generated steps include,
// marks its per-element generator with it.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_HOSTDEVICE_H
#define MEMOPT_RUNTIME_HOSTDEVICE_H

#ifdef __CUDACC__
#define MEMOPT_HOST_DEVICE __host__ __device__
#else
#define MEMOPT_HOST_DEVICE
#endif

#endif // MEMOPT_RUNTIME_HOSTDEVICE_H
