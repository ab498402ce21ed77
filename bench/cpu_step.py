#!/usr/bin/python3
"""CPU training-step time: a memopt training binary against PyTorch eager.

For each thread count: compiles the model with memopt-compile at that
thread count (the binary runs its kernels on the compiler's), runs
the binary for warmup + steps steps (OMP_NUM_THREADS=threads: oneDNN and
the runtime use OpenMP) and takes the median of the run report's
step_seconds after the warm-up; then times the same model, size, batch,
loss and optimizer in PyTorch eager (torch.set_num_threads(threads), BN in
training mode, zero_grad + forward + loss + backward + optimizer.step per
step) and takes the median the same way. Both time the step only, not data
loading. Prints a table; ratio = memopt / PyTorch (below 1: memopt is
faster).

    PYTHONPATH=python /usr/bin/python3 bench/cpu_step.py \\
        --memopt-compile build/bin/memopt-compile [--model resnet34-unet] \\
        [--size 256] [--batch 1] [--threads 1,2] [--steps 10]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
import torch.nn.functional as F

from memopt import models
from memopt.export import export_model


def model_kwargs(args):
    kw = {"in_channels": 1}
    if args.base is not None:
        kw["base"] = args.base
    return kw


def export(args, work):
    """Exports the model at the benchmark's size and batch into `work`;
    returns the ONNX file's path."""
    onnx_path = os.path.join(work, "model.onnx")
    export_model(args.model, onnx_path, args.batch,
                 (1, args.size, args.size), **model_kwargs(args))
    return onnx_path


def write_data(directory, batch, size):
    rng = np.random.default_rng(0)
    for sub in ("inputs", "targets"):
        os.makedirs(os.path.join(directory, sub), exist_ok=True)
        for i in range(batch):
            np.save(os.path.join(directory, sub, "s%04d.npy" % i),
                    rng.random((1, size, size), dtype=np.float32))


def memopt_step_seconds(args, binary, data, threads, work):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads))
    report = os.path.join(work, "run-%d.json" % threads)
    subprocess.run([binary, "--data", data, "--steps",
                    str(args.warmup + args.steps), "--no-shuffle",
                    "--log-every", "0", "--out",
                    os.path.join(work, "trained.onnx"), "--report", report],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    run = json.load(open(report))
    # Compiled for `threads` (main): the binary ran its kernels on them.
    if run["threads"] != threads:
        sys.exit("cpu_step: the binary ran on %d threads, not %d"
                 % (run["threads"], threads))
    seconds = run["step_seconds"]
    return statistics.median(seconds[args.warmup:])


def pytorch_step_seconds(args, threads):
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    model = models.build(args.model, **model_kwargs(args)).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr,
                                momentum=args.momentum)
    x = torch.rand(args.batch, 1, args.size, args.size)
    t = torch.rand(args.batch, 1, args.size, args.size)
    seconds = []
    for _ in range(args.warmup + args.steps):
        start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        loss = F.mse_loss(model(x), t)
        loss.backward()
        optimizer.step()
        seconds.append(time.perf_counter() - start)
    return statistics.median(seconds[args.warmup:])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memopt-compile", default=os.path.join(
        os.path.dirname(__file__), "..", "build", "bin", "memopt-compile"))
    parser.add_argument("--model", default="resnet34-unet",
                        help=", ".join(models.MODELS))
    parser.add_argument("--base", type=int, help="classic U-Net base width")
    parser.add_argument("--size", type=int, default=256, help="H = W")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", default=str(os.cpu_count()),
                        help="comma-separated thread counts (default: "
                             "all cores)")
    parser.add_argument("--steps", type=int, default=10,
                        help="timed steps (median), default 10")
    parser.add_argument("--warmup", type=int, default=2,
                        help="untimed first steps, default 2")
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--workdir", help="keep the files here")
    args = parser.parse_args(argv)
    threads = [int(t) for t in args.threads.split(",")]

    work = args.workdir or tempfile.mkdtemp(prefix="memopt-bench-")
    os.makedirs(work, exist_ok=True)
    try:
        onnx_path = export(args, work)
        binaries = {}
        start = time.perf_counter()
        for n in threads:
            binaries[n] = os.path.join(work, "train-%d" % n)
            subprocess.run([args.memopt_compile, onnx_path, "-o", binaries[n],
                            "--batch=%d" % args.batch, "--optimizer=sgd",
                            "--lr=%r" % args.lr,
                            "--momentum=%r" % args.momentum], check=True,
                           env=dict(os.environ, OMP_NUM_THREADS=str(n)))
        compile_seconds = (time.perf_counter() - start) / len(threads)
        data = os.path.join(work, "data")
        write_data(data, args.batch, args.size)

        print("memopt-compile %.1f s; torch %s (oneDNN convolutions: %s); "
              "median of %d steps after %d warm-up steps; SGD momentum, MSE"
              % (compile_seconds, torch.__version__,
                 torch.backends.mkldnn.is_available(), args.steps,
                 args.warmup))
        header = ("model", "size", "batch", "threads", "memopt s/step",
                  "pytorch s/step", "memopt/pytorch")
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" for _ in header) + "|")
        name = args.model + ("" if args.base is None else
                             " (base %d)" % args.base)
        for n in threads:
            ours = memopt_step_seconds(args, binaries[n], data, n, work)
            theirs = pytorch_step_seconds(args, n)
            print("| %s | %dx%d | %d | %d | %.3f | %.3f | %.2f |"
                  % (name, args.size, args.size, args.batch, n, ours, theirs,
                     ours / theirs), flush=True)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
