#!/usr/bin/python3
"""Rematerialization strategies: predicted peak against added FLOPs.

Exports the model (fp32, training mode), plans its training step (SGD,
momentum 0.9, MSE) once per `--remat` strategy with
`memopt-compile --plan-only --report` and prints one table: the budget,
the predicted peak (what the trainer allocates), the activation peak (the
arena's live temporaries) and its ratio to `--remat=none`'s, the
recomputed FLOPs as a share of the forward and backward FLOPs, the
predicted time overhead on `--device` (roofline, docs/cost-model.md) and
the wall time of the plan, import to report. `--remat=auto` and
`--remat=optimal` run at budgets of the persistent bytes plus each
`--fractions` share of `--remat=none`'s arena (or at the `--budgets`
given), down to the smallest budget each reaches (the error names it);
optimal's rows add the proven optimality gap of its program (CBC's
objective against its best bound, `remat_milp` in the report), its
status and whose plan was taken (`solver`: dp, milp or auto), plan
seconds are wall clock with the plan's own CPU seconds beside them (on a
loaded machine the two differ), and a last line compares optimal with auto at the same budgets.
`auto-lean` (cuda) is auto with `--workspaces=lean`: backward
convolutions at the peak may run on their lean workspace, charged at the
device's `lean` slowdown (docs/passes/remat.md#lean-workspaces). With `--torch`, two more rows:
PyTorch's eager CPU peak for the same step and with `torch.utils.checkpoint`
around each stage (bench/remat_torch.py says how it is measured), run by
the benchmark venv's torch (the newest from PyPI, bench/vs_pytorch.py
installs it) when it exists, else Debian's 1.13 (`--torch-python` picks
one); the rows name the version.

    PYTHONPATH=python /usr/bin/python3 bench/remat.py \\
        [--bin build/bin] [--model resnet34-unet] [--input-shape 1,512,512] \\
        [--batch 1] [--classes 1] [--base N] [--target cpu] [--device cpu] \\
        [--fractions 0.75,0.5,0.33,0.25 | --budgets 8e9,6e9,5e9]
        [--torch [--torch-python PYTHON]]
        [--strategies auto,auto-lean,optimal] [--remat-time-limit SECONDS]
"""
import argparse
import json
import os
import re
import resource
import subprocess
import tempfile
import time

from memopt.export import export_model
from vs_pytorch import DEBIAN_PYTHON, venv_torch

STRATEGIES = ("none", "sqrt")
MB = 1e6


