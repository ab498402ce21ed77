#!/usr/bin/python3
"""Writes a synthetic contrast-enhancement dataset for the examples.

Inputs are smooth random "radiographs" in [0, 1]; targets are the same
images with their contrast stretched around the mean, which is the kind of
mapping the radiograph study trains a U-Net to learn. Files follow the
training binary's layout (docs/contract.md, data): DIR/inputs/NAME.npy pairs
with DIR/targets/NAME.npy, float32, shape C,H,W.

    /usr/bin/python3 -m memopt.make_dataset DIR --count N --shape C,H,W [--seed S]
"""

import argparse
import os
import sys

import numpy as np


def smooth_image(rng, shape):
    """Low-frequency noise: a coarse random grid upsampled bilinearly."""
    c, h, w = shape
    coarse = rng.random((c, max(h // 16, 2), max(w // 16, 2)))
    ys = np.linspace(0, coarse.shape[1] - 1, h)
    xs = np.linspace(0, coarse.shape[2] - 1, w)
    y0 = np.floor(ys).astype(int).clip(0, coarse.shape[1] - 2)
    x0 = np.floor(xs).astype(int).clip(0, coarse.shape[2] - 2)
    fy = (ys - y0)[None, :, None]
    fx = (xs - x0)[None, None, :]
    a = coarse[:, y0][:, :, x0]
    b = coarse[:, y0][:, :, x0 + 1]
    c_ = coarse[:, y0 + 1][:, :, x0]
    d = coarse[:, y0 + 1][:, :, x0 + 1]
    return (a * (1 - fy) * (1 - fx) + b * (1 - fy) * fx + c_ * fy * (1 - fx) +
            d * fy * fx)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--count", type=int, default=4)
    parser.add_argument("--shape", default="1,64,64")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    try:
        shape = tuple(int(v) for v in args.shape.split(","))
        if len(shape) != 3 or min(shape) <= 0 or args.count <= 0:
            raise ValueError
    except ValueError:
        print("error: --shape must be C,H,W and --count positive", file=sys.stderr)
        return 2
    rng = np.random.default_rng(args.seed)
    for sub in ("inputs", "targets"):
        os.makedirs(os.path.join(args.dir, sub), exist_ok=True)
    for i in range(args.count):
        image = smooth_image(rng, shape)
        target = np.clip((image - image.mean()) * 2.0 + 0.5, 0.0, 1.0)
        name = "sample%04d.npy" % i
        np.save(os.path.join(args.dir, "inputs", name),
                np.ascontiguousarray(image, dtype=np.float32))
        np.save(os.path.join(args.dir, "targets", name),
                np.ascontiguousarray(target, dtype=np.float32))
    print("%s: %d pairs of shape %s" % (args.dir, args.count, args.shape))
    return 0


if __name__ == "__main__":
    sys.exit(main())
