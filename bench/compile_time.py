#!/usr/bin/python3
"""Compile time of memopt-compile, phase by phase, against model size.

For each model: exports it (training mode, opset 17), compiles it with
`memopt-compile --verbose --report` (a training binary, or the step object
with -c) and prints one row: ONNX ops, generated C++ lines, the seconds of
each phase from the report's `compile_phases` (import, autodiff, schedule,
plan, estimate, lowering, emission, compile or nvcc, link), the total
`compile_seconds`, and `cpu`: the CPU seconds (user + system) of
memopt-compile and the compilers it ran, which a busy machine does not
inflate as it does wall time.

Models: `densenet121` (torchvision's densenet121(num_classes=10) with a
1-channel stem) and the registry's models (`resnet34-unet`, `unet`), all
with a 1-channel SIZE x SIZE input at batch 1.

    PYTHONPATH=python /usr/bin/python3 bench/compile_time.py \\
        --memopt-compile build/bin/memopt-compile \\
        [--models densenet121,resnet34-unet,unet] [--size 64] [--target cpu] [-c]
"""
import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import warnings

import torch

from memopt.export import export_model

PHASES = ["import", "autodiff", "schedule", "plan", "estimate", "lowering",
          "emission", "compile", "nvcc", "link"]


def export_densenet121(path, size):
    import torchvision
    torch.manual_seed(0)
    model = torchvision.models.densenet121(num_classes=10)
    model.features.conv0 = torch.nn.Conv2d(1, 64, 7, 2, 3, bias=False)
    model.train()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, torch.randn(1, 1, size, size), path,
                          training=torch.onnx.TrainingMode.TRAINING,
                          opset_version=17, input_names=["input"],
                          output_names=["output"], do_constant_folding=False)


def export(name, path, size):
    if name == "densenet121":
        export_densenet121(path, size)
    else:
        export_model(name, path, 1, (1, size, size), in_channels=1)


def children_cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(args, name, workdir):
    import onnx
    model = os.path.join(workdir, name + ".onnx")
    export(name, model, args.size)
    ops = len(onnx.load(model, load_external_data=False).graph.node)
    temps = os.path.join(workdir, name + ".temps")
    report = os.path.join(workdir, name + ".json")
    out = os.path.join(workdir, name + (".o" if args.c else ""))
    command = [args.memopt_compile, model, "-o", out, "--target=" + args.target,
               "--loss=mse", "--save-temps=" + temps, "--report=" + report,
               "--verbose"] + (["-c"] if args.c else [])
    before = children_cpu_seconds()
    subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
    cpu = children_cpu_seconds() - before
    source = os.path.join(temps, name + (".cu" if args.target == "cuda" else ".cpp"))
    with open(source) as f:
        lines = sum(1 for _ in f)
    with open(report) as f:
        data = json.load(f)
    phases = {p["phase"]: p["seconds"] for p in data["compile_phases"]}
    return ops, lines, phases, data["compile_seconds"], cpu


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memopt-compile", default="build/bin/memopt-compile")
    parser.add_argument("--models", default="densenet121,resnet34-unet,unet")
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--target", choices=["cpu", "cuda"], default="cpu")
    parser.add_argument("-c", action="store_true",
                        help="compile the step object only (no link)")
    parser.add_argument("--workdir", help="keep the models and sources here")
    args = parser.parse_args()
    workdir = args.workdir or tempfile.mkdtemp(prefix="compile-time-")
    os.makedirs(workdir, exist_ok=True)
    rows = []
    for name in args.models.split(","):
        rows.append((name,) + measure(args, name, workdir))
    shown = [p for p in PHASES if any(p in r[3] for r in rows)]
    header = ["model", "ops", "lines"] + shown + ["total", "cpu"]
    print(" | ".join(header))
    print(" | ".join("---" for _ in header))
    for name, ops, lines, phases, total, cpu in rows:
        cells = [name, str(ops), str(lines)]
        cells += ["%.2f" % phases[p] if p in phases else "" for p in shown]
        cells += ["%.1f" % total, "%.1f" % cpu]
        print(" | ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
