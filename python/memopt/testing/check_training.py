#!/usr/bin/python3
"""Checks a memopt training binary against the same training in PyTorch.

Exports a registry model (fixed seed), writes a deterministic .npy data set,
compiles it with memopt-compile, trains the binary for K steps with
--no-shuffle, trains the same PyTorch module from the same initial values
(the exported ONNX initializers, BatchNorm in training mode, the same loss
with mean reduction, torch.optim with the same hyperparameters, the same
batches in the same order) and compares, per tensor, by relative error
||a - b|| / ||b|| (float64 norms):

- every trained initializer of the binary's --out (parameters and BatchNorm
  running_mean / running_var) against PyTorch's state_dict;
- the per-step losses of the run report against PyTorch's.

The losses are memopt.losses' references (with --deep-supervision wrapped
as nnU-Net wraps them); --loss ms-ssim and ms-ssim+l1
take pytorch_msssim's (pytorch-msssim 1.0.0, which scripts/install-deps.sh
installs) and need images above 160 pixels a side.

With --val-samples N the binary also validates (--val-data) on N further
samples after its last step, and the validation loss of its run report is
compared with PyTorch's under model.eval() (BatchNorm on its running
statistics, no dropout) with the binary's trained weights and statistics
loaded from --out: the mean over the batches, in sorted order, of the
batch losses, within --val-tolerance (default 1e-5) relative.

With --gradients it checks one step's gradients instead. The binary does
not expose gradients, so the check compiles plain SGD (no momentum, no
weight decay) with a large learning rate lr = 2^k (default 1024) and takes
g = (w0 - w1) / lr. Because lr is a power of two, lr * g is exact in float
and so is the division by lr; the only rounding is that of the update
w1 = fl(w0 - lr * g), at most half an ulp of w1, so the derived gradient
is off by at most 2^-24 * max(|w0| / lr, |g|) per element: about 6e-8
relative for gradients above |w0| / lr. With lr = 1 that bound would be
2^-24 * |w0| / |g|, too coarse for weights whose gradients are 1e-3 of
their size. PyTorch's reference is .grad after one backward; the BatchNorm
running statistics of that step (which do not depend on lr) and the loss
are compared too.

With --microbatches M the binary is compiled with --microbatches=M and
PyTorch accumulates gradients: per step, M backwards of each microbatch's
mean loss / M (BatchNorm in training mode on each microbatch, its running
statistics updated M times), then one optimizer step; the logged loss is
the sum of the M parts.

Exit status 0 when every error is at most --tolerance (default 1e-4); 1
otherwise, listing the worst tensors; 2 for a bad command line.

--float64 also trains PyTorch in float64 and takes that as the reference:
a tensor passes when memopt's error against it is at most
max(--tolerance, --factor x PyTorch float32's own error against it)
(factor 4 by default), PyTorch float32's error being the largest of its
plain run and of --perturbed runs (default 8) from initial weights moved by
one float32 rounding (w * (1 +- 2^-24), random signs): the spread of
float32 training under rounding-level changes, which is what any other
order of float32 operations amounts to. Two float32 implementations cannot be expected to
agree to 1e-4 where float32 itself is further than that from the exact
result, and in these networks it often is: training-mode BatchNorm makes
the ResNet-34 U-Net's gradients at initialization ill-conditioned (float64
gradients move by 1% when the weights move by one float32 rounding), and
after a few steps a single ReLU or max-pool decision taken on the other
side of a near-tie (a pre-activation of 1e-6) changes whole tensors by
1e-3 and more, in memopt or in PyTorch. The printout then shows both
errors per tensor. docs/user-guide.md ("Verifying against PyTorch") has
the measurements.

    PYTHONPATH=python /usr/bin/python3 -m memopt.testing.check_training \\
        --memopt-compile build/bin/memopt-compile --model unet --base 8 \\
        --size 64 --batch 2 --steps 3 --optimizer sgd --lr 0.01 \\
        --momentum 0.9 --workdir /tmp/check

--phase prepare / --phase run split this in two (memopt.testing.phases):
compile here, run and compare on a machine without memopt-compile (a GPU
machine), with the workdir copied over; the options of both calls must
agree, those of the reference (--torch-device, --tolerance, --float64, ...)
aside.
"""
import argparse
import collections
import json
import os
import re
import shlex
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import numpy_helper
import torch
import torch.nn.functional as F

