#!/usr/bin/python3
"""Interrupts a memopt-compile run while its C++ compiler runs and prints
what it left behind.

interrupt_compile.py SIGNAL WORKDIR MEMOPT-COMPILE MODEL [FLAGS...]

Runs MEMOPT-COMPILE MODEL -o WORKDIR/out/bin --report=WORKDIR/out/r.json
FLAGS with TMPDIR=WORKDIR/tmp in a session of its own; once the generated
source is in its temporary directory and the compiler runs, sends SIGNAL
(INT: to the whole session, as Ctrl-C does; TERM: to memopt-compile
alone, as `kill` does), waits for it and prints how it ended, the
temporary directories and files it left, and whether the -o that was
there before is as it was."""
import glob
import os
import signal
import subprocess
import sys
import time

name, work, compiler, model = sys.argv[1:5]
flags = sys.argv[5:]
tmp = os.path.join(work, "tmp")
out = os.path.join(work, "out")
os.makedirs(tmp)
os.makedirs(out)
previous = os.path.join(out, "bin")
with open(previous, "w") as f:
    f.write("previous\n")
env = dict(os.environ, TMPDIR=tmp)
run = subprocess.Popen([compiler, model, "-o", os.path.join(out, "bin"),
                        "--report=" + os.path.join(out, "r.json")] + flags,
                       env=env, start_new_session=True,
                       # lit's workers ignore SIGINT, and an ignored signal
                       # stays ignored across exec: a shell's would not.
                       preexec_fn=lambda: signal.signal(signal.SIGINT,
                                                        signal.SIG_DFL),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
deadline = time.monotonic() + 300
caught = False
while run.poll() is None and time.monotonic() < deadline:
    # The source is written, and the compiler started: its log exists.
    if glob.glob(os.path.join(tmp, "memopt-compile-*", "compiler.log")):
        caught = True
        break
    time.sleep(0.002)
if not caught:
    run.kill()
    sys.exit("the compile ended before it could be interrupted")
sig = getattr(signal, "SIG" + name)
if name == "INT":
    os.killpg(run.pid, sig)
else:
    run.send_signal(sig)
code = run.wait(timeout=120)
print("ended by signal: %s" % (code < 0))
print("temporary directories left: %d" %
      len(glob.glob(os.path.join(tmp, "memopt-compile-*"))))
print("outputs: %s" % sorted(os.listdir(out)))
print("previous -o unchanged: %s" % (open(previous).read() == "previous\n"))
