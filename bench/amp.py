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
autocast in torch 1.13 has no fp16.

With --steps N it also trains: the model at --train-size (batch
--train-batch) for N Adam steps (lr 1e-4) on the same synthetic batches
(memopt.testing.check_training's data, no shuffling), once per --amp mode
with memopt's CPU binaries, and with PyTorch in fp32 and under
torch.autocast('cpu', dtype=torch.bfloat16) from the same initial
weights; it prints the median step time (the first step, which creates
the oneDNN primitives, left out), the loss after N steps and the mean of
the last min(10, N) losses, and each binary's measured peak.

    PYTHONPATH=python /usr/bin/python3 bench/amp.py \\
        [--bin build/bin] [--model resnet34-unet] [--size 512] \\
        [--batches 1,4] [--workdir DIR] \\
        [--steps 30 --train-size 64 --train-batch 2 --threads 2]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import time

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import numpy_helper

from memopt import models
from memopt.export import export_model
from memopt.testing.check_training import write_dataset

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


def train_memopt(compiler, onnx_path, data, work, mode, steps, threads):
    """Step times, losses and measured peak of a memopt binary."""
    binary = os.path.join(work, "train-" + mode)
    # The binary runs its kernels on the compiler's OpenMP thread count.
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    subprocess.run([compiler, onnx_path, "-o", binary, "--optimizer=adam",
                    "--lr=1e-4", "--amp=" + mode], check=True,
                   stdout=subprocess.DEVNULL, env=env)
    report = os.path.join(work, "run-%s.json" % mode)
    subprocess.run([binary, "--data", data, "--steps", str(steps),
                    "--no-shuffle", "--out", os.path.join(work, mode + ".onnx"),
                    "--report", report, "--log-every", "0"], check=True,
                   stdout=subprocess.DEVNULL, env=env)
    with open(report) as f:
        run = json.load(f)
    if run["threads"] != threads:
        sys.exit("amp: the %s binary ran on %d threads, not %d"
                 % (mode, run["threads"], threads))
    return run["step_seconds"], run["loss"], run["measured_peak_bytes"]


def train_torch(name, onnx_path, data, batch, steps, dtype):
    """Step times and losses of the same training in PyTorch (fp32, or
    under CPU autocast to `dtype`), from the exported initial weights."""
    torch.manual_seed(0)
    model = models.build(name, in_channels=1)
    state = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy())
             for i in onnx.load(onnx_path).graph.initializer}
    missing, unexpected = model.load_state_dict(state, strict=False)
    # The ONNX model has every parameter and running statistic; PyTorch's
    # num_batches_tracked counters are not exported.
    assert not unexpected and all(k.endswith("num_batches_tracked")
                                  for k in missing), (missing, unexpected)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)
    names = sorted(os.listdir(os.path.join(data, "inputs")))
    inputs = np.stack([np.load(os.path.join(data, "inputs", n))
                       for n in names])
    targets = np.stack([np.load(os.path.join(data, "targets", n))
                        for n in names])
    per_epoch = len(names) // batch
    seconds, losses = [], []
    for step in range(steps):
        first = (step % per_epoch) * batch
        x = torch.from_numpy(inputs[first:first + batch])
        y = torch.from_numpy(targets[first:first + batch])
        start = time.perf_counter()
        optimizer.zero_grad()
        if dtype is None:
            loss = F.mse_loss(model(x), y)
        else:
            with torch.autocast("cpu", dtype=dtype):
                loss = F.mse_loss(model(x).float(), y)
        loss.backward()
        optimizer.step()
        seconds.append(time.perf_counter() - start)
        losses.append(loss.item())
    return seconds, losses


def print_training(args, work, compiler):
    """The --steps table: memopt's three modes beside PyTorch's two."""
    shape = (1, args.train_size, args.train_size)
    onnx_path = os.path.join(work, "train-model.onnx")
    export_model(args.model, onnx_path, args.train_batch, shape,
                 in_channels=1)
    data = os.path.join(work, "train-data")
    write_dataset(data, 8 * args.train_batch, shape, 0)
    torch.set_num_threads(args.threads)
    window = min(10, args.steps)
    print()
    print("%s, %dx1x%dx%d, %d Adam steps (lr 1e-4), %d threads"
          % (args.model, args.train_batch, args.train_size, args.train_size,
             args.steps, args.threads))
    print("| run | step time (median) | loss after %d steps | mean of the "
          "last %d | measured peak |" % (args.steps, window))
    print("|---|---|---|---|---|")
    rows = []
    for mode in MODES:
        seconds, losses, peak = train_memopt(compiler, onnx_path, data, work,
                                             mode, args.steps, args.threads)
        rows.append(("memopt --amp=" + mode, seconds, losses,
                     "%.1f MB" % (peak / MB)))
    for label, dtype in (("PyTorch fp32", None),
                         ("PyTorch autocast bf16", torch.bfloat16)):
        seconds, losses = train_torch(args.model, onnx_path, data,
                                      args.train_batch, args.steps, dtype)
        rows.append((label, seconds, losses, "-"))
    for label, seconds, losses, peak in rows:
        timed = seconds[1:] or seconds
        print("| %s | %.3f s | %.5f | %.5f | %s |"
              % (label, float(np.median(timed)), losses[-1],
                 float(np.mean(losses[-window:])), peak))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/bin", help="memopt tools")
    parser.add_argument("--model", default="resnet34-unet",
                        choices=sorted(models.MODELS))
    parser.add_argument("--size", type=int, default=512, help="H = W")
    parser.add_argument("--batches", default="1,4",
                        help="comma-separated batch sizes")
    parser.add_argument("--workdir", help="keep the files here")
    parser.add_argument("--steps", type=int, default=0,
                        help="also train this many steps (0: plan only)")
    parser.add_argument("--train-size", type=int, default=64)
    parser.add_argument("--train-batch", type=int, default=2)
    parser.add_argument("--threads", type=int, default=2)
    args = parser.parse_args(argv)
    if args.steps < 0 or min(args.train_size, args.train_batch,
                             args.threads) < 1:
        parser.error("--steps must be >= 0, --train-size, --train-batch "
                     "and --threads >= 1")
    work = args.workdir or tempfile.mkdtemp(prefix="amp-")
    os.makedirs(work, exist_ok=True)
    compiler = os.path.join(args.bin, "memopt-compile")
    torch.set_num_threads(os.cpu_count() or 1)

    print("%s, Bx1x%dx%d, SGD momentum, MSE, --target=cpu; PyTorch %s"
          % (args.model, args.size, args.size, torch.__version__))
    print("| batch | --amp | predicted peak | activation peak | vs none "
          "| PyTorch saved (fp32 / autocast bf16) | vs fp32 |")
    print("|---|---|---|---|---|---|---|")
    for batch in (int(b) for b in args.batches.split(",") if b):
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
    if args.steps:
        print_training(args, work, compiler)


if __name__ == "__main__":
    main()
