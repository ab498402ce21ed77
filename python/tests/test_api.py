"""The memopt Python API against the real tools (memopt-compile on PATH or
$MEMOPT_COMPILE): a small U-Net exported, planned, compiled, trained, its
weights loaded back. Run with pytest (the lit test test/Python/pytest.test
installs the package into a virtual environment first)."""

import os
import shutil

import numpy as np
import pytest
import torch

import memopt
from memopt import models
from memopt.make_dataset import smooth_image

TOOL = os.environ.get("MEMOPT_COMPILE") or shutil.which("memopt-compile")
pytestmark = pytest.mark.skipif(TOOL is None,
                                reason="memopt-compile is not built")


def small_unet():
    torch.manual_seed(0)
    return models.build("unet", base=4)


def write_data(directory, count, shape=(1, 32, 32)):
    rng = np.random.default_rng(0)
    for sub in ("inputs", "targets"):
        os.makedirs(os.path.join(directory, sub), exist_ok=True)
    for i in range(count):
        image = np.ascontiguousarray(smooth_image(rng, shape),
                                     dtype=np.float32)
        np.save(os.path.join(directory, "inputs", "s%d.npy" % i), image)
        np.save(os.path.join(directory, "targets", "s%d.npy" % i),
                np.clip(image * 1.5 - 0.25, 0, 1).astype(np.float32))


@pytest.fixture
def exported(tmp_path):
    net = small_unet()
    path = tmp_path / "net.onnx"
    assert memopt.export_module(net, path, input_shape=(1, 32, 32),
                                batch=2) == path
    assert net.training  # left as it was
    return net, path


def test_plan_only(exported, tmp_path):
    _, path = exported
    plan = memopt.compile(path, plan_only=True, optimizer="adam",
                          timeline=tmp_path / "t.svg")
    assert plan.binary is None
    assert plan.report["predicted_peak_bytes"] > 0
    assert plan.report["strategy"]["remat"] == "none"
    shown = memopt.show_timeline(tmp_path / "t.svg")
    # The SVG text outside IPython, an IPython SVG object inside it.
    text = shown if isinstance(shown, str) else shown.data
    assert "<svg" in text and "</svg>" in text


def test_compile_train_load(exported, tmp_path):
    net, path = exported
    build = memopt.compile(path, tmp_path / "train", optimizer="adam",
                           lr=1e-3, loss="l1", report=tmp_path / "c.json")
    assert os.access(build.binary, os.X_OK)
    # The initial weights are beside the binary, the model compiled.
    assert build.weights == build.binary + ".weights.onnx"
    with open(path, "rb") as model, open(build.weights, "rb") as weights:
        assert model.read() == weights.read()
    assert memopt.read_report(tmp_path / "c.json") == build.report
    write_data(tmp_path / "data", 4)
    seen = []
    run = memopt.train(build.binary, tmp_path / "data", steps=3,
                       out=tmp_path / "trained.onnx", no_shuffle=True,
                       progress=lambda *step: seen.append(step))
    assert [s[0] for s in seen] == [1, 2, 3] and seen[-1][1] == 3
    assert len(run["loss"]) == 3
    assert run["measured_peak_bytes"] == build.report["predicted_peak_bytes"]
    import onnx
    from onnx import numpy_helper
    before = {k: v.clone() for k, v in net.state_dict().items()}
    memopt.load_weights(net, tmp_path / "trained.onnx")
    after = net.state_dict()
    assert not torch.equal(before["inc.double_conv.0.weight"],
                           after["inc.double_conv.0.weight"])
    for init in onnx.load(str(tmp_path / "trained.onnx")).graph.initializer:
        if init.name in after:
            assert np.array_equal(after[init.name].numpy(),
                                  numpy_helper.to_array(init)), init.name
    # Without `out`, the trained model goes beside the binary (it failed
    # with "--out TRAINED.onnx is required" before).
    memopt.train(build.binary, tmp_path / "data", steps=1, progress=False)
    assert memopt.default_out(build.binary) == build.binary + ".trained.onnx"
    onnx.checker.check_model(memopt.default_out(build.binary))


def test_compile_module_keeps_its_weights(tmp_path):
    # A module is exported into a scratch directory that compile removes:
    # the binary trains from the weights file beside it.
    build = memopt.compile(small_unet(), tmp_path / "train",
                           input_shape=(1, 32, 32), batch=2)
    assert os.path.isfile(build.weights)
    write_data(tmp_path / "data", 2)
    run = memopt.train(build.binary, tmp_path / "data", steps=1,
                       progress=False)
    assert len(run["loss"]) == 1


def test_errors(exported, tmp_path):
    _, path = exported
    with pytest.raises(memopt.MemoptError, match="is below the predicted peak"):
        memopt.compile(path, plan_only=True, budget="1KiB")
    with pytest.raises(memopt.MemoptError, match="--loss must be"):
        memopt.compile(path, tmp_path / "x", loss="huber")
    with pytest.raises(ValueError):
        memopt.compile(path)  # neither a binary nor plan_only
    with pytest.raises(memopt.MemoptError, match="has shape"):
        memopt.load_weights(models.build("unet", base=8), path)
    with pytest.raises(memopt.MemoptError, match="has no initializer"):
        memopt.load_weights(torch.nn.Sequential(torch.nn.Conv2d(1, 1, 1)),
                            path)


def test_fit(exported):
    _, path = exported
    plain = memopt.compile(path, plan_only=True)
    peak = plain.report["predicted_peak_bytes"]
    roomy = memopt.fit(path, "cpu,memory=%d" % (2 * peak), plan_only=True)
    assert isinstance(roomy, memopt.CompileResult) and roomy.binary is None
    assert roomy.fit["candidates"][roomy.fit["winner"]]["flags"] == "(plain)"
    assert roomy.report["predicted_peak_bytes"] == peak
    rows = roomy.table.splitlines()
    assert rows[0].startswith("memopt-compile: fit cpu")
    assert any(row.split()[:2] == ["*P", "(plain)"] for row in rows)
    assert "is the fastest of" in rows[-1]
    with pytest.raises(memopt.MemoptError, match="does not fit cpu: .* the "
                       "smallest peak reachable is"):
        memopt.fit(path, "cpu,memory=1KiB", plan_only=True)


def test_progress_bar_lines(capsys):
    import io
    stream = io.StringIO()
    bar = memopt.ProgressBar(stream)
    for step in range(1, 21):
        bar(step, 20, 0.5, 3.0, "0:00:01")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 11  # not a terminal: every tenth, and the last
    assert lines[-1].startswith("[" + "#" * 30 + "] 20/20")


class _TwoContainers(torch.nn.Module):
    """Reaches one convolution under two names, as nnU-Net's and MONAI's
    blocks do (a layer kept in a Sequential and as an attribute)."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(1, 2, 3, padding=1)
        self.all_modules = torch.nn.Sequential(self.conv, torch.nn.ReLU())

    def forward(self, x):
        return self.all_modules(x)


def test_load_weights_aliases(tmp_path):
    """The export names an aliased tensor once; load_weights fills every
    name the module reaches it under."""
    net = _TwoContainers()
    path = str(tmp_path / "aliased.onnx")
    memopt.export_module(net, path, (1, 8, 8), batch=1)
    fresh = _TwoContainers()
    memopt.load_weights(fresh, path)
    assert torch.equal(fresh.conv.weight, net.conv.weight)
