#!/usr/bin/python3
"""Export a registry model to ONNX the way the compiler expects its input.

Training mode matters: BatchNormalization then has training_mode=1 and three
outputs (Y, running_mean, running_var), which the importer turns into a
training step; constant folding is off so the graph is what PyTorch traced.

Run (from the repository root): PYTHONPATH=python /usr/bin/python3 -m memopt.export \\
       --model resnet34-unet --batch 1 --input-shape 1,512,512 -o model.onnx
"""
import argparse
import collections
import math
import sys

import onnx
import torch

from memopt import models
from memopt.onnx_export import EXPORTERS, export_training, resolve_exporter

# What export_model accepts, checked before anything is allocated: the
# model's weights grow with the square of its widest layer (base * 2^depth
# channels; 1024 is the classic U-Net's 31M parameters), the export's
# forward pass with the input's elements (times the model's width).
MAX_BATCH = 256
MAX_CHANNELS = 64
MAX_SIDE = 8192
MAX_INPUT_ELEMENTS = 2 ** 24
MAX_BASE = 512
MAX_DEPTH = 8
MAX_WIDTH = 2048
MAX_SEED = 2 ** 64 - 1  # torch.manual_seed's range
OPSETS = range(7, 18)  # what torch 1.13 exports and memopt imports


def check_arguments(name, batch, input_shape, seed=0, opset=17, **kw):
    """Raises ValueError (one line, naming the bound) unless export_model
    can build model `name` with these arguments within the bounds above."""
    def bound(what, value, low, high):
        if not low <= value <= high:
            raise ValueError(f"{what} must be in [{low}, {high}], got {value}")

    bound("batch", batch, 1, MAX_BATCH)
    bound("seed", seed, 0, MAX_SEED)
    bound("opset", opset, OPSETS[0], OPSETS[-1])
    c, *spatial = input_shape
    bound("input channels", c, 1, MAX_CHANNELS)
    for axis, side in zip(("depth", "height", "width")[-len(spatial):],
                          spatial):
        bound("input " + axis, side, 1, MAX_SIDE)
    elements = batch * c * math.prod(spatial)
    if elements > MAX_INPUT_ELEMENTS:
        raise ValueError(f"batch x C x H x W is {elements}, above "
                         f"{MAX_INPUT_ELEMENTS}: export at a smaller batch "
                         f"or input shape (memopt-compile's --batch and "
                         f"--input-shape change them)")
    arguments = models.arguments(name, **kw)
    if "base" in arguments and "depth" in arguments:
        base, depth = arguments["base"], arguments["depth"]
        bound("base", base, 2, MAX_BASE)
        bound("depth", depth, 1, MAX_DEPTH)
        if base * 2 ** depth > MAX_WIDTH:
            raise ValueError(f"base x 2^depth (the widest layer) is "
                             f"{base * 2 ** depth}, above {MAX_WIDTH}")
        if min(spatial) < 2 ** depth:
            raise ValueError(f"depth {depth} needs H and W >= {2 ** depth}, "
                             f"got {'x'.join(map(str, spatial))}")


def export_model(name, path, batch, input_shape, seed=0, opset=17,
                 exporter="torchscript", **kw):
    """Build `name` (kwargs go to the model), export to `path`, check, summarize.

    `exporter` is memopt.onnx_export's: "torchscript" (the default here, so
    that the tests' files do not depend on the PyTorch installed), "auto" or
    "torch.export" (which takes no opset). Raises ValueError for a bad model
    name, kwarg, input shape, opset or exporter, or arguments beyond
    check_arguments' bounds (all before allocating anything), OSError when
    `path` cannot be written.
    Returns `summarize`'s dict plus "path" and "parameters" (the PyTorch
    model's parameter count; BN running stats are initializers but not parameters).
    """
    kw = models.sized_arguments(name, input_shape, **kw)
    check_arguments(name, batch, input_shape, seed=seed, opset=opset, **kw)
    resolve_exporter(exporter)
    torch.manual_seed(seed)
    model = models.build(name, **kw)
    model.check_input_shape(tuple(input_shape))
    x = torch.randn(batch, *input_shape)
    used = export_training(model, x, path, exporter=exporter, opset=opset)
    proto = onnx.load(path)
    summary = summarize(proto)
    summary["exporter"] = used
    summary["path"] = path
    summary["parameters"] = sum(p.numel() for p in model.parameters())
    return summary


def summarize(proto):
    """Op-type histogram (in order of first use), I/O shapes and initializer stats."""
    def shape(value):
        return [d.dim_value if d.HasField("dim_value") else d.dim_param
                for d in value.type.tensor_type.shape.dim]

    graph = proto.graph
    return {
        "ops": dict(collections.Counter(node.op_type for node in graph.node)),
        "inputs": {v.name: shape(v) for v in graph.input},
        "outputs": {v.name: shape(v) for v in graph.output},
        "initializers": len(graph.initializer),
    }


def parse_shape(text):
    """'C,H,W' -> (C, H, W) of positive ints, and 'C,W' or 'C,D,H,W' for
    1-D and 3-D models (bounds: check_arguments)."""
    try:
        dims = tuple(int(s) for s in text.split(","))
    except ValueError:
        dims = ()
    if not 2 <= len(dims) <= 4 or min(dims) < 1:
        raise argparse.ArgumentTypeError(
            f"expected C,H,W (C,W or C,D,H,W for 1-D or 3-D models) with "
            f"positive integers, got {text!r}")
    return dims


class _Parser(argparse.ArgumentParser):
    """Argument errors as one line on stderr, exit 2 (no usage block)."""

    def error(self, message):
        self.exit(2, f"error: {message}\n")


def main(argv=None):
    parser = _Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help=", ".join(models.MODELS))
    parser.add_argument("--batch", type=int, default=1, help=f"1 to {MAX_BATCH}")
    parser.add_argument("--input-shape", type=parse_shape, required=True, metavar="C,H,W",
                        help=f"C in [1, {MAX_CHANNELS}], H and W in [1, {MAX_SIDE}], "
                             f"batch x C x H x W at most {MAX_INPUT_ELEMENTS}")
    parser.add_argument("--base", type=int,
                        help=f"U-Net base width, 2 to {MAX_BASE}, base x 2^depth at most {MAX_WIDTH}")
    parser.add_argument("--depth", type=int,
                        help=f"U-Net depth, 1 to {MAX_DEPTH}, 2^depth at most H and W")
    parser.add_argument("--seed", type=int, default=0, help=f"0 to 2^64 - 1")
    parser.add_argument("--opset", type=int, default=17,
                        help=f"{OPSETS[0]} to {OPSETS[-1]}")
    parser.add_argument("--exporter", choices=EXPORTERS,
                        default="torchscript",
                        help="torch.onnx's exporter: torchscript (default), "
                        "torch.export (PyTorch 2's default) or auto")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)

    kw = {k: v for k, v in (("base", args.base), ("depth", args.depth)) if v is not None}
    kw["in_channels"] = args.input_shape[0]
    try:
        s = export_model(args.model, args.output, args.batch, args.input_shape,
                         seed=args.seed, opset=args.opset,
                         exporter=args.exporter, **kw)
    except (ValueError, OSError) as e:  # bad flags or unwritable -o path
        parser.error(str(e))
    ops = " ".join(f"{k}:{v}" for k, v in s["ops"].items())
    print(f"{s['path']} params={s['parameters']} {ops}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
