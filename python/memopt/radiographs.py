#!/usr/bin/python3
"""Synthetic radiographs and their contrast-enhanced targets.

No radiograph can be downloaded here, so the examples and benchmarks train
on phantoms that look and behave like projection radiographs:

- anatomy: a chest (body outline, lungs, heart, spine, ribs, clavicles) or a
  limb (soft tissue around two long bones), with random sizes, positions
  and rotations, given as projected thickness maps of soft tissue, cortical
  bone and marrow (the thickness of an ellipsoid or tube along the beam);
- X-ray physics: Beer-Lambert attenuation of a monoenergetic beam
  (linear attenuation coefficients near 60 keV), scatter as a
  low-frequency copy of the primary image scaled by a scatter-to-primary
  ratio, the detector's blur, photon (Poisson) noise and electronic
  (Gaussian) noise;
- display: the log of the attenuation, normalized to [0, 1], bone bright.

The target of each image is what a conventional contrast-enhancement
algorithm makes of it: CLAHE (scikit-image's equalize_adapthist) followed
by unsharp masking, the mapping the radiograph study trains its U-Net to
learn. Geometry is in coordinates relative to the image, so any resolution
(4192 x 4192 included) gives the same anatomy.

Images are written in the training binary's data layout
(docs/contract.md): DIR/inputs/NAME.png and DIR/targets/NAME.png, 16-bit
grayscale PNG.

    /usr/bin/python3 -m memopt.radiographs DIR --count N --size H[,W] [--seed S]
"""

import argparse
import os
import sys

import numpy as np
from PIL import Image
from scipy import ndimage
from skimage import exposure, filters

# Linear attenuation coefficients (1/cm) near 60 keV: soft tissue, cortical
# bone, marrow.
MU_SOFT = 0.20
MU_BONE = 0.55
MU_MARROW = 0.25
# Photons per pixel of the unattenuated beam, and the detector's electronic
# noise (photons, standard deviation).
PHOTONS = 20000.0
ELECTRONIC_NOISE = 4.0


def _grid(shape):
    """Pixel centres in [-1, 1] along the longer side (square pixels)."""
    h, w = shape
    scale = 2.0 / max(h, w)
    ys = (np.arange(h) - (h - 1) / 2.0) * scale
    xs = (np.arange(w) - (w - 1) / 2.0) * scale
    return np.meshgrid(ys, xs, indexing="ij")


def _rotate(y, x, cy, cx, angle):
    c, s = np.cos(angle), np.sin(angle)
    dy, dx = y - cy, x - cx
    return c * dy - s * dx, s * dy + c * dx


def ellipsoid(y, x, cy, cx, ry, rx, depth, angle=0.0):
    """Projected thickness (cm) of an ellipsoid with semi-axes ry, rx (image
    units) and `depth` (cm) along the beam."""
    v, u = _rotate(y, x, cy, cx, angle)
    r2 = (v / ry) ** 2 + (u / rx) ** 2
    return depth * np.sqrt(np.clip(1.0 - r2, 0.0, None))


def tube(distance, radius, depth):
    """Projected thickness (cm) of a cylinder of `radius` (image units)
    whose axis is `distance` away, `depth` cm thick at its axis."""
    return depth * np.sqrt(np.clip(1.0 - (distance / radius) ** 2, 0.0, None))


def bone(distance, radius, depth, shell):
    """Cortical bone and marrow thickness maps of a long bone: a tube whose
    outer `shell` fraction is cortex."""
    outer = tube(distance, radius, depth)
    inner = tube(distance, radius * (1.0 - shell), depth * (1.0 - shell))
    return outer - inner, inner


def _segment_distance(y, x, p0, p1):
    """Distance of every pixel to the segment p0-p1."""
    (y0, x0), (y1, x1) = p0, p1
    dy, dx = y1 - y0, x1 - x0
    t = np.clip(((y - y0) * dy + (x - x0) * dx) / (dy * dy + dx * dx), 0, 1)
    return np.hypot(y - (y0 + t * dy), x - (x0 + t * dx))


