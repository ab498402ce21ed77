"""Checks the JSON memory timeline (--timeline=FILE.json) against the SVG
and the compile report of the same plan.

Usage: check_timeline_json.py REPORT.json TIMELINE.json TIMELINE.svg

One entry per op of the schedule, as many as the SVG draws; the peak is
the op with the most temporaries, the report's peak_op and
activation_peak_bytes; each op's categories sum to its temporaries; the
peak's recomputed buffers (tg-remat's clones) count as activations, their
convolutions' scratchpads as workspaces.
"""
import json
import sys
import xml.etree.ElementTree as ET

report = json.load(open(sys.argv[1]))
timeline = json.load(open(sys.argv[2]))
svg = ET.parse(sys.argv[3]).getroot()

ops = timeline["ops"]
assert len(ops) == int(svg.get("data-ops")), (len(ops), svg.get("data-ops"))
assert [op["index"] for op in ops] == list(range(len(ops)))
for op in ops:
    assert op["phase"] in ("forward", "backward", "optimizer"), op
    assert op["op"].startswith("tg."), op
    assert sum(op["bytes"].values()) == op["transient_bytes"], op

peak = timeline["peak_index"]
assert peak == report["peak_op"]["index"] == int(svg.get("data-peak-op"))
activation = timeline["activation_peak_bytes"]
assert activation == report["activation_peak_bytes"]
assert ops[peak]["transient_bytes"] == activation
assert max(op["transient_bytes"] for op in ops) == activation
assert ops[peak]["op"] == report["peak_op"]["op"]
persistent = timeline["persistent_bytes"]
assert persistent["weights"] == report["persistent_bytes"]["weights"]
assert timeline["peak_bytes"] == activation + sum(persistent.values()) \
    == int(svg.get("data-peak-bytes"))
assert timeline["planned_peak_bytes"] == report["predicted_peak_bytes"]

# The report's live buffers and the timeline's categories at the peak agree,
# and recomputed values are activations there.
live = report["peak_op"]["live"]
for category, bytes in ops[peak]["bytes"].items():
    assert bytes == sum(b["bytes"] for b in live
                        if b["category"] == category), (category, bytes)
# (A recomputed convolution's scratchpad is a workspace: where oneDNN needs
# one, on CPUs without AVX-512, it can be live at the peak.)
recomputed = [b for b in live if b["recomputed"]]
assert all(b["category"] == "activations" or
           (b["category"] == "workspace" and
            b["op"] in ("tg.conv", "tg.conv_transpose"))
           for b in recomputed), recomputed
print("json timeline: %d ops, peak %d bytes at op %d, %d recomputed buffers"
      " live there" % (len(ops), timeline["peak_bytes"], peak,
                       len(recomputed)))
