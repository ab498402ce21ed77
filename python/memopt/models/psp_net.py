"""A small PSPNet: segmentation_models_pytorch's PSPNet topology in miniature.

smp's `PSPNet(encoder_name="resnet34", encoder_weights=None, in_channels=1,
classes=1)` without depending on smp (tests in CI cannot install it):

- a ResNet-style encoder to stride 8 (smp's PSPNet default encoder_depth
  3): 7x7 stride-2 convolution, BatchNorm, ReLU, 3x3 stride-2 max pooling,
  then BasicBlocks (two 3x3 convolutions with BatchNorm and a residual add;
  a strided 1x1 convolution with BatchNorm on the shortcut where the stage
  halves the resolution);
- the pyramid pooling module: per pool size (1, 2, 3, 6) adaptive average
  pooling of the encoder's features, a 1x1 convolution to a quarter of the
  channels (BatchNorm and ReLU; size 1 has a bias and no BatchNorm, as in
  smp), bilinear upsampling back (align_corners=True); concatenated with
  the features, then a 1x1 convolution, BatchNorm and ReLU;
- smp's segmentation head: a 3x3 convolution to `classes` and bilinear
  upsampling by 8 (align_corners=True).

On a 64x64 input the features are 8x8: pooling to 2 has uniform 4x4
windows (AveragePool), to 3 and 6 non-uniform, overlapping ones, which
torch.export writes as gathers of the windows' elements (GatherND) and
their sum or mean. smp's PSPNet also drops channels (Dropout2d, p 0.2)
before the head; `dropout` (0 by default, so that training compares with
PyTorch step by step) adds it.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def _conv_bn(cin, cout, kernel, stride=1):
    return nn.Sequential(
        nn.Conv2d(cin, cout, kernel, stride=stride, padding=kernel // 2,
                  bias=False),
        nn.BatchNorm2d(cout))


class BasicBlock(nn.Module):
    """torchvision's ResNet BasicBlock."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = _conv_bn(cin, cout, 3, stride)
        self.conv2 = _conv_bn(cout, cout, 3)
        self.downsample = (_conv_bn(cin, cout, 1, stride)
                           if stride != 1 or cin != cout else None)

    def forward(self, x):
        shortcut = x if self.downsample is None else self.downsample(x)
        return F.relu(self.conv2(F.relu(self.conv1(x))) + shortcut)


class PSPBlock(nn.Module):
    def __init__(self, channels, size):
        super().__init__()
        self.size = size
        # BatchNorm of a 1x1 map in training mode has one value per channel
        # and batch: smp gives the size-1 branch a bias instead.
        norm = size != 1
        self.conv = nn.Conv2d(channels, channels // 4, 1, bias=not norm)
        self.norm = nn.BatchNorm2d(channels // 4) if norm else nn.Identity()

    def forward(self, x):
        y = F.adaptive_avg_pool2d(x, self.size)
        y = F.relu(self.norm(self.conv(y)))
        return F.interpolate(y, size=x.shape[2:], mode="bilinear",
                             align_corners=True)


class PSPNet(nn.Module):
    def __init__(self, in_channels=1, classes=1, base=8, sizes=(1, 2, 3, 6),
                 dropout=0.0):
        super().__init__()
        self.in_channels = in_channels
        self.stem = _conv_bn(in_channels, base, 7, stride=2)
        self.layer1 = nn.Sequential(BasicBlock(base, base, 1),
                                    BasicBlock(base, base, 1))
        self.layer2 = nn.Sequential(BasicBlock(base, 2 * base, 2),
                                    BasicBlock(2 * base, 2 * base, 1))
        channels = 2 * base
        self.blocks = nn.ModuleList(PSPBlock(channels, s) for s in sizes)
        pooled = channels + len(sizes) * (channels // 4)
        self.fuse = _conv_bn(pooled, 4 * base, 1)
        self.dropout = nn.Dropout2d(dropout) if dropout else nn.Identity()
        self.head = nn.Conv2d(4 * base, classes, 3, padding=1)

    def check_input_shape(self, shape):
        """Raise ValueError unless the input is (C, H, W) with the model's C
        and H, W multiples of 8 (the encoder's stride)."""
        if (len(shape) != 3 or shape[0] != self.in_channels
                or shape[1] % 8 or shape[2] % 8):
            raise ValueError(f"expected a (C={self.in_channels}, H, W) input "
                             f"with H and W multiples of 8, got "
                             f"{tuple(shape)}")

    def forward(self, x):
        f = F.max_pool2d(F.relu(self.stem(x)), 3, stride=2, padding=1)
        f = self.layer2(self.layer1(f))
        f = torch.cat([block(f) for block in self.blocks] + [f], dim=1)
        y = self.dropout(F.relu(self.fuse(f)))
        return F.interpolate(self.head(y), scale_factor=8, mode="bilinear",
                             align_corners=True)
