#!/usr/bin/env python3
"""memopt.testing.check_training on a real smp network.

Registers `smp-ARCH` (smp's `ARCH(encoder_name=ENCODER,
encoder_weights=None, in_channels=C, classes=1)`, dropout off where the
class takes `psp_dropout` or `decoder_dropout`, so that the steps compare
with PyTorch's) in memopt's model registry for this process and runs
check_training with the remaining arguments. Runs in the venv that
field_networks.py makes (smp over the newest PyTorch); check_training
then exports in this interpreter:

    PYTHONPATH=python ~/.cache/memopt/field-venv/bin/python \\
        bench/smp_check_training.py --arch PSPNet --encoder resnet34 -- \\
        --memopt-compile build/bin/memopt-compile --model smp-PSPNet \\
        --size 64 --batch 2 --float64 --factor 2 --steps 3 \\
        --optimizer adam --lr 1e-3 --exporter torch.export \\
        --workdir /tmp/smp-check

smp keeps encoder stages its forward never reads (PSPNet's encoder_depth
3 keeps ResNet's layer3 and layer4): check_training reports them as "not
an initializer of --out" and fails on that alone; the compared tensors'
errors are the result.
"""
import argparse
import sys

import torch.nn as nn


def registered(arch, encoder):
    """The registry name of smp's `arch` on `encoder`, registered."""
    import inspect

    import segmentation_models_pytorch as smp
    from memopt import models

    cls = getattr(smp, arch)
    off = {k: 0.0 for k in ("psp_dropout", "decoder_dropout")
           if k in inspect.signature(cls).parameters}

    class Smp(nn.Module):
        def __init__(self, in_channels=1):
            super().__init__()
            self.net = cls(encoder_name=encoder, encoder_weights=None,
                           in_channels=in_channels, classes=1, **off)

        def check_input_shape(self, shape):
            pass  # smp checks the size itself

        def forward(self, x):
            return self.net(x)

    name = "smp-" + arch
    models.MODELS[name] = Smp
    return name


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    split = argv.index("--") if "--" in argv else len(argv)
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", default="PSPNet")
    parser.add_argument("--encoder", default="resnet34")
    args = parser.parse_args(argv[:split])
    registered(args.arch, args.encoder)
    from memopt.testing import check_training

    return check_training.main(argv[split + 1:])


if __name__ == "__main__":
    sys.exit(main())
