//===- Conv.cpp - Convolutions through oneDNN ------------------------------===//
//
// tg.conv, its data and filter gradients, tg.conv_transpose and its
// filter gradient, on oneDNN's C API (the runtime is built without
// exceptions; the C++ API throws), of 1 to 3 spatial axes. The caller's
// tensors use plain layouts (ncw, nchw, ncdhw; oihw / goihw weights for
// convolutions, iohw / giohw for transposed ones, which is PyTorch's
// C x O/groups x kH x kW, and their 1-D and 3-D forms). The primitives are
// created with "any" layouts, so that oneDNN picks its fastest
// implementation, usually on channel-blocked layouts (nChw16c with AVX-512):
// the operands are reordered into blocked copies in the workspace, the
// result back out of one. This is what PyTorch's oneDNN path does too; on
// plain layouts oneDNN falls back to im2col + sgemm, which is 2-3x slower
// on the U-Nets' large feature maps.
//
// A primitive is created on the first call with a configuration and cached
// with its memory objects and reorders; later calls only swap data
// handles. Scratchpads are user-managed: the workspace that the
// ...WorkspaceBytes query reports holds the scratchpad and the blocked
// copies.
//
//===----------------------------------------------------------------------===//

#include "memopt/Runtime/CPU/ConvWorkspace.h"
#include "memopt/Runtime/Kernels.h"
#include "memopt/Runtime/StepSupport.h"

#include "Common.h"
#include "ConvBands.h"
#include "LowPrecision.h"
#include "OneDnn.h"
#include "SingleOutputConv.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <array>
#include <atomic>
#include <map>
#include <mutex>

namespace memopt::rt {
using namespace detail;

namespace {

enum class ConvKind : int64_t {
  Forward,
  BackwardData,
  BackwardFilter,
  TransposedForward,
  TransposedBackwardFilter
};

const char *kernelName(ConvKind kind) {
  switch (kind) {
  case ConvKind::Forward:
    return "conv";
  case ConvKind::BackwardData:
    return "conv_backward_data";
  case ConvKind::BackwardFilter:
    return "conv_backward_filter";
  case ConvKind::TransposedForward:
    return "conv_transpose";
  case ConvKind::TransposedBackwardFilter:
    return "conv_transpose_backward_filter";
  }
  return "conv";
}

bool isTransposed(ConvKind kind) {
  return kind == ConvKind::TransposedForward ||
         kind == ConvKind::TransposedBackwardFilter;
}

/// Everything that determines a primitive. `src` and `dst` are the input
/// and output of the forward op (convolution or transposed convolution),
/// whichever direction the kernel computes; `weight` gives the window size.
struct ConvConfig {
  ConvKind kind;
  Dims src, weight, dst;
  bool hasBias;
  Dims strides, dilations;
  Dims pads;
  Dims outputPadding;
  int64_t groups;
  /// The element type of every tensor (bias included): f32, or bf16/f16
  /// for mixed precision (tg-amp), accumulated in f32 by oneDNN.
  dnnl_data_type_t dataType = dnnl_f32;

  /// The configuration as a flat array (no allocation: a cache lookup sits
  /// on the hot path).
  /// Every list at its largest (rank 5, 3 spatial axes), zero-filled: the
  /// rank is in the key.
  using Key = std::array<int64_t, 5 + 3 * 5 + 3 * 3 + 6>;
  Key key() const {
    Key k{};
    size_t n = 0;
    for (int64_t v : {static_cast<int64_t>(kind), int64_t(hasBias), groups,
                      static_cast<int64_t>(dataType), int64_t(src.size)})
      k[n++] = v;
    auto append = [&](const Dims &list, int capacity) {
      for (int i = 0; i < capacity; ++i)
        k[n++] = i < list.size ? list[i] : 0;
    };
    for (const Dims *d : {&src, &weight, &dst})
      append(*d, 5);
    for (const Dims *d : {&strides, &dilations, &outputPadding})
      append(*d, 3);
    append(pads, 6);
    return k;
  }

