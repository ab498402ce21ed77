"""Transformer U-Nets in the form MONAI writes them, at test scale.

- `UNETR`: MONAI's UNETR (Hatamizadeh et al., 2022) in 1-D, 2-D or 3-D: a
  ViT encoder (convolutional patch embedding, a learned position embedding,
  pre-norm blocks of self-attention and a GELU MLP) whose tokens, reshaped
  back to a grid, are upsampled by transposed convolutions and joined with
  a convolutional stem of the full-resolution input.
- `SwinUNet`: the Swin encoder of MONAI's SwinUNETR (Liu et al., 2021) in
  2-D or 3-D: window attention with a learned relative-position bias (a
  table indexed by a constant buffer), tokens zero-padded to whole windows
  and cropped after (F.pad), shifted windows (torch.roll) with the
  attention mask MONAI computes in forward (slice assignments into zeros),
  window partition by views of rank 2d + 2 (8-D in 3-D), patch merging
  (strided slices, LayerNorm, a Linear), and a decoder of transposed
  convolutions and skip connections.

Both use MONAI's attention: a packed q/k/v Linear split by indexing, the
scores by einsum (UNETR; or F.scaled_dot_product_attention, or
nn.MultiheadAttention) or matmul (Swin), softmax. They export with torch
1.13's TorchScript exporter and with today's torch.export one.
"""
import itertools

import torch
import torch.nn.functional as F
from torch import nn

_CONV = {1: nn.Conv1d, 2: nn.Conv2d, 3: nn.Conv3d}
_CONV_T = {1: nn.ConvTranspose1d, 2: nn.ConvTranspose2d, 3: nn.ConvTranspose3d}
_INSTANCE_NORM = {1: nn.InstanceNorm1d, 2: nn.InstanceNorm2d,
                  3: nn.InstanceNorm3d}


def _conv_block(dims, cin, cout):
    """3-wide convolution, InstanceNorm (affine), LeakyReLU: UNETR's
    UnetResBlock without the residual."""
    return nn.Sequential(
        _CONV[dims](cin, cout, 3, padding=1),
        _INSTANCE_NORM[dims](cout, affine=True),
        nn.LeakyReLU(0.01))


def _check_shape(shape, channels, size, dims):
    """ValueError unless `shape` is (channels, size, ..., size)."""
    expected = (channels,) + (size,) * dims
    if tuple(shape) != expected:
        raise ValueError(f"this network is built for inputs of "
                         f"{'x'.join(map(str, expected))} (its position "
                         f"embedding or attention windows fix the size), "
                         f"got {'x'.join(map(str, shape))}")


class SelfAttention(nn.Module):
    """MONAI's SABlock: qkv = Linear(x) rearranged to (3, B, heads, N, d),
    q, k, v = qkv[0], qkv[1], qkv[2], then the attention:
    - "einsum": MONAI's default, scores and weighted values by einsum;
    - "sdpa": F.scaled_dot_product_attention (MONAI's use_flash_attention),
      written out by hand where PyTorch lacks it (1.x): the same function.
    """

    def __init__(self, dim, heads, attention="einsum"):
        super().__init__()
        self.heads, self.attention = heads, attention
        self.scale = (dim // heads) ** -0.5
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        b, n, d = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, d // self.heads)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        sdpa = getattr(nn.functional, "scaled_dot_product_attention", None)
        if self.attention == "sdpa" and sdpa is not None:
            y = sdpa(q, k, v)
        elif self.attention == "sdpa":
            y = ((q @ k.transpose(-2, -1)) * self.scale).softmax(-1) @ v
        else:
            att = (torch.einsum("blxd,blyd->blxy", q, k) * self.scale)
            att = att.softmax(dim=-1)
            y = torch.einsum("bhxy,bhyd->bhxd", att, v)
        return self.out(y.transpose(1, 2).reshape(b, n, d))


class TorchAttention(nn.MultiheadAttention):
    """nn.MultiheadAttention on (B, N, dim) tokens: a packed in_proj_weight
    read by F.linear, and an out_proj whose bias starts at zero."""

    def __init__(self, dim, heads):
        super().__init__(dim, heads, batch_first=True)

    def forward(self, x):
        return super().forward(x, x, x, need_weights=False)[0]


class Mlp(nn.Sequential):
    def __init__(self, dim, hidden):
        super().__init__(nn.Linear(dim, hidden), nn.GELU(),
                         nn.Linear(hidden, dim))


class TransformerBlock(nn.Module):
    """Pre-norm ViT block: x + attn(LN(x)), then x + mlp(LN(x))."""

    def __init__(self, dim, heads, mlp_ratio, attention="einsum"):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = (TorchAttention(dim, heads) if attention == "torch"
                     else SelfAttention(dim, heads, attention))
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, dim * mlp_ratio)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.mlp(self.norm2(x))


