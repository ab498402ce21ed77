//===- ConvBands.cpp - Filter gradients in bands of the outermost axis ----===//
//
// A "row" is one index of the outermost spatial axis: a position in 1-D,
// an image row in 2-D, a plane (slab of one voxel's depth) in 3-D. A band
// of output rows [r0, r1) of a convolution with stride s, dilation d,
// leading padding t and a K-row window along that axis reads the input
// rows [r0*s - t, (r1-1)*s - t + d*(K-1)]; the part outside the tensor is
// the band's own leading and trailing padding, the other spatial axes keep
// theirs. Each band is a convolution of its own (its primitive cached by
// its shapes: a first, a middle and a last band differ only in their
// padding and extent), whose operands are the band's rows of the caller's
// tensors as strided views (oneDNN reorders them into its blocked layout
// in the workspace), or f32 copies of those rows where the type has no
// oneDNN primitive. Each band's f32 gradient is added to
// the accumulator by a reorder with a sum post-op, one band after another:
// the result does not depend on the thread count beyond what oneDNN's own
// primitives do. A lean split may also cut the output channels into groups
// (a band then covers one group's channels of its rows): a group's
// gradient is its own slice of the result, its output gradient a strided
// view of the caller's. An f32 result is its own accumulator.
//
//===----------------------------------------------------------------------===//

#include "ConvBands.h"

#include "Common.h"
#include "LowPrecision.h"
#include "OneDnn.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <mutex>

