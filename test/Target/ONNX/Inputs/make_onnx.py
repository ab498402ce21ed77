#!/usr/bin/python3
"""Build the small ONNX models of the importer tests, one per case name.

Usage: make_onnx.py CASE OUT.onnx

Models are built with onnx.helper, opset 17 unless the case is about another
opset, and pass the ONNX checker unless the case is about failing it. Graph
outputs get symbolic dims (the ONNX 1.12 checker wants a shape) that shape
inference replaces. A few cases write raw bytes instead of a model.
"""
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

FLOAT = TensorProto.FLOAT
INT64 = TensorProto.INT64
INT64_MAX = 2**63 - 1


def inp(name, shape, dtype=FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


def out(name, rank, dtype=FLOAT):
    return helper.make_tensor_value_info(
        name, dtype, [f"{name}_d{i}" for i in range(rank)])


def weight(name, shape):
    """A float initializer with distinct, deterministic values."""
    n = int(np.prod(shape))
    values = (np.arange(n, dtype=np.float32) % 7 - 3) / 8
    return numpy_helper.from_array(values.reshape(shape), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def floats(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.float32), name)


def node(op, inputs, outputs, name=None, **attrs):
    return helper.make_node(op, inputs, outputs, name=name or outputs[0],
                            **attrs)


def const(name, array):
    """A Constant node producing `array` under `name`."""
    return helper.make_node("Constant", [], [name], name=name,
                            value=numpy_helper.from_array(array, name))


def int_const(name, values):
    return const(name, np.array(values, dtype=np.int64))


def model(nodes, inputs, outputs, inits=(), opset=17, check=True):
    graph = helper.make_graph(nodes, "test", inputs, outputs,
                              initializer=list(inits))
    m = helper.make_model(graph, producer_name="make_onnx",
                          producer_version="1",
                          opset_imports=[helper.make_opsetid("", opset)])
    if check:
        onnx.checker.check_model(m)
    return m


# --- Positive cases ----------------------------------------------------------

def case_conv():
    x = inp("x", [1, 4, 9, 9])
    return model(
        [node("Conv", ["x", "w_pads", "b_pads"], ["pads_strides"],
              pads=[1, 2, 1, 0], strides=[2, 2]),
         node("Conv", ["x", "w_group"], ["dilated_grouped"], group=2,
              dilations=[2, 2]),
         node("Conv", ["x", "w_upper"], ["same_upper"], auto_pad="SAME_UPPER",
              strides=[2, 2]),
         node("Conv", ["x", "w_lower"], ["same_lower"], auto_pad="SAME_LOWER",
              strides=[2, 2]),
         node("Conv", ["x", "w_valid"], ["valid"], auto_pad="VALID")],
        [x],
        [out(n, 4) for n in ("pads_strides", "dilated_grouped", "same_upper",
                             "same_lower", "valid")],
        [weight("w_pads", [8, 4, 3, 3]), weight("b_pads", [8]),
         weight("w_group", [6, 2, 3, 3]), weight("w_upper", [2, 4, 4, 4]),
         weight("w_lower", [2, 4, 4, 4]), weight("w_valid", [2, 4, 3, 3])])


def case_conv3d_zero_bias():
    """torch.export's conv3d without bias (onnxscript 0.7): a bias of zeros
    expanded to [C, 2] from the weight's shape, and a constant zero bias
    of the right shape; a constant non-zero bias stays."""
    x = inp("x", [1, 2, 4, 4, 4])
    return model(
        [node("Shape", ["w"], ["c"], start=0, end=1),
         int_const("two", [2]),
         node("Concat", ["c", "two"], ["bias_shape"], axis=0),
         const("zero", np.array(0.0, np.float32)),
         node("CastLike", ["zero", "x"], ["zero_like"]),
         node("Expand", ["zero_like", "bias_shape"], ["bias"]),
         node("Conv", ["x", "w", "bias"], ["y"], pads=[1] * 6),
         const("zeros", np.zeros([3], np.float32)),
         node("Conv", ["x", "w", "zeros"], ["z"], pads=[1] * 6),
         const("ones", np.ones([3], np.float32)),
         node("Conv", ["x", "w", "ones"], ["o"], pads=[1] * 6)],
        [x], [out("y", 5), out("z", 5), out("o", 5)],
        [weight("w", [3, 2, 3, 3, 3])], opset=18, check=False)


def case_conv_transpose():
    x = inp("x", [1, 4, 5, 5])
    return model(
        [node("ConvTranspose", ["x", "w", "b"], ["output_padding"],
              strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1]),
         node("ConvTranspose", ["x", "w"], ["output_shape"], strides=[2, 2],
              output_shape=[10, 10]),
         node("ConvTranspose", ["x", "w_grouped"], ["grouped"], group=2)],
        [x],
        [out("output_padding", 4), out("output_shape", 4), out("grouped", 4)],
        [weight("w", [4, 2, 3, 3]), weight("b", [2]),
         weight("w_grouped", [4, 3, 2, 2])])


def bn_inits(prefix, c):
    return [weight(f"{prefix}.weight", [c]), weight(f"{prefix}.bias", [c]),
            floats(f"{prefix}.running_mean", [0.0] * c),
            floats(f"{prefix}.running_var", [1.0] * c)]


def bn_inputs(prefix, x):
    return [x] + [f"{prefix}.{n}" for n in
                  ("weight", "bias", "running_mean", "running_var")]


def case_batch_norm_training():
    return model(
        [node("BatchNormalization", bn_inputs("bn1", "x"),
              ["y1", "bn1.new_mean", "bn1.new_var"], training_mode=1,
              momentum=0.9),
         node("BatchNormalization", bn_inputs("bn2", "y1"), ["y2", "", ""],
              training_mode=1, momentum=0.8, epsilon=1e-3)],
        [inp("x", [2, 3, 4, 4])],
        [out("y2", 4), out("bn1.new_mean", 1), out("bn1.new_var", 1)],
        bn_inits("bn1", 3) + bn_inits("bn2", 3))


def case_batch_norm_inference():
    return model(
        [node("BatchNormalization", bn_inputs("bn", "x"), ["y"],
              epsilon=1e-3)],
        [inp("x", [2, 3, 4, 4])], [out("y", 4)], bn_inits("bn", 3))


def case_unary():
    chain = ["Relu", "Sigmoid", "Tanh", "Neg", "Exp", "Log", "Sqrt", "Abs"]
    nodes, prev = [], "x"
    for op in chain:
        name = op.lower()
        nodes.append(node(op, [prev], [name]))
        prev = name
    nodes += [
        node("LeakyRelu", [prev], ["leaky_relu"], alpha=0.2),
        node("LeakyRelu", ["leaky_relu"], ["leaky_relu_default"]),
        const("clip_min", np.array(-1.5, dtype=np.float32)),
        node("Clip", ["leaky_relu_default", "clip_min", "clip_max"], ["clip"]),
        node("Clip", ["clip", "", "clip_max"], ["clip_max_only"]),
    ]
    return model(nodes, [inp("x", [2, 3])], [out("clip_max_only", 2)],
                 [floats("clip_max", 6.0)])


def case_segmentation_activations():
    """The activations of MobileNetV3 and GELU exports, PRelu with a
    per-channel slope initializer, Softmax and LogSoftmax (default and
    negative axes)."""
    nodes = [
        node("HardSigmoid", ["x"], ["hard_sigmoid"], alpha=1.0 / 6.0),
        node("HardSigmoid", ["hard_sigmoid"], ["hard_sigmoid_default"]),
        node("HardSwish", ["hard_sigmoid_default"], ["hard_swish"]),
        node("Elu", ["hard_swish"], ["elu"], alpha=0.5),
        node("Softplus", ["elu"], ["softplus"]),
        node("Erf", ["softplus"], ["erf"]),
        node("PRelu", ["erf", "slope"], ["prelu"]),
        node("Softmax", ["prelu"], ["softmax"], axis=1),
        node("LogSoftmax", ["softmax"], ["log_softmax"]),
        node("Softmax", ["log_softmax"], ["softmax_neg"], axis=-3),
    ]
    return model(nodes, [inp("x", [2, 3, 4, 5])], [out("softmax_neg", 4)],
                 [weight("slope", [3, 1, 1])])


