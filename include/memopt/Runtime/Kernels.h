//===- Kernels.h - CPU kernels of the memopt runtime -------------*- C++ -*-===//
//
// One function per tg op (forward, backward, loss, optimizer update) on
// float32 NCHW tensors; under mixed precision (tg-amp) the kernels of the
// ops that run low take bf16 / f16 tensors too (the view's `type`), load
// them as f32, compute in f32 and store rounded to nearest even; the
// convolutions run oneDNN's bf16 primitives (f32 accumulation) or, for
// f16, convert to f32 in their workspace. The others take f32 only. The semantics are those of the op descriptions in
// include/memopt/Dialect/TG/IR/TGOps.td and TGGradOps.td, i.e. PyTorch's.
//
// Conventions (docs/runtime.md has the details):
// - Parameters come in the order: operands (`ConstTensor`, in the op's operand
//   order; the rank-0 i64 `step` of the optimizer updates by value), results
//   (`Tensor`, in the op's result order), attributes (in the op's order),
//   then the workspace pointer where the kernel takes one.
// - Attributes that only restate a result shape (`input_shape`,
//   `weight_shape`, `sizes`, `keepdims`' effect) are read from the result
//   view's shape.
// - The caller owns all memory. Kernels never allocate, except the oneDNN
//   convolutions on the first call with a given configuration (the
//   primitive is then cached). Convolutions need a workspace of
//   `...WorkspaceBytes(...)` bytes (possibly 0, then `workspace` may be
//   null), aligned to 64 bytes. The workspace queries take the element
//   type of the convolution's tensors (f32 by default; bf16 and f16 for
//   mixed precision, which oneDNN accumulates in f32).
// - Results must not overlap operands, except where a kernel says so
//   (elementwise kernels, optimizer updates and batch-norm running stats may
//   be computed in place).
// - Every kernel is deterministic: the same inputs give bit-identical results
//   run to run (see docs/runtime.md for the oneDNN thread-count caveat).
// - Invalid shapes or attributes abort with a message naming the kernel.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_RUNTIME_KERNELS_H
#define MEMOPT_RUNTIME_KERNELS_H

#include "memopt/Runtime/Tensor.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>

namespace memopt::rt {

/// The 2-D windows the runtimes compute with inside (a CPU pooling's height
/// and width, the CUDA kernels): height, then width.
using Hw = std::array<int64_t, 2>;
/// Window paddings in ONNX order: top, left, bottom, right.
using Pads = std::array<int64_t, 4>;

/// The enums of the tg dialect, with the same values.
enum class ResizeMode : int32_t { Nearest = 0, Bilinear = 1 };
enum class CoordinateMode : int32_t {
  HalfPixel = 0,
  PytorchHalfPixel = 1,
  AlignCorners = 2,
  Asymmetric = 3
};
enum class NearestMode : int32_t {
  RoundPreferFloor = 0,
  RoundPreferCeil = 1,
  Floor = 2,
  Ceil = 3
};
enum class PadMode : int32_t { Constant = 0, Reflect = 1, Edge = 2 };

/// The scales of a resize, one per spatial axis (1 to 3).
struct Scales {
  int size = 0;
  double values[3] = {};

