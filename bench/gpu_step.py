#!/usr/bin/python3
"""GPU training step: memopt's CUDA binary against PyTorch eager on CUDA.

Compiles the model with memopt-compile --target=cuda (SGD with momentum,
MSE), runs the binary for warmup + steps steps on one random .npy batch and
takes the median of the run report's step_seconds after the warm-up (the
step function, synchronized at its end: forward, loss, backward, BatchNorm
statistics, update; not data loading). Then trains the same model, size,
batch, loss and optimizer in PyTorch eager on the GPU
(torch.backends.cudnn.benchmark = True, TF32 as memopt: off unless --tf32),
timing zero_grad + forward + loss + backward + optimizer.step with
torch.cuda.synchronize(). The binary runs first, in its own process, before
this process touches the GPU, so each driver-level figure holds one
process's memory.

Memory, like for like (MiB):
- tensors: memopt's measured_peak_bytes (every byte its runtime
  cudaMalloc'd: arena with the convolution workspaces, weights, optimizer
  state, batch) against torch.cuda.max_memory_allocated() over the timed
  steps (PyTorch's tensors, cuDNN's workspaces included: they come from
  the caching allocator);
- total: the driver-level peak of each process, cudaMemGetInfo's
  total - free after every step (memopt's driver_peak_bytes;
  torch.cuda.mem_get_info() here): the CUDA context, the cuDNN and cuBLAS
  handles and, for PyTorch, the caching allocator's reserved but free
  blocks included. torch.cuda.max_memory_reserved() is printed beside it.
PyTorch's figures are taken after the warm-up steps and an empty_cache()
(cudnn.benchmark's trial workspaces of the first steps left out). Ratios
are memopt / PyTorch: below 1, memopt is better.

    PYTHONPATH=python python3 bench/gpu_step.py \\
        --memopt-compile build/bin/memopt-compile \\
        [--model resnet34-unet] [--size 512] [--batch 4] [--steps 20]

--phase prepare (with --workdir) exports, compiles and writes the data
only; --phase run, on the GPU machine with that workdir and no
memopt-compile, measures (memopt.testing.phases).
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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from memopt import models  # noqa: E402
from memopt.export import export_model  # noqa: E402
from memopt.testing import phases  # noqa: E402
from cpu_step import model_kwargs, write_data  # noqa: E402

MIB = 1 << 20
# Options that only the run phase reads (phases.verify ignores them).
RUN_ONLY = ("steps", "warmup", "tf32")


def prepare(args, work):
    """Exports and compiles the model and writes one batch of data;
    returns memopt-compile's seconds."""
    onnx_path = os.path.join(work, "model.onnx")
    export_model(args.model, onnx_path, args.batch,
                 (1, args.size, args.size), **model_kwargs(args))
    start = time.perf_counter()
    subprocess.run([args.memopt_compile, onnx_path, "-o",
                    os.path.join(work, "train"), "--target=cuda",
                    "--batch=%d" % args.batch, "--optimizer=sgd",
                    "--lr=%r" % args.lr, "--momentum=%r" % args.momentum,
                    "--report=" + os.path.join(work, "compile.json")]
                   + args.compile_flag,
                   check=True)
    seconds = time.perf_counter() - start
    write_data(os.path.join(work, "data"), args.batch, args.size)
    phases.save(work, args, RUN_ONLY)
    return seconds


def memopt_run(args, work):
    """(median step seconds, measured peak bytes, driver peak bytes)."""
    env = dict(os.environ, MEMOPT_ALLOW_TF32="1" if args.tf32 else "0")
    report = os.path.join(work, "run.json")
    subprocess.run([os.path.join(work, "train"), "--data",
                    os.path.join(work, "data"), "--steps",
                    str(args.warmup + args.steps), "--no-shuffle",
                    "--log-every", "0", "--out",
                    os.path.join(work, "trained.onnx"), "--report", report],
                   env=env, check=True, stdout=subprocess.DEVNULL)
    run = json.load(open(report))
    return (statistics.median(run["step_seconds"][args.warmup:]),
            run["measured_peak_bytes"], run.get("driver_peak_bytes", 0))


def driver_used():
    free, total = torch.cuda.mem_get_info()
    return total - free