def case_instance_norm():
    """InstanceNormalization with parameters, and GroupNorm as PyTorch
    exports it: Reshape to N x G x -1, InstanceNormalization with constant
    unit scale and zero bias, Reshape back, Mul and Add per channel."""
    nodes = [
        node("InstanceNormalization", ["x", "in_scale", "in_bias"], ["inorm"],
             epsilon=1e-3),
        int_const("groups_shape", [2, 2, -1]),
        node("Reshape", ["inorm", "groups_shape"], ["grouped"]),
        const("gn_ones", np.ones(2, dtype=np.float32)),
        const("gn_zeros", np.zeros(2, dtype=np.float32)),
        node("InstanceNormalization", ["grouped", "gn_ones", "gn_zeros"],
             ["gnorm"]),
        int_const("x_shape", [2, 4, 3, 3]),
        node("Reshape", ["gnorm", "x_shape"], ["ungrouped"]),
        node("Mul", ["ungrouped", "gn_weight"], ["scaled"]),
        node("Add", ["scaled", "gn_bias"], ["group_norm"]),
    ]
    return model(nodes, [inp("x", [2, 4, 3, 3])], [out("group_norm", 4)],
                 [weight("in_scale", [4]), weight("in_bias", [4]),
                  weight("gn_weight", [4, 1, 1]), weight("gn_bias", [4, 1, 1])])


def case_instance_norm_bad_scale():
    """The scale has 3 elements for 4 channels."""
    nodes = [node("InstanceNormalization", ["x", "scale", "bias"], ["y"],
                  name="bad_inorm")]
    return model(nodes, [inp("x", [2, 4, 3, 3])], [out("y", 4)],
                 [weight("scale", [3]), weight("bias", [4])], check=False)


def case_layer_norm():
    """LayerNormalization over the last two axes (scale and bias of their
    shape) and over the last axis without a bias."""
    nodes = [
        node("LayerNormalization", ["x", "ln_scale", "ln_bias"], ["ln"],
             axis=-2, epsilon=1e-3),
        node("LayerNormalization", ["ln", "row_scale"], ["rows"]),
    ]
    return model(nodes, [inp("x", [2, 3, 4, 5])], [out("rows", 4)],
                 [weight("ln_scale", [4, 5]), weight("ln_bias", [4, 5]),
                  weight("row_scale", [5])])


def case_layer_norm_statistics():
    """The Mean output is read."""
    nodes = [node("LayerNormalization", ["x", "scale"], ["y", "mean"],
                  name="ln_stats"),
             node("Add", ["y", "mean"], ["z"])]
    return model(nodes, [inp("x", [2, 3, 4])], [out("z", 3)],
                 [weight("scale", [4])])


def case_einsum():
    """MONAI's attention contractions, a sum over a letter one operand has
    alone, a one-operand permutation and the implicit form."""
    nodes = [
        node("Einsum", ["q", "k"], ["scores"], equation="blxd,blyd->blxy"),
        node("Einsum", ["scores", "v"], ["weighted"],
             equation="bhxy,bhyd->bhxd"),
        node("Einsum", ["weighted", "w"], ["summed"], equation="bhxd,de->be"),
        node("Einsum", ["summed"], ["swapped"], equation="be->eb"),
        node("Einsum", ["swapped", "u"], ["implicit"], equation="eb,bf"),
    ]
    return model(nodes, [inp("q", [2, 3, 4, 5]), inp("k", [2, 3, 6, 5]),
                         inp("v", [2, 3, 6, 5]), inp("w", [5, 7]),
                         inp("u", [2, 8])],
                 [out("implicit", 2)])


def case_einsum_ellipsis():
    nodes = [node("Einsum", ["a", "b"], ["c"], name="ellipsis",
                  equation="...ij,...jk->...ik")]
    return model(nodes, [inp("a", [2, 3, 4]), inp("b", [2, 4, 5])],
                 [out("c", 3)])


def case_einsum_diagonal():
    nodes = [node("Einsum", ["a"], ["c"], name="trace", equation="ii->i")]
    return model(nodes, [inp("a", [3, 3])], [out("c", 1)])


def case_fold_scatter_mod():
    """Swin's shifted-window mask as MONAI computes it, on constants:
    ScatterND writes region numbers into zeros, Mod of a shape, Where."""
    nodes = [
        const("zeros", np.zeros((4, 4), dtype=np.float32)),
        int_const("rows", [[0], [2]]),
        const("updates", np.full((2, 4), 5.0, dtype=np.float32)),
        node("ScatterND", ["zeros", "rows", "updates"], ["regions"]),
        int_const("seven", [7]),
        int_const("three", [-3]),
        node("Mod", ["seven", "three"], ["python_mod"]),
        node("Mod", ["seven", "three"], ["c_mod"], fmod=1),
        node("Concat", ["python_mod", "c_mod"], ["mods"], axis=0),
        node("Cast", ["mods"], ["mods_f"], to=FLOAT),
        int_const("pair", [1, 2]),
        node("Reshape", ["mods_f", "pair"], ["mods_row"]),
        node("Concat", ["mods_row", "mods_row"], ["mods_4"], axis=1),
        node("Add", ["regions", "mods_4"], ["mask"]),
        node("Add", ["x", "mask"], ["y"]),
    ]
    return model(nodes, [inp("x", [4, 4])], [out("y", 2)])


def case_baked_reshape():
    """A tokens view whose shape the exporter folded for a 4x4 input."""
    nodes = [int_const("tokens_shape", [2, 4, 16]),
             node("Reshape", ["x", "tokens_shape"], ["tokens"],
                  name="baked_view")]
    return model(nodes, [inp("x", [2, 4, 4, 4])], [out("tokens", 3)])


def case_sized_parameter():
    """A position embedding built for 16 positions (a 4x4 input)."""
    nodes = [node("Flatten", ["x"], ["flat"], axis=2),
             node("Add", ["flat", "pos"], ["y"], name="add_pos")]
    return model(nodes, [inp("x", [2, 4, 4, 4])], [out("y", 2)],
                 [weight("pos", [1, 16])])


def case_split():
    """Split of a run-time tensor by sizes (the second output unread) and
    in equal parts (chunk)."""
    nodes = [int_const("sizes", [1, 2, 3]),
             node("Split", ["x", "sizes"], ["a", "b", "c"], axis=-1),
             node("Split", ["x"], ["h0", "h1"], axis=1),
             node("Add", ["h0", "h1"], ["halves"])]
    return model(nodes, [inp("x", [2, 4, 6])],
                 [out("a", 3), out("c", 3), out("halves", 3)])


def case_split_bad_sizes():
    nodes = [int_const("sizes", [1, 2]),
             node("Split", ["x", "sizes"], ["a", "b"], name="bad_split",
                  axis=2)]
    return model(nodes, [inp("x", [2, 4, 6])], [out("a", 3), out("b", 3)],
                 check=False)


def case_fold_variadic():
    """Min and Max of one and of three operands: Max([4, 2]) * Min([4, 2],
    [3, 8], [5, 1]) = [12, 2], the shape of a Reshape."""
    nodes = [int_const("a", [4, 2]), int_const("b", [3, 8]),
             int_const("c", [5, 1]),
             node("Max", ["a"], ["max1"]),
             node("Min", ["a", "b", "c"], ["min3"]),
             node("Mul", ["max1", "min3"], ["shape"]),
             node("Reshape", ["x", "shape"], ["y"])]
    return model(nodes, [inp("x", [24])], [out("y", 2)])


def case_softmax_bad_axis():
    nodes = [node("Softmax", ["x"], ["y"], name="bad_softmax", axis=4)]
    return model(nodes, [inp("x", [2, 4, 3, 3])], [out("y", 4)], check=False)


def case_prelu_bad_slope():
    """A slope of 5 values does not broadcast to 4 channels."""
    nodes = [node("PRelu", ["x", "slope"], ["y"], name="bad_prelu")]
    return model(nodes, [inp("x", [2, 4, 3, 3])], [out("y", 4)],
                 [weight("slope", [5, 1, 1])], check=False)


