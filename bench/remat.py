#!/usr/bin/python3
"""Rematerialization strategies: predicted peak against added FLOPs.

Exports the model (batch, 1 x size x size, fp32), plans its training step
(SGD, momentum 0.9, MSE) once per `--remat` strategy with
`memopt-compile --plan-only --report` and prints one table: the predicted
peak (what the trainer allocates), the activation peak (the arena's live
temporaries) and its ratio to `--remat=none`'s, the recomputed FLOPs as a
share of the forward and backward FLOPs, the predicted time overhead on
`--device` (roofline, docs/cost-model.md) and the wall time of the plan,
import to report.

    PYTHONPATH=python /usr/bin/python3 bench/remat.py \\
        [--bin build/bin] [--model resnet34-unet] [--size 512] [--batch 1] \\
        [--target cpu] [--device cpu]
"""
import argparse
import json
import os
import subprocess
import tempfile
import time

from memopt.export import export_model

STRATEGIES = ("none", "sqrt")
MB = 1e6


def plan(compiler, onnx_path, work, strategy, target, device):
    """The compile report of one --plan-only run, and its wall seconds."""
    report = os.path.join(work, "remat-%s.json" % strategy)
    start = time.perf_counter()
    subprocess.run([compiler, onnx_path, "--plan-only", "--optimizer=sgd",
                    "--lr=0.01", "--momentum=0.9", "--target=" + target,
                    "--device=" + device, "--remat=" + strategy,
                    "--report=" + report],
                   check=True, stdout=subprocess.DEVNULL)
    seconds = time.perf_counter() - start
    with open(report) as f:
        return json.load(f), seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/bin", help="memopt tools")
    parser.add_argument("--model", default="resnet34-unet",
                        help="a model of python/memopt/models")
    parser.add_argument("--size", type=int, default=512, help="H = W")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--target", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--device", default="cpu",
                        help="the cost model's profile (--device)")
    parser.add_argument("--workdir", help="keep the files here")
    args = parser.parse_args(argv)
    work = args.workdir or tempfile.mkdtemp(prefix="remat-")
    os.makedirs(work, exist_ok=True)
    onnx_path = os.path.join(work, "model.onnx")
    export_model(args.model, onnx_path, args.batch, (1, args.size, args.size),
                 in_channels=1)
    compiler = os.path.join(args.bin, "memopt-compile")

    print("%s, %dx1x%dx%d, fp32, SGD momentum, --target=%s --device=%s"
          % (args.model, args.batch, args.size, args.size, args.target,
             args.device))
    print("| --remat | predicted peak | activation peak | vs none "
          "| added FLOPs / (fwd+bwd) | predicted overhead | plan seconds |")
    print("|---|---|---|---|---|---|---|")
    baseline = None
    for strategy in STRATEGIES:
        report, seconds = plan(compiler, onnx_path, work, strategy,
                               args.target, args.device)
        activation = report["activation_peak_bytes"]
        baseline = baseline or activation
        flops = report["flops"]
        added = flops["recompute"] / (flops["forward"] + flops["backward"])
        overhead = (report["predicted_seconds"]["total"]
                    / report["baseline_predicted_seconds"] - 1)
        print("| %s | %.1f MB | %.1f MB | %.2f | %.1f %% | %.1f %% | %.2f |"
              % (strategy, report["predicted_peak_bytes"] / MB,
                 activation / MB, activation / baseline, 100 * added,
                 100 * overhead, seconds))


if __name__ == "__main__":
    main()