def pytorch_run(args):
    """(median step seconds, max_memory_allocated, max_memory_reserved,
    driver-level peak), the memory over the timed steps."""
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

    def step():
        optimizer.zero_grad(set_to_none=True)
        loss = F.mse_loss(model(x), t)
        loss.backward()
        optimizer.step()
        torch.cuda.synchronize()

    for _ in range(args.warmup):
        step()
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats()
    seconds = []
    driver = driver_used()
    for _ in range(args.steps):
        start = time.perf_counter()
        step()
        seconds.append(time.perf_counter() - start)
        driver = max(driver, driver_used())
    return (statistics.median(seconds), torch.cuda.max_memory_allocated(),
            torch.cuda.max_memory_reserved(), driver)


def no_gpu():
    """True, with the error printed, when PyTorch sees no GPU."""
    if torch.cuda.is_available():
        return False
    print("gpu_step: PyTorch sees no CUDA device; run on a GPU machine "
          "with a CUDA build of PyTorch", file=sys.stderr)
    return True


def measure(args, work, compile_seconds):
    phases.verify(work, args, RUN_ONLY)
    if no_gpu():
        return 2
    predicted = json.load(open(os.path.join(work, "compile.json")))[
        "predicted_peak_bytes"]
    # memopt first: this process has no CUDA context yet, so the binary's
    # driver-level peak is its own.
    ours, measured, driver = memopt_run(args, work)
    theirs, allocated, reserved, torch_driver = pytorch_run(args)
    print("%s; %storch %s, cuDNN %s; median of %d steps after %d warm-up; "
          "SGD momentum, MSE; TF32 %s"
          % (torch.cuda.get_device_name(),
             "" if compile_seconds is None else
             "memopt-compile %.1f s; " % compile_seconds,
             torch.__version__, torch.backends.cudnn.version(), args.steps,
             args.warmup, "on" if args.tf32 else "off"))
    header = ("model", "size", "batch", "memopt s/step", "pytorch s/step",
              "time ratio", "memopt tensors MiB", "pytorch tensors MiB",
              "tensor ratio", "memopt total MiB", "pytorch total MiB",
              "total ratio")
    print("| " + " | ".join(header) + " |")
    print("|" + "|".join("---" for _ in header) + "|")
    name = args.model + ("" if args.base is None else
                         " (base %d)" % args.base)
    if args.compile_flag:
        name += " " + " ".join(args.compile_flag)
    print("| %s | %dx%d | %d | %.4f | %.4f | %.2f | %.1f | %.1f | %.2f | "
          "%.1f | %.1f | %.2f |"
          % (name, args.size, args.size, args.batch, ours, theirs,
             ours / theirs, measured / MIB, allocated / MIB,
             measured / allocated, driver / MIB, torch_driver / MIB,
             driver / torch_driver))
    print("memopt peak: predicted %d, measured %d bytes (%s); pytorch "
          "max_memory_reserved %.1f MiB"
          % (predicted, measured,
             "equal" if predicted == measured else "DIFFERENT",
             reserved / MIB))
    return 0 if predicted == measured else 1


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    phases.add_arguments(parser)
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
    parser.add_argument("--compile-flag", action="append", default=[],
                        metavar="FLAG",
                        help="one more memopt-compile flag, repeatable (e.g. "
                             "--compile-flag=--remat=auto "
                             "--compile-flag=--budget=2GiB): the same model, "
                             "data and PyTorch run, so the table compares "
                             "that plan with PyTorch eager")
    parser.add_argument("--workdir", help="keep the files here (required "
                        "with --phase prepare and run)")
    args = parser.parse_args(argv)
    phases.check_arguments(parser, args)
    if args.phase != "all" and not args.workdir:
        parser.error("--phase %s needs --workdir" % args.phase)
    if min(args.size, args.batch, args.steps) < 1 or args.warmup < 0:
        parser.error("--size, --batch and --steps must be >= 1, --warmup "
                     ">= 0")
    if args.phase == "all" and no_gpu():
        return 2  # before compiling for nothing
    work = os.path.abspath(args.workdir or
                           tempfile.mkdtemp(prefix="memopt-gpu-bench-"))
    try:
        compile_seconds = None
        if phases.compiles(args):
            os.makedirs(work, exist_ok=True)
            compile_seconds = prepare(args, work)
        if not phases.runs(args):
            print("gpu_step: prepared %s (memopt-compile %.1f s); run it with "
                  "--phase run" % (work, compile_seconds))
            return 0
        return measure(args, work, compile_seconds)
    except (subprocess.CalledProcessError, ValueError, OSError) as e:
        print("gpu_step: error: %s" % e, file=sys.stderr)
        return 1
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
