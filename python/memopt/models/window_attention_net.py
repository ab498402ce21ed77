"""A small 2-D network with Swin-style window attention.

A strided 3x3 convolution halves the image to one `window` x `window`
window of tokens; multi-head self-attention over its tokens adds Swin's
relative position bias, a trainable table of (2 window - 1)^2 x heads
entries read at a constant index map (`table[index.view(-1)]`, what Swin
Transformer and Swin-UNETR do); a transposed convolution restores the size
and a 3x3 convolution and a sigmoid give one channel.

Exported, the attention is what transformer U-Nets give the importer:
Gather with a scalar index of a run-time tensor (qkv[0], qkv[1], qkv[2])
and a Gather (TorchScript) or GatherND (torch.export) of a parameter at
constant indices, whose gradient scatter-adds onto the table.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F


def relative_position_index(window):
    """Swin's index map: for tokens i, j of a window (row-major), the row of
    the bias table that holds their offset (dy, dx), as (window^2, window^2)
    int64."""
    coords = torch.stack(torch.meshgrid(torch.arange(window),
                                        torch.arange(window), indexing="ij"))
    coords = coords.flatten(1)
    relative = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0)
    relative = relative + (window - 1)
    return relative[..., 0] * (2 * window - 1) + relative[..., 1]


class WindowAttentionNet(nn.Module):
    def __init__(self, in_channels=1, base=8, window=4, heads=2):
        super().__init__()
        if base % heads:
            raise ValueError(f"base {base} does not split into {heads} heads")
        self.in_channels, self.window, self.heads = in_channels, window, heads
        self.down = nn.Conv2d(in_channels, base, 3, stride=2, padding=1)
        self.qkv = nn.Conv2d(base, 3 * base, 1)
        self.proj = nn.Conv2d(base, base, 1)
        generator = torch.Generator().manual_seed(1)
        self.relative_bias = nn.Parameter(
            0.5 * torch.randn((2 * window - 1) ** 2, heads, generator=generator))
        self.register_buffer("relative_index",
                             relative_position_index(window),
                             persistent=False)
        self.up = nn.ConvTranspose2d(base, base, 2, stride=2)
        self.outc = nn.Conv2d(base, 1, 3, padding=1)

    def check_input_shape(self, shape):
        """Raise ValueError unless (C, H, W) halves to one window."""
        c, h, w = shape
        if c != self.in_channels:
            raise ValueError(f"input has {c} channels, model expects {self.in_channels}")
        if (h, w) != (2 * self.window, 2 * self.window):
            raise ValueError(f"window {self.window} needs H = W = "
                             f"{2 * self.window}, got {h}x{w}")

    def forward(self, x):
        f = F.relu(self.down(x))
        b, c, h, w = f.shape
        n, d = h * w, c // self.heads
        qkv = self.qkv(f).reshape(b, 3, self.heads, d, n).permute(1, 0, 2, 4, 3)
        q, k, v = qkv[0], qkv[1], qkv[2]
        scores = (q * d ** -0.5) @ k.transpose(-2, -1)
        bias = self.relative_bias[self.relative_index.view(-1)]
        bias = bias.view(n, n, self.heads).permute(2, 0, 1)
        attention = torch.softmax(scores + bias.unsqueeze(0), dim=-1)
        out = (attention @ v).permute(0, 1, 3, 2).reshape(b, c, h, w)
        f = f + self.proj(out)
        return torch.sigmoid(self.outc(F.relu(self.up(f))))
