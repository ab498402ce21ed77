"""U-Net with a ResNet-34 encoder, the project's reference model.

Reproduces segmentation_models_pytorch ``Unet('resnet34', encoder_weights=None,
in_channels=1, classes=1, activation='sigmoid')`` without depending on smp:
same modules, same order, same state_dict keys, so checkpoints load either way
and the exported ONNX graph matches what users of smp produce.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

# Channels of the encoder features the decoder consumes, deepest first:
# layer4 (head), then skips layer3, layer2, layer1, relu(bn1(conv1)).
_HEAD_CHANNELS = 512
_SKIP_CHANNELS = (256, 128, 64, 64, 0)
_INPUT_MULTIPLE = 32  # five stride-2 stages


class ResNet34Encoder(nn.Module):
    """torchvision ResNet-34 minus avgpool/fc, returning the five skip levels.

    Attribute names are torchvision's, so keys read ``encoder.layer1.0.conv1...``.
    """

    def __init__(self, in_channels=1):
        super().__init__()
        resnet = torchvision.models.resnet34(weights=None)
        self.conv1 = nn.Conv2d(in_channels, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = resnet.bn1
        self.relu = resnet.relu
        self.maxpool = resnet.maxpool
        self.layer1 = resnet.layer1
        self.layer2 = resnet.layer2
        self.layer3 = resnet.layer3
        self.layer4 = resnet.layer4

    def forward(self, x):
        """Return features at strides 2, 4, 8, 16, 32 (shallowest first)."""
        f1 = self.relu(self.bn1(self.conv1(x)))
        f2 = self.layer1(self.maxpool(f1))
        f3 = self.layer2(f2)
        f4 = self.layer3(f3)
        f5 = self.layer4(f4)
        return [f1, f2, f3, f4, f5]


def _conv_bn_relu(in_channels, out_channels):
    """smp's Conv2dReLU with batch norm: Sequential(conv, bn, relu) -> keys .0/.1."""
    return nn.Sequential(
        nn.Conv2d(in_channels, out_channels, kernel_size=3, padding=1, bias=False),
        nn.BatchNorm2d(out_channels),
        nn.ReLU(inplace=True),
    )


class DecoderBlock(nn.Module):
    """Nearest x2 upsample, concat the skip (if any), two conv-BN-ReLU."""

    def __init__(self, in_channels, skip_channels, out_channels):
        super().__init__()
        self.conv1 = _conv_bn_relu(in_channels + skip_channels, out_channels)
        self.conv2 = _conv_bn_relu(out_channels, out_channels)

    def forward(self, x, skip=None):
        x = F.interpolate(x, scale_factor=2, mode="nearest")
        if skip is not None:
            x = torch.cat([x, skip], dim=1)
        return self.conv2(self.conv1(x))


class UnetDecoder(nn.Module):
    """smp's UnetDecoder with center=Identity (it has no parameters, so omitted)."""

    def __init__(self, decoder_channels):
        super().__init__()
        in_channels = [_HEAD_CHANNELS] + list(decoder_channels[:-1])
        self.blocks = nn.ModuleList(
            DecoderBlock(i, s, o) for i, s, o in zip(in_channels, _SKIP_CHANNELS, decoder_channels)
        )

    def forward(self, features):
        head, *skips = reversed(features)
        x = head
        for i, block in enumerate(self.blocks):
            x = block(x, skips[i] if i < len(skips) else None)
        return x


class ResNet34UNet(nn.Module):
    """The reference U-Net: ResNet-34 encoder, 5-block decoder, sigmoid head."""

    def __init__(self, in_channels=1, classes=1, decoder_channels=(256, 128, 64, 32, 16)):
        super().__init__()
        if len(decoder_channels) != len(_SKIP_CHANNELS):
            raise ValueError(f"decoder_channels needs {len(_SKIP_CHANNELS)} entries, got {len(decoder_channels)}")
        self.in_channels = in_channels
        self.encoder = ResNet34Encoder(in_channels)
        self.decoder = UnetDecoder(decoder_channels)
        self.segmentation_head = nn.Sequential(
            nn.Conv2d(decoder_channels[-1], classes, kernel_size=3, padding=1),
            nn.Sigmoid(),
        )

    def check_input_shape(self, shape):
        """Raise ValueError unless (C, H, W) fits: skips only align at multiples of 32."""
        c, h, w = shape
        if c != self.in_channels:
            raise ValueError(f"input has {c} channels, model expects {self.in_channels}")
        if h % _INPUT_MULTIPLE or w % _INPUT_MULTIPLE or h <= 0 or w <= 0:
            raise ValueError(f"resnet34-unet needs H and W to be positive multiples of {_INPUT_MULTIPLE}, got {h}x{w}")

    def forward(self, x):
        return self.segmentation_head(self.decoder(self.encoder(x)))
