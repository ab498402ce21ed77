"""Checks a compile report against the memory timeline SVG of the same run.

Usage: check_timeline.py REPORT.json TIMELINE.svg

The SVG must be well-formed XML whose data-* numbers are the report's: the
temporaries at the peak are activation_peak_bytes, the peak is them plus
the persistent buffers, and the visible peak label says the same bytes.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

report = json.load(open(sys.argv[1]))
root = ET.parse(sys.argv[2]).getroot()
assert root.tag == "{http://www.w3.org/2000/svg}svg", root.tag

activation = int(root.get("data-activation-peak-bytes"))
peak = int(root.get("data-peak-bytes"))
persistent = report["persistent_bytes"]
assert activation == report["activation_peak_bytes"], (
    activation, report["activation_peak_bytes"])
assert peak == activation + persistent["weights"] + \
    persistent["optimizer_state"] + persistent["inputs_outputs"], peak
assert int(root.get("data-peak-op")) == report["peak_op"]["index"]
# The static plan allocates at least the liveness peak.
assert report["predicted_peak_bytes"] >= peak
assert report["arena_bytes"] >= activation

texts = ["".join(t.itertext()) for t in root.iter("{http://www.w3.org/2000/svg}text")]
label = next(t for t in texts if t.startswith("peak "))
assert re.search(r"\(%d bytes\)" % peak, label), label
assert any(t.startswith("op %d: %s" % (report["peak_op"]["index"],
                                        report["peak_op"]["op"]))
           for t in texts), texts

# What holds the peak: buffers live there, summing to the temporaries.
live = report["peak_op"]["live"]
assert live and sum(b["bytes"] for b in live) == activation, live
index = report["peak_op"]["index"]
assert all(b["first"] <= index <= b["last"] and b["bytes"] > 0 for b in live)
assert [b["bytes"] for b in live] == sorted((b["bytes"] for b in live),
                                            reverse=True)
assert not any(b["recomputed"] for b in live)  # no --remat here

# The predicted time is the compute time: nothing is traded yet.
seconds = report["predicted_seconds"]
assert seconds["total"] == seconds["compute"] == \
    report["baseline_predicted_seconds"] > 0
assert abs(seconds["forward"] + seconds["backward"] + seconds["optimizer"] -
           seconds["compute"]) < 1e-12
flops = report["flops"]
assert flops["backward"] > flops["forward"] > flops["optimizer"] > 0
print("timeline and report agree: peak %d bytes at op %d" %
      (peak, report["peak_op"]["index"]))
