#!/usr/bin/python3
"""Kills a training binary (SIGKILL) while it writes a checkpoint, then
resumes it and compares with an uninterrupted run.

The binary's test hook MEMOPT_TEST_CHECKPOINT_PAUSE_MS=N makes the
checkpoint writer sleep N ms after the first part of each temporary file
(checkpoint-<step>.mckpt.tmp). The script starts a run that checkpoints
every step, waits until checkpoint 1 is complete and checkpoint 2's
temporary file exists, kills the process, and checks that

- the process died of SIGKILL, leaving checkpoint 1, a partial temporary
  file of checkpoint 2 and no checkpoint 2;
- --resume starts from checkpoint 1 (the previous checkpoint still loads);
- the resumed run's --out and losses are bit-identical to those of an
  uninterrupted run of the same steps.

    PYTHONPATH=python /usr/bin/python3 -m memopt.testing.kill_during_checkpoint \\
        --binary BIN --data DIR --steps 4 --workdir /tmp/kill
"""
import argparse
import filecmp
import json
import os
import shutil
import signal
import subprocess
import sys
import time

from memopt.testing.check_training import run
from memopt.testing.checklist import Checklist


def checkpoint(directory, step):
    return os.path.join(directory, "checkpoint-%010d.mckpt" % step)


def wait_for(paths, process, timeout):
    """Polls until every path exists; False when the process ends first or
    the time is up."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if all(os.path.exists(p) for p in paths):
            return True
        if process.poll() is not None:
            return False
        time.sleep(0.005)
    return False


def check(args):
    work = os.path.abspath(args.workdir)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    def command(name, *extra):
        return [args.binary, "--data", args.data, "--steps", str(args.steps),
                "--checkpoint-every", "1", "--log-every", "0",
                "--checkpoint-dir", os.path.join(work, name + "-checkpoints"),
                "--out", os.path.join(work, name + ".onnx"),
                "--report", os.path.join(work, name + ".json")] + list(extra)

    run(command("uninterrupted"))

    checks = Checklist()
    expect = checks.expect

    checkpoints = os.path.join(work, "killed-checkpoints")
    env = dict(os.environ, MEMOPT_TEST_CHECKPOINT_PAUSE_MS=str(args.pause_ms))
    process = subprocess.Popen(command("killed"), env=env,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    partial = checkpoint(checkpoints, 2) + ".tmp"
    reached = wait_for([checkpoint(checkpoints, 1), partial], process,
                       timeout=60 + 4 * args.pause_ms / 1000)
    if reached:
        process.send_signal(signal.SIGKILL)
    process.wait()
    expect(reached and process.returncode == -signal.SIGKILL,
           "killed during the write of checkpoint 2")
    expect(os.path.exists(checkpoint(checkpoints, 1)) and
           not os.path.exists(checkpoint(checkpoints, 2)) and
           os.path.exists(partial) and
           os.path.getsize(partial) < os.path.getsize(
               checkpoint(checkpoints, 1)),
           "checkpoint 1 complete, checkpoint 2 only a partial .tmp")
    expect(not os.path.exists(os.path.join(work, "killed.onnx")),
           "no --out written")

    output = run(command("killed", "--resume"))
    expect("resumed from %s at step 1" % checkpoint(checkpoints, 1) in output,
           "--resume loads checkpoint 1")
    same_out = filecmp.cmp(os.path.join(work, "uninterrupted.onnx"),
                           os.path.join(work, "killed.onnx"), shallow=False)
    losses = [json.load(open(os.path.join(work, name + ".json")))["loss"]
              for name in ("uninterrupted", "killed")]
    expect(same_out and losses[0] == losses[1],
           "the resumed run ends bit-identical to the uninterrupted one")
    return checks.finish()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--data", required=True)
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--pause-ms", type=int, default=1000)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args(sys.argv[1:] if argv is None else argv)
    if args.steps < 3:
        parser.error("--steps must be at least 3")
    try:
        return check(args)
    except (RuntimeError, ValueError, OSError) as e:
        print("kill_during_checkpoint: error: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