def _arc_distance(y, x, cy, cx, radius, start, stop):
    """Distance of every pixel to a circular arc (angles in radians)."""
    angle = np.arctan2(y - cy, x - cx)
    inside = (angle - start) % (2 * np.pi) <= (stop - start) % (2 * np.pi)
    radial = np.abs(np.hypot(y - cy, x - cx) - radius)
    ends = np.minimum(
        np.hypot(y - (cy + radius * np.sin(start)),
                 x - (cx + radius * np.cos(start))),
        np.hypot(y - (cy + radius * np.sin(stop)),
                 x - (cx + radius * np.cos(stop))))
    return np.where(inside, radial, ends)


def chest(rng, y, x):
    """Soft tissue, cortex and marrow thickness maps (cm) of a chest."""
    soft = ellipsoid(y, x, rng.uniform(-0.03, 0.03), 0.0,
                     rng.uniform(0.85, 0.95), rng.uniform(0.75, 0.88),
                     rng.uniform(20, 26), rng.uniform(-0.05, 0.05))
    # Lungs: air that replaces tissue along the beam.
    for side in (-1, 1):
        soft -= ellipsoid(y, x, rng.uniform(-0.12, -0.02),
                          side * rng.uniform(0.30, 0.38),
                          rng.uniform(0.50, 0.60), rng.uniform(0.22, 0.28),
                          rng.uniform(15, 19), side * rng.uniform(0.0, 0.15))
    # The heart adds tissue back over the left lung's lower part.
    soft += ellipsoid(y, x, rng.uniform(0.12, 0.22), rng.uniform(0.05, 0.14),
                      rng.uniform(0.20, 0.26), rng.uniform(0.22, 0.28),
                      rng.uniform(5, 7), rng.uniform(-0.4, -0.2))
    cortex = np.zeros_like(y)
    marrow = np.zeros_like(y)
    # Spine: vertebral bodies with discs between them.
    spine_x = rng.uniform(-0.02, 0.02)
    for top in np.arange(-0.85, 0.85, 0.13):
        c, m = bone(np.abs(x - spine_x), 0.06, 3.5, 0.3)
        inside = (y > top) & (y < top + 0.105)
        cortex += c * inside
        marrow += m * inside
    # Ribs: arcs from the spine around each side, and the clavicles.
    ribs = rng.integers(9, 12)
    for i in range(ribs):
        cy = -0.78 + i * rng.uniform(0.11, 0.12)
        for side in (-1, 1):
            start, stop = (np.pi * 1.05, np.pi * 1.55) if side < 0 else (
                -np.pi * 0.55, -np.pi * 0.05)
            d = _arc_distance(y, x, cy + 0.35, spine_x + side * 0.05,
                              rng.uniform(0.38, 0.44), start, stop)
            c, m = bone(d, 0.018, 1.2, 0.45)
            cortex += c
            marrow += m
    for side in (-1, 1):
        d = _segment_distance(y, x, (-0.72, spine_x + side * 0.08),
                              (-0.80 + rng.uniform(-0.04, 0.04),
                               side * rng.uniform(0.55, 0.65)))
        c, m = bone(d, 0.03, 1.8, 0.4)
        cortex += c
        marrow += m
    return np.clip(soft, 0, None), cortex, marrow


def limb(rng, y, x):
    """Soft tissue, cortex and marrow thickness maps (cm) of a forearm-like
    limb: soft tissue around two long bones, at a random angle."""
    angle = rng.uniform(-0.5, 0.5)
    v, u = _rotate(y, x, 0.0, rng.uniform(-0.1, 0.1), angle)
    width = rng.uniform(0.38, 0.5)
    soft = tube(np.abs(u), width, rng.uniform(7, 10)) * (np.abs(v) < 1.4)
    cortex = np.zeros_like(y)
    marrow = np.zeros_like(y)
    for offset, radius in ((-0.15, rng.uniform(0.08, 0.1)),
                           (0.16, rng.uniform(0.06, 0.08))):
        # Bones widen towards their ends (the epiphyses).
        flare = 1.0 + 0.5 * np.clip(np.abs(v) - 0.6, 0, None) ** 2
        c, m = bone(np.abs(u - offset * width / 0.45), radius * flare, 2.5,
                    0.35)
        cortex += c
        marrow += m
    return soft, cortex, marrow