namespace memopt::rt::detail {
namespace {

constexpr const char *kKernel = "conv_backward_filter";

/// A problem is banded only if its input has at least this many elements
/// per weight (measured on the ResNet-34 U-Net at 64x64: below it the
/// bands were slower than the whole problem and saved little).
constexpr int64_t kInputPerWeight = 16;

/// The most pieces a lean split makes, and the output channels a group
/// holds a multiple of (oneDNN's widest vector block of f32 channels).
constexpr int64_t kLeanPieces = 8, kChannelBlock = 16;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t roundUpTo(int64_t a, int64_t multiple) {
  return ceilDiv(a, multiple) * multiple;
}

/// The output rows of a band (indices of the outermost spatial axis) and
/// the input rows they read.
struct Band {
  int64_t outFirst = 0, outRows = 0;
  int64_t inFirst = 0, inRows = 0;
  int64_t padTop = 0, padBottom = 0;
  /// The output channels of the band's group.
  int64_t channelFirst = 0, channels = 0;
};

Band band(const FilterGradientProblem &p, int64_t first, int64_t end,
          int64_t channelFirst, int64_t channels) {
  int64_t stride = p.strides[0], span = p.dilations[0] * (p.gradWeight[2] - 1);
  int64_t low = first * stride - p.pads[0];
  int64_t high = (end - 1) * stride - p.pads[0] + span; // inclusive
  Band b;
  b.outFirst = first;
  b.outRows = end - first;
  b.inFirst = std::max<int64_t>(0, low);
  int64_t inLast = std::min<int64_t>(p.input[2] - 1, high);
  b.inRows = inLast - b.inFirst + 1;
  b.padTop = b.inFirst - low;
  b.padBottom = high - inLast;
  b.channelFirst = channelFirst;
  b.channels = channels;
  return b;
}

/// oneDNN's type for the caller's storage type.
dnnl_data_type_t dnnlStorageType(ElementType type) {
  switch (type) {
  case ElementType::BF16:
    return dnnl_bf16;
  case ElementType::F16:
    return dnnl_f16;
  default:
    return dnnl_f32;
  }
}

/// One operand of a band's primitive: the caller's rows (or their f32
/// copy) and, where oneDNN computes in another layout, its copy in the
/// workspace and the reorder to it.
struct Operand {
  dnnl_memory_t user = nullptr, inner = nullptr;
  dnnl_primitive_t reorder = nullptr;
  size_t offset = 0, innerBytes = 0;
};

/// The cached primitive of one band shape.
struct BandPrimitive {
  bool implemented = true;
  dnnl_primitive_t primitive = nullptr;
  Operand src, diffDst;
  /// The band's f32 gradient in oneDNN's layout (in the workspace) and the
  /// reorder that adds it to the accumulator (plain f32).
  dnnl_memory_t diffWeights = nullptr, accumulator = nullptr;
  dnnl_primitive_t accumulate = nullptr;
  size_t diffWeightsOffset = 0;
  dnnl_memory_t scratchpad = nullptr;
  /// The scratchpad (of the primitive and its reorders) and the copies
  /// after it, relative to the start of the copies.
  size_t scratchpadBytes = 0, innerBytes = 0;
};

/// The descriptor of a tensor of `dims` in `type` and layout `tag`.
dnnl_memory_desc_t desc(const Dims &dims, dnnl_data_type_t type,
                        dnnl_format_tag_t tag) {
  return memoryDesc(kKernel, dims, tag, type);
}

/// The elements of one row of an N x C x rows x ... tensor: the product of
/// the spatial extents after the outermost.
int64_t rowElements(const Dims &shape) {
  int64_t n = 1;
  for (int i = 3; i < shape.size; ++i)
    n *= shape[i];
  return n;
}

/// `shape` with `rows` rows (and `channels` channels, where not 0).
Dims withRows(Dims shape, int64_t rows, int64_t channels = 0) {
  shape[2] = rows;
  if (channels)
    shape[1] = channels;
  return shape;
}

/// `rows` rows of `channels` channels of an N x C x rows x ... tensor: a
/// strided view of the caller's tensor (`view`), or a contiguous copy.
dnnl_memory_desc_t rowsDesc(const Dims &shape, int64_t rows,
                            int64_t channels, dnnl_data_type_t type,
                            bool view) {
  Dims band = withRows(shape, rows, channels);
  if (!view)
    return desc(band, type, plainTag(band.size));
  dnnl_memory_desc_t md;
  dnnl_dims_t d, strides;
  Dims caller = contiguousStrides(shape);
  for (int i = 0; i < band.size; ++i) {
    d[i] = band[i];
    strides[i] = caller[i];
  }
  check(dnnl_memory_desc_init_by_strides(&md, band.size, d, type, strides),
        kKernel, "memory_desc_init_by_strides");
  return md;
}

/// The logical weights of oneDNN: (G,) O, I, then the window, of a band
/// of `channels` output channels (a group of them, or all).
dnnl_memory_desc_t weightsDesc(const FilterGradientProblem &p,
                               int64_t channels, dnnl_data_type_t type,
                               bool any) {
  const Dims &w = p.gradWeight;
  int64_t g = p.groups;
  Dims dims = g == 1 ? Dims{channels} : Dims{g, w[0] / g};
  for (int i = 1; i < w.size; ++i)
    dims[dims.size++] = w[i];
  return desc(dims, type, any ? dnnl_format_tag_any : plainTag(dims.size));
}

/// Sets up `op` for the primitive's layout `inner` of the caller's `user`;
/// returns the reorder's scratchpad bytes.
size_t bind(Operand &op, const dnnl_memory_desc_t &user,
            const dnnl_memory_desc_t &inner, const_dnnl_primitive_attr_t attr) {
  op.user = createMemory(kKernel, user);
  if (dnnl_memory_desc_equal(&user, &inner))
    return 0;
  op.inner = createMemory(kKernel, inner);
  op.innerBytes = dnnl_memory_desc_get_size(&inner);
  size_t bytes = 0;
  op.reorder = createReorder(kKernel, user, inner, attr, bytes);
  return bytes;
}

/// The reorder that adds oneDNN's f32 gradient `from` to the plain f32
/// accumulator `to`; returns its scratchpad bytes.
size_t bindAccumulate(BandPrimitive &p, const dnnl_memory_desc_t &from,
                      const dnnl_memory_desc_t &to) {
  dnnl_primitive_attr_t attr = userScratchpadAttr(kKernel);
  dnnl_post_ops_t sum = nullptr;
  check(dnnl_post_ops_create(&sum), kKernel, "post_ops_create");
  check(dnnl_post_ops_append_sum(sum, 1.0f), kKernel, "post_ops_append_sum");
  check(dnnl_primitive_attr_set_post_ops(attr, sum), kKernel,
        "primitive_attr_set_post_ops");
  check(dnnl_post_ops_destroy(sum), kKernel, "post_ops_destroy");
  p.diffWeights = createMemory(kKernel, from);
  p.accumulator = createMemory(kKernel, to);
  size_t bytes = 0;
  p.accumulate = createReorder(kKernel, from, to, attr, bytes);
  check(dnnl_primitive_attr_destroy(attr), kKernel, "primitive_attr_destroy");
  return bytes;
}

/// The primitive of band `b` of `p`, in `type` (the caller's type on its
/// rows, or f32 on their copies). Empty when oneDNN has no primitive for a
/// low type on this CPU: the caller then converts the band to f32.
BandPrimitive create(const FilterGradientProblem &p, const Band &b,
                     dnnl_data_type_t type) {
  bool view = type == dnnlStorageType(p.type);
  dnnl_memory_desc_t src = desc(withRows(p.input, b.inRows), type,
                                dnnl_format_tag_any),
                     diffDst = desc(withRows(p.gradOutput, b.outRows,
                                             b.channels),
                                    type, dnnl_format_tag_any),
                     weights = weightsDesc(p, b.channels, type, /*any=*/true),
                     diffWeights =
                         weightsDesc(p, b.channels, dnnl_f32, /*any=*/true);
  // The outermost axis takes the band's padding, the others their own.
  int axes = p.input.size - 2;
  dnnl_dims_t strides, dilations, padL, padR;
  for (int i = 0; i < axes; ++i) {
    strides[i] = p.strides[i];
    dilations[i] = p.dilations[i] - 1;
    padL[i] = i == 0 ? b.padTop : p.pads[i];
    padR[i] = i == 0 ? b.padBottom : p.pads[axes + i];
  }

  // The backward primitive takes a forward one as a hint, as in Conv.cpp.
  // oneDNN 2.6 has no f16 convolutions on the CPU (the descriptor is
  // refused), and bf16 ones only with AVX-512 (no implementation): the
  // band is converted to f32 then.
  BandPrimitive result;
  dnnl_convolution_desc_t forward, backward;
  dnnl_primitive_desc_t hint = nullptr, pd = nullptr;
  dnnl_primitive_attr_t attr = userScratchpadAttr(kKernel);
  dnnl_status_t status = dnnl_dilated_convolution_forward_desc_init(
      &forward, dnnl_forward_training, dnnl_convolution_direct, &src,
      &weights, nullptr, &diffDst, strides, dilations, padL, padR);
  if (status == dnnl_success)
    status = dnnl_dilated_convolution_backward_weights_desc_init(
        &backward, dnnl_convolution_direct, &src, &diffWeights, nullptr,
        &diffDst, strides, dilations, padL, padR);
  if (status == dnnl_success)
    status = dnnl_primitive_desc_create(&hint, &forward, nullptr,
                                        engine(kKernel), nullptr);
  if (status == dnnl_success)
    status = dnnl_primitive_desc_create(&pd, &backward, attr, engine(kKernel),
                                        hint);
  if (hint)
    check(dnnl_primitive_desc_destroy(hint), kKernel,
          "primitive_desc_destroy");
  if (status != dnnl_success && type != dnnl_f32) {
    check(dnnl_primitive_attr_destroy(attr), kKernel,
          "primitive_attr_destroy");
    result.implemented = false;
    return result;
  }
  check(status, kKernel, "primitive_desc_create");
  check(dnnl_primitive_create(&result.primitive, pd), kKernel,
        "primitive_create");

  size_t scratch = scratchpadBytes(pd);
  auto query = [&](dnnl_query_t what) {
    const dnnl_memory_desc_t *md = dnnl_primitive_desc_query_md(pd, what, 0);
    require(md != nullptr, kKernel,
            "oneDNN reports no descriptor for an argument");
    return *md;
  };
  scratch = std::max(
      scratch, bind(result.src, rowsDesc(p.input, b.inRows, 0, type, view),
                    query(dnnl_query_src_md), attr));
  scratch = std::max(
      scratch, bind(result.diffDst,
                    rowsDesc(p.gradOutput, b.outRows, b.channels, type, view),
                    query(dnnl_query_diff_dst_md), attr));
  dnnl_memory_desc_t inner = query(dnnl_query_diff_weights_md);
  scratch = std::max(
      scratch,
      bindAccumulate(result, inner,
                     weightsDesc(p, b.channels, dnnl_f32, /*any=*/false)));
  result.scratchpadBytes = alignUp(scratch);
  for (Operand *op : {&result.src, &result.diffDst}) {
    op->offset = result.innerBytes;
    result.innerBytes += alignUp(op->innerBytes);
  }
  result.diffWeightsOffset = result.innerBytes;
  result.innerBytes += alignUp(dnnl_memory_desc_get_size(&inner));
  if (scratch) {
    result.scratchpad = createMemory(
        kKernel, desc({static_cast<int64_t>(scratch)}, dnnl_u8, dnnl_x));
  }
  check(dnnl_primitive_desc_destroy(pd), kKernel, "primitive_desc_destroy");
  check(dnnl_primitive_attr_destroy(attr), kKernel, "primitive_attr_destroy");
  return result;
}

/// The cached primitive of band `b`. Primitives live until the process
/// ends.
BandPrimitive &primitive(const FilterGradientProblem &p, const Band &b,
                         dnnl_data_type_t type) {
  // Every list at its largest (rank 5), zero-filled: the rank is in the
  // key.
  using Key = std::array<int64_t, 3 * 5 + 3 + 3 + 6 + 9>;
  Key key{};
  size_t n = 0;
  auto append = [&](const Dims &list, int capacity) {
    for (int i = 0; i < capacity; ++i)
      key[n++] = i < list.size ? list[i] : 0;
  };
  for (const Dims *d : {&p.input, &p.gradOutput, &p.gradWeight})
    append(*d, 5);
  append(p.strides, 3);
  append(p.dilations, 3);
  append(p.pads, 6);
  for (int64_t v : {int64_t(p.input.size), p.groups, b.inRows, b.outRows,
                    b.padTop, b.padBottom, b.channels,
                    static_cast<int64_t>(type),
                    static_cast<int64_t>(p.type)})
    key[n++] = v;
  static std::mutex mutex;
  static std::map<Key, BandPrimitive> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, create(p, b, type)).first;
  return it->second;
}

/// Calls `body(band)` for each band of `rows` output rows of each group of
/// `channels` output channels, a group's bands one after another, that
/// reads at least one input row (a band entirely in the padding adds
/// nothing).
template <typename Body>
void forEachBand(const FilterGradientProblem &p, int64_t rows,
                 int64_t channels, Body body) {
  int64_t height = p.gradOutput[2], outChannels = p.gradWeight[0];
  for (int64_t c = 0; c < outChannels; c += channels)
    for (int64_t first = 0; first < height; first += rows) {
      Band b = band(p, first, std::min(height, first + rows), c,
                    std::min(channels, outChannels - c));
      if (b.inRows > 0)
        body(b);
    }
}

size_t weightElements(const FilterGradientProblem &p) {
  return static_cast<size_t>(p.gradWeight.product());
}

/// The bands of `rows` output rows in groups of `channels` output channels:
/// their primitives, and the workspace. `converted`: each band computes in
/// f32 on f32 copies of its rows. The count is 0 when a band has no
/// primitive for the type.
FilterGradientBands plan(const FilterGradientProblem &p, int64_t rows,
                         int64_t channels, bool converted) {
  FilterGradientBands bands;
  bands.rows = rows;
  bands.channels = channels;
  bands.count = (p.gradOutput[2] + rows - 1) / rows *
                ((p.gradWeight[0] + channels - 1) / channels);
  bands.converted = converted;
  bands.intoResult = p.type == ElementType::F32;
  int64_t inRows = 0;
  bool implemented = true;
  forEachBand(p, rows, channels, [&](const Band &b) {
    BandPrimitive &prim =
        primitive(p, b, converted ? dnnl_f32 : dnnlStorageType(p.type));
    implemented &= prim.implemented;
    bands.scratchpadBytes = std::max(bands.scratchpadBytes,
                                     prim.scratchpadBytes);
    bands.innerBytes = std::max(bands.innerBytes, prim.innerBytes);
    inRows = std::max(inRows, b.inRows);
  });
  if (!implemented) {
    bands.count = 0;
    return bands;
  }
  size_t bytes = bands.scratchpadBytes + bands.innerBytes;
  if (!bands.intoResult)
    bytes += alignUp(weightElements(p) * sizeof(float));
  if (converted)
    bytes += alignUp(static_cast<size_t>(withRows(p.input, inRows).product()) *
                     sizeof(float)) +
             alignUp(static_cast<size_t>(
                         withRows(p.gradOutput, rows, channels).product()) *
                     sizeof(float));
  bands.workspaceBytes = bytes;
  return bands;
}

/// Copies rows [first, first + rows) of channels [channelFirst,
/// channelFirst + channels) of `t` (N x C x rows x ..., of `type`) to `to`
/// as contiguous f32.
void convertRows(const void *t, const Dims &shape, ElementType type,
                 int64_t first, int64_t rows, int64_t channelFirst,
                 int64_t channels, float *to) {
  size_t element = elementBytes(type);
  int64_t row = rowElements(shape);
  int64_t plane = shape[2] * row;
  for (int64_t n = 0; n < shape[0]; ++n)
    for (int64_t c = 0; c < channels; ++c) {
      int64_t from = (n * shape[1] + channelFirst + c) * plane + first * row;
      convertElements(static_cast<const char *>(t) + from * element, type,
                      to + (n * channels + c) * rows * row, ElementType::F32,
                      rows * row);
    }
}

void setHandle(dnnl_memory_t memory, const void *data) {
  check(dnnl_memory_set_data_handle(memory, const_cast<void *>(data)), kKernel,
        "memory_set_data_handle");
}

} // namespace

