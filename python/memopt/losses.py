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

`--loss=ce+dice` is nnU-Net v2's DC_and_CE_loss as nnUNetTrainer builds it
for label maps (dice_ce_loss below): F.cross_entropy plus
MemoryEfficientSoftDiceLoss(softmax, batch_dice=True, do_bg=False,
smooth=1e-5), whose value is -mean Dice: the loss is nnU-Net's, negative
once the Dice exceeds the cross-entropy.

`--deep-supervision` trains a model with several outputs (full resolution
first) with nnU-Net's DeepSupervisionWrapper: the sum of weight_i *
loss(output_i, target_i), outputs of weight 0 left out, target_i the
target downsampled to output i's shape (deep_supervision_loss below).

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


DICE_CE_SMOOTH = 1e-5
LABEL_MAP_LOSSES = ("ce", "dice", "ce+dice")


def dice_ce_loss(logits, target, smooth=DICE_CE_SMOOTH):
    """nnU-Net's DC_and_CE_loss of `logits` (N,C,...) against the class
    indices `target` (N,...): cross-entropy plus -mean over the foreground
    classes of the batch Dice (2 I + smooth) / (P + G + smooth), the sums
    running over the batch and all positions."""
    ce = F.cross_entropy(logits, target.long())
    p = torch.softmax(logits, dim=1)[:, 1:]
    axes = [0] + list(range(2, logits.ndim))
    with torch.no_grad():
        y = F.one_hot(target.long(), logits.shape[1]).movedim(-1, 1)
        y = y[:, 1:].to(logits.dtype)
        sum_gt = y.sum(axes)
    intersect = (p * y).sum(axes)
    sum_pred = p.sum(axes)
    dc = (2 * intersect + smooth) / (sum_gt + sum_pred + smooth).clamp_min(1e-8)
    return ce - dc.mean()


def deep_supervision_weights(spec, count):
    """The weights of `count` outputs for --deep-supervision=`spec`:
    "halving" 1, 1/2, 1/4, ... normalized to sum 1; "nnunet" the same with
    the last (lowest-resolution) output's weight 0, as nnUNetTrainer
    builds them; otherwise "W0,W1,..." as given."""
    if spec in ("halving", "nnunet"):
        weights = [1 / 2 ** i for i in range(count)]
        if spec == "nnunet":
            weights[-1] = 0
        total = sum(weights)
        return [w / total for w in weights]
    weights = [float(w) for w in spec.split(",")]
    if len(weights) != count:
        raise ValueError("%d deep supervision weights for %d outputs"
                         % (len(weights), count))
    return weights


def downsample_target(target, shape, label_map):
    """`target` at the spatial `shape` of an output: for label maps the
    nearest element as nnU-Net's DownsampleSegForDSTransform picks it
    (F.interpolate, mode "nearest-exact"), otherwise the mean of each
    block (F.interpolate, mode "area": average pooling by the integer
    factor)."""
    if tuple(target.shape[-len(shape):]) == tuple(shape):
        return target
    if label_map:
        return F.interpolate(target[:, None].double(), size=shape,
                             mode="nearest-exact")[:, 0].to(target.dtype)
    return F.interpolate(target, size=shape, mode="area")


def deep_supervision_loss(loss_fn, outputs, target, weights, label_map):
    """nnU-Net's DeepSupervisionWrapper over `outputs` (full resolution
    first) against `target` downsampled to each output."""
    return sum(w * loss_fn(out, downsample_target(target, out.shape[2:],
                                                  label_map))
               for out, w in zip(outputs, weights) if w != 0)
