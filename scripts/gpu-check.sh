#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: builds memopt (with the CUDA runtime),
# runs every GPU test (lit features cuda and cuda-gpu; torch-cuda when
# PYTHON's torch sees the GPU) and the GPU step benchmark, in one command:
#
#   bash scripts/gpu-check.sh [bench/gpu_step.py options]
#
#   BUILD_DIR  build directory (default: build-gpu, configured here)
#   PYTHON     interpreter with torch (CUDA build) and onnx
#              (default: /usr/bin/python3)
#   LIT        lit (default: /usr/lib/llvm-22/bin/lit)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD_DIR=${BUILD_DIR:-build-gpu}
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
PYTHON=${PYTHON:-/usr/bin/python3}
LIT=${LIT:-/usr/lib/llvm-22/bin/lit}

if ! nvidia-smi -L; then
  echo "gpu-check: no GPU visible (nvidia-smi -L failed); the GPU tests and" \
       "the benchmark need one" >&2
  exit 2
fi

if [[ ! -f "$BUILD_DIR/build.ninja" ]]; then
  cmake -G Ninja -S "$ROOT" -B "$BUILD_DIR" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT="$LIT" \
    -DCMAKE_BUILD_TYPE=Release \
    -DMEMOPT_TORCH_PYTHON="$PYTHON"
fi
BUILD_DIR="$BUILD_DIR" bash "$ROOT/scripts/build.sh"
if ! grep -q 'memopt_has_cuda_runtime = "ON"' \
    "$BUILD_DIR/test/lit.site.cfg.py"; then
  echo "gpu-check: $BUILD_DIR has no CUDA runtime (CMake found no CUDA" \
       "toolkit with cuDNN)" >&2
  exit 2
fi
ninja -C "$BUILD_DIR" MemoptUnitTests MemoptRuntimeTests >/dev/null

echo "== GPU tests"
"$LIT" -sv "$BUILD_DIR/test" --filter 'cuda'

echo "== GPU step benchmark"
PYTHONPATH="$ROOT/python" "$PYTHON" "$ROOT/bench/gpu_step.py" \
  --memopt-compile "$BUILD_DIR/bin/memopt-compile" "$@"
