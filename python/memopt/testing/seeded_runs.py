"""Named runs of one training binary under chosen seeds, shared by the
checks of seeded random ops (check_dropout, check_droppath)."""
import json
import os

import numpy as np
import onnx
from onnx import numpy_helper

from memopt.testing.check_training import run


def write_data(directory, count, size):
    """`count` samples of ones (inputs) and zeros (targets), 1 x size x
    size: the loss and the update then reveal the random mask."""
    for sub, value in (("inputs", 1.0), ("targets", 0.0)):
        os.makedirs(os.path.join(directory, sub), exist_ok=True)
        for i in range(count):
            np.save(os.path.join(directory, sub, "s%d.npy" % i),
                    np.full((1, size, size), value, dtype=np.float32))


def trained_w(path):
    """The scalar parameter `w` of the model at `path`."""
    weights = {i.name: numpy_helper.to_array(i)
               for i in onnx.load(path).graph.initializer}
    return float(weights["w"][0])


class SeededRuns:
    """Trains `binary` on `data`, writing each named run's trained model
    and run report into `work`; keeps the reports."""

    def __init__(self, binary, data, work):
        self.binary, self.data, self.work = binary, data, work
        self.reports = {}

    def train(self, name, steps, seed, *extra):
        """Runs `steps` steps under `seed` (more binary flags in `extra`);
        returns the trained model's path and the per-step losses."""
        out = os.path.join(self.work, name + ".onnx")
        report = os.path.join(self.work, name + ".json")
        run([self.binary, "--data", self.data, "--steps", str(steps),
             "--seed", str(seed), "--log-every", "0", "--out", out,
             "--report", report] + list(extra))
        self.reports[name] = json.load(open(report))
        return out, self.reports[name]["loss"]

    def expect_planned_peak(self, expect, plan, name):
        """Checks that run `name` measured the peak the compile report
        `plan` predicted."""
        predicted = json.load(open(plan))["predicted_peak_bytes"]
        measured = self.reports[name]["measured_peak_bytes"]
        print("peak: predicted %d bytes, measured %d" % (predicted, measured))
        expect(measured == predicted, "measured peak = predicted peak")
