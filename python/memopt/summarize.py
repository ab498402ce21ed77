#!/usr/bin/python3
"""Print a human-readable summary of a tg-dialect module written by
`memopt-translate --import-onnx` or by memopt-opt (pretty form, not
-mlir-print-op-generic).

The text is parsed with regular expressions only, so that the summary needs
neither the MLIR Python bindings nor a build of memopt.

Run (from the repository root): PYTHONPATH=python /usr/bin/python3 -m memopt.summarize \\
       out/resnet34-unet.mlir [--import-seconds 0.14]
"""
import argparse
import collections
import math
import re
import sys

ELEMENT_BYTES = {"f32": 4, "f16": 2, "bf16": 2}

# `%arg3: tensor<64xf32> {tg.param = "encoder.bn1.bias"}` in the signature.
ARGUMENT = re.compile(
    r'%[\w$.-]+:\s*tensor<([^>]*)>\s*\{(tg\.(?:input|param|state))\s*=\s*"([^"]*)"')
# `tensor<1x1x512x512xf32> {tg.output = "output"}` in the result list.
RESULT = re.compile(r'tensor<([^>]*)>\s*\{tg\.output\s*=\s*"([^"]*)"')
# An op at the start of a line, after its results if it has any.
OPERATION = re.compile(r'^\s*(?:%[^=]*=\s*)?(tg\.[a-z0-9_]+)\b')
MODULE_ATTR = re.compile(r'(tg\.onnx_\w+)\s*=\s*("[^"]*"|\d+)')


def parse_tensor(text):
    """'1x64x3x3xf32' -> ([1, 64, 3, 3], 'f32'); 'f32' -> ([], 'f32')."""
    *dims, element = text.split("x")
    return [int(d) for d in dims], element


def summarize(text):
    """Counts of the module's arguments by role, of its ops by name, its
    input/output shapes and ONNX provenance, as a dict."""
    signature = re.search(r"func\.func\s+@\w+\((.*?)\)\s*(?:->\s*(.*?))?\{\s*$",
                          text, re.MULTILINE | re.DOTALL)
    if not signature:
        raise ValueError("no func.func found (the generic op form is not "
                         "supported)")
    roles = {"tg.input": [], "tg.param": [], "tg.state": []}
    for tensor, role, name in ARGUMENT.findall(signature.group(1)):
        roles[role].append((name, *parse_tensor(tensor)))
    outputs = [(name, *parse_tensor(tensor))
               for tensor, name in RESULT.findall(signature.group(2) or "")]
    ops = collections.Counter()
    for line in text[signature.end():].splitlines():
        match = OPERATION.match(line)
        if match:
            ops[match.group(1)] += 1
    module = {key: value.strip('"') for key, value in MODULE_ATTR.findall(text)}
    return {"inputs": roles["tg.input"], "params": roles["tg.param"],
            "state": roles["tg.state"], "outputs": outputs, "ops": ops,
            "module": module}


def _shape(dims, element):
    return "x".join(str(d) for d in dims + [element]) if dims else element


def _tensor_totals(tensors):
    elements = sum(math.prod(dims) for _, dims, _ in tensors)
    size = sum(math.prod(dims) * ELEMENT_BYTES.get(element, 4)
               for _, dims, element in tensors)
    return elements, size


def format_summary(path, info, import_seconds=None):
    lines = [f"module       {path}"]
    module = info["module"]
    if module:
        source = module.get("tg.onnx_model", "?")
        details = [f"opset {module['tg.onnx_opset']}"] if "tg.onnx_opset" in module else []
        if "tg.onnx_producer" in module:
            details.append(module["tg.onnx_producer"])
        lines.append(f"imported     from {source} ({', '.join(details)})")
    for label, key in (("input", "inputs"), ("output", "outputs")):
        for name, dims, element in info[key]:
            lines.append(f"{label:<12} {name}: {_shape(dims, element)}")
    for label, key in (("parameters", "params"), ("state", "state")):
        elements, size = _tensor_totals(info[key])
        lines.append(f"{label:<12} {len(info[key])} tensors, {elements:,} elements "
                     f"({size / 2**20:.1f} MiB)")
    ops = info["ops"]
    lines.append(f"tg ops       {sum(ops.values())} in total")
    width = max((len(name) for name in ops), default=0)
    for name, count in sorted(ops.items(), key=lambda item: (-item[1], item[0])):
        lines.append(f"  {name:<{width}}  {count:>4}")
    if import_seconds is not None:
        lines.append(f"import time  {import_seconds:.2f} s")
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mlir", help="tg-dialect module (.mlir text)")
    parser.add_argument("--import-seconds", type=float,
                        help="wall time of the import, printed with the summary")
    args = parser.parse_args(argv)
    try:
        with open(args.mlir, encoding="utf-8") as f:
            text = f.read()
        info = summarize(text)
    except (OSError, ValueError) as e:
        print(f"error: {args.mlir}: {e}", file=sys.stderr)
        return 1
    print(format_summary(args.mlir, info, args.import_seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
