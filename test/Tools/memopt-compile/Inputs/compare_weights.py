#!/usr/bin/python3
"""Compares the initializers (trained weights and running statistics) of two
ONNX models: prints the largest absolute difference, the largest relative
one (|a - b| / max(|a|, |b|) over the elements where either exceeds 1e-6)
and whether the absolute one is within BOUND.

usage: compare_weights.py A.onnx B.onnx BOUND [NAME_PREFIX]
Only initializers whose name starts with NAME_PREFIX are compared (all
without it).
"""
import sys

import numpy
import onnx
from onnx import numpy_helper


def weights(path, prefix):
    model = onnx.load(path)
    return {t.name: numpy_helper.to_array(t).astype(numpy.float64)
            for t in model.graph.initializer
            if t.name.startswith(prefix) and t.data_type == onnx.TensorProto.FLOAT
            and numpy.prod(t.dims) > 0}


a_path, b_path, bound = sys.argv[1], sys.argv[2], float(sys.argv[3])
prefix = sys.argv[4] if len(sys.argv) > 4 else ""
a, b = weights(a_path, prefix), weights(b_path, prefix)
if a.keys() != b.keys() or not a:
    sys.exit("different or no initializers: %s vs %s" % (sorted(a), sorted(b)))
max_abs = max_rel = 0.0
for name in a:
    diff = numpy.abs(a[name] - b[name])
    scale = numpy.maximum(numpy.abs(a[name]), numpy.abs(b[name]))
    max_abs = max(max_abs, float(diff.max()))
    big = scale > 1e-6
    if big.any():
        max_rel = max(max_rel, float((diff[big] / scale[big]).max()))
print("%d tensors: max abs %.3g, max rel %.3g, within %g: %s"
      % (len(a), max_abs, max_rel, bound, max_abs <= bound))
