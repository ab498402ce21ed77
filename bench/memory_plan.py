#!/usr/bin/python3
"""Memory plan of a training step: memopt's arena against PyTorch's saved tensors.

Exports the model (batch, 1 x size x size, fp32), compiles its training step
with SGD momentum 0.9 (`memopt-compile --plan-only --report`), and prints
a table: the compile report's predicted peak and activation peak (the arena),
the schedule it chose, and the activation peak divided by the bytes PyTorch
saves for backward in one training forward (counted with
torch.autograd.graph.saved_tensors_hooks, as the issue counts them: shared
storages once, the saved weights included). The other counts (every saved
tensor separately, activations only) are printed too.

An ablation plans the same step with memopt-opt under each combination of
the given or the chosen order and with or without in-place writes (and
concat slices: `#memopt.target<cpu, in_place = false>`), with and without
oneDNN's convolution workspaces (tg-annotate-workspaces), and times the
whole pipeline from ONNX to C++ (memopt-translate --import-onnx, memopt-opt
--memopt-training-pipeline, memopt-translate --mlir-to-cpp).

    PYTHONPATH=python /usr/bin/python3 bench/memory_plan.py \\
        [--bin build/bin] [--model resnet34-unet] [--size 512] [--batch 1]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn.functional as F

from memopt import models
from memopt.export import export_model

MIB = 1 << 20


def pytorch_saved_bytes(name, batch, size):
    """Bytes saved for backward by one training forward + MSE loss:
    {(dedup, with_weights): bytes} for the four ways of counting."""
    torch.manual_seed(0)
    model = models.build(name, in_channels=1)
    model.train()
    x = torch.randn(batch, 1, size, size)
    target = torch.rand(batch, 1, size, size)
    saved = []

    def pack(tensor):
        saved.append(tensor)
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        F.mse_loss(model(x), target)
    weights = {p.data_ptr() for p in model.parameters()}
    counts = {}
    for dedup in (True, False):
        for with_weights in (True, False):
            seen, total = set(), 0
            for t in saved:
                ptr = t.storage().data_ptr()
                if not with_weights and ptr in weights:
                    continue
                if dedup:
                    if ptr in seen:
                        continue
                    seen.add(ptr)
                    total += t.storage().nbytes()
                else:
                    total += t.numel() * t.element_size()
            counts[(dedup, with_weights)] = total
    return counts


def arena_bytes(mlir_text):
    return int(re.search(r"mbuf\.arena 0 size (\d+)", mlir_text).group(1))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/bin", help="memopt tools")
    parser.add_argument("--model", default="resnet34-unet",
                        choices=sorted(models.MODELS))
    parser.add_argument("--size", type=int, default=512, help="H = W")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--workdir", help="keep the files here")
    args = parser.parse_args(argv)
    tool = lambda name: os.path.join(args.bin, name)
    work = args.workdir or tempfile.mkdtemp(prefix="memory-plan-")
    os.makedirs(work, exist_ok=True)
    onnx_path = os.path.join(work, "model.onnx")
    export_model(args.model, onnx_path, args.batch, (1, args.size, args.size),
                 in_channels=1)

    report_path = os.path.join(work, "compile.json")
    optimizer = ["--optimizer=sgd", "--lr=0.01", "--momentum=0.9"]
    subprocess.run([tool("memopt-compile"), onnx_path, "--plan-only",
                    *optimizer, "--report=" + report_path],
                   check=True, stdout=subprocess.DEVNULL)
    report = json.load(open(report_path))

    # The whole pipeline from ONNX to C++, timed.
    start = time.perf_counter()
    imported = os.path.join(work, "imported.mlir")
    emitc = os.path.join(work, "emitc.mlir")
    subprocess.run([tool("memopt-translate"), "--import-onnx", onnx_path,
                    "--mlir-print-debuginfo", "-o", imported], check=True)
    subprocess.run([tool("memopt-opt"), imported,
                    "--memopt-training-pipeline=target=cpu optimizer=sgd "
                    "lr=0.01 momentum=0.9", "-o", emitc], check=True)
    subprocess.run([tool("memopt-translate"), "--mlir-to-cpp", emitc, "-o",
                    os.path.join(work, "step.cpp")], check=True)
    pipeline_seconds = time.perf_counter() - start

    ablation = []
    for order in ("given", "chosen"):
        for in_place in ("false", "true"):
            totals = []
            for workspaces in ("true", "false"):
                passes = ["-memopt-set-target=target=cpu in-place=" + in_place,
                          "-tg-autodiff=optimizer=sgd lr=0.01 momentum=0.9",
                          "-canonicalize"]
                if workspaces == "true":
                    passes.append("-tg-annotate-workspaces")
                if order == "chosen":
                    passes.append("-tg-schedule")
                passes.append("-tg-plan-memory")
                out = subprocess.run([tool("memopt-opt"), imported, *passes],
                                     check=True, capture_output=True,
                                     text=True).stdout
                totals.append(arena_bytes(out))
            ablation.append((order, in_place, *totals))

    saved = pytorch_saved_bytes(args.model, args.batch, args.size)
    # What the runtime allocates for temporaries: the planned arena (the
    # bytes live at the peak, activation_peak_bytes, plus fragmentation).
    arena = report["arena_bytes"]
    reference = saved[(True, True)]
    print("| model | size | batch | predicted peak | activation peak (arena) "
          "| schedule | PyTorch saved | arena / saved |")
    print("|---|---|---|---|---|---|---|---|")
    print("| %s | %dx%d | %d | %.1f MiB | %.1f MiB | %s | %.1f MB | %.2f |" % (
        args.model, args.size, args.size, args.batch,
        report["predicted_peak_bytes"] / MIB, arena / MIB,
        report["strategy"]["schedule"], reference / 1e6, arena / reference))
    print()
    print("PyTorch saved for backward (MB): dedup+weights %.1f, "
          "dedup activations %.1f, all+weights %.1f, all activations %.1f" % (
              saved[(True, True)] / 1e6, saved[(True, False)] / 1e6,
              saved[(False, True)] / 1e6, saved[(False, False)] / 1e6))
    print("arena / dedup activations: %.2f" % (arena / saved[(True, False)]))
    print()
    print("| order | in place | arena | arena without workspaces "
          "| without workspaces / saved |")
    print("|---|---|---|---|---|")
    for order, in_place, total, bare in ablation:
        print("| %s | %s | %.1f MiB | %.1f MiB | %.2f |" % (
            order, in_place, total / MIB, bare / MIB, bare / reference))
    print()
    print("ONNX -> C++ pipeline: %.2f s" % pipeline_seconds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
