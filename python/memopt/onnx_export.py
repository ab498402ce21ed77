"""One export for memopt, whichever PyTorch runs it.

PyTorch 2's `torch.onnx.export` runs the torch.export ("dynamo") exporter by
default, and its TorchScript exporter is deprecated; PyTorch 1.x has only
the TorchScript one. `export_training` picks the exporter the installed
PyTorch has and calls it so that the file trains exactly what
`module.train()` trains:

- torch.export: `optimize=False`. The exporter's ONNX optimizer would fuse
  BatchNorm into the convolution before it, fold PReLU and GroupNorm
  parameters into constants and merge equal initializers (a fresh network's
  InstanceNorm scales become one): memopt refuses such files or unties what
  it can. BatchNorm is written in its inference form even from
  `model.train()`; memopt trains it with batch statistics all the same.
- TorchScript: `training=TrainingMode.TRAINING` (BatchNorm with its running
  statistics outputs), opset 17, no constant folding.

Both name the initializers by the module's state_dict names.
"""
import importlib.util
import inspect
import warnings

# "torch.export-default" is torch.onnx.export with all its defaults, the
# ONNX optimizer included: what a user's plain call writes, which memopt
# reconciles with the module's parameters or refuses (tests use it).
EXPORTERS = ("auto", "torch.export", "torch.export-default", "torchscript")


def _chooses_exporter():
    """Whether torch.onnx.export takes `dynamo` (PyTorch 2): its default,
    True from PyTorch 2.9 on, must then be set either way."""
    import torch

    return "dynamo" in inspect.signature(torch.onnx.export).parameters


def has_torch_export():
    """Whether the installed PyTorch has the torch.export ONNX exporter
    (PyTorch 2 with onnxscript installed)."""
    return (_chooses_exporter()
            and importlib.util.find_spec("onnxscript") is not None)


def resolve_exporter(exporter="auto"):
    """The exporter `export_training` uses for `exporter`: "auto" is
    torch.export where the installed PyTorch has it, else TorchScript."""
    if exporter not in EXPORTERS:
        raise ValueError("exporter must be one of %s, got %r"
                         % (", ".join(EXPORTERS), exporter))
    if exporter == "auto":
        return "torch.export" if has_torch_export() else "torchscript"
    if exporter.startswith("torch.export") and not has_torch_export():
        raise ValueError(f"exporter {exporter!r} needs PyTorch 2 with "
                         "onnxscript installed; this PyTorch has only the "
                         "TorchScript exporter (use exporter='torchscript')")
    return exporter


def export_training(module, x, path, exporter="auto", opset=17):
    """Exports `module` in training mode to `path` with one input "input"
    (the example `x`) and its first output named "output". Returns the
    exporter used. The module is left as it was: in its mode, with its
    buffers (the TorchScript exporter runs the module, which updates
    BatchNorm's running statistics)."""
    import torch

    exporter = resolve_exporter(exporter)
    was_training = module.training
    buffers = [b.detach().clone() for b in module.buffers()]
    module.train()
    names = ["output"]
    try:
        with warnings.catch_warnings():
            # Both exporters warn about training mode, and torch 1.13 per
            # BatchNorm that it drops num_batches_tracked: memopt owns the
            # statistics.
            warnings.simplefilter("ignore")
            if exporter.startswith("torch.export"):
                optimize = exporter == "torch.export-default"
                torch.onnx.export(module, (x,), path, dynamo=True,
                                  optimize=optimize, input_names=["input"],
                                  output_names=names, verbose=False)
            else:
                kwargs = {"dynamo": False} if _chooses_exporter() else {}
                torch.onnx.export(module, x, path,
                                  training=torch.onnx.TrainingMode.TRAINING,
                                  opset_version=opset, input_names=["input"],
                                  output_names=names,
                                  do_constant_folding=False, **kwargs)
    finally:
        module.train(was_training)
        with torch.no_grad():
            for buffer, saved in zip(module.buffers(), buffers):
                buffer.copy_(saved)
    return exporter