FilterGradientBands filterGradientBands(const FilterGradientProblem &p,
                                        size_t wholeBytes) {
  FilterGradientBands whole;
  whole.workspaceBytes = wholeBytes;
  if (p.type != ElementType::BF16 && p.type != ElementType::F16)
    return whole;
  // Bands pay where the activations dominate: each band is a primitive
  // call and an accumulation over the weights' gradient, and the
  // workspace of a weight-heavy problem (a deep layer on a small image:
  // oneDNN's copies of the weights) does not shrink with the rows.
  if (p.gradWeight.product() * kInputPerWeight > p.input.product())
    return whole;
  size_t limit = static_cast<size_t>(p.input.product()) *
                 elementBytes(p.type);
  int64_t height = p.gradOutput[2];
  if (wholeBytes <= limit || height < 2)
    return whole;
  // Bands of equal height (the last one shorter), as many as bring the
  // workspace down to about the input's bytes.
  int64_t count = std::min<int64_t>(
      height, static_cast<int64_t>((wholeBytes + limit - 1) / limit));
  int64_t rows = (height + count - 1) / count;
  FilterGradientBands bands = plan(p, rows, p.gradWeight[0], /*converted=*/false);
  if (bands.count == 0)
    bands = plan(p, rows, p.gradWeight[0], /*converted=*/true);
  return bands.workspaceBytes < wholeBytes ? bands : whole;
}

