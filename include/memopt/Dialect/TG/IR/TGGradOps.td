//===- TGGradOps.td - Backward, loss and optimizer ops -----*- tablegen -*-===//
//
// The ops that autodiff emits for the training step: gradients of the
// forward ops whose adjoint is not itself a forward op, losses and optimizer
// updates. Each follows PyTorch's autograd formula (or torch.optim's update)
// for the forward op, so that a compiled step reproduces a PyTorch step.
// Included at the end of TGOps.td.
//
// Gradients whose adjoint is a forward op have no op of their own: the data
// gradient of conv_transpose is a tg.conv, that of a constant tg.pad a
// tg.slice, that of tg.concat slices.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TG_IR_TGGRADOPS_TD
#define MEMOPT_DIALECT_TG_IR_TGGRADOPS_TD

include "memopt/Dialect/TG/IR/TGOps.td"

//===----------------------------------------------------------------------===//
// Convolution gradients
//===----------------------------------------------------------------------===//

def TG_ConvBackwardDataOp : TG_Op<"conv_backward_data",
    [Pure, InferTypeOpAdaptor, TG_Kernel<["getWorkspaceBytes"]>]> {
  let summary = "Gradient of tg.conv with respect to its input";
  let description = [{
    `grad_output` is the gradient of a `tg.conv` output, N x O x H' x W';
    `weight` and the attributes are those of the convolution and
    `input_shape` is the shape of its input, which a strided convolution does
    not determine from its output. The result is the transposed convolution

    ```
    grad_input[n, c, h, w] = sum over o in the group of c, and kh, kw with
        h + top = oh * stride_h + kh * dilation_h,
        w + left = ow * stride_w + kw * dilation_w,
      of grad_output[n, o, oh, ow] * weight[o, c mod (C / groups), kh, kw]
    ```

    where input positions that no window covers get 0, and likewise over
    one or three spatial axes. `tg.conv` of `input_shape` with `weight`
    must yield the shape of `grad_output`.
  }];
  let arguments = (ins TG_SpatialTensor:$grad_output, TG_SpatialTensor:$weight,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DenseI64ArrayAttr:$input_shape);
  let results = (outs TG_SpatialTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output `,` $weight attr-dict `:` functional-type(operands, results)
  }];
}

def TG_ConvBackwardFilterOp : TG_Op<"conv_backward_filter",
    [Pure, InferTypeOpAdaptor, TG_Kernel<["getWorkspaceBytes"]>]> {
  let summary = "Gradient of tg.conv with respect to its weight";
  let description = [{
    `grad_output` is the gradient of a `tg.conv` output, `input` the
    convolution's input, the attributes are the convolution's and
    `weight_shape` is the shape of its weight, O x C/groups x kH x kW:

    ```
    grad_weight[o, c, kh, kw] = sum over n, oh, ow of
      grad_output[n, o, oh, ow] *
      input[n, g * C / groups + c, oh * stride_h + kh * dilation_h - top,
            ow * stride_w + kw * dilation_w - left]
    ```

    with g = o / (O / groups) and 0 for positions in the padding.
    `tg.conv` of `input` with a weight of `weight_shape` must yield the
    shape of `grad_output`. The bias gradient is a `tg.reduce_sum` of
    `grad_output` over every axis but the channel axis. 1-D and 3-D
    convolutions sum over their spatial axes alike.
  }];
  let arguments = (ins TG_SpatialTensor:$grad_output, TG_SpatialTensor:$input,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DenseI64ArrayAttr:$weight_shape);
  let results = (outs TG_SpatialTensor:$grad_weight);
  let assemblyFormat = [{
    $grad_output `,` $input attr-dict `:` functional-type(operands, results)
  }];
}

