#!/usr/bin/env bash
# The GPU checks of the CUDA backend (the lit tests test/E2E/cuda-*.test,
# the 3-D U-Nets' among them, and short training runs of the binaries of
# unet-cuda.test and unet3d-cuda.test) and the GPU step
# benchmark (bench/gpu_step.py), in one of three modes:
#
#   bash scripts/gpu-check.sh [bench/gpu_step.py options]
#       All in one, on a GPU machine that can also build memopt (LLVM/MLIR,
#       oneDNN, ...): builds it, runs every lit test that needs CUDA (lit
#       features cuda, cuda-gpu, torch-cuda) and the benchmark.
#
#   bash scripts/gpu-check.sh prepare DIR [--checks REGEX] [--no-bench]
#                                         [--mpi] ["gpu_step options" ...]
#       On the build machine (no GPU needed): builds memopt and compiles
#       the GPU checks (those whose test name matches REGEX, default all),
#       two smoke binaries (a 2-D and a 3-D U-Net) and one benchmark per
#       quoted option string (default: one with gpu_step.py's defaults;
#       none with --no-bench) into DIR,
#       with the Python scripts, this script and the shared libraries the
#       binaries load (all but the C library's and CUDA's); each binary's
#       initial weights are in the BIN.weights.onnx memopt-compile writes
#       beside it, and the binaries are code only (a few MB). DIR alone
#       then goes to the GPU machine. --mpi adds two CUDA pipeline stages on one
#       GPU (scripts/gpu-check-mpi.sh) and Open MPI's runtime.
#
#   bash DIR/gpu-check.sh run DIR
#       On the GPU machine, which needs no memopt build, LLVM, oneDNN or
#       ONNX library: only an NVIDIA driver, PYTHON with a CUDA build of
#       torch, onnx and numpy, and cuDNN 9, cuBLAS 13 and the CUDA 13
#       runtime (from PYTHON's nvidia-* packages or CUDA_HOME). Runs what
#       prepare left in DIR; logs in DIR/results. Exit status 1 if a check
#       failed.
#
#   BUILD_DIR  build directory (default: build-gpu for all in one, build
#              for prepare)
#   PYTHON     interpreter with torch and onnx (default: /usr/bin/python3;
#              for run, one whose torch sees the GPU)
#   LIT        lit (default: /usr/lib/llvm-22/bin/lit)
#   CUDA_HOME  CUDA toolkit searched for libraries in run (default
#              /usr/local/cuda)
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-/usr/bin/python3}
LIT=${LIT:-/usr/lib/llvm-22/bin/lit}

die() {
  echo "gpu-check: $*" >&2
  exit 2
}

# The libraries a GPU machine has its own of: the C library's and CUDA's
# (its driver, toolkit or torch's nvidia packages, matched to the driver).
SYSTEM_LIBRARIES='/(libc|libm|libdl|libpthread|librt|libgcc_s|libstdc\+\+|ld-linux[^/]*|libcuda|libcudart|libcublas|libcublasLt|libcudnn[a-z_]*|libnvrtc[a-z-]*|libnvJitLink|libnccl)\.so'

# shellcheck source=scripts/gpu-check-mpi.sh
source "$(dirname "${BASH_SOURCE[0]}")/gpu-check-mpi.sh"

require_gpu() {
  nvidia-smi -L || die "no GPU visible (nvidia-smi -L failed); the GPU" \
                       "tests and the benchmark need one"
}

# Builds memopt in $1 and checks that it has the CUDA runtime.
build() {
  BUILD_DIR="$1" bash "$ROOT/scripts/build.sh"
  grep -q 'memopt_has_cuda_runtime = "ON"' "$1/test/lit.site.cfg.py" ||
    die "$1 has no CUDA runtime (CMake found no CUDA toolkit with cuDNN)"
}