FilterGradientBands leanFilterGradientBands(const FilterGradientProblem &p,
                                            size_t defaultBytes) {
  FilterGradientBands best;
  best.workspaceBytes = defaultBytes;
  int64_t height = p.gradOutput[2], outChannels = p.gradWeight[0];
  // Each piece is a primitive call that reads its rows (and reorders the
  // input again for every channel group), so the split stays coarse: at
  // most kLeanPieces pieces, along the axis whose operands dominate
  // oneDNN's workspace.
  bool weightHeavy =
      p.gradWeight.product() * kInputPerWeight > p.input.product();
  for (int64_t pieces = 2; pieces <= kLeanPieces; pieces *= 2) {
    int64_t rows = height, channels = outChannels;
    if (weightHeavy) {
      // Groups of whole vector blocks of channels, as oneDNN lays them out.
      if (p.groups != 1)
        break;
      channels = roundUpTo(ceilDiv(outChannels, pieces), kChannelBlock);
      if (channels >= outChannels)
        break;
    } else {
      if (pieces > height)
        break;
      rows = ceilDiv(height, pieces);
    }
    bool converted = false;
    FilterGradientBands bands = plan(p, rows, channels, converted);
    if (bands.count == 0)
      bands = plan(p, rows, channels, /*converted=*/true);
    if (bands.count != 0 && bands.workspaceBytes < best.workspaceBytes)
      best = bands;
  }
  return best;
}

