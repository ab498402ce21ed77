#!/usr/bin/python3
"""GPU training step: memopt's CUDA binary against PyTorch eager on CUDA.

Compiles the model with memopt-compile --target=cuda (SGD with momentum,
MSE), runs the binary for warmup + steps steps on one random .npy batch and
takes the median of the run report's step_seconds after the warm-up (the
step function, synchronized at its end: forward, loss, backward, BatchNorm
statistics, update; not data loading) and its measured_peak_bytes (every
byte the runtime cudaMalloc'd: arena, weights, optimizer state, batch).
Then trains the same model, size, batch, loss and optimizer in PyTorch
eager on the GPU (torch.backends.cudnn.benchmark = True, TF32 as memopt:
off unless --tf32), timing zero_grad + forward + loss + backward +
optimizer.step with torch.cuda.synchronize(), and takes
torch.cuda.max_memory_allocated() over the steps (the caching allocator's
tensors, excluding its cached free blocks, the CUDA context and cuDNN's
own workspace allocations). Prints a table: step-time ratio and
peak-memory ratio, memopt / PyTorch (below 1: memopt is better).

    PYTHONPATH=python python3 bench/gpu_step.py \\
        --memopt-compile build/bin/memopt-compile \\
        [--model resnet34-unet] [--size 512] [--batch 4] [--steps 20]
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

import torch
import torch.nn.functional as F

from memopt import models
from memopt.export import export_model

sys.path.insert(0, os.path.dirname(__file__))
from cpu_step import model_kwargs, write_data  # noqa: E402


def memopt_run(args, binary, data, work):
    """(median step seconds, measured peak bytes, driver peak bytes)."""
    env = dict(os.environ, MEMOPT_ALLOW_TF32="1" if args.tf32 else "0")
    report = os.path.join(work, "run.json")
    subprocess.run([binary, "--data", data, "--steps",
                    str(args.warmup + args.steps), "--no-shuffle",
                    "--log-every", "0", "--out",
                    os.path.join(work, "trained.onnx"), "--report", report],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    run = json.load(open(report))
    return (statistics.median(run["step_seconds"][args.warmup:]),
            run["measured_peak_bytes"], run.get("driver_peak_bytes", 0))


def pytorch_run(args):
    """(median step seconds, max_memory_allocated bytes)."""
    torch.backends.cudnn.benchmark = True
    torch.backends.cuda.matmul.allow_tf32 = args.tf32
    torch.backends.cudnn.allow_tf32 = args.tf32
    device = torch.device("cuda")
    torch.manual_seed(0)
    model = models.build(args.model, **model_kwargs(args)).to(device).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr,
                                momentum=args.momentum)
    x = torch.rand(args.batch, 1, args.size, args.size, device=device)
    t = torch.rand(args.batch, 1, args.size, args.size, device=device)
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    seconds = []
    for _ in range(args.warmup + args.steps):
        start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        loss = F.mse_loss(model(x), t)
        loss.backward()
        optimizer.step()
        torch.cuda.synchronize()
        seconds.append(time.perf_counter() - start)
    return (statistics.median(seconds[args.warmup:]),
            torch.cuda.max_memory_allocated())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memopt-compile", default=os.path.join(
        os.path.dirname(__file__), "..", "build", "bin", "memopt-compile"))
    parser.add_argument("--model", default="resnet34-unet",
                        help=", ".join(models.MODELS))
    parser.add_argument("--base", type=int, help="classic U-Net base width")
    parser.add_argument("--size", type=int, default=512, help="H = W")
    parser.add_argument("--batch", type=int, default=4)
    parser.add_argument("--steps", type=int, default=20,
                        help="timed steps (median), default 20")
    parser.add_argument("--warmup", type=int, default=3,
                        help="untimed first steps, default 3")
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--momentum", type=float, default=0.9)
    parser.add_argument("--tf32", action="store_true",
                        help="allow TF32 in both (default: off in both)")
    parser.add_argument("--workdir", help="keep the files here")
    args = parser.parse_args(argv)
    if not torch.cuda.is_available():
        print("gpu_step: PyTorch sees no CUDA device; run on a GPU machine "
              "with a CUDA build of PyTorch", file=sys.stderr)
        return 2

    work = args.workdir or tempfile.mkdtemp(prefix="memopt-gpu-bench-")
    os.makedirs(work, exist_ok=True)
    try:
        onnx_path = os.path.join(work, "model.onnx")
        export_model(args.model, onnx_path, args.batch,
                     (1, args.size, args.size), **model_kwargs(args))
        binary = os.path.join(work, "train")
        report = os.path.join(work, "compile.json")
        start = time.perf_counter()
        subprocess.run([args.memopt_compile, onnx_path, "-o", binary,
                        "--target=cuda", "--batch=%d" % args.batch,
                        "--optimizer=sgd", "--lr=%r" % args.lr,
                        "--momentum=%r" % args.momentum,
                        "--report=" + report], check=True)
        compile_seconds = time.perf_counter() - start
        predicted = json.load(open(report))["predicted_peak_bytes"]
        data = os.path.join(work, "data")
        write_data(data, args.batch, args.size)

        ours, measured, driver = memopt_run(args, binary, data, work)
        theirs, torch_peak = pytorch_run(args)
        mib = 1 << 20
        print("%s; memopt-compile %.1f s; torch %s, cuDNN %s; median of %d "
              "steps after %d warm-up; SGD momentum, MSE; TF32 %s"
              % (torch.cuda.get_device_name(), compile_seconds,
                 torch.__version__, torch.backends.cudnn.version(),
                 args.steps, args.warmup, "on" if args.tf32 else "off"))
        header = ("model", "size", "batch", "memopt s/step",
                  "pytorch s/step", "time ratio", "memopt peak MiB",
                  "pytorch peak MiB", "peak ratio")
        print("| " + " | ".join(header) + " |")
        print("|" + "|".join("---" for _ in header) + "|")
        name = args.model + ("" if args.base is None else
                             " (base %d)" % args.base)
        print("| %s | %dx%d | %d | %.4f | %.4f | %.2f | %.1f | %.1f | %.2f |"
              % (name, args.size, args.size, args.batch, ours, theirs,
                 ours / theirs, measured / mib, torch_peak / mib,
                 measured / torch_peak))
        print("memopt peak: predicted %d, measured %d bytes (%s); driver "
              "(cudaMemGetInfo, context and handles included) %.1f MiB"
              % (predicted, measured,
                 "equal" if predicted == measured else "DIFFERENT",
                 driver / mib))
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
