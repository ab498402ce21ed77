#!/usr/bin/python3
"""Offload, remat and both against a device budget: resolution x technique.

Exports the model once (fp32, training mode, batch 1) and plans its
training step (Adam, MSE) with `memopt-compile --plan-only --report` at
each `--resolutions` size (`--input-shape` at compile time) and for each
technique under `--budget` on `--device`:

    none         the plain plan (fits or not)
    remat        --remat=auto
    offload      --offload=auto (copies to pinned host memory, tg-offload)
    both         --remat=auto --offload=auto (one planner: keep, recompute
                 or offload per value)
    both+fp16    the same with --amp=fp16 (tg-amp: plan only)

One row per resolution and technique: the predicted peak (or the smallest
the technique reaches when it does not fit), the host memory, the bytes
copied each way, the predicted overhead over the plain step's predicted
time (recompute and transfer stalls; `baseline_predicted_seconds`, the
step with unlimited memory) and the plan's wall seconds. Then, per
technique, the largest resolution (a multiple of 32) that fits, found by
bisection between the sizes tried.

Beside them, PyTorch eager (bench/remat_torch.py, Adam, one process per
size) with `--pytorch cpu` (default): its peak resident set on this
machine's CPU, which fits when it is at most --budget; with `--pytorch
cuda` (a GPU present): the caching allocator's high-water mark with the
allocator capped at --budget, which fits when the step does not run out of
memory. Sizes above the first that does not fit are not run; on the CPU a
size whose peak, extrapolated from the last by area, would not fit this
machine's free memory is not run either. The interpreter is the benchmark
venv's (the newest torch from PyPI, bench/vs_pytorch.py installs it) when
it exists, else Debian's torch 1.13 (`--torch-python` picks one).

    PYTHONPATH=python /usr/bin/python3 bench/offload.py \\
        [--bin build/bin] [--model resnet34-unet] \\
        [--resolutions 1024,1440,2048,3072,4192] [--target cuda] \\
        [--device rtx2060] [--budget 8GiB] [--no-largest] \\
        [--pytorch cpu|cuda|none] [--torch-python PYTHON]
"""
import argparse
import json
import os
import re
import subprocess
import tempfile
import sys
import time

from vs_pytorch import DEBIAN_PYTHON, venv_torch

TECHNIQUES = {
    "none": [],
    "remat": ["--remat=auto"],
    "offload": ["--offload=auto"],
    "both": ["--remat=auto", "--offload=auto"],
    "both+fp16": ["--remat=auto", "--offload=auto", "--amp=fp16"],
}
GB = 2 ** 30


