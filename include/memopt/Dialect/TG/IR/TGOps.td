//===- TGOps.td - Operations of the tg dialect -------------*- tablegen -*-===//
//
// Forward operators of convolutional networks on NCHW tensors. Attribute
// conventions follow ONNX where ONNX is unambiguous (pads are
// [begin..., end...] per spatial axis) so that the importer is a direct map;
// BatchNorm momentum follows PyTorch because the training step reproduces
// PyTorch's running-statistics update.
//
//===----------------------------------------------------------------------===//

#ifndef MEMOPT_DIALECT_TG_IR_TGOPS_TD
#define MEMOPT_DIALECT_TG_IR_TGOPS_TD

include "memopt/Dialect/TG/IR/TGDialect.td"
include "memopt/Dialect/TG/IR/TGEnums.td"
include "memopt/Dialect/TG/IR/TGInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Interfaces
//===----------------------------------------------------------------------===//

// A differentiable op: its gradient rule is in TGGradients.cpp.
defvar TG_Differentiable = DeclareOpInterfaceMethods<TG_GradientOpInterface>;

// An op that runs a kernel, with its facts in TGKernelFacts.cpp:
// getFlops and isCheapToRecompute, and the defaults listed in `overrides`.
class TG_Kernel<list<string> overrides = []>
    : DeclareOpInterfaceMethods<TG_KernelOpInterface, overrides>;

// The kernel facts of an op that does `flops` operations per element
// (elementwise ops, losses: one loop over the elements); cheap to
// recompute.
class TG_PerElementKernelFacts<int flops> {
  code decl = [{
    uint64_t getFlops() {
      return ::memopt::tg::detail::perElementFlops(*this, }] #
      !cast<string>(flops) # [{);
    }
    bool isCheapToRecompute() { return true; }
  }];
}

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

