"""Runs a CPU training binary under a different machine setting (env) and
accepts exactly two outcomes: it trains with the measured peak equal to the
compile report's prediction and the compiled thread count, or it refuses
before overrunning a workspace with exit status 1 and the one-line error.
Anything else (a signal, another status) fails. Prints the outcome.

usage: run_planned_or_refused.py COMPILE.json THREADS WORKDIR VAR=VALUE... -- BINARY ARGS...
"""
import json
import os
import subprocess
import sys

compile_report, threads, workdir = sys.argv[1], int(sys.argv[2]), sys.argv[3]
split = sys.argv.index("--")
env = dict(os.environ)
for setting in sys.argv[4:split]:
    name, value = setting.split("=", 1)
    env[name] = value
report = os.path.join(workdir, "run.json")
command = sys.argv[split + 1:] + ["--report", report]
done = subprocess.run(command, env=env, capture_output=True, text=True)
if done.returncode == 0:
    predicted = json.load(open(compile_report))["predicted_peak_bytes"]
    run = json.load(open(report))
    assert run["measured_peak_bytes"] == predicted, (run["measured_peak_bytes"], predicted)
    assert run["threads"] == threads, (run["threads"], threads)
    print("trained: predicted peak = measured peak, threads", run["threads"])
elif done.returncode == 1 and "the plan reserved" in done.stderr:
    lines = done.stderr.strip().splitlines()
    print("refused:", lines[-1])
else:
    sys.exit("unexpected exit status %d:\n%s" % (done.returncode, done.stderr))