from memopt import models
from memopt.export import export_model
from memopt.losses import (LABEL_MAP_LOSSES, cross_entropy_loss, dice_ce_loss,
                           dice_loss, deep_supervision_loss,
                           deep_supervision_weights, ms_ssim_l1_loss,
                           ms_ssim_loss)
from memopt.make_dataset import smooth_image
from memopt.onnx_export import EXPORTERS
from memopt.testing import phases

LOSSES = {"mse": F.mse_loss, "l1": F.l1_loss, "bce": F.binary_cross_entropy,
          "ce": cross_entropy_loss, "dice": dice_loss, "ce+dice": dice_ce_loss,
          "ms-ssim": ms_ssim_loss, "ms-ssim+l1": ms_ssim_l1_loss}


def loss_function(args):
    """The loss of the model's output against the target: --loss, or with
    --deep-supervision nnU-Net's DeepSupervisionWrapper around it."""
    loss_fn = LOSSES[args.loss]
    if not args.deep_supervision:
        return loss_fn

    def wrapped(outputs, target):
        weights = deep_supervision_weights(args.deep_supervision, len(outputs))
        return deep_supervision_loss(loss_fn, outputs, target, weights,
                                     args.loss in LABEL_MAP_LOSSES)
    return wrapped


def relative_error(a, b):
    """||a - b|| / ||b|| in float64; 0 when equal, inf when only b is 0."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    diff = np.linalg.norm((a - b).ravel())
    if diff == 0:
        return 0.0
    norm = np.linalg.norm(b.ravel())
    return diff / norm if norm > 0 else float("inf")


def write_dataset(directory, count, shape, seed, kind="smooth", classes=0):
    """`count` (input, target) pairs. "smooth": as memopt.make_dataset,
    smooth images in [0, 1] and their contrast-stretched versions (in
    [0, 1], so BCE applies); "noise": uniform noise in [0, 1], contrast-
    stretched the same way. With `classes` > 0 the targets are label maps
    (H, W) instead: the image's intensity quantized into that many classes,
    saved as uint8 .npy. Returns the arrays in the trainer's (sorted)
    order."""
    rng = np.random.default_rng(seed)
    inputs, targets = [], []
    for sub in ("inputs", "targets"):
        os.makedirs(os.path.join(directory, sub), exist_ok=True)
    for i in range(count):
        image = (smooth_image(rng, shape) if kind == "smooth"
                 else rng.random(shape))
        target = np.clip((image - image.mean()) * 2.0 + 0.5, 0.0, 1.0)
        image = np.ascontiguousarray(image, dtype=np.float32)
        if classes:
            target = np.ascontiguousarray(np.minimum(
                (target[0] * classes).astype(np.uint8), classes - 1))
        else:
            target = np.ascontiguousarray(target, dtype=np.float32)
        name = "sample%04d.npy" % i
        np.save(os.path.join(directory, "inputs", name), image)
        np.save(os.path.join(directory, "targets", name), target)
        inputs.append(image)
        targets.append(target)
    return np.stack(inputs), np.stack(targets)


def compile_flags(args):
    """memopt-compile's optimizer and loss flags for `args`."""
    flags = ["--target=" + args.target,
             "--batch=%d" % args.batch, "--loss=" + args.loss,
             "--optimizer=" + args.optimizer, "--lr=%r" % args.lr,
             "--weight-decay=%r" % args.weight_decay]
    if args.microbatches > 1:
        flags.append("--microbatches=%d" % args.microbatches)
    if args.deep_supervision:
        flags.append("--deep-supervision=" + args.deep_supervision)
    if args.optimizer == "sgd":
        flags += ["--momentum=%r" % args.momentum,
                  "--dampening=%r" % args.dampening,
                  "--nesterov=" + ("true" if args.nesterov else "false")]
    else:
        flags += ["--beta1=%r" % args.beta1, "--beta2=%r" % args.beta2,
                  "--eps=%r" % args.eps]
    return flags