def case_binary():
    return model(
        [node("Add", ["a", "b"], ["add"]),
         const("offset", np.array([1, 2, 3, 4], dtype=np.float32)),
         node("Sub", ["add", "offset"], ["sub"]),
         const("two", np.array(2.0, dtype=np.float32)),
         node("Mul", ["two", "sub"], ["mul"]),
         node("Div", ["mul", "b"], ["div"]),
         node("Pow", ["div", "two"], ["pow2"]),
         const("half", np.array(0.5, dtype=np.float32)),
         node("Pow", ["pow2", "half"], ["pow_half"]),
         const("one", np.array([1.0], dtype=np.float32)),
         node("Pow", ["pow_half", "one"], ["pow1"])],
        [inp("a", [2, 3, 4]), inp("b", [3, 1])], [out("pow1", 3)])


def case_pool():
    return model(
        [node("MaxPool", ["x"], ["max_ceil"], kernel_shape=[3, 3],
              strides=[2, 2], pads=[1, 1, 1, 1], ceil_mode=1),
         node("MaxPool", ["x"], ["max_dilated"], kernel_shape=[2, 2],
              dilations=[2, 2]),
         node("AveragePool", ["x"], ["avg_include_pad"], kernel_shape=[2, 2],
              strides=[2, 2], pads=[0, 0, 1, 1], count_include_pad=1),
         node("AveragePool", ["x"], ["avg_default"], kernel_shape=[3, 3]),
         node("GlobalAveragePool", ["x"], ["global"])],
        [inp("x", [1, 2, 8, 8])],
        [out(n, 4) for n in ("max_ceil", "max_dilated", "avg_include_pad",
                             "avg_default", "global")])


def case_resize():
    return model(
        [node("Resize", ["x", "", "scales_up"], ["nearest"], mode="nearest",
              coordinate_transformation_mode="asymmetric",
              nearest_mode="floor"),
         node("Resize", ["x", "", "", "sizes"], ["align_corners"],
              mode="linear", coordinate_transformation_mode="align_corners"),
         node("Resize", ["x", "", "scales_mixed"], ["pytorch_half_pixel"],
              mode="linear",
              coordinate_transformation_mode="pytorch_half_pixel")],
        [inp("x", [1, 2, 4, 4])],
        [out("nearest", 4), out("align_corners", 4),
         out("pytorch_half_pixel", 4)],
        [floats("scales_up", [1, 1, 2, 2]), ints("sizes", [1, 2, 7, 9]),
         floats("scales_mixed", [1, 1, 0.5, 1.5])])


def case_concat_slice():
    return model(
        [node("Concat", ["a", "b"], ["concat"], axis=-1),
         node("Slice", ["concat", "starts", "ends", "axes", "steps"],
              ["slice_steps"]),
         node("Slice", ["concat", "neg_starts", "max_ends"], ["slice_tail"])],
        [inp("a", [2, 3, 4]), inp("b", [2, 3, 2])],
        [out("slice_steps", 3), out("slice_tail", 3)],
        [ints("starts", [1, 0]), ints("ends", [6, 3]), ints("axes", [-1, 1]),
         ints("steps", [2, 1]), ints("neg_starts", [-1, -2]),
         ints("max_ends", [INT64_MAX, INT64_MAX])])


def case_pad():
    return model(
        [node("Pad", ["x", "pads", "value"], ["constant"]),
         node("Pad", ["x", "pads"], ["reflect"], mode="reflect"),
         node("Pad", ["x", "pads"], ["edge"], mode="edge"),
         node("Pad", ["x", "crop_pads"], ["crop"])],
        [inp("x", [1, 2, 5, 5])],
        [out(n, 4) for n in ("constant", "reflect", "edge", "crop")],
        [ints("pads", [0, 0, 1, 2, 0, 0, 3, 4]), floats("value", [0.5]),
         ints("crop_pads", [0, 0, -1, 2, 0, 0, 1, -2])])


def case_gather():
    """What torch.onnx.export (dynamo, opset 20) writes for transformer
    U-Nets: qkv[0] / qkv[-1] of an activation (scalar indices), a Swin
    relative position bias table[idx] as Gather and as GatherND of an
    identity Transpose with [K, 1] indices built by a constant subgraph
    (with torch.export's one-input Max),
    and GatherND with index pairs."""
    rel = np.array([[4, 3, 1, 0], [5, 4, 2, 1], [7, 6, 4, 3], [8, -2, 5, 4]],
                   dtype=np.int64)
    return model(
        [node("Gather", ["qkv", "zero"], ["q"], axis=0),
         node("Gather", ["qkv", "minus_one"], ["v"], axis=0),
         node("Gather", ["table", "rel"], ["bias"], axis=0),
         node("Gather", ["qkv", "pair"], ["cols"], axis=-1),
         node("Reshape", ["rel", "flat_shape"], ["rel_flat"]),
         node("Max", ["rel_flat"], ["rel_max"]),
         node("Unsqueeze", ["rel_max", "last_axis"], ["rel_nd"]),
         node("Transpose", ["table"], ["table_t"], perm=[0, 1]),
         node("GatherND", ["table_t", "rel_nd"], ["bias_nd"]),
         node("GatherND", ["qkv", "tuples"], ["rows"])],
        [inp("qkv", [3, 2, 4, 5])],
        [out("q", 3), out("v", 3), out("bias", 3), out("cols", 4),
         out("bias_nd", 2), out("rows", 3)],
        [ints("zero", 0), ints("minus_one", -1), weight("table", [9, 2]),
         numpy_helper.from_array(rel, "rel"), ints("pair", [4, 0]),
         ints("flat_shape", [-1]), ints("last_axis", [1]),
         ints("tuples", [[2, 1], [0, -2]])])


def case_gather_nd_folded():
    """GatherND of constants (a shape picked from a table) folds at import
    and reshapes a run-time tensor."""
    return model(
        [node("GatherND", ["shapes", "pick"], ["shape"]),
         node("Reshape", ["x", "shape"], ["y"])],
        [inp("x", [2, 3, 4])], [out("y", 2)],
        [ints("shapes", [[[6, 4], [4, 6]], [[24, 1], [1, 24]]]),
         ints("pick", [0, 1])])


def case_gather_out_of_range():
    return model([node("Gather", ["x", "i"], ["y"], name="gather_oob", axis=1)],
                 [inp("x", [4, 3])], [out("y", 2)], [ints("i", [0, 3])])


def case_gather_nd_batch_dims():
    return model([node("GatherND", ["x", "i"], ["y"], name="gather_nd_batch",
                       batch_dims=1)],
                 [inp("x", [2, 3, 4])], [out("y", 2)],
                 [ints("i", [[1], [2]])])


def case_gather_nd_out_of_range():
    return model([node("GatherND", ["x", "i"], ["y"], name="gather_nd_oob")],
                 [inp("x", [2, 3, 4])], [out("y", 2)],
                 [ints("i", [[1, 3]])])


def case_shape_ops():
    return model(
        [node("Reshape", ["x", "shape"], ["reshape"]),
         node("Flatten", ["x"], ["flatten"], axis=2),
         node("Unsqueeze", ["x", "unsqueeze_axes"], ["unsqueeze"]),
         node("Squeeze", ["unsqueeze", "squeeze_axes"], ["squeeze"]),
         node("Squeeze", ["y"], ["squeeze_all"]),
         node("Transpose", ["x"], ["transpose"], perm=[0, 2, 3, 1]),
         node("Transpose", ["squeeze_all"], ["transpose_default"])],
        [inp("x", [2, 3, 4, 5]), inp("y", [1, 6, 1, 7])],
        [out("reshape", 3), out("flatten", 2), out("squeeze", 4),
         out("transpose", 4), out("transpose_default", 2)],
        [ints("shape", [0, -1, 10]), ints("unsqueeze_axes", [0, -1]),
         ints("squeeze_axes", [0, 5])])


def case_expand():
    """Expand of run-time values (torch's expand / broadcast_to, Swin's
    window masks): both ways (a 1 in the shape keeps the input's axis, the
    shape may have fewer axes), and a shape that changes nothing."""
    return model(
        [node("Expand", ["x", "shape"], ["expanded"]),
         node("Expand", ["x", "same"], ["same_out"]),
         node("Mul", ["expanded", "w"], ["scaled"])],
        [inp("x", [3, 1, 5])],
        [out("scaled", 4), out("same_out", 3)],
        [ints("shape", [2, 1, 4, 1]), ints("same", [1]),
         weight("w", [2, 3, 4, 5])])


