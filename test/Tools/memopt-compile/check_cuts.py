"""Usage: check_cuts.py CUTS.mlir NESTED.mlir

Asserts that tg-remat's plan with a cut (first file) fits its arena target
with fewer predicted seconds than the plan without cuts (second), which
nests instead (remat-auto-cuts.test). Seconds are what auto minimizes; its
added FLOPs need not be fewer (a cheap op recomputed more often costs
memory traffic, not FLOPs).
"""
import re
import sys


def decision(path):
    text = open(path).read()
    fields = re.search(r"memopt\.remat = #memopt\.remat<(.*?)simulated_peak_bytes", text)
    assert fields, path
    return {key: float(value) for key, value in
            re.findall(r"(\w+) = ([-0-9.Ee+]+)(?: : \w+)?", fields.group(1))}


cut, nested = decision(sys.argv[1]), decision(sys.argv[2])
assert cut["cuts"] == 1 and "cuts" not in nested, (cut, nested)
assert cut["planned_arena_bytes"] <= cut["budget_bytes"] - cut["persistent_bytes"]
assert cut["seconds_added"] < nested["seconds_added"], (cut, nested)
