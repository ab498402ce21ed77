#!/usr/bin/python3
"""Synthetic abdominal CT volumes and their organ label maps.

No CT scan can be downloaded here, so examples/ct-unet3d segments phantoms
that look like a contrast-enhanced abdominal CT patch:

- anatomy: an elliptic body of fat and muscle in air, the liver (class 1),
  two kidneys (class 2) and a vertebral column of bone around a marrow core
  (class 3), each an ellipsoid (or a cylinder) with random size, position
  and rotation about the body axis, and a few unlabeled soft-tissue blobs
  (bowel) of densities near the organs', so that density alone does not
  segment;
- densities in Hounsfield units (air -1000, fat -100, muscle 40, liver 60,
  kidney cortex 150, bone 700), a smooth bias field and Gaussian noise
  (sigma 25 HU), slightly blurred as a reconstruction kernel does;
- display: the soft-tissue window (-160 .. 240 HU) mapped to [0, 1].

Geometry is relative to the volume, so any size gives the same anatomy.
Files follow the training binary's layout (docs/contract.md): the volume
DIR/inputs/NAME.npy (float32, 1 x D x H x W) pairs with the label map
DIR/targets/NAME.npy (uint8, D x H x W, 0 background).

    /usr/bin/python3 -m memopt.ct_volumes DIR --count N --size S [--seed S]
"""

import argparse
import os
import sys

import numpy as np
from scipy import ndimage

CLASSES = ("background", "liver", "kidney", "spine")
HU = {"air": -1000.0, "fat": -100.0, "muscle": 40.0, "bowel": 30.0,
      "liver": 60.0, "kidney": 150.0, "bone": 700.0, "marrow": 250.0}
WINDOW = (-160.0, 240.0)
NOISE_HU = 25.0


def _grid(size):
    """z, y, x coordinates in [-1, 1] of a cubic volume of side `size`."""
    axis = (np.arange(size, dtype=np.float32) + 0.5) / size * 2 - 1
    return np.meshgrid(axis, axis, axis, indexing="ij")


def ellipsoid(z, y, x, centre, radii, angle=0.0):
    """The mask of an ellipsoid rotated by `angle` about the z axis."""
    cz, cy, cx = centre
    c, s = np.cos(angle), np.sin(angle)
    u = (x - cx) * c + (y - cy) * s
    v = -(x - cx) * s + (y - cy) * c
    rz, ry, rx = radii
    return ((z - cz) / rz) ** 2 + (v / ry) ** 2 + (u / rx) ** 2 <= 1.0


def volume(rng, size):
    """One (image in [0, 1], label map) pair of side `size`."""
    z, y, x = _grid(size)
    j = lambda scale: rng.uniform(-scale, scale)  # noqa: E731
    hu = np.full((size,) * 3, HU["air"], np.float32)
    label = np.zeros((size,) * 3, np.uint8)
    # The body is a cylinder along z (the patient's long axis).
    body_ry, body_rx = 0.75 + j(0.08), 0.92 + j(0.05)
    body = (y / body_ry) ** 2 + (x / body_rx) ** 2 <= 1.0
    hu[body] = HU["fat"]
    hu[(y / (body_ry - 0.1)) ** 2 + (x / (body_rx - 0.1)) ** 2 <= 1.0] = \
        HU["muscle"]
    for _ in range(rng.integers(2, 5)):
        blob = ellipsoid(z, y, x, (j(0.7), j(0.3) - 0.1, j(0.4)),
                         rng.uniform(0.1, 0.25, 3), j(np.pi))
        hu[blob & body] = HU["bowel"] + j(20)
    organs = [
        (1, HU["liver"], ellipsoid(z, y, x, (j(0.2), -0.1 + j(0.1),
                                             -0.4 + j(0.08)),
                                   (0.6 + j(0.1), 0.35 + j(0.05),
                                    0.35 + j(0.05)), j(0.4))),
    ]
    for side in (-1, 1):
        organs.append((2, HU["kidney"], ellipsoid(
            z, y, x, (j(0.15), 0.3 + j(0.05), side * (0.38 + j(0.05))),
            (0.3 + j(0.05), 0.12 + j(0.02), 0.1 + j(0.02)),
            side * 0.3 + j(0.2))))
    spine_y, spine_x = 0.45 + j(0.04), j(0.04)
    spine_r = 0.13 + j(0.02)
    spine = (y - spine_y) ** 2 + (x - spine_x) ** 2 <= spine_r ** 2
    for cls, density, mask in organs:
        hu[mask & body] = density + j(10)
        label[mask & body] = cls
    hu[spine] = HU["bone"]
    hu[(y - spine_y) ** 2 + (x - spine_x) ** 2 <= (0.6 * spine_r) ** 2] = \
        HU["marrow"]
    label[spine] = 3
    # Scanner: a smooth bias field, noise, the reconstruction kernel's blur.
    coarse = rng.normal(0, 15, (4, 4, 4)).astype(np.float32)
    hu += ndimage.zoom(coarse, size / 4, order=1)[:size, :size, :size]
    hu += rng.normal(0, NOISE_HU, hu.shape).astype(np.float32)
    hu = ndimage.gaussian_filter(hu, 0.6)
    lo, hi = WINDOW
    image = np.clip((hu - lo) / (hi - lo), 0, 1).astype(np.float32)
    return image, label


def write_dataset(directory, count, size, seed=0):
    """`count` (volume, label map) pairs of side `size` as .npy in the
    training binary's layout. Returns the file names."""
    rng = np.random.default_rng(seed)
    for sub in ("inputs", "targets"):
        os.makedirs(os.path.join(directory, sub), exist_ok=True)
    names = []
    for i in range(count):
        image, label = volume(rng, size)
        name = "ct%04d.npy" % i
        np.save(os.path.join(directory, "inputs", name), image[None])
        np.save(os.path.join(directory, "targets", name), label)
        names.append(name)
    return names


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--count", type=int, default=4)
    parser.add_argument("--size", type=int, default=64)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("--count must be at least 1")
    if args.size < 8:
        parser.error("--size must be at least 8, got %d" % args.size)
    names = write_dataset(args.dir, args.count, args.size, args.seed)
    print("wrote %d CT volumes of %d^3 to %s" % (len(names), args.size,
                                                 args.dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
