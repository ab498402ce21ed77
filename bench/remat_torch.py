#!/usr/bin/python3
"""PyTorch's CPU peak for one training step of a memopt model, like for like
with memopt's predicted peak: weights, optimizer state, inputs and every
temporary of the step.

Run in a process of its own (bench/remat.py starts one per row): after
`import torch` it reads the resident set (VmRSS), builds the model, an SGD
optimizer with momentum 0.9 and the batch, trains two steps (the first
allocates the momentum buffers; the second is the steady state) and prints
the peak resident set (VmHWM) less the resident set after the import, in
bytes. glibc's allocator returns large blocks to the system when freed
(mmap above its threshold), so the high-water mark of what is resident is
the high-water mark of what the allocator held, plus the model and the
optimizer state, which stay resident. With `--checkpoint` each stage (the
encoder's ResNet layers and the decoder's blocks; the classic U-Net's
inc, down and up blocks) runs under `torch.utils.checkpoint`, as a user
of PyTorch would cut it.

    /usr/bin/python3 bench/remat_torch.py --model resnet34-unet \\
        --input-shape 1,512,512 [--batch 1] [--checkpoint]
"""
import argparse
import os
import sys

# One way to read the resident set for every PyTorch measurement in bench/.
from torch_worker import read_status as resident


def stages(model):
    """The modules that torch.utils.checkpoint wraps, one per stage."""
    if hasattr(model, "encoder"):
        return ([getattr(model.encoder, "layer%d" % i) for i in range(1, 5)]
                + list(model.decoder.blocks))
    names = ["inc"] + ["down%d" % i for i in range(1, model.depth + 1)] + [
        "up%d" % i for i in range(1, model.depth + 1)]
    return [getattr(model, name) for name in names]


def checkpointed(module):
    """`module` with its forward run under torch.utils.checkpoint."""
    import torch.utils.checkpoint as checkpoint
    forward = module.forward

    def run(*args):
        return checkpoint.checkpoint(forward, *args)
    module.forward = run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True)
    parser.add_argument("--input-shape", required=True, help="C,H,W")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--classes", type=int, default=1)
    parser.add_argument("--base", type=int, help="the classic U-Net's width")
    parser.add_argument("--checkpoint", action="store_true")
    args = parser.parse_args(argv)
    import torch
    baseline = resident("VmRSS")
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..",
                                    "python"))
    from memopt import models
    shape = tuple(int(d) for d in args.input_shape.split(","))
    kw = {"in_channels": shape[0], "classes": args.classes}
    if args.base:
        kw["base"] = args.base
    torch.manual_seed(0)
    model = models.build(args.model, **kw)
    model.train()
    if args.checkpoint:
        for stage in stages(model):
            checkpointed(stage)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.rand(args.batch, *shape)
    target = torch.rand(args.batch, args.classes, *shape[1:])
    for _ in range(2):
        optimizer.zero_grad(set_to_none=True)
        # The checkpointed stages need an input that requires grad to
        # recompute in the backward (torch 1.13's reentrant checkpoint).
        loss = torch.nn.functional.mse_loss(
            model(x.requires_grad_(args.checkpoint)), target)
        loss.backward()
        optimizer.step()
    print(resident("VmHWM") - baseline)


if __name__ == "__main__":
    main()
