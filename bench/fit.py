#!/usr/bin/python3
"""Auto-fit against an exhaustive search, and the largest size and batch
each device fits.

Table 1: for each model, device profile and size (batch 1, 1 x S x S,
SGD with momentum 0.9, MSE, --target=cuda, all --plan-only):
- auto-fit: `memopt-compile --fit=DEVICE --amp=auto`, its chosen flags,
  predicted step seconds, the plans it made and its wall time;
- exhaustive: every combination of --amp none|bf16|fp16, --remat
  none|sqrt|auto, --offload none|auto, --workspaces full|lean (lean with
  --remat=auto only) planned at --budget = the device's memory less the
  reserve auto-fit uses, the fastest that fits (combinations the device
  refuses, bf16 on Turing, are skipped);
- ratio: auto-fit's predicted seconds over exhaustive's (1.00: the same
  plan; the issue's target is <= 1.10), and the exhaustive wall time.

Table 2: for the ResNet-34 U-Net (the radiograph model) on each device,
the largest batch at --fit-size (--maximize=batch) and the largest square
size at batch 1 (--maximize=size) auto-fit finds, beside PyTorch eager's
largest: the size (and batch) at which the weights, gradients and SGD
momentum plus the bytes PyTorch saves for backward in one training
forward (counted with torch.autograd.graph.saved_tensors_hooks, each
storage once) still fit the same usable memory. That is a lower bound of
eager's peak (it leaves out the backward's transient buffers and the
allocator's fragmentation), so PyTorch's true largest is at most this.

Models: resnet34-unet, unet (the classic U-Net, base 64), densenet121
(torchvision's, 1-channel stem, 10 classes; the classification loss is
MSE against a 10-vector) and nnunet3d (nnU-Net's 3-D full-resolution
U-Net topology from the registry; sizes are cube sides; `unet3d`, the
test-scale one, also works). Devices: rtx2060 (8 GB), a
16 GB profile (rtx2060,memory=16GiB: a V100-16GB-class memory on the
same rates) and a100-40g (40 GB).

    PYTHONPATH=python /usr/bin/python3 bench/fit.py \\
        [--bin build/bin] [--models resnet34-unet,unet,densenet121,nnunet3d] \\
        [--devices rtx2060,rtx2060-16g,a100-40g] [--sizes MODEL=S1,S2;...] \\
        [--fit-size 1024] [--no-exhaustive] [--no-maximize] [--workdir DIR]
"""
import argparse
import itertools
import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import torch

from memopt import models
from memopt.export import export_model

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from amp import saved_bytes  # noqa: E402  (bench/amp.py)

# Name: (profile, memory bytes).
DEVICES = {"rtx2060": ("rtx2060", 8 << 30),
           "rtx2060-16g": ("rtx2060,memory=16GiB", 16 << 30),
           "a100-40g": ("a100-40g", 40 << 30)}
SIZES = {"resnet34-unet": (2048, 4192), "unet": (1024, 2048),
         "densenet121": (512, 1024), "unet3d": (64, 128),
         "nnunet3d": (128, 192)}
COMMON = ["--plan-only", "--target=cuda", "--optimizer=sgd",
          "--momentum=0.9", "--loss=mse"]
# fitReserveBytes on CUDA (include/memopt/Pipeline/Fit.h).
CUDA_RESERVE = 512 << 20


def log(message):
    print(message, file=sys.stderr, flush=True)


def build(name, size, batch=1):
    """The PyTorch model `name` for a 1-channel input (size: its side)."""
    torch.manual_seed(0)
    if name == "densenet121":
        import torchvision
        model = torchvision.models.densenet121(num_classes=10)
        model.features.conv0 = torch.nn.Conv2d(1, 64, 7, 2, 3, bias=False)
        return model.train()
    return models.build(name, in_channels=1).train()


def export(name, path, size):
    if name == "densenet121":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(build(name, size), torch.randn(1, 1, size, size),
                              path, training=torch.onnx.TrainingMode.TRAINING,
                              opset_version=17, input_names=["input"],
                              output_names=["output"],
                              do_constant_folding=False)
    else:
        # A cube for the volumetric models (their `dims` argument).
        shape = (1,) + (size,) * models.spatial_dims(name)
        export_model(name, path, 1, shape, in_channels=1)


