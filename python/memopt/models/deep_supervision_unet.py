"""A small U-Net as nnU-Net builds it (dynamic_network_architectures'
PlainConvUNet with deep supervision), for memopt's --deep-supervision
checks.

Each encoder stage is (Conv3x3 -> InstanceNorm -> LeakyReLU(0.01)) x 2,
the first convolution of every stage after the first with stride 2 (nnU-Net
downsamples by strided convolution, not pooling); each decoder stage
upsamples by a 2x2 transposed convolution of stride 2, concatenates the
skip and runs the same two convolutions; a 1x1 convolution per decoder
stage gives the logits at that stage's resolution. forward returns them as
nnU-Net does with deep supervision on: full resolution first, then 1/2,
1/4, ... (`depth` outputs).
"""
import torch
import torch.nn as nn

from memopt.models.segmentation_unet import check_halving_shape


class ConvStage(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        layers = []
        for a, s in ((cin, stride), (cout, 1)):
            layers += [nn.Conv2d(a, cout, 3, stride=s, padding=1),
                       nn.InstanceNorm2d(cout, affine=True),
                       nn.LeakyReLU(0.01)]
        self.layers = nn.Sequential(*layers)

    def forward(self, x):
        return self.layers(x)


class DeepSupervisionUNet(nn.Module):
    def __init__(self, in_channels=1, classes=3, base=4, depth=3):
        super().__init__()
        self.in_channels, self.depth = in_channels, depth
        widths = [base * 2 ** i for i in range(depth + 1)]
        self.encoder = nn.ModuleList()
        cin = in_channels
        for i, w in enumerate(widths):
            self.encoder.append(ConvStage(cin, w, 1 if i == 0 else 2))
            cin = w
        self.upsample = nn.ModuleList()
        self.decoder = nn.ModuleList()
        self.seg_layers = nn.ModuleList()
        for w in reversed(widths[:-1]):
            self.upsample.append(nn.ConvTranspose2d(cin, w, 2, stride=2))
            self.decoder.append(ConvStage(2 * w, w, 1))
            self.seg_layers.append(nn.Conv2d(w, classes, 1))
            cin = w

    def check_input_shape(self, shape):
        check_halving_shape(shape, self.in_channels, self.depth)

    def forward(self, x):
        skips = []
        for stage in self.encoder:
            x = stage(x)
            skips.append(x)
        skips.pop()
        outputs = []
        for up, stage, seg in zip(self.upsample, self.decoder, self.seg_layers):
            x = stage(torch.cat([up(x), skips.pop()], dim=1))
            outputs.append(seg(x))
        return tuple(reversed(outputs))
