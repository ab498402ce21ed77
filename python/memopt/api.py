"""memopt from Python: export a PyTorch module, compile its training step,
train it, load the trained weights back, read the reports.

    import memopt
    memopt.export_module(net, "net.onnx", input_shape=(1, 256, 256), batch=2)
    # (or memopt.compile(net, "net-train", input_shape=(1, 256, 256),
    #  batch=2, ...) to export and compile in one call)
    build = memopt.compile("net.onnx", "net-train", loss="l1",
                           optimizer="adam", lr=1e-3, budget="1GiB",
                           timeline="net.svg")
    print(build.report["predicted_peak_bytes"])
    run = memopt.train(build.binary, "data/", steps=100, out="trained.onnx")
    memopt.load_weights(net, "trained.onnx")

`compile` and `train` run memopt's command-line tools (memopt-compile, the
training binary it writes) and raise MemoptError with the tool's own
one-line message when they fail. memopt-compile is looked up as the
`memopt_compile` argument, then $MEMOPT_COMPILE, then on PATH.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass


class MemoptError(RuntimeError):
    """A memopt tool failed; the message is the tool's error line(s)."""


# memopt-compile writes the model with the initial weights beside the
# binary under the binary's path plus this suffix (memopt/Runtime/ModelWeights.h).
WEIGHTS_SUFFIX = ".weights.onnx"


@dataclass
class CompileResult:
    """What memopt.compile produced: the binary (None with plan_only), the
    compile report, and the timeline SVG's path (None unless asked).
    `weights` is the file of initial weights memopt-compile wrote beside
    the binary (BINARY.weights.onnx), which the binary reads at start:
    copy or move the two together."""
    binary: str
    report: dict
    timeline: str = None

    @property
    def weights(self):
        return self.binary and self.binary + WEIGHTS_SUFFIX


@dataclass
class FitResult(CompileResult):
    """What memopt.fit produced: a CompileResult of the plan auto-fit chose,
    with `table`, the candidates as memopt-compile prints them (the chosen
    plan, the runner-up and the Pareto frontier marked, why the winner
    won)."""
    table: str = ""

    @property
    def fit(self):
        """The report's `fit`: candidates, frontier, winner, runner_up, why."""
        return self.report["fit"]


def export_module(module, path, input_shape, batch=1, opset=17,
                  exporter="auto"):
    """Exports `module` in training mode to ONNX at `path`, as memopt
    expects it: one input named "input" of shape (batch, *input_shape), the
    module's outputs, every parameter and buffer an initializer under its
    state_dict name. `exporter` is "auto" (PyTorch 2's torch.export exporter
    where the installed PyTorch has it, else TorchScript), "torch.export" or
    "torchscript" (memopt.onnx_export says how each is called); `opset`
    applies to TorchScript. Larger weights may go to `path` + ".data"
    (torch.export), which must stay beside the file. The module is left in
    the mode it was in. Returns `path`."""
    import torch

    from memopt.onnx_export import export_training

    if batch < 1 or len(input_shape) < 1 or min(input_shape) < 1:
        raise ValueError("export_module: batch and input_shape must be "
                         "positive, got batch=%r input_shape=%r"
                         % (batch, input_shape))
    export_training(module, torch.randn(batch, *input_shape), path,
                    exporter=exporter, opset=opset)
    return path


def _tool(explicit):
    path = explicit or os.environ.get("MEMOPT_COMPILE") or shutil.which(
        "memopt-compile")
    if not path or not os.access(path, os.X_OK):
        raise MemoptError(
            "memopt-compile not found: build memopt (bash scripts/build.sh) "
            "and pass memopt_compile=, set MEMOPT_COMPILE, or put its bin/ "
            "directory on PATH")
    return path


# memopt-compile's flags without a value: True gives them, False not.
_SWITCHES = ("freeze_batchnorm", "verbose")


def _flag(name, value):
    text = ("true" if value else "false") if isinstance(value, bool) else (
        "%r" % value if isinstance(value, float) else str(value))
    return "--%s=%s" % (name.replace("_", "-"), text)


def _failure(tool, completed):
    lines = [l for l in completed.stderr.splitlines() if l.strip()]
    return MemoptError("\n".join(lines) or "%s exited with status %d"
                       % (tool, completed.returncode))


