#!/usr/bin/python3
"""Runs a command with stdin an open pipe that holds one unread line, as a
shell pipeline or an interactive terminal would give it, and says how it
ended.

run_with_open_stdin.py SECONDS COMMAND [ARGS...]

Passes COMMAND's stdout and stderr through, then prints `exit N` (or
`timed out after SECONDS s`, having killed it) and whether COMMAND left
stdin's line unread (`stdin untouched`) or consumed it (`stdin read`).
A compiler must never read its stdin: a solver that falls back to it
hangs on an open pipe and eats input meant for someone else."""
import os
import subprocess
import sys

seconds = float(sys.argv[1])
command = sys.argv[2:]
line = b"keep me\n"
read_end, write_end = os.pipe()
os.write(write_end, line)
sys.stdout.flush()
run = subprocess.Popen(command, stdin=read_end)
try:
    status = "exit %d" % run.wait(timeout=seconds)
except subprocess.TimeoutExpired:
    run.kill()
    run.wait()
    status = "timed out after %g s" % seconds
os.close(write_end)
left = os.read(read_end, len(line) + 1)
print(status)
print("stdin untouched" if left == line else "stdin read")
