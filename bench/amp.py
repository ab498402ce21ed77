#!/usr/bin/python3
"""Mixed precision: the planned memory of --amp=none|bf16|fp16 beside
PyTorch autocast's saved tensors.

For each `--batches` entry, exports the model (batch, 1 x size x size,
fp32), plans its training step (SGD, momentum 0.9, MSE) once per `--amp`
mode with `memopt-compile --plan-only --report` and prints the predicted
peak (what the trainer would allocate), the activation peak (the arena's
live temporaries, workspaces included) and its ratio to `--amp=none`'s.
Beside them, the bytes PyTorch saves for backward in one training forward +
MSE loss in fp32 and under `torch.autocast('cpu', dtype=torch.bfloat16)`,
counted with `torch.autograd.graph.saved_tensors_hooks`, each storage once,
parameters excluded (the fp32 weights are persistent in both; autocast's
bf16 weight copies are counted, as memopt's plan counts its casts). CPU
autocast in torch 1.13 has no fp16. Step time and loss after N steps need
the runtimes' bf16/fp16 kernels, which do not exist yet (docs/passes/amp.md).

    PYTHONPATH=python /usr/bin/python3 bench/amp.py \\
        [--bin build/bin] [--model resnet34-unet] [--size 512] \\
        [--batches 1,4] [--workdir DIR]
"""
import argparse
import json
import os
import subprocess
import tempfile

import torch
import torch.nn.functional as F

from memopt import models
from memopt.export import export_model

MODES = ("none", "bf16", "fp16")
MB = 1e6


def plan(compiler, onnx_path, work, mode):
    """The compile report of one --plan-only run."""
    report = os.path.join(work, "amp-%s.json" % mode)
    subprocess.run([compiler, onnx_path, "--plan-only", "--optimizer=sgd",
                    "--lr=0.01", "--momentum=0.9", "--amp=" + mode,
                    "--report=" + report], check=True,
                   stdout=subprocess.DEVNULL)
    with open(report) as f:
        return json.load(f)


def saved_bytes(name, batch, size, dtype):
    """Bytes saved for backward by one training forward + MSE loss, each
    storage once, parameters excluded; under autocast to `dtype` if given."""
    torch.manual_seed(0)
    model = models.build(name, in_channels=1)
    model.train()
    x = torch.randn(batch, 1, size, size)
    target = torch.rand(batch, 1, size, size)
    params = {p.data_ptr() for p in model.parameters()}
    storages = {}

    def pack(tensor):
        ptr = tensor.storage().data_ptr()
        if ptr not in params:
            storages[ptr] = tensor.storage().nbytes()
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        if dtype is None:
            F.mse_loss(model(x), target)
        else:
            with torch.autocast("cpu", dtype=dtype):
                F.mse_loss(model(x), target)
    return sum(storages.values())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/bin", help="memopt tools")
    parser.add_argument("--model", default="resnet34-unet",
                        choices=sorted(models.MODELS))
    parser.add_argument("--size", type=int, default=512, help="H = W")
    parser.add_argument("--batches", default="1,4",
                        help="comma-separated batch sizes")
    parser.add_argument("--workdir", help="keep the files here")
    args = parser.parse_args(argv)
    work = args.workdir or tempfile.mkdtemp(prefix="amp-")
    os.makedirs(work, exist_ok=True)
    compiler = os.path.join(args.bin, "memopt-compile")
    torch.set_num_threads(os.cpu_count() or 1)

    print("%s, Bx1x%dx%d, SGD momentum, MSE, --target=cpu; PyTorch %s"
          % (args.model, args.size, args.size, torch.__version__))
    print("| batch | --amp | predicted peak | activation peak | vs none "
          "| PyTorch saved (fp32 / autocast bf16) | vs fp32 |")
    print("|---|---|---|---|---|---|---|")
    for batch in (int(b) for b in args.batches.split(",")):
        onnx_path = os.path.join(work, "model-b%d.onnx" % batch)
        export_model(args.model, onnx_path, batch, (1, args.size, args.size),
                     in_channels=1)
        reports = {mode: plan(compiler, onnx_path, work, mode)
                   for mode in MODES}
        torch_saved = {"none": saved_bytes(args.model, batch, args.size, None),
                       "bf16": saved_bytes(args.model, batch, args.size,
                                           torch.bfloat16)}
        baseline = reports["none"]["activation_peak_bytes"]
        for mode in MODES:
            report = reports[mode]
            activation = report["activation_peak_bytes"]
            saved = torch_saved.get(mode)
            print("| %d | %s | %.1f MB | %.1f MB | %.3f | %s | %s |"
                  % (batch, mode, report["predicted_peak_bytes"] / MB,
                     activation / MB, activation / baseline,
                     "-" if saved is None else "%.1f MB" % (saved / MB),
                     "-" if saved is None
                     else "%.3f" % (saved / torch_saved["none"])))


if __name__ == "__main__":
    main()
