#!/usr/bin/env bash
# The example job: installs dependencies, builds memopt, exports a U-Net to
# ONNX, imports it into the tg dialect, re-verifies the result and prints a
# summary of the IR.
#   scripts/run-example.sh [MODEL] [C,H,W] [BATCH]
#     MODEL  resnet34-unet (default), unet, unet-bilinear, unet-nobn,
#            unet-bilinear-nobn
#     C,H,W  input shape, default 1,512,512;  BATCH default 1
#   BUILD_DIR   build directory (default: build)
# Writes out/MODEL.onnx and out/MODEL.mlir.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
MODEL=${1:-resnet34-unet}
SHAPE=${2:-1,512,512}
BATCH=${3:-1}
BUILD_DIR=${BUILD_DIR:-build}
export BUILD_DIR
[[ "$BUILD_DIR" = /* ]] || BUILD_DIR="$ROOT/$BUILD_DIR"
BIN="$BUILD_DIR/bin"
PYTHON=/usr/bin/python3
export PYTHONPATH="$ROOT/python${PYTHONPATH:+:$PYTHONPATH}"

bash scripts/install-deps.sh
bash scripts/build.sh

mkdir -p out
ONNX="out/$MODEL.onnx"
MLIR="out/$MODEL.mlir"

echo "== export $MODEL, batch $BATCH, input $SHAPE"
"$PYTHON" -m memopt.export --model "$MODEL" --batch "$BATCH" \
  --input-shape "$SHAPE" -o "$ONNX"

echo "== import $ONNX"
start=$(date +%s.%N)
"$BIN/memopt-translate" --import-onnx "$ONNX" -o "$MLIR"
end=$(date +%s.%N)

echo "== verify $MLIR"
"$BIN/memopt-opt" "$MLIR" -o /dev/null

echo "== summary"
"$PYTHON" -m memopt.summarize "$MLIR" \
  --import-seconds "$(awk -v s="$start" -v e="$end" 'BEGIN { print e - s }')"
