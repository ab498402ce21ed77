#!/usr/bin/python3
"""Compares compile reports of one model under --amp=none, bf16, fp16 and
bf16 with the convolutions moved to fp32, then of --amp=none and bf16 on the
CUDA target (test/Tools/memopt-compile/amp.test)."""
import json
import sys

none, bf16, fp16, fp32_convs, cuda_none, cuda_bf16 = (
    json.load(open(path)) for path in sys.argv[1:7])
print("amp", *(r["strategy"]["amp"] for r in (none, bf16, fp16, fp32_convs)))
# oneDNN 2.6 has no f16 convolutions on the CPU: they run on f32 copies in
# the workspace, so fp16's peak is bf16's or above; with loss scaling
# fp16 also holds every weight gradient until the updates.
print("bf16 <= fp16:",
      bf16["activation_peak_bytes"] <= fp16["activation_peak_bytes"])
print("weights equal:",
      len({r["persistent_bytes"]["weights"] for r in (none, bf16, fp16)}) == 1)
# On the CPU the comparison depends on oneDNN's bf16 kernels (on AVX2 they
# convert through f32 workspaces larger than the saving); cuDNN's do not.
print("bf16 activation peak below fp32's for target cuda:",
      cuda_bf16["activation_peak_bytes"] < cuda_none["activation_peak_bytes"])
print("fp32 convolutions = fp32 activation peak:",
      fp32_convs["activation_peak_bytes"] == none["activation_peak_bytes"])
