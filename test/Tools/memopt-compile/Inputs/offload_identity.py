"""Trains one model with nothing traded for memory and under budgets that
force --offload=auto (alone, and jointly with --remat=auto) on the CPU, and
checks that the trained ONNX files are byte for byte identical, that each
run's measured peak is the compile report's predicted peak at or below its
budget, and that each offloaded plan copies bytes to the host pool.

usage: offload_identity.py MEMOPT_COMPILE MODEL.onnx DATA_DIR WORK_DIR
       OPTIMIZER STEPS PLAN...

A PLAN is offload@F (--offload=auto) or joint@F (--remat=auto
--offload=auto), with a --budget of the persistent bytes plus F times the
plain plan's arena.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from remat_identity import train  # noqa: E402


def main(compiler, model, data, work, optimizer, steps, *plans):
    args = (compiler, model, data, work, optimizer, steps)
    none, weights = train(*args, "none", [])
    line = ["peak none %d" % none["predicted_peak_bytes"]]
    for plan in plans:
        kind, fraction = plan.split("@")
        arena = none["arena_bytes"]
        budget = (none["predicted_peak_bytes"] - arena
                  + int(float(fraction) * arena))
        flags = ["--offload=auto", "--budget=%d" % budget]
        if kind == "joint":
            flags.append("--remat=auto")
        compiled, trained = train(*args, plan, flags)
        if trained != weights:
            sys.exit("%s: the weights trained with %s differ from the "
                     "plain plan's" % (optimizer, " ".join(flags)))
        if not (compiled["transfer_bytes"]["offload"] > 0
                and compiled["host_bytes"] > 0
                and compiled["predicted_peak_bytes"] <= budget):
            sys.exit("%s: %s offloads nothing or misses its budget"
                     % (optimizer, " ".join(flags)))
        line.append("%s %d (host %d)" % (plan, compiled["predicted_peak_bytes"],
                                         compiled["host_bytes"]))
    print("%s: identical; %s" % (optimizer, ", ".join(line)))


if __name__ == "__main__":
    main(*sys.argv[1:])