  int spatialAxes() const { return src.size - 2; }
};

/// One tensor argument of a convolution: the caller's plain memory and,
/// where the primitive computes in another (blocked) layout, its copy in the
/// workspace and the reorder between the two.
struct Operand {
  int arg = 0;
  bool isResult = false;
  dnnl_memory_t user = nullptr;
  /// Null when the primitive uses the caller's layout.
  dnnl_memory_t inner = nullptr;
  /// plain -> inner for an operand, inner -> plain for a result.
  dnnl_primitive_t reorder = nullptr;
  /// Where `inner` lives in the workspace, and its size.
  size_t offset = 0, innerBytes = 0;
};

/// A cached primitive with its arguments in the order of the kernel's
/// Kernels.h signature (operands, then results). The workspace holds the
/// scratchpad (shared by the convolution and its reorders, which run one
/// after another) at offset 0, then the blocked copies.
struct ConvPrimitive {
  /// False when oneDNN has no implementation for the configuration's
  /// low-precision type on this CPU (f16 in oneDNN 2.6, bf16 without
  /// AVX-512): then nothing else is set.
  bool implemented = true;
  dnnl_primitive_t primitive = nullptr;
  Operand operands[4];
  int count = 0;
  dnnl_memory_t scratchpad = nullptr;
  size_t workspaceBytes = 0;
};

/// The memory descriptors of a configuration's tensors.
struct TensorDescs {
  dnnl_memory_desc_t src, weights, bias, dst;
};

/// The caller's plain layouts (`blocked` = false), or "any" layout for the
/// activations and weights, so that oneDNN picks the layouts of its fastest
/// implementation (`blocked` = true). The bias stays plain: it is small.
/// The plain layouts of a convolution's tensors of rank `rank` (3 to 5):
/// activations N x C x spatial; weights O x I x spatial (I x O x spatial
/// for a transposed convolution), with a leading group axis when grouped.
struct PlainTags {
  dnnl_format_tag_t activations, weights;
};

PlainTags plainTags(int rank, bool transposed, bool grouped) {
  // Per rank: oiw, oihw, oidhw; iow, iohw, iodhw; and with groups.
  static constexpr dnnl_format_tag_t weights[2][2][3] = {
      {{dnnl_abc, dnnl_abcd, dnnl_abcde}, {dnnl_bac, dnnl_bacd, dnnl_bacde}},
      {{dnnl_abcd, dnnl_abcde, dnnl_abcdef},
       {dnnl_acbd, dnnl_acbde, dnnl_acbdef}}};
  int r = rank - 3;
  return {plainTag(rank), weights[grouped][transposed][r]};
}

/// The caller's plain layouts (`blocked` = false), or "any" layout for the
/// activations and weights, so that oneDNN picks the layouts of its fastest
/// implementation (`blocked` = true). The bias stays plain: it is small.
TensorDescs tensorDescs(const ConvConfig &c, bool blocked) {
  const char *kernel = kernelName(c.kind);
  int64_t g = c.groups;
  PlainTags plain = plainTags(c.src.size, isTransposed(c.kind), g != 1);
  auto tag = [&](dnnl_format_tag_t layout) {
    return blocked ? dnnl_format_tag_any : layout;
  };
  TensorDescs d;
  d.src = memoryDesc(kernel, c.src, tag(plain.activations), c.dataType);
  d.dst = memoryDesc(kernel, c.dst, tag(plain.activations), c.dataType);
  // oneDNN's logical weight dims are (G,) O, I, spatial for both
  // directions.
  int64_t outChannels = c.dst[1], inChannels = c.src[1];
  Dims weights = g == 1 ? Dims{outChannels, inChannels}
                        : Dims{g, outChannels / g, inChannels / g};
  for (int i = 2; i < c.weight.size; ++i)
    weights[weights.size++] = c.weight[i];
  d.weights = memoryDesc(kernel, weights, tag(plain.weights), c.dataType);
  d.bias = memoryDesc(kernel, {outChannels}, dnnl_x, c.dataType);
  return d;
}

/// Weights this many times larger than the activations (input + output)
/// make the plain layouts faster.
constexpr int64_t kPlainWeightRatio = 8;

/// Whether the primitive works on the layouts oneDNN picks (blocked copies,
/// reorders) rather than on the caller's plain ones. The weights are
/// reordered for the forward and the data gradient and their gradient back,
/// every step: where they are much larger than the activations (the 8x8
/// layers of a ResNet-34 encoder at 256x256: 36x), that costs more than the
/// blocked kernel saves over im2col + sgemm, which needs no reorder
/// (measured with bench/kernel_profile.py: 2x faster there; at 4-7x the two
/// are even). The choice depends on the shapes only.
bool prefersBlockedLayouts(const ConvConfig &c) {
  return c.weight.product() <=
         kPlainWeightRatio * (c.src.product() + c.dst.product());
}

/// The op descriptor of a convolution or a deconvolution.
struct OpDesc {
  dnnl_convolution_desc_t conv;
  dnnl_deconvolution_desc_t deconv;
  const void *get(bool transposed) const {
    return transposed ? static_cast<const void *>(&deconv)
                      : static_cast<const void *>(&conv);
  }
};

/// The descriptor of the primitive for `c` on tensors `d`; with
/// `forwardOnly`, that of the forward op that a backward primitive takes as
/// a hint.
OpDesc makeDesc(const ConvConfig &c, const TensorDescs &d, bool forwardOnly) {
  const char *kernel = kernelName(c.kind);
  const dnnl_memory_desc_t *biasPtr =
      c.hasBias && !forwardOnly ? &d.bias : nullptr;
  // The output padding of a transposed convolution extends the end of
  // every spatial axis of its output: for oneDNN's consistency check it is
  // negative padding on that side.
  dnnl_dims_t strides, dilations, padL, padR;
  int axes = c.spatialAxes();
  for (int i = 0; i < axes; ++i) {
    strides[i] = c.strides[i];
    dilations[i] = c.dilations[i] - 1;
    padL[i] = c.pads[i];
    padR[i] = c.pads[axes + i] - c.outputPadding[i];
  }

  OpDesc desc;
  if (!isTransposed(c.kind)) {
    if (forwardOnly || c.kind == ConvKind::Forward)
      check(dnnl_dilated_convolution_forward_desc_init(
                &desc.conv, dnnl_forward_training, dnnl_convolution_direct,
                &d.src, &d.weights, biasPtr, &d.dst, strides, dilations, padL,
                padR),
            kernel, "convolution_forward_desc_init");
    else if (c.kind == ConvKind::BackwardData)
      check(dnnl_dilated_convolution_backward_data_desc_init(
                &desc.conv, dnnl_convolution_direct, &d.src, &d.weights,
                &d.dst, strides, dilations, padL, padR),
            kernel, "convolution_backward_data_desc_init");
    else
      check(dnnl_dilated_convolution_backward_weights_desc_init(
                &desc.conv, dnnl_convolution_direct, &d.src, &d.weights,
                nullptr, &d.dst, strides, dilations, padL, padR),
            kernel, "convolution_backward_weights_desc_init");
  } else {
    if (forwardOnly || c.kind == ConvKind::TransposedForward)
      check(dnnl_dilated_deconvolution_forward_desc_init(
                &desc.deconv, dnnl_forward_training, dnnl_deconvolution_direct,
                &d.src, &d.weights, biasPtr, &d.dst, strides, dilations, padL,
                padR),
            kernel, "deconvolution_forward_desc_init");
    else
      check(dnnl_dilated_deconvolution_backward_weights_desc_init(
                &desc.deconv, dnnl_deconvolution_direct, &d.src, &d.weights,
                nullptr, &d.dst, strides, dilations, padL, padR),
            kernel, "deconvolution_backward_weights_desc_init");
  }
  return desc;
}

/// Sets up `op` for the primitive's layout `inner` of an argument whose
/// caller layout is `user`; returns the reorder's scratchpad size.
size_t bindOperand(const char *kernel, Operand &op,
                   const dnnl_memory_desc_t &user,
                   const dnnl_memory_desc_t &inner,
                   const_dnnl_primitive_attr_t attr) {
  op.user = createMemory(kernel, user);
  if (dnnl_memory_desc_equal(&user, &inner))
    return 0;
  op.inner = createMemory(kernel, inner);
  op.innerBytes = dnnl_memory_desc_get_size(&inner);
  size_t bytes = 0;
  op.reorder = op.isResult ? createReorder(kernel, inner, user, attr, bytes)
                           : createReorder(kernel, user, inner, attr, bytes);
  return bytes;
}

ConvPrimitive create(const ConvConfig &c) {
  const char *kernel = kernelName(c.kind);
  bool transposed = isTransposed(c.kind);
  bool forward =
      c.kind == ConvKind::Forward || c.kind == ConvKind::TransposedForward;
  dnnl_primitive_attr_t attr = userScratchpadAttr(kernel);
  TensorDescs blocked = tensorDescs(c, prefersBlockedLayouts(c));

  // A backward primitive takes the forward one as a hint; both get "any"
  // layouts, so that they agree, as in a framework's training step.
  // A low-precision type that oneDNN does not implement on this CPU is
  // not an error: the caller converts to f32 (workspaceBytes()).
  auto created = [&](dnnl_status_t status, const char *call) {
    if (status == dnnl_unimplemented && c.dataType != dnnl_f32)
      return false;
    check(status, kernel, call);
    return true;
  };
  ConvPrimitive p;
  dnnl_primitive_desc_t hint = nullptr;
  if (!forward) {
    OpDesc hintDesc = makeDesc(c, blocked, /*forwardOnly=*/true);
    p.implemented = created(
        dnnl_primitive_desc_create(&hint, hintDesc.get(transposed), nullptr,
                                   engine(kernel), nullptr),
        "primitive_desc_create (forward hint)");
  }
  dnnl_primitive_desc_t pd = nullptr;
  if (p.implemented) {
    OpDesc desc = makeDesc(c, blocked, /*forwardOnly=*/false);
    p.implemented =
        created(dnnl_primitive_desc_create(&pd, desc.get(transposed), attr,
                                           engine(kernel), hint),
                "primitive_desc_create");
  }
  if (hint)
    check(dnnl_primitive_desc_destroy(hint), kernel, "primitive_desc_destroy");
  if (!p.implemented) {
    check(dnnl_primitive_attr_destroy(attr), kernel, "primitive_attr_destroy");
    return p;
  }
  check(dnnl_primitive_create(&p.primitive, pd), kernel, "primitive_create");

  // Arguments in the order of the Kernels.h signature, with the caller's
  // layout of each.
  TensorDescs plain = tensorDescs(c, /*blocked=*/false);
  struct Arg {
    int arg;
    dnnl_query_t query;
    const dnnl_memory_desc_t *user;
  };
  Arg args[4];
  int count = 0;
  switch (c.kind) {
  case ConvKind::Forward:
  case ConvKind::TransposedForward:
    args[count++] = {DNNL_ARG_SRC, dnnl_query_src_md, &plain.src};
    args[count++] = {DNNL_ARG_WEIGHTS, dnnl_query_weights_md, &plain.weights};
    if (c.hasBias)
      args[count++] = {DNNL_ARG_BIAS, dnnl_query_weights_md, &plain.bias};
    args[count++] = {DNNL_ARG_DST, dnnl_query_dst_md, &plain.dst};
    break;
  case ConvKind::BackwardData:
    args[count++] = {DNNL_ARG_DIFF_DST, dnnl_query_diff_dst_md, &plain.dst};
    args[count++] = {DNNL_ARG_WEIGHTS, dnnl_query_weights_md, &plain.weights};
    args[count++] = {DNNL_ARG_DIFF_SRC, dnnl_query_diff_src_md, &plain.src};
    break;
  case ConvKind::BackwardFilter:
  case ConvKind::TransposedBackwardFilter:
    args[count++] = {DNNL_ARG_DIFF_DST, dnnl_query_diff_dst_md, &plain.dst};
    args[count++] = {DNNL_ARG_SRC, dnnl_query_src_md, &plain.src};
    args[count++] = {DNNL_ARG_DIFF_WEIGHTS, dnnl_query_diff_weights_md,
                     &plain.weights};
    break;
  }
  size_t scratch = scratchpadBytes(pd);
  for (int i = 0; i < count; ++i) {
    const Arg &a = args[i];
    // The bias is the second weights descriptor.
    int index = a.arg == DNNL_ARG_BIAS ? 1 : 0;
    const dnnl_memory_desc_t *md =
        dnnl_primitive_desc_query_md(pd, a.query, index);
    require(md != nullptr, kernel,
            "oneDNN reports no descriptor for an argument");
    Operand &op = p.operands[p.count++];
    op.arg = a.arg;
    op.isResult = i == count - 1;
    scratch = std::max(scratch, bindOperand(kernel, op, *a.user, *md, attr));
  }
  p.workspaceBytes = alignUp(scratch);
  for (int i = 0; i < p.count; ++i) {
    Operand &op = p.operands[i];
    if (!op.inner)
      continue;
    op.offset = p.workspaceBytes;
    p.workspaceBytes += alignUp(op.innerBytes);
  }
  if (scratch) {
    dnnl_memory_desc_t md;
    dnnl_dims_t dims = {static_cast<dnnl_dim_t>(scratch)};
    check(dnnl_memory_desc_init_by_tag(&md, 1, dims, dnnl_u8, dnnl_x), kernel,
          "memory_desc_init_by_tag (scratchpad)");
    check(dnnl_memory_create(&p.scratchpad, &md, engine(kernel),
                             DNNL_MEMORY_NONE),
          kernel, "memory_create (scratchpad)");
  }
  check(dnnl_primitive_desc_destroy(pd), kernel, "primitive_desc_destroy");
  check(dnnl_primitive_attr_destroy(attr), kernel, "primitive_attr_destroy");
  return p;
}

/// The cached primitive of `config`. Primitives live until the process ends.
ConvPrimitive &primitive(const ConvConfig &config) {
  static std::mutex mutex;
  static std::map<ConvConfig::Key, ConvPrimitive> cache;
  std::lock_guard<std::mutex> lock(mutex);
  ConvConfig::Key key = config.key();
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, create(config)).first;
  return it->second;
}

dnnl_data_type_t dnnlType(ElementType type) {
  switch (type) {
  case ElementType::BF16:
    return dnnl_bf16;
  case ElementType::F16:
    return dnnl_f16;
  case ElementType::F32:
  case ElementType::I64:
    break;
  }
  return dnnl_f32;
}

/// The workspace of `c` in `type`. Where oneDNN implements the type, its
/// primitive's (blocked copies and scratchpad in that type). Otherwise the
/// kernel converts: its tensors are copied to f32 in the workspace, after
/// the f32 primitive's own workspace, and the f32 result converted back.
size_t workspaceBytes(ConvConfig c, ElementType type) {
  require(type != ElementType::I64, kernelName(c.kind),
          "convolutions take float tensors (f32, bf16 or f16), not i64");
  c.dataType = dnnlType(type);
  ConvPrimitive &p = primitive(c);
  if (p.implemented)
    return p.workspaceBytes;
  c.dataType = dnnl_f32;
  size_t bytes = alignUp(primitive(c).workspaceBytes);
  int64_t copies[] = {c.src.product(), c.weight.product(), c.dst.product(),
                      c.hasBias ? c.dst[1] : 0};
  for (int64_t elements : copies)
    bytes += alignUp(static_cast<size_t>(elements) * sizeof(float));
  return bytes;
}

void execute(const ConvConfig &config, std::initializer_list<const void *> data,
             void *workspace) {
  const char *kernel = kernelName(config.kind);
  ConvPrimitive &p = primitive(config);
  require(static_cast<int>(data.size()) == p.count, kernel,
          "argument count mismatch");
  require(p.workspaceBytes == 0 || workspace != nullptr, kernel,
          "a workspace is required (see the ...WorkspaceBytes query)");
  char *bytes = static_cast<char *>(workspace);
  dnnl_exec_arg_t args[5];
  int n = 0;
  for (const void *handle : data) {
    Operand &op = p.operands[n];
    check(dnnl_memory_set_data_handle(op.user, const_cast<void *>(handle)),
          kernel, "memory_set_data_handle");
    if (op.inner)
      check(dnnl_memory_set_data_handle(op.inner, bytes + op.offset), kernel,
            "memory_set_data_handle (blocked copy)");
    args[n] = {op.arg, op.inner ? op.inner : op.user};
    ++n;
  }
  if (p.scratchpad) {
    check(dnnl_memory_set_data_handle(p.scratchpad, workspace), kernel,
          "memory_set_data_handle (scratchpad)");
    args[n++] = {DNNL_ARG_SCRATCHPAD, p.scratchpad};
  }
  for (int i = 0; i < p.count - 1; ++i) {
    const Operand &op = p.operands[i];
    if (op.reorder)
      reorder(kernel, op.reorder, op.user, op.inner, p.scratchpad);
  }
  check(dnnl_primitive_execute(p.primitive, stream(kernel), n, args), kernel,
        "primitive_execute");
  const Operand &result = p.operands[p.count - 1];
  if (result.reorder)
    reorder(kernel, result.reorder, result.inner, result.user, p.scratchpad);
  check(dnnl_stream_wait(stream(kernel)), kernel, "stream_wait");
}

/// Which kinds of low-precision convolution ran (the run report says).
std::atomic<bool> ranNative{false}, ranConverted{false};

/// The tensors of a convolution in the order of its Kernels.h signature,
/// the last one its result, by the forward op's role.
enum class Role { Src, Weight, Bias, Dst };

int roles(ConvKind kind, bool hasBias, Role out[4]) {
  int n = 0;
  switch (kind) {
  case ConvKind::Forward:
  case ConvKind::TransposedForward:
    out[n++] = Role::Src;
    out[n++] = Role::Weight;
    if (hasBias)
      out[n++] = Role::Bias;
    out[n++] = Role::Dst;
    break;
  case ConvKind::BackwardData:
    out[n++] = Role::Dst;
    out[n++] = Role::Weight;
    out[n++] = Role::Src;
    break;
  case ConvKind::BackwardFilter:
  case ConvKind::TransposedBackwardFilter:
    out[n++] = Role::Dst;
    out[n++] = Role::Src;
    out[n++] = Role::Weight;
    break;
  }
  return n;
}

/// The plan sized the workspace with the compiler's oneDNN; this machine's
/// (another ISA) may want more. Stops before writing past it.
void checkPlannedWorkspace(const char *kernel, size_t needed) {
  size_t planned = std::exchange(plannedWorkspaceBytes(), SIZE_MAX);
  if (needed > planned) {
    std::fprintf(stderr,
                 "memopt runtime: %s: oneDNN on this CPU needs a %zu-byte "
                 "workspace but the plan reserved %zu bytes: recompile the "
                 "model on this machine, or run with DNNL_MAX_CPU_ISA set to "
                 "the compiling machine's instruction set\n",
                 kernel, needed, planned);
    std::exit(1);
  }
}

/// Runs `config` on `tensors` (the kernel's, in its signature's order, all
/// of element type `type`). In f32, and in bf16/f16 where oneDNN implements
/// the type (bf16 with f32 accumulation on AVX-512), the primitive reads
/// the tensors directly. Otherwise (f16 in oneDNN 2.6) the operands are
/// converted to f32 copies in the workspace (after the f32 primitive's own
/// workspace, in the order src, weight, dst, bias, as workspaceBytes()
/// sized them), the f32 primitive computes into the result's copy, and that
/// is converted back.
void run(ConvConfig config, ElementType type,
         std::initializer_list<TensorView<const float>> tensors,
         void *workspace) {
  const char *kernel = kernelName(config.kind);
  for (const auto &t : tensors)
    requireType(kernel, "every tensor", t.type, type);
  checkPlannedWorkspace(kernel, workspaceBytes(config, type));
  config.dataType = dnnlType(type);
  if (type == ElementType::F32 || primitive(config).implemented) {
    if (type != ElementType::F32)
      ranNative = true;
    const void *data[4];
    int n = 0;
    for (const auto &t : tensors)
      data[n++] = t.data;
    switch (n) {
    case 3:
      return execute(config, {data[0], data[1], data[2]}, workspace);
    case 4:
      return execute(config, {data[0], data[1], data[2], data[3]},
                     workspace);
    }
    fatal(kernel, "a convolution takes 3 or 4 tensors");
  }
  ranConverted = true;
  config.dataType = dnnl_f32;
  char *bytes = static_cast<char *>(workspace);
  size_t offset = alignUp(primitive(config).workspaceBytes);
  size_t offsets[4];
  int64_t elements[4] = {config.src.product(), config.weight.product(),
                         config.hasBias ? config.dst[1] : 0,
                         config.dst.product()};
  for (Role role : {Role::Src, Role::Weight, Role::Dst, Role::Bias}) {
    int r = static_cast<int>(role);
    offsets[r] = offset;
    offset += alignUp(static_cast<size_t>(elements[r]) * sizeof(float));
  }
  Role order[4];
  int n = roles(config.kind, config.hasBias, order);
  require(n == static_cast<int>(tensors.size()), kernel,
          "argument count mismatch");
  const void *copies[4];
  int i = 0;
  for (const auto &t : tensors) {
    int r = static_cast<int>(order[i]);
    copies[i] = bytes + offsets[r];
    if (i + 1 < n)
      convertElements(t.data, type, bytes + offsets[r], ElementType::F32,
                      elements[r]);
    ++i;
  }
  if (n == 3)
    execute(config, {copies[0], copies[1], copies[2]}, workspace);
  else
    execute(config, {copies[0], copies[1], copies[2], copies[3]}, workspace);
  const auto &result = *(tensors.begin() + (n - 1));
  convertElements(copies[n - 1], ElementType::F32,
                  const_cast<float *>(result.data), type,
                  elements[static_cast<int>(order[n - 1])]);
}

//===----------------------------------------------------------------------===//
// Shape checks
//===----------------------------------------------------------------------===//

void checkWindowAttrs(const char *kernel, const Dims &input,
                      const Dims &weight, const Dims &strides,
                      const Dims &pads, const Dims &dilations,
                      int64_t groups) {
  requireSpatialRank(kernel, input);
  requireRank(kernel, "weight", weight, input.size);
  int axes = input.size - 2;
  require(strides.size == axes && dilations.size == axes &&
              pads.size == 2 * axes,
          kernel, "strides and dilations need one value per spatial axis, "
                  "pads two");
  for (int i = 0; i < axes; ++i) {
    require(strides[i] >= 1, kernel, "strides must be >= 1");
    require(dilations[i] >= 1, kernel, "dilations must be >= 1");
  }
  for (int64_t p : pads)
    require(p >= 0, kernel, "pads must be >= 0");
  require(groups >= 1, kernel, "groups must be >= 1");
}

/// The output shape of tg.conv for `input` and `weight`.
Dims convOutputShape(const char *kernel, const Dims &input, const Dims &weight,
                     const Dims &strides, const Dims &pads,
                     const Dims &dilations, int64_t groups) {
  checkWindowAttrs(kernel, input, weight, strides, pads, dilations, groups);
  require(input[1] % groups == 0 && weight[0] % groups == 0 &&
              weight[1] * groups == input[1],
          kernel, "channels do not match the weight and groups");
  int axes = input.size - 2;
  Dims out = {input[0], weight[0]};
  for (int i = 0; i < axes; ++i) {
    int64_t span = dilations[i] * (weight[2 + i] - 1) + 1;
    int64_t padded = input[2 + i] + pads[i] + pads[axes + i];
    require(padded >= span, kernel, "the window does not fit in the input");
    out[out.size++] = (padded - span) / strides[i] + 1;
  }
  return out;
}

/// The output shape of tg.conv_transpose for `input` and `weight`.
Dims convTransposeOutputShape(const char *kernel, const Dims &input,
                              const Dims &weight, const Dims &strides,
                              const Dims &pads, const Dims &dilations,
                              const Dims &outputPadding, int64_t groups) {
  checkWindowAttrs(kernel, input, weight, strides, pads, dilations, groups);
  require(weight[0] == input[1] && input[1] % groups == 0, kernel,
          "channels do not match the weight and groups");
  int axes = input.size - 2;
  require(outputPadding.size == axes, kernel,
          "output_padding needs one value per spatial axis");
  Dims out = {input[0], weight[1] * groups};
  for (int i = 0; i < axes; ++i) {
    require(outputPadding[i] >= 0 &&
                outputPadding[i] < std::max(strides[i], dilations[i]),
            kernel, "output_padding must be smaller than the stride or the "
                    "dilation");
    int64_t extent = (input[2 + i] - 1) * strides[i] - pads[i] -
                     pads[axes + i] + dilations[i] * (weight[2 + i] - 1) +
                     outputPadding[i] + 1;
    require(extent >= 1, kernel, "the output is empty");
    out[out.size++] = extent;
  }
  return out;
}

/// No output padding, for the convolutions that have none.
Dims noOutputPadding(const Dims &strides) {
  Dims zeros = strides;
  for (int i = 0; i < zeros.size; ++i)
    zeros[i] = 0;
  return zeros;
}

void checkBias(const char *kernel, bool hasBias, const Dims &bias,
               int64_t channels) {
  if (hasBias)
    requireShape(kernel, "bias", bias, Dims{channels});
}

ConvConfig forwardConfig(const Dims &input, const Dims &weight, bool hasBias,
                         const Dims &biasShape, const Dims &output, const Dims &strides,
                         const Dims &pads, const Dims &dilations, int64_t groups) {
  const char *kernel = "conv";
  requireShape(kernel, "output", output,
               convOutputShape(kernel, input, weight, strides, pads, dilations,
                               groups));
  checkBias(kernel, hasBias, biasShape, weight[0]);
  return {ConvKind::Forward, input, weight, output, hasBias,
          strides,           dilations, pads,  noOutputPadding(strides), groups};
}

ConvConfig backwardDataConfig(const Dims &gradOutput, const Dims &weight,
                              const Dims &gradInput, const Dims &strides, const Dims &pads,
                              const Dims &dilations, int64_t groups) {
  const char *kernel = "conv_backward_data";
  requireShape(kernel, "grad_output", gradOutput,
               convOutputShape(kernel, gradInput, weight, strides, pads,
                               dilations, groups));
  return {ConvKind::BackwardData, gradInput, weight, gradOutput, false,
          strides,                dilations, pads,   noOutputPadding(strides),   groups};
}

ConvConfig backwardFilterConfig(const Dims &gradOutput, const Dims &input,
                                const Dims &gradWeight, const Dims &strides, const Dims &pads,
                                const Dims &dilations, int64_t groups) {
  const char *kernel = "conv_backward_filter";
  requireShape(kernel, "grad_output", gradOutput,
               convOutputShape(kernel, input, gradWeight, strides, pads,
                               dilations, groups));
  return {ConvKind::BackwardFilter, input, gradWeight, gradOutput, false,
          strides,                  dilations, pads,   noOutputPadding(strides),   groups};
}

ConvConfig transposedConfig(ConvKind kind, const Dims &input,
                            const Dims &weight, bool hasBias,
                            const Dims &biasShape, const Dims &output,
                            const Dims &strides, const Dims &pads, const Dims &dilations,
                            const Dims &outputPadding, int64_t groups) {
  const char *kernel = kernelName(kind);
  requireShape(kernel, kind == ConvKind::TransposedForward ? "output"
                                                           : "grad_output",
               output,
               convTransposeOutputShape(kernel, input, weight, strides, pads,
                                        dilations, outputPadding, groups));
  checkBias(kernel, hasBias, biasShape, output[1]);
  return {kind,    input,     weight, output,        hasBias,
          strides, dilations, pads,   outputPadding, groups};
}

} // namespace

