#!/usr/bin/python3
"""Checks drop-path and drop-connect (seeded random ops) in a memopt binary.

The model is y = drop_connect(drop_path(w * x, keep_path), keep_connect)
with one scalar parameter w: timm's drop_path (x.div(keep) * a per-sample
Bernoulli(keep) mask, exported as RandomUniformLike + Less + Cast, or as
Bernoulli) and EfficientNet's drop_connect (x / keep * floor(keep + rand),
RandomUniformLike + Add + Floor). Inputs are ones, targets zeros, MSE loss,
plain SGD. With k the fraction of samples that both keep and
s = 1 / (keep_path * keep_connect),

    loss = w^2 s^2 k            (forward: the masks drawn this step)
    dloss/dw = 2 w s^2 k'       (backward: the masks it multiplies by)

so one step gives k from the reported loss and k' from the update. The
check requires k' = k (forward and backward use the same masks), k * batch
to be a whole number (a mask per sample, not per element), k within 4
standard deviations of keep_path * keep_connect, the same --seed to train
bit-identical weights and another seed other ones, a binary whose backward
recomputes the drop-path's random numbers (remat=auto under the smallest
budget it reaches) to train the same weight, later steps to draw other
masks, and a run resumed from a checkpoint to end bit-identical to an
uninterrupted one. In evaluation mode (--val-data) the masks are skipped,
as PyTorch's model.eval() skips them: the validation loss is PyTorch's,
w^2 for the trained w; a model whose random numbers are additive noise
instead has no evaluation step: its binary refuses --val-data with exit
status 2 and a line that names the random node.

    PYTHONPATH=python /usr/bin/python3 -m memopt.testing.check_droppath \\
        --memopt-compile build/bin/memopt-compile --workdir /tmp/droppath \\
        [--export-python ~/.cache/memopt/torch-venv/bin/python]

With --export-batch N the model is exported at batch N, its masks' shape
fixed at N ([N, 1, 1, 1]), and trained at --batch (memopt-compile --batch
re-derives the masks' shape; the numbers are those of a model exported at
--batch).

With --export-python the model is exported by that interpreter (the newest
PyTorch, whose default exporter writes timm's bernoulli_ as
RandomUniformLike + Less + CastLike); otherwise by this one. --target=cuda
compiles for the GPU: both backends draw the same numbers (Random.h), so
the kept fraction is the CPU's.
"""
import argparse
import filecmp
import json
import math
import os
import re
import shutil
import subprocess
import sys

import onnx

from memopt.testing.check_training import run
from memopt.testing.checklist import Checklist
from memopt.testing.seeded_runs import SeededRuns, trained_w, write_data


def make_model(keep_path, keep_connect, timm_form):
    import torch

    class DropPath(torch.nn.Module):
        def forward(self, x):
            if not self.training:  # as timm's, torchvision's, MONAI's
                return x
            shape = (x.shape[0],) + (1,) * (x.dim() - 1)
            if timm_form:  # timm's drop_path
                mask = x.new_empty(shape).bernoulli_(keep_path)
            else:  # what torch 1.13's TorchScript exporter can write
                mask = torch.bernoulli(x.new_full(shape, keep_path))
            return x.div(keep_path) * mask

    class DropConnect(torch.nn.Module):
        def forward(self, x):
            if not self.training:  # as EfficientNet's drop_connect
                return x
            shape = [x.shape[0]] + [1] * (x.dim() - 1)
            r = keep_connect + torch.rand(shape, dtype=x.dtype,
                                          device=x.device)
            return x / keep_connect * torch.floor(r)

    class Model(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.tensor([0.5]))
            self.path = DropPath()
            self.connect = DropConnect()

        def forward(self, x):
            return self.connect(self.path(x * self.w))

    return Model()


def torch_eval_loss(args, w):
    """PyTorch's model.eval() MSE loss of the model with parameter `w` on
    the check's data (ones against zeros), in float32."""
    import torch

    model = make_model(args.keep_path, args.keep_connect, timm_form=True)
    with torch.no_grad():
        model.w.fill_(w)
        model.eval()
        x = torch.ones(args.batch, 1, args.size, args.size)
        loss = torch.nn.functional.mse_loss(model(x), torch.zeros_like(x))
    return float(loss)