def TG_ConvTransposeBackwardFilterOp
    : TG_Op<"conv_transpose_backward_filter",
            [Pure, InferTypeOpAdaptor, TG_Kernel<["getWorkspaceBytes"]>]> {
  let summary = "Gradient of tg.conv_transpose with respect to its weight";
  let description = [{
    `grad_output` is the gradient of a `tg.conv_transpose` output,
    N x O x H' x W', `input` the transposed convolution's input,
    N x C x H x W, the attributes are its own and `weight_shape` is the shape
    of its weight, C x O/groups x kH x kW:

    ```
    grad_weight[c, o, kh, kw] = sum over n, h, w of
      input[n, c, h, w] *
      grad_output[n, g * O / groups + o, h * stride_h + kh * dilation_h - top,
                  w * stride_w + kw * dilation_w - left]
    ```

    with g = c / (C / groups) and 0 for positions outside `grad_output`.
    `tg.conv_transpose` of `input` with a weight of `weight_shape` must
    yield the shape of `grad_output`. (The input gradient of a transposed
    convolution is a `tg.conv` of `grad_output` with the same weight.)
    1-D and 3-D transposed convolutions sum over their spatial axes alike.
  }];
  let arguments = (ins TG_SpatialTensor:$grad_output, TG_SpatialTensor:$input,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$output_padding,
                       DefaultValuedAttr<I64Attr, "1">:$groups,
                       DenseI64ArrayAttr:$weight_shape);
  let results = (outs TG_SpatialTensor:$grad_weight);
  let assemblyFormat = [{
    $grad_output `,` $input attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Normalization gradient
//===----------------------------------------------------------------------===//

def TG_BatchNormBackwardOp : TG_Op<"batch_norm_backward",
    [Pure, InferTypeOpAdaptor, TG_Kernel<["getInPlaceOperands"]>]> {
  let summary = "Gradient of training-mode tg.batch_norm";
  let description = [{
    `grad_output` is the gradient of a `tg.batch_norm` output, `input` and
    `scale` are its operands, `saved_mean` and `saved_inv_std` its batch
    statistics. Because the statistics depend on the input, with M the
    number of elements per channel and x_hat = (input - saved_mean) *
    saved_inv_std (all per channel, sums over every axis but axis 1):

    ```
    grad_bias = sum(grad_output)
    grad_scale = sum(grad_output * x_hat)
    grad_input = scale * saved_inv_std / M *
                 (M * grad_output - grad_bias - x_hat * grad_scale)
    ```

    as PyTorch's `native_batch_norm_backward` in training mode.
  }];
  let arguments = (ins TG_Tensor:$grad_output, TG_Tensor:$input,
                       TG_1DTensor:$scale, TG_1DTensor:$saved_mean,
                       TG_1DTensor:$saved_inv_std);
  let results = (outs TG_Tensor:$grad_input, TG_1DTensor:$grad_scale,
                      TG_1DTensor:$grad_bias);
  let assemblyFormat = [{
    $grad_output `,` $input `,` $scale `,` $saved_mean `,` $saved_inv_std
    attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise gradients
//===----------------------------------------------------------------------===//

// The gradient of an activation: `grad_output` times the derivative, which
// reads the forward op's `saved` value (its output or its input).
class TG_ActivationBackwardOp<string mnemonic, string forward, string saved,
                              string formula, int flops>
    : TG_Op<mnemonic,
        [Pure, Elementwise, SameOperandsAndResultType, InferTypeOpInterface,
         TG_KernelOpInterface]> {
  let summary = "Gradient of tg." # forward;
  let description = "Computes `" # formula # "` for every element, where `" #
      saved # "` is the " # saved # " of the forward `tg." # forward # "`.";
  let arguments = !dag(ins, [TG_Tensor, TG_Tensor], ["grad_output", saved]);
  let results = (outs TG_Tensor:$grad_input);
  let assemblyFormat =
      "$grad_output `,` $" # saved # " attr-dict `:` type($grad_output)";
  let extraClassDeclaration = TG_PerElementKernelFacts<flops>.decl;
}

// PyTorch's threshold_backward: a NaN output passes the gradient.
def TG_ReluBackwardOp : TG_ActivationBackwardOp<"relu_backward", "relu",
    "output", "output <= 0 ? 0 : grad_output", 2>;
def TG_SigmoidBackwardOp : TG_ActivationBackwardOp<"sigmoid_backward",
    "sigmoid", "output", "grad_output * (1 - output) * output", 3>;
def TG_TanhBackwardOp : TG_ActivationBackwardOp<"tanh_backward", "tanh",
    "output", "grad_output * (1 - output * output)", 3>;

def TG_LeakyReluBackwardOp : TG_ActivationBackwardOp<"leaky_relu_backward",
    "leaky_relu", "input",
    "input > 0 ? grad_output : alpha * grad_output", 2> {
  let arguments = (ins TG_Tensor:$grad_output, TG_Tensor:$input,
                       DefaultValuedAttr<F64Attr, "0.01">:$alpha);
}

def TG_ClipBackwardOp : TG_ActivationBackwardOp<"clip_backward", "clip",
    "input", "min <= input && input <= max ? grad_output : 0", 2> {
  let description = [{
    Computes `min <= input && input <= max ? grad_output : 0` for every
    element, where `input` is the input of the forward `tg.clip`. The
    gradient passes at the bounds, as in the backward of `torch.clamp`.
  }];
  let arguments = (ins TG_Tensor:$grad_output, TG_Tensor:$input,
                       F64Attr:$min, F64Attr:$max);
  let hasVerifier = 1;
}

def TG_HardSigmoidBackwardOp : TG_ActivationBackwardOp<"hard_sigmoid_backward",
    "hard_sigmoid", "input",
    "0 < alpha * input + beta < 1 ? alpha * grad_output : 0", 3> {
  let arguments = (ins TG_Tensor:$grad_output, TG_Tensor:$input,
                       DefaultValuedAttr<F64Attr, "0.2">:$alpha,
                       DefaultValuedAttr<F64Attr, "0.5">:$beta);
}
def TG_HardSwishBackwardOp : TG_ActivationBackwardOp<"hard_swish_backward",
    "hard_swish", "input",
    "input < -3 ? 0 : (input <= 3 ? grad_output * (input / 3 + 0.5) : "
    "grad_output)", 4>;
def TG_EluBackwardOp : TG_ActivationBackwardOp<"elu_backward", "elu", "input",
    "input > 0 ? grad_output : grad_output * alpha * exp(input)", 4> {
  let arguments = (ins TG_Tensor:$grad_output, TG_Tensor:$input,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha);
}
def TG_SoftplusBackwardOp : TG_ActivationBackwardOp<"softplus_backward",
    "softplus", "input",
    "input > 20 ? grad_output : grad_output * exp(input) / (exp(input) + 1)", 4>;
def TG_ErfBackwardOp : TG_ActivationBackwardOp<"erf_backward", "erf", "input",
    "grad_output * 2 / sqrt(pi) * exp(-input * input)", 4>;

def TG_PReluBackwardOp : TG_Op<"prelu_backward", [Pure, InferTypeOpAdaptor,
    TG_KernelOpInterface]> {
  let summary = "Gradient of tg.prelu with respect to its input";
  let description = [{
    `input > 0 ? grad_output : slope * grad_output` for every element, with
    `slope` broadcast to `input` as in `tg.prelu`. (The slope's gradient is
    `grad_output * min(input, 0)` summed back to the slope's shape, which
    autodiff builds from elementwise ops and a reduction.)
  }];
  let arguments = (ins TG_Tensor:$grad_output, TG_Tensor:$input,
                       TG_Tensor:$slope);
  let results = (outs TG_Tensor:$grad_input);
  let assemblyFormat = [{
    $grad_output `,` $input `,` $slope attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDeclaration = TG_PerElementKernelFacts<3>.decl;
}

// The gradients of softmax and log_softmax, as PyTorch's, read the output.
class TG_SoftmaxFamilyBackwardOp<string mnemonic, string forward,
                                 string formula>
    : TG_Op<mnemonic, [Pure, SameOperandsAndResultType, InferTypeOpInterface,
                       TG_KernelOpInterface]> {
  let summary = "Gradient of tg." # forward;
  let description = "Computes `" # formula # "`, the sum running along " #
      "`axis`, where `output` is the output of the forward `tg." # forward #
      "` over the same axis.";
  let arguments = (ins TG_Tensor:$grad_output, TG_Tensor:$output, I64Attr:$axis);
  let results = (outs TG_Tensor:$grad_input);
  let assemblyFormat =
      "$grad_output `,` $output attr-dict `:` type($grad_output)";
  let hasVerifier = 1;
  let extraClassDeclaration = TG_PerElementKernelFacts<4>.decl;
}

def TG_SoftmaxBackwardOp : TG_SoftmaxFamilyBackwardOp<"softmax_backward",
    "softmax", "output * (grad_output - sum(grad_output * output))">;
def TG_LogSoftmaxBackwardOp : TG_SoftmaxFamilyBackwardOp<
    "log_softmax_backward", "log_softmax",
    "grad_output - exp(output) * sum(grad_output)">;

def TG_SignOp : TG_UnaryOp<"sign", "x > 0 ? 1 : (x < 0 ? -1 : 0)", 1>;

def TG_InstanceNormBackwardOp : TG_Op<"instance_norm_backward",
    [Pure, InferTypeOpAdaptor, TG_Kernel<>]> {
  let summary = "Gradient of tg.instance_norm";
  let description = [{
    `grad_output` is the gradient of a `tg.instance_norm` output, `input`
    and `scale` its operands, `saved_mean` and `saved_inv_std` (N x C) its
    statistics. With M the number of elements per (sample, channel) slice,
    x_hat = (input - saved_mean) * saved_inv_std and sums over the slice:

    ```
    a = sum(grad_output), b = sum(grad_output * x_hat)       (per n, c)
    grad_input = scale * saved_inv_std / M * (M * grad_output - a - x_hat * b)
    grad_scale[c] = sum over n of b, grad_bias[c] = sum over n of a
    ```

    the batch-norm gradient of every slice, as PyTorch computes the
    instance-norm gradient.
  }];
  let arguments = (ins TG_Tensor:$grad_output, TG_Tensor:$input,
                       TG_1DTensor:$scale, TG_Tensor:$saved_mean,
                       TG_Tensor:$saved_inv_std);
  let results = (outs TG_Tensor:$grad_input, TG_1DTensor:$grad_scale,
                      TG_1DTensor:$grad_bias);
  let assemblyFormat = [{
    $grad_output `,` $input `,` $scale `,` $saved_mean `,` $saved_inv_std
    attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Pooling and resizing gradients
//===----------------------------------------------------------------------===//

def TG_MaxPoolBackwardOp : TG_Op<"max_pool_backward",
    [Pure, InferTypeOpAdaptor, TG_Kernel<>]> {
  let summary = "Gradient of tg.max_pool";
  let description = [{
    `grad_output` is the gradient of a `tg.max_pool` output, `input` the
    pooling's input and the attributes are its own. Each window adds its
    `grad_output` element to the input position that holds the window's
    maximum; on ties that is the first position in row-major window order,
    and a NaN wins over any number, as in PyTorch's max_pool indices.
    Positions that are never a maximum get 0. `tg.max_pool` of `input`
    must yield the shape of `grad_output`.
  }];
  let arguments = (ins TG_SpatialTensor:$grad_output, TG_SpatialTensor:$input,
                       DenseI64ArrayAttr:$kernel,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs TG_SpatialTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output `,` $input attr-dict `:` functional-type(operands, results)
  }];
}

def TG_AvgPoolBackwardOp : TG_Op<"avg_pool_backward",
    [Pure, InferTypeOpAdaptor, TG_Kernel<>]> {
  let summary = "Gradient of tg.avg_pool";
  let description = [{
    `grad_output` is the gradient of a `tg.avg_pool` output, the
    attributes are the pooling's and `input_shape` is the shape of its
    input. Each window adds grad_output / divisor to every input position it
    covers, where the divisor is the one of the forward op: with
    `count_include_pad` the window's size clipped to the padded input
    (kH * kW in 2-D, the product of the kernel in general, except for a ceil-mode window that overhangs the padding),
    otherwise the number of input positions it covers. `tg.avg_pool` of
    `input_shape` must yield the shape of `grad_output`.
  }];
  let arguments = (ins TG_SpatialTensor:$grad_output, DenseI64ArrayAttr:$kernel,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$count_include_pad,
                       DenseI64ArrayAttr:$input_shape);
  let results = (outs TG_SpatialTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output attr-dict `:` functional-type(operands, results)
  }];
}

def TG_ResizeBackwardOp : TG_Op<"resize_backward", [Pure, InferTypeOpAdaptor,
    TG_Kernel<>]> {
  let summary = "Gradient of tg.resize";
  let description = [{
    `grad_output` is the gradient of a `tg.resize` output, the attributes
    are the resize's and `input_shape` is the shape of its input. The result
    is the adjoint of the interpolation: every output element adds
    grad_output times its interpolation weight to each input element it was
    computed from (nearest: the one source element; bilinear: the four
    neighbours with their bilinear weights). `sizes` is optional because it
    must equal the height and width of `grad_output`; `sizes` and `scales`
    must agree for `input_shape` as in `tg.resize`.
  }];
  let arguments = (ins TG_SpatialTensor:$grad_output, TG_ResizeModeAttr:$mode,
                       TG_CoordinateModeAttr:$coordinate_mode,
                       DefaultValuedAttr<TG_NearestModeAttr,
                           "NearestMode::round_prefer_floor">:$nearest_mode,
                       OptionalAttr<DenseI64ArrayAttr>:$sizes,
                       DenseF64ArrayAttr:$scales,
                       DenseI64ArrayAttr:$input_shape);
  let results = (outs TG_SpatialTensor:$grad_input);
  let assemblyFormat = [{
    $grad_output attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape gradients
//===----------------------------------------------------------------------===//

def TG_SliceBackwardOp : TG_Op<"slice_backward", [Pure, InferTypeOpAdaptor,
    TG_Kernel<>]> {
  let summary = "Gradient of tg.slice";
  let description = [{
    `grad_output` is the gradient of a `tg.slice` output, the attributes are
    the slice's and `input_shape` is the shape of its input. The result is
    zero but at the sliced positions: grad_input[starts + i * steps] =
    grad_output[i] (per axis). `tg.slice` of `input_shape` must yield the
    shape of `grad_output`.
  }];
  let arguments = (ins TG_Tensor:$grad_output, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps,
                       DenseI64ArrayAttr:$input_shape);
  let results = (outs TG_Tensor:$grad_input);
  let assemblyFormat = [{
    $grad_output attr-dict `:` functional-type(operands, results)
  }];
}

def TG_GatherBackwardOp : TG_Op<"gather_backward", [Pure,
    InferTypeOpAdaptor, TG_Kernel<>]> {
  let summary = "Gradient of tg.gather";
  let description = [{
    `grad_output` is the gradient of a `tg.gather` output, `axis` and
    `indices` are the gather's and `input_shape` is the shape of its input.
    The result is the scatter-add of `grad_output` into zeros of
    `input_shape`: position j of the axis gets the sum of `grad_output` over
    every index position k with indices[k] = j, in ascending k (f32 sums,
    stored in the gradient's type). Both backends gather that sum per
    gradient element, so they add the same terms in the same order, with no
    atomics. `tg.gather` of `input_shape` must yield the shape of
    `grad_output`.
  }];
  let arguments = (ins TG_Tensor:$grad_output, I64Attr:$axis,
                       I64ElementsAttr:$indices,
                       DenseI64ArrayAttr:$input_shape);
  let results = (outs TG_Tensor:$grad_input);
  let assemblyFormat = [{
    $grad_output attr-dict `:` functional-type(operands, results)
  }];
}

def TG_PadBackwardOp : TG_Op<"pad_backward", [Pure, InferTypeOpAdaptor,
    TG_Kernel<>]> {
  let summary = "Gradient of a tg.pad in edge or reflect mode";
  let description = [{
    `grad_output` is the gradient of a `tg.pad` output, `pads` and `mode`
    are the pad's and `input_shape` is the shape of its input. Each input
    position gets the sum of `grad_output` over the padded positions that
    copied it: itself, and for `edge` the border it repeats, for `reflect`
    the position that mirrors it (per axis; the axes combine as products).
    `tg.pad` of `input_shape` must yield the shape of `grad_output`. A
    constant pad's gradient is a `tg.slice` and does not need this op.
  }];
  let arguments = (ins TG_Tensor:$grad_output, DenseI64ArrayAttr:$pads,
                       TG_PadModeAttr:$mode,
                       DenseI64ArrayAttr:$input_shape);
  let results = (outs TG_Tensor:$grad_input);
  let assemblyFormat = [{
    $grad_output attr-dict `:` functional-type(operands, results)
  }];
}

def TG_BroadcastOp : TG_Op<"broadcast", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<>]> {
  let summary = "NumPy broadcast to a shape";
  let description = [{
    Repeats `input` to `shape` by NumPy broadcasting: the input's axes align
    with the last axes of `shape`, and each has either the size of its
    target axis or size 1 (repeated). The gradient of a reduction and of a
    broadcasting binary op needs it, and ONNX Expand of a run-time value
    imports to it; its own gradient sums the repeated axes back (PyTorch's
    `sum_to_size`).

    ```mlir
    %b = tg.broadcast %x {shape = array<i64: 2, 8, 4, 4>}
        : (tensor<8x1x1xf32>) -> tensor<2x8x4x4xf32>
    ```
  }];
  let arguments = (ins TG_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

//===----------------------------------------------------------------------===//
// Losses
//===----------------------------------------------------------------------===//

// A loss with reduction = mean: a rank-0 tensor of the prediction's element
// type. Its gradient rule (a loss is differentiated like any forward op, so
// that several losses can be summed) is its backward op below; the target
// is data and gets no gradient.
// `flops`: operations per prediction element for the cost model.
class TG_LossOp<string mnemonic, string torchName, string formula, int flops>
    : TG_Op<mnemonic, [Pure, InferTypeOpAdaptor, TG_Differentiable,
                       TG_KernelOpInterface]> {
  let summary = "Mean " # torchName # " of a prediction";
  let description = "PyTorch's `" # torchName # "` with reduction = mean: `" #
      formula # "` over all elements. `prediction` and `target` have one " #
      "type; the result is a rank-0 tensor of their element type.";
  let arguments = (ins TG_Tensor:$prediction, TG_Tensor:$target);
  let results = (outs TG_Tensor:$loss);
  let assemblyFormat = [{
    $prediction `,` $target attr-dict `:` functional-type(operands, results)
  }];
  let extraClassDeclaration = TG_PerElementKernelFacts<flops>.decl;
}

def TG_MSELossOp : TG_LossOp<"mse_loss", "MSELoss",
    "mean((prediction - target)^2)", 3>; // difference, square, sum
def TG_L1LossOp : TG_LossOp<"l1_loss", "L1Loss",
    "mean(|prediction - target|)", 3>; // difference, abs, sum
def TG_BCELossOp : TG_LossOp<"bce_loss", "BCELoss",
    "mean(-(target * max(log(prediction), -100) + "
    "(1 - target) * max(log(1 - prediction), -100)))",
    7>; // two logs, two products, three sums

// The gradient of a mean loss with respect to the prediction; `grad_loss`
// is the rank-0 gradient of the loss and N the number of elements.
class TG_LossBackwardOp<string mnemonic, string forward, string formula,
                        int flops>
    : TG_Op<mnemonic, [Pure, InferTypeOpAdaptor, TG_KernelOpInterface]> {
  let summary = "Gradient of tg." # forward # " with respect to the prediction";
  let description = "Computes `" # formula # "` for every element, N being " #
      "the number of elements of `prediction`, as PyTorch's backward of " #
      "the mean loss. `grad_loss` is the rank-0 gradient of the loss.";
  let arguments = (ins TG_Tensor:$grad_loss, TG_Tensor:$prediction,
                       TG_Tensor:$target);
  let results = (outs TG_Tensor:$grad_prediction);
  let assemblyFormat = [{
    $grad_loss `,` $prediction `,` $target attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDeclaration = TG_PerElementKernelFacts<flops>.decl;
}

def TG_MSELossBackwardOp : TG_LossBackwardOp<"mse_loss_backward", "mse_loss",
    "2 / N * (prediction - target) * grad_loss", 3>;
def TG_L1LossBackwardOp : TG_LossBackwardOp<"l1_loss_backward", "l1_loss",
    "sign(prediction - target) * grad_loss / N", 3>;
def TG_BCELossBackwardOp : TG_LossBackwardOp<"bce_loss_backward", "bce_loss",
    "grad_loss * (prediction - target) / "
    "max((1 - prediction) * prediction, 1e-12) / N", 5>;

// The losses of segmentation take the logits (N x C x ...) and a target
// whose form depends on C; the class indices of a label map are held as
// floats (exact up to 2^24), the element type of every step tensor.
def TG_CrossEntropyLossOp : TG_Op<"cross_entropy_loss",
    [Pure, InferTypeOpAdaptor, TG_Differentiable,
     TG_KernelOpInterface]> {
  let summary = "Mean multi-class cross-entropy over the channel axis";
  let description = [{
    PyTorch's `F.cross_entropy(logits, target)` with reduction = mean:
    `logits` is N x C x D1 x ... (rank >= 2), `target` has the logits'
    shape without axis 1 and holds class indices in [0, C) as floats. The
    loss is the mean over the N x D1 x ... positions of
    `logsumexp(logits[:, :, pos]) - logits[target[pos], pos]`, a rank-0
    tensor. A target outside [0, C) is a runtime error (the trainer checks
    label maps when it reads them).
  }];
  let arguments = (ins TG_Tensor:$logits, TG_Tensor:$target);
  let results = (outs TG_Tensor:$loss);
  let assemblyFormat = [{
    $logits `,` $target attr-dict `:` functional-type(operands, results)
  }];
  // Per logit: a softmax (4), the target term (2).
  let extraClassDeclaration = TG_PerElementKernelFacts<6>.decl;
}

def TG_CrossEntropyLossBackwardOp : TG_Op<"cross_entropy_loss_backward",
    [Pure, InferTypeOpAdaptor, TG_KernelOpInterface]> {
  let summary = "Gradient of tg.cross_entropy_loss with respect to the logits";
  let description = [{
    `grad_loss * (softmax(logits) - onehot(target)) / P` along axis 1, P
    being the number of positions (N x D1 x ...), as PyTorch's backward of
    the mean cross-entropy.
  }];
  let arguments = (ins TG_Tensor:$grad_loss, TG_Tensor:$logits,
                       TG_Tensor:$target);
  let results = (outs TG_Tensor:$grad_logits);
  let assemblyFormat = [{
    $grad_loss `,` $logits `,` $target attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDeclaration = TG_PerElementKernelFacts<6>.decl;
}

def TG_DiceLossOp : TG_Op<"dice_loss",
    [Pure, InferTypeOpAdaptor, TG_Differentiable,
     TG_KernelOpInterface]> {
  let summary = "Soft Dice loss of logits";
  let description = [{
    `1 - (2 * sum(p * t) + epsilon) / (sum(p) + sum(t) + epsilon)`, the sums
    running over every element (batch, classes, positions). With C > 1
    channels, `p = softmax(logits)` over axis 1 and `t` the one-hot encoding
    of `target`, a class-index map of the logits' shape without axis 1;
    with C = 1, `p = sigmoid(logits)` and `t = target`, a float mask of the
    logits' shape. The result is rank 0.
  }];
  let arguments = (ins TG_Tensor:$logits, TG_Tensor:$target,
                       DefaultValuedAttr<F64Attr, "1.0">:$epsilon);
  let results = (outs TG_Tensor:$loss);
  let assemblyFormat = [{
    $logits `,` $target attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = TG_PerElementKernelFacts<8>.decl;
}

def TG_DiceLossBackwardOp : TG_Op<"dice_loss_backward",
    [Pure, InferTypeOpAdaptor, TG_KernelOpInterface]> {
  let summary = "Gradient of tg.dice_loss with respect to the logits";
  let description = [{
    With I = sum(p * t), S = sum(p) + sum(t) and the loss's p, t and
    epsilon: `g = -grad_loss * (2 * t * (S + epsilon) - (2 * I + epsilon)) /
    (S + epsilon)^2` per element, then through the activation: for C > 1
    `p * (g - sum over the channels of p * g)`, for C = 1 `g * p * (1 - p)`.
  }];
  let arguments = (ins TG_Tensor:$grad_loss, TG_Tensor:$logits,
                       TG_Tensor:$target,
                       DefaultValuedAttr<F64Attr, "1.0">:$epsilon);
  let results = (outs TG_Tensor:$grad_logits);
  let assemblyFormat = [{
    $grad_loss `,` $logits `,` $target attr-dict `:`
    functional-type(operands, results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = TG_PerElementKernelFacts<8>.decl;
}

//===----------------------------------------------------------------------===//
// Optimizer updates
//===----------------------------------------------------------------------===//

def TG_SGDUpdateOp : TG_Op<"sgd_update",
    [Pure, AttrSizedOperandSegments, InferTypeOpAdaptor,
     TG_Kernel<["getUpdatedOperand"]>,
     AllTypesMatch<["param", "grad", "new_param"]>,
     OptionalTypesMatchWith<"'momentum_buffer' has the type of 'param'",
                            "param", "momentum_buffer", "$_self">]> {
  let summary = "One step of torch.optim.SGD on a parameter";
  let description = [{
    The update of `torch.optim.SGD` (maximize = false), elementwise, at the
    1-based `step`:

    ```
    g = grad + weight_decay * param
    if momentum != 0:
      buf = step == 1 ? g : momentum * momentum_buffer + (1 - dampening) * g
      g = nesterov ? g + momentum * buf : buf
    new_param = param - lr * g
    new_momentum_buffer = buf
    ```

    The weight-decay term is only added when `weight_decay` is not 0. With
    a non-zero `momentum` the op takes the `momentum_buffer` and the `step`
    (a rank-0 i64 tensor, so that one compiled step serves every step) and
    yields `new_momentum_buffer`; on step 1 the buffer is not read. Without
    momentum it has neither, as torch.optim.SGD keeps no state then. `lr`,
    `momentum` and `weight_decay` must be non-negative; `nesterov` needs a
    positive `momentum` and zero `dampening`.

    ```mlir
    %p1 = tg.sgd_update %p, %g {lr = 0.1} : tensor<6x4xf32>
    %p2, %buf2 = tg.sgd_update %p, %g, %buf, step %step {momentum = 0.9}
        : tensor<6x4xf32>
    ```
  }];
  let arguments = (ins TG_Tensor:$param, TG_Tensor:$grad,
                       Optional<TG_Tensor>:$momentum_buffer,
                       Optional<TG_StepTensor>:$step,
                       DefaultValuedAttr<F64Attr, "1e-3">:$lr,
                       DefaultValuedAttr<F64Attr, "0.0">:$momentum,
                       DefaultValuedAttr<F64Attr, "0.0">:$dampening,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
                       DefaultValuedAttr<BoolAttr, "false">:$nesterov);
  let results = (outs TG_Tensor:$new_param,
                      Optional<TG_Tensor>:$new_momentum_buffer);
  let assemblyFormat = [{
    $param `,` $grad (`,` $momentum_buffer^)? (`,` `step` $step^)? attr-dict
    `:` type($param)
  }];
  let hasVerifier = 1;
}

def TG_AdamUpdateOp : TG_Op<"adam_update",
    [Pure, InferTypeOpAdaptor, TG_Kernel<["getUpdatedOperand"]>,
     AllTypesMatch<["param", "grad", "exp_avg", "exp_avg_sq"]>]> {
  let summary = "One step of torch.optim.Adam or AdamW on a parameter";
  let description = [{
    The update of `torch.optim.Adam` (`decoupled` = false) or
    `torch.optim.AdamW` (`decoupled` = true), with amsgrad = false and
    maximize = false, at the 1-based `step` (a rank-0 i64 tensor, so that
    one compiled step serves every step), elementwise:

    ```
    g = decoupled ? grad : grad + weight_decay * param
    p = decoupled ? param * (1 - lr * weight_decay) : param
    new_exp_avg = beta1 * exp_avg + (1 - beta1) * g
    new_exp_avg_sq = beta2 * exp_avg_sq + (1 - beta2) * g * g
    denom = sqrt(new_exp_avg_sq) / sqrt(1 - beta2^step) + eps
    new_param = p - lr / (1 - beta1^step) * new_exp_avg / denom
    ```

    PyTorch evaluates `new_exp_avg` as exp_avg + (1 - beta1) * (g - exp_avg)
    (a lerp), which rounds differently from the formula above. `lr` and
    `weight_decay` must be non-negative, `beta1` and `beta2` in [0, 1) and
    `eps` positive; `step` must be at least 1 when the step runs.

    ```mlir
    %p1, %m1, %v1 = tg.adam_update %p, %g, %m, %v, step %step {lr = 1.0e-3}
        : tensor<6x4xf32>
    ```
  }];
  let arguments = (ins TG_Tensor:$param, TG_Tensor:$grad, TG_Tensor:$exp_avg,
                       TG_Tensor:$exp_avg_sq, TG_StepTensor:$step,
                       DefaultValuedAttr<F64Attr, "1e-3">:$lr,
                       DefaultValuedAttr<F64Attr, "0.9">:$beta1,
                       DefaultValuedAttr<F64Attr, "0.999">:$beta2,
                       DefaultValuedAttr<F64Attr, "1e-8">:$eps,
                       DefaultValuedAttr<F64Attr, "0.0">:$weight_decay,
                       DefaultValuedAttr<BoolAttr, "false">:$decoupled);
  let results = (outs TG_Tensor:$new_param, TG_Tensor:$new_exp_avg,
                      TG_Tensor:$new_exp_avg_sq);
  let assemblyFormat = [{
    $param `,` $grad `,` $exp_avg `,` $exp_avg_sq `,` `step` $step attr-dict
    `:` type($param)
  }];
  let hasVerifier = 1;
}

#endif // MEMOPT_DIALECT_TG_IR_TGGRADOPS_TD