const char *detail::lowPrecisionConvolutions() {
  if (ranNative && ranConverted)
    return "onednn-native+convert-compute-convert";
  if (ranNative)
    return "onednn-native";
  if (ranConverted)
    return "convert-compute-convert";
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Public kernels
//===----------------------------------------------------------------------===//

size_t convWorkspaceBytes(const Dims &input, const Dims &weight, bool hasBias,
                            const Dims &output, const Dims &strides, const Dims &pads,
                            const Dims &dilations, int64_t groups, ElementType type) {
  if (isSingleOutputConv(weight, groups))
    return 0;
  return workspaceBytes(forwardConfig(input, weight, hasBias, Dims{weight[0]},
                                      output, strides, pads, dilations, groups),
                        type);
}

void conv(ConstTensor input, ConstTensor weight, ConstTensor bias,
            Tensor output, const Dims &strides, const Dims &pads, const Dims &dilations, int64_t groups,
            void *workspace) {
  ConvConfig config =
      forwardConfig(input.shape, weight.shape, bias.present(), bias.shape,
                    output.shape, strides, pads, dilations, groups);
  if (isSingleOutputConv(weight.shape, groups))
    return singleOutputConv(input, weight, bias, output, strides, pads,
                            dilations);
  if (bias.present())
    run(config, input.type, {input, weight, bias, output}, workspace);
  else
    run(config, input.type, {input, weight, output}, workspace);
}

size_t convBackwardDataWorkspaceBytes(const Dims &gradOutput,
                                        const Dims &weight,
                                        const Dims &gradInput, const Dims &strides,
                                        const Dims &pads, const Dims &dilations,
                                        int64_t groups, ElementType type) {
  if (isSingleOutputConv(weight, groups))
    return 0;
  return workspaceBytes(backwardDataConfig(gradOutput, weight, gradInput,
                                           strides, pads, dilations, groups),
                        type);
}

void convBackwardData(ConstTensor gradOutput, ConstTensor weight,
                        Tensor gradInput, const Dims &strides, const Dims &pads, const Dims &dilations,
                        int64_t groups, void *workspace) {
  if (isSingleOutputConv(weight.shape, groups)) {
    // Checks the shapes as the oneDNN path does.
    backwardDataConfig(gradOutput.shape, weight.shape, gradInput.shape,
                       strides, pads, dilations, groups);
    return singleOutputConvBackwardData(gradOutput, weight, gradInput,
                                        strides, pads, dilations);
  }
  run(backwardDataConfig(gradOutput.shape, weight.shape, gradInput.shape,
                         strides, pads, dilations, groups),
      gradOutput.type, {gradOutput, weight, gradInput}, workspace);
}

/// The default way to compute `p` (ConvBands.h): large low-precision
/// filter gradients run in bands of the outermost spatial axis, rows in
/// 2-D, slabs of planes in 3-D; the others whole.
static FilterGradientBands
defaultFilterGradient(const FilterGradientProblem &p) {
  size_t whole = workspaceBytes(
      backwardFilterConfig(p.gradOutput, p.input, p.gradWeight, p.strides,
                           p.pads, p.dilations, p.groups),
      p.type);
  return filterGradientBands(p, whole);
}

size_t convBackwardFilterWorkspaceBytes(const Dims &gradOutput,
                                          const Dims &input,
                                          const Dims &gradWeight, const Dims &strides,
                                          const Dims &pads, const Dims &dilations,
                                          int64_t groups, ElementType type) {
  if (isSingleOutputConv(gradWeight, groups))
    return 0;
  return defaultFilterGradient({gradOutput, input, gradWeight, strides, pads,
                                dilations, groups, type})
      .workspaceBytes;
}

size_t convBackwardFilterLeanWorkspaceBytes(
    const Dims &gradOutput, const Dims &input, const Dims &gradWeight,
    const Dims &strides, const Dims &pads, const Dims &dilations,
    int64_t groups, ElementType type) {
  if (isSingleOutputConv(gradWeight, groups))
    return 0;
  FilterGradientProblem problem{gradOutput, input,     gradWeight, strides,
                                pads,       dilations, groups,     type};
  return leanFilterGradientBands(
             problem, defaultFilterGradient(problem).workspaceBytes)
      .workspaceBytes;
}

void convBackwardFilter(ConstTensor gradOutput, ConstTensor input,
                          Tensor gradWeight, const Dims &strides, const Dims &pads,
                          const Dims &dilations, int64_t groups, void *workspace) {
  if (isSingleOutputConv(gradWeight.shape, groups)) {
    backwardFilterConfig(gradOutput.shape, input.shape, gradWeight.shape,
                         strides, pads, dilations, groups);
    return singleOutputConvBackwardFilter(gradOutput, input, gradWeight,
                                          strides, pads, dilations);
  }
  ConvConfig config =
      backwardFilterConfig(gradOutput.shape, input.shape, gradWeight.shape,
                           strides, pads, dilations, groups);
  FilterGradientProblem problem{gradOutput.shape, input.shape,
                                gradWeight.shape, strides,
                                pads,             dilations,
                                groups,           gradOutput.type};
  FilterGradientBands bands = defaultFilterGradient(problem);
  // A plan that gave the op less than its default workspace chose its lean
  // one (tg-remat under --workspaces=lean): the same pieces the planner's
  // query sized.
  if (plannedWorkspaceBytes() < bands.workspaceBytes)
    bands = leanFilterGradientBands(problem, bands.workspaceBytes);
  if (bands.count > 1) {
    checkPlannedWorkspace("conv_backward_filter", bands.workspaceBytes);
    if (gradOutput.type != ElementType::F32)
      (bands.converted ? ranConverted : ranNative) = true;
    return bandedFilterGradient(problem, bands, gradOutput, input,
                                gradWeight, workspace);
  }
  run(config, gradOutput.type, {gradOutput, input, gradWeight}, workspace);
}

size_t convTransposeWorkspaceBytes(const Dims &input, const Dims &weight,
                                     bool hasBias, const Dims &output,
                                     const Dims &strides, const Dims &pads, const Dims &dilations,
                                     const Dims &outputPadding, int64_t groups,
                                     ElementType type) {
  return workspaceBytes(transposedConfig(ConvKind::TransposedForward, input,
                                         weight, hasBias, Dims{output[1]},
                                         output, strides, pads, dilations,
                                         outputPadding, groups),
                        type);
}

void convTranspose(ConstTensor input, ConstTensor weight, ConstTensor bias,
                     Tensor output, const Dims &strides, const Dims &pads, const Dims &dilations,
                     const Dims &outputPadding, int64_t groups, void *workspace) {
  ConvConfig config = transposedConfig(
      ConvKind::TransposedForward, input.shape, weight.shape, bias.present(),
      bias.shape, output.shape, strides, pads, dilations, outputPadding,
      groups);
  if (bias.present())
    run(config, input.type, {input, weight, bias, output}, workspace);
  else
    run(config, input.type, {input, weight, output}, workspace);
}

size_t convTransposeBackwardFilterWorkspaceBytes(
    const Dims &gradOutput, const Dims &input, const Dims &gradWeight,
    const Dims &strides, const Dims &pads, const Dims &dilations, const Dims &outputPadding, int64_t groups,
    ElementType type) {
  return workspaceBytes(transposedConfig(ConvKind::TransposedBackwardFilter,
                                         input, gradWeight, false, Dims(),
                                         gradOutput, strides, pads, dilations,
                                         outputPadding, groups),
                        type);
}

void convTransposeBackwardFilter(ConstTensor gradOutput, ConstTensor input,
                                   Tensor gradWeight, const Dims &strides, const Dims &pads,
                                   const Dims &dilations, const Dims &outputPadding,
                                   int64_t groups, void *workspace) {
  run(transposedConfig(ConvKind::TransposedBackwardFilter, input.shape,
                       gradWeight.shape, false, Dims(), gradOutput.shape,
                       strides, pads, dilations, outputPadding, groups),
      gradOutput.type, {gradOutput, input, gradWeight}, workspace);
}

} // namespace memopt::rt
