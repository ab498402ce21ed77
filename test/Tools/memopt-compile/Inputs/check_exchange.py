#!/usr/bin/python3
"""Prints the exchange of a multi-process run (rank 0's run report) and
checks that each rank's pinned staging buffer is the largest tensor its
stage exchanges (the compile report's ranks[i].exchange_bytes) when the
exchange is mpi, and none with nccl."""
import json
import sys

compiled = json.load(open(sys.argv[1]))
run = json.load(open(sys.argv[2]))
kind = run["exchange"]
planned = [rank["exchange_bytes"] for rank in compiled["ranks"]]
staged = [rank["staging_host_bytes"] for rank in run["ranks"]]
expected = planned if kind == "mpi" else [0] * len(planned)
print(f"exchange {kind}: {run.get('exchange_note', '')}")
print(f"staging = plan: {staged == expected} {staged} {planned}")
print(f"comm_device_bytes {[rank['comm_device_bytes'] for rank in run['ranks']]}")
