#!/usr/bin/python3
"""Train the ResNet-34 U-Net to enhance the contrast of radiographs, with
memopt, end to end.

1. writes synthetic radiographs and their contrast-enhanced targets
   (memopt.radiographs: anatomy-like phantoms through an X-ray model,
   targets by CLAHE and unsharp masking) as 16-bit PNG, for training and
   validation;
2. exports the ResNet-34 U-Net in training mode at the chosen resolution;
3. compiles the training step with memopt-compile under the chosen
   --budget, writing the compile report and the memory timeline;
4. trains: one progress line per step (loss, images/s, time left) and the
   validation loss at the end;
5. writes, for each validation radiograph, a picture of the input, the
   target, and the network's output before and after training, and prints
   where everything is.

    /usr/bin/python3 examples/radiograph-unet/train.py [--size 256]
        [--budget 1GiB|none] [--remat none|sqrt|auto] [--loss ms-ssim+l1]
        [--steps 40] [--batch 2]
        [--count 8] [--val-count 2] [--out out/radiograph-unet]

Run it from the repository root after building memopt (scripts/build.sh),
or through scripts/run-example.sh, which installs and builds first.
"""

import argparse
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

import numpy as np  # noqa: E402
import torch  # noqa: E402
from PIL import Image  # noqa: E402

from memopt import models, radiographs  # noqa: E402
from memopt.example_tools import (  # noqa: E402
    load_weights, run, shown, train_binary, write_panel)
from memopt.export import export_model  # noqa: E402

MODEL = "resnet34-unet"
# The smallest --size (a multiple of 32) above MS-SSIM's minimum side, 160.
MS_SSIM_MIN_SIZE = 192


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=256,
                        help="radiograph side in pixels, a multiple of 32 "
                             "(default 256)")
    parser.add_argument("--budget", default="1GiB",
                        help="memory budget of the training step "
                             "(memopt-compile --budget; default 1GiB, "
                             "'none': no budget)")
    parser.add_argument("--remat", default="none",
                        choices=["none", "sqrt", "auto"],
                        help="rematerialization (memopt-compile --remat; "
                             "default none)")
    parser.add_argument("--device", default="cpu",
                        help="memopt-compile --device (default cpu)")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--count", type=int, default=8,
                        help="training radiographs (default 8)")
    parser.add_argument("--val-count", type=int, default=2,
                        help="validation radiographs (default 2)")
    parser.add_argument("--loss", choices=["l1", "ms-ssim", "ms-ssim+l1"],
                        help="memopt-compile --loss (default ms-ssim+l1, "
                             "the study's loss, from --size 192 on, where "
                             "MS-SSIM's 5 scales fit; l1 below)")
    parser.add_argument("--lr", type=float, default=1e-3,
                        help="Adam's learning rate (default 1e-3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="out/radiograph-unet",
                        help="output directory (default out/radiograph-unet)")
    parser.add_argument("--build", default=os.environ.get("BUILD_DIR", "build"),
                        help="memopt's build directory (default build)")
    args = parser.parse_args(argv)
    if args.size < 32 or args.size % 32:
        parser.error("--size must be a positive multiple of 32 (the U-Net "
                     "halves it five times), got %d" % args.size)
    if args.loss is None:
        args.loss = "ms-ssim+l1" if args.size >= MS_SSIM_MIN_SIZE else "l1"
    elif args.loss.startswith("ms-ssim") and args.size < MS_SSIM_MIN_SIZE:
        parser.error("--loss=%s needs --size %d or more (MS-SSIM's 5 scales "
                     "need sides above 160), got %d"
                     % (args.loss, MS_SSIM_MIN_SIZE, args.size))
    for name in ("steps", "batch", "count", "val_count"):
        if getattr(args, name) < 1:
            parser.error("--%s must be at least 1" % name.replace("_", "-"))
    return args


