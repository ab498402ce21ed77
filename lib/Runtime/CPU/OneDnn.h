//===- OneDnn.h - The oneDNN engine, stream and checks of the runtime -*- C++ -*-===//
//
// The convolutions (Conv.cpp) and their row-banded filter gradients
// (ConvBands.cpp) share one CPU engine and one stream, and report a failed
// oneDNN call the same way. oneDNN is used through its C API: the runtime
// is built without exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_LIB_RUNTIME_CPU_ONEDNN_H
#define MEMOPT_LIB_RUNTIME_CPU_ONEDNN_H

#include "memopt/Runtime/Tensor.h"

#include <oneapi/dnnl/dnnl.h>

#include <cstddef>
#include <cstdint>

namespace memopt::rt::detail {

/// Aborts through `fatal` with the kernel's name unless `status` is success.
void check(dnnl_status_t status, const char *kernel, const char *call);

/// The process's CPU engine and its stream, created on first use.
dnnl_engine_t engine(const char *kernel);
dnnl_stream_t stream(const char *kernel);

/// The scratchpad a primitive created with a user-managed scratchpad needs.
size_t scratchpadBytes(const_dnnl_primitive_desc_t pd);

/// An attribute that makes a primitive take its scratchpad from the caller
/// (the workspace); the caller destroys it.
dnnl_primitive_attr_t userScratchpadAttr(const char *kernel);

/// `bytes` rounded up to a 64-byte cache line: where the workspace's parts
/// start.
inline size_t alignUp(size_t bytes) { return (bytes + 63) / 64 * 64; }

/// The plain (row-major) layout of a tensor of rank 1 to 6: dnnl_a to
/// dnnl_abcdef.
dnnl_format_tag_t plainTag(int rank);

/// The descriptor of a tensor of `dims` in layout `tag`.
dnnl_memory_desc_t memoryDesc(const char *kernel, const Dims &dims,
                              dnnl_format_tag_t tag, dnnl_data_type_t type);

/// A memory object of `md` without data: the caller sets its handle.
dnnl_memory_t createMemory(const char *kernel, const dnnl_memory_desc_t &md);

/// A reorder from `from` to `to` with `attr`; returns it and the bytes of
/// its scratchpad in `scratchpad`.
dnnl_primitive_t createReorder(const char *kernel,
                               const dnnl_memory_desc_t &from,
                               const dnnl_memory_desc_t &to,
                               const_dnnl_primitive_attr_t attr,
                               size_t &scratchpad);

/// Runs a reorder primitive from `from` to `to`.
void reorder(const char *kernel, dnnl_primitive_t primitive,
             dnnl_memory_t from, dnnl_memory_t to, dnnl_memory_t scratchpad);

} // namespace memopt::rt::detail

#endif // MEMOPT_LIB_RUNTIME_CPU_ONEDNN_H