def case_expand_bad():
    """Expand whose shape does not broadcast with the input."""
    return model(
        [node("Expand", ["x", "shape"], ["expanded"])],
        [inp("x", [3, 1, 5])], [out("expanded", 3)],
        [ints("shape", [2, 2, 1])], check=False)


def case_matmul_gemm():
    return model(
        [node("MatMul", ["a", "b"], ["matmul"]),
         node("Gemm", ["x", "fc.weight", "fc.bias"], ["gemm"], transB=1,
              alpha=0.5),
         node("Gemm", ["x", "w2"], ["gemm_no_c"], transA=0, beta=2.0)],
        [inp("a", [2, 3, 4]), inp("b", [4, 5]), inp("x", [2, 8])],
        [out("matmul", 3), out("gemm", 2), out("gemm_no_c", 2)],
        [weight("fc.weight", [16, 8]), weight("fc.bias", [16]),
         weight("w2", [8, 3])])


def case_reduce():
    return model(
        [node("ReduceSum", ["x", "axes"], ["sum_keep"]),
         node("ReduceSum", ["x", "neg_axes"], ["sum_drop"], keepdims=0),
         node("ReduceSum", ["x"], ["sum_all"], keepdims=0),
         node("ReduceMean", ["x"], ["mean_keep"], axes=[1, 3]),
         node("ReduceMean", ["x"], ["mean_drop"], axes=[-1], keepdims=0)],
        [inp("x", [2, 3, 4, 5])],
        [out("sum_keep", 4), out("sum_drop", 2), out("sum_all", 0),
         out("mean_keep", 4), out("mean_drop", 3)],
        [ints("axes", [2]), ints("neg_axes", [-1, 1])])


def case_identity_dropout():
    return model(
        [node("Identity", ["x"], ["identity"]),
         node("Dropout", ["identity"], ["inference"]),
         node("Relu", ["inference"], ["relu"]),
         node("Dropout", ["relu", "ratio", "training"], ["training_out"])],
        [inp("x", [2, 3])], [out("training_out", 2)],
        [floats("ratio", 0.5),
         numpy_helper.from_array(np.array(True), "training")])


def case_random_ops():
    """Drop-path and drop-connect as exporters write them: RandomUniformLike
    of a ConstantOfShape (with an ONNX seed, which memopt ignores), Less and
    Cast to float; RandomUniform, Add and Floor; Bernoulli; the other
    comparisons on run-time data, and RandomUniformLike of a run-time
    tensor."""
    return model(
        [const("keep", np.array(0.75, np.float32)),
         const("zero", np.array(0.0, np.float32)),
         const("probs", np.full((2, 1, 1, 1), 0.9, np.float32)),
         int_const("shape", [2, 1, 1, 1]),
         node("ConstantOfShape", ["shape"], ["zeros"],
              value=numpy_helper.from_array(np.zeros(1, np.float32))),
         node("RandomUniformLike", ["zeros"], ["rands"], seed=5.0),
         node("Less", ["rands", "keep"], ["sampled"]),
         node("Cast", ["sampled"], ["mask"], to=FLOAT),
         node("Mul", ["x", "mask"], ["dropped"]),
         node("RandomUniform", [], ["uniform"], shape=[2, 1, 1, 1],
              low=-1.0, high=1.0),
         node("Add", ["uniform", "keep"], ["shifted"]),
         node("Floor", ["shifted"], ["floored"]),
         node("Mul", ["dropped", "floored"], ["connected"]),
         node("Bernoulli", ["probs"], ["coins"]),
         node("Mul", ["connected", "coins"], ["tossed"]),
         node("GreaterOrEqual", ["tossed", "zero"], ["nonneg"]),
         node("Cast", ["nonneg"], ["step"], to=FLOAT),
         node("Greater", ["zero", "tossed"], ["neg"]),
         node("Cast", ["neg"], ["negative"], to=FLOAT),
         node("LessOrEqual", ["step", "negative"], ["le"]),
         node("Cast", ["le"], ["at_most"], to=FLOAT),
         node("RandomUniformLike", ["at_most"], ["noise"], high=0.5),
         node("Add", ["at_most", "noise"], ["out"])],
        [inp("x", [2, 3, 4, 4])], [out("out", 4)])


def case_random_masks():
    """Masks of the export-time batch 2 as torch.export writes them:
    drop-path's ConstantOfShape [2, 1, 1, 1] + RandomUniformLike + Less +
    Cast, drop-connect's RandomUniform [2, 1, 1, 1] + Add + Floor, and
    Dropout2d's per-channel [2, 3, 1, 1]."""
    return model(
        [const("keep", np.array(0.75, np.float32)),
         int_const("shape", [2, 1, 1, 1]),
         node("ConstantOfShape", ["shape"], ["zeros"],
              value=numpy_helper.from_array(np.zeros(1, np.float32))),
         node("RandomUniformLike", ["zeros"], ["rands"]),
         node("Less", ["rands", "keep"], ["sampled"]),
         node("Cast", ["sampled"], ["mask"], to=FLOAT),
         node("Mul", ["x", "mask"], ["dropped"]),
         node("RandomUniform", [], ["uniform"], shape=[2, 1, 1, 1]),
         node("Add", ["uniform", "keep"], ["shifted"]),
         node("Floor", ["shifted"], ["floored"]),
         node("Mul", ["dropped", "floored"], ["connected"]),
         int_const("channels", [2, 3, 1, 1]),
         node("ConstantOfShape", ["channels"], ["channel_zeros"],
              value=numpy_helper.from_array(np.zeros(1, np.float32))),
         node("RandomUniformLike", ["channel_zeros"], ["channel_rands"]),
         node("Less", ["channel_rands", "keep"], ["channel_sampled"]),
         node("Cast", ["channel_sampled"], ["channel_mask"], to=FLOAT),
         node("Mul", ["connected", "channel_mask"], ["out"])],
        [inp("x", [2, 3, 4, 4])], [out("out", 4)])


def case_compare_bool_use():
    return model(
        [node("Less", ["x", "zero"], ["negative"]),
         node("Xor", ["negative", "negative"], ["never"]),
         node("Cast", ["never"], ["y"], to=FLOAT)],
        [inp("x", [2, 3])], [out("y", 2)], [floats("zero", 0.0)])


def case_where():
    """Where as torch.export writes it: F.softplus(x, beta=2) is
    Where(Greater(x * beta, threshold), x, Softplus(x * beta) / beta);
    masked_fill(mask != 0, -1e4) is Where(Not(Equal(mask, 0)), fill, y);
    a condition known at import time; constant branches."""
    return model(
        [const("beta", np.array(2.0, np.float32)),
         const("threshold", np.array(20.0, np.float32)),
         const("zero", np.array(0.0, np.float32)),
         const("fill", np.array(-1e4, np.float32)),
         const("one", np.array(1.0, np.float32)),
         const("keep", np.array([[True, False, True]])),
         node("Mul", ["x", "beta"], ["scaled"]),
         node("Greater", ["scaled", "threshold"], ["large"]),
         node("Softplus", ["scaled"], ["soft"]),
         node("Div", ["soft", "beta"], ["smooth"]),
         node("Where", ["large", "x", "smooth"], ["softplus"]),
         node("Equal", ["mask", "zero"], ["unmasked"]),
         node("Not", ["unmasked"], ["masked"]),
         node("Where", ["masked", "fill", "softplus"], ["filled"]),
         node("Where", ["keep", "filled", "x"], ["kept"]),
         node("Where", ["large", "one", "zero"], ["indicator"]),
         node("Add", ["kept", "indicator"], ["y"])],
        [inp("x", [2, 3]), inp("mask", [2, 1])], [out("y", 2)], opset=20)


def case_where_folded():
    return model(
        [const("c", np.array([True, False])),
         const("a", np.array([5.0, 6.0], np.float32)),
         const("b", np.array([1.0, 2.0], np.float32)),
         node("Where", ["c", "a", "b"], ["w"]),
         node("Add", ["x", "w"], ["y"])],
        [inp("x", [2])], [out("y", 1)])