def plan(args, onnx_path, flags, report):
    """memopt-compile --plan-only with `flags`: (report or None, seconds,
    stderr's last line)."""
    start = time.monotonic()
    done = subprocess.run([os.path.join(args.bin, "memopt-compile"),
                           onnx_path, "--report=" + report] + COMMON + flags,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True)
    seconds = time.monotonic() - start
    lines = done.stderr.strip().splitlines()
    if done.returncode:
        return None, seconds, lines[-1] if lines else ""
    with open(report) as f:
        return json.load(f), seconds, ""


def exhaustive(args, onnx_path, shape, device_name, work):
    """The fastest fitting plan of every flag combination: (flags, seconds,
    plans, wall seconds)."""
    device, memory = DEVICES[device_name]
    budget = memory - CUDA_RESERVE
    best, plans, wall = None, 0, 0.0
    for amp, remat, offload, lean in itertools.product(
            ("none", "bf16", "fp16"), ("none", "sqrt", "auto"),
            ("none", "auto"), (False, True)):
        if lean and remat != "auto":
            continue
        flags = ["--device=" + device, "--budget=%d" % budget, "--amp=" + amp,
                 "--remat=" + remat, "--offload=" + offload]
        if lean:
            flags.append("--workspaces=lean")
        report, seconds, _ = plan(args, onnx_path, flags + shape,
                                  os.path.join(work, "exhaustive.json"))
        wall += seconds
        plans += 1
        if report is None or report["predicted_peak_bytes"] > budget:
            continue
        total = report["predicted_seconds"]["total"]
        if best is None or total < best[1]:
            best = (" ".join(flags[2:]), total)
    return best, plans, wall


def exported(name, size, work):
    """(ONNX path, flags): the model exported at `size`, or, above what the
    exporter takes (16 M input elements), at 1024 and compiled at `size`
    (memopt-compile's --input-shape)."""
    dims = models.spatial_dims(name) if name != "densenet121" else 2
    side = size if name == "densenet121" or size ** dims <= 1 << 24 else 1024
    onnx_path = os.path.join(work, "%s-%d.onnx" % (name, side))
    if not os.path.exists(onnx_path):
        export(name, onnx_path, side)
    if side == size:
        return onnx_path, []
    return onnx_path, ["--input-shape=1," + ",".join([str(size)] * dims)]


def fit_row(args, name, size, device_name, work):
    onnx_path, shape = exported(name, size, work)
    device = DEVICES[device_name][0]
    report, wall, error = plan(args, onnx_path,
                               ["--fit=" + device, "--amp=auto"] + shape,
                               os.path.join(work, "fit.json"))
    row = {"model": name, "size": size, "device": device_name,
           "fit_wall": wall}
    if report is None:
        row["fit"] = "no fit: " + error
    else:
        fit = report["fit"]
        won = fit["candidates"][fit["winner"]]
        row.update(fit=won["flags"], fit_seconds=won["predicted_seconds"],
                   fit_plans=fit["planned"])
    if args.exhaustive:
        best, plans, seconds = exhaustive(args, onnx_path, shape, device_name,
                                          work)
        row.update(exhaustive_plans=plans, exhaustive_wall=seconds)
        if best:
            row.update(exhaustive=best[0], exhaustive_seconds=best[1])
            if "fit_seconds" in row:
                row["ratio"] = row["fit_seconds"] / best[1]
    return row


def eager_bytes(name, size):
    """Weights, gradients and momentum, and the bytes one training forward
    at batch 1 saves for backward (a lower bound of PyTorch eager's peak)."""
    weights = sum(p.numel() * p.element_size()
                  for p in build(name, size).parameters())
    return 3 * weights, saved_bytes(name, 1, size, None)


def largest(fits, limit):
    """The largest k in [1, limit] with fits(k), fits monotone (0: none)."""
    good, bad, k = 0, limit + 1, 1
    while k <= limit and fits(k):
        good, k = k, 2 * k
    bad = min(bad, k)
    while bad - good > 1:
        mid = (good + bad) // 2
        good, bad = (mid, bad) if fits(mid) else (good, mid)
    return good


