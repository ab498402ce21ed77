#!/usr/bin/python3
"""Reference cases for the runtime kernels, computed with PyTorch autograd.

Every case holds the operands of one tg op family, its outputs and the
gradients that autograd computes for a random upstream gradient; the C++
parity test (unittests/Runtime/ParityTest.cpp) runs the runtime kernels on
the same operands and compares. Shapes are small and odd; attributes cover
strides, asymmetric padding, dilation, groups, ceil_mode, count_include_pad,
every resize mode and the optimizer options.

Where PyTorch has no direct equivalent of a tg attribute (asymmetric pads,
ONNX resize coordinate modes) the reference is built from PyTorch ops that
do (explicit F.pad then an unpadded op; interpolation matrices applied with
torch.matmul), and the construction is checked against the PyTorch op
wherever both exist.

File format (one NAME.case per case):
    memopt-reference 1
    op FAMILY
    attr NAME VALUE...          (numbers or words)
    tensor NAME RANK DIM...     (in the order of the data)
    data
    <float32 little-endian values of every tensor, concatenated>

Run: /usr/bin/python3 make_reference.py --out DIR
"""
import argparse
import math
import os
import sys

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", ".."))
from memopt.losses import dice_loss  # noqa: E402

torch.set_default_dtype(torch.float32)


class Case:
    def __init__(self, op):
        self.op = op
        self.attrs = []
        self.tensors = []

    def attr(self, name, *values):
        words = []
        for v in values:
            if isinstance(v, bool):
                words.append("1" if v else "0")
            elif isinstance(v, float):
                words.append(repr(v))
            else:
                words.append(str(v))
        self.attrs.append((name, words))
        return self

    def tensor(self, name, value):
        array = value.detach().to(torch.float32).contiguous().numpy()
        self.tensors.append((name, array))
        return self

    def write(self, path):
        with open(path, "wb") as f:
            f.write(b"memopt-reference 1\n")
            f.write(("op %s\n" % self.op).encode())
            for name, words in self.attrs:
                f.write(("attr %s %s\n" % (name, " ".join(words))).encode())
            for name, array in self.tensors:
                dims = " ".join(str(d) for d in array.shape)
                f.write(("tensor %s %d %s\n" % (name, array.ndim, dims)).encode())
            f.write(b"data\n")
            for _, array in self.tensors:
                f.write(array.astype("<f4").tobytes())


def rand(*shape, low=-1.0, high=1.0):
    return torch.rand(tuple(shape)) * (high - low) + low


def leaf(t):
    return t.clone().requires_grad_(True)


def backward(output, *leaves):
    """A random upstream gradient and the gradients of `leaves`."""
    grad_output = rand(*output.shape)
    grads = torch.autograd.grad(output, leaves, grad_output)
    return grad_output, grads


def pad_lrtb(pads):
    """ONNX [top, left, bottom, right] as F.pad's (left, right, top, bottom)."""
    top, left, bottom, right = pads
    return (left, right, top, bottom)


# ---------------------------------------------------------------------------
# Convolutions
# ---------------------------------------------------------------------------

CONV_CASES = [
    # n, c, o, h, w, kernel, strides, pads, dilations, groups, bias
    (2, 3, 4, 7, 9, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 1, True),
    (1, 4, 6, 11, 8, (3, 2), (2, 1), (1, 0, 2, 1), (1, 1), 2, True),
    (3, 6, 6, 9, 10, (3, 3), (2, 2), (2, 2, 2, 2), (2, 2), 3, False),
    (2, 5, 3, 8, 13, (1, 1), (1, 2), (0, 0, 0, 0), (1, 1), 1, True),
    (1, 3, 5, 10, 10, (5, 3), (3, 2), (2, 1, 0, 2), (1, 3), 1, True),
    (2, 8, 8, 6, 7, (3, 3), (1, 1), (1, 1, 1, 1), (1, 1), 8, True),
]


