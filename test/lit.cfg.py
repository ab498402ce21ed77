# -*- Python -*-
# lit configuration of memopt's regression tests.

import os
import shutil
import subprocess

import lit.formats
from lit.llvm import llvm_config

config.name = "MEMOPT"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.memopt_obj_root, "test")
config.excludes = ["Inputs", "Unit", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%memopt_src", config.memopt_src_root))
# The build directory (its bin/ holds the tools), for scripts that take one.
config.substitutions.append(("%memopt_obj", config.memopt_obj_root))

llvm_config.with_system_environment(["HOME", "TMPDIR", "CUDA_VISIBLE_DEVICES"])
# oneDNN picks its kernels, and so the workspace bytes that memopt plans and
# the summation order of the convolutions, by the CPU's instruction set.
# The tests' byte figures are those of AVX2 kernels: capping oneDNN there
# gives the same figures on an AVX-512 machine as on an AVX2-only one.
config.environment["ONEDNN_MAX_CPU_ISA"] = "AVX2"
config.environment["DNNL_MAX_CPU_ISA"] = "AVX2"
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# The interpreter that has torch and onnx: Debian's python3 with python3-torch
# and python3-onnx unless CMake was told otherwise.
python = config.torch_python or "/usr/bin/python3"
config.substitutions.append(("%python", python))
# Python packages that Debian does not ship (pytorch-msssim), which
# scripts/install-deps.sh pip-installs into this directory, not into the
# system's Python.
python_deps = os.environ.get("MEMOPT_PYTHON_DEPS") or os.path.join(
    os.path.expanduser("~"), ".local", "share", "memopt", "python")
config.environment["PYTHONPATH"] = os.pathsep.join(
    [os.path.join(config.memopt_src_root, "python")]
    + ([python_deps] if os.path.isdir(python_deps) else []))


def python_has(module):
    env = dict(os.environ, PYTHONPATH=config.environment["PYTHONPATH"])
    try:
        return subprocess.run([python, "-c", "import " + module],
                              capture_output=True, env=env).returncode == 0
    except OSError:
        return False


if python_has("onnx"):
    config.available_features.add("onnx")
if python_has("torch"):
    config.available_features.add("torch")
if python_has("pytest"):
    config.available_features.add("pytest")
# The reference of --loss=ms-ssim and ms-ssim+l1.
if python_has("pytorch_msssim"):
    config.available_features.add("pytorch-msssim")
# torch-export: the newest PyTorch from PyPI with onnxscript, in the venv
# that scripts/install-deps.sh makes, exports with today's default exporter
# (torch.export); %torch_export_python is its interpreter.
torch_venv = os.environ.get("MEMOPT_TORCH_VENV") or os.path.join(
    os.path.expanduser("~"), ".cache", "memopt", "torch-venv")
torch_export_python = os.path.join(torch_venv, "bin", "python")
try:
    if subprocess.run(
            [torch_export_python, "-c",
             "import inspect, onnxscript, torch, sys; sys.exit('dynamo' not in "
             "inspect.signature(torch.onnx.export).parameters)"],
            capture_output=True).returncode == 0:
        config.available_features.add("torch-export")
        config.substitutions.append(("%torch_export_python",
                                     torch_export_python))
except OSError:
    pass
# cuda: memopt-compile --target=cuda can build binaries (the CUDA runtime,
# with cuDNN, was built). cuda-gpu: they can also run here, a GPU being
# visible; GPU tests REQUIRE it and are reported UNSUPPORTED elsewhere.
if config.memopt_has_cuda and config.memopt_has_cuda_runtime:
    config.available_features.add("cuda")


def gpu_visible():
    try:
        listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True,
                                 text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return listing.returncode == 0 and "GPU" in listing.stdout


if "cuda" in config.available_features and gpu_visible():
    config.available_features.add("cuda-gpu")
    # PyTorch with CUDA, for references computed on the GPU.
    if subprocess.run([python, "-c", "import torch, sys; "
                       "sys.exit(not torch.cuda.is_available())"],
                      capture_output=True).returncode == 0:
        config.available_features.add("torch-cuda")
# memopt-compile links training binaries only when the runtime has the
# trainer (MemoptRuntimeHost, trainerMain).
if config.memopt_has_trainer:
    config.available_features.add("memopt-trainer")

# mpi: memopt-compile --stages=N builds binaries (MemoptRuntimeMPI was
# built) and mpirun can launch them. %mpirun runs N ranks on however few
# cores there are, as root too, without binding ranks to cores.
mpirun = shutil.which("mpirun")
if config.memopt_has_mpi_runtime and mpirun:
    config.available_features.add("mpi")
    config.substitutions.append(
        ("%mpirun", mpirun + " --allow-run-as-root --oversubscribe "
         "--bind-to none"))

tool_dirs = [config.memopt_tools_dir, config.llvm_tools_dir]
tools = ["memopt-opt", "memopt-translate", "memopt-compile"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
