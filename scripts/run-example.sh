#!/usr/bin/env bash
# The example job: installs dependencies, builds memopt, exports a U-Net to
# ONNX, imports it into the tg dialect and prints a summary of the IR, then
# compiles the training binary with memopt-compile and trains it for a few
# steps on a synthetic contrast-enhancement dataset.
#   scripts/run-example.sh [MODEL] [C,H,W] [BATCH] [STEPS]
#     MODEL  resnet34-unet (default), unet, unet-bilinear, unet-nobn,
#            unet-bilinear-nobn
#     C,H,W  input shape, default 1,512,512;  BATCH default 1; STEPS default 3
#   BUILD_DIR   build directory (default: build)
# Writes out/MODEL.onnx, out/MODEL.mlir, the binary out/MODEL-train, the
# trained model out/MODEL-trained.onnx and the reports out/MODEL-*.json.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
MODEL=${1:-resnet34-unet}
SHAPE=${2:-1,512,512}
BATCH=${3:-1}
STEPS=${4:-3}
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

echo "== compile the training step ($MODEL, batch $BATCH, SGD momentum 0.9)"
"$BIN/memopt-compile" "$ONNX" -o "out/$MODEL-train" --batch="$BATCH" \
  --loss=mse --optimizer=sgd --lr=0.01 --momentum=0.9 \
  --report="out/$MODEL-compile.json"
"$PYTHON" -c "import json, sys; r = json.load(open(sys.argv[1])); print('predicted peak %.1f MiB (activations %.1f MiB)' % (r['predicted_peak_bytes'] / 2**20, r['activation_peak_bytes'] / 2**20))" "out/$MODEL-compile.json"

echo "== train $STEPS steps on synthetic data"
"$PYTHON" -m memopt.make_dataset out/data --count $((2 * BATCH)) --shape "$SHAPE"
"out/$MODEL-train" --data out/data --steps "$STEPS" --log-every 1 \
  --out "out/$MODEL-trained.onnx" --report "out/$MODEL-run.json"
"$PYTHON" -c "import json, sys; r = json.load(open(sys.argv[1])); print('measured peak %.1f MiB, losses %s' % (r['measured_peak_bytes'] / 2**20, ', '.join('%.5f' % l for l in r['loss'])))" "out/$MODEL-run.json"