def case_where_bool_branch():
    return model(
        [node("Greater", ["x", "x"], ["big"]),
         node("Where", ["big", "big", "big"], ["y"])],
        [inp("x", [2, 3])], [out("y", 2, TensorProto.BOOL)])


def case_where_bad_condition():
    return model(
        [node("Where", ["c", "x", "x"], ["y"])],
        [inp("c", [2, 3], TensorProto.BOOL), inp("x", [2, 3])], [out("y", 2)])


def _squeeze_if(condition):
    """TorchScript's x.squeeze(-1) of an axis it traced as data:
    If(Equal(size, 1), Squeeze(x, -1), Identity(x)); `condition` computes
    the If's condition input "cond" from x's shape."""
    then_branch = helper.make_graph(
        [node("Squeeze", ["x", "axes"], ["sq"])],
        "then", [], [out("sq", 2)], initializer=[ints("axes", [-1])])
    else_branch = helper.make_graph(
        [node("Identity", ["x"], ["same"])], "else", [], [out("same", 3)])
    return model(
        condition + [
            node("If", ["cond"], ["squeezed"], then_branch=then_branch,
                 else_branch=else_branch),
            node("Relu", ["squeezed"], ["y"])],
        [inp("x", [2, 3, 1])], [out("y", 2)], check=False)


def case_if_squeeze():
    return _squeeze_if(
        [node("Shape", ["x"], ["shape"]),
         int_const("last", 2),
         node("Gather", ["shape", "last"], ["size"], axis=0),
         int_const("one", 1),
         node("Equal", ["size", "one"], ["cond"])])


def case_if_identity():
    """The same If whose condition is false: the else branch is taken."""
    return _squeeze_if(
        [node("Shape", ["x"], ["shape"]),
         int_const("first", 0),
         node("Gather", ["shape", "first"], ["size"], axis=0),
         int_const("one", 1),
         node("Equal", ["size", "one"], ["cond"])])


def case_if_runtime():
    """A condition computed from data: run-time control flow."""
    return _squeeze_if(
        [node("ReduceSum", ["x"], ["total"], keepdims=0),
         const("zero", np.array(0.0, np.float32)),
         node("Greater", ["total", "zero"], ["cond"])])


def case_tile():
    """x.repeat(1, 4, 2) of a run-time tensor (MONAI's VNet input block
    repeats the input across channels)."""
    return model(
        [int_const("repeats", [1, 4, 2]),
         node("Tile", ["x", "repeats"], ["y"])],
        [inp("x", [2, 1, 3])], [out("y", 3)])


def case_tile_bad_repeats():
    return model(
        [int_const("repeats", [1, 4]),
         node("Tile", ["x", "repeats"], ["y"])],
        [inp("x", [2, 1, 3])], [out("y", 3)], check=False)


def case_compare_output():
    return model(
        [node("Greater", ["x", "zero"], ["positive"])],
        [inp("x", [2, 3])], [out("positive", 2, TensorProto.BOOL)],
        [floats("zero", 0.0)])


def case_random_double():
    return model(
        [node("RandomUniform", [], ["u"], shape=[2, 3],
              dtype=TensorProto.DOUBLE),
         node("Cast", ["u"], ["u32"], to=FLOAT),
         node("Add", ["x", "u32"], ["y"])],
        [inp("x", [2, 3])], [out("y", 2)])


def case_random_bad_shape():
    return model(
        [node("RandomUniform", [], ["u"], shape=[2, 0]),
         node("Add", ["x", "u"], ["y"])],
        [inp("x", [2, 3])], [out("y", 2)], check=False)


def case_initializers():
    """Float initializers become params in first-use order; int64 shapes
    fold."""
    return model(
        [node("Conv", ["x", "conv2.weight"], ["c2"], pads=[1, 1, 1, 1]),
         node("Conv", ["c2", "conv1.weight", "conv1.bias"], ["c1"]),
         node("BatchNormalization", bn_inputs("bn", "c1"),
              ["y", "", ""], training_mode=1),
         node("Reshape", ["y", "flat_shape"], ["flat"]),
         node("Gemm", ["flat", "conv2.weight_t", "fc.bias"], ["logits"],
              transB=1),
         const("folded", np.array([[1.0, 2.0, 3.0]], dtype=np.float32)),
         node("Add", ["folded", "folded"], ["folded_sum"])],
        [inp("x", [1, 2, 4, 4])],
        [out("logits", 2), out("folded_sum", 2)],
        [weight("conv1.weight", [3, 5, 3, 3]), weight("conv1.bias", [3]),
         weight("conv2.weight", [5, 2, 3, 3]),
         weight("conv2.weight_t", [7, 12]),
         weight("fc.bias", [7]), ints("flat_shape", [1, -1]),
         ints("unused_shape", [2, 2]), weight("unused.weight", [2])]
        + bn_inits("bn", 3))


def case_fold_reshape():
    """torch's x.view(x.size(0), -1): Shape, Gather, Unsqueeze, Concat,
    Cast."""
    return model(
        [node("Shape", ["x"], ["shape"]),
         const("zero", np.array(0, dtype=np.int64)),
         node("Gather", ["shape", "zero"], ["batch"], axis=0),
         const("axes0", np.array([0], dtype=np.int64)),
         node("Unsqueeze", ["batch", "axes0"], ["batch1"]),
         const("minus1", np.array([-1], dtype=np.int64)),
         node("Concat", ["batch1", "minus1"], ["dims"], axis=0),
         node("Cast", ["dims"], ["dims64"], to=INT64),
         node("Reshape", ["x", "dims64"], ["flat"])],
        [inp("x", [2, 3, 4, 5])], [out("flat", 2)])


def case_fold_sign():
    """torch.export's integer division rounding toward zero (adaptive
    pooling's window bounds): Sign(q) * Floor(Abs(q)), here of [2.5, -1.5]
    to the shape [2, -1]."""
    return model(
        [const("q", np.array([2.5, -1.5], dtype=np.float32)),
         node("Sign", ["q"], ["sign"]),
         node("Abs", ["q"], ["abs"]),
         node("Floor", ["abs"], ["floor"]),
         node("Mul", ["sign", "floor"], ["truncated"]),
         node("Cast", ["truncated"], ["dims"], to=INT64),
         node("Reshape", ["x", "dims"], ["flat"])],
        [inp("x", [2, 3, 4, 5])], [out("flat", 2)])


def case_fold_pad():
    """torch 1.13's export of F.pad(x, [dx // 2, dx - dx // 2, dy // 2,
    dy - dy // 2]) with dx, dy the size differences of y and x (the classic
    U-Net's skip alignment), followed by the skip concatenation."""
    nodes = [
        node("Shape", ["x"], ["x_shape"]),
        node("Shape", ["y"], ["y_shape"]),
        int_const("h_axis", 2), int_const("w_axis", 3), int_const("two", 2),
        node("Gather", ["x_shape", "h_axis"], ["x_h"], axis=0),
        node("Gather", ["y_shape", "h_axis"], ["y_h"], axis=0),
        node("Gather", ["x_shape", "w_axis"], ["x_w"], axis=0),
        node("Gather", ["y_shape", "w_axis"], ["y_w"], axis=0),
        node("Sub", ["y_h", "x_h"], ["dy"]),
        node("Sub", ["y_w", "x_w"], ["dx"]),
        node("Div", ["dx", "two"], ["left"]),
        node("Sub", ["dx", "left"], ["right"]),
        node("Div", ["dy", "two"], ["top"]),
        node("Sub", ["dy", "top"], ["bottom"]),
        int_const("unsqueeze_axes", [0]),
    ]
    for name in ("left", "right", "top", "bottom"):
        nodes.append(node("Unsqueeze", [name, "unsqueeze_axes"], [name + "1"]))
    nodes += [
        node("Concat", ["left1", "right1", "top1", "bottom1"], ["pad_list"],
             axis=0),
        int_const("first", [0]),
        node("Shape", ["pad_list"], ["pad_list_shape"]),
        node("Gather", ["pad_list_shape", "first"], ["given"], axis=0),
        int_const("rank", 4),
        node("Mul", ["rank", "two"], ["rank2"]),
        node("Sub", ["rank2", "given"], ["missing"]),
        node("Cast", ["pad_list"], ["pad_list64"], to=INT64),
        node("ConstantOfShape", ["missing"], ["zeros"],
             value=numpy_helper.from_array(np.array([0], dtype=np.int64))),
        node("Concat", ["pad_list64", "zeros"], ["padded"], axis=0),
        int_const("pairs_shape", [-1, 2]),
        node("Reshape", ["padded", "pairs_shape"], ["pairs"]),
        int_const("slice_axes", [0]), int_const("slice_starts", [-1]),
        int_const("slice_ends", [-INT64_MAX]), int_const("slice_steps", [-1]),
        node("Slice", ["pairs", "slice_starts", "slice_ends", "slice_axes",
                       "slice_steps"], ["reversed"]),
        node("Transpose", ["reversed"], ["transposed"], perm=[1, 0]),
        int_const("flat_shape", [-1]),
        node("Reshape", ["transposed", "flat_shape"], ["onnx_pads"]),
        node("Cast", ["onnx_pads"], ["onnx_pads64"], to=INT64),
        node("Pad", ["x", "onnx_pads64", ""], ["x_padded"], mode="constant"),
        node("Concat", ["x_padded", "y"], ["cat"], axis=1),
    ]
    return model(nodes, [inp("x", [1, 2, 5, 6]), inp("y", [1, 3, 6, 9])],
                 [out("cat", 4)])


