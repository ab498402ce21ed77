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
import sys

import onnx
import torch

from memopt import models
from memopt.onnx_export import EXPORTERS, export_training


def export_model(name, path, batch, input_shape, seed=0, opset=17,
                 exporter="torchscript", **kw):
    """Build `name` (kwargs go to the model), export to `path`, check, summarize.

    `exporter` is memopt.onnx_export's: "torchscript" (the default here, so
    that the tests' files do not depend on the PyTorch installed), "auto" or
    "torch.export". Raises ValueError for a bad model name, kwarg, input
    shape, opset or exporter,
    OSError when `path` cannot be written.
    Returns `summarize`'s dict plus "path" and "parameters" (the PyTorch
    model's parameter count; BN running stats are initializers but not parameters).
    """
    if batch < 1:
        raise ValueError(f"batch must be >= 1, got {batch}")
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
    """'C,H,W' -> (C, H, W) of positive ints."""
    try:
        dims = tuple(int(s) for s in text.split(","))
    except ValueError:
        dims = ()
    if len(dims) != 3 or min(dims) < 1:
        raise argparse.ArgumentTypeError(f"expected C,H,W with positive integers, got {text!r}")
    return dims


class _Parser(argparse.ArgumentParser):
    """Argument errors as one line on stderr, exit 2 (no usage block)."""

    def error(self, message):
        self.exit(2, f"error: {message}\n")


def main(argv=None):
    parser = _Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help=", ".join(models.MODELS))
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--input-shape", type=parse_shape, required=True, metavar="C,H,W")
    parser.add_argument("--base", type=int, help="classic U-Net base width")
    parser.add_argument("--depth", type=int, help="classic U-Net depth")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--opset", type=int, default=17)
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
