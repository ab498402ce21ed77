#!/usr/bin/python3
"""A bounded, seeded fuzz run of the ONNX importer and the trainer's readers.

Structured mutations of valid inputs, not random bytes alone, so that most
cases get past the first check and reach the code behind it:

- ONNX models (memopt-translate --import-onnx): truncation, bit flips,
  attributes removed, duplicated, retyped or set to huge/negative/empty
  values, initializer dims set huge, element types changed, inputs renamed;
- .npy data files (the training binary's --data): truncation, bit flips,
  header length and shape set huge, dtype and header text damaged;
- checkpoints (--resume): fields set huge, bit flips with the CRC-32 fixed
  up, so that the decoder behind the checksum sees them;
- the project's lit inputs (memopt-opt on test/'s .mlir sections with their
  RUN line's passes) and memopt-compile's flag combinations (--plan-only),
  mutated as memopt.testing.fuzz_text describes.

Every case must end within --timeout with exit code 0 or 1 (2 for a bad
command line) and, on failure, an `error:` line and at most
--max-error-bytes of output (one line, not an IR dump; the input lines
that diagnostics quote under an error do not count): a signal, a stack
dump, the tools' crash boundary ("crashed (...)") or a timeout is a crash.
Crashers are copied to --crashers (to be kept as regression inputs) and
the run fails. A tool's stdin is an open pipe that nothing writes: a tool
must never read it unasked.

    PYTHONPATH=python /usr/bin/python3 -m memopt.testing.fuzz \\
        --translate build/bin/memopt-translate --compile build/bin/memopt-compile \\
        --opt build/bin/memopt-opt --mlir-root test \\
        --work /tmp/fuzz --seed 1 --importer-cases 100 --trainer-cases 300 \\
        --mlir-cases 200 --flag-cases 100
"""
import argparse
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import time
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from memopt.testing import fuzz_text


# --- Seeds: small valid inputs ------------------------------------------------

def weight(name, shape):
    n = int(np.prod(shape))
    return numpy_helper.from_array(
        ((np.arange(n, dtype=np.float32) % 7 - 3) / 8).reshape(shape), name)


def seed_models():
    """Valid models that exercise windows, folding, casts and BatchNorm."""
    def model(nodes, inputs, outputs, inits):
        graph = helper.make_graph(nodes, "fuzz", inputs, outputs, inits)
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        onnx.checker.check_model(m)
        return m

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 8, 8])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", "c", "h", "w"])
    y2 = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["a", "b"])
    conv = model(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv",
                          kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                          strides=[1, 1], dilations=[1, 1], group=1),
         helper.make_node("BatchNormalization", ["c", "s", "bb", "m", "v"],
                          ["n"], name="bn", epsilon=1e-5, momentum=0.9),
         helper.make_node("Relu", ["n"], ["r"], name="relu"),
         helper.make_node("MaxPool", ["r"], ["p"], name="pool",
                          kernel_shape=[2, 2], strides=[2, 2], ceil_mode=0),
         helper.make_node("ConvTranspose", ["p", "wt"], ["y"], name="up",
                          kernel_shape=[2, 2], strides=[2, 2],
                          output_padding=[0, 0], auto_pad="NOTSET")],
        [x], [y],
        [weight("w", [4, 2, 3, 3]), weight("b", [4]), weight("s", [4]),
         weight("bb", [4]), weight("m", [4]),
         numpy_helper.from_array(np.ones(4, np.float32), "v"),
         weight("wt", [4, 2, 2, 2])])
    shape = model(
        [helper.make_node("Shape", ["x"], ["sh"], name="shape"),
         helper.make_node("Cast", ["sh"], ["shf"], name="cast",
                          to=TensorProto.FLOAT),
         helper.make_node("Cast", ["shf"], ["shi"], name="back",
                          to=TensorProto.INT64),
         helper.make_node("ConstantOfShape", ["shi"], ["z"], name="zeros",
                          value=helper.make_tensor("v", TensorProto.FLOAT,
                                                   [1], [0.5])),
         helper.make_node("Add", ["x", "z"], ["a"], name="add"),
         helper.make_node("Resize", ["a", "", "sc"], ["rs"], name="resize",
                          mode="nearest"),
         helper.make_node("AveragePool", ["rs"], ["y"], name="avg",
                          kernel_shape=[2, 2], strides=[2, 2],
                          count_include_pad=0)],
        [x], [y],
        [numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "sc")])
    gemm_x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    gemm = model(
        [helper.make_node("Gemm", ["x", "w", "b"], ["g"], name="gemm",
                          alpha=1.0, beta=1.0, transA=0, transB=0),
         helper.make_node("Reshape", ["g", "shp"], ["rr"], name="reshape"),
         helper.make_node("Transpose", ["rr"], ["t"], name="transpose",
                          perm=[1, 0]),
         helper.make_node("ReduceMean", ["t"], ["y"], name="mean", axes=[0],
                          keepdims=1)],
        [gemm_x], [y2],
        [weight("w", [3, 4]), weight("b", [4]),
         numpy_helper.from_array(np.array([4, 2], np.int64), "shp")])
    return {"conv": conv, "shape": shape, "gemm": gemm}


