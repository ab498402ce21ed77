#!/usr/bin/python3
"""PyTorch's CPU peak for one training step of a memopt model, like for like
with memopt's predicted peak: weights, optimizer state, inputs and every
temporary of the step.

Run in a process of its own (bench/remat.py starts one per row,
bench/offload.py one per resolution): after `import torch` it reads the
resident set (VmRSS), builds the model, the optimizer (SGD with momentum
0.9, or Adam) and the batch, trains two steps (the first allocates the
optimizer state; the second is the steady state) and prints the peak
resident set (VmHWM) less the resident set after the import, in bytes. glibc's allocator returns large blocks to the system when freed
(mmap above its threshold), so the high-water mark of what is resident is
the high-water mark of what the allocator held, plus the model and the
optimizer state, which stay resident. With `--checkpoint` each stage (the
encoder's ResNet layers and the decoder's blocks; the classic U-Net's
inc, down and up blocks) runs under `torch.utils.checkpoint`, as a user
of PyTorch would cut it.

With `--device cuda` the step runs on the GPU and the figure is the
caching allocator's high-water mark (max_memory_reserved: what PyTorch
holds on the device, weights, optimizer state and cuDNN workspaces
included). `--limit-bytes N` caps the allocator at N bytes
(set_per_process_memory_fraction), as a GPU of that size would; a step
that does not fit prints nothing and exits 3.

    /usr/bin/python3 bench/remat_torch.py --model resnet34-unet \\
        --input-shape 1,512,512 [--batch 1] [--checkpoint] \\
        [--optimizer adam] [--device cuda --limit-bytes 8589934592]
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
    parser.add_argument("--optimizer", choices=("sgd", "adam"),
                        default="sgd")
    parser.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    parser.add_argument("--limit-bytes", type=int,
                        help="cap the CUDA allocator (a GPU of this size)")
    args = parser.parse_args(argv)
    import torch
    baseline = resident("VmRSS")
    cuda = args.device == "cuda"
    if cuda and args.limit_bytes:
        total = torch.cuda.get_device_properties(0).total_memory
        torch.cuda.set_per_process_memory_fraction(
            min(1.0, args.limit_bytes / total))
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..",
                                    "python"))
    from memopt import models
    shape = tuple(int(d) for d in args.input_shape.split(","))
    kw = {"in_channels": shape[0], "classes": args.classes}
    if args.base:
        kw["base"] = args.base
    torch.manual_seed(0)
    model = models.build(args.model, **kw)
    model.train().to(args.device)
    if args.checkpoint:
        for stage in stages(model):
            checkpointed(stage)
    if args.optimizer == "adam":
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    else:
        optimizer = torch.optim.SGD(model.parameters(), lr=0.01,
                                    momentum=0.9)
    x = torch.rand(args.batch, *shape, device=args.device)
    target = torch.rand(args.batch, args.classes, *shape[1:],
                        device=args.device)
    try:
        for _ in range(2):
            optimizer.zero_grad(set_to_none=True)
            # The checkpointed stages need an input that requires grad to
            # recompute in the backward (torch 1.13's reentrant checkpoint).
            loss = torch.nn.functional.mse_loss(
                model(x.requires_grad_(args.checkpoint)), target)
            loss.backward()
            optimizer.step()
        if cuda:
            torch.cuda.synchronize()
    except RuntimeError as error:  # torch.cuda.OutOfMemoryError is one
        if cuda and "out of memory" in str(error):
            print("out of memory under --limit-bytes", file=sys.stderr)
            sys.exit(3)
        raise
    if cuda:
        print(torch.cuda.max_memory_reserved())
    else:
        print(resident("VmHWM") - baseline)


if __name__ == "__main__":
    main()
