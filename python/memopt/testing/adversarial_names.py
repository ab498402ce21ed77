#!/usr/bin/python3
"""Rename an ONNX model's nodes and tensors to names that break code generators.

memopt names the C++ of the generated training step after the model's ONNX
node and tensor names. This rewrites a model so that every name is hostile:
empty and duplicated node names, C++ keywords, the identifiers the generated
code spells itself (args, arena, results, train_step, kernel_..., memopt,
std, v1), macros (NULL, INFINITY, errno), non-ASCII text, names thousands of
characters long, and tensor names that differ only in characters a sanitizer
drops ("a.b", "a-b", "a/b"). The graph computes the same function: only
names change (tensor names stay unique, as ONNX requires).

Run: PYTHONPATH=python /usr/bin/python3 -m memopt.testing.adversarial_names \\
       model.onnx -o hostile.onnx
"""
import argparse
import itertools
import sys

import onnx

# Identifiers that the generated code, its runtime or C++ own.
EMITTED = ["args", "arena", "arenas", "results", "train_step", "eval_step",
           "train_step_part1", "learning_rate", "kArgs", "kResults", "kArenas",
           "kProgram", "main", "memopt", "std", "rt", "v1", "v2", "v3", "x0",
           "in0", "out", "n", "i", "int64_t", "size_t",
           "kernel_fused_elementwise_l1_0_relu_1", "fused_elementwise_l1_0_relu_1",
           "conv", "relu", "constant_data", "concat_inputs", "seed",
           "memopt_onnx_model", "memopt_onnx_model_size", "threadIdx"]
KEYWORDS = ["class", "int", "return", "float", "void", "namespace", "template",
            "operator", "delete", "new", "this", "auto", "and", "not", "xor"]
MACROS = ["NULL", "EOF", "INFINITY", "NAN", "assert", "errno", "stdout",
          "major", "minor", "linux", "unix", "__global__", "_Reserved"]
ODD = ["", ".", "0", "1abc", "\u03a9mega", "\u540d\u524d", "caf\u00e9",
       "a" * 5000, "/" * 3000, "x" + "\u00e9" * 2000, "a.b", "a-b", "a b",
       "a/b", "a\\b", 'a"b', "a\nb", "a\tb", "a__b", "__x", "trailing_"]
HOSTILE = EMITTED + KEYWORDS + MACROS + ODD


def _node_names():
    """Node names: hostile ones, each twice in a row (duplicates), and
    PyTorch-like scope paths built from them."""
    for name in itertools.cycle(HOSTILE):
        yield name
        yield name
        yield "/" + name + "/" + name + ".0/Conv"


def _tensor_names(taken):
    """Unique, non-empty tensor names: each hostile name, then the same name
    with characters that sanitizers drop appended, so that several names
    sanitize alike."""
    droppable = ["", ".", "-", "/", " ", "..", "\u00e9", ":", "#"]
    for suffix in itertools.chain([""], (d * k for k in itertools.count(1) for d in droppable[1:])):
        for base in HOSTILE:
            name = base + suffix
            if name and name not in taken:
                taken.add(name)
                yield name


def rename(model):
    """Return a copy of `model` with every node and tensor renamed."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    names = {}
    fresh = _tensor_names(set())

    def new(name):
        if not name:
            return name  # an absent optional input stays absent
        if name not in names:
            names[name] = next(fresh)
        return names[name]

    for value in itertools.chain(graph.input, graph.output, graph.value_info):
        value.name = new(value.name)
    for init in graph.initializer:
        init.name = new(init.name)
    node_names = _node_names()
    for node in graph.node:
        node.name = next(node_names)
        node.input[:] = [new(n) for n in node.input]
        node.output[:] = [new(n) for n in node.output]
    return model


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args(argv)
    model = rename(onnx.load(args.model))
    onnx.checker.check_model(model)
    onnx.save(model, args.output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