# --- Mutations ----------------------------------------------------------------

HUGE = [2**31 - 1, 2**31, 2**62, 2**63 - 1, -(2**63), -1, 0]


def mutate_bytes(data, rng):
    kind = rng.choice(["truncate", "flip", "flips"])
    data = bytearray(data)
    if kind == "truncate":
        return bytes(data[:rng.randrange(len(data))]), kind
    for _ in range(1 if kind == "flip" else rng.randint(2, 16)):
        i = rng.randrange(len(data))
        data[i] ^= 1 << rng.randrange(8)
    return bytes(data), kind


def mutate_attribute(node, rng):
    if not node.attribute:
        return "no attribute"
    attr = rng.choice(node.attribute)
    kind = rng.choice(["remove", "duplicate", "retype", "huge", "empty",
                       "negative", "string"])
    if kind == "remove":
        node.attribute.remove(attr)
    elif kind == "duplicate":
        node.attribute.append(attr)
    elif kind == "retype":
        new = helper.make_attribute(attr.name, rng.choice(
            [3.5, 7, [1.0, 2.0], [1, 2, 3], "SAME_UPPER"]))
        node.attribute.remove(attr)
        node.attribute.append(new)
    elif kind == "string":
        if attr.type == onnx.AttributeProto.STRING:
            attr.s = rng.choice([b"", b"BOGUS", b"\xff" * 3, b"SAME_LOWER"])
    elif attr.type == onnx.AttributeProto.INTS:
        if kind == "empty":
            del attr.ints[:]
        else:
            values = list(attr.ints) or [1]
            values[rng.randrange(len(values))] = (
                rng.choice(HUGE) if kind == "huge" else -rng.randint(1, 5))
            if rng.random() < 0.3:
                values.append(rng.choice(HUGE))
            del attr.ints[:]
            attr.ints.extend(values)
    elif attr.type == onnx.AttributeProto.INT:
        attr.i = rng.choice(HUGE) if kind == "huge" else -rng.randint(1, 5)
    elif attr.type == onnx.AttributeProto.FLOAT:
        attr.f = rng.choice([float("nan"), float("inf"), -1.0, 0.0, 1e38])
    elif attr.type == onnx.AttributeProto.TENSOR:
        if kind == "empty":  # zero elements, data and dims agreeing
            attr.t.ClearField("raw_data")
            attr.t.ClearField("float_data")
            attr.t.ClearField("int64_data")
            attr.t.dims[:] = [0]
        else:
            attr.t.dims[:] = [rng.choice([0, 2, 2**40])]
    return kind + " " + attr.name


def mutate_model(model, rng):
    m = onnx.ModelProto()
    m.CopyFrom(model)
    graph = m.graph
    kind = rng.choice(["attribute", "attribute", "attribute", "dims",
                       "dtype", "input", "opset", "output-shape"])
    if kind == "attribute":
        return m, mutate_attribute(rng.choice(graph.node), rng)
    if kind == "dims" and graph.initializer:
        init = rng.choice(graph.initializer)
        if init.dims:
            init.dims[rng.randrange(len(init.dims))] = rng.choice(HUGE)
        return m, "dims " + init.name
    if kind == "dtype":
        target = rng.choice(list(graph.initializer) + [None])
        dtype = rng.choice([0, TensorProto.INT64, TensorProto.STRING,
                            TensorProto.DOUBLE, 99])
        if target is None:
            graph.input[0].type.tensor_type.elem_type = dtype
        else:
            target.data_type = dtype
        return m, "dtype"
    if kind == "input":
        node = rng.choice(graph.node)
        if node.input:
            node.input[rng.randrange(len(node.input))] = rng.choice(
                ["", "missing", node.output[0]])
        return m, "input " + node.name
    if kind == "opset":
        m.opset_import[0].version = rng.choice([1, 7, 10, 13, 18, 1000])
        return m, "opset"
    out = graph.output[0]
    out.type.tensor_type.ClearField("shape")
    for d in rng.choice([[7], [1, 1], [2**40, 1, 1, 1], [0, 0, 0, 0]]):
        out.type.tensor_type.shape.dim.add().dim_value = d
    return m, "output-shape"


