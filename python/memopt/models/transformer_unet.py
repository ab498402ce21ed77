"""Transformer U-Nets in the form MONAI writes them, at test scale.

- `UNETR`: MONAI's UNETR (Hatamizadeh et al., 2022) in 1-D, 2-D or 3-D: a
  ViT encoder (convolutional patch embedding, a learned position embedding,
  pre-norm blocks of self-attention and a GELU MLP) whose tokens, reshaped
  back to a grid, are upsampled by transposed convolutions and joined with
  a convolutional stem of the full-resolution input.
- `SwinUNet`: the Swin encoder of MONAI's SwinUNETR (Liu et al., 2021) in
  2-D: window attention with a learned relative-position bias (a table
  indexed by a constant buffer), shifted windows (torch.roll) with the
  attention mask MONAI computes in forward (slice assignments into zeros),
  patch merging (strided slices, LayerNorm, a Linear), and a decoder of
  transposed convolutions and skip connections.

Both use MONAI's attention: a packed q/k/v Linear split by indexing, the
scores by einsum (UNETR; or F.scaled_dot_product_attention, or
nn.MultiheadAttention) or matmul (Swin), softmax. They export with torch
1.13's TorchScript exporter and with today's torch.export one.
"""
import torch
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
    """B x H x W x C to (B * windows) x w*w x C."""
    b, h, width, c = x.shape
    x = x.view(b, h // w, w, width // w, w, c).permute(0, 1, 3, 2, 4, 5)
    return x.contiguous().view(-1, w * w, c)


def _unwindow(x, w, b, h, width):
    c = x.shape[-1]
    x = x.view(b, h // w, width // w, w, w, c).permute(0, 1, 3, 2, 4, 5)
    return x.contiguous().view(b, h, width, c)


class WindowAttention(nn.Module):
    """MONAI's WindowAttention (2-D): scores plus a relative-position bias
    looked up in a learned table by a constant index buffer."""

    def __init__(self, dim, heads, window):
        super().__init__()
        self.heads, self.scale = heads, (dim // heads) ** -0.5
        self.table = nn.Parameter(
            0.02 * torch.randn((2 * window - 1) ** 2, heads))
        coords = torch.stack(torch.meshgrid(
            torch.arange(window), torch.arange(window), indexing="ij"))
        coords = coords.flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0)
        rel = rel.contiguous() + (window - 1)
        rel[:, :, 0] *= 2 * window - 1
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


def _shift_mask(h, w, window, shift, device):
    """MONAI's compute_mask: windows of a shifted grid attend only within
    the regions they came from (-100 elsewhere)."""
    regions = torch.zeros((1, h, w, 1), device=device)
    count = 0
    for hs in (slice(-window), slice(-window, -shift), slice(-shift, None)):
        for ws in (slice(-window), slice(-window, -shift),
                   slice(-shift, None)):
            regions[:, hs, ws, :] = count
            count += 1
    windows = _windows(regions, window).squeeze(-1)
    mask = windows.unsqueeze(1) - windows.unsqueeze(2)
    return mask.masked_fill(mask != 0, -100.0).masked_fill(mask == 0, 0.0)


class SwinBlock(nn.Module):
    def __init__(self, dim, heads, window, shift, mlp_ratio):
        super().__init__()
        self.window, self.shift = window, shift
        self.norm1 = nn.LayerNorm(dim)
        self.attn = WindowAttention(dim, heads, window)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = Mlp(dim, dim * mlp_ratio)

    def forward(self, x):
        b, h, w, _ = x.shape
        y, mask = self.norm1(x), None
        if self.shift:
            y = torch.roll(y, (-self.shift, -self.shift), (1, 2))
            mask = _shift_mask(h, w, self.window, self.shift, x.device)
        y = _unwindow(self.attn(_windows(y, self.window), mask), self.window,
                      b, h, w)
        if self.shift:
            y = torch.roll(y, (self.shift, self.shift), (1, 2))
        x = x + y
        return x + self.mlp(self.norm2(x))


class PatchMerging(nn.Module):
    """MONAI's PatchMerging (2-D): the four 2x2 neighbours concatenated,
    LayerNorm, Linear to twice the channels."""

    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(4 * dim)
        self.reduction = nn.Linear(4 * dim, 2 * dim, bias=False)

    def forward(self, x):
        x = torch.cat([x[:, 0::2, 0::2], x[:, 1::2, 0::2],
                       x[:, 0::2, 1::2], x[:, 1::2, 1::2]], dim=-1)
        return self.reduction(self.norm(x))


class SwinUNet(nn.Module):
    def __init__(self, in_channels=1, classes=1, size=32, dim=16, heads=2,
                 window=4, mlp_ratio=2):
        super().__init__()
        if size % (4 * window):
            raise ValueError("size must be a multiple of 4 x window")
        self.in_channels, self.size = in_channels, size
        self.embed = nn.Conv2d(in_channels, dim, 2, stride=2)
        self.stage1 = nn.Sequential(
            SwinBlock(dim, heads, window, 0, mlp_ratio),
            SwinBlock(dim, heads, window, window // 2, mlp_ratio))
        self.merge = PatchMerging(dim)
        self.stage2 = nn.Sequential(
            SwinBlock(2 * dim, heads, window, 0, mlp_ratio),
            SwinBlock(2 * dim, heads, window, window // 2, mlp_ratio))
        self.up2 = nn.ConvTranspose2d(2 * dim, dim, 2, stride=2)
        self.fuse = _conv_block(2, 2 * dim, dim)
        self.up1 = nn.ConvTranspose2d(dim, dim, 2, stride=2)
        self.stem = _conv_block(2, in_channels, dim)
        self.decoder = _conv_block(2, 2 * dim, dim)
        self.head = nn.Conv2d(dim, classes, 1)

    def check_input_shape(self, shape):
        _check_shape(shape, self.in_channels, self.size, 2)

    def forward(self, x):
        s1 = self.stage1(self.embed(x).permute(0, 2, 3, 1))
        s2 = self.stage2(self.merge(s1))
        y = self.up2(s2.permute(0, 3, 1, 2))
        y = self.fuse(torch.cat([y, s1.permute(0, 3, 1, 2)], dim=1))
        y = torch.cat([self.up1(y), self.stem(x)], dim=1)
        return self.head(self.decoder(y))
