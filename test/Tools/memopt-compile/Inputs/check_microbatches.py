#!/usr/bin/python3
"""Checks the compile reports of --microbatches=M: the same step compiled
with --schedule=gpipe and =1f1b (stages[i]: in_flight, schedule, the
simulated peaks of both schedules), with one microbatch, and in one
process with and without M microbatches."""
import json
import sys

gpipe, onefoneb, one_microbatch, one_process, plain = (
    json.load(open(path)) for path in sys.argv[1:6])
for name, report in (("gpipe", gpipe), ("1f1b", onefoneb)):
    stages = report["stages"]
    print(f"{name}: strategy {report['strategy']['pipeline_schedule']} x "
          f"{report['strategy']['microbatches']}, schedules "
          f"{[s['schedule'] for s in stages]}, in flight "
          f"{[s['in_flight'] for s in stages]}")
# Each report simulates both schedules on its own cuts (balanced for its
# schedule).
both = all(set(s["simulated_peak_bytes"]) == {"gpipe", "1f1b"}
           for report in (gpipe, onefoneb) for s in report["stages"])
print(f"each report gives both schedules' peaks: {both}")
print("1f1b <= gpipe on every stage: %s, below on the last: %s" % (
    all(s["simulated_peak_bytes"]["1f1b"] <= s["simulated_peak_bytes"]["gpipe"]
        for s in onefoneb["stages"]),
    onefoneb["stages"][-1]["simulated_peak_bytes"]["1f1b"]
    < onefoneb["stages"][-1]["simulated_peak_bytes"]["gpipe"]))
print("worst stage: 1f1b <= gpipe: %s" % (
    onefoneb["predicted_peak_bytes"] <= gpipe["predicted_peak_bytes"]))
print("each stage below its peak with the whole batch at once: "
      "%s" % all(a["predicted_peak_bytes"] < b["predicted_peak_bytes"]
                 for a, b in zip(onefoneb["stages"], one_microbatch["stages"])))
print("one process: microbatches %d, below the whole batch: %s" % (
    one_process["strategy"]["microbatches"],
    one_process["predicted_peak_bytes"] < plain["predicted_peak_bytes"]))