def compile(model, output=None, *, plan_only=False, report=None,
            timeline=None, memopt_compile=None, **options):
    """Compiles `model` into the training binary `output`: an ONNX file,
    or a torch.nn.Module, which is exported first with export_module (the
    installed PyTorch's default exporter; give input_shape=(C, H, W) and
    batch, which then also size the compiled step).

    `options` are memopt-compile's flags, with underscores for dashes:
    target, batch, input_shape, loss, optimizer, lr, momentum,
    weight_decay, beta1, beta2, eps, device, budget, remat, ... (the
    command line's contract). With plan_only=True no binary is built and
    `output` must be None. Returns a CompileResult with the compile report
    (read from `report`, or a temporary file)."""
    result, _ = _compile(model, output, plan_only, report, timeline,
                         memopt_compile, options)
    return result


def fit(model, device, output=None, *, plan_only=False, report=None,
        timeline=None, memopt_compile=None, **options):
    """Compiles `model` with the plan memopt-compile --fit=`device` chooses:
    the least predicted step time whose peak fits the device's memory less
    its reserve (a built-in profile name, NAME,KEY=VALUE... or FILE.json).
    `options` are memopt-compile's flags as for compile, constraints of
    the search; amp="auto" lets it lower the precision, devices=N try
    pipeline stages, maximize="batch" or "size" find the largest that fits.
    Returns a FitResult: the compile's result with the table of candidates.
    Raises MemoptError with memopt-compile's one line when nothing fits."""
    result, stdout = _compile(model, output, plan_only, report, timeline,
                              memopt_compile, dict(options, fit=device))
    # The table, without the plan's own lines (its peak and what holds it).
    table = "".join(line for line in stdout.splitlines(keepends=True)
                    if not line.startswith(("memopt-compile: predicted peak",
                                            "memopt-compile: the peak is at")))
    return FitResult(result.binary, result.report, result.timeline, table)


