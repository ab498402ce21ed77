"""Runs each row of option_rules.txt through memopt-compile and memopt-opt
--memopt-training-pipeline and checks that both accept it, or both refuse it
with the same one-line message (memopt-compile spells options as flags,
--remat=optimal, memopt-opt as pipeline options, remat=optimal).

A row is `FLAGS | OPTIONS | EXPECTED`: memopt-compile's flags, the same
settings as pipeline options, and `ok` or the start of memopt-opt's message.
memopt-compile runs on a model that does not exist with --plan-only: it
checks its options first, so a row it accepts ends at the missing model.
"""

import argparse
import shlex
import subprocess
import sys


def pipeline_spelling(message):
    """memopt-compile's message with its options spelled as memopt-opt's."""
    for flag, option in (("--workspaces=lean", "lean-workspaces=true"),
                         ("--zero=1", "zero=true")):
        message = message.replace(flag, option)
    return message.replace("--", "")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--rules", required=True)
    parser.add_argument("--module", required=True)
    parser.add_argument("--compile", required=True, help="memopt-compile")
    parser.add_argument("--opt", required=True, help="memopt-opt")
    args = parser.parse_args()
    failures = 0
    rows = 0
    for number, line in enumerate(open(args.rules), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        flags, options, expected = (part.strip() for part in line.split("|"))
        rows += 1
        compile_run = subprocess.run(
            [args.compile, "missing.onnx", "--plan-only"]
            + shlex.split(flags), capture_output=True, text=True)
        opt_run = subprocess.run(
            [args.opt, args.module, "-o", "/dev/null",
             "--memopt-training-pipeline=" + options + " plan-only=true"],
            capture_output=True, text=True)
        compile_error = compile_run.stderr.strip()
        opt_error = opt_run.stderr.strip()
        where = "option_rules.txt:%d: " % number
        if expected == "ok":
            if compile_run.returncode != 1 or \
                    "cannot open input file" not in compile_error:
                print(where + "memopt-compile refused " + flags + ": " +
                      compile_error)
                failures += 1
            if opt_run.returncode != 0:
                print(where + "memopt-opt refused " + options + ": " +
                      opt_error)
                failures += 1
            continue
        prefix = "memopt-compile: error: "
        if compile_run.returncode != 2 or "\n" in compile_error or \
                not compile_error.startswith(prefix):
            print(where + "memopt-compile did not refuse " + flags +
                  " in one line: " + compile_error)
            failures += 1
            continue
        message = pipeline_spelling(compile_error[len(prefix):])
        if not message.startswith(expected):
            print(where + "memopt-compile: '" + message +
                  "' does not start with '" + expected + "'")
            failures += 1
        if opt_run.returncode == 0 or \
                "error: memopt-training-pipeline: " + message not in opt_error:
            print(where + "memopt-opt " + options + ": expected '" + message +
                  "', got: " + opt_error)
            failures += 1
    print("checked %d rows, %d failures" % (rows, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
