#!/usr/bin/python3
"""Plans ONNX model argv[2] with memopt-compile argv[1] (cuda/a100-40g,
--remat=auto) at each fraction of argv[4:] of the plain predicted peak
(report argv[3]), without and with --workspaces=lean, and prints per
budget whether the lean plan's predicted seconds are at most the full
one's (docs/passes/remat.md#strategies, Families)."""
import json
import os
import subprocess
import sys
import tempfile

compiler, model, plain = sys.argv[1:4]
peak = json.load(open(plain))["predicted_peak_bytes"]
with tempfile.TemporaryDirectory() as work:
    for fraction in sys.argv[4:]:
        budget = int(peak * float(fraction))
        seconds = []
        for extra in ([], ["--workspaces=lean"]):
            report = os.path.join(work, "r.json")
            subprocess.run([compiler, model, "--plan-only", "--target=cuda",
                            "--device=a100-40g", "--remat=auto",
                            "--budget=%d" % budget, "--report=" + report] +
                           extra, check=True, stdout=subprocess.DEVNULL)
            r = json.load(open(report))
            assert r["predicted_peak_bytes"] <= budget, (fraction, extra)
            seconds.append(r["predicted_seconds"]["total"])
        print("budget %s: lean <= full: %s (%.6g, %.6g)" %
              (fraction, seconds[1] <= seconds[0], seconds[1], seconds[0]))
