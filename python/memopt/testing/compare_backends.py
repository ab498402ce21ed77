#!/usr/bin/python3
"""Trains one model with memopt's CPU and CUDA backends and compares them.

Exports a registry model (fixed seed), writes the deterministic .npy data
set of check_training, compiles it twice (memopt-compile --target=cpu and
--target=cuda, same flags), trains both binaries for K steps with
--no-shuffle and checks:

- every trained initializer of --out (parameters, BatchNorm running
  statistics) and every step's loss agree within --tolerance (relative
  error ||cuda - cpu|| / ||cpu||, default 1e-4; TF32 is off unless --tf32);
- on each backend, the compile report's predicted_peak_bytes equals the
  run report's measured_peak_bytes (the runtime allocates exactly the
  plan: on CUDA, the high-water mark of its cudaMalloc calls). The CUDA
  run's driver_peak_bytes (cudaMemGetInfo: the CUDA context and the cuDNN
  and cuBLAS handles included) is printed beside it.

With --amp=bf16|fp16 both binaries are compiled with that mixed precision
(each backend's own low-precision kernels: oneDNN's bf16 primitives or
f16 through f32 copies on the CPU, cuDNN / cuBLAS / generated kernels on
bf16 / f16 tensors on the GPU). Two backends then round differently
(accumulation orders differ, and a 2-byte result can round to a
neighbour), so the criterion is the whole model's: every step's loss and
the relative error of all trained initializers taken together must be
within --tolerance; the worst single tensors are printed (a parameter
that starts at 0, a BatchNorm bias, has no norm to be relative to).

Needs a GPU. Exit status 0 on success, 1 on a mismatch.

    PYTHONPATH=python /usr/bin/python3 -m memopt.testing.compare_backends \\
        --memopt-compile build/bin/memopt-compile --model unet --base 8 \\
        --size 64 --batch 2 --steps 3 --workdir /tmp/backends

With --phase prepare it only exports, writes the data and compiles both
binaries into --workdir; --phase run (on the GPU machine, with that
workdir, no memopt-compile needed) trains and compares them
(memopt.testing.phases).
"""
import argparse
import json
import os
import shutil
import sys

import numpy as np
import onnx
from onnx import numpy_helper

from memopt import models
from memopt.export import export_model
from memopt.testing import phases
from memopt.testing.check_training import relative_error, run, write_dataset

TARGETS = ("cpu", "cuda")
# Options that only the run phase reads (phases.verify ignores them).
RUN_ONLY = ("tolerance", "tf32")


def compile_binary(args, onnx_path, target):
    """Compiles the model for `target` into workdir/target/train."""
    work = os.path.join(args.workdir, target)
    os.makedirs(work, exist_ok=True)
    amp = [] if args.amp == "none" else ["--amp=" + args.amp]
    run([args.memopt_compile, onnx_path, "-o", os.path.join(work, "train"),
         "--target=" + target, "--batch=%d" % args.batch,
         "--optimizer=" + args.optimizer, "--lr=%r" % args.lr,
         "--report=" + os.path.join(work, "compile.json")] + amp)


