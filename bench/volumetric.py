#!/usr/bin/python3
"""Volumetric U-Nets: the largest cubic patch a GPU budget fits, memopt's
plans beside PyTorch's peaks.

memopt (all `memopt-compile --plan-only --target=cuda`, or `--target cpu`:
the CPU backend's plan on the --device's rates; SGD with Nesterov momentum
0.99 as nnU-Net trains, `--loss=ce+dice` (or `ce`) on 4 classes, batch
`--batch`): for each technique, the largest cubic patch (a side that is a
multiple of 32) whose predicted peak fits `--budget` on `--device`, found
by doubling and bisection over the side (each side planned at most once
per technique), with that plan's predicted peak, step time, overhead
(predicted step over the same precision's step with nothing traded for
memory) and host memory; every plan's wall time is recorded and plans
above 10 s are flagged. Techniques: plain, --remat=auto, --offload=auto,
both, --amp=fp16, --amp=bf16 and each precision with both (a precision the
device or the model refuses gets a row that says why). Then `--fit=DEVICE
--amp=auto` at the largest plain patch (the plan auto-fit picks) and
`--maximize=size` (auto-fit's own largest size), and a whole volume
(`--whole`, default 256^3 at batch 1) under `--whole-budget` (default 24
GiB, the same device's rates).

The script exports the model once and writes one ONNX file per patch
side with the graph input's shape set and the exported shapes dropped,
as memopt-compile's own `--input-shape=C,D,H,W` override does
(ModelLoader.cpp); a file per side keeps each plan's command complete.

PyTorch (the newest from PyPI, /root/.cache/memopt/torch-venv, else
Debian's; one fresh process per point): the total peak of a training
step (weights, gradients, momentum, activations, workspaces: the
resident set's high-water mark over two SGD steps less the resident set
after `import torch`, like bench/remat_torch.py) of eager, eager under
torch.autocast(bfloat16) (on the CPU, standing for CUDA fp16 autocast:
both halve the same tensors) and eager with torch.utils.checkpoint around
every encoder and decoder stage, measured on the CPU at `--torch-sides`
(small patches) and extrapolated linearly in voxels to the budget: the
largest side whose extrapolated peak fits. On a GPU cuDNN's workspaces
and the caching allocator come on top, so PyTorch's real largest patch
is at most this.

Models: nnunet3d (nnU-Net's 3d_fullres PlainConvUNet: features 32, 64,
... capped at 320, 5 strided halvings as nnU-Net plans for patches of 128
and more, InstanceNorm + LeakyReLU, ConvTranspose decoder) and
monai-unet3d (a MONAI-UNet-like network: channels 16 to 256, 4 strided
halvings, BatchNorm + LeakyReLU, two convolutions per level, no residual
units or PReLU; MONAI itself is not needed).

    PYTHONPATH=python /usr/bin/python3 bench/volumetric.py [--bin build/bin] \\
        [--models nnunet3d,monai-unet3d] [--batch 2] [--target cuda|cpu] \\
        [--device rtx2060] [--loss ce+dice|ce] [--budget 8GiB] \\
        [--techniques plain,remat,...] [--max-side 1024] \\
        [--torch-sides 64,96] [--torch-modes eager,autocast,checkpoint] \\
        [--whole 256 --whole-batch 1 --whole-budget 24GiB] [--quick] \\
        [--dry] [--torch-python PY] [--workdir DIR]
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, BENCH)
from torch_worker import read_status, reset_peak_rss  # noqa: E402

# name: registry model, its constructor arguments, what it is.
MODELS = {
    "nnunet3d": ("nnunet3d", {"depth": 5},
                 "nnU-Net 3d_fullres PlainConvUNet, features 32..320, "
                 "5 strided halvings, InstanceNorm + LeakyReLU, 4 classes"),
    "monai-unet3d": ("unet3d-batchnorm",
                     {"base": 16, "depth": 4, "max_width": 256,
                      "classes": 4},
                     "MONAI-UNet-like, channels 16..256, 4 strided "
                     "halvings, BatchNorm + LeakyReLU, 4 classes"),
}
TECHNIQUES = {
    "plain": [],
    "remat": ["--remat=auto"],
    "offload": ["--offload=auto"],
    "remat+offload": ["--remat=auto", "--offload=auto"],
    "fp16": ["--amp=fp16"],
    "bf16": ["--amp=bf16"],
    "fp16+remat+offload": ["--amp=fp16", "--remat=auto", "--offload=auto"],
    "bf16+remat+offload": ["--amp=bf16", "--remat=auto", "--offload=auto"],
}
QUICK_TECHNIQUES = "plain,remat,remat+offload,fp16+remat+offload"
COMMON = ["--plan-only", "--optimizer=sgd", "--lr=0.01", "--momentum=0.99",
          "--nesterov=true"]
LOSSES = ("ce+dice", "ce")
TORCH_MODES = ("eager", "autocast", "checkpoint")
TORCH_VENV = os.path.join(os.path.expanduser("~"), ".cache", "memopt",
                          "torch-venv", "bin", "python")
DEBIAN_PYTHON = "/usr/bin/python3"
SIDE_STEP = 32
EXPORT_SIDE = 64
SLOW_PLAN_SECONDS = 10.0
GIB = 2 ** 30


def log(message):
    print("volumetric: " + message, file=sys.stderr, flush=True)


SIZE_UNITS = {"": 1, "B": 1, "KB": 10 ** 3, "MB": 10 ** 6, "GB": 10 ** 9,
              "TB": 10 ** 12, "KiB": 2 ** 10, "MiB": 2 ** 20,
              "GiB": 2 ** 30, "TiB": 2 ** 40}


def size_bytes(text):
    """8GiB, 750MB, 1.5GB or bytes, as memopt-compile reads --budget."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([A-Za-z]*)", text)
    if not match or match.group(2) not in SIZE_UNITS:
        raise SystemExit("volumetric: error: %r is not a size: give bytes or "
                         "a number with B, KB, MB, GB, TB, KiB, MiB, GiB or "
                         "TiB" % text)
    return int(float(match.group(1)) * SIZE_UNITS[match.group(2)])


