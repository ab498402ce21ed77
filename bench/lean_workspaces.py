#!/usr/bin/python3
"""Lean filter gradients of the CPU runtime: workspace and time.

For the filter gradients of U-Net layers (deep layers on small images,
whose oneDNN scratchpad holds each thread's copy of the weight gradient;
top layers, whose workspace is oneDNN's blocked copies of the input and
the output gradient), compiles a small harness against the runtime that
memopt-compile links (the build tree's CompileConfig.h), and prints per
layer the default and the lean workspace (memopt/Runtime/CPU/
ConvWorkspace.h) and the best-of-N milliseconds of each, then the lean
slowdown: the ratio of the summed times, which the `cpu` device profile's
`lean` factor is set from.

    /usr/bin/python3 bench/lean_workspaces.py [--build-dir build]
        [--threads 2] [--repeats 20] [--workdir DIR]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "python")]
from kernel_profile import compile_config  # noqa: E402

# name, input N x C x H x W, output channels, kernel, stride, padding.
LAYERS = [
    ("resnet34 layer4 3x3 @64", (2, 512, 2, 2), 512, 3, 1, 1),
    ("resnet34 layer3 3x3 @64", (2, 256, 4, 4), 256, 3, 1, 1),
    ("resnet34 layer4 down @64", (2, 256, 4, 4), 512, 3, 2, 1),
    ("decoder 3x3 @64 (768->256)", (2, 768, 4, 4), 256, 3, 1, 1),
    ("resnet34 layer4 3x3 @256", (2, 512, 8, 8), 512, 3, 1, 1),
    ("decoder 3x3 @256 (32->16)", (2, 32, 128, 128), 16, 3, 1, 1),
    ("decoder 3x3 @256 (16->16)", (2, 16, 256, 256), 16, 3, 1, 1),
    ("resnet34 layer1 3x3 @256", (2, 64, 64, 64), 64, 3, 1, 1),
]

HARNESS = r"""
#include "memopt/Runtime/CPU/ConvWorkspace.h"
#include "memopt/Runtime/Kernels.h"
#include "memopt/Runtime/StepSupport.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

using namespace memopt::rt;

static double bestMs(const Dims &dy, const Dims &x, const Dims &w,
                     const Dims &s, const Dims &p, size_t bytes, int repeats,
                     const std::vector<float> &xd, const std::vector<float> &dyd,
                     std::vector<float> &dw) {
  std::vector<char> workspace(bytes + 64);
  double best = 1e30;
  for (int i = 0; i < repeats; ++i) {
    void *ws = arenaWorkspace(workspace.data(), 0, bytes);
    auto t0 = std::chrono::steady_clock::now();
    convBackwardFilter(ConstTensor(dyd.data(), dy), ConstTensor(xd.data(), x),
                       Tensor(dw.data(), w), s, p, Dims{1, 1}, 1, ws);
    auto t1 = std::chrono::steady_clock::now();
    best = std::min(best,
                    std::chrono::duration<double, std::milli>(t1 - t0).count());
  }
  return best;
}

int main(int argc, char **argv) {
  int repeats = std::atoi(argv[1]);
  for (int a = 2; a + 6 <= argc; a += 7) {
    int64_t n = std::atoll(argv[a]), c = std::atoll(argv[a + 1]),
            h = std::atoll(argv[a + 2]), wd = std::atoll(argv[a + 3]),
            o = std::atoll(argv[a + 4]), k = std::atoll(argv[a + 5]),
            st = std::atoll(argv[a + 6]);
    int64_t pad = k / 2;
    Dims x{n, c, h, wd}, w{o, c, k, k}, s{st, st}, p{pad, pad, pad, pad};
    Dims dy{n, o, (h + 2 * pad - k) / st + 1, (wd + 2 * pad - k) / st + 1};
    std::vector<float> xd(x.product(), 0.5f), dyd(dy.product(), 0.25f),
        dw(w.product());
    size_t full = convBackwardFilterWorkspaceBytes(dy, x, w, s, p, {1, 1}, 1);
    size_t lean =
        convBackwardFilterLeanWorkspaceBytes(dy, x, w, s, p, {1, 1}, 1);
    double fullMs = bestMs(dy, x, w, s, p, full, repeats, xd, dyd, dw);
    double leanMs = bestMs(dy, x, w, s, p, lean, repeats, xd, dyd, dw);
    std::printf("%zu %zu %.4f %.4f\n", full, lean, fullMs, leanMs);
  }
}
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "build"))
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--workdir", help="keep the harness here")
    args = parser.parse_args(argv)

    work = args.workdir or tempfile.mkdtemp(prefix="memopt-lean-")
    os.makedirs(work, exist_ok=True)
    try:
        source = os.path.join(work, "lean.cpp")
        with open(source, "w") as f:
            f.write(HARNESS)
        compiler, include, items = compile_config(args.build_dir)
        binary = os.path.join(work, "lean")
        subprocess.run([compiler, "-O2", "-std=c++17", "-I" + include, source,
                        "-o", binary] + items, check=True)
        layer_args = []
        for _, (n, c, h, w), out, k, stride, _pad in LAYERS:
            layer_args += [str(v) for v in (n, c, h, w, out, k, stride)]
        env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
        output = subprocess.run([binary, str(args.repeats)] + layer_args,
                                env=env, check=True, capture_output=True,
                                text=True).stdout.split("\n")
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)

    mib = 1024.0 * 1024.0
    print("Lean filter gradients, %d thread(s), best of %d calls"
          % (args.threads, args.repeats))
    print("| layer | default MiB | lean MiB | default ms | lean ms | slowdown |")
    print("|---|---|---|---|---|---|")
    total_full = total_lean = 0.0
    for (name, *_), line in zip(LAYERS, output):
        full, lean, full_ms, lean_ms = line.split()
        full, lean = int(full), int(lean)
        full_ms, lean_ms = float(full_ms), float(lean_ms)
        if lean < full:
            total_full += full_ms
            total_lean += lean_ms
        print("| %s | %.2f | %s | %.3f | %s | %s |" % (
            name, full / mib,
            "%.2f" % (lean / mib) if lean < full else "none",
            full_ms, "%.3f" % lean_ms if lean < full else "-",
            "%.2fx" % (lean_ms / full_ms) if lean < full else "-"))
    if total_full:
        print("\nlean slowdown over the layers that have a lean workspace: "
              "%.2fx (summed times)" % (total_lean / total_full))
    return 0


if __name__ == "__main__":
    sys.exit(main())
