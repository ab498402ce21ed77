"""Small U-Nets of the kind segmentation code bases use (nnU-Net, MONAI,
MobileNetV3-style encoders): InstanceNorm or GroupNorm instead of BatchNorm
and activations other than ReLU. memopt's E2E checks train them against
PyTorch.

Each block is (Conv3x3 -> norm -> activation) x 2; the encoder max-pools,
the decoder upsamples (nearest, x2) and concatenates the skip. The
activations cycle through `activations` block by block, so one model
covers several. With `classes` > 1 the head yields logits for
--loss=ce|dice; with one class, `sigmoid=True` gives a mask in [0, 1].
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

ACTIVATIONS = {
    "leaky_relu": lambda c: nn.LeakyReLU(0.1),
    "gelu": lambda c: nn.GELU(),
    "hardswish": lambda c: nn.Hardswish(),
    "hardsigmoid": lambda c: nn.Hardsigmoid(),
    "elu": lambda c: nn.ELU(0.5),
    "softplus": lambda c: nn.Softplus(),
    "prelu": lambda c: nn.PReLU(c, init=0.2),
}


def norm_layer(kind, channels):
    if kind == "instance":
        return nn.InstanceNorm2d(channels, affine=True)
    if kind == "group":
        return nn.GroupNorm(2 if channels % 2 == 0 else 1, channels)
    raise ValueError("unknown norm %r" % kind)


def check_halving_shape(shape, in_channels, depth):
    """Raise ValueError unless (C, H, W) has `in_channels` channels and
    halves evenly `depth` times."""
    c, h, w = shape
    if c != in_channels:
        raise ValueError(f"input has {c} channels, model expects {in_channels}")
    if h % 2 ** depth or w % 2 ** depth:
        raise ValueError(f"depth {depth} needs H and W divisible by {2 ** depth}, got {h}x{w}")


class Block(nn.Module):
    def __init__(self, cin, cout, norm, activation):
        super().__init__()
        layers = []
        for a, b in ((cin, cout), (cout, cout)):
            layers += [nn.Conv2d(a, b, 3, padding=1), norm_layer(norm, b),
                       ACTIVATIONS[activation](b)]
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


class SegmentationUNet(nn.Module):
    def __init__(self, in_channels=1, classes=1, base=8, depth=2,
                 norm="instance", activations=("leaky_relu",), sigmoid=False):
        super().__init__()
        self.in_channels, self.depth = in_channels, depth
        acts = list(activations)
        pick = lambda i: acts[i % len(acts)]  # noqa: E731
        widths = [base * 2 ** i for i in range(depth + 1)]
        self.down = nn.ModuleList()
        cin = in_channels
        for i, w in enumerate(widths):
            self.down.append(Block(cin, w, norm, pick(i)))
            cin = w
        self.up = nn.ModuleList()
        for i, w in enumerate(reversed(widths[:-1])):
            self.up.append(Block(cin + w, w, norm, pick(depth + 1 + i)))
            cin = w
        self.head = nn.Conv2d(cin, classes, 1)
        self.sigmoid = sigmoid

    def check_input_shape(self, shape):
        check_halving_shape(shape, self.in_channels, self.depth)

    def forward(self, x):
        skips = []
        for i, block in enumerate(self.down):
            if i:
                x = F.max_pool2d(x, 2)
            x = block(x)
            skips.append(x)
        skips.pop()
        for block in self.up:
            x = F.interpolate(x, scale_factor=2.0, mode="nearest")
            x = block(torch.cat([x, skips.pop()], dim=1))
        x = self.head(x)
        return torch.sigmoid(x) if self.sigmoid else x
