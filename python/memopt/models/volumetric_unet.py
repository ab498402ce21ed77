"""nnU-Net-style plain U-Nets of 1, 2 or 3 spatial dimensions.

The topology of nnU-Net's PlainConvUNet (and of MONAI's DynUNet without
deep supervision): per stage two (conv 3 -> InstanceNorm(affine) ->
LeakyReLU(0.01)) layers, the first of each encoder stage below the top
strided (stride 2) instead of pooled; the decoder upsamples with a
transposed convolution (kernel 2, stride 2), concatenates the skip and
applies two such layers; a 1x1 convolution and a sigmoid give one channel.
Features double per stage from `base`, capped at `max_width` as nnU-Net
caps them at 320. `dims` picks Conv1d / Conv2d / Conv3d and the matching
norm and ConvTranspose, so that one builder covers every rank; `norm`
"batch" puts BatchNorm (affine, training mode) where InstanceNorm was,
"group" GroupNorm (2 groups, MONAI's DynUNet option), which PyTorch
exports as an instance norm between reshapes. `activation` "prelu" puts
PReLU (one slope per channel) where LeakyReLU was.
`down` "maxpool" or "avgpool" pools (kernel 2) before each lower stage, as
the classic U-Net does, instead of striding its first convolution; `gate`
adds a squeeze-and-excitation gate at the bottleneck (global average
pooling, 1x1 convolution, sigmoid, product), as attention U-Nets do.
`upsample` "linear" or "nearest" replaces the transposed convolution by
F.interpolate (x2; linear, bilinear or trilinear by rank, align_corners
False) and a 1x1 convolution, as MONAI's non-trainable upsampling does.
`padding_mode` "replicate" or "reflect" pads the 3-wide convolutions'
borders as MONAI's BasicUNet does (replicate), exported as an edge or
reflect Pad before an unpadded convolution.
`classes` C > 1 ends in C channels of logits (no sigmoid), for
--loss=ce|dice|ce+dice. `nnunet_depth` is nnU-Net's rule for the depth
of a patch.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

CONV = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}
CONV_TRANSPOSE = {1: nn.ConvTranspose1d, 2: nn.ConvTranspose2d,
                  3: nn.ConvTranspose3d}
POOL = {"maxpool": {1: nn.MaxPool1d, 2: nn.MaxPool2d, 3: nn.MaxPool3d},
        "avgpool": {1: nn.AvgPool1d, 2: nn.AvgPool2d, 3: nn.AvgPool3d}}
GLOBAL_POOL = {1: nn.AdaptiveAvgPool1d, 2: nn.AdaptiveAvgPool2d,
               3: nn.AdaptiveAvgPool3d}
NORM = {"instance": {1: nn.InstanceNorm1d, 2: nn.InstanceNorm2d,
                     3: nn.InstanceNorm3d},
        "batch": {1: nn.BatchNorm1d, 2: nn.BatchNorm2d, 3: nn.BatchNorm3d},
        "group": None}
ACTIVATION = {"leaky_relu": lambda channels: nn.LeakyReLU(0.01),
              "prelu": lambda channels: nn.PReLU(channels, init=0.2)}


def norm_layer(norm, dims, channels):
    """The affine norm `norm` of `channels` channels for rank `dims`."""
    if norm == "group":
        return nn.GroupNorm(2 if channels % 2 == 0 else 1, channels)
    return NORM[norm][dims](channels, affine=True)


class Interpolate(nn.Module):
    """x2 interpolation (linear modes by rank), then `project`."""

    def __init__(self, dims, mode, project):
        super().__init__()
        self.mode = {1: "linear", 2: "bilinear", 3: "trilinear"}[dims] \
            if mode == "linear" else mode
        self.project = project

    def forward(self, x):
        corners = {} if self.mode == "nearest" else {"align_corners": False}
        return self.project(F.interpolate(x, scale_factor=2.0, mode=self.mode,
                                          **corners))


# nnU-Net's experiment planner halves a patch axis while the result is at
# least this many voxels, and caps the halvings at 5.
NNUNET_MIN_FEATURE_MAP = 4
NNUNET_MAX_HALVINGS = 5


def nnunet_depth(patch):
    """The halvings nnU-Net's planner gives a cubic patch of side `patch`:
    while the side stays a multiple of 2 and at least 4 after halving,
    at most 5 (64 -> 4, 128 -> 5, 16 -> 2)."""
    depth = 0
    while (depth < NNUNET_MAX_HALVINGS and patch % 2 == 0
           and patch // 2 >= NNUNET_MIN_FEATURE_MAP):
        patch //= 2
        depth += 1
    return depth


def layer(dims, norm, cin, cout, stride=1, activation="leaky_relu",
          padding_mode="zeros"):
    return [CONV[dims](cin, cout, 3, stride=stride, padding=1,
                       padding_mode=padding_mode),
            norm_layer(norm, dims, cout), ACTIVATION[activation](cout)]


class VolumetricUNet(nn.Module):
    def __init__(self, in_channels=1, dims=3, base=4, depth=2, max_width=320,
                 norm="instance", down="stride", gate=False,
                 upsample="transpose", classes=1, activation="leaky_relu",
                 padding_mode="zeros"):
        super().__init__()
        if classes < 1:
            raise ValueError(f"classes must be at least 1, got {classes}")
        if dims not in CONV:
            raise ValueError(f"dims must be 1, 2 or 3, got {dims}")
        if norm not in NORM:
            raise ValueError(f"norm must be one of {', '.join(NORM)}, "
                             f"got {norm!r}")
        if activation not in ACTIVATION:
            raise ValueError(f"activation must be one of "
                             f"{', '.join(ACTIVATION)}, got {activation!r}")
        if upsample not in ("transpose", "linear", "nearest"):
            raise ValueError(f"upsample must be transpose, linear or "
                             f"nearest, got {upsample!r}")
        if padding_mode not in ("zeros", "replicate", "reflect"):
            raise ValueError(f"padding_mode must be zeros, replicate or "
                             f"reflect, got {padding_mode!r}")
        if down != "stride" and down not in POOL:
            raise ValueError(f"down must be stride, {', '.join(POOL)}, "
                             f"got {down!r}")
        self.in_channels, self.dims, self.depth = in_channels, dims, depth
        widths = [min(base * 2 ** i, max_width) for i in range(depth + 1)]
        self.down = nn.ModuleList()
        cin = in_channels
        for i, w in enumerate(widths):
            pool = [POOL[down][dims](2)] if i and down != "stride" else []
            stride = 2 if i and down == "stride" else 1
            self.down.append(nn.Sequential(
                *pool, *layer(dims, norm, cin, w, stride, activation,
                              padding_mode),
                *layer(dims, norm, w, w, activation=activation,
                       padding_mode=padding_mode)))
            cin = w
        self.gate = nn.Sequential(GLOBAL_POOL[dims](1), CONV[dims](cin, cin, 1),
                                  nn.Sigmoid()) if gate else None
        self.upsample = nn.ModuleList()
        self.up = nn.ModuleList()
        for w in reversed(widths[:-1]):
            self.upsample.append(
                CONV_TRANSPOSE[dims](cin, w, 2, stride=2)
                if upsample == "transpose"
                else Interpolate(dims, upsample, CONV[dims](cin, w, 1)))
            self.up.append(nn.Sequential(
                *layer(dims, norm, 2 * w, w, activation=activation,
                       padding_mode=padding_mode),
                *layer(dims, norm, w, w, activation=activation,
                       padding_mode=padding_mode)))
            cin = w
        self.head = CONV[dims](cin, classes, 1)
        self.classes = classes

    def check_input_shape(self, shape):
        """Raise ValueError unless `shape` is (C, spatial...) with
        `in_channels` channels, `dims` spatial axes, each halving evenly
        `depth` times."""
        if len(shape) != self.dims + 1:
            raise ValueError(f"a {self.dims}-D U-Net takes C and "
                             f"{self.dims} spatial sizes, got {shape}")
        c, *spatial = shape
        if c != self.in_channels:
            raise ValueError(f"input has {c} channels, model expects "
                             f"{self.in_channels}")
        if any(n % 2 ** self.depth for n in spatial):
            raise ValueError(f"depth {self.depth} needs every spatial size "
                             f"divisible by {2 ** self.depth}, got "
                             f"{'x'.join(map(str, spatial))}")

    def forward(self, x):
        skips = []
        for stage in self.down:
            x = stage(x)
            skips.append(x)
        skips.pop()
        if self.gate is not None:
            x = x * self.gate(x)
        for upsample, stage in zip(self.upsample, self.up):
            x = stage(torch.cat([upsample(x), skips.pop()], dim=1))
        logits = self.head(x)
        return torch.sigmoid(logits) if self.classes == 1 else logits
