"""Two-phase runs of the checking and benchmark scripts.

A GPU machine may lack what memopt-compile needs (LLVM/MLIR, oneDNN, the
ONNX C++ library), so the scripts that compile and then run a binary can
do it in two phases on two machines:

- ``--phase prepare`` (on the build machine): exports the model, writes the
  data and compiles the binaries into --workdir, records the options it
  was given in ``prepared.json`` there, and stops;
- ``--phase run`` (on the GPU machine, with that workdir copied over):
  runs the prepared binaries and the reference (PyTorch), compares and
  reports as the single-phase run does; it needs no memopt-compile.

``--phase all`` (the default) does both in one process. The run phase
refuses a workdir prepared with other compile-time options, naming the
option, so that a result is never judged against the wrong binary.
"""
import json
import os

import numpy as np

PHASES = ("all", "prepare", "run")
MANIFEST = "prepared.json"


def add_arguments(parser):
    """Adds --phase and --memopt-compile (needed unless --phase run)."""
    parser.add_argument("--phase", choices=PHASES, default="all",
                        help="all (default): compile and run here; prepare: "
                             "compile into --workdir and stop; run: run what "
                             "--phase prepare left in --workdir (no "
                             "memopt-compile needed)")
    parser.add_argument("--memopt-compile",
                        help="path of the memopt-compile tool (not with "
                             "--phase run)")


def check_arguments(parser, args):
    """Usage errors of the phase options."""
    if args.phase == "run" and args.memopt_compile:
        parser.error("--memopt-compile is not used with --phase run (the "
                     "binaries were compiled by --phase prepare)")
    if args.phase != "run" and not args.memopt_compile:
        parser.error("--memopt-compile is required unless --phase run")


def compiles(args):
    return args.phase != "run"


def runs(args):
    return args.phase != "prepare"


def _recorded(args, run_only):
    """The options that shape what --phase prepare writes."""
    skip = set(run_only) | {"phase", "workdir", "memopt_compile"}
    return {k: v for k, v in sorted(vars(args).items()) if k not in skip}


def save(workdir, args, run_only=()):
    """Records the prepare-time options in workdir/prepared.json."""
    with open(os.path.join(workdir, MANIFEST), "w") as f:
        json.dump(_recorded(args, run_only), f, indent=1, sort_keys=True)
        f.write("\n")


def verify(workdir, args, run_only=()):
    """Raises ValueError when `workdir` was not prepared, or was prepared
    with other options than `args` (run-only options aside)."""
    path = os.path.join(workdir, MANIFEST)
    if not os.path.isfile(path):
        raise ValueError("%s has no %s: prepare it first with the same "
                         "options and --phase prepare" % (workdir, MANIFEST))
    with open(path) as f:
        prepared = json.load(f)
    wanted = json.loads(json.dumps(_recorded(args, run_only)))
    for key in sorted(set(prepared) | set(wanted)):
        if prepared.get(key) != wanted.get(key):
            raise ValueError(
                "%s was prepared with --%s=%s, but this run has --%s=%s: "
                "prepare again with the options of the run"
                % (workdir, key.replace("_", "-"), prepared.get(key),
                   key.replace("_", "-"), wanted.get(key)))


def read_dataset(directory):
    """The (inputs, targets) arrays of an .npy data set, in the trainer's
    (sorted) order."""
    def stack(sub):
        folder = os.path.join(directory, sub)
        return np.stack([np.load(os.path.join(folder, name))
                         for name in sorted(os.listdir(folder))
                         if name.endswith(".npy")])
    return stack("inputs"), stack("targets")
