#!/usr/bin/python3
"""Checks that each rank's measured peak (rank 0's run report, ranks[i]) is
its predicted peak (the compile report, ranks[i]: its stage's)."""
import json
import sys

compiled = json.load(open(sys.argv[1]))
run = json.load(open(sys.argv[2]))
predicted = [rank["predicted_peak_bytes"] for rank in compiled["ranks"]]
measured = [rank["measured_peak_bytes"] for rank in run["ranks"]]
print(f"ranks {len(measured)}: predicted = measured: {predicted == measured}"
      f" {predicted} {measured}")