def radiograph(rng, shape, anatomy=None):
    """One synthetic radiograph (float32 in [0, 1], bone bright)."""
    y, x = _grid(shape)
    if anatomy is None:
        anatomy = "chest" if rng.random() < 0.6 else "limb"
    soft, cortex, marrow = (chest if anatomy == "chest" else limb)(rng, y, x)
    primary = PHOTONS * np.exp(-(MU_SOFT * soft + MU_BONE * cortex +
                                 MU_MARROW * marrow))
    # Scatter: a smooth copy of the primary beam, computed at a coarse
    # resolution (its blur is a quarter of the image wide).
    factor = max(1, max(shape) // 64)
    coarse = primary[::factor, ::factor]
    blurred = ndimage.gaussian_filter(coarse, sigma=max(coarse.shape) / 8.0,
                                      mode="nearest")
    zoom = (shape[0] / coarse.shape[0], shape[1] / coarse.shape[1])
    scatter = ndimage.zoom(blurred, zoom, order=1)[:shape[0], :shape[1]]
    signal = primary + rng.uniform(0.2, 0.8) * scatter
    # The detector: blur of about a pixel at 1024, photon and electronic
    # noise.
    signal = ndimage.gaussian_filter(signal, sigma=max(shape) / 1024.0)
    counts = rng.poisson(signal) + rng.normal(0.0, ELECTRONIC_NOISE, shape)
    attenuation = -np.log(np.clip(counts, 1.0, None) / PHOTONS)
    low, high = np.percentile(attenuation, [0.5, 99.5])
    return np.clip((attenuation - low) / (high - low), 0, 1).astype(np.float32)


def enhance(image):
    """The conventional contrast enhancement a target is made with: CLAHE
    over tiles of 1/8 of the image, then unsharp masking."""
    tiles = max(8, max(image.shape) // 8)
    equalized = exposure.equalize_adapthist(image, kernel_size=tiles,
                                            clip_limit=0.01)
    sharpened = filters.unsharp_mask(equalized,
                                     radius=max(1.0, max(image.shape) / 256.0),
                                     amount=0.8)
    return np.clip(sharpened, 0, 1).astype(np.float32)


def to_uint16(image):
    return np.round(np.clip(image, 0, 1) * 65535.0).astype(np.uint16)


def write_png16(path, image):
    """A float image in [0, 1] as a 16-bit grayscale PNG."""
    Image.fromarray(to_uint16(image)).save(path)


def write_dataset(directory, count, shape, seed=0):
    """`count` (radiograph, enhanced) pairs of `shape` (H, W) as 16-bit PNG
    in the training binary's layout. Returns the file names."""
    rng = np.random.default_rng(seed)
    for sub in ("inputs", "targets"):
        os.makedirs(os.path.join(directory, sub), exist_ok=True)
    names = []
    for i in range(count):
        image = radiograph(rng, shape)
        name = "radiograph%04d.png" % i
        write_png16(os.path.join(directory, "inputs", name), image)
        write_png16(os.path.join(directory, "targets", name), enhance(image))
        names.append(name)
    return names


def parse_size(text):
    parts = text.split(",")
    try:
        dims = [int(p) for p in parts]
    except ValueError:
        dims = []
    if len(dims) == 1:
        dims *= 2
    if len(dims) != 2 or min(dims) < 16:
        raise argparse.ArgumentTypeError(
            "expected H or H,W, integers of at least 16, got '%s'" % text)
    return tuple(dims)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir")
    parser.add_argument("--count", type=int, default=4)
    parser.add_argument("--size", type=parse_size, default=(256, 256),
                        metavar="H[,W]")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.count < 1:
        parser.error("--count must be at least 1")
    names = write_dataset(args.dir, args.count, args.size, args.seed)
    print("wrote %d radiograph pairs of %dx%d to %s" %
          (len(names), args.size[0], args.size[1], args.dir))
    return 0


if __name__ == "__main__":
    sys.exit(main())
