# -*- Python -*-
# lit configuration of memopt's regression tests.

import os
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

llvm_config.with_system_environment(["HOME", "TMPDIR"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)

# The interpreter that has torch and onnx: Debian's python3 with python3-torch
# and python3-onnx unless CMake was told otherwise.
python = config.torch_python or "/usr/bin/python3"
config.substitutions.append(("%python", python))
config.environment["PYTHONPATH"] = os.path.join(config.memopt_src_root, "python")


def python_has(module):
    try:
        return subprocess.run([python, "-c", "import " + module],
                              capture_output=True).returncode == 0
    except OSError:
        return False


if python_has("onnx"):
    config.available_features.add("onnx")
if python_has("torch"):
    config.available_features.add("torch")
if config.memopt_has_cuda:
    config.available_features.add("cuda")
# memopt-compile links training binaries only when the runtime has the
# trainer (MemoptRuntimeHost, trainerMain).
if config.memopt_has_trainer:
    config.available_features.add("memopt-trainer")

tool_dirs = [config.memopt_tools_dir, config.llvm_tools_dir]
tools = ["memopt-opt", "memopt-translate", "memopt-compile"]
llvm_config.add_tool_substitutions(tools, tool_dirs)
