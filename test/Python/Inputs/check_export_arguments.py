"""Runs `python -m memopt.export`'s main on bad arguments in one process and
prints, per case, its exit code and stderr (one line each expected).
models.build is replaced by a function that fails the run: every argument
must be refused before the model (and its weights) is built."""
import contextlib
import io
import sys

from memopt import export, models


def built(*args, **kw):
    raise AssertionError("the model was built before the arguments were checked")


models.build = built
BASE = ["--model", "unet", "-o", sys.argv[1]]
CASES = [
    ["--input-shape", "1,64,64", "--seed", str(2 ** 64)],
    ["--input-shape", "1,64,64", "--seed", "-1"],
    ["--input-shape", "1,64,64", "--depth", "40"],
    ["--input-shape", "1,64,64", "--depth", "6"],
    ["--input-shape", "1,16,16", "--depth", "5", "--base", "2"],
    ["--input-shape", "1,64,64", "--base", "1000000"],
    ["--input-shape", "1,64,64", "--batch", "1000000000"],
    ["--input-shape", "1,64,64", "--batch", "0"],
    ["--input-shape", "1,1000000000,64"],
    ["--input-shape", "1000000,64,64"],
    ["--input-shape", "1,4096,4096", "--batch", "2"],
    ["--input-shape", "1,64,64", "--opset", "99"],
]
for case in CASES:
    stderr = io.StringIO()
    with contextlib.redirect_stderr(stderr):
        try:
            export.main(BASE + case)
            code = 0
        except SystemExit as e:
            code = e.code
    lines = stderr.getvalue().splitlines()
    print(f"exit {code}, {len(lines)} line(s): {' | '.join(lines)}")
