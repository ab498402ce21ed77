"""Checks the memory timeline SVG of an offloaded plan against its report.

Usage: check_offload_timeline.py REPORT.json TIMELINE.svg

The device bands count what the report counts (the temporaries at the peak
are activation_peak_bytes, in-flight and prefetched copies included); the
host copies are apart: at most the pinned host arena (host_bytes, which
adds alignment) and at most what was offloaded, and the band of in-flight
copies is drawn. The host line never drops below zero or leaves the plot.
"""
import json
import re
import sys
import xml.etree.ElementTree as ET

SVG = "{http://www.w3.org/2000/svg}"
report = json.load(open(sys.argv[1]))
root = ET.parse(sys.argv[2]).getroot()

assert int(root.get("data-activation-peak-bytes")) == \
    report["activation_peak_bytes"]
assert int(root.get("data-peak-op")) == report["peak_op"]["index"]
assert report["predicted_peak_bytes"] >= int(root.get("data-peak-bytes"))
host = int(root.get("data-host-peak-bytes"))
offloaded = report["transfer_bytes"]["offload"]
assert 0 < host <= report["host_bytes"], (host, report["host_bytes"])
assert host <= offloaded, (host, offloaded)

paths = {p.get("data-category"): p for p in root.iter(SVG + "path")}
assert "offloading (in flight)" in paths, sorted(paths)
line = paths["offloaded (host)"]
assert line.get("class") == "host" and line.get("fill") == "none"
ys = [float(b if c == "M" else a)
      for c, a, b in re.findall(r"([MHV])([0-9.]+)(?: ([0-9.]+))?",
                                line.get("d")) if c != "H"]
assert len(ys) > 2, line.get("d")
height = float(root.get("height"))
assert all(0 <= y <= height for y in ys), ys
print("offloaded timeline and report agree: host peak %d bytes of %d "
      "offloaded" % (host, offloaded))
