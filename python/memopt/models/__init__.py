"""Model registry: one name per model variant the compiler is tested against."""
import functools
import inspect

from .classic_unet import ClassicUNet
from .deep_supervision_unet import DeepSupervisionUNet
from .resnet_unet import ResNet34UNet
from .segmentation_unet import SegmentationUNet
from .transformer_unet import SwinUNet, UNETR
from .volumetric_unet import VolumetricUNet
from .expand_gate_net import ExpandGateNet
from .psp_net import PSPNet
from .window_attention_net import WindowAttentionNet

MODELS = {
    "resnet34-unet": ResNet34UNet,
    "unet": functools.partial(ClassicUNet, upsample="transpose", batch_norm=True),
    "unet-bilinear": functools.partial(ClassicUNet, upsample="bilinear", batch_norm=True),
    "unet-nobn": functools.partial(ClassicUNet, upsample="transpose", batch_norm=False),
    "unet-bilinear-nobn": functools.partial(ClassicUNet, upsample="bilinear", batch_norm=False),
    # Regression (one sigmoid channel) with the norms and activations of
    # segmentation networks: InstanceNorm + LeakyReLU/GELU/HardSwish, and
    # GroupNorm + HardSwish/ELU/PReLU/Hardsigmoid/Softplus.
    "unet-instancenorm": functools.partial(
        SegmentationUNet, norm="instance", sigmoid=True,
        activations=("leaky_relu", "gelu", "hardswish")),
    "unet-groupnorm": functools.partial(
        SegmentationUNet, norm="group", sigmoid=True,
        activations=("hardswish", "elu", "prelu", "hardsigmoid", "softplus")),
    # Multi-class segmentation: 3 classes of logits for --loss=ce|dice.
    "seg-unet": functools.partial(
        SegmentationUNet, classes=3, norm="instance",
        activations=("leaky_relu", "gelu")),
    # nnU-Net's PlainConvUNet with deep supervision: 3 outputs of 3 classes
    # (full resolution, 1/2, 1/4) for --deep-supervision.
    "ds-unet": DeepSupervisionUNet,
    # The same network regressing one channel, for --deep-supervision with
    # image losses (the target averaged down to each output).
    "ds-unet-regression": functools.partial(DeepSupervisionUNet, classes=1),
    # nnU-Net's PlainConvUNet (strided-conv encoder, transposed-conv
    # decoder, InstanceNorm + LeakyReLU) regressing one channel, in 3-D
    # (N x C x D x H x W) and 1-D (N x C x W); and with BatchNorm3d.
    "unet3d": functools.partial(VolumetricUNet, dims=3),
    "unet3d-batchnorm": functools.partial(VolumetricUNet, dims=3,
                                          norm="batch"),
    "unet1d": functools.partial(VolumetricUNet, dims=1),
    # MONAI-style: GroupNorm (2 groups) and PReLU in the same 3-D topology.
    "unet3d-groupnorm-prelu": functools.partial(VolumetricUNet, dims=3,
                                                norm="group",
                                                activation="prelu"),
    # Pooled encoders and a squeeze-and-excitation gate at the bottleneck:
    # MaxPool3d, AvgPool1d and GlobalAveragePool.
    "unet3d-maxpool": functools.partial(VolumetricUNet, dims=3,
                                        down="maxpool", gate=True),
    "unet1d-avgpool": functools.partial(VolumetricUNet, dims=1,
                                        down="avgpool", gate=True),
    # F.interpolate instead of ConvTranspose: trilinear in 3-D, nearest in
    # 1-D.
    "unet3d-trilinear": functools.partial(VolumetricUNet, dims=3,
                                          upsample="linear"),
    "unet1d-nearest": functools.partial(VolumetricUNet, dims=1,
                                        upsample="nearest"),
    # MONAI BasicUNet's replicate padding (an edge Pad before each 3-wide
    # convolution) in 3-D, and reflect padding in 1-D: the pads' gradients.
    "unet3d-replicate": functools.partial(VolumetricUNet, dims=3,
                                          padding_mode="replicate"),
    "unet1d-reflect": functools.partial(VolumetricUNet, dims=1,
                                        padding_mode="reflect"),
    # nnU-Net's 3d_fullres PlainConvUNet as examples/ct-unet3d trains it:
    # features 32, 64, ... capped at 320, 4 classes of logits for
    # --loss=ce+dice; depth 4, nnU-Net's for a 64^3 patch (the example
    # passes volumetric_unet.nnunet_depth of its patch).
    "nnunet3d": functools.partial(VolumetricUNet, dims=3, base=32, depth=4,
                                  classes=4),
    # Transformer U-Nets as MONAI writes them (LayerNorm, packed q/k/v
    # split by indexing, einsum or matmul attention, GELU MLPs): UNETR's ViT
    # encoder in 2-D and 3-D, and SwinUNETR's shifted-window encoder with
    # its relative-position bias table. Their position embeddings and
    # windows fix the input size: the exporter passes it as `size`.
    "unetr": UNETR,
    "unetr-sdpa": functools.partial(UNETR, attention="sdpa"),
    "unetr-mha": functools.partial(UNETR, attention="torch"),
    "unetr3d": functools.partial(UNETR, dims=3, size=16, dim=24, heads=2),
    "swin-unet": SwinUNet,
    # SwinUNETR's encoder in 3-D: 3x3x3 windows (8-D window views) of an
    # 8x8x8 token grid zero-padded to 9x9x9 as MONAI pads it, shifted in
    # three axes, 2x2x2 patch merging.
    "swin-unet3d": functools.partial(SwinUNet, dims=3, size=16, window=3),
    # Swin-style window attention with a relative position bias table
    # (table[index] of a parameter: Gather / GatherND) on one 4x4 window of
    # an 8x8 input.
    "window-attention": WindowAttentionNet,
    # A squeeze-and-excitation-style gate expanded over the feature map at
    # run time (ONNX Expand of an activation).
    "expand-gate": ExpandGateNet,
    # smp's PSPNet in miniature: a ResNet-style encoder with BatchNorm to
    # stride 8, adaptive average pooling to 1, 2, 3 and 6 (non-uniform
    # windows on 8x8 features), bilinear upsampling, concatenation.
    "psp-net": PSPNet,
}


def spatial_dims(name):
    """The spatial axes of model `name`'s input: 2 (H, W) unless the model
    takes another rank (its `dims` argument)."""
    return arguments(name).get("dims", 2)


def arguments(name, **kw):
    """The constructor arguments of model `name`: its defaults with `kw`
    over them (e.g. base, depth, classes), without building anything.

    Raises ValueError for unknown names or kwargs the model does not take, so
    callers such as the export CLI can report them without a traceback.
    """
    if name not in MODELS:
        raise ValueError(f"unknown model {name!r}; choose from {', '.join(MODELS)}")
    accepted = inspect.signature(MODELS[name]).parameters
    unknown = sorted(set(kw) - set(accepted))
    if unknown:
        raise ValueError(f"model {name!r} does not take {', '.join(unknown)}")
    defaults = {k: p.default for k, p in accepted.items()
                if p.default is not inspect.Parameter.empty}
    return {**defaults, **kw}


def sized_arguments(name, input_shape, **kw):
    """`kw` plus `size` (the input's side) for models built for one input
    size (a `size` argument), unless `kw` sets it."""
    if "size" in inspect.signature(MODELS[name]).parameters:
        kw.setdefault("size", input_shape[-1])
    return kw


def build(name, **kw):
    """Build model `name` with constructor kwargs `kw` (ValueError as
    `arguments`)."""
    return MODELS[name](**arguments(name, **kw))
