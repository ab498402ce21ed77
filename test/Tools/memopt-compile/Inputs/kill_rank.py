#!/usr/bin/python3
"""Kills one rank of a pipeline run and checks that the run ends.

    kill_rank.py RANK SECONDS MPIRUN... -- BIN ARGS...

Starts `MPIRUN... BIN ARGS...` (a long run that logs every step), waits for
its first step line, kills the process of rank RANK with SIGKILL, and
prints the exit status and the run's output once every process has ended;
fails if that takes more than SECONDS.
"""
import os
import signal
import subprocess
import sys
import time

rank, seconds = sys.argv[1], float(sys.argv[2])
split = sys.argv.index("--")
launcher, command = sys.argv[3:split], sys.argv[split + 1:]
binary = os.path.realpath(command[0])
run = subprocess.Popen(launcher + command, stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, text=True)
output = []
for line in run.stdout:
    output.append(line)
    if line.startswith("step "):
        break


def rank_pid():
    """The pid of the process of `binary` whose MPI rank is `rank`."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.path.realpath("/proc/%s/exe" % pid) != binary:
                continue
            environ = open("/proc/%s/environ" % pid, "rb").read().split(b"\0")
        except OSError:
            continue
        if ("OMPI_COMM_WORLD_RANK=" + rank).encode() in environ:
            return int(pid)
    return None


pid = rank_pid()
if pid is None:
    run.kill()
    sys.exit("no process of rank %s found" % rank)
start = time.monotonic()
os.kill(pid, signal.SIGKILL)
try:
    rest, _ = run.communicate(timeout=seconds)
except subprocess.TimeoutExpired:
    run.kill()
    sys.exit("the run did not end within %g s of killing rank %s"
             % (seconds, rank))
output.append(rest)
print("exit status %d after %.0f s" % (run.returncode, time.monotonic() - start))
print("".join(output))
sys.exit(0 if run.returncode != 0 else "the run exited with status 0")
