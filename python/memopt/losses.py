"""PyTorch references of memopt's segmentation and image losses.

`--loss=ce` is torch.nn.functional.cross_entropy (reduction mean) of N,C,...
logits against an N,... map of class indices. `--loss=dice` is the soft
Dice loss below, which PyTorch does not ship: memopt's tg.dice_loss
computes exactly this formula.

    dice = 1 - (2 * sum(p * t) + eps) / (sum(p) + sum(t) + eps)

The sums run over every element (batch, classes, positions). With C > 1
channels p = softmax(logits, dim=1) and t = one_hot(target, C) moved to
the channel axis; with C == 1, p = sigmoid(logits) and t is the float mask.
eps = 1.0 (DICE_EPSILON).

`--loss=ms-ssim` is 1 - pytorch_msssim.ms_ssim(X, Y, data_range=1,
size_average=True) (pytorch-msssim 1.0.0: 5 scales, Gaussian window 11,
sigma 1.5), and `--loss=ms-ssim+l1` is Zhao et al.'s mix
0.84 * (1 - MS-SSIM) + 0.16 * L1, L1 being the plain mean absolute error
(not Zhao's Gaussian-weighted one). pytorch_msssim is imported only when
these are called, so that the other losses work without it.
"""
import torch
import torch.nn.functional as F

DICE_EPSILON = 1.0
MS_SSIM_L1_ALPHA = 0.84


def dice_loss(logits, target, eps=DICE_EPSILON):
    """Soft Dice loss of `logits` (N,C,...) against `target`: class indices
    (N,...) for C > 1, a float mask shaped like `logits` for C == 1."""
    if logits.shape[1] == 1:
        p = torch.sigmoid(logits)
        t = target.to(logits.dtype)
    else:
        p = torch.softmax(logits, dim=1)
        t = F.one_hot(target.long(), logits.shape[1]).movedim(-1, 1)
        t = t.to(logits.dtype)
    return 1 - (2 * (p * t).sum() + eps) / (p.sum() + t.sum() + eps)


def cross_entropy_loss(logits, target):
    """F.cross_entropy with class indices given as any number type."""
    return F.cross_entropy(logits, target.long())


def ms_ssim_loss(prediction, target):
    """1 - MS-SSIM of images in [0, 1] (N,C,H,W, H and W above 160)."""
    from pytorch_msssim import ms_ssim
    return 1 - ms_ssim(prediction, target, data_range=1, size_average=True)


def ms_ssim_l1_loss(prediction, target, alpha=MS_SSIM_L1_ALPHA):
    """alpha * (1 - MS-SSIM) + (1 - alpha) * mean |prediction - target|."""
    return (alpha * ms_ssim_loss(prediction, target)
            + (1 - alpha) * F.l1_loss(prediction, target))
