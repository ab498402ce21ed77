"""Checks the copies in the Chrome trace of a one-step run of an offloaded
plan: each offloaded value of the compile report has two complete events
(its offload and its prefetch) on the trace's "copies" track (tid 2, named
by a thread_name record), apart from the kernels' track (tid 1), each
within the step's own event.

Usage: check_copy_trace.py TRACE.json COMPILE_REPORT.json
"""
import json
import sys

events = json.load(open(sys.argv[1]))["traceEvents"]
report = json.load(open(sys.argv[2]))
offloaded = [d for d in report["decisions"]
             if d["decision"].startswith("offload")]
assert offloaded, "the plan offloads nothing"
names = [e for e in events if e["ph"] == "M" and e["name"] == "thread_name"]
assert [(e["tid"], e["args"]["name"]) for e in names] == [(2, "copies")], names
copies = [e for e in events if e["ph"] == "X" and e["tid"] == 2]
kinds = sorted(e["cat"] for e in copies)
assert kinds == ["offload"] * len(offloaded) + ["prefetch"] * len(offloaded), \
    (len(offloaded), kinds)
steps = [e for e in events if e["ph"] == "X" and e["name"] == "step"]
assert len(steps) == 1, steps
step = steps[0]
for copy in copies:
    assert step["ts"] <= copy["ts"] and \
        copy["ts"] + copy["dur"] <= step["ts"] + step["dur"] + 1, (copy, step)
kernels = [e for e in events if e["ph"] == "X" and e["tid"] == 1
           and e["cat"] not in ("step", "data", "io")]
assert kernels, "no kernel events"
print("copies: %d offloads and %d prefetches on their own track"
      % (len(offloaded), len(offloaded)))
