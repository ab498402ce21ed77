# -*- Python -*-
# Runs the GoogleTest binaries under build/unittests as part of check-memopt.

import os

import lit.formats

config.name = "MEMOPT-Unit"
config.suffixes = []
config.test_exec_root = os.path.join(config.memopt_obj_root, "unittests")
config.test_source_root = config.test_exec_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