all_in_one() {
  require_gpu
  local build_dir=${BUILD_DIR:-build-gpu}
  [[ "$build_dir" = /* ]] || build_dir="$ROOT/$build_dir"
  if [[ ! -f "$build_dir/build.ninja" ]]; then
    cmake -G Ninja -S "$ROOT" -B "$build_dir" \
      -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
      -DLLVM_EXTERNAL_LIT="$LIT" \
      -DCMAKE_BUILD_TYPE=Release \
      -DMEMOPT_TORCH_PYTHON="$PYTHON"
  fi
  build "$build_dir"
  echo "== GPU tests"
  "$LIT" -sv "$build_dir/test" --filter 'cuda'
  echo "== GPU step benchmark"
  PYTHONPATH="$ROOT/python" "$PYTHON" "$ROOT/bench/gpu_step.py" \
    --memopt-compile "$build_dir/bin/memopt-compile" "$@"
}

# The checks of the E2E lit tests that run a memopt.testing module, one
# line each: NAME, a tab, the module's arguments without --memopt-compile
# and with %t as the literal @WORKDIR@.
e2e_checks() {
  local test line
  for test in "$ROOT"/test/E2E/cuda-*.test; do
    line=$(sed -n 's/^# RUN: %python \(-m memopt\.testing\..*\) | FileCheck %s$/\1/p' "$test")
    # A test that is not one memopt.testing check (a lit script of its
    # own) runs only in the all-in-one mode, where lit runs it.
    if [[ -z "$line" ]]; then
      echo "gpu-check: $(basename "$test"): not a memopt.testing check;" \
           "runs in the all-in-one mode only" >&2
      continue
    fi
    line=${line//--memopt-compile memopt-compile /}
    printf '%s\t%s\n' "$(basename "$test" .test)" "${line//%t/@WORKDIR@}"
  done
}

# Compiles smoke binary $2 (memopt.export --model $3 and options $6...,
# sample shape $4, comma-separated) with memopt-compile $5 into
# $1/$2/train, with 4 random samples of that shape in $1/$2/data.
smoke_prepare() {
  local dir=$1/$2 model=$3 shape=$4 compile=$5
  shift 5
  mkdir -p "$dir"
  "$PYTHON" -m memopt.export --model "$model" --batch 1 \
    --input-shape "$shape" "$@" -o "$dir/model.onnx" > /dev/null
  "$compile" "$dir/model.onnx" -o "$dir/train" --target=cuda \
    --batch=2 --optimizer=adam --lr=1e-3 --report="$dir/compile.json"
  "$PYTHON" -c "import numpy as np, os, sys
r = np.random.default_rng(0)
shape = tuple(int(v) for v in sys.argv[2].split(','))
for d in ('inputs', 'targets'):
    os.makedirs(os.path.join(sys.argv[1], d))
    for i in range(4):
        np.save(os.path.join(sys.argv[1], d, 's%d.npy' % i),
                r.random(shape, dtype=np.float32))" "$dir/data" "$shape"
}

# Trains smoke binary $2 of $1 for 3 steps (check NAME) and checks that
# its measured peak is the predicted one (check NAME-peak).
smoke_run() {
  local dir=$1 name=$2
  run_check "$name" "$dir" "$dir/$name/train" --data "$dir/$name/data" \
    --steps 3 --no-shuffle --log-every 1 --out "$dir/$name/trained.onnx" \
    --report "$dir/$name/run.json"
  run_check "$name-peak" "$dir" "$PYTHON" -c "import json, sys
c = json.load(open(sys.argv[1])); r = json.load(open(sys.argv[2]))
print('predicted', c['predicted_peak_bytes'], 'measured',
      r['measured_peak_bytes'], 'driver', r['driver_peak_bytes'],
      'loss', r['loss'])
sys.exit(c['predicted_peak_bytes'] != r['measured_peak_bytes'])" \
    "$dir/$name/compile.json" "$dir/$name/run.json"
}

# ldd of every binary under $1 (whatever ldd's exit status: it may report
# a missing library by one).
binary_libraries() {
  find "$1" -name train -type f -print0 | xargs -0 ldd || true
}

prepare() {
  local dir=$1
  shift
  local only="" bench=1 mpi=0
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --mpi)
        mpi=1
        shift
        ;;
      --checks)
        [[ $# -ge 2 ]] || die "--checks needs a regular expression"
        only=$2
        shift 2
        ;;
      --no-bench)
        bench=0
        shift
        ;;
      *) break ;;
    esac
  done
  [[ $bench -eq 1 || $# -eq 0 ]] ||
    die "--no-bench and benchmark options contradict each other"
  local build_dir=${BUILD_DIR:-build}
  [[ "$build_dir" = /* ]] || build_dir="$ROOT/$build_dir"
  build "$build_dir"
  local compile="$build_dir/bin/memopt-compile"
  mkdir -p "$dir"
  dir=$(cd "$dir" && pwd)
  rm -rf "${dir:?}"/{checks,smoke,smoke3d,bench,lib,python,bench-scripts,runlib,results,mpi}
  mkdir -p "$dir"/{checks,bench,lib}
  export PYTHONPATH="$ROOT/python"

  echo "== E2E checks"
  e2e_checks | awk -F '\t' -v re="$only" '$1 ~ re' > "$dir/checks.list"
  local name args
  while IFS=$'\t' read -r name args; do
    echo "-- $name"
    # shellcheck disable=SC2086  # args is a list of plain words
    "$PYTHON" ${args//@WORKDIR@/$dir/checks/$name} --phase prepare \
      --memopt-compile "$compile" < /dev/null
  done < "$dir/checks.list"

  echo "== smoke binaries (unet-cuda.test's U-Net, unet3d-cuda.test's 3-D U-Net)"
  smoke_prepare "$dir" smoke unet 1,32,32 "$compile" --base 4
  smoke_prepare "$dir" smoke3d unet3d 1,16,16,16 "$compile"

  [[ $mpi -eq 0 ]] || mpi_prepare "$dir" "$compile"

  echo "== benchmarks"
  [[ $# -gt 0 || $bench -eq 0 ]] || set -- ""
  local i=0 options
  : > "$dir/bench.list"
  for options in "$@"; do
    # shellcheck disable=SC2086  # options is a list of plain words
    "$PYTHON" "$ROOT/bench/gpu_step.py" $options --phase prepare \
      --memopt-compile "$compile" --workdir "$dir/bench/$i" < /dev/null
    printf '%s\n' "$options" >> "$dir/bench.list"
    i=$((i + 1))
  done

  # What the run needs besides DIR's binaries: the scripts, and the shared
  # libraries of the binaries except the C library's (the GPU machine has
  # its own) and CUDA's (its driver, toolkit or torch's nvidia packages
  # provide them, matched to the driver).
  mkdir -p "$dir/python" "$dir/bench-scripts"
  cp -r "$ROOT/python/memopt" "$dir/python/"
  find "$dir/python" -name __pycache__ -prune -exec rm -rf {} +
  cp "$ROOT"/bench/*.py "$dir/bench-scripts/"
  cp "$ROOT/scripts/gpu-check.sh" "$ROOT/scripts/gpu-check-mpi.sh" "$dir/"
  binary_libraries "$dir" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' |
    sort -u | grep -Ev "$SYSTEM_LIBRARIES" | xargs -r cp -L -t "$dir/lib"
  echo "gpu-check: prepared $dir ($(du -sh "$dir" | cut -f1)); on the GPU" \
       "machine: PYTHON=... bash $dir/gpu-check.sh run $dir"
}

# Sets LD_LIBRARY_PATH for DIR's binaries: CUDA's libraries from PYTHON's
# nvidia-* packages and CUDA_HOME, then those of DIR/lib that the machine
# lacks (linked into DIR/runlib; not all of DIR/lib, so that PYTHON's own
# libraries are not displaced).
library_path() {
  local dir=$1 site
  site=$("$PYTHON" -c 'import site; print(" ".join(site.getsitepackages()))')
  local paths=()
  for lib in $site; do
    for d in "$lib"/nvidia/*/lib; do
      [[ -d "$d" ]] && paths+=("$d")
    done
  done
  local cuda=${CUDA_HOME:-/usr/local/cuda}
  for d in "$cuda/lib64" "$cuda/lib"; do
    [[ -d "$d" ]] && paths+=("$d")
  done
  rm -rf "$dir/runlib"
  mkdir -p "$dir/runlib"
  paths=("$dir/runlib" "${paths[@]}")
  export LD_LIBRARY_PATH
  LD_LIBRARY_PATH=$(IFS=:; echo "${paths[*]}")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
  # Each round may uncover what the libraries linked in the last one need.
  local missing name
  for _ in 1 2 3 4 5 6; do
    missing=$(binary_libraries "$dir" |
              awk '$2 == "=>" && $3 == "not" {print $1}' | sort -u)
    [[ -n "$missing" ]] || return 0
    for name in $missing; do
      [[ -e "$dir/lib/$name" ]] ||
        die "the binaries need $name, which neither this machine nor" \
            "$dir/lib has (CUDA's libraries: install PYTHON's nvidia-*" \
            "packages or set CUDA_HOME)"
      ln -sf "$dir/lib/$name" "$dir/runlib/$name"
    done
  done
  die "could not resolve the libraries of the binaries in $dir"
}

# Runs one check, "$1" naming it; its output goes to results/NAME.log.
# Appends PASS/FAIL NAME to results/summary.txt.
run_check() {
  local name=$1 dir=$2
  shift 2
  echo "-- $name"
  local status=PASS
  "$@" < /dev/null > "$dir/results/$name.log" 2>&1 || status=FAIL
  cat "$dir/results/$name.log"
  echo "$status $name" | tee -a "$dir/results/summary.txt"
}

run() {
  local dir=$1
  [[ -f "$dir/checks.list" && -f "$dir/bench.list" ]] ||
    die "$dir was not made by 'gpu-check.sh prepare $dir'"
  dir=$(cd "$dir" && pwd)
  require_gpu
  "$PYTHON" -c 'import sys, torch; sys.exit(not torch.cuda.is_available())' ||
    die "$PYTHON's torch sees no GPU; set PYTHON to an interpreter with a" \
        "CUDA build of torch"
  library_path "$dir"
  rm -rf "$dir/results"
  mkdir -p "$dir/results"
  export PYTHONPATH="$dir/python"
  {
    nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
    "$PYTHON" -c 'import torch; print("torch", torch.__version__, "CUDA",
      torch.version.cuda, "cuDNN", torch.backends.cudnn.version())'
    echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
    ls "$dir/runlib"
  } 2>&1 | tee "$dir/results/machine.txt"

  echo "== smoke: 3 steps of the U-Net of unet-cuda.test"
  smoke_run "$dir" smoke
  echo "== smoke: 3 steps of the 3-D U-Net of unet3d-cuda.test"
  smoke_run "$dir" smoke3d

  echo "== E2E checks"
  local name args
  while IFS=$'\t' read -r name args; do
    # shellcheck disable=SC2086  # args is a list of plain words
    run_check "$name" "$dir" "$PYTHON" ${args//@WORKDIR@/$dir/checks/$name} \
      --phase run
  done < "$dir/checks.list"

  echo "== benchmarks"
  local i=0 options
  while IFS= read -r options; do
    # shellcheck disable=SC2086  # options is a list of plain words
    run_check "bench-$i" "$dir" "$PYTHON" "$dir/bench-scripts/gpu_step.py" \
      $options --phase run --workdir "$dir/bench/$i"
    i=$((i + 1))
  done < "$dir/bench.list"

  mpi_run "$dir"

  echo "== summary"
  cat "$dir/results/summary.txt"
  ! grep -q '^FAIL' "$dir/results/summary.txt"
}

case "${1:-}" in
  prepare)
    [[ $# -ge 2 ]] || die "usage: gpu-check.sh prepare DIR [--checks" \
                          "REGEX] [--no-bench] [--mpi] [\"gpu_step" \
                          "options\" ...]"
    shift
    prepare "$@"
    ;;
  run)
    [[ $# -eq 2 ]] || die "usage: gpu-check.sh run DIR (a directory made" \
                          "by gpu-check.sh prepare)"
    run "$2"
    ;;
  *)
    all_in_one "$@"
    ;;
esac