# ---------------------------------------------------------------------------
# PyTorch: one measurement per process (`--worker SPEC`).
# ---------------------------------------------------------------------------

def build_torch_model(name):
    from memopt import models
    registry, kw, _ = MODELS[name]
    return models.build(registry, **kw)


def checkpoint_stages(model):
    """torch.utils.checkpoint around every encoder and decoder stage."""
    import functools
    from torch.utils.checkpoint import checkpoint
    for stage in list(model.down) + list(model.up):
        stage.forward = functools.partial(checkpoint, stage.forward,
                                          use_reentrant=False)


def worker(spec):
    """Total peak of two SGD steps at spec's side, batch and mode."""
    import torch
    from memopt.losses import cross_entropy_loss, dice_ce_loss
    loss_fn = dice_ce_loss if spec["loss"] == "ce+dice" else cross_entropy_loss
    torch.set_num_threads(spec["threads"])
    baseline = read_status("VmRSS")
    torch.manual_seed(0)
    model = build_torch_model(spec["model"]).train()
    if spec["mode"] == "checkpoint":
        checkpoint_stages(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.99,
                                nesterov=True)
    side, batch = spec["side"], spec["batch"]
    x = torch.rand(batch, 1, side, side, side)
    target = torch.randint(0, model.classes, (batch, side, side, side))
    reset_peak_rss()
    seconds = []
    for _ in range(2):
        start = time.perf_counter()
        optimizer.zero_grad(set_to_none=True)
        if spec["mode"] == "autocast":
            with torch.autocast("cpu", dtype=torch.bfloat16):
                logits = model(x)
        else:
            logits = model(x)
        loss_fn(logits.float(), target).backward()
        optimizer.step()
        seconds.append(time.perf_counter() - start)
    return {"torch": torch.__version__,
            "peak": read_status("VmHWM") - baseline, "seconds": seconds}


def torch_python(args):
    if args.torch_python:
        return args.torch_python
    return TORCH_VENV if os.access(TORCH_VENV, os.X_OK) else DEBIAN_PYTHON