def case_opset11():
    """Signatures that changed after opset 11: Clip, Pad, Resize, ReduceSum,
    Squeeze."""
    return model(
        [node("Clip", ["x", "lo", "hi"], ["clip"]),
         node("Pad", ["clip", "pads"], ["pad"], mode="reflect"),
         node("Resize", ["pad", "roi", "scales"], ["resize"], mode="nearest",
              coordinate_transformation_mode="asymmetric",
              nearest_mode="floor"),
         node("ReduceSum", ["resize"], ["sum"], axes=[2], keepdims=1),
         node("Squeeze", ["sum"], ["squeeze"], axes=[2]),
         node("Unsqueeze", ["squeeze"], ["unsqueeze"], axes=[0])],
        [inp("x", [1, 2, 4, 4])], [out("unsqueeze", 4)],
        [floats("lo", 0.0), floats("hi", 6.0),
         ints("pads", [0, 0, 1, 1, 0, 0, 1, 1]), floats("roi", []),
         floats("scales", [1, 1, 2, 2])],
        opset=11)


def case_opset13():
    """Opset 13 has Squeeze/ReduceSum axes inputs but ReduceMean attrs, and
    BatchNormalization without training_mode."""
    return model(
        [node("BatchNormalization", bn_inputs("bn", "x"), ["bn_out"]),
         node("ReduceSum", ["bn_out", "axes"], ["sum"], keepdims=1),
         node("Squeeze", ["sum", "axes"], ["squeeze"]),
         node("ReduceMean", ["squeeze"], ["mean"], axes=[-1], keepdims=0),
         node("Resize", ["x", "", "", "sizes"], ["resize"], mode="linear",
              coordinate_transformation_mode="align_corners")],
        [inp("x", [1, 3, 4, 4])], [out("mean", 2), out("resize", 4)],
        bn_inits("bn", 3) + [ints("axes", [2]), ints("sizes", [1, 3, 8, 8])],
        opset=13)


def case_symbolic_batch():
    return model(
        [node("Conv", ["x", "w"], ["conv"], pads=[1, 1, 1, 1]),
         node("Relu", ["conv"], ["y"])],
        [inp("x", ["N", 3, "H", "W"])], [out("y", 4)],
        [weight("w", [4, 3, 3, 3])])


def case_static_input():
    return model(
        [node("Conv", ["x", "w"], ["conv"], pads=[1, 1, 1, 1]),
         node("MaxPool", ["conv"], ["y"], kernel_shape=[2, 2],
              strides=[2, 2])],
        [inp("x", [2, 3, 8, 8])], [out("y", 4)],
        [weight("w", [4, 3, 3, 3])])


# --- Bad-input cases ---------------------------------------------------------

def case_lstm():
    return model(
        [node("Relu", ["x"], ["r"]),
         node("LSTM", ["r", "W", "R"], ["", "y_h"], name="encoder_lstm",
              hidden_size=4)],
        [inp("x", [5, 1, 3])], [out("y_h", 3)],
        [weight("W", [1, 16, 3]), weight("R", [1, 16, 4])])


def case_runtime_reshape():
    """The target shape is read from a run-time tensor."""
    return model(
        [node("Mul", ["x", "x"], ["sq"]),
         node("Reshape", ["sq", "shape"], ["y"], name="dynamic_reshape")],
        [inp("x", [2, 6]), inp("shape", [2], INT64)], [out("y", 2)])


def case_resize_cubic():
    return model(
        [node("Resize", ["x", "", "scales"], ["y"], name="upsample",
              mode="cubic")],
        [inp("x", [1, 1, 4, 4])], [out("y", 4)],
        [floats("scales", [1, 1, 2, 2])])


def case_resize_crop():
    return model(
        [node("Resize", ["x", "roi", "scales"], ["y"], name="crop_resize",
              mode="linear",
              coordinate_transformation_mode="tf_crop_and_resize")],
        [inp("x", [1, 1, 4, 4])], [out("y", 4)],
        [floats("roi", [0, 0, 0, 0, 1, 1, 1, 1]),
         floats("scales", [1, 1, 2, 2])])


def newer(nodes, inputs, outputs, inits=(), opset=20, ir_version=10):
    """A model of an opset the ONNX 1.12 checker does not know, with the IR
    version PyTorch 2's exporter writes."""
    m = model(nodes, inputs, outputs, inits, opset=opset, check=False)
    m.ir_version = ir_version
    return m


def case_opset20_adapted():
    """Operators whose semantics changed after opset 17, in their new forms:
    ReduceMean-18 (axes as an input), Resize-18
    (antialias, axes, keep_aspect_ratio_policy at their defaults), Pad-18
    without axes, AveragePool-19 (dilations of 1), Cast-19 (saturate),
    CastLike-15, and the operators added after 17 that are expanded: Gelu-20
    (exact and tanh), Mish-18."""
    x = inp("x", [1, 4, 4, 4])
    return newer(
        [node("ReduceMean", ["x", "axes"], ["mean"], keepdims=1),
         node("Resize", ["x", "", "scales"], ["up"], mode="nearest",
              antialias=0, axes=[0, 1, 2, 3],
              keep_aspect_ratio_policy="stretch",
              coordinate_transformation_mode="asymmetric",
              nearest_mode="floor"),
         node("Pad", ["x", "pads"], ["padded"], mode="constant"),
         node("AveragePool", ["padded"], ["pooled"], kernel_shape=[2, 2],
              strides=[2, 2], dilations=[1, 1]),
         node("Cast", ["pooled"], ["cast"], to=FLOAT, saturate=1),
         node("CastLike", ["cast", "x"], ["castlike"]),
         node("Gelu", ["castlike"], ["gelu"]),
         node("Gelu", ["gelu"], ["gelu_tanh"], approximate="tanh"),
         node("Mish", ["gelu_tanh"], ["mish"])],
        [x], [out("mean", 4), out("up", 4), out("mish", 4)],
        [ints("axes", [2, 3]), floats("scales", [1, 1, 2, 2]),
         ints("pads", [0, 0, 1, 1, 0, 0, 1, 1])])


def case_opset20_pad_axes():
    return newer([node("Pad", ["x", "pads", "", "axes"], ["y"])],
                 [inp("x", [1, 4])], [out("y", 2)],
                 [ints("pads", [1, 1]), ints("axes", [1])], opset=19)


def case_opset20_antialias():
    return newer([node("Resize", ["x", "", "scales"], ["y"], mode="linear",
                       antialias=1)],
                 [inp("x", [1, 1, 4, 4])], [out("y", 4)],
                 [floats("scales", [1, 1, 2, 2])])


def case_opset20_symmetric():
    return newer([node("Resize", ["x", "", "scales"], ["y"], mode="linear",
                       coordinate_transformation_mode="half_pixel_symmetric")],
                 [inp("x", [1, 1, 4, 4])], [out("y", 4)],
                 [floats("scales", [1, 1, 2, 2])])


