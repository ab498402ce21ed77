#!/usr/bin/python3
"""Checks training-mode Dropout in a memopt training binary.

PyTorch's random numbers cannot be reproduced, so the check uses a model
whose loss and gradient reveal the mask: y = dropout(w * x, p) with one
scalar parameter w, inputs of ones and targets of zeros, MSE loss, plain
SGD. With k the fraction of kept elements and s = 1 / (1 - p) their scale,

    loss = w^2 s^2 k            (forward: the mask drawn this step)
    dloss/dw = 2 w s^2 k'       (backward: the mask it multiplies by)

so one step gives k from the reported loss and k' from the update
w1 = w0 - lr * dloss/dw. The check requires k' = k (backward uses the
forward's mask) to float rounding, k within 4 standard deviations of 1 - p
(the keep fraction and the 1 / (1 - p) scale: without the scale, k would
come out as (1 - p)^3), the same --seed to give the same trained model and
another seed another one, step 2 to keep another fraction than step 1 (a
new mask per step), a run resumed from a checkpoint to end bit-identical to
an uninterrupted one, and a resume under another --seed to be refused (even
without shuffling: the seed draws the masks).

    PYTHONPATH=python /usr/bin/python3 -m memopt.testing.check_dropout \\
        --memopt-compile build/bin/memopt-compile --workdir /tmp/dropout
"""
import argparse
import filecmp
import math
import os
import shutil
import subprocess
import sys
import warnings

import torch
import torch.nn.functional as F

from memopt.testing.check_training import run
from memopt.testing.checklist import Checklist
from memopt.testing.seeded_runs import SeededRuns, trained_w, write_data


class ScaledDropout(torch.nn.Module):
    def __init__(self, ratio):
        super().__init__()
        self.ratio = ratio
        self.w = torch.nn.Parameter(torch.tensor([0.5]))

    def forward(self, x):
        return F.dropout(x * self.w, self.ratio, training=True)


def export(path, ratio, batch, size):
    model = ScaledDropout(ratio).train()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        torch.onnx.export(model, torch.ones(batch, 1, size, size), path,
                          training=torch.onnx.TrainingMode.TRAINING,
                          opset_version=17, input_names=["input"],
                          output_names=["output"], do_constant_folding=False)
    return float(model.w.item())


def check(args):
    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    model = os.path.join(work, "dropout.onnx")
    w0 = export(model, args.ratio, args.batch, args.size)
    data = os.path.join(work, "data")
    write_data(data, args.batch, args.size)
    binary = os.path.join(work, "train")
    plan = os.path.join(work, "plan.json")
    run([args.memopt_compile, model, "-o", binary, "--optimizer=sgd",
         "--lr=%r" % args.lr, "--report=" + plan])
    runs = SeededRuns(binary, data, work)
    train = runs.train

    checks = Checklist()
    expect = checks.expect

    out, losses = train("one-step", 1, args.seed)
    # The seed argument lives in device memory on the CPU: the plan counts
    # its 8 bytes.
    runs.expect_planned_peak(expect, plan, "one-step")
    w1 = trained_w(out)
    scale = 1.0 / (1.0 - args.ratio)
    kept = losses[0] / (w0 * w0 * scale * scale)
    grad = (w0 - w1) / args.lr
    kept_backward = grad / (2.0 * w0 * scale * scale)
    n = args.batch * args.size * args.size
    sigma = math.sqrt(args.ratio * (1 - args.ratio) / n)
    print("keep fraction: forward %.6f, backward %.6f, expected %.3f "
          "+- %.4f (%d elements)" % (kept, kept_backward, 1 - args.ratio,
                                      4 * sigma, n))
    expect(abs(kept - kept_backward) <= 1e-5 * kept,
           "backward multiplies by the forward's mask")
    expect(abs(kept - (1 - args.ratio)) <= 4 * sigma,
           "keep fraction and 1 / (1 - ratio) scale")

    again, _ = train("same-seed", 1, args.seed)
    expect(filecmp.cmp(out, again, shallow=False),
           "the same --seed trains the same model")
    other, _ = train("other-seed", 1, args.seed + 1)
    expect(trained_w(other) != w1, "another --seed draws another mask")

    full, full_losses = train("uninterrupted", 4, args.seed)
    kept_step2 = full_losses[1] / (w1 * w1 * scale * scale)
    print("keep fraction of step 2: %.6f" % kept_step2)
    expect(abs(kept_step2 - kept) > 1e-5 * kept,
           "step 2 draws another mask than step 1")
    checkpoints = os.path.join(work, "checkpoints")
    train("first-half", 2, args.seed, "--checkpoint-dir", checkpoints)
    resumed, resumed_losses = train("resumed", 4, args.seed,
                                    "--checkpoint-dir", checkpoints,
                                    "--resume")
    expect(filecmp.cmp(full, resumed, shallow=False) and
           resumed_losses == full_losses,
           "a resumed run ends bit-identical to an uninterrupted one")

    # Without shuffling the seed still draws the masks: resuming under
    # another one is refused.
    sorted_checkpoints = os.path.join(work, "sorted-checkpoints")
    train("sorted", 2, args.seed, "--no-shuffle", "--checkpoint-dir",
          sorted_checkpoints)
    refused = subprocess.run(
        [binary, "--data", data, "--steps", "4", "--seed",
         str(args.seed + 1), "--no-shuffle", "--out",
         os.path.join(work, "refused.onnx"), "--checkpoint-dir",
         sorted_checkpoints, "--resume"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    expect(refused.returncode == 1 and
           "with --no-shuffle with --seed %d; resume with the same" % args.seed
           in refused.stderr,
           "resuming under another --seed is refused")
    return checks.finish()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memopt-compile", required=True)
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--ratio", type=float, default=0.5)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.25)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return check(args)
    except (RuntimeError, ValueError, OSError) as e:
        print("check_dropout: error: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
