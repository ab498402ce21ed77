#!/usr/bin/python3
"""Checks mixed-precision training binaries (memopt-compile --amp) on the CPU.

Exports a registry model (fixed seed), writes a deterministic .npy data
set, compiles it three times with the same optimizer, --amp=none, bf16 and
fp16, trains each for --steps steps on the same batches (--no-shuffle) and
checks:

- the loss that each low-precision run ends with (the mean of the last
  --window step losses, which a single batch's noise would blur) is
  within --tolerance (default 5%) of the f32 run's, and with
  --step-tolerance every step's loss within that of the f32 run's step
  (the whole trajectory);
- every binary's measured peak (run report) equals memopt-compile's
  predicted peak (compile report): the bf16/f16 tensors are planned and
  allocated at their real size;
- the run report says how the low-precision convolutions ran (oneDNN's
  native bf16 primitives, or f32 copies: convert-compute-convert);
- --out writes f32 weights (the master weights) with the ONNX model's
  names and shapes;
- with --resume-steps N, a bf16 run of N steps interrupted after half of
  them and resumed from its checkpoint ends bit-identical (--out) to the
  uninterrupted one;
- with --overflow-steps N, fp16 dynamic loss scaling: the fp16 binary
  trains N steps from --initial-loss-scale 1e30, which overflows fp16 in
  every step's backward: each step is logged as skipped, the scale halves
  each time (the run report's loss_scale and skipped_steps), every
  parameter in --out is its initial value bit for bit (the BatchNorm
  running statistics move, as in PyTorch, whose forward updates them
  too), and a run resumed from a checkpoint written halfway ends with the
  same scale, count and --out as the uninterrupted one.

The model's input is 1 channel of --size along each of its spatial axes
(two for the 2-D models, three for the volumetric ones: models.spatial_dims).

The default learning rate is 1e-4: at 1e-3, Adam on the ResNet-34 U-Net
turns rounding-level differences into trajectories whose per-step losses
differ by up to 30% after 30 steps (bf16 then ends 10% below f32, fp16
6% above it), which says nothing about the precision.

Exit status 0 when every check passes, 1 otherwise, 2 for a bad command
line.

    PYTHONPATH=python /usr/bin/python3 -m memopt.testing.check_amp \\
        --memopt-compile build/bin/memopt-compile --workdir /tmp/amp \
        [--model resnet34-unet] [--size 64] [--steps 30] [--resume-steps 6]
"""
import argparse
import filecmp
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper

from memopt import models
from memopt.export import export_model
from memopt.testing.check_training import write_dataset

MODES = ("none", "bf16", "fp16")


def run(cmd, env=None):
    result = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout)
        raise RuntimeError("command failed (exit %d): %s"
                           % (result.returncode, " ".join(cmd)))
    return result.stdout


def train(binary, data, steps, out, report, env, extra=()):
    run([binary, "--data", data, "--steps", str(steps), "--no-shuffle",
         "--out", out, "--report", report, "--log-every", "0"] + list(extra),
        env=env)
    with open(report) as f:
        return json.load(f)


