#!/usr/bin/env python3
"""MONAI's segmentation networks through memopt's importer and planner.

Each network (small widths, 1 input channel, 2 classes, batch 2, training
mode) is exported by the newest PyTorch's default exporter twice: with
its ONNX optimizer (`torch.onnx.export(net, (x,), f)`) and without
(`optimize=False`); each file is planned (`memopt-compile --plan-only`).
One row per network and export: the predicted peak, or memopt's one-line
refusal. Runs in a venv with MONAI (library_check_training.py installs it
into field_networks.py's venv):

    PYTHONPATH=python ~/.cache/memopt/field-venv/bin/python \\
        bench/monai_networks.py [--memopt-compile build/bin/memopt-compile]
        [--networks UNet,VNet,...] [--workdir DIR]

Training against PyTorch float64 is library_check_training.py's job.
"""
import argparse
import os
import subprocess
import sys
import tempfile
import warnings


def networks():
    """Name: (constructor, spatial dims, side)."""
    from monai.networks import nets
    return {
        "UNet": (lambda: nets.UNet(3, 1, 2, (8, 16, 32, 64), (2, 2, 2),
                                   num_res_units=2), 3, 32),
        "UNet-instance": (lambda: nets.UNet(3, 1, 2, (8, 16, 32), (2, 2),
                                            num_res_units=1,
                                            norm="instance"), 3, 32),
        "UNet-2d-batch": (lambda: nets.UNet(2, 1, 2, (8, 16, 32, 64),
                                            (2, 2, 2), num_res_units=2,
                                            norm="batch"), 2, 64),
        "BasicUNet": (lambda: nets.BasicUNet(
            3, 1, 2, features=(8, 8, 16, 32, 64, 8)), 3, 32),
        "BasicUNet-2d": (lambda: nets.BasicUNet(2, 1, 2), 2, 64),
        "DynUNet": (lambda: nets.DynUNet(
            3, 1, 2, [3, 3, 3, 3], [1, 2, 2, 2], [2, 2, 2],
            filters=[8, 16, 32, 64]), 3, 32),
        "DynUNet-res": (lambda: nets.DynUNet(
            3, 1, 2, [3, 3, 3], [1, 2, 2], [2, 2], filters=[8, 16, 32],
            res_block=True), 3, 32),
        "SegResNet": (lambda: nets.SegResNet(3, init_filters=8, in_channels=1,
                                             out_channels=2), 3, 32),
        "SegResNet-2d": (lambda: nets.SegResNet(2, init_filters=8,
                                                in_channels=1,
                                                out_channels=2), 2, 64),
        "SegResNetDS": (lambda: nets.SegResNetDS(
            3, init_filters=8, in_channels=1, out_channels=2), 3, 32),
        "AttentionUnet": (lambda: nets.AttentionUnet(3, 1, 2, (8, 16, 32),
                                                     (2, 2)), 3, 32),
        "VNet": (lambda: nets.VNet(3, 1, 2), 3, 32),
        "HighResNet": (lambda: nets.HighResNet(3, 1, 2), 3, 32),
        "UNETR": (lambda: nets.UNETR(1, 2, 32, feature_size=8,
                                     hidden_size=96, mlp_dim=192,
                                     num_heads=4), 3, 32),
        "SwinUNETR": (lambda: nets.SwinUNETR(in_channels=1, out_channels=2,
                                             feature_size=12), 3, 64),
        "FlexibleUNet-b0": (lambda: nets.FlexibleUNet(
            1, 2, "efficientnet-b0", pretrained=False, spatial_dims=2),
            2, 64),
    }


def export(build, dims, side, path, optimize):
    import torch
    torch.manual_seed(0)
    x = torch.randn((2, 1) + (side,) * dims)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(build().train(), (x,), path, optimize=optimize,
                          verbose=False)


def plan(compiler, path):
    done = subprocess.run([compiler, path, "--plan-only"],
                          capture_output=True, text=True)
    lines = [line for line in (done.stderr + done.stdout).splitlines()
             if line.strip() and "note:" not in line]
    if done.returncode == 0:
        return "peak " + lines[0].split("predicted peak ")[1].split(",")[0]
    return "refused: " + (lines[-1].split("error: ", 1)[-1] if lines else "")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memopt-compile", default="build/bin/memopt-compile")
    parser.add_argument("--networks", default="")
    parser.add_argument("--workdir")
    args = parser.parse_args(argv)
    table = networks()
    names = args.networks.split(",") if args.networks else list(table)
    work = args.workdir or tempfile.mkdtemp(prefix="memopt-monai-")
    print("| network | export | memopt |")
    print("|---|---|---|")
    for name in names:
        build, dims, side = table[name]
        for optimize in (True, False):
            label = "default" if optimize else "optimize=False"
            path = os.path.join(work, "%s-%s.onnx" % (name, label))
            try:
                export(build, dims, side, path, optimize)
            except Exception as error:  # the exporter's own failure
                lines = str(error).strip().splitlines()
                print("| %s %s^%d | %s | export failed: %s |" % (
                    name, side, dims, label, lines[-1] if lines else error),
                    flush=True)
                continue
            result = plan(args.memopt_compile, path)
            print("| %s %s^%d | %s | %s |" % (name, side, dims, label,
                                               result[:300]), flush=True)


if __name__ == "__main__":
    sys.exit(main())