class UNETR(nn.Module):
    def __init__(self, in_channels=1, classes=1, size=32, patch=4, dim=32,
                 heads=4, layers=2, mlp_ratio=2, base=8, dims=2,
                 attention="einsum"):
        super().__init__()
        if size % patch or patch & (patch - 1):
            raise ValueError("patch must be a power of two dividing size")
        self.in_channels, self.size, self.dims = in_channels, size, dims
        self.dim, self.grid = dim, size // patch
        self.embed = _CONV[dims](in_channels, dim, patch, stride=patch)
        self.pos = nn.Parameter(0.02 * torch.randn(1, self.grid ** dims, dim))
        self.blocks = nn.ModuleList(
            TransformerBlock(dim, heads, mlp_ratio, attention)
            for _ in range(layers))
        self.norm = nn.LayerNorm(dim)
        ups, channels = [], dim
        while patch > 1:
            ups += [_CONV_T[dims](channels, base, 2, stride=2)]
            channels, patch = base, patch // 2
        self.up = nn.Sequential(*ups)
        self.stem = _conv_block(dims, in_channels, base)
        self.decoder = _conv_block(dims, 2 * base, base)
        self.head = _CONV[dims](base, classes, 1)

    def check_input_shape(self, shape):
        _check_shape(shape, self.in_channels, self.size, self.dims)

    def forward(self, x):
        b = x.shape[0]
        tokens = self.embed(x).flatten(2).transpose(1, 2) + self.pos
        for block in self.blocks:
            tokens = block(tokens)
        tokens = self.norm(tokens)
        grid = tokens.transpose(1, 2).reshape(b, self.dim,
                                              *(self.grid,) * self.dims)
        y = torch.cat([self.up(grid), self.stem(x)], dim=1)
        return self.head(self.decoder(y))


