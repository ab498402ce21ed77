"""Model registry: one name per model variant the compiler is tested against."""
import functools
import inspect

from .classic_unet import ClassicUNet
from .resnet_unet import ResNet34UNet

MODELS = {
    "resnet34-unet": ResNet34UNet,
    "unet": functools.partial(ClassicUNet, upsample="transpose", batch_norm=True),
    "unet-bilinear": functools.partial(ClassicUNet, upsample="bilinear", batch_norm=True),
    "unet-nobn": functools.partial(ClassicUNet, upsample="transpose", batch_norm=False),
    "unet-bilinear-nobn": functools.partial(ClassicUNet, upsample="bilinear", batch_norm=False),
}


def build(name, **kw):
    """Build model `name` with constructor kwargs `kw` (e.g. base, depth, classes).

    Raises ValueError for unknown names or kwargs the model does not take, so
    callers such as the export CLI can report them without a traceback.
    """
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; choose from {', '.join(MODELS)}")
    factory = MODELS[name]
    accepted = inspect.signature(factory).parameters
    unknown = sorted(set(kw) - set(accepted))
    if unknown:
        raise ValueError(f"model {name!r} does not take {', '.join(unknown)}")
    return factory(**kw)
