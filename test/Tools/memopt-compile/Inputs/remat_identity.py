"""Trains one model with --remat=none and with each other strategy on the
CPU and checks that the trained ONNX files are byte for byte identical and
that each run's measured peak is the compile report's predicted peak.

usage: remat_identity.py MEMOPT_COMPILE MODEL.onnx DATA_DIR WORK_DIR OPTIMIZER
       STEPS [STRATEGY...]

A STRATEGY is sqrt (the default), auto@F: --remat=auto with a --budget of
the persistent bytes plus F times --remat=none's arena, or auto@min: the
smallest budget --remat=auto reaches (the one its error names for a budget
of one byte); optimal@F and optimal@min the same with --remat=optimal.
fit@SIZE is --fit=cpu,memory=SIZE: the plan auto-fit chooses for a cpu
of that memory (its choice follows the peak: "fit@3MiB remat=auto").
A plan that recomputes values more than once says how many: "(nested N)".
"""
import collections
import json
import re
import subprocess
import sys


def optimizer_flags(optimizer):
    """The batch and optimizer flags of every compile of `optimizer`."""
    return ["--batch=2", "--optimizer=" + optimizer,
            "--momentum=0.9" if optimizer == "sgd" else "--lr=1e-3"]


def train(compiler, model, data, work, optimizer, steps, name, flags):
    """The predicted peak and the trained ONNX bytes of one strategy."""
    binary = "%s/%s-%s" % (work, optimizer, name)
    subprocess.run([compiler, model, "-o", binary,
                    "--report=%s.compile.json" % binary]
                   + optimizer_flags(optimizer) + flags, check=True)
    subprocess.run([binary, "--data", data, "--steps", steps, "--out",
                    binary + ".onnx", "--report", binary + ".run.json"],
                   check=True, stdout=subprocess.DEVNULL)
    compiled = json.load(open(binary + ".compile.json"))
    run = json.load(open(binary + ".run.json"))
    if compiled["predicted_peak_bytes"] != run["measured_peak_bytes"]:
        sys.exit("%s: predicted peak %d != measured %d" % (
            binary, compiled["predicted_peak_bytes"],
            run["measured_peak_bytes"]))
    return compiled, open(binary + ".onnx", "rb").read()


def main(compiler, model, data, work, optimizer, steps, *strategies):
    args = (compiler, model, data, work, optimizer, steps)
    none, weights = train(*args, "none", ["--remat=none"])
    line = ["peak none %d" % none["predicted_peak_bytes"]]
    for strategy in strategies or ("sqrt",):
        flags = ["--remat=" + strategy]
        name, _, share = strategy.partition("@")
        if name == "fit":
            compiled, trained = train(*args, strategy,
                                      ["--fit=cpu,memory=" + share])
            if trained != weights:
                sys.exit("%s: the weights trained with --fit=cpu,memory=%s "
                         "differ from --remat=none's" % (optimizer, share))
            chosen = compiled["strategy"]
            line.append("%s %d remat=%s offload=%s" % (
                strategy, compiled["predicted_peak_bytes"], chosen["remat"],
                chosen["offload"]))
            continue
        if share == "min":
            refused = subprocess.run(
                [compiler, model, "--plan-only", "--remat=" + name,
                 "--budget=1"] + optimizer_flags(optimizer),
                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            budget = int(re.search(r"--budget=(\d+)\)",
                                   refused.stderr).group(1))
            flags = ["--remat=" + name, "--budget=%d" % budget]
        elif share:
            arena = none["arena_bytes"]
            budget = (none["predicted_peak_bytes"] - arena
                      + int(float(share) * arena))
            flags = ["--remat=" + name, "--budget=%d" % budget]
        compiled, trained = train(*args, strategy, flags)
        if trained != weights:
            sys.exit("%s: the weights trained with %s differ from "
                     "--remat=none's" % (optimizer, " ".join(flags)))
        # One decision per clone; a plan may recompute copies alone (a
        # concat and its resize: no FLOPs), so count clones, not FLOPs.
        clones = collections.Counter(
            d["value"] for d in compiled["decisions"]
            if d["decision"] == "recompute")
        if share and not (
                clones and compiled["predicted_peak_bytes"] <= budget):
            sys.exit("%s: %s recomputes nothing or misses its budget"
                     % (optimizer, " ".join(flags)))
        # Values recomputed more than once (nested).
        nested = sum(1 for count in clones.values() if count > 1)
        line.append("%s %d%s" % (strategy, compiled["predicted_peak_bytes"],
                                 " (nested %d)" % nested if nested else ""))
    print("%s: identical; %s" % (optimizer, ", ".join(line)))


if __name__ == "__main__":
    main(*sys.argv[1:])
