"""What the example scripts (examples/*/train.py) share: running the
memopt tools with their output streamed, loading trained ONNX weights
back into the PyTorch module, and writing side-by-side pictures."""

import json
import os
import subprocess
import sys

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from PIL import Image


def shown(text):
    """`text` with the current directory's absolute path made relative."""
    here = os.getcwd() + os.sep
    return text.replace(here, "")


def run(example, command):
    """Runs `command`, its output streamed; exits with its status, naming
    `example`, on failure."""
    print("$ " + shown(" ".join(command)), flush=True)
    status = subprocess.call(command)
    if status:
        sys.exit("%s: %s failed with status %d"
                 % (example, os.path.basename(command[0]), status))


def load_weights(module, onnx_path):
    """Copies the ONNX model's initializers (weights and BatchNorm running
    statistics, named as in the module) into `module`."""
    values = {i.name: numpy_helper.to_array(i)
              for i in onnx.load(onnx_path).graph.initializer}
    with torch.no_grad():
        for name, tensor in module.state_dict().items():
            if name in values:
                tensor.copy_(torch.from_numpy(values[name].copy()))
    return module


def write_panel(path, columns):
    """Side-by-side 8-bit picture of images in [0, 1]: grayscale (H, W) or
    colour (H, W, 3), all of one kind."""
    gap = np.ones(columns[0].shape[:1] + (4,) + columns[0].shape[2:],
                  np.float32)
    row = [columns[0]]
    for image in columns[1:]:
        row += [gap, image]
    picture = np.concatenate(row, axis=1)
    Image.fromarray(np.round(np.clip(picture, 0, 1) * 255).astype(np.uint8)
                    ).save(path)


def train_binary(example, binary, data, val, args, trained, run_report,
                 predicted_peak_bytes):
    """Runs the training binary for `args.steps` steps (seed `args.seed`),
    writing the trained weights and the run report; prints the loss and
    the measured against the predicted peak. Returns the run report."""
    run(example, [binary, "--data", data, "--val-data", val,
                  "--steps", str(args.steps), "--seed", str(args.seed),
                  "--log-every", "1", "--out", trained,
                  "--report", run_report])
    with open(run_report) as f:
        measured = json.load(f)
    losses = measured["loss"]
    print("loss %.4f -> %.4f over %d steps; measured peak %.1f MiB "
          "(predicted %.1f MiB)" % (
              losses[0], losses[-1], len(losses),
              measured["measured_peak_bytes"] / 2**20,
              predicted_peak_bytes / 2**20), flush=True)
    return measured
