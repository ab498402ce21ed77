"""memopt's Python API on today's PyTorch: export_module and compile(module)
with the default exporter (torch.export), and with the TorchScript exporter
removed (simulated: torch.onnx.export refuses dynamo=False), train the
same steps as PyTorch's module.train() does, to float32 rounding. With
--default-export the file is torch.onnx.export(net.train(), (x,), path) as
the tutorials write it, its ONNX optimizer on, of a network without
BatchNorm (whose fusion into the convolution memopt refuses): memopt unties
the merged InstanceNorm parameters and unfolds PReLU's and GroupNorm's.

    PYTHON export_module_today.py WORKDIR [--no-torchscript | --default-export]
"""
import copy
import functools
import os
import sys

import numpy as np
import onnx
import torch
import torch.nn as nn

import memopt


class Net(nn.Module):
    """Conv, BatchNorm (which torch.export writes in its inference form),
    InstanceNorm, PReLU, GELU and a bilinear upsampling."""

    def __init__(self, batch_norm=True):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4) if batch_norm else nn.GroupNorm(2, 4)
        self.norm = nn.InstanceNorm2d(4, affine=True)
        self.norm2 = nn.InstanceNorm2d(4, affine=True)
        self.act = nn.PReLU()
        self.down = nn.Conv2d(4, 4, 3, stride=2, padding=1)
        self.head = nn.Conv2d(4, 1, 1)

    def forward(self, x):
        y = self.act(self.norm(nn.functional.gelu(self.bn(self.conv(x)))))
        y = self.norm2(y)
        y = nn.functional.interpolate(self.down(y), scale_factor=2,
                                      mode="bilinear")
        return torch.sigmoid(self.head(y))


def remove_torchscript_exporter():
    export = torch.onnx.export

    @functools.wraps(export)
    def only_torch_export(*args, **kwargs):
        if kwargs.get("dynamo") is False:
            raise RuntimeError("the TorchScript exporter was removed")
        return export(*args, **kwargs)
    torch.onnx.export = only_torch_export


def main(work, no_torchscript, default_export):
    if no_torchscript:
        remove_torchscript_exporter()
    torch.manual_seed(0)
    net = Net(batch_norm=not default_export)
    reference = copy.deepcopy(net)
    rng = np.random.default_rng(0)
    os.makedirs(os.path.join(work, "data", "inputs"), exist_ok=True)
    os.makedirs(os.path.join(work, "data", "targets"), exist_ok=True)
    inputs = rng.random((4, 1, 16, 16), dtype=np.float32)
    targets = rng.random((4, 1, 16, 16), dtype=np.float32)
    for i in range(4):
        np.save(os.path.join(work, "data", "inputs", "%d.npy" % i), inputs[i])
        np.save(os.path.join(work, "data", "targets", "%d.npy" % i),
                targets[i])

    path = os.path.join(work, "net.onnx")
    if default_export:
        torch.onnx.export(net.train(), (torch.randn(2, 1, 16, 16),), path)
        build = memopt.compile(path, os.path.join(work, "net-train"),
                               loss="mse", optimizer="sgd", lr=0.1)
        for shared in build.report["import"]["shared_initializers"]:
            print(shared["treatment"], shared["initializer"], "as",
                  shared["trained_as"])
    else:
        memopt.export_module(net, path, (1, 16, 16), batch=2)
        print("export_module: IR version", onnx.load(path).ir_version)
        build = memopt.compile(net, os.path.join(work, "net-train"),
                               input_shape=(1, 16, 16), batch=2, loss="mse",
                               optimizer="sgd", lr=0.1)
        print("compile(module):", build.report["import"]["exporter"],
              "batch norms", {b["trained_as"]
                              for b in build.report["import"]["batch_norms"]})
    trained = os.path.join(work, "trained.onnx")
    memopt.train(build.binary, os.path.join(work, "data"), steps=2,
                 out=trained, progress=False, no_shuffle=True)
    memopt.load_weights(net, trained)

    reference.train()
    optimizer = torch.optim.SGD(reference.parameters(), lr=0.1)
    for step in range(2):
        x = torch.from_numpy(inputs[2 * step:2 * step + 2])
        t = torch.from_numpy(targets[2 * step:2 * step + 2])
        optimizer.zero_grad()
        nn.functional.mse_loss(reference(x), t).backward()
        optimizer.step()
    worst = max(
        (float((a - b).norm() / b.norm().clamp_min(1e-30)), name)
        for (name, a), b in zip(net.state_dict().items(),
                                reference.state_dict().values())
        if a.is_floating_point())
    print("worst relative difference from PyTorch: %s %s"
          % ("below 1e-4" if worst[0] < 1e-4 else "%.3g" % worst[0],
             worst[1] if worst[0] >= 1e-4 else ""))


if __name__ == "__main__":
    main(sys.argv[1], "--no-torchscript" in sys.argv,
         "--default-export" in sys.argv)