def conv_cases():
    for n, c, o, h, w, k, s, p, d, g, has_bias in CONV_CASES:
        x = leaf(rand(n, c, h, w))
        weight = leaf(rand(o, c // g, *k))
        bias = leaf(rand(o)) if has_bias else None
        y = F.conv2d(F.pad(x, pad_lrtb(p)), weight, bias, s, 0, d, g)
        leaves = (x, weight) + ((bias,) if has_bias else ())
        gy, grads = backward(y, *leaves)
        case = Case("conv").attr("strides", *s).attr("pads", *p)
        case.attr("dilations", *d).attr("groups", g)
        case.tensor("input", x).tensor("weight", weight)
        if has_bias:
            case.tensor("bias", bias)
        case.tensor("output", y).tensor("grad_output", gy)
        case.tensor("grad_input", grads[0]).tensor("grad_weight", grads[1])
        if has_bias:
            case.tensor("grad_bias", grads[2])
        yield case


CONV_TRANSPOSE_CASES = [
    # n, c, o, h, w, kernel, strides, pads, dilations, output_padding, groups
    (2, 4, 3, 5, 6, (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), (0, 0), 1),
    (1, 3, 5, 4, 7, (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), (1, 1), 1),
    (2, 4, 6, 5, 5, (3, 2), (3, 1), (1, 0, 2, 1), (1, 2), (2, 0), 2),
    (1, 6, 3, 6, 4, (4, 4), (2, 3), (1, 2, 1, 0), (2, 1), (1, 2), 3),
    (3, 2, 2, 3, 3, (1, 1), (1, 1), (0, 0, 0, 0), (1, 1), (0, 0), 1),
]


def conv_transpose_cases():
    for n, c, o, h, w, k, s, p, d, op, g in CONV_TRANSPOSE_CASES:
        x = leaf(rand(n, c, h, w))
        weight = leaf(rand(c, o // g, *k))
        bias = leaf(rand(o))
        full = F.conv_transpose2d(x, weight, bias, s, 0, op, g, d)
        top, left, bottom, right = p
        y = full[:, :, top:full.shape[2] - bottom, left:full.shape[3] - right]
        if p[0] == p[2] and p[1] == p[3]:
            direct = F.conv_transpose2d(x, weight, bias, s, (p[0], p[1]), op,
                                        g, d)
            assert torch.allclose(direct, y, atol=1e-5)
        gy, grads = backward(y, x, weight, bias)
        case = Case("conv_transpose").attr("strides", *s).attr("pads", *p)
        case.attr("dilations", *d).attr("output_padding", *op)
        case.attr("groups", g)
        case.tensor("input", x).tensor("weight", weight).tensor("bias", bias)
        case.tensor("output", y).tensor("grad_output", gy)
        case.tensor("grad_input", grads[0]).tensor("grad_weight", grads[1])
        case.tensor("grad_bias", grads[2])
        yield case


# ---------------------------------------------------------------------------
# Batch normalization
# ---------------------------------------------------------------------------

def batch_norm_cases():
    for shape, eps, momentum in [((4, 3, 5, 7), 1e-5, 0.1),
                                 ((2, 5, 3, 3), 1e-3, 0.3),
                                 ((7, 4), 1e-5, 0.1),
                                 ((3, 2, 11), 1e-5, 0.01),
                                 ((1, 6, 9, 13), 1e-5, 0.1)]:
        c = shape[1]
        x = leaf(rand(*shape, low=-2.0, high=3.0))
        scale = leaf(rand(c, low=0.5, high=1.5))
        bias = leaf(rand(c))
        running_mean = rand(c)
        running_var = rand(c, low=0.5, high=2.0)
        new_mean = running_mean.clone()
        new_var = running_var.clone()
        y = F.batch_norm(x, new_mean, new_var, scale, bias, True, momentum, eps)
        axes = [0] + list(range(2, len(shape)))
        x64 = x.detach().double()
        saved_mean = x64.mean(dim=axes)
        saved_inv_std = 1 / torch.sqrt(x64.var(dim=axes, unbiased=False) + eps)
        gy, grads = backward(y, x, scale, bias)
        with torch.no_grad():
            inference = F.batch_norm(x, running_mean, running_var, scale, bias,
                                     False, momentum, eps)
        case = Case("batch_norm").attr("epsilon", eps).attr("momentum", momentum)
        for name, t in [("input", x), ("scale", scale), ("bias", bias),
                        ("running_mean", running_mean),
                        ("running_var", running_var), ("output", y),
                        ("new_running_mean", new_mean),
                        ("new_running_var", new_var),
                        ("saved_mean", saved_mean),
                        ("saved_inv_std", saved_inv_std),
                        ("grad_output", gy), ("grad_input", grads[0]),
                        ("grad_scale", grads[1]), ("grad_bias", grads[2]),
                        ("inference_output", inference)]:
            case.tensor(name, t)
        yield case


# ---------------------------------------------------------------------------
# Elementwise
# ---------------------------------------------------------------------------

UNARY = {
    # name: (torch function, low, high, saved operand of the backward or None)
    "relu": (torch.relu, -1.0, 1.0, "output"),
    "sigmoid": (torch.sigmoid, -4.0, 4.0, "output"),
    "tanh": (torch.tanh, -3.0, 3.0, "output"),
    "neg": (torch.neg, -1.0, 1.0, None),
    "exp": (torch.exp, -3.0, 3.0, None),
    "log": (torch.log, 0.05, 4.0, None),
    "sqrt": (torch.sqrt, 0.05, 4.0, None),
    "abs": (torch.abs, -1.0, 1.0, None),
    "sign": (torch.sign, -1.0, 1.0, None),
    "leaky_relu": (lambda x: F.leaky_relu(x, 0.2), -1.0, 1.0, "input"),
    "clip": (lambda x: torch.clamp(x, -0.4, 0.7), -1.0, 1.0, "input"),
    "hard_sigmoid": (F.hardsigmoid, -4.0, 4.0, "input"),
    "hard_sigmoid_onnx": (lambda x: torch.clamp(0.2 * x + 0.5, 0.0, 1.0),
                          -3.0, 3.0, "input"),
    "hard_swish": (F.hardswish, -5.0, 5.0, "input"),
    "elu": (lambda x: F.elu(x, 0.7), -3.0, 3.0, "input"),
    "softplus": (F.softplus, -5.0, 25.0, "input"),
    "erf": (torch.erf, -2.5, 2.5, "input"),
}


def unary_cases():
    for name, (fn, low, high, saved) in UNARY.items():
        x = leaf(rand(3, 4, 5, 7, low=low, high=high))
        y = fn(x)
        case = Case("unary").attr("kind", name)
        if name == "leaky_relu":
            case.attr("alpha", 0.2)
        if name == "hard_sigmoid":
            case.attr("alpha", 1.0 / 6.0).attr("beta", 0.5)
        if name == "hard_sigmoid_onnx":
            case = Case("unary").attr("kind", "hard_sigmoid")
            case.attr("alpha", 0.2).attr("beta", 0.5)
        if name == "elu":
            case.attr("alpha", 0.7)
        if name == "clip":
            x.data[0, 0, 0, :3] = torch.tensor([-0.4, 0.7, 0.0])
            y = fn(x)
            case.attr("min", -0.4).attr("max", 0.7)
        case.tensor("input", x).tensor("output", y)
        if saved is not None:
            gy, (gx,) = backward(y, x)
            case.tensor("grad_output", gy).tensor("grad_input", gx)
        yield case


def prelu_cases():
    for shape, slope_shape in [((2, 3, 4, 5), (3, 1, 1)), ((3, 6), (1,)),
                               ((2, 4, 3, 3), (4, 3, 3))]:
        x = leaf(rand(*shape))
        slope = leaf(rand(*slope_shape, low=0.05, high=0.5))
        y = torch.where(x > 0, x, slope * x)
        gy, (gx, gs) = backward(y, x, slope)
        case = Case("prelu").tensor("input", x).tensor("slope", slope)
        case.tensor("output", y).tensor("grad_output", gy)
        yield case.tensor("grad_input", gx).tensor("grad_slope", gs)


def softmax_cases():
    for kind, fn in [("softmax", torch.softmax),
                     ("log_softmax", torch.log_softmax)]:
        for shape, axis in [((2, 5, 3, 4), 1), ((3, 7), 1), ((4, 3, 6), 0),
                            ((2, 3, 4, 5), 3)]:
            x = leaf(rand(*shape, low=-4.0, high=4.0))
            y = fn(x, axis)
            gy, (gx,) = backward(y, x)
            case = Case("softmax").attr("kind", kind).attr("axis", axis)
            case.tensor("input", x).tensor("output", y)
            yield case.tensor("grad_output", gy).tensor("grad_input", gx)


def instance_norm_cases():
    # N x C x H x W (InstanceNorm2d) and N x G x M (GroupNorm's reshape).
    for shape, eps in [((2, 3, 5, 7), 1e-5), ((2, 4, 9), 1e-5),
                       ((1, 2, 3, 4, 5), 1e-3)]:
        c = shape[1]
        x = leaf(rand(*shape, low=-2.0, high=3.0))
        scale = leaf(rand(c, low=0.5, high=1.5))
        bias = leaf(rand(c))
        y = F.instance_norm(x, weight=scale, bias=bias, eps=eps)
        axes = list(range(2, len(shape)))
        x64 = x.detach().double()
        saved_mean = x64.mean(dim=axes)
        saved_inv_std = 1 / torch.sqrt(x64.var(dim=axes, unbiased=False) + eps)
        gy, grads = backward(y, x, scale, bias)
        case = Case("instance_norm").attr("epsilon", eps)
        for name, t in [("input", x), ("scale", scale), ("bias", bias),
                        ("output", y), ("saved_mean", saved_mean),
                        ("saved_inv_std", saved_inv_std),
                        ("grad_output", gy), ("grad_input", grads[0]),
                        ("grad_scale", grads[1]), ("grad_bias", grads[2])]:
            case.tensor(name, t)
        yield case


def segmentation_loss_cases():
    for kind in ["ce", "dice"]:
        for shape in [(2, 4, 5, 6), (3, 5), (2, 3, 7)]:
            logits = leaf(rand(*shape, low=-3.0, high=3.0))
            map_shape = (shape[0],) + shape[2:]
            target = torch.randint(0, shape[1], map_shape)
            if kind == "ce":
                loss = F.cross_entropy(logits, target)
            else:
                loss = dice_loss(logits, target)
            grad_loss = torch.tensor(0.75)
            (gl,) = torch.autograd.grad(loss, (logits,), grad_loss)
            case = Case("segmentation_loss").attr("kind", kind)
            case.tensor("logits", logits).tensor("target", target.float())
            case.tensor("loss", loss).tensor("grad_loss", grad_loss)
            yield case.tensor("grad_logits", gl)
    # Dice of one channel: sigmoid against a float mask.
    logits = leaf(rand(2, 1, 6, 5, low=-3.0, high=3.0))
    target = (rand(2, 1, 6, 5) > 0).float()
    loss = dice_loss(logits, target)
    grad_loss = torch.tensor(1.25)
    (gl,) = torch.autograd.grad(loss, (logits,), grad_loss)
    case = Case("segmentation_loss").attr("kind", "dice")
    case.tensor("logits", logits).tensor("target", target)
    case.tensor("loss", loss).tensor("grad_loss", grad_loss)
    yield case.tensor("grad_logits", gl)


def binary_cases():
    shapes = [((2, 3, 4, 5), (2, 3, 4, 5)), ((2, 3, 4, 5), (3, 1, 1)),
              ((1, 3, 1, 5), (4, 1, 1, 1)), ((5,), (2, 3, 4, 5)),
              ((2, 1, 7), (1,)), ((), (3, 2))]
    for kind, fn in [("add", torch.add), ("sub", torch.sub),
                     ("mul", torch.mul), ("div", torch.div)]:
        for lhs_shape, rhs_shape in shapes:
            lhs = rand(*lhs_shape)
            rhs = rand(*rhs_shape, low=0.5, high=2.0)
            case = Case("binary").attr("kind", kind)
            case.tensor("lhs", lhs).tensor("rhs", rhs)
            case.tensor("output", fn(lhs, rhs))
            yield case


# ---------------------------------------------------------------------------
# Pooling and resize
# ---------------------------------------------------------------------------

MAX_POOL_CASES = [
    # shape, kernel, strides, pads, dilations, ceil_mode
    ((2, 3, 8, 9), (2, 2), (2, 2), (0, 0, 0, 0), (1, 1), False),
    ((1, 2, 7, 7), (3, 3), (2, 2), (1, 1, 1, 1), (1, 1), True),
    ((2, 2, 9, 11), (3, 2), (2, 3), (1, 0, 1, 0), (2, 1), True),
    ((1, 3, 10, 6), (2, 3), (1, 2), (0, 1, 0, 1), (1, 2), False),
    ((1, 2, 5, 8), (3, 3), (3, 3), (0, 0, 0, 0), (1, 1), True),
    # asymmetric pads, through an explicit -inf padding
    ((2, 2, 9, 8), (3, 3), (2, 2), (1, 0, 0, 1), (1, 1), False),
]


def max_pool_cases():
    for shape, k, s, p, d, ceil in MAX_POOL_CASES:
        x = leaf(rand(*shape))
        if p[0] == p[2] and p[1] == p[3]:
            y = F.max_pool2d(x, k, s, (p[0], p[1]), d, ceil)
        else:
            assert not ceil
            y = F.max_pool2d(F.pad(x, pad_lrtb(p), value=-math.inf), k, s, 0,
                             d, False)
        gy, (gx,) = backward(y, x)
        case = Case("max_pool").attr("kernel", *k).attr("strides", *s)
        case.attr("pads", *p).attr("dilations", *d).attr("ceil_mode", ceil)
        case.tensor("input", x).tensor("output", y)
        case.tensor("grad_output", gy).tensor("grad_input", gx)
        yield case


AVG_POOL_CASES = [
    # shape, kernel, strides, pads, ceil_mode, count_include_pad
    ((2, 3, 8, 9), (2, 2), (2, 2), (0, 0, 0, 0), False, True),
    ((1, 2, 7, 7), (3, 3), (2, 2), (1, 1, 1, 1), True, True),
    ((1, 2, 7, 7), (3, 3), (2, 2), (1, 1, 1, 1), True, False),
    ((2, 2, 9, 11), (3, 2), (2, 3), (1, 1, 1, 1), False, False),
    ((1, 3, 6, 10), (5, 3), (3, 2), (2, 1, 2, 1), True, True),
    ((1, 3, 6, 10), (5, 3), (3, 2), (2, 1, 2, 1), True, False),
    # asymmetric pads, through sums over an explicit zero padding
    ((2, 2, 9, 8), (3, 3), (2, 2), (1, 0, 0, 1), False, True),
    ((2, 2, 9, 8), (3, 3), (2, 2), (1, 0, 0, 1), False, False),
]


def avg_pool_cases():
    for shape, k, s, p, ceil, include in AVG_POOL_CASES:
        x = leaf(rand(*shape))
        if p[0] == p[2] and p[1] == p[3]:
            y = F.avg_pool2d(x, k, s, (p[0], p[1]), ceil, include)
        else:
            assert not ceil
            sums = F.avg_pool2d(F.pad(x, pad_lrtb(p)), k, s, 0,
                                divisor_override=1)
            ones = torch.ones(1, 1, *shape[2:])
            if include:
                ones = F.pad(ones, pad_lrtb(p), value=1.0)
            else:
                ones = F.pad(ones, pad_lrtb(p))
            counts = F.avg_pool2d(ones, k, s, 0, divisor_override=1)
            y = sums / counts
        gy, (gx,) = backward(y, x)
        case = Case("avg_pool").attr("kernel", *k).attr("strides", *s)
        case.attr("pads", *p).attr("ceil_mode", ceil)
        case.attr("count_include_pad", include)
        case.tensor("input", x).tensor("output", y)
        case.tensor("grad_output", gy).tensor("grad_input", gx)
        yield case


def global_avg_pool_cases():
    x = rand(3, 4, 7, 5)
    yield Case("global_avg_pool").tensor("input", x).tensor(
        "output", F.adaptive_avg_pool2d(x, 1))


def source_coordinate(x, scale, n_in, n_out, mode):
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (x + 0.5) / scale - 0.5 if n_out > 1 else 0.0
    if mode == "align_corners":
        return 0.0 if n_out == 1 else x * (n_in - 1) / (n_out - 1)
    assert mode == "asymmetric"
    return x / scale


def round_nearest(s, mode):
    if mode == "floor":
        return math.floor(s)
    if mode == "ceil":
        return math.ceil(s)
    f = math.floor(s)
    if s - f == 0.5:
        return f if mode == "round_prefer_floor" else f + 1
    return f if s - f < 0.5 else f + 1


def interpolation_matrix(n_in, n_out, scale, mode, coord, nearest):
    """The n_out x n_in matrix of ONNX Resize along one axis (edge-clamped)."""
    m = np.zeros((n_out, n_in))
    for x in range(n_out):
        s = source_coordinate(x, scale, n_in, n_out, coord)
        if mode == "nearest":
            m[x, min(max(round_nearest(s, nearest), 0), n_in - 1)] = 1.0
            continue
        s = min(max(s, 0.0), n_in - 1.0)
        i0 = int(math.floor(s))
        i1 = min(i0 + 1, n_in - 1)
        m[x, i0] += 1.0 - (s - i0)
        m[x, i1] += s - i0
    return torch.from_numpy(m)


def resize_by_matrices(x, out_hw, scales, mode, coord, nearest):
    mh = interpolation_matrix(x.shape[2], out_hw[0], scales[0], mode, coord,
                              nearest)
    mw = interpolation_matrix(x.shape[3], out_hw[1], scales[1], mode, coord,
                              nearest)
    return torch.matmul(torch.matmul(mh, x.double()), mw.t()).float()


def resize_by_torch(x, out_hw, scales, mode, coord, nearest):
    """PyTorch's own interpolation for the modes it has, else None."""
    if mode == "bilinear" and coord in ("half_pixel", "pytorch_half_pixel"):
        if min(out_hw) > 1:
            return F.interpolate(x, scale_factor=scales, mode="bilinear",
                                 align_corners=False)
    if mode == "bilinear" and coord == "align_corners":
        return F.interpolate(x, size=out_hw, mode="bilinear",
                             align_corners=True)
    if mode == "nearest" and coord == "asymmetric" and nearest == "floor":
        return F.interpolate(x, scale_factor=scales, mode="nearest")
    return None


def resize_cases():
    shapes = [((2, 3, 5, 7), (2.0, 2.0)), ((1, 2, 8, 6), (0.5, 1.5)),
              ((1, 2, 4, 5), (2.5, 3.0)), ((2, 1, 6, 9), (1.5, 0.75))]
    combos = [("bilinear", c, "round_prefer_floor")
              for c in ("half_pixel", "pytorch_half_pixel", "align_corners",
                        "asymmetric")]
    combos += [("nearest", c, n)
               for c in ("half_pixel", "pytorch_half_pixel", "align_corners",
                         "asymmetric")
               for n in ("round_prefer_floor", "round_prefer_ceil", "floor",
                         "ceil")]
    for mode, coord, nearest in combos:
        for shape, scales in shapes:
            out_hw = [int(math.floor(shape[2 + i] * scales[i]))
                      for i in range(2)]
            x = leaf(rand(*shape))
            y = resize_by_matrices(x, out_hw, scales, mode, coord, nearest)
            direct = resize_by_torch(x, out_hw, scales, mode, coord, nearest)
            if direct is not None:
                assert direct.shape == y.shape
                assert torch.allclose(direct, y, atol=1e-5), (mode, coord)
                y = direct
            gy, (gx,) = backward(y, x)
            case = Case("resize").attr("mode", mode)
            case.attr("coordinate_mode", coord).attr("nearest_mode", nearest)
            case.attr("scales", *scales)
            case.tensor("input", x).tensor("output", y)
            case.tensor("grad_output", gy).tensor("grad_input", gx)
            yield case


# ---------------------------------------------------------------------------
# Shape ops, reductions, linear algebra
# ---------------------------------------------------------------------------

def shape_cases():
    for shapes, axis in [([(2, 3, 4, 5), (2, 1, 4, 5), (2, 4, 4, 5)], 1),
                         ([(3, 2), (3, 5)], 1), ([(1, 4), (2, 4)], 0),
                         ([(2, 3, 4, 2), (2, 3, 4, 3)], 3)]:
        inputs = [rand(*s) for s in shapes]
        case = Case("concat").attr("axis", axis).attr("count", len(inputs))
        for i, t in enumerate(inputs):
            case.tensor("input%d" % i, t)
        yield case.tensor("output", torch.cat(inputs, axis))

    for shape, starts, ends, steps in [
            ((2, 5, 7, 8), (0, 1, 2, 0), (2, 4, 7, 8), (1, 1, 2, 3)),
            ((9, 4), (3, 0), (9, 3), (2, 2)),
            ((1, 3, 6, 6), (0, 0, 1, 1), (1, 3, 5, 5), (1, 1, 1, 1))]:
        x = leaf(rand(*shape))
        index = tuple(slice(b, e, s) for b, e, s in zip(starts, ends, steps))
        y = x[index]
        gy, (gx,) = backward(y, x)
        case = Case("slice").attr("starts", *starts).attr("ends", *ends)
        case.attr("steps", *steps)
        case.tensor("input", x).tensor("output", y)
        yield case.tensor("grad_output", gy).tensor("grad_input", gx)

    # Edge and reflect pads of ranks 3 to 5, widths 0 up to size - 1 (the
    # most reflect allows), with PyTorch's gradient (the border's gradient
    # added back onto the elements it copies).
    for shape, pads, mode, value in [
            ((2, 3, 4, 5), (0, 1, 2, 0, 1, 0, 1, 3), "constant", 0.5),
            ((3, 4), (2, 0, 1, 3), "constant", 0.0),
            ((1, 2, 5, 6), (0, 0, 2, 3, 0, 0, 4, 1), "reflect", 0.0),
            ((2, 1, 4, 3), (0, 0, 3, 1, 0, 0, 2, 4), "edge", 0.0),
            ((2, 3, 5), (0, 0, 4, 0, 0, 2), "reflect", 0.0),
            ((2, 3, 5), (0, 0, 0, 0, 0, 3), "edge", 0.0),
            ((1, 2, 3, 4, 5), (0, 0, 2, 1, 0, 0, 0, 1, 3, 4), "reflect", 0.0),
            ((1, 2, 3, 4, 2), (0, 0, 1, 0, 2, 0, 0, 2, 3, 1), "edge", 0.0),
            ((1, 2, 3, 4, 4), (0, 0, 0, 0, 0, 0, 0, 0, 0, 0), "edge", 0.0)]:
        x = leaf(rand(*shape))
        rank = len(shape)
        torch_pads = []
        for axis in reversed(range(rank)):
            torch_pads += [pads[axis], pads[rank + axis]]
        if mode == "constant":
            y = F.pad(x, torch_pads, value=value)
        else:
            spatial = 2 * (rank - 2)
            assert all(p == 0 for p in torch_pads[spatial:])
            y = F.pad(x, torch_pads[:spatial],
                      mode="reflect" if mode == "reflect" else "replicate")
        gy, (gx,) = backward(y, x)
        case = Case("pad").attr("pads", *pads).attr("mode", mode)
        case.attr("value", value)
        case.tensor("input", x).tensor("output", y)
        yield case.tensor("grad_output", gy).tensor("grad_input", gx)


def linalg_cases():
    for lhs_shape, rhs_shape in [((3, 4), (4, 5)), ((2, 3, 7, 4), (4, 6)),
                                 ((2, 1, 3, 5), (4, 5, 2)), ((5, 1), (1, 3))]:
        lhs, rhs = rand(*lhs_shape), rand(*rhs_shape)
        yield Case("matmul").tensor("lhs", lhs).tensor("rhs", rhs).tensor(
            "output", torch.matmul(lhs, rhs))
    for m, k, n, c_shape, alpha, beta, ta, tb in [
            (3, 4, 5, (5,), 1.0, 1.0, False, False),
            (6, 2, 3, (6, 3), 0.5, 2.0, True, False),
            (4, 7, 2, (4, 1), 1.5, -1.0, False, True),
            (2, 3, 4, None, 1.0, 1.0, True, True),
            (3, 3, 3, (), 2.0, 0.5, False, False)]:
        a = rand(k, m) if ta else rand(m, k)
        b = rand(n, k) if tb else rand(k, n)
        y = alpha * torch.matmul(a.t() if ta else a, b.t() if tb else b)
        case = Case("gemm").attr("alpha", alpha).attr("beta", beta)
        case.attr("trans_a", ta).attr("trans_b", tb)
        case.tensor("a", a).tensor("b", b)
        if c_shape is not None:
            c = rand(*c_shape)
            y = y + beta * c
            case.tensor("c", c)
        yield case.tensor("output", y)


# ---------------------------------------------------------------------------
# Losses and optimizers
# ---------------------------------------------------------------------------

def loss_cases():
    for kind, fn in [("mse", F.mse_loss), ("l1", F.l1_loss),
                     ("bce", F.binary_cross_entropy)]:
        for shape in [(2, 1, 9, 7), (3, 5)]:
            if kind == "bce":
                prediction = leaf(rand(*shape, low=0.02, high=0.98))
                target = rand(*shape, low=0.0, high=1.0)
                # Saturated predictions exercise the -100 log clamp.
                prediction.data.view(-1)[:2] = torch.tensor([0.0, 1.0])
                target.view(-1)[:2] = torch.tensor([0.3, 0.6])
            else:
                prediction = leaf(rand(*shape))
                target = rand(*shape)
            loss = fn(prediction, target)
            grad_loss = torch.tensor(0.75)
            (gp,) = torch.autograd.grad(loss, (prediction,), grad_loss)
            case = Case("loss").attr("kind", kind)
            case.tensor("prediction", prediction).tensor("target", target)
            case.tensor("loss", loss).tensor("grad_loss", grad_loss)
            yield case.tensor("grad_prediction", gp)


def sgd_cases():
    for lr, momentum, dampening, wd, nesterov, step in [
            (0.1, 0.0, 0.0, 0.0, False, 1),
            (0.05, 0.0, 0.0, 0.01, False, 4),
            (0.1, 0.9, 0.0, 0.0, False, 1),
            (0.1, 0.9, 0.0, 1e-4, False, 2),
            (0.02, 0.8, 0.3, 0.001, False, 9),
            (0.1, 0.9, 0.0, 0.005, True, 3),
            (0.1, 0.9, 0.0, 0.0, True, 1)]:
        param = torch.nn.Parameter(rand(3, 4, 5))
        grad = rand(3, 4, 5)
        buf = rand(3, 4, 5)
        start = param.detach().clone()
        opt = torch.optim.SGD([param], lr=lr, momentum=momentum,
                              dampening=dampening, weight_decay=wd,
                              nesterov=nesterov)
        if step > 1 and momentum != 0:
            opt.state[param]["momentum_buffer"] = buf.clone()
        param.grad = grad.clone()
        opt.step()
        case = Case("sgd").attr("lr", lr).attr("momentum", momentum)
        case.attr("dampening", dampening).attr("weight_decay", wd)
        case.attr("nesterov", nesterov).attr("step", step)
        case.tensor("param", start).tensor("grad", grad)
        case.tensor("new_param", param)
        if momentum != 0:
            case.tensor("momentum_buffer", buf)
            case.tensor("new_momentum_buffer",
                        opt.state[param]["momentum_buffer"])
        yield case


def adam_cases():
    for lr, beta1, beta2, eps, wd, decoupled, step in [
            (1e-3, 0.9, 0.999, 1e-8, 0.0, False, 1),
            (1e-2, 0.9, 0.999, 1e-8, 0.01, False, 5),
            (1e-3, 0.8, 0.99, 1e-6, 0.05, True, 1),
            (3e-3, 0.9, 0.999, 1e-8, 0.01, True, 100),
            (1e-3, 0.0, 0.5, 1e-3, 0.0, False, 3)]:
        param = torch.nn.Parameter(rand(4, 3, 3))
        grad = rand(4, 3, 3)
        exp_avg = rand(4, 3, 3) * 0.1 if step > 1 else torch.zeros(4, 3, 3)
        exp_avg_sq = (rand(4, 3, 3, low=0.0, high=0.01) if step > 1
                      else torch.zeros(4, 3, 3))
        start = param.detach().clone()
        cls = torch.optim.AdamW if decoupled else torch.optim.Adam
        opt = cls([param], lr=lr, betas=(beta1, beta2), eps=eps,
                  weight_decay=wd)
        param.grad = grad.clone()
        if step > 1:
            opt.state[param]["step"] = torch.tensor(float(step - 1))
            opt.state[param]["exp_avg"] = exp_avg.clone()
            opt.state[param]["exp_avg_sq"] = exp_avg_sq.clone()
        opt.step()
        state = opt.state[param]
        case = Case("adam").attr("lr", lr).attr("beta1", beta1)
        case.attr("beta2", beta2).attr("eps", eps).attr("weight_decay", wd)
        case.attr("decoupled", decoupled).attr("step", step)
        case.tensor("param", start).tensor("grad", grad)
        case.tensor("exp_avg", exp_avg).tensor("exp_avg_sq", exp_avg_sq)
        case.tensor("new_param", param).tensor("new_exp_avg", state["exp_avg"])
        yield case.tensor("new_exp_avg_sq", state["exp_avg_sq"])


GENERATORS = [conv_cases, conv_transpose_cases, batch_norm_cases, unary_cases,
              binary_cases, max_pool_cases, avg_pool_cases,
              global_avg_pool_cases, resize_cases, shape_cases, linalg_cases,
              loss_cases, sgd_cases, adam_cases, prelu_cases, softmax_cases,
              instance_norm_cases, segmentation_loss_cases]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", required=True, help="output directory")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    for name in os.listdir(args.out):
        if name.endswith(".case"):
            os.remove(os.path.join(args.out, name))
    count = 0
    for generator in GENERATORS:
        for case in generator():
            case.write(os.path.join(args.out, "%s_%03d.case" % (case.op, count)))
            count += 1
    print("make_reference: %d cases in %s" % (count, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