def case_opset20_reduce_computed_axes():
    return newer([node("ReduceMax", ["x", "axes"], ["y"])],
                 [inp("x", [1, 4]), inp("axes", [1], INT64)], [out("y", 2)])


def case_opset20_reduce_reshaped_axes():
    """ReduceMean-18 whose axes torch.export computes from constants: a
    Reshape of the Constant [-1, -2] to [-1] (adaptive average pooling to
    1x1), and a Cast to int64 of a Constant (the adapter follows chains of
    ops that keep the values)."""
    return newer(
        [int_const("pair", [-1, -2]),
         helper.make_node("Constant", [], ["flat"], name="flat",
                          value_ints=[-1]),
         node("Reshape", ["pair", "flat"], ["axes"]),
         node("ReduceMean", ["x", "axes"], ["mean"], keepdims=1),
         node("Cast", ["pair"], ["cast_axes"], to=INT64),
         node("ReduceMean", ["x", "cast_axes"], ["mean2"], keepdims=0)],
        [inp("x", [2, 4, 8, 8])], [out("mean", 4), out("mean2", 2)])


def case_opset23_attention():
    """An operator added after opset 17 that memopt does not train."""
    return newer([node("RMSNormalization", ["x", "scale"], ["y"])],
                 [inp("x", [1, 4])], [out("y", 2)], [floats("scale", [1] * 4)],
                 opset=23)


def case_opset29():
    return newer([node("Relu", ["x"], ["y"])], [inp("x", [1, 4])],
                  [out("y", 2)], opset=29)


def case_float8_initializer():
    """IR version 9 element types: float8 (17)."""
    w = TensorProto(name="w", data_type=17, dims=[4], raw_data=b"\1\2\3\4")
    return newer([node("Mul", ["x", "w"], ["y"])], [inp("x", [1, 4])],
                 [out("y", 2)], [w])


def case_external_data():
    """A weight in a file beside the model (written next to OUT as
    OUT.data), as PyTorch 2's exporter stores every larger initializer."""
    return model([node("Conv", ["x", "w"], ["y"])], [inp("x", [1, 2, 5, 5])],
                 [out("y", 4)], [weight("w", [3, 2, 3, 3])])


def external(path, location=None, offset=0, length=None, truncate=None):
    """Saves case_external_data with its weight in `path`.data."""
    m = case_external_data()
    w = m.graph.initializer[0]
    data = w.raw_data or np.array(w.float_data, np.float32).tobytes()
    with open(path + ".data", "wb") as f:
        f.write(b"\0" * offset + data[:truncate])
    w.ClearField("raw_data")
    w.ClearField("float_data")
    w.data_location = TensorProto.EXTERNAL
    entries = {"location": location or (path.rsplit("/", 1)[-1] + ".data"),
               "offset": str(offset)}
    if length is not None:
        entries["length"] = str(length)
    for key, value in entries.items():
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    onnx.save(m, path)


def case_local_function():
    """A model-local function called twice: LeakyRelu whose alpha refers to
    the call's attribute `slope`, then a Mul by a constant of the body."""
    alpha = onnx.AttributeProto(name="alpha", ref_attr_name="slope",
                                type=onnx.AttributeProto.FLOAT)
    leaky = helper.make_node("LeakyRelu", ["x"], ["t"], name="leaky")
    leaky.attribute.append(alpha)
    two = helper.make_node("Constant", [], ["two"], name="two",
                           value=numpy_helper.from_array(
                               np.array(2.0, np.float32), "two"))
    body = [leaky, two, helper.make_node("Mul", ["t", "two"], ["y"],
                                         name="double")]
    function = helper.make_function(
        "memopt.test", "LeakyTwice", ["x"], ["y"], body,
        [helper.make_opsetid("", 17)], ["slope"])
    m = model([helper.make_node("LeakyTwice", ["x"], ["h"], name="call1",
                                domain="memopt.test", slope=0.5),
               helper.make_node("LeakyTwice", ["h"], ["y"], name="call2",
                                domain="memopt.test", slope=0.25)],
              [inp("x", [1, 4])], [out("y", 2)], check=False)
    m.opset_import.append(helper.make_opsetid("memopt.test", 1))
    m.functions.append(function)
    return m


def case_recursive_function():
    body = [helper.make_node("Loopy", ["x"], ["y"], domain="memopt.test")]
    function = helper.make_function("memopt.test", "Loopy", ["x"], ["y"],
                                    body, [helper.make_opsetid("", 17)])
    m = model([helper.make_node("Loopy", ["x"], ["y"], name="call",
                                domain="memopt.test")],
              [inp("x", [1, 4])], [out("y", 2)], check=False)
    m.opset_import.append(helper.make_opsetid("memopt.test", 1))
    m.functions.append(function)
    return m


def case_checker_fail():
    """Relu with two inputs: the schema allows one."""
    return model([node("Relu", ["x", "x"], ["y"], name="bad_relu")],
                 [inp("x", [1, 4])], [out("y", 2)], check=False)


def case_int_input():
    return model([node("Cast", ["x"], ["y"], to=FLOAT)],
                 [inp("x", [1, 4], INT64)], [out("y", 2)])


def case_conv_mismatch():
    """The weight has 3 input channels, the input 4."""
    return model(
        [node("Relu", ["x"], ["r"]),
         node("Conv", ["r", "w"], ["y"], name="conv_bad_channels")],
        [inp("x", [1, 4, 8, 8])], [out("y", 4)],
        [weight("w", [2, 3, 3, 3])], check=True)


def case_runtime_cast_reshape():
    """The target shape is computed from float data and cast to int64."""
    return model(
        [node("Cast", ["shape_values"], ["shape"], name="shape_cast",
              to=INT64),
         node("Reshape", ["x", "shape"], ["y"])],
        [inp("x", [2, 6]), inp("shape_values", [2])], [out("y", 2)])


def case_runtime_scales():
    return model(
        [node("Resize", ["x", "", "scales"], ["y"], name="upsample")],
        [inp("x", [1, 1, 4, 4]), inp("scales", [4])], [out("y", 4)])


def case_symbolic_spatial():
    return model(
        [node("Relu", ["x"], ["y"])],
        [inp("x", [2, 3, "height", 8])], [out("y", 4)])


def case_unnamed_node():
    m = case_lstm()
    for n in m.graph.node:
        n.name = ""
    return m


def case_zero_stride():
    return model(
        [node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2],
              strides=[0, 1])],
        [inp("x", [1, 1, 4, 4])], [out("y", 4)])


def case_short_raw_data():
    m = model([node("Reshape", ["x", "shape"], ["y"])],
              [inp("x", [2, 6])], [out("y", 2)], check=False)
    shape = m.graph.initializer.add()
    shape.name, shape.data_type = "shape", INT64
    shape.dims.append(2)
    shape.raw_data = b"\x03\x00"
    return m


def case_empty_clip_bound():
    return model([node("Clip", ["x", "lo"], ["y"], name="clip")],
                 [inp("x", [2, 3])], [out("y", 2)], [floats("lo", [])])


def case_negative_constant_of_shape():
    return model(
        [int_const("dims", [-3]),
         node("ConstantOfShape", ["dims"], ["zeros"], name="zeros"),
         node("Shape", ["zeros"], ["shape"]),
         node("Reshape", ["x", "shape"], ["y"])],
        [inp("x", [2, 3])], [out("y", 1)])


def case_huge_range():
    return model(
        [int_const("start", 0), int_const("limit", 10**12),
         int_const("delta", 1),
         node("Range", ["start", "limit", "delta"], ["r"], name="range"),
         node("Shape", ["r"], ["shape"]),
         node("Reshape", ["x", "shape"], ["y"])],
        [inp("x", [2, 3])], [out("y", 1)])


def case_slice_axes_length():
    """Axes come from a Range that ONNX shape inference cannot evaluate."""
    return model(
        [int_const("start", 0), int_const("limit", 1), int_const("delta", 1),
         node("Range", ["start", "limit", "delta"], ["axes"]),
         node("Slice", ["x", "starts", "ends", "axes"], ["y"],
              name="slice")],
        [inp("x", [4, 4])], [out("y", 2)],
        [ints("starts", [0, 0]), ints("ends", [2, 2])])


