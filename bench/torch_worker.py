"""One PyTorch training run for bench/vs_pytorch.py, in a fresh process.

Runs under the benchmark's torch (the newest from PyPI in its own virtual
environment, or Debian's 1.13): reads a JSON spec from argv[1], trains the
model for warmup + steps steps in one mode and prints one JSON line with
the step times and the memory figures. A fresh process per mode, so that
no mode inherits another's caches, compiled kernels or heap.

Modes: eager; checkpoint (torch.utils.checkpoint around every stage:
encoder layers and decoder blocks, the classic U-Net's inc/down/up
blocks); bf16 (torch.autocast to bfloat16 around forward and loss);
compile (torch.compile with torch._functorch.config.
activation_memory_budget = spec["budget"]).

Memory (CPU): the resident set. `rss_before` is VmRSS after torch is
imported and before the model, optimizer and data exist; after the
warm-up steps the kernel's high-water mark is reset (/proc/self/clear_refs
5), so `rss_peak` is VmHWM over the timed steps: everything resident then
(weights, gradients, optimizer state, activations, oneDNN workspaces and
caches, whatever the C heap keeps, compiled kernels) but not the
compiler's own transient memory during the first step. CUDA: the caching
allocator's max_memory_allocated and max_memory_reserved, reset after the
warm-up the same way (the live weights, gradients and optimizer state
count: they are allocated then).
"""
import functools
import json
import statistics
import sys
import time


def read_status(field):
    """A /proc/self/status field in bytes (VmRSS, VmHWM)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no %s in /proc/self/status" % field)


def reset_peak_rss():
    with open("/proc/self/clear_refs", "w") as refs:
        refs.write("5")


def stages(model_name, model):
    """The modules torch.utils.checkpoint wraps: one per resolution level."""
    if model_name == "resnet34-unet":
        encoder = model.encoder
        return [encoder.layer1, encoder.layer2, encoder.layer3,
                encoder.layer4, *model.decoder.blocks]
    return [model.inc] + [getattr(model, "%s%d" % (kind, i))
                          for kind in ("down", "up")
                          for i in range(1, model.depth + 1)]


def checkpoint_stages(torch, model_name, model):
    from torch.utils.checkpoint import checkpoint
    for stage in stages(model_name, model):
        stage.forward = functools.partial(checkpoint, stage.forward,
                                          use_reentrant=False)


def unavailable(torch, spec):
    """Why this torch cannot run spec's mode, or None."""
    if spec["mode"] != "compile":
        return None
    if not hasattr(torch, "compile"):
        return "torch %s has no torch.compile" % torch.__version__
    import torch._functorch.config as functorch_config
    if not hasattr(functorch_config, "activation_memory_budget"):
        return ("torch %s has no activation_memory_budget"
                % torch.__version__)
    return None


def run(spec):
    import torch
    import torch.nn.functional as F
    from memopt import models

    reason = unavailable(torch, spec)
    if reason:
        return {"torch": torch.__version__, "na": reason}
    torch.set_num_threads(spec["threads"])
    device = spec["device"]
    cuda = device == "cuda"
    rss_before = read_status("VmRSS")
    torch.manual_seed(0)
    model = models.build(spec["model"], in_channels=1).to(device).train()
    optimizer = torch.optim.SGD(model.parameters(), lr=spec["lr"],
                                momentum=spec["momentum"])
    shape = (spec["batch"], 1, spec["size"], spec["size"])
    x = torch.rand(shape, device=device)
    target = torch.rand(shape, device=device)
    mode = spec["mode"]
    net = model
    if mode == "checkpoint":
        checkpoint_stages(torch, spec["model"], model)
    elif mode == "compile":
        import torch._functorch.config as functorch_config
        functorch_config.activation_memory_budget = spec["budget"]
        net = torch.compile(model)

    def step():
        optimizer.zero_grad(set_to_none=True)
        if mode == "bf16":
            with torch.autocast(device_type=device, dtype=torch.bfloat16):
                out = net(x)
        else:
            out = net(x)
        loss = F.mse_loss(out.float(), target)
        loss.backward()
        optimizer.step()
        return loss

    def timed():
        start = time.perf_counter()
        loss = step()
        if cuda:
            torch.cuda.synchronize()
        return time.perf_counter() - start, loss.item()

    first_seconds = [timed()[0] for _ in range(spec["warmup"])]
    if cuda:
        torch.cuda.reset_peak_memory_stats()
    else:
        reset_peak_rss()
    seconds, losses = zip(*(timed() for _ in range(spec["steps"])))
    result = {"torch": torch.__version__, "seconds": list(seconds),
              "median_seconds": statistics.median(seconds),
              "warmup_seconds": first_seconds, "loss": losses[-1],
              "rss_before": rss_before, "rss_peak": read_status("VmHWM")}
    if cuda:
        result["cuda_allocated_peak"] = torch.cuda.max_memory_allocated()
        result["cuda_reserved_peak"] = torch.cuda.max_memory_reserved()
    return result


if __name__ == "__main__":
    print(json.dumps(run(json.loads(sys.argv[1]))), flush=True)
