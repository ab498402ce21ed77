//===- OneDnn.cpp - The oneDNN engine, stream and checks of the runtime ---===//

#include "OneDnn.h"

#include "Common.h"

#include <string>

namespace memopt::rt::detail {

void check(dnnl_status_t status, const char *kernel, const char *call) {
  if (status != dnnl_success)
    fatal(kernel, std::string("oneDNN ") + call + " failed with status " +
                      std::to_string(static_cast<int>(status)));
}

dnnl_engine_t engine(const char *kernel) {
  static dnnl_engine_t instance = [&] {
    dnnl_engine_t e = nullptr;
    check(dnnl_engine_create(&e, dnnl_cpu, 0), kernel, "engine_create");
    return e;
  }();
  return instance;
}

dnnl_stream_t stream(const char *kernel) {
  static dnnl_stream_t instance = [&] {
    dnnl_stream_t s = nullptr;
    check(dnnl_stream_create(&s, engine(kernel), dnnl_stream_default_flags),
          kernel, "stream_create");
    return s;
  }();
  return instance;
}

size_t scratchpadBytes(const_dnnl_primitive_desc_t pd) {
  const dnnl_memory_desc_t *md =
      dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0);
  return md ? dnnl_memory_desc_get_size(md) : 0;
}

dnnl_primitive_attr_t userScratchpadAttr(const char *kernel) {
  dnnl_primitive_attr_t attr = nullptr;
  check(dnnl_primitive_attr_create(&attr), kernel, "primitive_attr_create");
  check(dnnl_primitive_attr_set_scratchpad_mode(attr, dnnl_scratchpad_mode_user),
        kernel, "primitive_attr_set_scratchpad_mode");
  return attr;
}

dnnl_format_tag_t plainTag(int rank) {
  static constexpr dnnl_format_tag_t tags[] = {dnnl_a,    dnnl_ab,
                                               dnnl_abc,  dnnl_abcd,
                                               dnnl_abcde, dnnl_abcdef};
  return tags[rank - 1];
}

dnnl_memory_desc_t memoryDesc(const char *kernel, const Dims &dims,
                              dnnl_format_tag_t tag, dnnl_data_type_t type) {
  dnnl_memory_desc_t md;
  dnnl_dims_t d;
  for (int i = 0; i < dims.size; ++i)
    d[i] = dims[i];
  check(dnnl_memory_desc_init_by_tag(&md, dims.size, d, type, tag),
        kernel, "memory_desc_init_by_tag");
  return md;
}

dnnl_memory_t createMemory(const char *kernel, const dnnl_memory_desc_t &md) {
  dnnl_memory_t memory = nullptr;
  check(dnnl_memory_create(&memory, &md, engine(kernel), DNNL_MEMORY_NONE),
        kernel, "memory_create");
  return memory;
}

dnnl_primitive_t createReorder(const char *kernel,
                               const dnnl_memory_desc_t &from,
                               const dnnl_memory_desc_t &to,
                               const_dnnl_primitive_attr_t attr,
                               size_t &scratchpad) {
  dnnl_primitive_desc_t pd = nullptr;
  check(dnnl_reorder_primitive_desc_create(&pd, &from, engine(kernel), &to,
                                           engine(kernel), attr),
        kernel, "reorder_primitive_desc_create");
  dnnl_primitive_t reorder = nullptr;
  check(dnnl_primitive_create(&reorder, pd), kernel,
        "primitive_create (reorder)");
  scratchpad = scratchpadBytes(pd);
  check(dnnl_primitive_desc_destroy(pd), kernel, "primitive_desc_destroy");
  return reorder;
}

void reorder(const char *kernel, dnnl_primitive_t primitive,
             dnnl_memory_t from, dnnl_memory_t to, dnnl_memory_t scratchpad) {
  dnnl_exec_arg_t args[3] = {{DNNL_ARG_FROM, from},
                             {DNNL_ARG_TO, to},
                             {DNNL_ARG_SCRATCHPAD, scratchpad}};
  check(dnnl_primitive_execute(primitive, stream(kernel), scratchpad ? 3 : 2,
                               args),
        kernel, "primitive_execute (reorder)");
}

} // namespace memopt::rt::detail