def npy_bytes(shape, dtype="<f4", payload=None, header=None, version=1):
    dictionary = header or ("{'descr': '%s', 'fortran_order': False, "
                            "'shape': (%s), }" % (dtype, ", ".join(
                                str(d) for d in shape) + ("," if len(shape) == 1 else "")))
    dictionary += "\n"
    if version == 1:
        prefix = b"\x93NUMPY\x01\x00" + struct.pack("<H", len(dictionary))
    else:
        prefix = b"\x93NUMPY\x02\x00" + struct.pack("<I", len(dictionary))
    if payload is None:
        payload = np.zeros(int(np.prod(shape)), np.float32).tobytes()
    return prefix + dictionary.encode() + payload


def mutate_npy(rng):
    good = npy_bytes([1, 4, 4])
    kind = rng.choice(["bytes", "header-length", "shape", "dtype", "text",
                       "version"])
    if kind == "bytes":
        data, how = mutate_bytes(good, rng)
        return data, how
    if kind == "header-length":
        data = bytearray(npy_bytes([1, 4, 4], version=2))
        data[8:12] = struct.pack("<I", rng.choice([2**32 - 1, 2**31, 10**6]))
        return bytes(data), kind
    if kind == "shape":
        shape = [rng.choice([1, 4, 2**31, 2**62, 2**63 - 1]) for _ in range(3)]
        return npy_bytes(shape, payload=b"\0" * 64), kind
    if kind == "dtype":
        return npy_bytes([1, 4, 4], dtype=rng.choice(
            ["<f8", ">f4", "|b1", "<U3", "", "'"])), kind
    if kind == "text":
        return npy_bytes([1, 4, 4], header=rng.choice(
            ["{", "{'shape': (", "{'descr': '<f4', 'shape': (1, 4, 4), }",
             "{'descr': '<f4', 'fortran_order': False, 'shape': (-1, 4, 4), }",
             "{'descr': '<f4', 'fortran_order': False, 'shape': (" +
             "1, " * 100 + "), }"])), kind
    return b"\x93NUMPY\x09\x00" + good[8:], kind


def fix_crc(data):
    body = data[:-4]
    return body + struct.pack("<I", zlib.crc32(body) & 0xFFFFFFFF)


