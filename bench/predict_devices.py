#!/usr/bin/python3
"""Predicted training-step time and memory of a model on each device profile.

Exports the model once, then runs memopt-compile -c (import, autodiff, cost
model, arena plan, C++ of the step) once per --device and reads its compile
report: predicted seconds per step (total and by phase), FLOPs, the
predicted peak against the device's memory, and the compile time. Prints a
Markdown table.

    PYTHONPATH=python /usr/bin/python3 bench/predict_devices.py \\
        --memopt-compile build/bin/memopt-compile [--model resnet34-unet] \\
        [--size 512] [--batch 1] [--devices cpu,rtx2060,a100-40g,h100]
"""
import argparse
import json
import os
import subprocess
import tempfile

from memopt.export import export_model


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--memopt-compile", required=True)
    parser.add_argument("--model", default="resnet34-unet")
    parser.add_argument("--size", type=int, default=512)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--devices", default="cpu,rtx2060,a100-40g,h100")
    parser.add_argument("--optimizer", default="sgd")
    parser.add_argument("--workdir", help="keep the model, reports and "
                        "timelines here (default: a temporary directory)")
    args = parser.parse_args()

    work = args.workdir or tempfile.mkdtemp(prefix="memopt-predict-")
    os.makedirs(work, exist_ok=True)
    onnx_path = os.path.join(work, "%s-%d.onnx" % (args.model, args.size))
    export_model(args.model, onnx_path, args.batch,
                 (1, args.size, args.size), in_channels=1)

    rows = []
    for device in args.devices.split(","):
        tag = device.split(",")[0].replace(":", "_")
        report = os.path.join(work, "report-%s.json" % tag)
        subprocess.run([args.memopt_compile, onnx_path, "-c", "-o",
                        os.path.join(work, "step-%s.o" % tag),
                        "--optimizer=" + args.optimizer,
                        "--momentum=0.9" if args.optimizer == "sgd" else
                        "--beta1=0.9",
                        "--device=" + device, "--report=" + report,
                        "--timeline=" + os.path.join(
                            work, "timeline-%s.svg" % tag)],
                       check=True)
        rows.append((device, json.load(open(report))))

    print("%s at %dx%d, batch %d, %s (files in %s)\n" %
          (args.model, args.size, args.size, args.batch, args.optimizer, work))
    print("| device | predicted s/step | forward | backward | optimizer | "
          "GFLOP/step | predicted peak | device memory | compile s |")
    print("|---|---|---|---|---|---|---|---|---|")
    for device, r in rows:
        s = r["predicted_seconds"]
        flops = sum(r["flops"].values()) / 1e9
        memory = r["strategy"]["device"]["memory_bytes"]
        peak = r["predicted_peak_bytes"]
        print("| %s | %.4f | %.4f | %.4f | %.4f | %.1f | %.0f MiB | %.0f GiB%s "
              "| %.1f |" % (device, s["total"], s["forward"], s["backward"],
                            s["optimizer"], flops, peak / 2**20,
                            memory / 2**30, "" if peak <= memory else
                            " (does not fit)", r["compile_seconds"]))


if __name__ == "__main__":
    main()