def train(args, data, target):
    """Trains the binary compiled for `target`; returns (initializers,
    compile report, run report)."""
    work = os.path.join(args.workdir, target)
    binary = os.path.join(work, "train")
    compile_report = os.path.join(work, "compile.json")
    out = os.path.join(work, "trained.onnx")
    run_report = os.path.join(work, "run.json")
    env = dict(os.environ, MEMOPT_ALLOW_TF32="1" if args.tf32 else "0")
    run([binary, "--data", data, "--steps", str(args.steps), "--no-shuffle",
         "--log-every", "0", "--out", out, "--report", run_report], env)
    trained = {i.name: numpy_helper.to_array(i)
               for i in onnx.load(out).graph.initializer}
    return (trained, json.load(open(compile_report)),
            json.load(open(run_report)))


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    phases.add_arguments(parser)
    parser.add_argument("--model", required=True, help=", ".join(models.MODELS))
    parser.add_argument("--base", type=int, help="classic U-Net base width")
    parser.add_argument("--size", type=int, default=64,
                        help="every spatial side: H = W, or D = H = W for "
                        "3-D models (L for 1-D ones)")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--optimizer", choices=("sgd", "adam", "adamw"),
                        default="sgd")
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--tolerance", type=float, default=1e-4)
    parser.add_argument("--tf32", action="store_true",
                        help="allow TF32 on the CUDA backend")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--amp", choices=("none", "bf16", "fp16"),
                        default="none",
                        help="mixed precision of both binaries (the "
                        "criterion becomes the whole model's)")
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args(argv)
    phases.check_arguments(parser, args)
    args.workdir = os.path.abspath(args.workdir)

    data = os.path.join(args.workdir, "data")
    if phases.compiles(args):
        os.makedirs(args.workdir, exist_ok=True)
        kwargs = {} if args.base is None else {"base": args.base}
        dims = models.spatial_dims(args.model)
        shape = (1,) + (args.size,) * dims
        onnx_path = os.path.join(args.workdir, "model.onnx")
        export_model(args.model, onnx_path, args.batch, shape,
                     seed=args.seed, **kwargs)
        shutil.rmtree(data, ignore_errors=True)
        # Smooth images are 2-D; volumes and signals are noise.
        write_dataset(data, args.batch * args.steps, shape, args.seed,
                      kind="smooth" if dims == 2 else "noise")
        for target in TARGETS:
            compile_binary(args, onnx_path, target)
        phases.save(args.workdir, args, RUN_ONLY)
    if not phases.runs(args):
        print("compare_backends: prepared %s; run it with --phase run"
              % args.workdir)
        return 0
    phases.verify(args.workdir, args, RUN_ONLY)

    results = {t: train(args, data, t) for t in TARGETS}
    failures = []
    for target, (_, compiled, ran) in results.items():
        predicted = compiled["predicted_peak_bytes"]
        measured = ran["measured_peak_bytes"]
        extra = ("" if "driver_peak_bytes" not in ran else
                 ", driver %d" % ran["driver_peak_bytes"])
        if "low_precision_convolutions" in ran:
            extra += ", convolutions " + ran["low_precision_convolutions"]
        print("%-4s peak: predicted %d, measured %d%s" % (target, predicted,
                                                         measured, extra))
        if predicted != measured:
            failures.append(target + " peak")

    cpu, cuda = results["cpu"][0], results["cuda"][0]
    rows = sorted(((relative_error(cuda[n], cpu[n]), n) for n in cpu),
                  reverse=True)
    print("trained initializers: %d compared, max relative error %.3g (%s)"
          % (len(rows), rows[0][0], rows[0][1]))
    per_tensor = args.amp == "none"
    if per_tensor:
        failures += [n for e, n in rows if not e <= args.tolerance]
    else:
        names = sorted(cpu)
        whole = relative_error(
            np.concatenate([np.ravel(cuda[n]) for n in names]),
            np.concatenate([np.ravel(cpu[n]) for n in names]))
        print("all trained initializers together: relative error %.3g"
              % whole)
        if not whole <= args.tolerance:
            failures.append("trained initializers")
    for e, n in rows[:5]:
        print("  %-10.3g %s%s" % (e, n, "  FAIL" if per_tensor and
                                  not e <= args.tolerance else ""))
    cpu_loss = results["cpu"][2]["loss"]
    cuda_loss = results["cuda"][2]["loss"]
    print("losses cpu  " + " ".join("%.9g" % v for v in cpu_loss))
    print("losses cuda " + " ".join("%.9g" % v for v in cuda_loss))
    for step, (a, b) in enumerate(zip(cuda_loss, cpu_loss)):
        if not relative_error([a], [b]) <= args.tolerance:
            failures.append("loss of step %d" % (step + 1))
    if len(cpu_loss) != len(cuda_loss):
        failures.append("number of losses")
    print("%s (cuda vs cpu relative error <= %g%s%s)"
          % ("FAIL: " + ", ".join(failures) if failures else "PASS",
             args.tolerance, ", TF32" if args.tf32 else "",
             "" if args.amp == "none" else ", --amp=" + args.amp))
    return 1 if failures else 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except (RuntimeError, ValueError, OSError) as e:
        print("compare_backends: error: %s" % e, file=sys.stderr)
        sys.exit(1)