def maximize_row(args, device_name, work):
    name, (device, memory) = "resnet34-unet", DEVICES[device_name]
    onnx_path = os.path.join(work, "%s-%d.onnx" % (name, args.fit_size))
    if not os.path.exists(onnx_path):
        export(name, onnx_path, args.fit_size)
    row = {"device": device_name}
    for what in ("batch", "size"):
        report, wall, error = plan(
            args, onnx_path, ["--fit=" + device, "--amp=auto",
                              "--maximize=" + what],
            os.path.join(work, "maximize.json"))
        row["memopt_" + what] = (report["fit"][what] if report else
                                 "none (%s)" % error)
        row["memopt_%s_wall" % what] = wall
    usable = memory - CUDA_RESERVE
    # A fully convolutional network saves bytes in proportion to batch x
    # pixels: measured once at 256 x 256, scaled (sizes in steps of 32).
    persistent, saved = eager_bytes(name, 256)
    per_pixel = saved / 256 ** 2
    row["eager_batch"] = largest(
        lambda b: persistent + per_pixel * b * args.fit_size ** 2 <= usable,
        65536)
    row["eager_size"] = 32 * largest(
        lambda k: persistent + per_pixel * (32 * k) ** 2 <= usable, 2048)
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bin", default="build/bin")
    parser.add_argument("--models", default="resnet34-unet,unet,densenet121,"
                        "nnunet3d")
    parser.add_argument("--devices", default=",".join(DEVICES))
    parser.add_argument("--sizes", default="",
                        help="MODEL=S1,S2;... (default: per model)")
    parser.add_argument("--fit-size", type=int, default=1024)
    parser.add_argument("--no-exhaustive", dest="exhaustive",
                        action="store_false")
    parser.add_argument("--no-maximize", dest="maximize",
                        action="store_false")
    parser.add_argument("--workdir")
    args = parser.parse_args()
    sizes = dict(SIZES)
    for entry in filter(None, args.sizes.split(";")):
        model, _, values = entry.partition("=")
        sizes[model] = tuple(int(v) for v in values.split(","))
    work = args.workdir or tempfile.mkdtemp(prefix="memopt-fit-")
    os.makedirs(work, exist_ok=True)
    print("| model | size | device | auto-fit | s/step | plans | wall s "
          "| exhaustive best | s/step | plans | wall s | ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.models.split(","):
        if name not in models.MODELS and name != "densenet121":
            print("| %s | | | not in the model registry yet | | | | | | | | |"
                  % name)
            continue
        for size in sizes[name]:
            for device in args.devices.split(","):
                log("%s %d %s" % (name, size, device))
                r = fit_row(args, name, size, device, work)
                print("| %s | %d | %s | %s | %s | %s | %.1f | %s | %s | %s | "
                      "%s | %s |" % (
                          name, size, device, r["fit"],
                          "%.4f" % r["fit_seconds"] if "fit_seconds" in r
                          else "", r.get("fit_plans", ""), r["fit_wall"],
                          r.get("exhaustive", "none fits" if args.exhaustive
                                else "not run"),
                          "%.4f" % r["exhaustive_seconds"]
                          if "exhaustive_seconds" in r else "",
                          r.get("exhaustive_plans", ""),
                          "%.1f" % r["exhaustive_wall"]
                          if "exhaustive_wall" in r else "",
                          "%.3f" % r["ratio"] if "ratio" in r else ""),
                      flush=True)
    if not args.maximize:
        return
    print()
    print("| device | memopt largest batch at %d | PyTorch eager (bound) | "
          "memopt largest size | PyTorch eager (bound) |" % args.fit_size)
    print("|---|---|---|---|---|")
    for device in args.devices.split(","):
        r = maximize_row(args, device, work)
        print("| %s | %s | %s | %s | %s |" % (
            device, r["memopt_batch"], r["eager_batch"], r["memopt_size"],
            r["eager_size"]), flush=True)


if __name__ == "__main__":
    main()
