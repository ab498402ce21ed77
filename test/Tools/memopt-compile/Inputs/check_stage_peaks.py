#!/usr/bin/python3
"""Checks that the stage figures of a compile report of --stages and
--microbatches agree: each stage's predicted peak is within the budget, and
a stage's simulated peak of its own schedule (given only where no memory
pass traded on it) is at most its predicted peak.

check_stage_peaks.py REPORT.json"""
import json
import sys

report = json.load(open(sys.argv[1]))
budget = report["budget_bytes"]
for stage in report["stages"]:
    predicted = stage["predicted_peak_bytes"]
    simulated = stage.get("simulated_peak_bytes")
    own = simulated[stage["schedule"]] if simulated else None
    print("stage %d: within budget: %s, simulated peaks: %s, own schedule's "
          "at most predicted: %s" % (
              stage["index"], budget is None or predicted <= budget,
              "given" if simulated else "left out",
              own is None or own <= predicted))
