#!/usr/bin/python3
"""Per-kernel time of a compiled CPU training step.

Compiles the model with memopt-compile --save-temps, wraps every runtime
kernel call of the generated step (`memopt::rt::NAME(...);` statements) in
a steady-clock timer, rebuilds the binary with the same compiler command
memopt-compile uses (its link items are read from the build tree's
CompileConfig.h), runs warmup + steps steps and prints, per kernel, the
calls and milliseconds per step and the share of the step (the timed steps
only). With --by-call it also lists the most expensive call sites.

    PYTHONPATH=python /usr/bin/python3 bench/kernel_profile.py \\
        --build-dir build [--model resnet34-unet] [--size 256] [--batch 1] \\
        [--threads 1] [--steps 5] [--warmup 2] [--by-call 20]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_step import export, write_data  # noqa: E402

# The timers, prepended to the generated step. A Scope adds its lifetime to
# the kernel's and the call site's entries once the warm-up steps are over;
# the step function's own scope counts the steps.
PRELUDE = r"""
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
namespace memopt_profile {
struct Entry { double seconds = 0; long calls = 0; };
struct Table {
  std::map<std::string, Entry> entries;
  long steps = 0, warmup = std::atol(std::getenv("MEMOPT_PROFILE_WARMUP"));
  ~Table() {
    FILE *f = std::fopen(std::getenv("MEMOPT_PROFILE_OUT"), "w");
    std::fprintf(f, "{\"steps\": %ld, \"entries\": {", steps - warmup);
    const char *sep = "";
    for (auto &[key, e] : entries) {
      std::fprintf(f, "%s\"%s\": [%.9f, %ld]", sep, key.c_str(), e.seconds,
                   e.calls);
      sep = ", ";
    }
    std::fprintf(f, "}}\n");
    std::fclose(f);
  }
};
inline Table &table() { static Table t; return t; }
struct Scope {
  const char *key;
  std::chrono::steady_clock::time_point start =
      std::chrono::steady_clock::now();
  explicit Scope(const char *key) : key(key) {}
  ~Scope() {
    Table &t = table();
    if (t.steps <= t.warmup)
      return;
    Entry &e = t.entries[key];
    e.seconds += std::chrono::duration<double>(
                     std::chrono::steady_clock::now() - start).count();
    ++e.calls;
  }
};
struct StepCounter { StepCounter() { ++table().steps; } };
} // namespace memopt_profile
"""

CALL = re.compile(r"^(\s*)memopt::rt::(\w+)\((.*)\);\s*$")
STEP = re.compile(r"^static void train_step\(.*\{\s*$")
# Calls that build views, not kernels.
NOT_KERNELS = {"bufferTensor", "arenaTensor", "arenaWorkspace",
               "bufferInt64", "trainerMain"}


def instrument(source):
    """The generated step with every kernel call timed."""
    out = [PRELUDE]
    for number, line in enumerate(source.splitlines(), 1):
        call = CALL.match(line)
        if call and call.group(2) not in NOT_KERNELS:
            indent, name, args = call.groups()
            site = "%s@%d %s" % (name, number, args.split(",")[0])
            out.append('%s{ memopt_profile::Scope k_("%s"), s_("@%s"); %s }'
                       % (indent, name, site.replace('"', ""), line.strip()))
            continue
        out.append(line)
        if STEP.match(line):
            out.append("  memopt_profile::StepCounter counter_;"
                       "  memopt_profile::Scope step_(\"step\");")
    return "\n".join(out) + "\n"


def compile_config(build_dir):
    """The compiler, include directory and link items memopt-compile uses."""
    text = open(os.path.join(build_dir, "tools", "memopt-compile",
                             "CompileConfig.h")).read()
    compiler = re.search(r'kCxxCompiler = "([^"]*)"', text).group(1)
    include = re.search(r'kRuntimeIncludeDir = "([^"]*)"', text).group(1)
    items = re.search(r"kRuntimeLinkItems\[\] = \{(.*?)nullptr", text,
                      re.S).group(1)
    return compiler, include, re.findall(r'"([^"]*)"', items)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=os.path.join(
        os.path.dirname(__file__), "..", "build"))
    parser.add_argument("--model", default="resnet34-unet")
    parser.add_argument("--base", type=int, help="classic U-Net base width")
    parser.add_argument("--size", type=int, default=256)
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--steps", type=int, default=5)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--by-call", type=int, default=0, metavar="N",
                        help="also list the N most expensive call sites")
    parser.add_argument("--workdir", help="keep the files here")
    args = parser.parse_args(argv)

    work = args.workdir or tempfile.mkdtemp(prefix="memopt-profile-")
    os.makedirs(work, exist_ok=True)
    try:
        onnx_path = export(args, work)
        temps = os.path.join(work, "temps")
        subprocess.run([os.path.join(args.build_dir, "bin", "memopt-compile"),
                        onnx_path, "-o", os.path.join(work, "train"),
                        "--batch=%d" % args.batch, "--optimizer=sgd",
                        "--lr=0.01", "--momentum=0.9",
                        "--save-temps=" + temps], check=True,
                       # the binary runs on the compiler's thread count
                       env=dict(os.environ, OMP_NUM_THREADS=str(args.threads)))
        source = os.path.join(temps, "model.cpp")
        timed = os.path.join(work, "timed.cpp")
        with open(timed, "w") as f:
            f.write(instrument(open(source).read()))
        compiler, include, items = compile_config(args.build_dir)
        binary = os.path.join(work, "train-timed")
        # Beside `train`, it reads train's weights file (train.weights.onnx).
        subprocess.run([compiler, "-O2", "-std=c++17", "-I" + include, timed,
                        "-o", binary] + items, check=True)
        data = os.path.join(work, "data")
        write_data(data, args.batch, args.size)
        result = os.path.join(work, "profile.json")
        env = dict(os.environ, OMP_NUM_THREADS=str(args.threads),
                   MEMOPT_PROFILE_WARMUP=str(args.warmup),
                   MEMOPT_PROFILE_OUT=result)
        subprocess.run([binary, "--data", data, "--steps",
                        str(args.warmup + args.steps), "--no-shuffle",
                        "--log-every", "0", "--out",
                        os.path.join(work, "trained.onnx")],
                       env=env, check=True, stdout=subprocess.DEVNULL)
        profile = json.load(open(result))
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)

    steps = profile["steps"]
    entries = profile["entries"]
    step = entries.pop("step")[0] / steps
    kernels = {k: v for k, v in entries.items() if not k.startswith("@")}
    print("%s %dx%d batch %d, %d thread(s): %.1f ms/step (mean of %d steps "
          "after %d warm-up steps)" % (args.model, args.size, args.size,
                                       args.batch, args.threads, step * 1e3,
                                       steps, args.warmup))
    print("| kernel | calls/step | ms/step | share |")
    print("|---|---|---|---|")
    rows = sorted(kernels.items(), key=lambda kv: -kv[1][0])
    for name, (seconds, calls) in rows:
        print("| %s | %d | %.1f | %.1f%% |" % (
            name, calls // steps, seconds / steps * 1e3,
            100 * seconds / steps / step))
    rest = step - sum(s for s, _ in kernels.values()) / steps
    print("| (outside kernels) | | %.1f | %.1f%% |" % (rest * 1e3,
                                                      100 * rest / step))
    if args.by_call:
        print("\n| call site | ms/step |\n|---|---|")
        sites = sorted(((k[1:], v[0]) for k, v in entries.items()
                        if k.startswith("@")), key=lambda kv: -kv[1])
        for site, seconds in sites[:args.by_call]:
            print("| %s | %.2f |" % (site, seconds / steps * 1e3))
    return 0


if __name__ == "__main__":
    sys.exit(main())