def check_overflow(args, work, data, env, model, check):
    """fp16 loss scaling on steps that all overflow (--overflow-steps)."""
    binary = os.path.join(work, "train-fp16")
    steps = args.overflow_steps
    scale = ["--initial-loss-scale", "1e30"]
    out = os.path.join(work, "overflow.onnx")
    log = run([binary, "--data", data, "--steps", str(steps), "--no-shuffle",
               "--out", out, "--report", os.path.join(work, "overflow.json"),
               "--log-every", "0"] + scale, env=env)
    with open(os.path.join(work, "overflow.json")) as f:
        report = json.load(f)
    skipped = [line for line in log.splitlines() if "update skipped" in line]
    print("\n".join(skipped[:2]))
    check(len(skipped) == steps and report["skipped_steps"] == steps,
          "fp16: every overflowing step is logged and counted as skipped")
    check(report["loss_scale"] == 1e30 * 0.5 ** steps,
          "fp16: the loss scale halves at each skipped step")
    initial = {i.name: numpy_helper.to_array(i)
               for i in model.graph.initializer}
    trained = {i.name: numpy_helper.to_array(i)
               for i in onnx.load(out).graph.initializer}
    params = [n for n in initial
              if not n.endswith(("running_mean", "running_var"))]
    check(all(np.array_equal(initial[n], trained[n]) for n in params),
          "fp16: the skipped steps leave all %d parameters untouched"
          % len(params))
    ckpt = os.path.join(work, "overflow-ckpt")
    shutil.rmtree(ckpt, ignore_errors=True)
    half = steps // 2
    train(binary, data, half, os.path.join(work, "overflow-a.onnx"),
          os.path.join(work, "overflow-a.json"), env,
          scale + ["--checkpoint-dir", ckpt, "--checkpoint-every", str(half)])
    resumed = os.path.join(work, "overflow-b.onnx")
    again = train(binary, data, steps, resumed,
                  os.path.join(work, "overflow-b.json"), env,
                  ["--checkpoint-dir", ckpt, "--resume"])
    check(again["loss_scale"] == report["loss_scale"] and
          again["skipped_steps"] == steps and
          filecmp.cmp(out, resumed, shallow=False),
          "fp16: the loss scale is checkpointed: a resumed run ends the same")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memopt-compile", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--model", default="resnet34-unet")
    parser.add_argument("--base", type=int, default=None,
                        help="classic U-Net base width")
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--samples", type=int, default=16)
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--window", type=int, default=10)
    parser.add_argument("--lr", type=float, default=1e-4)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--tolerance", type=float, default=0.05)
    parser.add_argument("--data", choices=("smooth", "noise"),
                        default="smooth",
                        help="the data set's images: smooth (2-D only) or "
                        "uniform noise (check_training.write_dataset)")
    parser.add_argument("--step-tolerance", type=float, default=0.0,
                        help="also check every step's loss within this "
                        "relative difference of the f32 run's (0: skip)")
    parser.add_argument("--overflow-steps", type=int, default=0,
                        help="also check fp16 loss scaling on this many "
                        "overflowing steps (0: skip)")
    parser.add_argument("--resume-steps", type=int, default=0,
                        help="also check that a bf16 run of this many "
                        "steps, interrupted halfway and resumed, ends "
                        "bit-identical (0: skip)")
    args = parser.parse_args(argv)
    if min(args.size, args.batch, args.steps, args.window, args.threads) < 1 \
            or args.window > args.steps or args.resume_steps in (1,) \
            or args.resume_steps < 0 or args.overflow_steps in (1,) \
            or args.overflow_steps < 0:
        parser.error("--size, --batch, --steps, --window and --threads must "
                     "be >= 1, --window at most --steps, --resume-steps and "
                     "--overflow-steps 0 or >= 2")
    if args.samples < args.batch:
        parser.error("--samples must be at least --batch")
    if args.model not in models.MODELS:
        parser.error("unknown --model %r; choose from %s"
                     % (args.model, ", ".join(models.MODELS)))
    if args.step_tolerance < 0:
        parser.error("--step-tolerance must be >= 0")
    dims = models.spatial_dims(args.model)
    if args.data == "smooth" and dims != 2:
        parser.error("--data smooth makes 2-D images; %s has %d spatial "
                     "axes: use --data noise" % (args.model, dims))
    shape = (1,) + (args.size,) * dims

    work = os.path.abspath(args.workdir)
    os.makedirs(work, exist_ok=True)
    onnx_path = os.path.join(work, "model.onnx")
    kwargs = {} if args.base is None else {"base": args.base}
    export_model(args.model, onnx_path, args.batch, shape, seed=args.seed,
                 **kwargs)
    data = os.path.join(work, "data")
    shutil.rmtree(data, ignore_errors=True)
    write_dataset(data, args.samples, shape, args.seed, kind=args.data)
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    model = onnx.load(onnx_path)
    names = {i.name: tuple(i.dims) for i in model.graph.initializer}

    failures = []

    def check(ok, message):
        print(("ok: " if ok else "FAIL: ") + message)
        if not ok:
            failures.append(message)

    final, trajectory = {}, {}
    for mode in MODES:
        binary = os.path.join(work, "train-" + mode)
        plan = os.path.join(work, "plan-%s.json" % mode)
        # Compiled for --threads: the binary runs on the compiler's count.
        run([args.memopt_compile, onnx_path, "-o", binary, "--optimizer=adam",
             "--lr=%g" % args.lr, "--amp=" + mode, "--report=" + plan], env)
        with open(plan) as f:
            predicted = json.load(f)["predicted_peak_bytes"]
        out = os.path.join(work, "trained-%s.onnx" % mode)
        report = train(binary, data, args.steps, out,
                       os.path.join(work, "run-%s.json" % mode), env)
        losses = report["loss"]
        trajectory[mode] = np.array(losses, dtype=np.float64)
        final[mode] = float(np.mean(losses[-args.window:]))
        print("%s: loss %.6f -> %.6f (mean of the last %d: %.6f), peak "
              "predicted %d measured %d, convolutions %s"
              % (mode, losses[0], losses[-1], args.window, final[mode],
                 predicted, report["measured_peak_bytes"],
                 report.get("low_precision_convolutions", "f32")))
        check(predicted == report["measured_peak_bytes"],
              "%s: measured peak = predicted peak" % mode)
        check(all(np.isfinite(losses)), "%s: every loss is finite" % mode)
        if mode != "none":
            check(report.get("low_precision_convolutions") in
                  ("onednn-native", "convert-compute-convert",
                   "onednn-native+convert-compute-convert"),
                  "%s: the run report names the convolutions' path" % mode)
        trained = onnx.load(out)
        check(all(i.data_type == onnx.TensorProto.FLOAT and
                  names.get(i.name) == tuple(i.dims)
                  for i in trained.graph.initializer) and
              len(trained.graph.initializer) == len(names),
              "%s: --out holds f32 weights of the model's shapes" % mode)

    for mode in ("bf16", "fp16"):
        error = abs(final[mode] - final["none"]) / final["none"]
        check(error <= args.tolerance,
              "%s ends within %g%% of f32's loss (%.2f%%)"
              % (mode, 100 * args.tolerance, 100 * error))
        if args.step_tolerance:
            steps = np.abs(trajectory[mode] - trajectory["none"]) / \
                np.abs(trajectory["none"])
            check(steps.max() <= args.step_tolerance,
                  "%s: every step's loss within %g%% of f32's (worst %.2f%% "
                  "at step %d)" % (mode, 100 * args.step_tolerance,
                                   100 * steps.max(), steps.argmax() + 1))

    if args.resume_steps:
        # Interrupted after half the steps, resumed from the checkpoint:
        # the same f32 master weights, optimizer state and step.
        binary = os.path.join(work, "train-bf16")
        half = max(1, args.resume_steps // 2)
        ckpt = os.path.join(work, "ckpt")
        shutil.rmtree(ckpt, ignore_errors=True)
        whole = os.path.join(work, "resume-whole.onnx")
        train(binary, data, args.resume_steps, whole,
              os.path.join(work, "resume-whole.json"), env)
        part = os.path.join(work, "resume-part.onnx")
        train(binary, data, half, part, os.path.join(work, "resume-a.json"),
              env, ["--checkpoint-dir", ckpt, "--checkpoint-every",
                    str(half)])
        resumed = os.path.join(work, "resume-resumed.onnx")
        train(binary, data, args.resume_steps, resumed,
              os.path.join(work, "resume-b.json"), env,
              ["--checkpoint-dir", ckpt, "--resume"])
        check(filecmp.cmp(whole, resumed, shallow=False),
              "bf16: a resumed run ends bit-identical to an uninterrupted "
              "one")

    if args.overflow_steps:
        check_overflow(args, work, data, env, model, check)

    print("PASS" if not failures else "FAILED: %d check(s)" % len(failures))
    return 0 if not failures else 1


if __name__ == "__main__":
    sys.exit(main())
