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
  ninja-build cmake g++ ccache libgtest-dev libdnnl-dev
  # oneDNN's CMake package (dnnl-config.cmake) requires OpenCL's headers
  # and library: Debian's oneDNN is built with its OpenCL GPU runtime, and
  # libdnnl-dev only recommends them.
  ocl-icd-opencl-dev
  libpng-dev libdcmtk-dev zlib1g-dev
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$pkg")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  echo "install-deps: all ${#PACKAGES[@]} packages already installed"
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
