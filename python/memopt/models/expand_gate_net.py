"""A small 2-D network whose channel gate is expanded at run time.

A 3x3 convolution, then a squeeze-and-excitation-style gate: the global
average of each channel (N x C x 1 x 1) through a 1x1 convolution and a
sigmoid, `expand_as` the feature map (ONNX Expand of a run-time value,
tg.broadcast, whose gradient sums the repeated axes back) and multiplied
in; a 3x3 convolution gives one channel.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


class ExpandGateNet(nn.Module):
    def __init__(self, in_channels=1, base=8):
        super().__init__()
        self.in_channels = in_channels
        self.conv = nn.Conv2d(in_channels, base, 3, padding=1)
        self.gate = nn.Conv2d(base, base, 1)
        self.head = nn.Conv2d(base, 1, 3, padding=1)

    def check_input_shape(self, shape):
        """Raise ValueError unless the input is (C, H, W) with the model's C."""
        if len(shape) != 3 or shape[0] != self.in_channels:
            raise ValueError(f"expected a (C={self.in_channels}, H, W) input, "
                             f"got {tuple(shape)}")

    def forward(self, x):
        y = F.relu(self.conv(x))
        g = torch.sigmoid(self.gate(y.mean(dim=(2, 3), keepdim=True)))
        return self.head(y * g.expand_as(y))
