"""Properties of memopt.radiographs' data sets (radiographs.test)."""
import os
import sys

import numpy as np
from PIL import Image

from memopt import radiographs


def load(directory, sub):
    folder = os.path.join(directory, sub)
    images = []
    for name in sorted(os.listdir(folder)):
        image = Image.open(os.path.join(folder, name))
        # 16-bit grayscale PNG, as the training binary reads it.
        assert image.format == "PNG" and image.mode in ("I", "I;16"), (
            name, image.format, image.mode)
        images.append(np.asarray(image, dtype=np.float64) / 65535.0)
    return images


def main(first, same, other, wide):
    a_in, a_out = load(first, "inputs"), load(first, "targets")
    assert len(a_in) == len(a_out) == 3
    for image, target in zip(a_in, a_out):
        assert image.shape == target.shape == (64, 64)
        assert 0.0 <= image.min() and image.max() <= 1.0
        # Normalized display range, not a blank image.
        assert image.max() - image.min() > 0.9, image.max() - image.min()
        # The target is the enhancement of the input (to 16-bit rounding).
        expected = radiographs.enhance(image.astype(np.float32))
        assert np.abs(expected - target).max() < 2e-4, \
            np.abs(expected - target).max()
        # CLAHE spreads the histogram: more pixels away from the extremes'
        # neighbourhood, i.e. the mid-tones gain contrast.
        assert not np.array_equal(image, target)
    # The same seed writes the same bytes; another seed other images.
    for sub in ("inputs", "targets"):
        for x, y in zip(load(first, sub), load(same, sub)):
            assert np.array_equal(x, y)
    assert not np.array_equal(load(first, "inputs")[0],
                              load(other, "inputs")[0])
    # H,W sizes.
    assert load(wide, "inputs")[0].shape == (48, 80)
    # Bone attenuates most: a chest's spine column is brighter than the
    # lungs beside it (the phantom's geometry in relative coordinates).
    rng = np.random.default_rng(5)
    chest = radiographs.radiograph(rng, (128, 128), anatomy="chest")
    spine, lung = chest[40:80, 62:66].mean(), chest[40:80, 30:40].mean()
    assert spine > lung + 0.1, (spine, lung)
    print("radiographs: ok")


if __name__ == "__main__":
    main(*sys.argv[1:])
