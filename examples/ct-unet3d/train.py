#!/usr/bin/python3
"""Train an nnU-Net-style 3-D U-Net to segment organs in CT volumes, with
memopt, end to end.

1. writes synthetic abdominal CT volumes and their label maps (background,
   liver, kidneys, spine; memopt.ct_volumes) for training and validation;
2. exports nnU-Net's 3d_fullres PlainConvUNet (model nnunet3d: strided
   Conv3d encoder, ConvTranspose3d decoder, InstanceNorm3d + LeakyReLU,
   features doubling from --base capped at 320, depth by nnU-Net's rule
   for the patch) in training mode;
3. compiles the training step with memopt-compile --loss=ce+dice under the
   chosen --budget and --remat, writing the compile report and the memory
   timeline;
4. trains, one progress line per step;
5. writes, for each validation volume, an axial and a coronal picture of
   the image, the label map and the network's segmentation before and
   after training, and prints the validation Dice per class.

    /usr/bin/python3 examples/ct-unet3d/train.py [--size 64] [--base 16]
        [--budget 512MiB|none] [--remat auto|sqrt|none] [--amp none|bf16|fp16]
        [--steps 40]

Run it from the repository root after building memopt (scripts/build.sh).
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

from memopt import ct_volumes, models  # noqa: E402
from memopt.example_tools import (  # noqa: E402
    load_weights, run, shown, train_binary, write_panel)
from memopt.export import export_model  # noqa: E402
from memopt.models.volumetric_unet import nnunet_depth  # noqa: E402

EXAMPLE = "ct-unet3d"
MODEL = "nnunet3d"
# Label colours of the pictures: background black, liver red, kidneys
# green, spine blue.
COLOURS = np.array([[0, 0, 0], [0.9, 0.2, 0.2], [0.2, 0.85, 0.2],
                    [0.3, 0.5, 1.0]], np.float32)
# The pictures' least side: small volumes are enlarged (nearest) to it.
PICTURE_SIDE = 256


def parse_args(argv):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=64,
                        help="side of the cubic patch, a multiple of 16 "
                             "(default 64)")
    parser.add_argument("--base", type=int, default=16,
                        help="features of the top stage, doubled per "
                             "stage up to 320 (default 16, so that the "
                             "example trains in minutes on 2 cores; "
                             "nnU-Net's is 32)")
    parser.add_argument("--budget", default="512MiB",
                        help="memory budget of the training step "
                             "(memopt-compile --budget; default "
                             "512MiB, 'none': no budget)")
    parser.add_argument("--remat", default="auto",
                        choices=["none", "sqrt", "auto"],
                        help="rematerialization (memopt-compile --remat; "
                             "default auto: the least recomputation that "
                             "fits --budget)")
    parser.add_argument("--amp", default="none",
                        choices=["none", "bf16", "fp16"],
                        help="mixed precision (memopt-compile --amp; fp16 "
                             "scales the ce+dice loss as nnU-Net's AMP "
                             "does; default none)")
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--count", type=int, default=8,
                        help="training volumes (default 8)")
    parser.add_argument("--val-count", type=int, default=2,
                        help="validation volumes (default 2)")
    parser.add_argument("--lr", type=float, default=3e-3,
                        help="Adam's learning rate (default 3e-3)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="out/ct-unet3d",
                        help="output directory (default out/ct-unet3d)")
    parser.add_argument("--build", default=os.environ.get("BUILD_DIR", "build"),
                        help="memopt's build directory (default build)")
    args = parser.parse_args(argv)
    if args.size < 16 or args.size % 16:
        parser.error("--size must be a positive multiple of 16, got %d"
                     % args.size)
    for name in ("steps", "batch", "count", "val_count", "base"):
        if getattr(args, name) < 1:
            parser.error("--%s must be at least 1" % name.replace("_", "-"))
    return args


def segment(onnx_path, volumes, model_args):
    """The class map (N, D, H, W) of the model of `onnx_path` on `volumes`
    (N, 1, D, H, W)."""
    module = load_weights(models.build(MODEL, **model_args), onnx_path).eval()
    with torch.no_grad():
        return module(torch.from_numpy(volumes)).argmax(1).numpy()


def dice(prediction, label, cls):
    """The Dice of class `cls` over all volumes (1 when both are empty)."""
    p, t = prediction == cls, label == cls
    total = p.sum() + t.sum()
    return 1.0 if total == 0 else 2.0 * (p & t).sum() / total


def coloured(labels):
    return COLOURS[labels]


def grey(image):
    return np.repeat(image[..., None], 3, axis=-1)


def busiest(label, axis):
    """The index along `axis` of the slice of `label` that shows the most
    classes, then the most labelled voxels: the slice the pictures cut."""
    other = tuple(a for a in range(label.ndim) if a != axis)
    classes = [(label == c).any(axis=other)
               for c in range(1, len(ct_volumes.CLASSES))]
    return int(np.argmax(np.sum(classes, axis=0) * label.size
                         + (label > 0).sum(axis=other)))


def write_pictures(directory, name, image, label, before, after):
    """Axial (z) and coronal (y, head up) slices through the most classes:
    image | label | before | after, enlarged to at least 256 pixels.
    Returns the paths."""
    stem = os.path.splitext(name)[0]
    scale = max(1, PICTURE_SIDE // label.shape[0])
    paths = []
    for view, axis in (("axial", 0), ("coronal", 1)):
        index = busiest(label, axis)

        def cut(volume):
            plane = np.take(volume, index, axis=axis)
            plane = plane[::-1] if view == "coronal" else plane
            return plane.repeat(scale, 0).repeat(scale, 1)

        path = os.path.join(directory, "%s-%s.png" % (stem, view))
        write_panel(path, [grey(cut(image)), coloured(cut(label)),
                           coloured(cut(before)), coloured(cut(after))])
        paths.append(path)
    return paths


def main(argv=None):
    args = parse_args(argv)
    out = os.path.normpath(args.out)
    bin_dir = os.path.join(os.path.abspath(args.build), "bin")
    compiler = os.path.join(bin_dir, "memopt-compile")
    if not os.access(compiler, os.X_OK):
        sys.exit("%s: %s not found: build memopt first (bash "
                 "scripts/build.sh) or pass --build DIR" % (EXAMPLE, compiler))
    os.makedirs(out, exist_ok=True)
    data, val = os.path.join(out, "data"), os.path.join(out, "val")
    model = os.path.join(out, MODEL + ".onnx")
    binary = os.path.join(out, MODEL + "-train")
    trained = os.path.join(out, MODEL + "-trained.onnx")
    compile_report = os.path.join(out, "compile.json")
    run_report = os.path.join(out, "run.json")
    timeline = os.path.join(out, "memory-timeline.svg")
    pictures = os.path.join(out, "pictures")

    print("== synthetic CT volumes, %d^3: %d for training, %d for "
          "validation" % (args.size, args.count, args.val_count), flush=True)
    ct_volumes.write_dataset(data, args.count, args.size, args.seed)
    val_names = ct_volumes.write_dataset(val, args.val_count, args.size,
                                         args.seed + 1)

    model_args = {"base": args.base, "depth": nnunet_depth(args.size)}
    widths = [min(args.base * 2 ** i, 320)
              for i in range(model_args["depth"] + 1)]
    print("== export the 3-D U-Net (features %s, %d classes, training "
          "mode, batch %d)" % (widths, len(ct_volumes.CLASSES), args.batch),
          flush=True)
    export_model(MODEL, model, args.batch, (1,) + (args.size,) * 3,
                 seed=args.seed, **model_args)

    print("== compile the training step", flush=True)
    command = [compiler, model, "-o", binary, "--loss=ce+dice",
               "--optimizer=adam", "--lr=%r" % args.lr,
               "--remat=" + args.remat, "--amp=" + args.amp,
               "--report=" + compile_report, "--timeline=" + timeline]
    if args.budget != "none":
        command.append("--budget=" + args.budget)
    run(EXAMPLE, command)
    report = json.load(open(compile_report))
    print("predicted peak %.1f MiB (activations %.1f MiB)%s" % (
        report["predicted_peak_bytes"] / 2**20,
        report["activation_peak_bytes"] / 2**20,
        ", budget %.1f MiB" % (report["budget_bytes"] / 2**20)
        if report.get("budget_bytes") else ""), flush=True)
    recomputed = sum(d["decision"] == "recompute"
                     for d in report.get("decisions", []))
    if recomputed:
        print("--remat=%s recomputes %d values: predicted step %.2f s, "
              "%.2f s without recomputation" % (
                  args.remat, recomputed, report["predicted_seconds"]["total"],
                  report["baseline_predicted_seconds"]), flush=True)

    print("== train %d steps (Adam, cross-entropy + Dice)" % args.steps,
          flush=True)
    train_binary(EXAMPLE, binary, data, val, args, trained, run_report,
                 report["predicted_peak_bytes"])

    print("== pictures: image | label | before training | after training",
          flush=True)
    os.makedirs(pictures, exist_ok=True)
    volumes = np.stack([np.load(os.path.join(val, "inputs", n))
                        for n in val_names])
    labels = np.stack([np.load(os.path.join(val, "targets", n))
                       for n in val_names])
    before = segment(model, volumes, model_args)
    after = segment(trained, volumes, model_args)
    written = []
    for i, name in enumerate(val_names):
        written += write_pictures(pictures, name, volumes[i, 0], labels[i],
                                  before[i], after[i])
    for cls in range(1, len(ct_volumes.CLASSES)):
        print("validation Dice %-7s %.3f before, %.3f after training" % (
            ct_volumes.CLASSES[cls], dice(before, labels, cls),
            dice(after, labels, cls)))
    print(shown("\npictures:        %s" % "\n                 ".join(written)))
    print(shown("memory timeline: %s" % timeline))
    print(shown("reports:         %s, %s" % (compile_report, run_report)))
    print(shown("trained model:   %s" % trained))
    return 0


if __name__ == "__main__":
    sys.exit(main())
