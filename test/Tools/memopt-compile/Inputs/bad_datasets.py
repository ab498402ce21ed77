"""Writes good and bad data sets for a model with 1x8x8 inputs and targets.

    bad_datasets.py DIR

DIR/good: 4 valid pairs; then one directory per defect, each a copy of
good with one file changed: shape (an 8x4 input), dtype (a float64 input),
missing-target (an input without a target), unreadable (a .png input that
is not a PNG), nan (a NaN in the last input: the loss of step 2 at batch 2
without shuffling is NaN); empty (no samples at all).
"""
import os
import shutil
import sys

import numpy as np


def main(root):
    rng = np.random.default_rng(0)
    good = os.path.join(root, "good")
    for sub in ("inputs", "targets"):
        os.makedirs(os.path.join(good, sub))
        for i in range(4):
            np.save(os.path.join(good, sub, "s%d.npy" % i),
                    rng.random((1, 8, 8), dtype=np.float32))

    def variant(name):
        path = os.path.join(root, name)
        shutil.copytree(good, path)
        return path

    np.save(os.path.join(variant("shape"), "inputs", "s1.npy"),
            np.zeros((8, 4), np.float32))
    np.save(os.path.join(variant("dtype"), "inputs", "s1.npy"),
            np.zeros((1, 8, 8), np.float64))
    os.remove(os.path.join(variant("missing-target"), "targets", "s2.npy"))
    unreadable = variant("unreadable")
    os.remove(os.path.join(unreadable, "inputs", "s0.npy"))
    with open(os.path.join(unreadable, "inputs", "s0.png"), "w") as f:
        f.write("not an image\n")
    nan = os.path.join(variant("nan"), "inputs", "s3.npy")
    values = np.load(nan)
    values[0, 0, 0] = np.nan
    np.save(nan, values)
    for sub in ("inputs", "targets"):
        os.makedirs(os.path.join(root, "empty", sub))


if __name__ == "__main__":
    main(sys.argv[1])
