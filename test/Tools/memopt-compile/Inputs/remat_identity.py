"""Trains one model with --remat=none and with --remat=sqrt on the CPU and
checks that the trained ONNX files are byte for byte identical and that
each run's measured peak is the compile report's predicted peak.

usage: remat_identity.py MEMOPT_COMPILE MODEL.onnx DATA_DIR WORK_DIR OPTIMIZER
       STEPS
"""
import json
import subprocess
import sys


def main(compiler, model, data, work, optimizer, steps):
    peaks, trained = {}, {}
    for remat in ("none", "sqrt"):
        binary = "%s/%s-%s" % (work, optimizer, remat)
        subprocess.run([compiler, model, "-o", binary, "--batch=2",
                        "--optimizer=" + optimizer, "--momentum=0.9"
                        if optimizer == "sgd" else "--lr=1e-3",
                        "--remat=" + remat, "--report=%s.compile.json" % binary],
                       check=True)
        subprocess.run([binary, "--data", data, "--steps", steps, "--out",
                        binary + ".onnx", "--report", binary + ".run.json"],
                       check=True, stdout=subprocess.DEVNULL)
        compiled = json.load(open(binary + ".compile.json"))
        run = json.load(open(binary + ".run.json"))
        if compiled["predicted_peak_bytes"] != run["measured_peak_bytes"]:
            sys.exit("%s: predicted peak %d != measured %d" % (
                binary, compiled["predicted_peak_bytes"],
                run["measured_peak_bytes"]))
        peaks[remat] = compiled["predicted_peak_bytes"]
        trained[remat] = open(binary + ".onnx", "rb").read()
    if trained["none"] != trained["sqrt"]:
        sys.exit("%s: the weights trained with --remat=sqrt differ from "
                 "--remat=none's" % optimizer)
    print("%s: identical; peak none %d, sqrt %d" % (
        optimizer, peaks["none"], peaks["sqrt"]))


if __name__ == "__main__":
    main(*sys.argv[1:])
