"""Classic U-Net (Ronneberger et al. 2015) in the milesial/Pytorch-UNet variant.

Padding convs keep sizes, so the only size fix-up is milesial's F.pad of the
upsampled tensor to the skip's size (non-zero when a pooled size was odd).
Submodule names follow milesial (inc, down1.., up1.., outc) so its checkpoints load.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class DoubleConv(nn.Module):
    """(Conv3x3 -> [BN] -> ReLU) x 2; the conv carries a bias only without BN."""

    def __init__(self, in_channels, out_channels, mid_channels=None, batch_norm=True):
        super().__init__()
        mid_channels = mid_channels or out_channels
        layers = []
        for cin, cout in ((in_channels, mid_channels), (mid_channels, out_channels)):
            layers.append(nn.Conv2d(cin, cout, kernel_size=3, padding=1, bias=not batch_norm))
            if batch_norm:
                layers.append(nn.BatchNorm2d(cout))
            layers.append(nn.ReLU(inplace=True))
        self.double_conv = nn.Sequential(*layers)

    def forward(self, x):
        return self.double_conv(x)


class Down(nn.Module):
    """MaxPool2d(2) then DoubleConv."""

    def __init__(self, in_channels, out_channels, batch_norm=True):
        super().__init__()
        self.maxpool_conv = nn.Sequential(nn.MaxPool2d(2), DoubleConv(in_channels, out_channels, batch_norm=batch_norm))

    def forward(self, x):
        return self.maxpool_conv(x)


class Up(nn.Module):
    """Upsample x2, pad to the skip's size, concat [skip, up], DoubleConv."""

    def __init__(self, in_channels, out_channels, bilinear, batch_norm=True):
        super().__init__()
        if bilinear:
            self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=True)
            self.conv = DoubleConv(in_channels, out_channels, in_channels // 2, batch_norm)
        else:
            self.up = nn.ConvTranspose2d(in_channels, in_channels // 2, kernel_size=2, stride=2)
            self.conv = DoubleConv(in_channels, out_channels, batch_norm=batch_norm)

    def forward(self, x1, x2):
        x1 = self.up(x1)
        diff_y = x2.size()[2] - x1.size()[2]
        diff_x = x2.size()[3] - x1.size()[3]
        x1 = F.pad(x1, [diff_x // 2, diff_x - diff_x // 2, diff_y // 2, diff_y - diff_y // 2])
        return self.conv(torch.cat([x2, x1], dim=1))


class OutConv(nn.Module):
    """1x1 conv to the class channels."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=1)

    def forward(self, x):
        return self.conv(x)


class ClassicUNet(nn.Module):
    """U-Net with widths base*2^i for i in 0..depth.

    With bilinear upsampling the deepest level and every Up but the last are
    halved (milesial's ``factor``), because Upsample keeps channel counts.
    """

    def __init__(self, in_channels=1, classes=1, base=64, depth=4, upsample="transpose",
                 batch_norm=True, sigmoid=True):
        super().__init__()
        if upsample not in ("transpose", "bilinear"):
            raise ValueError(f"upsample must be 'transpose' or 'bilinear', got {upsample!r}")
        if base < 2 or depth < 1:
            raise ValueError(f"need base >= 2 and depth >= 1, got base={base} depth={depth}")
        bilinear = upsample == "bilinear"
        factor = 2 if bilinear else 1
        self.in_channels = in_channels
        self.depth = depth
        self.inc = DoubleConv(in_channels, base, batch_norm=batch_norm)
        for i in range(1, depth + 1):
            out = base * 2 ** i // (factor if i == depth else 1)
            self.add_module(f"down{i}", Down(base * 2 ** (i - 1), out, batch_norm))
        for j in range(1, depth + 1):
            cin = base * 2 ** (depth - j + 1)
            out = base * 2 ** (depth - j) // (factor if j < depth else 1)
            self.add_module(f"up{j}", Up(cin, out, bilinear, batch_norm))
        self.outc = OutConv(base, classes)
        self.sigmoid = nn.Sigmoid() if sigmoid else nn.Identity()

    def check_input_shape(self, shape):
        """Raise ValueError unless (C, H, W) survives `depth` 2x2 poolings."""
        c, h, w = shape
        if c != self.in_channels:
            raise ValueError(f"input has {c} channels, model expects {self.in_channels}")
        if min(h, w) < 2 ** self.depth:
            raise ValueError(f"depth {self.depth} needs H and W >= {2 ** self.depth}, got {h}x{w}")

    def forward(self, x):
        skips = [self.inc(x)]
        for i in range(1, self.depth + 1):
            skips.append(getattr(self, f"down{i}")(skips[-1]))
        x = skips.pop()
        for j in range(1, self.depth + 1):
            x = getattr(self, f"up{j}")(x, skips.pop())
        return self.sigmoid(self.outc(x))
