#!/usr/bin/python3
"""Checks that each rank's measured peak (rank 0's run report, ranks[i]) is
the predicted peak of its stage (the compile report, stages[i])."""
import json
import sys

compiled = json.load(open(sys.argv[1]))
run = json.load(open(sys.argv[2]))
predicted = [stage["predicted_peak_bytes"] for stage in compiled["stages"]]
measured = [rank["measured_peak_bytes"] for rank in run["ranks"]]
print(f"ranks {len(measured)}: predicted = measured: {predicted == measured}"
      f" {predicted} {measured}")