  Scales(std::initializer_list<double> list) {
    for (double v : list)
      values[size++] = v;
  }
  double operator[](int i) const { return values[i]; }
};

//===----------------------------------------------------------------------===//
// Convolutions (oneDNN)
//===----------------------------------------------------------------------===//
//
// Rank-generic: the tensors are N x C x 1, 2 or 3 spatial axes (weights
// O x C/groups x K1 ...; transposed C x O/groups x K1 ...); `strides`,
// `dilations` and `outputPadding` have one value per spatial axis, `pads`
// the begins of every spatial axis, then the ends.

/// tg.conv. `bias` may be absent (null data).
size_t convWorkspaceBytes(const Dims &input, const Dims &weight, bool hasBias,
                            const Dims &output, const Dims &strides, const Dims &pads,
                            const Dims &dilations, int64_t groups,
                            ElementType type = ElementType::F32);
void conv(ConstTensor input, ConstTensor weight, ConstTensor bias,
            Tensor output, const Dims &strides, const Dims &pads, const Dims &dilations, int64_t groups,
            void *workspace);

/// tg.conv_backward_data; `input_shape` is `gradInput.shape`.
size_t convBackwardDataWorkspaceBytes(const Dims &gradOutput,
                                        const Dims &weight,
                                        const Dims &gradInput, const Dims &strides,
                                        const Dims &pads, const Dims &dilations,
                                        int64_t groups,
                                        ElementType type = ElementType::F32);
void convBackwardData(ConstTensor gradOutput, ConstTensor weight,
                        Tensor gradInput, const Dims &strides, const Dims &pads, const Dims &dilations,
                        int64_t groups, void *workspace);

/// tg.conv_backward_filter; `weight_shape` is `gradWeight.shape`.
size_t convBackwardFilterWorkspaceBytes(const Dims &gradOutput,
                                          const Dims &input,
                                          const Dims &gradWeight, const Dims &strides,
                                          const Dims &pads, const Dims &dilations,
                                          int64_t groups,
                                          ElementType type = ElementType::F32);
void convBackwardFilter(ConstTensor gradOutput, ConstTensor input,
                          Tensor gradWeight, const Dims &strides, const Dims &pads,
                          const Dims &dilations, int64_t groups, void *workspace);

/// tg.conv_transpose. `bias` may be absent (null data).
size_t convTransposeWorkspaceBytes(const Dims &input, const Dims &weight,
                                     bool hasBias, const Dims &output,
                                     const Dims &strides, const Dims &pads, const Dims &dilations,
                                     const Dims &outputPadding, int64_t groups,
                                     ElementType type = ElementType::F32);
void convTranspose(ConstTensor input, ConstTensor weight, ConstTensor bias,
                     Tensor output, const Dims &strides, const Dims &pads, const Dims &dilations,
                     const Dims &outputPadding, int64_t groups, void *workspace);

/// tg.conv_transpose_backward_filter; `weight_shape` is
/// `gradWeight.shape`.
size_t convTransposeBackwardFilterWorkspaceBytes(
    const Dims &gradOutput, const Dims &input, const Dims &gradWeight,
    const Dims &strides, const Dims &pads, const Dims &dilations, const Dims &outputPadding, int64_t groups,
    ElementType type = ElementType::F32);
void convTransposeBackwardFilter(ConstTensor gradOutput, ConstTensor input,
                                   Tensor gradWeight, const Dims &strides, const Dims &pads,
                                   const Dims &dilations, const Dims &outputPadding,
                                   int64_t groups, void *workspace);

//===----------------------------------------------------------------------===//
// Batch normalization
//===----------------------------------------------------------------------===//

/// tg.batch_norm (training mode). `newRunningMean`/`newRunningVar` may be
/// `runningMean`/`runningVar` themselves.
void batchNorm(ConstTensor input, ConstTensor scale, ConstTensor bias,
               ConstTensor runningMean, ConstTensor runningVar, Tensor output,
               Tensor newRunningMean, Tensor newRunningVar, Tensor savedMean,
               Tensor savedInvStd, double epsilon, double momentum);

/// tg.batch_norm_inference.
void batchNormInference(ConstTensor input, ConstTensor scale, ConstTensor bias,
                        ConstTensor mean, ConstTensor var, Tensor output,
                        double epsilon);

/// tg.batch_norm_backward.
void batchNormBackward(ConstTensor gradOutput, ConstTensor input,
                       ConstTensor scale, ConstTensor savedMean,
                       ConstTensor savedInvStd, Tensor gradInput,
                       Tensor gradScale, Tensor gradBias);

/// tg.instance_norm: statistics per (sample, channel) over the axes after
/// the channel axis; `savedMean` and `savedInvStd` are N x C. The input,
/// output and their gradients are f32, bf16 or f16 (computed in f32, sums
/// in double); scale, bias, statistics and parameter gradients are f32.
void instanceNorm(ConstTensor input, ConstTensor scale, ConstTensor bias,
                  Tensor output, Tensor savedMean, Tensor savedInvStd,
                  double epsilon);
/// tg.instance_norm_backward.
void instanceNormBackward(ConstTensor gradOutput, ConstTensor input,
                          ConstTensor scale, ConstTensor savedMean,
                          ConstTensor savedInvStd, Tensor gradInput,
                          Tensor gradScale, Tensor gradBias);

//===----------------------------------------------------------------------===//
// Elementwise (results may alias an operand of the same shape)
//===----------------------------------------------------------------------===//

void relu(ConstTensor input, Tensor output);
void sigmoid(ConstTensor input, Tensor output);
void tanh(ConstTensor input, Tensor output);
void neg(ConstTensor input, Tensor output);
void exp(ConstTensor input, Tensor output);
void log(ConstTensor input, Tensor output);
void sqrt(ConstTensor input, Tensor output);
void abs(ConstTensor input, Tensor output);
void sign(ConstTensor input, Tensor output);
void leakyRelu(ConstTensor input, Tensor output, double alpha);
void clip(ConstTensor input, Tensor output, double min, double max);
void floor(ConstTensor input, Tensor output);

/// NumPy-broadcasting binary ops; `output.shape` is the broadcast shape.
void add(ConstTensor lhs, ConstTensor rhs, Tensor output);
void sub(ConstTensor lhs, ConstTensor rhs, Tensor output);
void mul(ConstTensor lhs, ConstTensor rhs, Tensor output);
void div(ConstTensor lhs, ConstTensor rhs, Tensor output);

/// tg.compare's predicates.
enum class Comparison { Less, LessEqual, Greater, GreaterEqual, Equal };
/// tg.compare: 1 where `lhs predicate rhs` holds, 0 elsewhere, broadcasting
/// as the binary ops.
void compare(ConstTensor lhs, ConstTensor rhs, Tensor output,
             Comparison predicate);

/// tg.select: `onTrue` where `condition` is not 0, else `onFalse`, the three
/// broadcasting (NumPy rules) to `output.shape`. The branch not chosen is
/// not read into the result: an inf or NaN there does not reach it.
void select(ConstTensor condition, ConstTensor onTrue, ConstTensor onFalse,
            Tensor output);

/// tg.random_uniform: element j is uniformElement(splitMix64(seed), j, low,
/// high - low) (Random.h). The generated step passes
/// randomUniformSeed(step seed, the op's stream).
void randomUniform(Tensor output, double low, double high, uint64_t seed);

/// tg.dropout. The random stream is a counter-based hash of (`seed`,
/// element index): the same seed gives the same mask, whatever the schedule.
/// The generated step passes a seed derived from the run seed and the step.
void dropout(ConstTensor input, Tensor output, Tensor mask, double ratio,
             uint64_t seed);

void reluBackward(ConstTensor gradOutput, ConstTensor output,
                  Tensor gradInput);
void sigmoidBackward(ConstTensor gradOutput, ConstTensor output,
                     Tensor gradInput);
void tanhBackward(ConstTensor gradOutput, ConstTensor output,
                  Tensor gradInput);
void leakyReluBackward(ConstTensor gradOutput, ConstTensor input,
                       Tensor gradInput, double alpha);
void clipBackward(ConstTensor gradOutput, ConstTensor input, Tensor gradInput,
                  double min, double max);

/// Activations of segmentation networks (formulas in TGOps.td; results may
/// alias `input`, or `gradOutput`/`input` for the gradients).
void hardSigmoid(ConstTensor input, Tensor output, double alpha, double beta);
void hardSwish(ConstTensor input, Tensor output);
void elu(ConstTensor input, Tensor output, double alpha);
void softplus(ConstTensor input, Tensor output);
void erf(ConstTensor input, Tensor output);
void hardSigmoidBackward(ConstTensor gradOutput, ConstTensor input,
                         Tensor gradInput, double alpha, double beta);
void hardSwishBackward(ConstTensor gradOutput, ConstTensor input,
                       Tensor gradInput);
void eluBackward(ConstTensor gradOutput, ConstTensor input, Tensor gradInput,
                 double alpha);
void softplusBackward(ConstTensor gradOutput, ConstTensor input,
                      Tensor gradInput);
void erfBackward(ConstTensor gradOutput, ConstTensor input, Tensor gradInput);

/// tg.prelu: `slope` broadcasts to `input`; `output` must not alias `slope`.
/// Every tensor has the input's element type (f32, bf16 or f16).
void prelu(ConstTensor input, ConstTensor slope, Tensor output);
void preluBackward(ConstTensor gradOutput, ConstTensor input,
                   ConstTensor slope, Tensor gradInput);

/// tg.softmax and tg.log_softmax along `axis`, and their gradients, which
/// read the forward output. Results must not alias operands.
void softmax(ConstTensor input, Tensor output, int64_t axis);
void logSoftmax(ConstTensor input, Tensor output, int64_t axis);
void softmaxBackward(ConstTensor gradOutput, ConstTensor output,
                     Tensor gradInput, int64_t axis);
void logSoftmaxBackward(ConstTensor gradOutput, ConstTensor output,
                        Tensor gradInput, int64_t axis);

//===----------------------------------------------------------------------===//
// Pooling and resizing
//===----------------------------------------------------------------------===//
//
// Pooling is rank-generic as the convolutions are: 1 to 3 spatial axes,
// one kernel, stride and dilation per axis, the pads' begins then ends.

void maxPool(ConstTensor input, Tensor output, const Dims &kernel, const Dims &strides,
               const Dims &pads, const Dims &dilations, bool ceilMode);
void maxPoolBackward(ConstTensor gradOutput, ConstTensor input,
                       Tensor gradInput, const Dims &kernel, const Dims &strides, const Dims &pads,
                       const Dims &dilations, bool ceilMode);

void avgPool(ConstTensor input, Tensor output, const Dims &kernel, const Dims &strides,
               const Dims &pads, bool ceilMode, bool countIncludePad);
/// `input_shape` is `gradInput.shape`.
void avgPoolBackward(ConstTensor gradOutput, Tensor gradInput, const Dims &kernel,
                       const Dims &strides, const Dims &pads, bool ceilMode,
                       bool countIncludePad);

void globalAvgPool(ConstTensor input, Tensor output);

/// tg.resize of 1 to 3 spatial axes; `sizes` is the spatial shape of
/// `output`. Linear mode interpolates along every spatial axis (linear,
/// bilinear, trilinear).
void resize(ConstTensor input, Tensor output, ResizeMode mode,
            CoordinateMode coordinateMode, NearestMode nearestMode,
            const Scales &scales);
/// tg.resize_backward; `input_shape` is `gradInput.shape`.
void resizeBackward(ConstTensor gradOutput, Tensor gradInput, ResizeMode mode,
                    CoordinateMode coordinateMode, NearestMode nearestMode,
                    const Scales &scales);

//===----------------------------------------------------------------------===//
// Mixed precision
//===----------------------------------------------------------------------===//

/// tg.cast between f32, bf16 and f16 (`input.type` to `output.type`):
/// narrowing rounds to nearest even, widening is exact.
void cast(ConstTensor input, Tensor output);
/// The conversion of tg.cast on `count` raw elements (the convolutions'
/// f32 copies of f16 tensors use it too).
void convertElements(const void *input, ElementType from, void *output,
                     ElementType to, int64_t count);

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

/// tg.constant placed in device memory: copies `output.numel()` values from
/// `values`, a host array of the generated file, into `output`. (Backends
/// whose kernels read host memory use the array in place instead.)
void constant(const float *values, Tensor output);
/// tg.concat of `count` operands. An operand may already be in its slice of
/// `output` (the memory plan computes it there): it is not copied.
void concat(const ConstTensor *inputs, int count, Tensor output, int64_t axis);
void slice(ConstTensor input, Tensor output, const Dims &starts,
           const Dims &ends, const Dims &steps);
void sliceBackward(ConstTensor gradOutput, Tensor gradInput,
                   const Dims &starts, const Dims &ends, const Dims &steps);
/// `pads` holds the rank begin paddings, then the rank end paddings.
void pad(ConstTensor input, Tensor output, const Dims &pads, PadMode mode,
         double value);
/// The gradient of pad: each input element gets the sum of the gradient
/// of the padded positions that copied it (the element itself, and for
/// edge and reflect pads the border positions that repeat or mirror it).
void padBackward(ConstTensor gradOutput, Tensor gradInput, const Dims &pads,
                 PadMode mode);
/// tg.gather: output[o, k, i] = input[o, indices[k], i], where o runs over
/// the axes before `axis`, i over those after it and k over the `count`
/// indices (each in [0, input.shape[axis])), a host array that does not
/// change between calls (a static array of the generated file). `output`
/// has input's shape with `axis` replaced by the indices' shape.
void gather(ConstTensor input, Tensor output, int64_t axis,
            const int64_t *indices, int64_t count);
/// The gradient of gather: gradInput[o, j, i] is the sum, in ascending k
/// and in f32, of gradOutput[o, k, i] over the k with indices[k] = j (0
/// where no index is j).
void gatherBackward(ConstTensor gradOutput, Tensor gradInput, int64_t axis,
                    const int64_t *indices, int64_t count);
/// A copy (nothing to do when `output.data == input.data`).
void reshape(ConstTensor input, Tensor output);
void transpose(ConstTensor input, Tensor output, const Dims &perm);
/// tg.broadcast; the target `shape` is `output.shape`.
void broadcast(ConstTensor input, Tensor output);
/// `axes` sorted and distinct; empty means all axes.
void reduceSum(ConstTensor input, Tensor output, const Dims &axes,
               bool keepdims);
void reduceMean(ConstTensor input, Tensor output, const Dims &axes,
                bool keepdims);

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

void matmul(ConstTensor lhs, ConstTensor rhs, Tensor output);
/// tg.gemm; `c` may be absent (null data).
void gemm(ConstTensor a, ConstTensor b, ConstTensor c, Tensor output,
          double alpha, double beta, bool transA, bool transB);

//===----------------------------------------------------------------------===//
// Losses (mean reduction; `loss` and `gradLoss` have rank 0)
//===----------------------------------------------------------------------===//

void mseLoss(ConstTensor prediction, ConstTensor target, Tensor loss);
void l1Loss(ConstTensor prediction, ConstTensor target, Tensor loss);
void bceLoss(ConstTensor prediction, ConstTensor target, Tensor loss);

void mseLossBackward(ConstTensor gradLoss, ConstTensor prediction,
                     ConstTensor target, Tensor gradPrediction);
void l1LossBackward(ConstTensor gradLoss, ConstTensor prediction,
                    ConstTensor target, Tensor gradPrediction);
void bceLossBackward(ConstTensor gradLoss, ConstTensor prediction,
                     ConstTensor target, Tensor gradPrediction);

/// Segmentation losses of logits N x C x ...: `target` holds class indices
/// (the logits' shape without axis 1; an index outside [0, C) aborts), or,
/// for dice with C = 1, a float mask of the logits' shape.
void crossEntropyLoss(ConstTensor logits, ConstTensor target, Tensor loss);
void crossEntropyLossBackward(ConstTensor gradLoss, ConstTensor logits,
                              ConstTensor target, Tensor gradLogits);
void diceLoss(ConstTensor logits, ConstTensor target, Tensor loss,
              double epsilon);
void diceLossBackward(ConstTensor gradLoss, ConstTensor logits,
                      ConstTensor target, Tensor gradLogits, double epsilon);

//===----------------------------------------------------------------------===//
// Optimizer updates (results may alias the corresponding operands)
//===----------------------------------------------------------------------===//

/// tg.sgd_update at the 1-based `step` (the op's rank-0 i64 operand, passed
/// by value). With `momentum` = 0 the op has no buffer: `momentumBuffer` and
/// `newMomentumBuffer` are then ignored and may be absent (null data);
/// otherwise both are required and the buffer is not read on step 1.
void sgdUpdate(ConstTensor param, ConstTensor grad, ConstTensor momentumBuffer,
               int64_t step, Tensor newParam, Tensor newMomentumBuffer,
               double lr, double momentum, double dampening,
               double weightDecay, bool nesterov);

/// tg.adam_update at the 1-based `step` (the op's rank-0 i64 operand).
void adamUpdate(ConstTensor param, ConstTensor grad, ConstTensor expAvg,
                ConstTensor expAvgSq, int64_t step, Tensor newParam,
                Tensor newExpAvg, Tensor newExpAvgSq, double lr, double beta1,
                double beta2, double eps, double weightDecay, bool decoupled);

/// The updates of an fp16 step with loss scaling (tg-loss-scale marks them
/// `tg.skip_nonfinite`): the update above when every element of `grad` is
/// finite; otherwise the results keep the operands' values (a skipped step,
/// which device::takeSkippedUpdate() then reports).
void sgdUpdateSkipNonFinite(ConstTensor param, ConstTensor grad,
                            ConstTensor momentumBuffer, int64_t step,
                            Tensor newParam, Tensor newMomentumBuffer,
                            double lr, double momentum, double dampening,
                            double weightDecay, bool nesterov);
void adamUpdateSkipNonFinite(ConstTensor param, ConstTensor grad,
                             ConstTensor expAvg, ConstTensor expAvgSq,
                             int64_t step, Tensor newParam, Tensor newExpAvg,
                             Tensor newExpAvgSq, double lr, double beta1,
                             double beta2, double eps, double weightDecay,
                             bool decoupled);

} // namespace memopt::rt

#endif // MEMOPT_RUNTIME_KERNELS_H