void bandedFilterGradient(const FilterGradientProblem &p,
                          const FilterGradientBands &bands,
                          ConstTensor gradOutput, ConstTensor input,
                          Tensor gradWeight, void *workspace) {
  for (const TensorView<const float> *t : {&gradOutput, &input})
    requireType(kKernel, "every tensor", t->type, p.type);
  requireType(kKernel, "every tensor", gradWeight.type, p.type);
  require(workspace != nullptr, kKernel,
          "a workspace is required (see the ...WorkspaceBytes query)");
  char *bytes = static_cast<char *>(workspace);
  char *inner = bytes + bands.scratchpadBytes;
  size_t weights = weightElements(p);
  // An f32 result is summed into directly; otherwise an f32 accumulator
  // follows the blocked copies, rounded to the result's type at the end.
  float *accumulator =
      bands.intoResult ? gradWeight.data
                       : reinterpret_cast<float *>(inner + bands.innerBytes);
  float *srcCopy = reinterpret_cast<float *>(
      inner + bands.innerBytes +
      (bands.intoResult ? 0 : alignUp(weights * sizeof(float))));
  const Dims &x = p.input, &dy = p.gradOutput;
  std::memset(accumulator, 0, weights * sizeof(float));
  size_t element = elementBytes(p.type);
  // The weights of one output channel: a group's slice of the result
  // starts at its first channel's.
  int64_t channelWeights = static_cast<int64_t>(weights) / p.gradWeight[0];
  dnnl_data_type_t type =
      bands.converted ? dnnl_f32 : dnnlStorageType(p.type);
  forEachBand(p, bands.rows, bands.channels, [&](const Band &b) {
    BandPrimitive &prim = primitive(p, b, type);
    const void *src, *diffDst;
    if (bands.converted) {
      // The band's output gradient right after its input: the workspace
      // holds the largest band's input rows and the tallest band's.
      convertRows(input.data, x, p.type, b.inFirst, b.inRows, 0, x[1],
                  srcCopy);
      float *diffDstCopy =
          srcCopy + alignUp(static_cast<size_t>(
                                withRows(x, b.inRows).product()) *
                            sizeof(float)) /
                        sizeof(float);
      convertRows(gradOutput.data, dy, p.type, b.outFirst, b.outRows,
                  b.channelFirst, b.channels, diffDstCopy);
      src = srcCopy;
      diffDst = diffDstCopy;
    } else {
      src = reinterpret_cast<const char *>(input.data) +
            b.inFirst * rowElements(x) * element;
      diffDst = reinterpret_cast<const char *>(gradOutput.data) +
                (b.channelFirst * dy[2] + b.outFirst) * rowElements(dy) *
                    element;
    }
    dnnl_exec_arg_t args[4];
    int n = 0;
    for (auto [op, data, arg] : {std::tuple{&prim.src, src, DNNL_ARG_SRC},
                                 std::tuple{&prim.diffDst, diffDst,
                                            DNNL_ARG_DIFF_DST}}) {
      setHandle(op->user, data);
      if (op->inner)
        setHandle(op->inner, inner + op->offset);
      args[n++] = {arg, op->inner ? op->inner : op->user};
    }
    setHandle(prim.diffWeights, inner + prim.diffWeightsOffset);
    setHandle(prim.accumulator, accumulator + b.channelFirst * channelWeights);
    args[n++] = {DNNL_ARG_DIFF_WEIGHTS, prim.diffWeights};
    if (prim.scratchpad) {
      setHandle(prim.scratchpad, bytes);
      args[n++] = {DNNL_ARG_SCRATCHPAD, prim.scratchpad};
    }
    for (const Operand *op : {&prim.src, &prim.diffDst})
      if (op->reorder)
        reorder(kKernel, op->reorder, op->user, op->inner, prim.scratchpad);
    check(dnnl_primitive_execute(prim.primitive, stream(kKernel), n, args),
          kKernel, "primitive_execute");
    reorder(kKernel, prim.accumulate, prim.diffWeights, prim.accumulator,
            prim.scratchpad);
    check(dnnl_stream_wait(stream(kKernel)), kKernel, "stream_wait");
  });
  if (!bands.intoResult)
    convertElements(accumulator, ElementType::F32, gradWeight.data, p.type,
                    static_cast<int64_t>(weights));
}

} // namespace memopt::rt::detail
