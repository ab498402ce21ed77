#!/usr/bin/python3
"""Checks the compile reports of 2 and 3 stages against one device's."""
import json
import sys

one, *partitioned = (json.load(open(path)) for path in sys.argv[1:])
for report in partitioned:
    stages = report["stages"]
    peaks = [stage["predicted_peak_bytes"] for stage in stages]
    print(f"stages {len(stages)}: "
          f"worst = top-level: {max(peaks) == report['predicted_peak_bytes']}, "
          f"each below one device: {max(peaks) < one['predicted_peak_bytes']}, "
          f"sends: {report['transfer_bytes']['send'] == sum(s['send_bytes'] for s in stages) > 0}")