def plan(compiler, onnx_path, work, strategy, target, device, budget=None,
         extra=()):
    """The compile report of one --plan-only run and its (wall, CPU)
    seconds, or (None, the smallest budget tg-remat names) when auto or
    optimal cannot fit."""
    name = strategy if budget is None else "%s-%d" % (strategy, budget)
    report = os.path.join(work, "remat-%s.json" % name)
    # auto-lean: auto with lean convolution workspaces (cuda).
    lean = strategy == "auto-lean"
    command = [compiler, onnx_path, "--plan-only", "--optimizer=sgd",
               "--lr=0.01", "--momentum=0.9", "--target=" + target,
               "--device=" + device,
               "--remat=" + ("auto" if lean else strategy),
               "--report=" + report]
    if lean:
        command.append("--workspaces=lean")
    if budget is not None:
        command.append("--budget=%d" % budget)
    command += list(extra)
    start = time.perf_counter()
    cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, text=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # Wall seconds and, for a loaded machine, the plan's own CPU seconds.
    seconds = (time.perf_counter() - start,
               after.ru_utime + after.ru_stime - cpu.ru_utime - cpu.ru_stime)
    if done.returncode:
        smallest = re.search(r"--budget=(\d+)\)", done.stderr)
        if strategy not in ("auto", "auto-lean", "optimal") or not smallest:
            raise SystemExit(done.stderr)
        return None, int(smallest.group(1))
    with open(report) as f:
        return json.load(f), seconds


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/bin", help="memopt tools")
    parser.add_argument("--model", default="resnet34-unet",
                        help="a model of python/memopt/models")
    parser.add_argument("--input-shape", default="1,512,512", help="C,H,W")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--classes", type=int, default=1)
    parser.add_argument("--base", type=int, help="the classic U-Net's width")
    parser.add_argument("--target", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--device", default="cpu",
                        help="the cost model's profile (--device)")
    parser.add_argument("--fractions", default="0.75,0.5,0.4,0.33,0.25",
                        help="auto's budgets: shares of none's arena")
    parser.add_argument("--budgets",
                        help="auto's budgets in bytes (e.g. 8e9,5e9), "
                        "in place of --fractions")
    parser.add_argument("--torch", action="store_true",
                        help="add PyTorch's eager and checkpointed CPU peak")
    parser.add_argument("--torch-python",
                        help="the interpreter for PyTorch (default: the "
                             "benchmark venv's, else Debian's)")
    parser.add_argument("--strategies",
                        help="the budget strategies to run (default: auto, "
                        "auto-lean on cuda, optimal); auto-lean is auto "
                        "with --workspaces=lean")
    parser.add_argument("--remat-time-limit", type=float,
                        help="optimal: CBC's seconds (memopt-compile's "
                        "default when not given)")
    parser.add_argument("--workdir", help="keep the files here")
    args = parser.parse_args(argv)
    work = args.workdir or tempfile.mkdtemp(prefix="remat-")
    os.makedirs(work, exist_ok=True)
    onnx_path = os.path.join(work, "model.onnx")
    shape = tuple(int(d) for d in args.input_shape.split(","))
    kw = {"in_channels": shape[0], "classes": args.classes}
    if args.base:
        kw["base"] = args.base
    export_model(args.model, onnx_path, args.batch, shape, **kw)
    compiler = os.path.join(args.bin, "memopt-compile")

    print("%s, %dx%s, fp32, SGD momentum, --target=%s --device=%s"
          % (args.model, args.batch, "x".join(map(str, shape)), args.target,
             args.device))
    print("| --remat | budget | predicted peak | activation peak | vs none "
          "| added FLOPs / (fwd+bwd) | predicted overhead | gap | solver | "
          "plan seconds wall (CPU) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    baseline = None

    def row(strategy, budget, report, seconds):
        activation = report["activation_peak_bytes"]
        flops = report["flops"]
        added = flops["recompute"] / (flops["forward"] + flops["backward"])
        overhead = (report["predicted_seconds"]["total"]
                    / report["baseline_predicted_seconds"] - 1)
        milp = report.get("remat_milp")
        gap = "-"
        if milp is not None:
            gap = ("- (auto's plan)" if milp["status"] == "greedy"
                   else "%.1f %% (%s)" % (100 * milp["gap"], milp["status"])
                   if milp["solves"] else "0 (nothing to solve)")
        solver = milp.get("solver", "-") if milp is not None else "-"
        print("| %s | %s | %.1f MB | %.1f MB | %.2f | %.1f %% | %.1f %% "
              "| %s | %s | %.2f (%.2f) |"
              % (strategy, "-" if budget is None else "%.1f MB" % (budget / MB),
                 report["predicted_peak_bytes"] / MB, activation / MB,
                 activation / baseline, 100 * added, 100 * overhead, gap,
                 solver, seconds[0], seconds[1]))
        return overhead

    reports = {}
    for strategy in STRATEGIES:
        report, seconds = plan(compiler, onnx_path, work, strategy,
                               args.target, args.device)
        reports[strategy] = report
        baseline = baseline or report["activation_peak_bytes"]
        row(strategy, None, report, seconds)
    none = reports["none"]
    persistent = none["predicted_peak_bytes"] - none["arena_bytes"]
    if args.budgets:
        budgets = [int(float(b)) for b in args.budgets.split(",")]
    else:
        budgets = [persistent + int(float(f) * none["arena_bytes"])
                   for f in args.fractions.split(",")]
    extra = {"auto": [], "auto-lean": [], "optimal": []}
    if args.remat_time_limit:
        extra["optimal"] = ["--remat-time-limit=%g" % args.remat_time_limit]
    overheads = {}
    strategies = args.strategies or ("auto,auto-lean,optimal"
                                     if args.target == "cuda"
                                     else "auto,optimal")
    for strategy in strategies.split(","):
        for wanted in budgets:
            report, seconds = plan(compiler, onnx_path, work, strategy,
                                   args.target, args.device, wanted,
                                   extra[strategy])
            budget = wanted
            if report is None:
                budget = seconds  # the smallest budget it reaches
                report, seconds = plan(compiler, onnx_path, work, strategy,
                                       args.target, args.device, budget,
                                       extra[strategy])
            overheads[strategy, wanted] = (
                budget, row(strategy, budget, report, seconds))
            if report["predicted_peak_bytes"] > wanted:
                break
    if ("auto", budgets[0]) in overheads and ("optimal", budgets[0]) in overheads:
        better = []
        for wanted in budgets:
            auto = overheads.get(("auto", wanted))
            optimal = overheads.get(("optimal", wanted))
            if auto and optimal and auto[0] == optimal[0] == wanted:
                better.append("%.1f MB: %+.1f pt" % (
                    wanted / MB, 100 * (optimal[1] - auto[1])))
        print("\noptimal's predicted overhead minus auto's at the same "
              "budget: " + (", ".join(better) or "no common budget"))
    if args.torch:
        # The peer is the newest torch from PyPI (the benchmark venv that
        # bench/vs_pytorch.py installs), Debian's 1.13 where there is none.
        python = args.torch_python or venv_torch(os.path.join(
            os.path.expanduser("~"), ".cache", "memopt", "bench-venv")) \
            or DEBIAN_PYTHON
        version = subprocess.run(
            [python, "-c", "import torch; print(torch.__version__)"],
            check=True, text=True, stdout=subprocess.PIPE).stdout.strip()
        for flags, name in (([], "PyTorch %s eager" % version),
                            (["--checkpoint"],
                             "PyTorch %s checkpoint/stage" % version)):
            command = [python, os.path.join(
                os.path.dirname(os.path.abspath(__file__)), "remat_torch.py"),
                "--model", args.model, "--input-shape", args.input_shape,
                "--batch", str(args.batch), "--classes", str(args.classes)]
            if args.base:
                command += ["--base", str(args.base)]
            peak = int(subprocess.run(command + flags, check=True, text=True,
                                      stdout=subprocess.PIPE).stdout)
            print("| %s (CPU) | - | %.1f MB | - | - | - | - | - | - | - |"
                  % (name, peak / MB))


if __name__ == "__main__":
    main()
