"""Mutations for memopt.testing.fuzz: the project's lit inputs (MLIR text
through memopt-opt) and memopt-compile's command line (--plan-only).

MLIR: one `// -----` section of a test/ .mlir file, run with the passes of
the file's first memopt-opt RUN line, after one to three textual
mutations: integers set to extremes (0, -1, 2^31, 2^62, 2^63 - 1, 2^64; dimensions of shaped types too),
attribute and type kinds swapped (array <-> dense <-> list, i64 <-> index,
f32 <-> i1, ...), tokens and lines deleted or duplicated.

Flags: a few of memopt-compile's memory and parallelism options with
extreme, malformed and empty values on a small model with --plan-only.
"""
import os
import re
import shlex

EXTREMES = ["0", "-1", "1", "2147483648", "4611686018427387904",
            "9223372036854775807", "18446744073709551616", "-9223372036854775808"]
SWAPS = [("array<i64", "array<index"), ("array<i64: ", "["), ("dense<", "array<i64: "),
         ("i64", "index"), ("i64", "i32"), ("f32", "i1"), ("f32", "f16"),
         ("tensor<", "memref<"), ("device", "pinned_host"), ("true", "false"),
         ("[", "array<i64: "), ("xf32", "x?xf32"), (": i64", ": f32"),
         ("mbuf.wait", "mbuf.wait %0,")]
TOKEN = re.compile(r"[%@#!^]?[\w.$-]+|\S")
INTEGER = re.compile(r"(?<![\w.#%@^!])\d+(?![\w.])")
DIM = re.compile(r"(?<=[<x])\d+(?=x)")  # a dimension of a shaped type


def mlir_cases(root):
    """(path, section text, memopt-opt arguments) for every .mlir file under
    `root` whose first RUN line runs memopt-opt, one per section."""
    cases = []
    for directory, _, files in sorted(os.walk(root)):
        for name in sorted(files):
            if not name.endswith(".mlir"):
                continue
            path = os.path.join(directory, name)
            with open(path, errors="replace") as f:
                text = f.read()
            arguments = run_arguments(text)
            if arguments is None:
                continue
            for section in text.split("// -----"):
                if len(section) < 20000 and "func" in section:
                    cases.append((path, section, arguments))
    return cases


def run_arguments(text):
    """The memopt-opt options of the first RUN line that runs it (passes,
    pipelines; not the input, -o, -split-input-file or
    -verify-diagnostics), or None."""
    for line in text.splitlines():
        if "RUN:" not in line or "memopt-opt" not in line:
            continue
        command = line.split("memopt-opt", 1)[1].split("|")[0]
        try:
            words = shlex.split(command)
        except ValueError:
            return None
        return [w for w in words if w.startswith("-") and w not in (
            "-split-input-file", "--split-input-file", "-verify-diagnostics",
            "--verify-diagnostics", "-o", "2>&1")]
    return None


def mutate_mlir(text, rng):
    """One to three textual mutations of `text`; returns it and a summary."""
    hows = []
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["number", "dim", "swap", "swap", "delete",
                           "duplicate", "line"])
        if kind in ("number", "dim"):
            spots = list((INTEGER if kind == "number" else DIM).finditer(text))
            if spots:
                m = rng.choice(spots)
                value = rng.choice(EXTREMES if kind == "number" else
                                   [e for e in EXTREMES if e[0] != "-"])
                text = text[:m.start()] + value + text[m.end():]
                hows.append("%s -> %s" % (m.group(), value))
        elif kind == "swap":
            a, b = rng.choice(SWAPS)
            if rng.random() < 0.5:
                a, b = b, a
            spots = [m.start() for m in re.finditer(re.escape(a), text)]
            if spots:
                at = rng.choice(spots)
                text = text[:at] + b + text[at + len(a):]
                hows.append("%s -> %s" % (a, b))
        elif kind == "line":
            lines = text.split("\n")
            i = rng.randrange(len(lines))
            if rng.random() < 0.5:
                del lines[i]
                hows.append("line %d deleted" % (i + 1))
            else:
                lines.insert(i, lines[i])
                hows.append("line %d duplicated" % (i + 1))
            text = "\n".join(lines)
        else:
            tokens = [m for m in TOKEN.finditer(text)
                      if not text[:m.start()].rstrip().endswith("//")]
            if tokens:
                m = rng.choice(tokens)
                new = "" if kind == "delete" else m.group() + " " + m.group()
                text = text[:m.start()] + new + text[m.end():]
                hows.append("%s %r" % ("deleted" if kind == "delete"
                                       else "duplicated", m.group()))
    return text, "; ".join(hows) or "unchanged"


NUMBERS = ["1", "2", "3", "4", "0", "-1", "2147483648", "4294967295",
           "9223372036854775807", "18446744073709551616", "", "abc", "2x",
           "1e3", " 2", "0x10"]
FLAGS = {
    "--stages": NUMBERS,
    "--microbatches": NUMBERS,
    "--schedule": ["gpipe", "1f1b", "", "GPIPE", "fifo"],
    "--remat": ["none", "sqrt", "auto", "optimal", "", "all", "auto,sqrt"],
    "--offload": ["none", "auto", "", "yes"],
    "--amp": ["none", "bf16", "fp16", "", "fp8", "BF16"],
    "--data-parallel": NUMBERS,
    "--zero": ["0", "1", "2", "-1", "", "true"],
    "--budget": ["1", "0", "-5", "1KiB", "64KiB", "1MiB", "1GiB", "16EiB",
                 "1e100GiB", "99999999999999999999GiB", "nan", "abc", "",
                 "1.5MiB", "0.5"],
    "--batch": NUMBERS,
    "--device": ["cpu", "h100", "a100-40g", "rtx2060", "", "tpu", "cpu,",
                 "cpu,memory_gib=0", "cpu,memory_gib=-1", "h100,host_gbps=0",
                 "custom", "custom,memory_gib=1e308", "cpu,bogus=1"],
}


def compile_flags(rng):
    """One to four of FLAGS with a value each (sometimes without `=`, or
    given twice); returns the arguments and a summary."""
    arguments = []
    for flag in rng.sample(sorted(FLAGS), rng.randint(1, 4)):
        value = rng.choice(FLAGS[flag])
        shape = rng.random()
        if shape < 0.05:
            arguments.append(flag)
        elif shape < 0.1:
            arguments += [flag + "=" + value, flag + "=" + rng.choice(FLAGS[flag])]
        else:
            arguments.append(flag + "=" + value)
    return arguments, " ".join(arguments)