def predict(onnx_path, images):
    """The model of `onnx_path` in evaluation mode on `images` (N, H, W)."""
    module = load_weights(models.build(MODEL), onnx_path).eval()
    with torch.no_grad():
        return module(torch.from_numpy(images[:, None])).numpy()[:, 0]


def read_png(path):
    return np.asarray(Image.open(path), dtype=np.float32) / 65535.0


def main(argv=None):
    args = parse_args(argv)
    out = os.path.normpath(args.out)
    bin_dir = os.path.join(os.path.abspath(args.build), "bin")
    compiler = os.path.join(bin_dir, "memopt-compile")
    if not os.access(compiler, os.X_OK):
        sys.exit("radiograph-unet: %s not found: build memopt first "
                 "(bash scripts/build.sh) or pass --build DIR" % compiler)
    os.makedirs(out, exist_ok=True)
    data, val = os.path.join(out, "data"), os.path.join(out, "val")
    model = os.path.join(out, MODEL + ".onnx")
    binary = os.path.join(out, MODEL + "-train")
    trained = os.path.join(out, MODEL + "-trained.onnx")
    compile_report = os.path.join(out, "compile.json")
    run_report = os.path.join(out, "run.json")
    timeline = os.path.join(out, "memory-timeline.svg")
    pictures = os.path.join(out, "pictures")

    shape = (args.size, args.size)
    print("== synthetic radiographs, %dx%d: %d for training, %d for "
          "validation" % (args.size, args.size, args.count, args.val_count),
          flush=True)
    radiographs.write_dataset(data, args.count, shape, args.seed)
    val_names = radiographs.write_dataset(val, args.val_count, shape,
                                          args.seed + 1)

    print("== export the ResNet-34 U-Net (training mode, batch %d)"
          % args.batch, flush=True)
    export_model(MODEL, model, args.batch, (1, args.size, args.size),
                 seed=args.seed)

    print("== compile the training step", flush=True)
    command = [compiler, model, "-o", binary, "--loss=" + args.loss,
               "--optimizer=adam", "--lr=%r" % args.lr,
               "--device=" + args.device, "--remat=" + args.remat,
               "--report=" + compile_report, "--timeline=" + timeline]
    if args.budget != "none":
        command.append("--budget=" + args.budget)
    run("radiograph-unet", command)
    report = json.load(open(compile_report))
    print("predicted peak %.1f MiB (activations %.1f MiB)%s" % (
        report["predicted_peak_bytes"] / 2**20,
        report["activation_peak_bytes"] / 2**20,
        ", budget %.1f MiB" % (report["budget_bytes"] / 2**20)
        if report.get("budget_bytes") else ""), flush=True)

    print("== train %d steps (Adam, %s loss)" % (args.steps, args.loss),
          flush=True)
    train_binary("radiograph-unet", binary, data, val, args, trained,
                 run_report, report["predicted_peak_bytes"])

    print("== pictures: input | target | before training | after training",
          flush=True)
    os.makedirs(pictures, exist_ok=True)
    inputs = np.stack([read_png(os.path.join(val, "inputs", n))
                       for n in val_names])
    targets = np.stack([read_png(os.path.join(val, "targets", n))
                        for n in val_names])
    before, after = predict(model, inputs), predict(trained, inputs)
    written = []
    for i, name in enumerate(val_names):
        path = os.path.join(pictures, name)
        write_panel(path, [inputs[i], targets[i], before[i], after[i]])
        written.append(path)
    l1_before = float(np.abs(before - targets).mean())
    l1_after = float(np.abs(after - targets).mean())
    print("validation L1 against the targets: %.4f before, %.4f after "
          "training" % (l1_before, l1_after))
    print(shown("\npictures:        %s" % "\n                 ".join(written)))
    print(shown("memory timeline: %s" % timeline))
    print(shown("reports:         %s, %s" % (compile_report, run_report)))
    print(shown("trained model:   %s" % trained))
    return 0


if __name__ == "__main__":
    sys.exit(main())