def TG_ConstantOp : TG_Op<"constant",
    [ConstantLike, Pure, InferTypeOpAdaptor]> {
  let summary = "A constant tensor";
  let description = [{
    A tensor whose value is known at compile time, such as a scale factor or
    a constant operand of an arithmetic op. Trainable weights are not
    constants: they are function arguments marked `tg.param`.

    ```mlir
    %c = tg.constant dense<1.0> : tensor<1x1x1x1xf32>
    ```
  }];
  let arguments = (ins ElementsAttr:$value);
  let results = (outs AnyStaticShapeTensor:$output);
  let assemblyFormat = "attr-dict $value";
  let hasFolder = 1;
  let extraClassDeclaration = [{
    /// A rank-0 constant of `elementType` holding `value` (a gradient seed,
    /// a scale factor).
    static ConstantOp createScalar(::mlir::OpBuilder &builder,
                                   ::mlir::Location loc,
                                   ::mlir::Type elementType, double value);
  }];
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

def TG_ConvOp : TG_Op<"conv", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<["getWorkspaceBytes"]>]> {
  let summary = "1-D, 2-D or 3-D convolution (cross-correlation)";
  let description = [{
    `input` is N x C x D1 x ... x Dk with k = 1, 2 or 3 spatial axes (NCW,
    NCHW, NCDHW), `weight` is O x C/groups x K1 x ... x Kk and the optional
    `bias` has O elements. `strides` and `dilations` have k values, `pads`
    2k: the begins of every spatial axis, then the ends (ONNX order; [top,
    left, bottom, right] in 2-D). The output is N x O x D1' x ... x Dk' with
    Di' = (Di + begin_i + end_i - dilation_i * (Ki - 1) - 1) / stride_i + 1.
    The name is historical: one op serves every rank.
  }];
  let arguments = (ins TG_SpatialTensor:$input, TG_SpatialTensor:$weight,
                       Optional<TG_1DTensor>:$bias,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs TG_SpatialTensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

def TG_ConvTransposeOp : TG_Op<"conv_transpose", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<["getWorkspaceBytes"]>]> {
  let summary = "1-D, 2-D or 3-D transposed convolution";
  let description = [{
    The adjoint of `tg.conv`, of the same ranks: `input` is
    N x C x D1 x ... x Dk, `weight` is C x O/groups x K1 x ... x Kk, the
    optional `bias` has O elements; `output_padding` has k values. The
    output extent of axis i is (Di - 1) * stride_i - begin_i - end_i +
    dilation_i * (Ki - 1) + output_padding_i + 1.
  }];
  let arguments = (ins TG_SpatialTensor:$input, TG_SpatialTensor:$weight,
                       Optional<TG_1DTensor>:$bias,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0}">:$output_padding,
                       DefaultValuedAttr<I64Attr, "1">:$groups);
  let results = (outs TG_SpatialTensor:$output);
  let assemblyFormat = [{
    $input `,` $weight (`,` $bias^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Normalization
//===----------------------------------------------------------------------===//

def TG_BatchNormOp : TG_Op<"batch_norm", [Pure, InferTypeOpAdaptor,
    TG_Differentiable,
    TG_Kernel<["getInPlaceOperands", "getUpdatedOperand"]>]> {
  let summary = "Batch normalization in training mode";
  let description = [{
    Normalizes `input` (N x C x ...) with the statistics of the batch:
    `output = (input - mean) * inv_std * scale + bias` where `mean` and the
    biased variance are taken over every axis but the channel axis and
    `inv_std = 1 / sqrt(var + epsilon)`.

    The op also yields the updated running statistics with PyTorch's rule,
    `new = (1 - momentum) * running + momentum * batch`, using the unbiased
    batch variance for `new_running_var`; and the batch mean and inverse
    standard deviation that the backward pass reuses.
  }];
  let arguments = (ins TG_Tensor:$input, TG_1DTensor:$scale,
                       TG_1DTensor:$bias, TG_1DTensor:$running_mean,
                       TG_1DTensor:$running_var,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon,
                       DefaultValuedAttr<F64Attr, "0.1">:$momentum);
  let results = (outs TG_Tensor:$output, TG_1DTensor:$new_running_mean,
                      TG_1DTensor:$new_running_var, TG_1DTensor:$saved_mean,
                      TG_1DTensor:$saved_inv_std);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $running_mean `,` $running_var attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TG_BatchNormInferenceOp : TG_Op<"batch_norm_inference",
    [Pure, InferTypeOpAdaptor, TG_Differentiable,
     TG_Kernel<["getInPlaceOperands"]>]> {
  let summary = "Batch normalization with given statistics";
  let description = [{
    `output = (input - mean) / sqrt(var + epsilon) * scale + bias`, per
    channel (axis 1), with fixed `mean` and `var`.
  }];
  let arguments = (ins TG_Tensor:$input, TG_1DTensor:$scale,
                       TG_1DTensor:$bias, TG_1DTensor:$mean, TG_1DTensor:$var,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias `,` $mean `,` $var attr-dict
    `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

def TG_InstanceNormOp : TG_Op<"instance_norm", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<>]> {
  let summary = "Instance normalization (ONNX InstanceNormalization)";
  let description = [{
    Normalizes every (sample, channel) slice of `input` (N x C x D1 x ...,
    rank at least 3) with its own statistics over the axes after the
    channel axis: `output = (input - mean) * inv_std * scale + bias`, where
    `inv_std = 1 / sqrt(var + epsilon)` with the biased variance. `scale`
    and `bias` have C elements. `saved_mean` and `saved_inv_std` (N x C,
    of the element type of `scale`) hold the statistics for the backward
    pass: under mixed precision a bf16 or f16 input and output with f32
    scale, bias and statistics, computed in f32 (tg-amp).

    PyTorch exports `InstanceNorm2d` as this op and `GroupNorm(G, C)` as a
    reshape to N x G x (C / G * H * W), this op with unit scale and zero
    bias, a reshape back, then the per-channel affine `mul` and `add`.

    ```mlir
    %y, %mean, %inv = tg.instance_norm %x, %scale, %bias {epsilon = 1.0e-5}
        : (tensor<2x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>)
        -> (tensor<2x8x4x4xf32>, tensor<2x8xf32>, tensor<2x8xf32>)
    ```
  }];
  let arguments = (ins TG_Tensor:$input, TG_1DTensor:$scale,
                       TG_1DTensor:$bias,
                       DefaultValuedAttr<F64Attr, "1e-5">:$epsilon);
  let results = (outs TG_Tensor:$output, TG_Tensor:$saved_mean,
                      TG_Tensor:$saved_inv_std);
  let assemblyFormat = [{
    $input `,` $scale `,` $bias attr-dict `:` functional-type(operands, results)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

// `flops`: operations per element for the cost model (a transcendental
// function counts as one).
class TG_UnaryOp<string mnemonic, string formula, int flops,
                 list<Trait> traits = []>
    : TG_Op<mnemonic, !listconcat(traits,
        [Pure, Elementwise, SameOperandsAndResultType, InferTypeOpInterface,
         TG_KernelOpInterface])> {
  let summary = "Elementwise " # formula;
  let description = "Computes `" # formula # "` for every element.";
  let arguments = (ins TG_Tensor:$input);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let extraClassDeclaration = TG_PerElementKernelFacts<flops>.decl;
}

def TG_ReluOp : TG_UnaryOp<"relu", "max(x, 0)", 1, [TG_Differentiable]>;
// exp, add, divide, (negate).
def TG_SigmoidOp : TG_UnaryOp<"sigmoid", "1 / (1 + exp(-x))", 4,
                              [TG_Differentiable]>;
def TG_TanhOp : TG_UnaryOp<"tanh", "tanh(x)", 4, [TG_Differentiable]>;
def TG_NegOp : TG_UnaryOp<"neg", "-x", 1, [TG_Differentiable]> {
  let hasFolder = 1;
}
def TG_ExpOp : TG_UnaryOp<"exp", "exp(x)", 1, [TG_Differentiable]>;
def TG_LogOp : TG_UnaryOp<"log", "log(x)", 1, [TG_Differentiable]>;
def TG_SqrtOp : TG_UnaryOp<"sqrt", "sqrt(x)", 1, [TG_Differentiable]>;
def TG_AbsOp : TG_UnaryOp<"abs", "|x|", 1, [TG_Differentiable]>;

def TG_LeakyReluOp : TG_UnaryOp<"leaky_relu", "x >= 0 ? x : alpha * x", 2,
                                [TG_Differentiable]> {
  let arguments = (ins TG_Tensor:$input,
                       DefaultValuedAttr<F64Attr, "0.01">:$alpha);
}

def TG_ClipOp : TG_UnaryOp<"clip", "min(max(x, min), max)", 2,
                          [TG_Differentiable]> {
  let arguments = (ins TG_Tensor:$input, F64Attr:$min, F64Attr:$max);
  let hasVerifier = 1;
}

// The activations of MobileNetV3, ELU networks and exported GELU. The
// formulas are PyTorch's (hard_swish: torch's x * relu6(x + 3) / 6).
def TG_HardSigmoidOp : TG_UnaryOp<"hard_sigmoid",
    "max(0, min(1, alpha * x + beta))", 3, [TG_Differentiable]> {
  let arguments = (ins TG_Tensor:$input,
                       DefaultValuedAttr<F64Attr, "0.2">:$alpha,
                       DefaultValuedAttr<F64Attr, "0.5">:$beta);
}
def TG_HardSwishOp : TG_UnaryOp<"hard_swish", "x * min(max(x + 3, 0), 6) / 6",
    4, [TG_Differentiable]>; // add, clamp, multiply, divide
def TG_EluOp : TG_UnaryOp<"elu", "x > 0 ? x : alpha * (exp(x) - 1)", 3,
    [TG_Differentiable]> {
  let arguments = (ins TG_Tensor:$input,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha);
}
// PyTorch's threshold: above 20 the result is x itself (log1p(exp(x))
// rounds to x in float there).
def TG_SoftplusOp : TG_UnaryOp<"softplus", "x > 20 ? x : log(1 + exp(x))", 3,
    [TG_Differentiable]>;
def TG_ErfOp : TG_UnaryOp<"erf", "erf(x)", 2, [TG_Differentiable]>;
// Its gradient is zero (PyTorch's floor backward): EfficientNet's
// drop_connect floors `keep + uniform` into its 0/1 mask.
def TG_FloorOp : TG_UnaryOp<"floor", "floor(x)", 1, [TG_Differentiable]>;

def TG_PReluOp : TG_Op<"prelu", [Pure, InferTypeOpAdaptor, TG_Differentiable,
    TG_KernelOpInterface]> {
  let summary = "Parametric ReLU: x > 0 ? x : slope * x";
  let description = [{
    ONNX PRelu: `slope` broadcasts to `input` (NumPy rules, one direction:
    the result has the input's shape), typically C x 1 x 1 for one slope per
    channel, or a single element.

    ```mlir
    %y = tg.prelu %x, %a : (tensor<2x8x4x4xf32>, tensor<8x1x1xf32>) -> tensor<2x8x4x4xf32>
    ```
  }];
  let arguments = (ins TG_Tensor:$input, TG_Tensor:$slope);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = [{
    $input `,` $slope attr-dict `:` functional-type(operands, results)
  }];  // Not in place: the slope operand need not have the input's type.
  let extraClassDeclaration = TG_PerElementKernelFacts<2>.decl;
}

// Normalized exponentials over one axis (ONNX opset 13 and later).
class TG_SoftmaxFamilyOp<string mnemonic, string formula>
    : TG_Op<mnemonic, [Pure, SameOperandsAndResultType, InferTypeOpInterface,
                       TG_Differentiable, TG_KernelOpInterface]> {
  let summary = formula # " over one axis";
  let description = "Computes `" # formula # "` along `axis` (0 <= axis < " #
      "rank), for every position of the other axes, with the maximum " #
      "subtracted first (as PyTorch) so that large inputs do not overflow.";
  let arguments = (ins TG_Tensor:$input, I64Attr:$axis);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  // max, exp, sum, normalize; not in place (each row is read twice).
  let extraClassDeclaration = TG_PerElementKernelFacts<4>.decl;
}

def TG_SoftmaxOp : TG_SoftmaxFamilyOp<"softmax",
    "exp(x - max(x)) / sum(exp(x - max(x)))">;
def TG_LogSoftmaxOp : TG_SoftmaxFamilyOp<"log_softmax",
    "x - max(x) - log(sum(exp(x - max(x))))">;

class TG_BinaryOp<string mnemonic, string formula>
    : TG_Op<mnemonic, [Pure, InferTypeOpAdaptor, TG_Differentiable,
                       TG_KernelOpInterface]> {
  let summary = "Elementwise " # formula # " with broadcasting";
  let description = [{
    Applies the operator to every element pair after NumPy broadcasting of
    the operand shapes (the ONNX rule). Both operands have one element type.
  }];
  let arguments = (ins TG_Tensor:$lhs, TG_Tensor:$rhs);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
  let extraClassDeclaration = TG_PerElementKernelFacts<1>.decl # [{
    /// Both operands when neither broadcasts.
    ::llvm::SmallVector<unsigned, 2> getInPlaceOperands(unsigned result) {
      return ::memopt::tg::detail::nonBroadcastingOperands(*this);
    }
  }];
}

def TG_AddOp : TG_BinaryOp<"add", "lhs + rhs">;
def TG_SubOp : TG_BinaryOp<"sub", "lhs - rhs">;
def TG_MulOp : TG_BinaryOp<"mul", "lhs * rhs">;
def TG_DivOp : TG_BinaryOp<"div", "lhs / rhs">;

def TG_CompareOp : TG_BinaryOp<"compare", "comparison"> {
  let summary = "Elementwise comparison giving 1 or 0, with broadcasting";
  let description = [{
    `output` is 1 where `lhs predicate rhs` holds (`lt`: <, `le`: <=, `gt`:
    >, `ge`: >=, `eq`: ==) and 0 elsewhere, after NumPy broadcasting, in
    the operands' float type: ONNX `Less` (and its relatives) followed by a
    `Cast` to float, the mask of a drop-path
    (`x.new_empty(...).bernoulli_(keep)` exports as `Less(uniform, keep)`),
    or the condition of a `tg.select`.
    The result is piecewise constant: its gradient is zero for both
    operands.

    ```mlir
    %m = tg.compare %u, %p {predicate = #tg<comparison lt>}
        : (tensor<2x1x1x1xf32>, tensor<f32>) -> tensor<2x1x1x1xf32>
    ```
  }];
  let arguments = (ins TG_Tensor:$lhs, TG_Tensor:$rhs,
                       TG_ComparisonPredicateAttr:$predicate);
  let hasFolder = 0;
}

def TG_SelectOp : TG_Op<"select", [Pure, InferTypeOpAdaptor, TG_Differentiable,
    TG_KernelOpInterface]> {
  let summary = "Elementwise choice between two tensors, with broadcasting";
  let description = [{
    `output` is `on_true` where `condition` is not 0 and `on_false` where it
    is 0, after NumPy broadcasting of the three operands, which have one
    float element type: ONNX `Where` whose condition is a comparison of
    run-time tensors (a `tg.compare` mask). The element of the branch not
    chosen is never read into the result, so an inf or NaN there does not
    leak: the exported `F.softplus` is `Where(x * beta > threshold, x,
    Softplus(x * beta) / beta)`, whose second branch overflows where the
    first is chosen.

    The gradient is PyTorch's: the output gradient where `condition` chose
    the operand and 0 elsewhere, summed back to each branch's shape; the
    condition gets none.

    ```mlir
    %y = tg.select %m, %x, %s
        : (tensor<2x8xf32>, tensor<2x8xf32>, tensor<f32>) -> tensor<2x8xf32>
    ```
  }];
  let arguments = (ins TG_Tensor:$condition, TG_Tensor:$on_true,
                       TG_Tensor:$on_false);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = [{
    $condition `,` $on_true `,` $on_false attr-dict `:`
    functional-type(operands, results)
  }];
  let extraClassDeclaration = TG_PerElementKernelFacts<1>.decl;
}

def TG_DropoutOp : TG_Op<"dropout", [InferTypeOpAdaptor, TG_Differentiable,
                                     TG_Kernel<>]> {
  let summary = "Dropout in training mode";
  let description = [{
    Zeroes each element with probability `ratio` and scales the rest by
    1 / (1 - ratio). `mask` holds the factor applied to every element (0 or
    1 / (1 - ratio)) so that backward multiplies the incoming gradient by it.
    The op draws random numbers, hence it is not `Pure`.
  }];
  let arguments = (ins TG_Tensor:$input, F64Attr:$ratio);
  let results = (outs TG_Tensor:$output, TG_Tensor:$mask);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def TG_RandomUniformOp : TG_Op<"random_uniform", [Pure, TG_Kernel<>]> {
  let summary = "Seeded uniform random numbers in [low, high)";
  let description = [{
    A tensor of the result type whose element j is
    `low + (high - low) * u_j`, with u_j a 24-bit fraction in [0, 1) drawn
    by a counter-based generator from (the step's seed, `stream`, j):
    memopt/Runtime/Random.h. The values are a function of those alone, not
    of how many numbers were drawn before, so a rematerialized clone of the
    op (same `stream`) draws the same numbers, a resumed run the numbers of
    an uninterrupted one, and every step new ones. `--seed` governs them.

    Distinct random ops have distinct streams (the importer numbers them in
    graph order), so that CSE merges only ops that draw the same numbers.
    The op has no operands: its result is a constant with respect to the
    parameters, and it has no gradient. Drop-path and drop-connect masks
    are built from it with `tg.compare` or `tg.floor` (ONNX
    `RandomUniformLike`, `RandomUniform`, `Bernoulli`).

    ```mlir
    %u = tg.random_uniform {high = 1.0 : f64, low = 0.0 : f64, stream = 0 : i64}
        : tensor<2x1x1x1xf32>
    ```
  }];
  let arguments = (ins DefaultValuedAttr<F64Attr, "0.0">:$low,
                       DefaultValuedAttr<F64Attr, "1.0">:$high,
                       I64Attr:$stream);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = "attr-dict `:` type($output)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Element type conversion
//===----------------------------------------------------------------------===//

def TG_CastOp : TG_Op<"cast", [Pure, TG_Differentiable, TG_Kernel<>]> {
  let summary = "Element type conversion between f32, bf16 and f16";
  let description = [{
    Converts every element of `input` to the element type of the result,
    with the shape unchanged: f32 to bf16 or f16 rounds to nearest even (as
    PyTorch's `Tensor.to`), bf16 or f16 to f32 is exact. Mixed precision
    inserts it around the ops it runs in bf16 or f16. A cast to the input's
    own type folds away. Its gradient is the result gradient cast back to
    the input's type.

    ```mlir
    %h = tg.cast %x : tensor<2x8xf32> to tensor<2x8xbf16>
    ```
  }];
  let arguments = (ins TG_Tensor:$input);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `to` type($output)";
  let hasFolder = 1;
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Pooling and resizing
//===----------------------------------------------------------------------===//

def TG_MaxPoolOp : TG_Op<"max_pool", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<>]> {
  let summary = "1-D, 2-D or 3-D max pooling";
  let description = [{
    Max over `kernel` windows of an N x C x D1 x ... x Dk input (k = 1, 2
    or 3); `kernel`, `strides` and `dilations` have k values, `pads` the
    begins of every spatial axis, then the ends ([top, left, bottom, right]
    in 2-D), and padded positions never win. With `ceil_mode` the output
    size rounds up, as long as the last window starts inside the input or
    the begin pad.
  }];
  let arguments = (ins TG_SpatialTensor:$input, DenseI64ArrayAttr:$kernel,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$dilations,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode);
  let results = (outs TG_SpatialTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def TG_AvgPoolOp : TG_Op<"avg_pool", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<>]> {
  let summary = "1-D, 2-D or 3-D average pooling";
  let description = [{
    Mean over `kernel` windows, with the per-axis attributes of
    `tg.max_pool`. With `count_include_pad` padded zeros count in the
    divisor.
  }];
  let arguments = (ins TG_SpatialTensor:$input, DenseI64ArrayAttr:$kernel,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{1, 1}">:$strides,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{0, 0, 0, 0}">:$pads,
                       DefaultValuedAttr<BoolAttr, "false">:$ceil_mode,
                       DefaultValuedAttr<BoolAttr, "false">:$count_include_pad);
  let results = (outs TG_SpatialTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def TG_GlobalAvgPoolOp : TG_Op<"global_avg_pool", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<>]> {
  let summary = "Mean over all spatial positions";
  let description = "N x C x D1 x ... x Dk to N x C x 1 x ... x 1 (k = 1, 2 or 3).";
  let arguments = (ins TG_SpatialTensor:$input);
  let results = (outs TG_SpatialTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def TG_ResizeOp : TG_Op<"resize", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<>]> {
  let summary = "Spatial resize of a 1-D, 2-D or 3-D tensor";
  let description = [{
    Resamples the spatial axes of an N x C x D1 x ... x Dk tensor (k = 1, 2
    or 3) to `sizes`, with one scale per spatial axis; `bilinear` mode
    interpolates linearly along every spatial axis (linear, bilinear,
    trilinear). `scales` are the factors the source
    coordinates are computed with (ONNX computes with the given scales, not
    with sizes / input sizes); `coordinate_mode` and `nearest_mode` follow
    the ONNX Resize attributes of the same names.

    ```mlir
    %up = tg.resize %x {mode = #tg<resize_mode nearest>,
                        coordinate_mode = #tg<coordinate_mode asymmetric>,
                        nearest_mode = #tg<nearest_mode floor>,
                        sizes = array<i64: 64, 64>,
                        scales = array<f64: 2.0, 2.0>}
        : (tensor<1x8x32x32xf32>) -> tensor<1x8x64x64xf32>
    ```
  }];
  let arguments = (ins TG_SpatialTensor:$input, TG_ResizeModeAttr:$mode,
                       TG_CoordinateModeAttr:$coordinate_mode,
                       DefaultValuedAttr<TG_NearestModeAttr,
                           "NearestMode::round_prefer_floor">:$nearest_mode,
                       DenseI64ArrayAttr:$sizes, DenseF64ArrayAttr:$scales);
  let results = (outs TG_SpatialTensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape manipulation
//===----------------------------------------------------------------------===//

def TG_ConcatOp : TG_Op<"concat", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<>]> {
  let summary = "Concatenation along one axis";
  let description = [{
    Joins the operands along `axis`; all other dimensions must agree.
  }];
  let arguments = (ins Variadic<TG_Tensor>:$inputs, I64Attr:$axis);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = [{
    $inputs attr-dict `:` functional-type(operands, results)
  }];
  let hasFolder = 1;
}

def TG_SliceOp : TG_Op<"slice", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<>]> {
  let summary = "Strided crop";
  let description = [{
    Keeps, on every axis d, the indices starts[d], starts[d] + steps[d], ...
    below ends[d]. Indices are normalized: 0 <= start < end <= dim and
    step >= 1.
  }];
  let arguments = (ins TG_Tensor:$input, DenseI64ArrayAttr:$starts,
                       DenseI64ArrayAttr:$ends, DenseI64ArrayAttr:$steps);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def TG_GatherOp : TG_Op<"gather", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<>]> {
  let summary = "Selection along one axis at indices known at compile time";
  let description = [{
    ONNX Gather with constant indices: output[a..., i..., b...] =
    input[a..., indices[i...], b...], where a ranges over the axes before
    `axis` and b over those after. The output shape is
    `input.shape[:axis] + indices.shape + input.shape[axis+1:]` (a rank-0
    `indices` drops the axis). Indices are normalized: 0 <= index <
    input.shape[axis]; they may repeat.

    ```mlir
    %b = tg.gather %table {axis = 0 : i64,
                           indices = dense<[[0, 2], [2, 1]]> : tensor<2x2xi64>}
        : (tensor<3x4xf32>) -> tensor<2x2x4xf32>
    ```
  }];
  let arguments = (ins TG_Tensor:$input, I64Attr:$axis,
                       I64ElementsAttr:$indices);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def TG_PadOp : TG_Op<"pad", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<>]> {
  let summary = "Padding of every axis";
  let description = [{
    `pads` holds the r begin paddings, then the r end paddings (ONNX
    order), all non-negative. `mode` is constant (filled with `value`),
    reflect (mirror without repeating the border; pads must be smaller than
    the axis) or edge (repeat the border).
  }];
  let arguments = (ins TG_Tensor:$input, DenseI64ArrayAttr:$pads,
                       DefaultValuedAttr<TG_PadModeAttr, "PadMode::constant">:$mode,
                       DefaultValuedAttr<F64Attr, "0.0">:$value);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

def TG_ReshapeOp : TG_Op<"reshape", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<>]> {
  let summary = "Reinterpretation of a tensor with another static shape";
  let description = [{
    Row-major reshape to `shape` (all dimensions positive, same element
    count). ONNX Reshape and Flatten both import as this op.
  }];
  let arguments = (ins TG_Tensor:$input, DenseI64ArrayAttr:$shape);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
  let hasCanonicalizer = 1;
}

def TG_TransposeOp : TG_Op<"transpose", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<>]> {
  let summary = "Permutation of the axes";
  let description = "`output` dimension i is `input` dimension perm[i].";
  let arguments = (ins TG_Tensor:$input, DenseI64ArrayAttr:$perm);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
  let hasFolder = 1;
}

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

def TG_MatMulOp : TG_Op<"matmul", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<>]> {
  let summary = "Batched matrix product";
  let description = [{
    ONNX/NumPy MatMul on operands of rank >= 2: the last two axes multiply
    (... x M x K times ... x K x N), the leading axes broadcast.
  }];
  let arguments = (ins TG_Tensor:$lhs, TG_Tensor:$rhs);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` functional-type(operands, results)
  }];
}

def TG_GemmOp : TG_Op<"gemm", [Pure, InferTypeOpAdaptor,
    TG_Differentiable, TG_Kernel<>]> {
  let summary = "General matrix multiply: alpha * op(A) * op(B) + beta * C";
  let description = [{
    ONNX Gemm: `a` and `b` have rank 2 and are transposed when `trans_a` /
    `trans_b` is set; the optional `c` broadcasts to M x N.
  }];
  let arguments = (ins TG_Tensor:$a, TG_Tensor:$b, Optional<TG_Tensor>:$c,
                       DefaultValuedAttr<F64Attr, "1.0">:$alpha,
                       DefaultValuedAttr<F64Attr, "1.0">:$beta,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_a,
                       DefaultValuedAttr<BoolAttr, "false">:$trans_b);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = [{
    $a `,` $b (`,` $c^)? attr-dict `:` functional-type(operands, results)
  }];
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

class TG_ReduceOp<string mnemonic, string what>
    : TG_Op<mnemonic, [Pure, InferTypeOpAdaptor, TG_Differentiable,
                       TG_Kernel<>]> {
  let summary = "Reduction by " # what # " over axes";
  let description = [{
    Reduces over `axes` (sorted, distinct, in range; empty means all axes).
    With `keepdims` the reduced axes stay with size 1.
  }];
  let arguments = (ins TG_Tensor:$input,
                       DefaultValuedAttr<DenseI64ArrayAttr, "{}">:$axes,
                       DefaultValuedAttr<BoolAttr, "true">:$keepdims);
  let results = (outs TG_Tensor:$output);
  let assemblyFormat = "$input attr-dict `:` functional-type(operands, results)";
}

def TG_ReduceSumOp : TG_ReduceOp<"reduce_sum", "sum">;
def TG_ReduceMeanOp : TG_ReduceOp<"reduce_mean", "mean">;

include "memopt/Dialect/TG/IR/TGGradOps.td"
include "memopt/Dialect/TG/IR/TGFusedOps.td"
include "memopt/Dialect/TG/IR/TGTransferOps.td"
include "memopt/Dialect/TG/IR/TGOffloadOps.td"

#endif // MEMOPT_DIALECT_TG_IR_TGOPS_TD