def mutate_checkpoint(good, rng):
    data = bytearray(good)
    kind = rng.choice(["field", "field", "flips", "truncate", "size"])
    if kind == "field":
        # Past the 24-byte header: step, counts, lengths of the progress.
        offset = 24 + 4 * rng.randrange(min(40, (len(data) - 32) // 4))
        width = rng.choice([4, 8])
        data[offset:offset + width] = struct.pack(
            "<Q" if width == 8 else "<I",
            rng.choice([2**32 - 1, 2**31, 2**63 - 1, 0]) & (2**(8 * width) - 1))
        return fix_crc(bytes(data)), "field at %d" % offset
    if kind == "flips":
        for _ in range(rng.randint(1, 8)):
            i = rng.randrange(24, len(data) - 4)
            data[i] ^= 1 << rng.randrange(8)
        return fix_crc(bytes(data)), kind
    if kind == "truncate":
        return bytes(data[:rng.randrange(len(data))]), kind
    data[16:24] = struct.pack("<Q", rng.choice([2**63 - 1, len(data) + 1]))
    return bytes(data), kind


# --- Running ------------------------------------------------------------------

class Runner:
    def __init__(self, work, crashers, timeout, max_error_bytes):
        self.work = work
        self.crashers = crashers
        self.timeout = timeout
        self.max_error_bytes = max_error_bytes
        self.cases = 0
        self.crashes = []

    def verdict(self, result, inputs=()):
        """Why `result` (a CompletedProcess) is a crash, or None. The size
        bound counts what the tool wrote, not the snippets of `inputs`
        (paths of text files) that MLIR's diagnostics quote under each
        error (the source line and its caret line), which grow with the
        input's lines, not with an IR dump."""
        err = result.stderr
        last = (err.strip().splitlines() or [""])[-1][:200]
        if (result.returncode not in (0, 1, 2) or "Stack dump" in err or
                "PLEASE submit" in err or ": error: crashed (" in err or
                (result.returncode != 0 and "error" not in err)):
            return "exit %d: %s" % (result.returncode, last)
        quoted = set()
        for path in inputs:
            try:
                with open(path, errors="replace") as f:
                    quoted.update(line.strip() for line in f if line.strip())
            except OSError:
                pass
        caret = re.compile(r"^\s*\^~*\s*$")
        output = len(result.stdout) + sum(
            len(line) + 1 for line in err.splitlines()
            if line.strip() not in quoted and not caret.match(line))
        if result.returncode != 0 and output > self.max_error_bytes:
            return "exit %d with %d bytes of output (an IR dump?): %s" % (
                result.returncode, output, last)
        return None

    def check(self, command, what, inputs, cwd=None):
        """Runs `command`; records a crash, keeping `inputs` (paths)."""
        self.cases += 1
        try:
            with subprocess.Popen(command, stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True, errors="replace", cwd=cwd) as process:
                try:
                    out, err = process.communicate(timeout=self.timeout)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.communicate()
                    raise
            cause = self.verdict(subprocess.CompletedProcess(
                command, process.returncode, out, err), inputs)
            crashed = cause is not None
        except subprocess.TimeoutExpired:
            crashed, cause = True, "timeout after %gs" % self.timeout
        if not crashed:
            return
        os.makedirs(self.crashers, exist_ok=True)
        kept = []
        for path in inputs:
            name = "crash-%03d-%s" % (len(self.crashes), os.path.basename(path))
            shutil.copyfile(path, os.path.join(self.crashers, name))
            kept.append(name)
        self.crashes.append((what, cause, kept))


def fuzz_importer(runner, translate, rng, cases):
    seeds = seed_models()
    path = os.path.join(runner.work, "model.onnx")
    for _ in range(cases):
        name = rng.choice(sorted(seeds))
        if rng.random() < 0.25:
            data, how = mutate_bytes(seeds[name].SerializeToString(), rng)
        else:
            mutated, how = mutate_model(seeds[name], rng)
            if rng.random() < 0.3:
                mutated, more = mutate_model(mutated, rng)
                how += ", " + more
            data = mutated.SerializeToString()
        with open(path, "wb") as f:
            f.write(data)
        runner.check([translate, "--import-onnx", path, "-o", os.devnull],
                     "importer: %s (%s)" % (name, how), [path])


def build_trainer(compile_tool, work):
    """A training binary of a one-convolution model, and a valid data set
    and checkpoint for it."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 4, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", "c", "h", "w"])
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
        "fuzz", [x], [y], [weight("w", [1, 1, 3, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(model, os.path.join(work, "conv.onnx"))
    binary = os.path.join(work, "conv")
    subprocess.run([compile_tool, os.path.join(work, "conv.onnx"), "-o", binary],
                   check=True)
    for part in ("inputs", "targets"):
        os.makedirs(os.path.join(work, "data", part), exist_ok=True)
        for s in range(2):
            with open(os.path.join(work, "data", part, "s%d.npy" % s), "wb") as f:
                f.write(npy_bytes([1, 4, 4]))
    subprocess.run([binary, "--data", os.path.join(work, "data"), "--steps", "1",
                    "--out", os.path.join(work, "out.onnx"), "--log-every", "0",
                    "--checkpoint-dir", os.path.join(work, "ckpt")],
                   check=True, capture_output=True)
    checkpoint = os.path.join(work, "ckpt", sorted(os.listdir(
        os.path.join(work, "ckpt")))[-1])
    with open(checkpoint, "rb") as f:
        return binary, f.read(), checkpoint


def fuzz_trainer(runner, compile_tool, rng, cases):
    work = runner.work
    binary, good_checkpoint, checkpoint = build_trainer(compile_tool, work)
    sample = os.path.join(work, "data", "inputs", "s1.npy")
    base = [binary, "--data", os.path.join(work, "data"), "--steps", "1",
            "--out", os.path.join(work, "out.onnx"), "--log-every", "0"]
    for _ in range(cases):
        if rng.random() < 0.6:
            data, how = mutate_npy(rng)
            with open(sample, "wb") as f:
                f.write(data)
            runner.check(base, "trainer .npy: " + how, [sample])
            with open(sample, "wb") as f:
                f.write(npy_bytes([1, 4, 4]))
        else:
            data, how = mutate_checkpoint(good_checkpoint, rng)
            with open(checkpoint, "wb") as f:
                f.write(data)
            runner.check(base + ["--checkpoint-dir", os.path.join(work, "ckpt"),
                                 "--resume", "--steps", "2"],
                         "trainer checkpoint: " + how, [checkpoint])
            with open(checkpoint, "wb") as f:
                f.write(good_checkpoint)


def fuzz_mlir(runner, opt, root, rng, cases):
    """memopt-opt on mutated sections of the .mlir files under `root`."""
    sections = fuzz_text.mlir_cases(root)
    path = os.path.join(runner.work, "input.mlir")
    for _ in range(cases):
        source, text, arguments = rng.choice(sections)
        text, how = fuzz_text.mutate_mlir(text, rng)
        with open(path, "w") as f:
            f.write(text)
        runner.check([opt, path, "-o", os.devnull, "--allow-unregistered-dialect",
                      "--mlir-print-op-on-diagnostic=false"] + arguments,
                     "memopt-opt %s %s: %s" % (os.path.relpath(source, root),
                                               " ".join(arguments), how),
                     [path])


def fuzz_flags(runner, compile_tool, rng, cases):
    """memopt-compile --plan-only with mutated memory and parallelism flags
    on the conv seed model (conv, BatchNorm, ReLU, pooling, transposed
    conv)."""
    model = os.path.join(runner.work, "flags.onnx")
    onnx.save(seed_models()["conv"], model)
    for _ in range(cases):
        flags, how = fuzz_text.compile_flags(rng)
        runner.check([compile_tool, model, "--plan-only"] + flags,
                     "memopt-compile --plan-only " + how, [model])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--translate", required=True, help="memopt-translate")
    parser.add_argument("--compile", help="memopt-compile (trainer and flag fuzzing)")
    parser.add_argument("--opt", help="memopt-opt (MLIR fuzzing)")
    parser.add_argument("--mlir-root", help="the .mlir inputs MLIR fuzzing "
                        "mutates (the project's test/)")
    parser.add_argument("--work", required=True, help="scratch directory")
    parser.add_argument("--crashers", help="where crashing inputs are kept "
                        "(default: WORK/crashers)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--importer-cases", type=int, default=100)
    parser.add_argument("--trainer-cases", type=int, default=300)
    parser.add_argument("--mlir-cases", type=int, default=0)
    parser.add_argument("--flag-cases", type=int, default=0)
    parser.add_argument("--max-error-bytes", type=int, default=2048,
                        help="output a failing case may print")
    parser.add_argument("--timeout", type=float, default=5.0,
                        help="seconds one case may take: a bad file must be "
                        "reported at once, not after allocating gigabytes")
    args = parser.parse_args(argv)
    shutil.rmtree(args.work, ignore_errors=True)
    os.makedirs(args.work)
    runner = Runner(args.work, args.crashers or os.path.join(args.work, "crashers"),
                    args.timeout, args.max_error_bytes)
    rng = random.Random(args.seed)
    start = time.monotonic()
    fuzz_importer(runner, args.translate, rng, args.importer_cases)
    counts = {"importer": runner.cases}
    if args.compile and args.trainer_cases:
        fuzz_trainer(runner, args.compile, rng, args.trainer_cases)
        counts["trainer"] = runner.cases - sum(counts.values())
    if args.opt and args.mlir_root and args.mlir_cases:
        fuzz_mlir(runner, args.opt, args.mlir_root, rng, args.mlir_cases)
        counts["mlir"] = runner.cases - sum(counts.values())
    if args.compile and args.flag_cases:
        fuzz_flags(runner, args.compile, rng, args.flag_cases)
        counts["flag"] = runner.cases - sum(counts.values())
    print("fuzz: seed %d, %s, %d crashes" % (
        args.seed, ", ".join("%d %s cases" % (n, kind)
                             for kind, n in counts.items()),
        len(runner.crashes)))
    print("fuzz: %.1f s" % (time.monotonic() - start), file=sys.stderr)
    for what, cause, kept in runner.crashes:
        print("CRASH: %s: %s (kept as %s)" % (what, cause, ", ".join(kept)))
    return 1 if runner.crashes else 0


if __name__ == "__main__":
    sys.exit(main())