def torch_point(args, python, name, mode, side):
    spec = {"model": name, "mode": mode, "side": side, "batch": args.batch,
            "loss": args.loss, "threads": args.threads}
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads),
               PYTHONPATH=os.pathsep.join(filter(None, [
                   os.path.join(BENCH, "..", "python"),
                   os.environ.get("PYTHONPATH")])))
    done = subprocess.run([python, os.path.abspath(__file__), "--worker",
                           json.dumps(spec)], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, env=env)
    if done.returncode:
        lines = done.stderr.strip().splitlines()
        raise SystemExit("volumetric: error: PyTorch %s %s at %d^3 failed: %s"
                         % (name, mode, side, lines[-1] if lines else
                            "exit %d" % done.returncode))
    return json.loads(done.stdout)


def linear_fit(points):
    """Least squares peak = a + b * voxels over [(voxels, peak)]."""
    n = len(points)
    mean_v = sum(v for v, _ in points) / n
    mean_p = sum(p for _, p in points) / n
    var = sum((v - mean_v) ** 2 for v, _ in points)
    b = sum((v - mean_v) * (p - mean_p) for v, p in points) / var
    return mean_p - b * mean_v, b


def torch_largest(a, b, batch, budget):
    """The largest side (a multiple of SIDE_STEP) whose extrapolated peak
    a + b * batch * side^3 fits `budget`."""
    side = 0
    while a + b * batch * (side + SIDE_STEP) ** 3 <= budget:
        side += SIDE_STEP
    return side


# ---------------------------------------------------------------------------
# memopt: plans.
# ---------------------------------------------------------------------------

class Planner:
    """memopt-compile --plan-only on one model at any side and batch, each
    (flags, side, batch, device, budget) planned at most once."""

    def __init__(self, args, name, work):
        self.args, self.name, self.work = args, name, work
        self.compiler = os.path.join(args.bin, "memopt-compile")
        self.exported = os.path.join(work, "%s.onnx" % name)
        self.files, self.done, self.plans = {}, {}, []

    def onnx(self, side, batch):
        """The model with a batch x 1 x side^3 input."""
        key = (side, batch)
        if key in self.files:
            return self.files[key]
        import onnx
        if not os.path.exists(self.exported):
            from memopt.export import export_model
            registry, kw, _ = MODELS[self.name]
            export_model(registry, self.exported, 1,
                         (1, EXPORT_SIDE, EXPORT_SIDE, EXPORT_SIDE), **kw)
        proto = onnx.load(self.exported)
        graph = proto.graph
        initializers = {i.name for i in graph.initializer}
        inputs = [v for v in graph.input if v.name not in initializers]
        dims = inputs[0].type.tensor_type.shape.dim
        for dim, value in zip(dims, (batch, 1, side, side, side)):
            dim.Clear()
            dim.dim_value = value
        del graph.value_info[:]
        # Every output is N x C x side^3 (logits, BatchNorm statistics have
        # no shape to change): the batch and the sides, the channels kept.
        for output in graph.output:
            out = output.type.tensor_type.shape.dim
            if len(out) == 5:
                for i, value in ((0, batch), (2, side), (3, side), (4, side)):
                    out[i].Clear()
                    out[i].dim_value = value
        # One file at a time: a 3-D model's weights are tens of MB.
        for old in self.files.values():
            os.remove(old)
        self.files.clear()
        path = os.path.join(self.work, "%s-%d-b%d.onnx" % (self.name, side,
                                                           batch))
        onnx.save(proto, path)
        self.files[key] = path
        return path

    def command(self, flags, side, batch, device, budget):
        return ([self.compiler, "%s-%d-b%d.onnx" % (self.name, side, batch)]
                + COMMON + ["--target=" + self.args.target,
                            "--loss=" + self.args.loss, "--device=" + device,
                            "--budget=%d" % budget] + flags)

    def plan(self, flags, side, batch, device, budget):
        """{fits, refused, report, seconds, flags, side}: refused is the
        reason memopt-compile gives when it cannot plan these flags."""
        key = (tuple(flags), side, batch, device, budget)
        if key in self.done:
            return self.done[key]
        report_path = os.path.join(self.work, "report.json")
        if os.path.exists(report_path):
            os.remove(report_path)
        command = self.command(flags, side, batch, device, budget)
        command[1] = self.onnx(side, batch)
        start = time.monotonic()
        done = subprocess.run(command + ["--report=" + report_path],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True)
        seconds = time.monotonic() - start
        result = {"flags": flags, "side": side, "batch": batch,
                  "seconds": seconds, "device": device, "fits": False,
                  "refused": None, "report": None}
        if os.path.exists(report_path):
            with open(report_path) as f:
                result["report"] = json.load(f)
        if done.returncode == 0:
            result["fits"] = True
        elif result["report"] is None:
            lines = [line for line in done.stderr.strip().splitlines()
                     if "error" in line] or done.stderr.strip().splitlines()
            reason = lines[-1] if lines else "exit %d" % done.returncode
            if "budget" not in reason:
                result["refused"] = reason.split("error: ", 1)[-1]
        self.done[key] = result
        self.plans.append(result)
        log("%s %s %d^3 batch %d: %s, %.1f s" % (
            self.name, " ".join(flags) or "(plain)", side, batch,
            "fits" if result["fits"] else
            "refused" if result["refused"] else "does not fit", seconds))
        return result

    def largest(self, flags, batch, device, budget, low=0):
        """The plan at the largest side that fits (None when none does, or
        the refusal), with `low` (in SIDE_STEP units) known to fit."""
        def fits(k):
            result = self.plan(flags, k * SIDE_STEP, batch, device, budget)
            if result["refused"]:
                raise Refused(result["refused"])
            return result["fits"]

        limit = self.args.max_side // SIDE_STEP
        good, bad, k = low, limit + 1, max(low * 2, 2)
        try:
            while k <= limit:
                if not fits(k):
                    bad = k
                    break
                good, k = k, k * 2
            while bad - good > 1:
                mid = (good + bad) // 2
                good, bad = (mid, bad) if fits(mid) else (good, mid)
        except Refused as refused:
            return {"refused": str(refused), "side": 0, "seconds": 0.0}
        if not good:
            return None
        result = self.plan(flags, good * SIDE_STEP, batch, device, budget)
        return dict(result, at_limit=good == limit)


