#!/usr/bin/env bash
# The main job: installs dependencies, builds memopt, then runs the
# radiograph example (examples/radiograph-unet/train.py): synthetic
# radiographs and their contrast-enhanced targets, the ResNet-34 U-Net
# compiled under a memory budget, trained on the CPU with a progress line
# per step, before/after pictures and the memory timeline.
#   scripts/run-example.sh [EXAMPLE OPTIONS]
#     e.g. --size 512 --budget 2GiB --remat sqrt --steps 100
#     (examples/radiograph-unet/train.py --help lists them)
#   BUILD_DIR   build directory (default: build)
# Writes everything under out/radiograph-unet/ and prints where.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-build}
export BUILD_DIR
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"

bash scripts/install-deps.sh
# Only what the example runs: memopt-compile and the runtime libraries a
# training binary links (the tests' targets are left to scripts/test.sh).
bash scripts/build.sh memopt-compile

exec /usr/bin/python3 examples/radiograph-unet/train.py --build "$BUILD_DIR" "$@"
