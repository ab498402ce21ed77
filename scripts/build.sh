#!/usr/bin/env bash
# Configures (first time only) and builds memopt with Ninja.
#   scripts/build.sh [TARGET...]   (default: everything)
#   BUILD_DIR   build directory (default: build, relative to the repo root)
#   CCACHE_DIR  compiler cache (default: ~/.cache/memopt-ccache)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build}
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"

launcher=()
if command -v ccache >/dev/null 2>&1; then
  export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/memopt-ccache}
  # Paths relative to the checkout, so that clones share cache entries.
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$ROOT}
  mkdir -p "$CCACHE_DIR"
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi

if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DCMAKE_BUILD_TYPE=Release \
    "${launcher[@]}"
fi

ninja -C "$BUILD_DIR" -j "$(nproc)" "$@"