def case_repeated_unsqueeze_axes():
    return model([node("Unsqueeze", ["x", "axes"], ["y"], name="unsqueeze")],
                 [inp("x", [2, 3])], [out("y", 4)], [ints("axes", [0, 0])])


def case_folded_transpose_perm():
    return model(
        [node("Shape", ["x"], ["shape"]),
         int_const("axes", [0]),
         node("Unsqueeze", ["shape", "axes"], ["shape2"]),
         node("Transpose", ["shape2"], ["t"], name="transpose", perm=[0, 5]),
         node("Reshape", ["t", "flat"], ["t1"]),
         node("Reshape", ["x", "t1"], ["y"])],
        [inp("x", [2, 3])], [out("y", 2)], [ints("flat", [-1])])


def case_int_min_division():
    return model(
        [int_const("a", [-2**63]), int_const("b", [-1]),
         node("Div", ["a", "b"], ["q"], name="div"),
         node("Reshape", ["x", "q"], ["y"], name="reshape")],
        [inp("x", [2, 3])], [out("y", 1)])


def case_undefined_output():
    """An opset-13 model (so it goes through the version converter) whose
    graph output no node produces; the ONNX 1.12 checker lets it through."""
    return model([node("Relu", ["x"], ["y"])], [inp("x", [2, 3])],
                 [out("z", 2)], opset=13)


def case_weight_rank_mismatch():
    """A 5-D weight for a 4-D input, which ONNX 1.12's shape inference reads
    out of bounds on (the checker accepts it)."""
    return model([node("Conv", ["x", "w"], ["y"], name="conv")],
                 [inp("x", [1, 3, 8, 8]), inp("w", [2, 3, 3, 3, 2])],
                 [out("y", 4)])


# --- Attribute values the ONNX checker lets through --------------------------

def case_constant_of_shape_empty_value():
    """A zero-element `value` tensor (once an abort while folding)."""
    value = helper.make_tensor("v", FLOAT, [0], [])
    return model([node("ConstantOfShape", ["s"], ["z"], name="zeros",
                       value=value),
                  node("Add", ["x", "z"], ["y"], name="add")],
                 [inp("x", [1, 2])], [out("y", 2)], inits=[ints("s", [1, 2])])


def case_pool_pads_length():
    return model([node("MaxPool", ["x"], ["y"], name="pool",
                       kernel_shape=[2, 2], pads=[0, 0, 0])],
                 [inp("x", [1, 1, 8, 8])], [out("y", 4)])


def case_conv_transpose_kernel_length():
    return model([node("ConvTranspose", ["x", "w"], ["y"], name="up",
                       kernel_shape=[3])],
                 [inp("x", [1, 2, 4, 4])], [out("y", 4)],
                 inits=[weight("w", [2, 3, 3, 3])])


def case_conv_kernel_mismatch():
    return model([node("Conv", ["x", "w"], ["y"], name="conv",
                       kernel_shape=[5, 5])],
                 [inp("x", [1, 3, 8, 8])], [out("y", 4)],
                 inits=[weight("w", [2, 3, 3, 3])])


def case_conv_transpose_auto_pad():
    return model([node("ConvTranspose", ["x", "w"], ["y"], name="up",
                       auto_pad="BOGUS")],
                 [inp("x", [1, 2, 4, 4])], [out("y", 4)],
                 inits=[weight("w", [2, 3, 3, 3])])


def case_conv_transpose_output_shape_length():
    return model([node("ConvTranspose", ["x", "w"], ["y"], name="up",
                       output_shape=[5])],
                 [inp("x", [1, 2, 4, 4])], [out("y", 4)],
                 inits=[weight("w", [2, 3, 3, 3])])


def case_conv_negative_pads():
    return model([node("Conv", ["x", "w"], ["y"], name="conv",
                       pads=[-1, 0, 0, 0])],
                 [inp("x", [1, 3, 8, 8])], [out("y", 4)],
                 inits=[weight("w", [2, 3, 3, 3])])


def case_cast_target():
    return model([node("Cast", ["x"], ["y"], name="cast", to=1234)],
                 [inp("x", [1, 2])], [out("y", 2)])


def case_pool_flag():
    return model([node("MaxPool", ["x"], ["y"], name="pool",
                       kernel_shape=[2, 2], ceil_mode=7)],
                 [inp("x", [1, 1, 8, 8])], [out("y", 4)])


def case_duplicate_attribute():
    n = node("LeakyRelu", ["x"], ["y"], name="lrelu", alpha=0.1)
    n.attribute.append(helper.make_attribute("alpha", 0.3))
    return model([n], [inp("x", [1, 2])], [out("y", 2)], check=False)


def case_dropout_ratio():
    """A ratio out of [0, 1): tg.dropout's verifier names the ONNX node."""
    return model([node("Dropout", ["x", "r", "t"], ["y"], name="drop")],
                 [inp("x", [1, 3])], [out("y", 2)],
                 inits=[floats("r", [1.5]),
                        numpy_helper.from_array(np.array(True), "t")])


def case_declared_output_folded():
    """ONNX shape inference cannot follow Range, so the declared 7x7 of the
    folded output stays; memopt computes 1x2."""
    value = helper.make_tensor("v", FLOAT, [1], [1.0])
    return model([node("Range", ["a", "b", "c"], ["s"], name="range"),
                  node("ConstantOfShape", ["s"], ["z"], name="ones",
                       value=value),
                  node("Add", ["x", "z"], ["y"], name="add")],
                 [inp("x", [1, 2])],
                 [helper.make_tensor_value_info("z", FLOAT, [7, 7]),
                  out("y", 2)],
                 inits=[ints("a", 1), ints("b", 3), ints("c", 1)])


# --- Models for memopt-compile's command-line tests ---------------------------

def case_single_conv():
    """The smallest model a training binary trains: one input, one output."""
    return model([node("Conv", ["x", "w"], ["y"], name="conv", pads=[1, 1, 1, 1])],
                 [inp("x", [1, 1, 4, 4])], [out("y", 4)],
                 inits=[weight("w", [1, 1, 3, 3])])


def case_wide_conv_relu_conv():
    """Two 3x3 convolutions of 32 channels at 256x256 (8 MiB per tensor):
    large enough that a cuda workspace has a smaller lean one
    (remat-auto-lean.test)."""
    return model([node("Conv", ["x", "w1"], ["c1"], name="conv1",
                       pads=[1, 1, 1, 1]),
                  node("Relu", ["c1"], ["r1"], name="relu1"),
                  node("Conv", ["r1", "w2"], ["y"], name="conv2",
                       pads=[1, 1, 1, 1])],
                 [inp("x", [1, 32, 256, 256])], [out("y", 4)],
                 inits=[weight("w1", [32, 32, 3, 3]),
                        weight("w2", [32, 32, 3, 3])])


def case_two_inputs():
    return model([node("Add", ["x", "z"], ["y"], name="add")],
                 [inp("x", [1, 1, 4, 4]), inp("z", [1, 1, 4, 4])], [out("y", 4)])


def write_truncated(path):
    data = case_conv().SerializeToString()
    with open(path, "wb") as f:
        f.write(data[: len(data) // 2])


def write_random(path):
    rng = np.random.default_rng(1234)
    with open(path, "wb") as f:
        f.write(rng.integers(0, 256, 4096, dtype=np.uint8).tobytes())


def write_empty(path):
    open(path, "wb").close()


RAW = {"truncated": write_truncated, "random": write_random,
       "empty": write_empty,
       "external_ok": lambda p: external(p, offset=16, length=3 * 2 * 9 * 4),
       "external_short": lambda p: external(p, truncate=40),
       "external_escape": lambda p: external(p, location="../outside.data"),
       "external_missing": lambda p: external(p, location="absent.data")}


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: make_onnx.py CASE OUT.onnx")
    case, path = argv[1], argv[2]
    if case in RAW:
        RAW[case](path)
        return
    build = globals().get("case_" + case)
    if build is None:
        sys.exit(f"make_onnx.py: unknown case '{case}'")
    onnx.save(build(), path)


if __name__ == "__main__":
    main(sys.argv)