def _windows(x, w):
    """B x S1 x .. x Sd x C to (B * windows) x w^d x C: MONAI's
    window_partition (2-D: a 6-D view, 3-D: an 8-D one)."""
    b, *spatial, c = x.shape
    d = len(spatial)
    split = [n for size in spatial for n in (size // w, w)]
    # (b, n1, w, n2, w, ..., c) -> (b, n1, n2, .., w, w, .., c)
    order = [0] + [1 + 2 * i for i in range(d)] + [2 + 2 * i
                                                   for i in range(d)]
    x = x.view(b, *split, c).permute(*order, 2 * d + 1)
    return x.contiguous().view(-1, w ** d, c)


def _unwindow(x, w, b, spatial):
    """MONAI's window_reverse: _windows' inverse."""
    c, d = x.shape[-1], len(spatial)
    x = x.view(b, *(size // w for size in spatial), *(w,) * d, c)
    order = [0] + [n for i in range(d) for n in (1 + i, 1 + d + i)]
    x = x.permute(*order, 2 * d + 1)
    return x.contiguous().view(b, *spatial, c)


class WindowAttention(nn.Module):
    """MONAI's WindowAttention (2-D or 3-D): scores plus a relative-position
    bias looked up in a learned table by a constant index buffer."""

    def __init__(self, dim, heads, window, dims=2):
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.table = nn.Parameter(
            0.02 * torch.randn((2 * window - 1) ** dims, heads))
        coords = torch.stack(torch.meshgrid(
            *(torch.arange(window),) * dims, indexing="ij"))
        coords = coords.flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0)
        rel = rel.contiguous() + (window - 1)
        # MONAI's flattening of the relative offsets into table rows.
        for axis in range(dims - 1):
            rel[:, :, axis] *= (2 * window - 1) ** (dims - 1 - axis)
        self.register_buffer("index", rel.sum(-1))
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x, mask):
        b, n, c = x.shape
        qkv = self.qkv(x).reshape(b, n, 3, self.heads, c // self.heads)
        qkv = qkv.permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        att = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.table[self.index.clone()[:n, :n].reshape(-1)]
        att = att + bias.reshape(n, n, -1).permute(2, 0, 1).unsqueeze(0)
        if mask is not None:
            windows = mask.shape[0]
            att = att.view(b // windows, windows, self.heads, n, n)
            att = (att + mask.unsqueeze(1).unsqueeze(0)).view(-1, self.heads,
                                                              n, n)
        att = att.softmax(dim=-1)
        return self.proj((att @ v).transpose(1, 2).reshape(b, n, c))


def _shift_mask(spatial, window, shift, device):
    """MONAI's compute_mask: windows of a shifted grid attend only within
    the regions they came from (-100 elsewhere)."""
    regions = torch.zeros((1, *spatial, 1), device=device)
    bands = (slice(-window), slice(-window, -shift), slice(-shift, None))
    count = 0
    for corner in itertools.product(bands, repeat=len(spatial)):
        regions[(slice(None), *corner, slice(None))] = count
        count += 1
    windows = _windows(regions, window).squeeze(-1)
    mask = windows.unsqueeze(1) - windows.unsqueeze(2)
    return mask.masked_fill(mask != 0, -100.0).masked_fill(mask == 0, 0.0)


class SwinBlock(nn.Module):
    def __init__(self, dim, heads, window, shift, mlp_ratio, dims=2):
        super().__init__()
        self.window, self.shift = window, shift
        self.norm1 = nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, heads, window, dims)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, dim * mlp_ratio)

    def forward(self, x):
        b, *spatial, _ = x.shape
        axes = tuple(range(1, 1 + len(spatial)))
        y, mask = self.norm1(x), None
        # MONAI pads the normalized tokens with zeros up to whole windows
        # (F.pad of the channels-last grid; the zeros take part in
        # attention) and crops them off after.
        pads = [(self.window - size % self.window) % self.window
                for size in spatial]
        if any(pads):
            y = F.pad(y, [0, 0] + [n for p in reversed(pads) for n in (0, p)])
        padded = list(y.shape[1:-1])
        if self.shift:
            y = torch.roll(y, (-self.shift,) * len(axes), axes)
            mask = _shift_mask(padded, self.window, self.shift, x.device)
        y = _unwindow(self.attn(_windows(y, self.window), mask), self.window,
                      b, padded)
        if self.shift:
            y = torch.roll(y, (self.shift,) * len(axes), axes)
        if any(pads):
            y = y[(slice(None),) + tuple(slice(0, n) for n in spatial)]
        x = x + y.contiguous()
        return x + self.mlp(self.norm2(x))


class PatchMerging(nn.Module):
    """MONAI's PatchMerging (2-D: the four 2x2 neighbours, 3-D: the eight
    2x2x2 ones, concatenated), LayerNorm, Linear to twice the channels."""

    def __init__(self, dim, dims=2):
        super().__init__()
        self.dims = dims
        self.norm = nn.LayerNorm(2 ** dims * dim)
        self.reduction = nn.Linear(2 ** dims * dim, 2 * dim, bias=False)

    def forward(self, x):
        # The 2^d corners, the first spatial axis varying fastest (as in
        # MONAI's 2-D PatchMerging).
        corners = [tuple(reversed(c))
                   for c in itertools.product((0, 1), repeat=self.dims)]
        x = torch.cat([x[(slice(None),) + tuple(slice(o, None, 2) for o in c)]
                       for c in corners], dim=-1)
        return self.reduction(self.norm(x))


class SwinUNet(nn.Module):
    def __init__(self, in_channels=1, classes=1, size=32, dim=16, heads=2,
                 window=4, mlp_ratio=2, dims=2):
        super().__init__()
        if dims not in (2, 3):
            raise ValueError("SwinUNet is 2-D or 3-D")
        if size % 4:
            raise ValueError("size must be a multiple of 4")
        self.in_channels, self.size, self.dims = in_channels, size, dims
        conv, up = _CONV[dims], _CONV_T[dims]
        self.embed = conv(in_channels, dim, 2, stride=2)
        self.stage1 = nn.Sequential(
            SwinBlock(dim, heads, window, 0, mlp_ratio, dims),
            SwinBlock(dim, heads, window, window // 2, mlp_ratio, dims))
        self.merge = PatchMerging(dim, dims)
        self.stage2 = nn.Sequential(
            SwinBlock(2 * dim, heads, window, 0, mlp_ratio, dims),
            SwinBlock(2 * dim, heads, window, window // 2, mlp_ratio, dims))
        self.up2 = up(2 * dim, dim, 2, stride=2)
        self.fuse = _conv_block(dims, 2 * dim, dim)
        self.up1 = up(dim, dim, 2, stride=2)
        self.stem = _conv_block(dims, in_channels, dim)
        self.decoder = _conv_block(dims, 2 * dim, dim)
        self.head = conv(dim, classes, 1)

    def check_input_shape(self, shape):
        _check_shape(shape, self.in_channels, self.size, self.dims)

    def _channels_last(self, x):
        return x.permute(0, *range(2, 2 + self.dims), 1)

    def _channels_first(self, x):
        return x.permute(0, 1 + self.dims, *range(1, 1 + self.dims))

    def forward(self, x):
        s1 = self.stage1(self._channels_last(self.embed(x)))
        s2 = self.stage2(self.merge(s1))
        y = self.up2(self._channels_first(s2))
        y = self.fuse(torch.cat([y, self._channels_first(s1)], dim=1))
        y = torch.cat([self.up1(y), self.stem(x)], dim=1)
        return self.head(self.decoder(y))
