#!/usr/bin/env python3
"""Writes the torch.export ONNX files of the importer tests (committed in
torch-export/, regenerated with the newest PyTorch from PyPI):

    ~/.cache/memopt/torch-venv/bin/python make_torch_export_onnx.py DIR

Each is a small module in training mode exported with PyTorch 2's default
exporter, torch.onnx.export(model.train(), (x,), path), its ONNX optimizer
on unless the name says optimize_false:

- merged.onnx: an nnU-Net-style encoder (Conv, InstanceNorm, LeakyReLU):
  the optimizer merges the equal InstanceNorm scales and biases and lifts
  the constant 0.5 into an initializer;
- bn_fused.onnx: Conv then BatchNorm: the optimizer fuses the BatchNorm into
  the convolution;
- folded.onnx: PReLU and GroupNorm: the optimizer folds their parameters
  into reshaped constants;
- stripped.onnx: merged.onnx's module at opset_version=17, which the
  exporter converts down, losing the metadata memopt checks the file with;
- optimize_false.onnx: BatchNorm (written in its inference form), GELU,
  dropout, a scalar constant and bilinear resizing, export(optimize=False);
- linear_folded.onnx: tokens through LayerNorm and nn.Linear layers: on
  3-D tokens the optimizer folds each weight's transpose into an anonymous
  [in, out] constant; on 2-D rows it drops a Linear's all-zero bias
  (RemoveOptionalBiasFromGemm);
- table_folded.onnx: a learned table indexed by a constant buffer (Swin's
  relative-position bias): the optimizer folds the lookup, the parameter
  with it, into a constant;
- unused_optimize_false.onnx: a module with a parameter forward does not
  read, export(optimize=False);
- batches_tracked_optimize_false.onnx: BatchNorm then a select of channel
  1, export(optimize=False): the exporter folds BatchNorm's
  `num_batches_tracked + 1` into the int constant 1, which the select's
  Gather shares, and keeps the add's FX node on that Constant: the buffer
  looks lost, read by the add only (smp's PSPNet, whose adaptive pooling
  indexes with 1, exports so);
- batches_tracked_read.onnx: batches_tracked_optimize_false.onnx
  post-processed (no module exports so): the Constant's FX node is
  rewritten from the add to a mul of the counter, a reader other than the
  increment, which memopt must keep refusing.

    make_torch_export_onnx.py DIR [NAME...]   (only the files named)
"""
import os
import sys
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, padding=1)
        self.norm = nn.InstanceNorm2d(cout, affine=True)
        self.act = nn.LeakyReLU(0.01)

    def forward(self, x):
        return self.act(self.norm(self.conv(x)))


class Merged(nn.Module):
    def __init__(self):
        super().__init__()
        self.b1, self.b2 = Block(1, 4), Block(4, 4)

    def forward(self, x):
        return self.b2(F.max_pool2d(self.b1(x), 2)) * 0.5


class BatchNormFused(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        return torch.relu(self.bn(self.conv(x)))


class Folded(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.act = nn.PReLU()
        self.gn = nn.GroupNorm(2, 4)

    def forward(self, x):
        return self.gn(self.act(self.conv(x)))


class OptimizeFalse(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.drop = nn.Dropout(0.25)
        self.head = nn.Conv2d(4, 1, 1)

    def forward(self, x):
        y = F.gelu(self.bn(self.conv(x)))
        y = F.interpolate(self.drop(y), scale_factor=2, mode="bilinear")
        return self.head(y) * 0.5


class Tokens(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Conv2d(1, 4, 2, stride=2)
        self.norm = nn.LayerNorm(4)
        self.fc1, self.fc2 = nn.Linear(4, 8), nn.Linear(8, 4)
        self.rows = nn.Linear(4, 4)
        nn.init.zeros_(self.rows.bias)

    def forward(self, x):
        t = self.embed(x).flatten(2).transpose(1, 2)
        t = t + self.fc2(F.gelu(self.fc1(self.norm(t))))
        rows = self.rows(t.reshape(-1, 4)).reshape(2, 16, 4)
        return rows.transpose(1, 2).reshape(2, 4, 4, 4)


class Table(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.table = nn.Parameter(torch.randn(7, 4))
        self.register_buffer("index", torch.tensor([0, 3, 6, 2] * 16))

    def forward(self, x):
        bias = self.table[self.index].reshape(8, 8, 4).permute(2, 0, 1)
        return self.conv(x) + bias


class Unused(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.spare = nn.Parameter(torch.ones(3))

    def forward(self, x):
        return self.conv(x) * 0.5


class BatchesTracked(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)

    def forward(self, x):
        y = torch.relu(self.bn(self.conv(x)))
        return y * y.select(1, 1).unsqueeze(1)


def counter_read_otherwise(source, path):
    """`source` with the FX node of the counter's Constant made a mul."""
    import onnx

    model = onnx.load(source)
    for node in model.graph.node:
        for entry in node.metadata_props:
            if (entry.key == "pkg.torch.onnx.fx_node"
                    and "num_batches_tracked" in entry.value):
                entry.value = entry.value.replace("aten.add.Tensor",
                                                  "aten.mul.Tensor")
    onnx.save(model, path)


def main(directory, names=()):
    os.makedirs(directory, exist_ok=True)
    warnings.simplefilter("ignore")
    x = torch.randn(2, 1, 8, 8)
    for name, module, kwargs in [
            ("merged", Merged(), {}),
            ("bn_fused", BatchNormFused(), {}),
            ("folded", Folded(), {}),
            ("stripped", Merged(), {"opset_version": 17}),
            ("optimize_false", OptimizeFalse(), {"optimize": False}),
            ("linear_folded", Tokens(), {}),
            ("table_folded", Table(), {}),
            ("unused_optimize_false", Unused(), {"optimize": False}),
            ("batches_tracked_optimize_false", BatchesTracked(),
             {"optimize": False})]:
        if names and name not in names:
            continue
        torch.manual_seed(0)
        path = os.path.join(directory, name + ".onnx")
        torch.onnx.export(module.train(), (x,), path, input_names=["x"],
                          output_names=["y"], verbose=False, **kwargs)
        # Small models keep their weights inside: drop the empty .data.
        data = path + ".data"
        if os.path.exists(data) and os.path.getsize(data) == 0:
            os.remove(data)
    if not names or "batches_tracked_read" in names:
        counter_read_otherwise(
            os.path.join(directory, "batches_tracked_optimize_false.onnx"),
            os.path.join(directory, "batches_tracked_read.onnx"))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