def make_optimizer(args, params):
    if args.optimizer == "sgd":
        return torch.optim.SGD(params, lr=args.lr, momentum=args.momentum,
                               dampening=args.dampening,
                               nesterov=args.nesterov,
                               weight_decay=args.weight_decay)
    cls = torch.optim.Adam if args.optimizer == "adam" else torch.optim.AdamW
    return cls(params, lr=args.lr, betas=(args.beta1, args.beta2),
               eps=args.eps, weight_decay=args.weight_decay)


def model_kwargs(args):
    kw = {"in_channels": args.input_shape[0]}
    if args.base is not None:
        kw["base"] = args.base
    if args.depth is not None:
        kw["depth"] = args.depth
    return models.sized_arguments(args.model, args.input_shape, **kw)


def torch_training(args, initial, inputs, targets):
    """Trains the PyTorch model for args.steps steps (1 with --gradients).

    Returns (losses, state_dict as numpy, gradients by name or None)."""
    torch.manual_seed(args.seed)
    device = torch.device(args.torch_device)
    model = models.build(args.model, **model_kwargs(args))
    state = model.state_dict()
    with torch.no_grad():
        for name, tensor in state.items():
            if name in initial:
                tensor.copy_(torch.from_numpy(initial[name]))
    model.to(device)
    model.train()
    optimizer = make_optimizer(args, model.parameters())
    loss_fn = loss_function(args)
    losses = []
    for step in range(args.steps):
        index = [(step * args.batch + j) % len(inputs)
                 for j in range(args.batch)]
        x = torch.from_numpy(inputs[index]).to(device)
        t = torch.from_numpy(targets[index]).to(device)
        optimizer.zero_grad(set_to_none=True)
        # Gradient accumulation over --microbatches: each microbatch's mean
        # loss / M, BatchNorm on each microbatch's statistics (its running
        # statistics updated once per microbatch), one optimizer step.
        loss = 0.0
        for x_part, t_part in zip(x.chunk(args.microbatches),
                                  t.chunk(args.microbatches)):
            part = loss_fn(model(x_part), t_part) / args.microbatches
            part.backward()
            loss = loss + part.detach()
        losses.append(float(loss))
        if args.gradients:
            grads = {n: p.grad.detach().double().cpu().numpy().copy()
                     for n, p in model.named_parameters() if p.grad is not None}
            stats = {n: t.detach().cpu().numpy().copy()
                     for n, t in model.state_dict().items()
                     if "running_" in n}
            return losses, stats, grads
        optimizer.step()
    final = {n: t.detach().cpu().numpy().copy()
             for n, t in model.state_dict().items()}
    return losses, final, None


def untouched_by_torch(args, names, trained):
    """The `names` whose PyTorch-trained value in `trained` is still the
    value the model was built with (same seed as torch_training)."""
    if not names:
        return set()
    torch.manual_seed(args.seed)
    built = models.build(args.model, **model_kwargs(args)).state_dict()
    return {n for n in names
            if n in built and np.array_equal(built[n].numpy(), trained[n])}


def torch_validation(args, trained, inputs, targets):
    """The loss of model.eval() with the `trained` state over the batches
    of (inputs, targets), averaged as the trainer does."""
    model = models.build(args.model, **model_kwargs(args))
    with torch.no_grad():
        for name, tensor in model.state_dict().items():
            if name in trained:
                tensor.copy_(torch.from_numpy(trained[name].copy()))
        model.eval()
        loss_fn = loss_function(args)
        batches = len(inputs) // args.batch
        total = 0.0
        for b in range(batches):
            index = slice(b * args.batch, (b + 1) * args.batch)
            x = torch.from_numpy(inputs[index])
            t = torch.from_numpy(targets[index])
            total += float(np.float32(loss_fn(model(x), t).item()))
    return total / batches