def plan(args, onnx_path, work, technique, size):
    """(report, seconds, fits): the compile report under the budget, or,
    when the technique cannot fit it, the report at the smallest budget it
    names (fits False)."""
    report = os.path.join(work, "%s-%d.json" % (technique, size))
    command = [os.path.join(args.bin, "memopt-compile"), onnx_path,
               "--plan-only", "--optimizer=adam",
               "--input-shape=1,%d,%d" % (size, size),
               "--target=" + args.target, "--device=" + args.device,
               "--report=" + report] + TECHNIQUES[technique]
    start = time.perf_counter()
    done = subprocess.run(command + ["--budget=" + args.budget],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    seconds = time.perf_counter() - start
    fits = done.returncode == 0
    if not fits:
        smallest = re.search(r"--budget=(\d+)[);]", done.stderr)
        if not smallest:
            raise SystemExit(done.stderr)
        # The smallest peak may exceed the device's memory: the device's
        # rates with that much memory (the report is all that is read).
        device = ",".join(part for part in args.device.split(",")
                          if not part.startswith("memory="))
        larger = [part if not part.startswith("--device=") else
                  "--device=%s,memory=%s" % (device, smallest.group(1))
                  for part in command]
        again = subprocess.run(larger + ["--budget=" + smallest.group(1)],
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        if again.returncode:
            raise SystemExit(again.stderr)
    with open(report) as f:
        return json.load(f), seconds, fits


def overhead(report):
    return (report["predicted_seconds"]["total"]
            / report["baseline_predicted_seconds"] - 1)


def largest(args, onnx_path, work, technique, low, high):
    """The largest multiple of 32 in [low, high) that fits (low fits,
    high does not)."""
    while high - low > 32:
        middle = (low + high) // 64 * 32
        if plan(args, onnx_path, work, technique, middle)[2]:
            low = middle
        else:
            high = middle
    return low


def budget_bytes(text):
    """--budget as memopt-compile reads it: bytes, or KiB/MiB/GiB."""
    match = re.fullmatch(r"(\d+)(KiB|MiB|GiB)?", text)
    if not match:
        raise SystemExit("--budget %r: expected bytes or N KiB/MiB/GiB" % text)
    scale = {None: 1, "KiB": 2 ** 10, "MiB": 2 ** 20, "GiB": 2 ** 30}
    return int(match.group(1)) * scale[match.group(2)]


def available_bytes():
    with open("/proc/meminfo") as info:
        for line in info:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def torch_peak(args, python, size):
    """PyTorch eager's peak for one Adam step at `size`, or None where the
    step runs out of the capped GPU memory."""
    command = [python, os.path.join(os.path.dirname(
        os.path.abspath(__file__)), "remat_torch.py"), "--model", args.model,
        "--input-shape", "1,%d,%d" % (size, size), "--optimizer", "adam",
        "--device", args.pytorch]
    if args.pytorch == "cuda":
        command += ["--limit-bytes", str(budget_bytes(args.budget))]
    done = subprocess.run(command, stdout=subprocess.PIPE, text=True)
    if done.returncode == 3 and args.pytorch == "cuda":
        return None
    if done.returncode:
        raise SystemExit("PyTorch at %dx%d failed (exit %d)"
                         % (size, size, done.returncode))
    return int(done.stdout)


def pytorch_rows(args, sizes):
    """PyTorch eager's rows and its largest fitting size."""
    python = args.torch_python or venv_torch(os.path.join(
        os.path.expanduser("~"), ".cache", "memopt", "bench-venv")) \
        or DEBIAN_PYTHON
    limit = budget_bytes(args.budget)
    print()
    print("PyTorch eager (%s, %s), Adam, batch 1: fits when its peak is at "
          "most %s" % (args.pytorch, python, args.budget))
    print("| input | fits | peak |")
    print("|---|---|---|")
    measured = {}

    def ram_needed(size):
        """On the CPU, the peak extrapolated by area from the largest size
        measured, where it would not fit this machine's free memory."""
        known = [s for s in measured if measured[s] is not None]
        if args.pytorch != "cpu" or not known:
            return None
        last = max(known)
        guess = measured[last] * size * size / (last * last)
        return guess if guess > 0.8 * available_bytes() else None

    def fits(size):
        """True or False, or None where the size cannot be run here."""
        if size not in measured:
            if ram_needed(size):
                return None
            measured[size] = torch_peak(args, python, size)
        peak = measured[size]
        return peak is not None and peak <= limit

    fitting, failing, unrunnable = [], None, None
    for size in sizes:
        if failing is not None or unrunnable is not None:
            print("| %dx%d | not run (%dx%d %s) | - |" % (
                size, size, *(2 * [failing or unrunnable]),
                "does not fit" if failing else "cannot run here"))
            continue
        ok = fits(size)
        if ok is None:
            print("| %dx%d | not run (needs about %.1f GiB of RAM) | - |"
                  % (size, size, ram_needed(size) / GB))
            unrunnable = size
            continue
        peak = measured[size]
        print("| %dx%d | %s | %s |" % (
            size, size, "yes" if ok else "no",
            "%.2f GiB" % (peak / GB) if peak is not None else
            "out of memory"))
        sys.stdout.flush()
        if ok:
            fitting.append(size)
        else:
            failing = size
    if args.no_largest or not fitting:
        return
    low = max(fitting)
    high = failing or unrunnable
    if high is None:
        print("| largest | %dx%d or more |" % (low, low))
        return
    while high - low > 32:
        middle = (low + high) // 64 * 32
        ok = fits(middle)
        if ok is None:
            unrunnable, high = middle, middle
        elif ok:
            low = middle
        else:
            failing, high = middle, middle
    print("| largest | %dx%d (%.2f GiB)%s |" % (
        low, low, measured[low] / GB,
        "" if failing == high else
        " or more: %dx%d needs more RAM than this machine has" % (high, high)))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/bin", help="memopt tools")
    parser.add_argument("--model", default="resnet34-unet",
                        help="a model of python/memopt/models")
    parser.add_argument("--resolutions", default="1024,1440,2048,3072,4192",
                        help="square input sizes, multiples of 32")
    parser.add_argument("--target", default="cuda", choices=("cpu", "cuda"))
    parser.add_argument("--device", default="rtx2060",
                        help="the cost model's profile (--device)")
    parser.add_argument("--budget", default="8GiB",
                        help="the predicted peak to fit (--budget)")
    parser.add_argument("--techniques", default=",".join(TECHNIQUES),
                        help="a subset of " + ",".join(TECHNIQUES))
    parser.add_argument("--no-largest", action="store_true",
                        help="skip the bisection for the largest size")
    parser.add_argument("--workdir", help="keep the files here")
    parser.add_argument("--pytorch", choices=("cpu", "cuda", "none"),
                        default="cpu",
                        help="PyTorch eager's peak per size beside memopt's")
    parser.add_argument("--torch-python",
                        help="the interpreter for PyTorch (default: the "
                             "benchmark venv's, else Debian's)")
    args = parser.parse_args(argv)
    work = args.workdir or tempfile.mkdtemp(prefix="offload-")
    os.makedirs(work, exist_ok=True)
    sizes = [int(s) for s in args.resolutions.split(",")]
    techniques = args.techniques.split(",")
    onnx_path = os.path.join(work, "model.onnx")
    if not os.path.exists(onnx_path):
        from memopt.export import export_model  # needs onnx, the rest not
        export_model(args.model, onnx_path, 1, (1, sizes[0], sizes[0]),
                     in_channels=1, classes=1)

    print("%s, batch 1, fp32 unless marked, Adam, --target=%s --device=%s "
          "--budget=%s" % (args.model, args.target, args.device, args.budget))
    print("| input | technique | fits | predicted peak | host memory "
          "| offloaded (each way) | predicted overhead | stall | plan seconds |")
    print("|---|---|---|---|---|---|---|---|---|")
    fitting = {t: [] for t in techniques}
    for size in sizes:
        for technique in techniques:
            report, seconds, fits = plan(args, onnx_path, work, technique,
                                         size)
            if fits:
                fitting[technique].append(size)
            print("| %dx%d | %s | %s | %.2f GiB | %.2f GiB | %.2f GiB "
                  "| %.1f %% | %.3f s | %.1f |"
                  % (size, size, technique, "yes" if fits else "no (smallest)",
                     report["predicted_peak_bytes"] / GB,
                     report["host_bytes"] / GB,
                     report["transfer_bytes"]["offload"] / GB,
                     100 * overhead(report),
                     report["predicted_seconds"]["transfer_stall"], seconds))
    if not args.no_largest:
        largest_per_technique(args, onnx_path, work, sizes, techniques,
                              fitting)
    if args.pytorch != "none":
        pytorch_rows(args, sizes)


def largest_per_technique(args, onnx_path, work, sizes, techniques, fitting):
    print()
    print("| technique | largest input that fits %s |" % args.budget)
    print("|---|---|")
    for technique in techniques:
        fit = fitting[technique]
        if not fit:
            print("| %s | below %d |" % (technique, sizes[0]))
            continue
        low = max(fit)
        above = [s for s in sizes if s > low]
        best = (largest(args, onnx_path, work, technique, low, min(above))
                if above else low)
        print("| %s | %dx%d%s |" % (technique, best, best,
                                     "" if above else " (or more)"))


if __name__ == "__main__":
    main()