def _compile(model, output, plan_only, report, timeline, memopt_compile,
             options):
    """compile's work; also returns memopt-compile's stdout."""
    tool = _tool(memopt_compile)
    if plan_only == (output is not None):
        raise ValueError("compile: give an output binary, or plan_only=True "
                         "without one")
    with tempfile.TemporaryDirectory(prefix="memopt-") as scratch:
        if hasattr(model, "state_dict"):
            if options.get("input_shape") is None:
                raise ValueError("compile: a module needs input_shape=(C, "
                                 "H, W) (and batch) to be exported")
            model = export_module(model, os.path.join(scratch, "model.onnx"),
                                  options["input_shape"],
                                  batch=options.get("batch") or 1)
        report_path = report or os.path.join(scratch, "compile.json")
        command = [tool, os.fspath(model)]
        command += ["--plan-only"] if plan_only else ["-o", os.fspath(output)]
        command += ["--report=" + os.fspath(report_path)]
        if timeline:
            command.append("--timeline=" + os.fspath(timeline))
        for name, value in options.items():
            if value is None or (name in _SWITCHES and value is False):
                continue
            if name in _SWITCHES:
                command.append("--" + name.replace("_", "-"))
                continue
            if name == "input_shape":
                value = ",".join(str(d) for d in value)
            command.append(_flag(name, value))
        completed = subprocess.run(command, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        if completed.returncode:
            raise _failure("memopt-compile", completed)
        with open(report_path) as f:
            compile_report = json.load(f)
    return CompileResult(None if plan_only else os.fspath(output),
                         compile_report,
                         timeline and os.fspath(timeline)), completed.stdout


_PROGRESS = re.compile(r"step (\d+)/(\d+)\s+loss (\S+)\s+images/s (\S+)"
                       r"(?:\s+eta (\S+))?")


class ProgressBar:
    """A one-line progress bar on `stream` (redrawn in place on a
    terminal, a line every tenth of the run otherwise)."""

    def __init__(self, stream=None, width=30):
        self.stream = stream or sys.stderr
        self.width = width
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.shown = -1

    def __call__(self, step, total, loss, images_per_second, eta):
        filled = self.width * step // total
        line = "[%s%s] %d/%d  loss %.4g  %.1f images/s  eta %s" % (
            "#" * filled, "." * (self.width - filled), step, total, loss,
            images_per_second, eta or "?")
        if self.tty:
            self.stream.write("\r" + line + ("\n" if step == total else ""))
        elif step == total or step * 10 // total != self.shown:
            self.shown = step * 10 // total
            self.stream.write(line + "\n")
        self.stream.flush()


def default_out(binary):
    """Where train() writes the trained model when not given `out`:
    BINARY.trained.onnx, beside the binary (a name no input has: the
    binary's own path plus a suffix)."""
    return os.fspath(binary) + ".trained.onnx"


def train(binary, data, *, steps=None, epochs=None, out=None, report=None,
          progress=True, **options):
    """Runs the training binary on `data` (the trainer's layout) and
    returns its run report (a dict: loss per step, measured_peak_bytes,
    ...). The trained model (ONNX) is written to `out`, by default
    default_out(binary): BINARY.trained.onnx beside the binary. `options`
    are the binary's flags (val_data, batch order seed, checkpoint_dir,
    resume, lr, weights: another ONNX file to start from, e.g. a trained
    model to fine-tune, ...). progress: True for a progress bar on stderr, a
    callable (step, total, loss, images_per_second, eta) to get each step,
    or False for none."""
    if (steps is None) == (epochs is None):
        raise ValueError("train: give steps or epochs")
    if out is None:
        out = default_out(binary)
    callback = ProgressBar() if progress is True else (progress or None)
    with tempfile.TemporaryDirectory(prefix="memopt-") as scratch:
        report_path = report or os.path.join(scratch, "run.json")
        command = [os.fspath(binary), "--data", os.fspath(data),
                   "--report", os.fspath(report_path),
                   "--log-every", "1" if callback else "0"]
        command += (["--steps", str(steps)] if steps is not None
                    else ["--epochs", str(epochs)])
        command += ["--out", os.fspath(out)]
        for name, value in options.items():
            if value is None:
                continue
            flag = "--" + name.replace("_", "-")
            if value is True:
                command.append(flag)
            elif value is not False:
                command += [flag, os.fspath(value) if isinstance(
                    value, os.PathLike) else str(value)]
        process = subprocess.Popen(command, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True)
        for line in process.stdout:
            match = _PROGRESS.match(line)
            if match and callback:
                step, total, loss, rate, eta = match.groups()
                callback(int(step), int(total), float(loss), float(rate),
                         eta)
        stderr = process.stderr.read()
        process.wait()
        if process.returncode:
            raise _failure(os.path.basename(os.fspath(binary)),
                           subprocess.CompletedProcess(
                               command, process.returncode, "", stderr))
        with open(report_path) as f:
            return json.load(f)


def load_weights(module, onnx_path, strict=True):
    """Copies the initializers of the ONNX model at `onnx_path` (trained
    weights and BatchNorm running statistics, named as the module's
    state_dict) into `module`. With strict, every floating-point entry of
    the state_dict must be there. Returns the module."""
    import onnx
    import torch
    from onnx import numpy_helper

    values = {i.name: numpy_helper.to_array(i)
              for i in onnx.load(os.fspath(onnx_path)).graph.initializer}
    # A tensor that the module reaches under several names (nnU-Net's and
    # MONAI's blocks keep their layers in two containers) is exported
    # under one of them: any of its names will do.
    state = module.state_dict(keep_vars=True)
    aliases = {}
    for name, tensor in state.items():
        aliases.setdefault((tensor.data_ptr(), tuple(tensor.shape)),
                           []).append(name)
    missing = []
    with torch.no_grad():
        for name, tensor in state.items():
            found = next((n for n in aliases[(tensor.data_ptr(),
                                              tuple(tensor.shape))]
                          if n in values), None)
            if found is not None:
                source = torch.from_numpy(values[found].copy())
                if tuple(source.shape) != tuple(tensor.shape):
                    raise MemoptError(
                        "%s: initializer %s has shape %s, the module's %s"
                        % (onnx_path, name, tuple(source.shape),
                           tuple(tensor.shape)))
                tensor.copy_(source)
            elif tensor.is_floating_point():
                missing.append(name)
    if strict and missing:
        raise MemoptError("%s has no initializer for %s (not the model this "
                          "module was exported as?)"
                          % (onnx_path, ", ".join(missing[:5]) +
                             (" and %d more" % (len(missing) - 5)
                              if len(missing) > 5 else "")))
    return module


def read_report(path):
    """A compile or run report (JSON) as a dict."""
    with open(path) as f:
        return json.load(f)


def show_timeline(path):
    """The memory timeline SVG memopt-compile drew (compile(...,
    timeline=PATH)), displayable in a notebook (IPython's SVG) or, outside
    IPython, as the SVG text."""
    with open(path) as f:
        svg = f.read()
    try:
        from IPython.display import SVG
    except ImportError:
        return svg
    return SVG(svg)
