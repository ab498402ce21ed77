#!/usr/bin/python3
"""Compares the compile reports of a data-parallel build without and with
--zero=1: prints each rank's optimizer-state bytes (persistent_bytes) in
both, what each rank's predicted peak saves, and whether the state is
split over the replicas (up to the padding of the last parts, 4 bytes per
element short) and every rank's peak is smaller. The peak saves less than
the state's share: the parts that an update reads and writes are arena
temporaries (docs/passes/data-parallel.md).

usage: zero_saving.py PLAIN.json ZERO.json
"""
import json
import sys

plain = json.load(open(sys.argv[1]))
zero = json.load(open(sys.argv[2]))
state = plain["persistent_bytes"]["optimizer_state"]
state_zero = zero["persistent_bytes"]["optimizer_state"]
replicas = zero["data_parallel"]["replicas"]
saved = [p["predicted_peak_bytes"] - z["predicted_peak_bytes"]
         for p, z in zip(plain["ranks"], zero["ranks"])]
split = 0 <= state_zero * replicas - state <= 4 * replicas * 1000
ok = zero["data_parallel"]["zero"] == 1 and split and min(saved) > 0
print("optimizer state per rank %d -> %d; every rank's peak smaller: %s; "
      "saved %s" % (state, state_zero, ok, saved))