class Refused(Exception):
    pass


def overhead(report):
    return (report["predicted_seconds"]["total"]
            / report["baseline_predicted_seconds"] - 1)


def plan_cells(result):
    """predicted peak, s/step, overhead, host memory of a fitting plan."""
    report = result["report"]
    return ("%.2f GiB" % (report["predicted_peak_bytes"] / GIB),
            "%.3f" % report["predicted_seconds"]["total"],
            "%.1f %%" % (100 * overhead(report)),
            "%.2f GiB" % (report.get("host_bytes", 0) / GIB))


def fit_cells(planner, args, side, extra):
    """`--fit=DEVICE --amp=auto` (plus `extra`) at `side`: what it chose,
    or why not."""
    command = planner.command(["--fit=" + args.device, "--amp=auto"] + extra,
                              side, args.batch, args.device, 0)
    command = [c for c in command if not c.startswith(("--device=",
                                                       "--budget="))]
    command[1] = planner.onnx(side, args.batch)
    report_path = os.path.join(planner.work, "fit.json")
    start = time.monotonic()
    done = subprocess.run(command + ["--report=" + report_path],
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    seconds = time.monotonic() - start
    if done.returncode:
        lines = done.stderr.strip().splitlines()
        return "fails: %s" % (lines[-1] if lines else done.returncode), seconds
    with open(report_path) as f:
        fit = json.load(f)["fit"]
    won = fit["candidates"][fit["winner"]]
    where = ("%d^3, " % fit["size"]) if "size" in fit else ""
    return ("%s%s, %.2f GiB, %.3f s/step (%d plans)" % (
        where, won["flags"] or "(plain)", won["predicted_peak_bytes"] / GIB,
        won["predicted_seconds"], fit["planned"]), seconds)


# ---------------------------------------------------------------------------
# The tables.
# ---------------------------------------------------------------------------

def memopt_table(args, planner, techniques):
    """Per technique, the largest patch; returns {technique: result}."""
    budget = size_bytes(args.budget)
    print("\n%s (%s), batch %d, --target=%s --device=%s --budget=%s, "
          "%s, SGD Nesterov 0.99, plan only" % (
              planner.name, MODELS[planner.name][2], args.batch, args.target,
              args.device, args.budget, args.loss))
    if args.target == "cpu":
        print("(--target=cpu: the CPU backend's plan, oneDNN's workspaces, "
              "costed on the %s profile; --target=cuda plans cuDNN's "
              "workspaces and refuses bf16 on a GPU without it)"
              % args.device)
    print("| technique | largest patch | voxels | predicted peak | s/step "
          "| overhead | host memory | plans | slowest plan s |")
    print("|---|---|---|---|---|---|---|---|---|")
    found = {}
    plain_k = 0
    for technique in techniques:
        flags = TECHNIQUES[technique]
        before = len(planner.plans)
        # Whatever fits plain fits with any technique that trades.
        low = plain_k if technique != "plain" and not any(
            f.startswith("--amp") for f in flags) else 0
        result = planner.largest(flags, args.batch, args.device, budget, low)
        found[technique] = result
        made = planner.plans[before:]
        slowest = max((p["seconds"] for p in made), default=0.0)
        if result is None:
            print("| %s | none: %d^3 does not fit | | | | | | %d | %.1f |" % (
                technique, 2 * SIDE_STEP, len(made), slowest))
        elif result["refused"]:
            print("| %s | refused: %s | | | | | | %d | %.1f |" % (
                technique, result["refused"], len(made), slowest))
        else:
            side = result["side"]
            if technique == "plain":
                plain_k = side // SIDE_STEP
            print("| %s | %d^3%s | %.1f M | %s | %s | %s | %s | %d | %.1f%s |"
                  % (technique, side, " (--max-side)" if result["at_limit"]
                     else "", args.batch * side ** 3 / 1e6,
                     *plan_cells(result), len(made), slowest,
                     " (> 10 s)" if slowest > SLOW_PLAN_SECONDS else ""))
        sys.stdout.flush()
    return found


def whole_table(args, planner, techniques):
    """The whole volume per technique; returns the plans that fit."""
    budget = size_bytes(args.whole_budget)
    device = "%s,memory=%s" % (args.device, args.whole_budget)
    side = args.whole
    print("\n%s, one %d^3 volume at batch %d, --device=%s --budget=%s"
          % (planner.name, side, args.whole_batch, device, args.whole_budget))
    print("| technique | fits | predicted peak | s/step | overhead "
          "| host memory | plan s |")
    print("|---|---|---|---|---|---|---|")
    fitting = {}
    for technique in techniques:
        r = planner.plan(TECHNIQUES[technique], side, args.whole_batch,
                         device, budget)
        if r["refused"]:
            print("| %s | refused: %s | | | | | %.1f |" % (
                technique, r["refused"], r["seconds"]))
        elif r["fits"]:
            fitting[technique] = r
            print("| %s | yes | %s | %s | %s | %s | %.1f%s |" % (
                technique, *plan_cells(r), r["seconds"],
                " (> 10 s)" if r["seconds"] > SLOW_PLAN_SECONDS else ""))
        else:
            peak = r["report"]["predicted_peak_bytes"] / GIB \
                if r["report"] else None
            print("| %s | no | %s | | | | %.1f |" % (
                technique, "%.2f GiB" % peak if peak else "-", r["seconds"]))
        sys.stdout.flush()
    return fitting


def torch_table(args, name):
    """PyTorch's measured points and extrapolated largest patch per mode:
    {mode: (side, fixed bytes, bytes per voxel)}."""
    python = torch_python(args)
    budget = size_bytes(args.budget)
    sides = [int(s) for s in args.torch_sides.split(",")]
    rows, largest, version = [], {}, ""
    for mode in args.torch_modes.split(","):
        points = []
        for side in sides:
            log("PyTorch %s %s %d^3 batch %d" % (name, mode, side,
                                                 args.batch))
            r = torch_point(args, python, name, mode, side)
            version = r["torch"]
            points.append((args.batch * side ** 3, r["peak"]))
            rows.append((mode, side, r))
        if len(points) > 1:
            a, b = linear_fit(points)
            largest[mode] = (torch_largest(a, b, args.batch, budget), a, b)
    print("\nPyTorch %s (%s), %s, batch %d, SGD Nesterov 0.99, %s, CPU "
          "total peak (resident set), %d threads" % (
              version, python, name, args.batch, args.loss, args.threads))
    print("| mode | patch | measured peak | step s (2nd) |")
    print("|---|---|---|---|")
    for mode, side, r in rows:
        print("| %s | %d^3 | %.2f GiB | %.1f |" % (
            mode, side, r["peak"] / GIB, r["seconds"][-1]))
    print("\nExtrapolated (linear in voxels from the points above, not "
          "measured) to %s:" % args.budget)
    print("| mode | fixed | per voxel | largest patch (extrapolated) | its "
          "peak (extrapolated) |")
    print("|---|---|---|---|---|")
    for mode, (side, a, b) in largest.items():
        print("| %s | %.2f GiB | %.0f B | %s | %.2f GiB |" % (
            mode, a / GIB, b, "%d^3" % side if side else "below 32^3",
            (a + b * args.batch * side ** 3) / GIB))
    sys.stdout.flush()
    return largest


def targets(args, name, found, torch_fits, whole, planner):
    """The issue's targets for this model."""
    print("\nTargets (%s):" % name)
    if "autocast" in torch_fits:
        autocast, a, b = torch_fits["autocast"]
        # The side at which autocast's extrapolated peak meets the budget.
        exact = ((size_bytes(args.budget) - a) / (b * args.batch)) ** (1 / 3)
        for scope, amp in (("any precision", True), ("f32", False)):
            # The largest side, then the least overhead, then the fewest
            # flags (remat+offload that only recomputes is remat's plan).
            within = [(r["side"], -overhead(r["report"]),
                       -len(r["flags"]), t)
                      for t, r in found.items() if r and not r["refused"]
                      and (amp or "--amp" not in " ".join(r["flags"]))
                      and overhead(r["report"]) <= args.max_overhead]
            if not within:
                print("- %s: no plan within %.0f %% overhead" % (
                    scope, 100 * args.max_overhead))
                continue
            side, _, _, technique = max(within)
            ratio = (side / autocast) ** 3 if autocast else float("inf")
            print("- %s, %s: %d^3 at %.1f %% predicted overhead against "
                  "PyTorch autocast's %d^3 (extrapolated): %.2fx the volume "
                  "(target >= 2x at <= %.0f %%): %s; against the %.0f^3 at "
                  "which autocast's extrapolated peak meets %s, %.2fx" % (
                      scope, technique, side,
                      100 * overhead(found[technique]["report"]), autocast,
                      ratio, 100 * args.max_overhead,
                      "met" if ratio >= 2 else "NOT met", exact, args.budget,
                      (side / exact) ** 3))
    if args.whole:
        print("- %d^3 at batch %d within %s: %s" % (
            args.whole, args.whole_batch, args.whole_budget,
            ", ".join("%s (%.1f %% overhead)" % (t, 100 * overhead(
                r["report"])) for t, r in whole.items()) or "NOT met"))
    slow = [p for p in planner.plans if p["seconds"] > SLOW_PLAN_SECONDS]
    print("- plans: %d, the slowest %.1f s (target < %.0f s): %s" % (
        len(planner.plans), max(p["seconds"] for p in planner.plans),
        SLOW_PLAN_SECONDS, "met" if not slow else "NOT met"))
    for p in slow:
        print("  - %.1f s: %d^3 batch %d --device=%s %s" % (
            p["seconds"], p["side"], p["batch"], p["device"],
            " ".join(p["flags"]) or "(plain)"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bin", default="build/bin", help="memopt tools")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--target", default="cuda", choices=("cuda", "cpu"),
                        help="memopt-compile --target (cpu: the CPU "
                        "backend's plan on the --device's rates)")
    parser.add_argument("--device", default="rtx2060")
    parser.add_argument("--loss", default="ce+dice", choices=LOSSES,
                        help="both sides' loss (ce+dice: nnU-Net's)")
    parser.add_argument("--budget", default="8GiB")
    parser.add_argument("--techniques", default=",".join(TECHNIQUES))
    parser.add_argument("--max-side", type=int, default=1024,
                        help="the largest side searched")
    parser.add_argument("--max-overhead", type=float, default=0.20,
                        help="the targets' overhead bound")
    parser.add_argument("--torch-sides", default="64,96",
                        help="PyTorch's measured patch sides")
    parser.add_argument("--torch-modes", default=",".join(TORCH_MODES))
    parser.add_argument("--torch-python", help="the interpreter for PyTorch")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--no-torch", action="store_true")
    parser.add_argument("--whole", type=int, default=256,
                        help="the whole volume's side (0: skip)")
    parser.add_argument("--whole-batch", type=int, default=1)
    parser.add_argument("--whole-budget", default="24GiB")
    parser.add_argument("--quick", action="store_true",
                        help="nnunet3d only, techniques " + QUICK_TECHNIQUES
                        + ", PyTorch autocast only")
    parser.add_argument("--dry", action="store_true",
                        help="print the commands of the first plans and "
                        "PyTorch points, run nothing")
    parser.add_argument("--workdir", help="keep the files here")
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(json.loads(args.worker))))
        return
    if args.quick:
        args.models = "nnunet3d"
        args.techniques = QUICK_TECHNIQUES
        args.torch_modes = "autocast"
    names = args.models.split(",")
    techniques = args.techniques.split(",")
    for what, given, known in (("model", names, MODELS),
                               ("technique", techniques, TECHNIQUES),
                               ("PyTorch mode", args.torch_modes.split(","),
                                TORCH_MODES)):
        for value in given:
            if value not in known:
                parser.error("unknown %s %r: choose from %s" % (
                    what, value, ", ".join(known)))
    if args.max_side % SIDE_STEP or args.max_side < 2 * SIDE_STEP:
        parser.error("--max-side must be a multiple of %d, at least %d"
                     % (SIDE_STEP, 2 * SIDE_STEP))
    size_bytes(args.budget)
    size_bytes(args.whole_budget)
    if args.dry:
        for name in names:
            planner = Planner(args, name, "WORKDIR")
            for technique in techniques:
                print(" ".join(planner.command(
                    TECHNIQUES[technique], 2 * SIDE_STEP, args.batch,
                    args.device, size_bytes(args.budget))))
            if not args.no_torch:
                for mode in args.torch_modes.split(","):
                    print("%s %s --worker '%s'" % (
                        torch_python(args), __file__, json.dumps({
                            "model": name, "mode": mode,
                            "side": int(args.torch_sides.split(",")[0]),
                            "batch": args.batch, "loss": args.loss,
                            "threads": args.threads})))
        return
    compiler = os.path.join(args.bin, "memopt-compile")
    if not os.access(compiler, os.X_OK):
        raise SystemExit("volumetric: error: no %s: build memopt "
                         "(scripts/build.sh) or pass --bin DIR" % compiler)
    work = args.workdir or tempfile.mkdtemp(prefix="memopt-volumetric-")
    os.makedirs(work, exist_ok=True)
    start = time.monotonic()
    for name in names:
        planner = Planner(args, name, work)
        found = memopt_table(args, planner, techniques)
        plain = found.get("plain")
        if plain and not plain["refused"]:
            cell, seconds = fit_cells(planner, args, plain["side"], [])
            print("\n`--fit=%s --amp=auto` at %d^3, batch %d: %s; %.1f s"
                  % (args.device, plain["side"], args.batch, cell, seconds))
            cell, seconds = fit_cells(planner, args, plain["side"],
                                      ["--maximize=size"])
            print("`--fit=%s --amp=auto --maximize=size`, batch %d: %s; "
                  "%.1f s" % (args.device, args.batch, cell, seconds))
        whole = whole_table(args, planner, techniques) if args.whole else {}
        torch_fits = {} if args.no_torch else torch_table(args, name)
        targets(args, name, found, torch_fits, whole, planner)
    log("done in %.0f s" % (time.monotonic() - start))


if __name__ == "__main__":
    main()
