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

    PYTHONPATH=python /usr/bin/python3 bench/offload.py \\
        [--bin build/bin] [--model resnet34-unet] \\
        [--resolutions 1024,1440,2048,3072,4192] [--target cuda] \\
        [--device rtx2060] [--budget 8GiB] [--no-largest]
"""
import argparse
import json
import os
import re
import subprocess
import tempfile
import time

from memopt.export import export_model

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
        again = subprocess.run(command + ["--budget=" + smallest.group(1)],
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
    args = parser.parse_args(argv)
    work = args.workdir or tempfile.mkdtemp(prefix="offload-")
    os.makedirs(work, exist_ok=True)
    sizes = [int(s) for s in args.resolutions.split(",")]
    techniques = args.techniques.split(",")
    onnx_path = os.path.join(work, "model.onnx")
    if not os.path.exists(onnx_path):
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
    if args.no_largest:
        return
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