def check_validation(args, report, trained, inputs, targets):
    """Compares the run report's validation loss with PyTorch's; returns
    the failures."""
    reported = report.get("val_loss", [])
    if len(reported) != 1:
        print("  FAIL: %d validation losses in the run report, 1 expected"
              % len(reported))
        return ["validation"]
    memopt_loss = reported[0]["loss"]
    torch_loss = torch_validation(args, trained, inputs, targets)
    error = abs(memopt_loss - torch_loss) / abs(torch_loss)
    failed = not error <= args.val_tolerance
    print("validation loss memopt %.9g pytorch model.eval() %.9g relative "
          "error %.3g%s" % (memopt_loss, torch_loss, error,
                            "  FAIL" if failed else ""))
    return ["validation"] if failed else []


def run(cmd, env=None):
    result = subprocess.run(cmd, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0:
        sys.stderr.write(result.stdout)
        raise RuntimeError("command failed (exit %d): %s"
                           % (result.returncode, " ".join(cmd)))
    return result.stdout


def describe(args):
    model = args.model + ("" if args.base is None else " base %d" % args.base)
    shape = "x".join(map(str, args.input_shape))
    if args.gradients:
        opt = "one-step gradients (sgd lr=%g)" % args.lr
    elif args.optimizer == "sgd":
        opt = "sgd lr=%g momentum=%g dampening=%g nesterov=%s wd=%g" % (
            args.lr, args.momentum, args.dampening, args.nesterov,
            args.weight_decay)
    else:
        opt = "%s lr=%g betas=(%g, %g) eps=%g wd=%g" % (
            args.optimizer, args.lr, args.beta1, args.beta2, args.eps,
            args.weight_decay)
    loss = args.loss + (" deep-supervision=" + args.deep_supervision
                        if args.deep_supervision else "")
    return "%s %s batch %d, %s, %s loss, %d step%s" % (
        model, shape, args.batch, opt, loss, args.steps,
        "" if args.steps == 1 else "s")


def compare(label, memopt, torch32, torch64, args, perturbed=()):
    """Compares `memopt` with PyTorch per tensor (dicts name -> array, over
    torch32's names); prints the largest errors. Returns the failures.

    Without --float64 (torch64 None) a tensor fails when its error against
    PyTorch float32 exceeds --tolerance. With it the reference is PyTorch
    float64: memopt's error e_m against it may reach max(tolerance,
    factor * e_t), e_t being PyTorch float32's own error (the largest over
    its plain run and the `perturbed` runs), the noise floor of float32 on
    this problem."""
    rows = []
    for name in torch32:
        e32 = relative_error(memopt[name], torch32[name])
        if torch64 is None:
            rows.append((e32 / args.tolerance, name, e32, None, None))
        else:
            em = relative_error(memopt[name], torch64[name])
            et = max(relative_error(run[name], torch64[name])
                     for run in [torch32] + list(perturbed))
            bound = max(args.tolerance, args.factor * et)
            rows.append((em / bound, name, e32, em, et))
    rows.sort(key=lambda r: -r[0])
    top32 = max(rows, key=lambda r: r[2])
    if torch64 is None:
        print("%s: %d compared, max relative error %.3g (%s)"
              % (label, len(rows), top32[2], top32[1]))
        for score, name, e32, _, _ in rows[:args.worst]:
            print("  %-10.3g %s%s" % (e32, name, "  FAIL" if score > 1 else ""))
    else:
        topm = max(rows, key=lambda r: r[3])
        topt = max(rows, key=lambda r: r[4])
        print("%s: %d compared, max relative error vs PyTorch float64: memopt "
              "%.3g (%s), PyTorch float32 %.3g (%s); memopt vs PyTorch "
              "float32 %.3g" % (label, len(rows), topm[3], topm[1], topt[4],
                                topt[1], top32[2]))
        print("  %-10s %-10s %s" % ("memopt", "float32", "(errors vs float64)"))
        for score, name, _, em, et in rows[:args.worst]:
            print("  %-10.3g %-10.3g %s%s" % (em, et, name,
                                             "  FAIL" if score > 1 else ""))
    return [r[1] for r in rows if not r[0] <= 1]


# Options that only the run phase reads: a workdir prepared with other
# values of these serves (phases.verify ignores them).
RUN_ONLY = ("torch_device", "tf32", "threads", "tolerance", "float64",
            "factor", "perturbed", "worst", "val_tolerance")


def export(args, onnx_path):
    """Exports the model with --exporter, in this interpreter or, with
    --export-python, in that one (the newest PyTorch, in its own venv)."""
    if not args.export_python:
        export_model(args.model, onnx_path, args.batch, args.input_shape,
                     seed=args.seed, exporter=args.exporter,
                     **model_kwargs(args))
        return
    kw = model_kwargs(args)
    flags = ["--%s=%d" % (k, kw[k]) for k in ("base", "depth") if k in kw]
    run([args.export_python, "-m", "memopt.export", "--model", args.model,
         "--batch", str(args.batch), "--input-shape",
         ",".join(map(str, args.input_shape)), "--seed", str(args.seed),
         "--exporter", args.exporter, "-o", onnx_path] + flags)


def prepare(args, work, onnx_path, data, val_data, binary):
    """Exports the model, writes the data sets and compiles the binary."""
    export(args, onnx_path)
    # The targets of ce, and of dice over several channels, are label maps
    # of as many classes as the output has channels.
    output_dims = onnx.load(onnx_path).graph.output[0].type.tensor_type.shape.dim
    channels = output_dims[1].dim_value
    classes = channels if args.loss in ("ce", "ce+dice") or (
        args.loss == "dice" and channels > 1) else 0
    samples = args.samples or args.batch * args.steps
    shutil.rmtree(data, ignore_errors=True)
    write_dataset(data, samples, args.input_shape, args.seed, args.data,
                  classes)
    if args.val_samples:
        shutil.rmtree(val_data, ignore_errors=True)
        write_dataset(val_data, args.val_samples, args.input_shape,
                      args.seed + 1, args.data, classes)
    # The binary runs its kernels on the compiler's thread count (the
    # workspaces are sized for it): compile with --threads too.
    compile_env = dict(os.environ)
    if args.threads:
        compile_env["OMP_NUM_THREADS"] = str(args.threads)
    flags = compile_flags(args) + memory_flags(args, onnx_path, compile_env)
    run([args.memopt_compile, onnx_path, "-o", binary,
         "--report=" + binary + ".compile.json"] + flags, compile_env)
    phases.save(work, args, RUN_ONLY)


def memory_flags(args, onnx_path, env):
    """--memory's flags, with --smallest-budget the smallest --budget they
    reach (the one memopt-compile's refusal of a one-byte budget names)."""
    flags = shlex.split(args.memory or "")
    if not args.smallest_budget:
        return flags
    refused = subprocess.run(
        [args.memopt_compile, onnx_path, "--plan-only", "--budget=1"]
        + compile_flags(args) + flags, env=env, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE, text=True)
    found = re.search(r"\(--budget=(\d+)[;)]", refused.stderr)
    if not found:
        raise RuntimeError("no smallest budget in: " + refused.stderr)
    return flags + ["--budget=" + found.group(1)]


def check_memory(args, binary, run_report):
    """With --memory: the plan's decisions and its predicted peak, which
    the run must have measured."""
    if not args.memory and not args.smallest_budget:
        return []
    compiled = json.load(open(binary + ".compile.json"))
    kinds = collections.Counter(d["decision"] for d in compiled["decisions"])
    print("memory: %s%s: %s" % (
        args.memory or "", " at the smallest budget" if args.smallest_budget
        else "", ", ".join("%d %s" % (n, k) for k, n in sorted(kinds.items()))
        or "no decisions"))
    predicted = compiled["predicted_peak_bytes"]
    measured = run_report["measured_peak_bytes"]
    if predicted != measured:
        print("  FAIL: measured peak %d != predicted %d" % (measured,
                                                           predicted))
        return ["peak"]
    print("memory: measured peak = predicted peak (%d bytes)" % measured)
    return []


def check(args):
    work = os.path.abspath(args.workdir)
    onnx_path = os.path.join(work, "model.onnx")
    data = os.path.join(work, "data")
    val_data = os.path.join(work, "val")
    binary = os.path.join(work, "train")
    if phases.compiles(args):
        os.makedirs(work, exist_ok=True)
        prepare(args, work, onnx_path, data, val_data, binary)
    if not phases.runs(args):
        print("check_training: prepared %s; run it with --phase run"
              % work)
        return 0
    phases.verify(work, args, RUN_ONLY)
    # The binary's weights file: the initializers as memopt trains them
    # (parameters a torch.export optimizer folded are unfolded there).
    weights = binary + ".weights.onnx"
    initial = {i.name: numpy_helper.to_array(i).copy()
               for i in onnx.load(weights if os.path.exists(weights)
                                  else onnx_path).graph.initializer}
    inputs, targets = phases.read_dataset(data)
    validation = (phases.read_dataset(val_data) if args.val_samples
                  else None)

    out = os.path.join(work, "trained.onnx")
    report = os.path.join(work, "run.json")
    env = dict(os.environ)
    # TF32 (CUDA: memopt's runtime and PyTorch alike) only when asked.
    env["MEMOPT_ALLOW_TF32"] = "1" if args.tf32 else "0"
    if args.torch_device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = args.tf32
        torch.backends.cudnn.allow_tf32 = args.tf32
        torch.backends.cudnn.deterministic = True
    if args.threads:
        env["OMP_NUM_THREADS"] = str(args.threads)
        torch.set_num_threads(args.threads)
    run([binary, "--data", data, "--steps", str(args.steps), "--no-shuffle",
         "--log-every", "0", "--out", out, "--report", report] +
        (["--val-data", val_data] if validation else []), env)
    trained = {i.name: numpy_helper.to_array(i)
               for i in onnx.load(out).graph.initializer}
    run_report = json.load(open(report))
    memopt_losses = run_report["loss"]

    losses32, state32, grads32 = torch_training(args, initial, inputs, targets)
    losses64 = state64 = grads64 = None
    # Float32's spread under rounding-level changes of the initial weights.
    perturbed_runs = []
    if args.float64:
        rng = np.random.default_rng(args.seed + 7)
        for _ in range(args.perturbed):
            moved = {k: (v * (1 + np.float32(2.0 ** -24) *
                              rng.choice(np.array([-1, 1], np.float32),
                                         v.shape))).astype(v.dtype)
                     if v.dtype == np.float32 else v
                     for k, v in initial.items()}
            perturbed_runs.append(torch_training(args, moved, inputs, targets))
    if args.float64:
        default = torch.get_default_dtype()
        torch.set_default_dtype(torch.float64)
        try:
            losses64, state64, grads64 = torch_training(
                args, {k: v.astype(np.float64) for k, v in initial.items()},
                inputs.astype(np.float64), targets.astype(np.float64))
        finally:
            torch.set_default_dtype(default)

    print("check_training: " + describe(args))
    failures = []
    print("losses memopt  " + " ".join("%.9g" % v for v in memopt_losses))
    print("losses pytorch " + " ".join("%.9g" % v for v in losses32))
    if len(memopt_losses) != len(losses32):
        print("  FAIL: %d losses in the run report, %d expected"
              % (len(memopt_losses), len(losses32)))
        failures.append("losses")
    else:
        def by_step(values):
            return None if values is None else {
                "step %d" % (i + 1): np.float64(v)
                for i, v in enumerate(values)}
        failures += compare("losses", by_step(memopt_losses),
                            by_step(losses32), by_step(losses64), args,
                            [by_step(r[0]) for r in perturbed_runs])

    missing = sorted(set(initial) - set(trained))
    if missing:
        print("  FAIL: --out lacks %s" % ", ".join(missing))
        failures += missing

    if args.gradients:
        derived = {n: (initial[n].astype(np.float64)
                       - trained[n].astype(np.float64)) / args.lr
                   for n in grads32}
        failures += compare("gradients", derived, grads32, grads64, args,
                            [r[2] for r in perturbed_runs])
        # A model without BatchNorm has no statistics to compare.
        if state32:
            failures += compare("batchnorm statistics", trained, state32,
                                state64, args, [r[1] for r in perturbed_runs])
    else:
        names = [n for n in state32 if not n.endswith("num_batches_tracked")]
        absent = [n for n in names if n not in trained]
        # A tensor forward never reads (smp keeps encoder stages its
        # decoder skips) is not in the file, and PyTorch leaves it as
        # built: only a tensor PyTorch changed must be in --out.
        unread = untouched_by_torch(args, absent, state32)
        if unread:
            print("  %d tensors forward does not read: not in the file, "
                  "left as built by PyTorch too" % len(unread))
        for name in absent:
            if name not in unread:
                print("  FAIL: %s is not an initializer of --out" % name)
        failures += [n for n in absent if n not in unread]
        names = [n for n in names if n in trained]
        failures += compare(
            "trained initializers", trained, {n: state32[n] for n in names},
            None if state64 is None else {n: state64[n] for n in names}, args,
            [r[1] for r in perturbed_runs])
        for name in sorted(set(initial) - set(state32)):
            if name in trained and not np.array_equal(trained[name],
                                                      initial[name]):
                print("  FAIL: %s is not trained but changed" % name)
                failures.append(name)

    if validation:
        failures += check_validation(args, run_report, trained, *validation)
    failures += check_memory(args, binary, run_report)

    if args.float64:
        criterion = ("error vs PyTorch float64 <= max(%g, %g x PyTorch "
                     "float32's)" % (args.tolerance, args.factor))
    else:
        criterion = "error vs PyTorch <= %g" % args.tolerance
    print("%s (%s)" % ("FAIL" if failures else "PASS", criterion))
    return 1 if failures else 0


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    phases.add_arguments(parser)
    parser.add_argument("--model", required=True, help=", ".join(models.MODELS))
    parser.add_argument("--base", type=int, help="classic U-Net base width")
    parser.add_argument("--depth", type=int, help="classic U-Net depth")
    parser.add_argument("--size", type=int, default=64,
                        help="every spatial side: H = W, or D = H = W for "
                        "a 3-D model (default 64)")
    parser.add_argument("--channels", type=int, default=1)
    parser.add_argument("--exporter", choices=EXPORTERS, default="torchscript",
                        help="torch.onnx's exporter (memopt.onnx_export)")
    parser.add_argument("--export-python",
                        help="export with this interpreter (a venv with "
                        "the newest PyTorch) instead of this one")
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--microbatches", type=int, default=1,
                        help="compile with --microbatches=M; PyTorch "
                        "accumulates the gradients of M microbatches")
    parser.add_argument("--samples", type=int,
                        help="data set size (default batch * steps)")
    parser.add_argument("--data", choices=("smooth", "noise"),
                        default="smooth", help="synthetic images (default "
                        "smooth, as memopt.make_dataset)")
    parser.add_argument("--loss", choices=sorted(LOSSES), default="mse")
    parser.add_argument("--deep-supervision", metavar="SPEC",
                        help="memopt-compile --deep-supervision (nnunet, "
                        "halving or W0,W1,...): PyTorch trains with nnU-Net's "
                        "DeepSupervisionWrapper")
    parser.add_argument("--optimizer", choices=("sgd", "adam", "adamw"),
                        default="sgd")
    parser.add_argument("--lr", type=float)
    parser.add_argument("--momentum", type=float, default=0.0)
    parser.add_argument("--dampening", type=float, default=0.0)
    parser.add_argument("--nesterov", action="store_true")
    parser.add_argument("--weight-decay", type=float, default=0.0)
    parser.add_argument("--beta1", type=float, default=0.9)
    parser.add_argument("--beta2", type=float, default=0.999)
    parser.add_argument("--eps", type=float, default=1e-8)
    parser.add_argument("--val-samples", type=int, default=0,
                        help="also validate on this many samples and "
                             "compare with model.eval() (default 0: no)")
    parser.add_argument("--val-tolerance", type=float, default=1e-5,
                        help="relative tolerance of the validation loss "
                             "(default 1e-5)")
    parser.add_argument("--gradients", action="store_true",
                        help="one-step gradient check (plain SGD, lr 1024)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--memory", metavar="FLAGS",
                        help="memopt-compile memory flags for the binary "
                             "(\"--remat=auto --workspaces=lean\"); the "
                             "run's measured peak must be the predicted one")
    parser.add_argument("--smallest-budget", action="store_true",
                        help="compile at the smallest --budget that "
                             "--memory's flags reach")
    parser.add_argument("--target", choices=("cpu", "cuda"), default="cpu",
                        help="memopt-compile --target (default cpu)")
    parser.add_argument("--torch-device", choices=("cpu", "cuda"),
                        default="cpu",
                        help="where the PyTorch reference trains (default cpu)")
    parser.add_argument("--tf32", action="store_true",
                        help="allow TF32 on CUDA, in memopt "
                             "(MEMOPT_ALLOW_TF32=1) and PyTorch; off by default")
    parser.add_argument("--threads", type=int,
                        help="OMP_NUM_THREADS of the binary and "
                             "torch.set_num_threads (default: unchanged)")
    parser.add_argument("--tolerance", type=float, default=1e-4)
    parser.add_argument("--float64", action="store_true",
                        help="also train PyTorch in float64 and compare "
                             "with it (see the module doc)")
    parser.add_argument("--factor", type=float, default=4.0,
                        help="with --float64: memopt may be this many times "
                             "further from float64 than PyTorch float32 "
                             "(default 4)")
    parser.add_argument("--perturbed", type=int, default=8,
                        help="with --float64: PyTorch float32 runs from "
                             "initial weights moved by one rounding, whose "
                             "spread joins PyTorch float32's error "
                             "(default 8: 2 under-estimate it)")
    parser.add_argument("--worst", type=int, default=5,
                        help="tensors listed per comparison (default 5)")
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args(argv)
    if args.gradients:
        if args.optimizer != "sgd" or args.momentum or args.weight_decay \
                or args.nesterov or args.dampening:
            parser.error("--gradients uses plain SGD: no --optimizer, "
                         "--momentum, --dampening, --nesterov, --weight-decay")
        if args.lr is None:
            args.lr = 1024.0
        args.steps = 1
    elif args.lr is None:
        args.lr = 1e-3
    if min(args.batch, args.steps, args.size, args.channels) < 1:
        parser.error("--batch, --steps, --size and --channels must be >= 1")
    if args.samples is not None and args.samples < args.batch:
        parser.error("--samples must be at least --batch")
    if args.val_samples and args.val_samples < args.batch:
        parser.error("--val-samples must be at least --batch")
    phases.check_arguments(parser, args)
    if args.model not in models.MODELS:
        parser.error("unknown --model %r; choose from %s"
                     % (args.model, ", ".join(models.MODELS)))
    dims = models.spatial_dims(args.model)
    if dims != 2 and args.data == "smooth":
        parser.error("--data smooth makes 2-D images; use --data noise for "
                     "the %d-D model %s" % (dims, args.model))
    args.input_shape = (args.channels,) + (args.size,) * dims
    if args.loss.startswith("ms-ssim"):
        try:
            import pytorch_msssim  # noqa: F401
        except ImportError:
            parser.error("--loss %s needs pytorch_msssim (pytorch-msssim "
                         "1.0.0, which scripts/install-deps.sh installs)"
                         % args.loss)
    return args


def main(argv=None):
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        return check(args)
    except (RuntimeError, ValueError, OSError) as e:
        print("check_training: error: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
