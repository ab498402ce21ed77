# The multi-process part of scripts/gpu-check.sh (sourced by it; `prepare
# DIR --mpi`): the check of test/Tools/memopt-compile/stages-cuda-gpu.test,
# two CUDA pipeline stages on one GPU over the mpi exchange, compiled here
# and run on the GPU machine with Open MPI's runtime carried in DIR (that
# machine may have no MPI, or another one than the binaries' libmpi).

# Open MPI as installed here (Debian's packages), with the libraries it
# loads but the C library's, into $1: relocatable with OPAL_PREFIX.
carry_openmpi() {
  local to=$1 pkg file lib
  rm -rf "$to"
  mkdir -p "$to/deps"
  for pkg in openmpi-bin libopenmpi3 openmpi-common libpmix2; do
    dpkg -L "$pkg" | grep -Ev '/(doc|man|lintian)/' | while read -r file; do
      if [[ -f "$file" || -L "$file" ]]; then
        mkdir -p "$to$(dirname "$file")"
        cp -a "$file" "$to$file"
      fi
    done
  done
  # (ldd fails on the files that are no ELF objects: help texts, scripts.)
  { find "$to/usr" -type f -print0 | xargs -0 ldd 2>/dev/null || true; } |
    awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
    grep -Ev "$SYSTEM_LIBRARIES" | while read -r lib; do
      [[ -n $(find "$to/usr" -name "$(basename "$lib")" -print -quit) ]] ||
        cp -L "$lib" "$to/deps/"
    done
}

mpi_prepare() {
  local dir=$1 compile=$2
  echo "== multi-process: two CUDA stages (stages-cuda-gpu.test)"
  local mpi=$dir/mpi
  rm -rf "$mpi"
  mkdir -p "$mpi/one" "$mpi/two"
  "$PYTHON" -m memopt.export --model unet --base 8 --batch 1 \
    --input-shape 1,64,64 -o "$mpi/unet.onnx" > /dev/null
  "$PYTHON" -m memopt.make_dataset "$mpi/data" --count 4 \
    --shape 1,64,64 > /dev/null
  local flags=(--target=cuda --batch=2 --optimizer=sgd --momentum=0.9
               --lr=0.01)
  "$compile" "$mpi/unet.onnx" -o "$mpi/one/train" "${flags[@]}"
  "$compile" "$mpi/unet.onnx" -o "$mpi/two/train" "${flags[@]}" \
    --stages=2 --report="$mpi/two/compile.json"
  cp "$ROOT"/test/Tools/memopt-compile/Inputs/check_{rank_peaks,exchange}.py \
    "$mpi/"
  carry_openmpi "$mpi/openmpi"
}

# Runs "$@" as check $1 of DIR $2 and passes if its output matches $3.
expect_output() {
  local name=$1 dir=$2 pattern=$3
  shift 3
  run_check "$name" "$dir" bash -c '"${@:2}" 2>&1 | tee /dev/stderr |
    grep -q -- "$1"' _ "$pattern" "$@"
}

mpi_run() {
  local dir=$1 mpi=$1/mpi
  [[ -d "$mpi" ]] || return 0
  echo "== multi-process: two CUDA stages on one GPU (stages-cuda-gpu.test)"
  local prefix=$mpi/openmpi/usr
  export OPAL_PREFIX=$prefix
  export PMIX_MCA_mca_base_component_path=$prefix/lib/x86_64-linux-gnu/pmix2/lib/pmix
  LD_LIBRARY_PATH=$prefix/lib/x86_64-linux-gnu:$prefix/lib/x86_64-linux-gnu/pmix2/lib:$LD_LIBRARY_PATH:$mpi/openmpi/deps
  local mpirun=("$prefix/bin/orterun" --allow-run-as-root --oversubscribe
                -np 2)
  local data=(--data "$mpi/data" --steps 3)
  run_check mpi-one "$dir" "$mpi/one/train" "${data[@]}" \
    --out "$mpi/one.onnx"
  run_check mpi-two "$dir" "${mpirun[@]}" "$mpi/two/train" "${data[@]}" \
    --exchange=mpi --out "$mpi/two.onnx" --report "$mpi/two/run.json"
  run_check mpi-identical "$dir" cmp "$mpi/one.onnx" "$mpi/two.onnx"
  expect_output mpi-peaks "$dir" "predicted = measured: True" \
    "$PYTHON" "$mpi/check_rank_peaks.py" "$mpi/two/compile.json" \
    "$mpi/two/run.json"
  expect_output mpi-staging "$dir" "staging = plan: True" \
    "$PYTHON" "$mpi/check_exchange.py" "$mpi/two/compile.json" \
    "$mpi/two/run.json"
  run_check mpi-default "$dir" "${mpirun[@]}" "$mpi/two/train" "${data[@]}" \
    --out "$mpi/default.onnx" --report "$mpi/two/default.json"
  expect_output mpi-fallback "$dir" "mpi instead of nccl: ranks share a GPU" \
    "$PYTHON" "$mpi/check_exchange.py" "$mpi/two/compile.json" \
    "$mpi/two/default.json"
  expect_output mpi-nccl-refused "$dir" "exchange=nccl: ranks share a GPU" \
    timeout 120 "${mpirun[@]}" "$mpi/two/train" "${data[@]}" \
    --exchange=nccl --out "$mpi/nccl.onnx"
}
