#!/usr/bin/env python3
"""memopt.testing.check_training on a real network of smp or MONAI.

Registers `LIBRARY-ARCH` in memopt's model registry for this process and
runs check_training with the arguments after `--`:

- smp: `ARCH(encoder_name=ENCODER, encoder_weights=None, in_channels=C,
  classes=1)`, dropout off where the class takes `psp_dropout` or
  `decoder_dropout`, so that the steps compare with PyTorch's;
- monai: `monai.networks.nets.ARCH(in_channels=C, out_channels=1,
  **KWARGS)` (`--kwargs` JSON, e.g. '{"feature_size": 12,
  "spatial_dims": 3}'; the input has `spatial_dims` axes, 3 unless set).

Runs in the venv that field_networks.py makes (smp over the newest
PyTorch); MONAI (and einops) are pip-installed into that venv on first
use, torch pinned by its constraints file. check_training then exports in
this interpreter:

    PYTHONPATH=python ~/.cache/memopt/field-venv/bin/python \\
        bench/library_check_training.py --library smp --arch PSPNet \\
        --encoder resnet34 -- --memopt-compile build/bin/memopt-compile \\
        --model smp-PSPNet --size 64 --batch 2 --float64 --factor 2 \\
        --steps 3 --optimizer adam --lr 1e-3 --exporter torch.export \\
        --workdir /tmp/smp-check

smp keeps encoder stages its forward never reads (PSPNet's encoder_depth
3 keeps ResNet's layer3 and layer4): they are not in the exported file,
and check_training counts them as left as built by PyTorch too.
"""
import argparse
import importlib
import inspect
import json
import os
import subprocess
import sys

import torch.nn as nn


def smp_network(arch, encoder, kwargs):
    import segmentation_models_pytorch as smp

    cls = getattr(smp, arch)
    off = {k: 0.0 for k in ("psp_dropout", "decoder_dropout")
           if k in inspect.signature(cls).parameters}
    return lambda channels: cls(encoder_name=encoder, encoder_weights=None,
                                in_channels=channels, classes=1,
                                **{**off, **kwargs})


def monai_network(arch, encoder, kwargs):
    ensure_installed("monai", ["monai", "einops"])
    from monai.networks import nets

    cls = getattr(nets, arch)
    return lambda channels: cls(in_channels=channels, out_channels=1,
                                **kwargs)


def ensure_installed(module, requirements):
    """pip-installs `requirements` into this venv unless `module` imports
    (torch pinned by the venv's constraints file, when it has one)."""
    try:
        importlib.import_module(module)
        return
    except ImportError:
        pass
    constraints = os.path.join(sys.prefix, "constraints.txt")
    pin = ["-c", constraints] if os.path.exists(constraints) else []
    done = subprocess.run([sys.executable, "-m", "pip", "install", "--quiet",
                           "--disable-pip-version-check"] + pin + requirements)
    if done.returncode:
        raise SystemExit("library_check_training: error: pip could not "
                         "install %s into %s (PyPI unreachable?)"
                         % (" ".join(requirements), sys.prefix))


LIBRARIES = {"smp": smp_network, "monai": monai_network}


def registered(library, arch, encoder, kwargs):
    """The registry name of `library`'s `arch`, registered."""
    from memopt import models

    build = LIBRARIES[library](arch, encoder, kwargs)
    dims = kwargs.get("spatial_dims", 3 if library == "monai" else 2)

    class Network(nn.Module):
        def __init__(self, in_channels=1):
            super().__init__()
            self.net = build(in_channels)

        def check_input_shape(self, shape):
            pass  # the library checks the size itself

        def forward(self, x):
            return self.net(x)

    name = "%s-%s" % (library, arch)
    models.MODELS[name] = Network
    spatial_dims = models.spatial_dims
    models.spatial_dims = lambda n: dims if n == name else spatial_dims(n)
    return name


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--library", choices=sorted(LIBRARIES),
                        default="smp")
    parser.add_argument("--arch", default="PSPNet")
    parser.add_argument("--encoder", default="resnet34",
                        help="smp's encoder_name")
    parser.add_argument("--kwargs", default="{}", type=json.loads,
                        help="more constructor arguments, as JSON")
    args = parser.parse_args(argv[:split])
    registered(args.library, args.arch, args.encoder, args.kwargs)
    from memopt.testing import check_training

    return check_training.main(argv[split + 1:])


if __name__ == "__main__":
    sys.exit(main())