def export_noisy(path, args):
    """A model whose random numbers are additive noise, not a mask:
    w * x + U[0, 0.1) (RandomUniformLike + Mul + Add)."""
    import torch

    from memopt.onnx_export import export_training

    class Noisy(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(torch.tensor([0.5]))

        def forward(self, x):
            return x * self.w + 0.1 * torch.rand_like(x)

    export_training(Noisy(), torch.ones(args.batch, 1, args.size, args.size),
                    path)


def export_here(path, args):
    """Exports the model with this interpreter's default exporter."""
    import torch

    from memopt.onnx_export import export_training, resolve_exporter

    exporter = resolve_exporter("auto")
    model = make_model(args.keep_path, args.keep_connect,
                       timm_form=exporter == "torch.export")
    export_training(model,
                    torch.ones(args.export_batch, 1, args.size, args.size),
                    path, exporter=exporter)


def export(path, args):
    if not args.export_python:
        export_here(path, args)
        return
    run([args.export_python, "-m", "memopt.testing.check_droppath",
         "--export-to", path, "--batch", str(args.export_batch), "--size",
         str(args.size), "--keep-path", repr(args.keep_path),
         "--keep-connect", repr(args.keep_connect)])


def check(args):
    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    model = os.path.join(work, "droppath.onnx")
    export(model, args)
    # The training batch, where the export's differs.
    rebatch = ([] if args.export_batch == args.batch
               else ["--batch=%d" % args.batch])
    w0 = trained_w(model)
    ops = sorted({n.op_type for n in onnx.load(model).graph.node} &
                 {"RandomUniformLike", "RandomUniform", "Bernoulli", "Less",
                  "Floor"})
    print("random ops: %s" % ", ".join(ops))
    data = os.path.join(work, "data")
    write_data(data, args.batch, args.size)
    binary = os.path.join(work, "train")
    plan = os.path.join(work, "plan.json")
    target = "--target=" + args.target
    run([args.memopt_compile, model, "-o", binary, target, "--optimizer=sgd",
         "--lr=%r" % args.lr, "--report=" + plan] + rebatch)
    if rebatch:
        with open(plan) as f:
            randoms = json.load(f)["import"]["rebatched_randoms"]
        print("exported at batch %d, trained at %d: %d random ops re-derived"
              % (args.export_batch, args.batch, randoms))
    runs = SeededRuns(binary, data, work)
    train = runs.train

    checks = Checklist()
    expect = checks.expect

    out, losses = train("one-step", 1, args.seed)
    runs.expect_planned_peak(expect, plan, "one-step")
    w1 = trained_w(out)
    keep = args.keep_path * args.keep_connect
    scale = 1.0 / keep
    kept = losses[0] / (w0 * w0 * scale * scale)
    kept_backward = (w0 - w1) / args.lr / (2.0 * w0 * scale * scale)
    sigma = math.sqrt(keep * (1 - keep) / args.batch)
    print("kept samples: forward %.4f, backward %.4f, expected %.3f +- %.3f "
          "(%d samples)" % (kept, kept_backward, keep, 4 * sigma,
                            args.batch))
    expect(abs(kept - kept_backward) <= 1e-5 * kept,
           "backward multiplies by the forward's masks")
    expect(abs(kept * args.batch - round(kept * args.batch)) <= 1e-3,
           "each sample is kept or dropped whole")
    expect(abs(kept - keep) <= 4 * sigma, "kept fraction and scale")

    # Evaluation mode skips the masks: PyTorch's model.eval() loss of the
    # trained w.
    _, _ = train("validated", 1, args.seed, "--val-data", data)
    val_loss = runs.reports["validated"]["val_loss"][0]["loss"]
    torch_loss = torch_eval_loss(args, w1)
    print("validation loss: memopt %.9g, pytorch model.eval() %.9g"
          % (val_loss, torch_loss))
    expect(abs(val_loss - torch_loss) <= 1e-6 * torch_loss,
           "validation skips the masks, as PyTorch's model.eval()")

    again, _ = train("same-seed", 1, args.seed)
    expect(filecmp.cmp(out, again, shallow=False),
           "the same --seed trains bit-identical weights")
    other, _ = train("other-seed", 1, args.seed + 1)
    expect(trained_w(other) != w1, "another --seed draws other masks")

    # Under the smallest budget remat=auto reaches, the backward recomputes
    # the drop-path's random numbers: a clone of the op, same stream, same
    # numbers.
    remat = os.path.join(work, "train-remat")
    temps = os.path.join(work, "remat-temps")
    probe = subprocess.run([args.memopt_compile, model, "-o", remat, target,
                            "--budget=1", "--remat=auto"] + rebatch,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    budget = re.search(r"\(--budget=(\d+)\)", probe.stderr)
    if not budget:
        raise RuntimeError("no smallest budget in: " + probe.stderr)
    run([args.memopt_compile, model, "-o", remat, target, "--optimizer=sgd",
         "--lr=%r" % args.lr, "--remat=auto", "--budget=" + budget.group(1),
         "--save-temps=" + temps] + rebatch)
    planned = open(os.path.join(temps, "droppath.planned.mlir")).read()
    remat_out = os.path.join(work, "remat.onnx")
    run([remat, "--data", data, "--steps", "1", "--seed", str(args.seed),
         "--log-every", "0", "--out", remat_out])
    expect("tg.random_uniform {memopt.recompute" in planned and
           trained_w(remat_out) == w1,
           "a recomputed random op draws the forward's numbers")

    full, full_losses = train("uninterrupted", 4, args.seed)
    expect(any(abs(l / full_losses[0] - 1) > 1e-6 for l in full_losses[1:]),
           "later steps draw other masks")
    checkpoints = os.path.join(work, "checkpoints")
    train("first-half", 2, args.seed, "--checkpoint-dir", checkpoints)
    resumed, resumed_losses = train("resumed", 4, args.seed,
                                    "--checkpoint-dir", checkpoints,
                                    "--resume")
    expect(filecmp.cmp(full, resumed, shallow=False) and
           resumed_losses == full_losses,
           "a resumed run ends bit-identical to an uninterrupted one")

    # Additive noise: no evaluation step; the binary says why.
    noisy = os.path.join(work, "noisy.onnx")
    export_noisy(noisy, args)
    noisy_binary = os.path.join(work, "train-noisy")
    compiled = subprocess.run([args.memopt_compile, noisy, "-o", noisy_binary,
                               target], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    if compiled.returncode != 0:
        raise RuntimeError("memopt-compile of the noisy model failed: "
                           + compiled.stderr)
    refused = subprocess.run([noisy_binary, "--data", data, "--steps", "1",
                              "--val-data", data, "--log-every", "0",
                              "--out", os.path.join(work, "noisy-out.onnx")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True)
    lines = refused.stderr.strip().splitlines()
    print("additive noise: exit %d, %s" % (refused.returncode,
                                          lines[-1] if lines else ""))
    expect("warning: no evaluation step" in compiled.stderr and
           refused.returncode == 2 and len(lines) == 1 and
           "--val-data: node '" in lines[0] and
           "export the evaluation model without the random module" in
           lines[0],
           "additive noise: memopt-compile warns, --val-data is refused")
    return checks.finish()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memopt-compile")
    parser.add_argument("--workdir")
    parser.add_argument("--export-python",
                        help="the interpreter that exports the model")
    parser.add_argument("--export-to", help=argparse.SUPPRESS)
    parser.add_argument("--target", choices=("cpu", "cuda"), default="cpu",
                        help="the backend of the binaries")
    parser.add_argument("--keep-path", type=float, default=0.8)
    parser.add_argument("--keep-connect", type=float, default=0.75)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--export-batch", type=int,
                        help="export at this batch (default: --batch)")
    parser.add_argument("--size", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.25)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.export_batch is None:
        args.export_batch = args.batch
    if args.export_to:
        export_here(args.export_to, args)
        return 0
    if not args.memopt_compile or not args.workdir:
        parser.error("--memopt-compile and --workdir are required")
    try:
        return check(args)
    except (RuntimeError, ValueError, OSError) as e:
        print("check_droppath: error: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
