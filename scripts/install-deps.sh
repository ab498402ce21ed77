#!/usr/bin/env bash
# Installs memopt's build and test dependencies from Debian packages.
# Fast no-op when every package is already installed.
set -euo pipefail

PACKAGES=(
  llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools
  libonnx-dev libprotobuf-dev protobuf-compiler
  python3-onnx python3-torch python3-torchvision
  # The synthetic radiographs: scikit-image (CLAHE, unsharp masking; it
  # brings SciPy) and Pillow (16-bit PNG).
  python3-skimage python3-pil
  # The Python API's tests: pytest, in a virtual environment that
  # `pip install ./python` installs memopt into.
  # (pip builds the package with setuptools' bdist_wheel: python3-wheel).
  python3-pytest python3-venv python3-setuptools python3-wheel
  # pip, for the few Python packages Debian does not ship (see below).
  python3-pip
  ninja-build cmake g++ ccache libgtest-dev libdnnl-dev
  # Pipeline stages across processes (memopt-compile --stages=N): MPI
  # point to point, and mpirun to launch the binaries.
  libopenmpi-dev openmpi-bin
  # oneDNN's CMake package (dnnl-config.cmake) requires OpenCL's headers
  # and library: Debian's oneDNN is built with its OpenCL GPU runtime, and
  # libdnnl-dev only recommends them.
  ocl-icd-opencl-dev
  libpng-dev libdcmtk-dev zlib1g-dev
  # --remat=optimal's mixed-integer program: COIN-OR CBC, linked into
  # MemoptTransforms only; CMake finds it with pkg-config (pkg_check_modules),
  # which coinor-libcbc-dev does not pull in.
  coinor-libcbc-dev pkg-config
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$pkg")
done

# Python packages that Debian does not ship, pip-installed (pinned, without
# their dependencies, which the Debian packages above provide) into a
# directory of their own that test/lit.cfg.py puts on PYTHONPATH; the
# system's Python stays untouched. pytorch-msssim is the reference of
# --loss=ms-ssim and ms-ssim+l1.
PYTHON_DEPS=${MEMOPT_PYTHON_DEPS:-$HOME/.local/share/memopt/python}
PIP_PACKAGES=(pytorch-msssim==1.0.0)

install_python_deps() {
  local pkg name version
  for pkg in "${PIP_PACKAGES[@]}"; do
    name=${pkg%%==*} version=${pkg##*==}
    if compgen -G "$PYTHON_DEPS/${name//-/_}-$version.dist-info" >/dev/null; then
      continue
    fi
    echo "install-deps: pip-installing $pkg into $PYTHON_DEPS"
    # Only tests use these (REQUIRES features in test/lit.cfg.py): without
    # PyPI the build, the example and every other test still run.
    if ! /usr/bin/python3 -m pip install --quiet --disable-pip-version-check \
        --no-deps --target "$PYTHON_DEPS" "$pkg"; then
      echo "install-deps: warning: could not pip-install $pkg (is PyPI" \
        "reachable?); the tests that compare with it will be skipped" >&2
    fi
  done
}

# The newest PyTorch from PyPI, in a venv of its own, for the tests that
# export with today's default exporter (torch.export; it needs onnxscript)
# and compare with the TorchScript one. About 5 GB with the CUDA libraries
# the PyPI wheel needs even on the CPU; without PyPI those tests are
# skipped (REQUIRES: torch-export in test/lit.cfg.py).
TORCH_VENV=${MEMOPT_TORCH_VENV:-$HOME/.cache/memopt/torch-venv}
TORCH_VENV_PACKAGES=(torch torchvision onnx onnxscript numpy)

install_torch_venv() {
  if "$TORCH_VENV/bin/python" -c "import torch, torchvision, onnx, onnxscript, numpy" \
      >/dev/null 2>&1; then
    return
  fi
  echo "install-deps: installing the newest ${TORCH_VENV_PACKAGES[*]} from" \
    "PyPI into $TORCH_VENV (about 5 GB)"
  if ! { /usr/bin/python3 -m venv --clear "$TORCH_VENV" &&
         "$TORCH_VENV/bin/pip" install --quiet --disable-pip-version-check \
           "${TORCH_VENV_PACKAGES[@]}"; }; then
    echo "install-deps: warning: could not install PyTorch from PyPI into" \
      "$TORCH_VENV; the tests of today's exporter will be skipped" >&2
  fi
}

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
  install_python_deps
  install_torch_venv
  exit 0
fi

SUDO=()
if [[ $(id -u) -ne 0 ]]; then
  SUDO=(sudo)
fi

echo "install-deps: installing ${missing[*]}"
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
"${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -q --no-install-recommends "${missing[@]}"
install_python_deps
install_torch_venv
