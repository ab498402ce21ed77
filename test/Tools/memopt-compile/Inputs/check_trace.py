"""Checks the Chrome trace of a one-step run against the generated step.

Usage: check_trace.py TRACE.json STEP.cpp

The trace must be valid JSON in Chrome's trace event format; every kernel
call of the step (each memopt::rt::traceKernel mark of STEP.cpp) must have
exactly one complete ("X") event with a timestamp and a duration, within
the step's own event.
"""
import json
import re
import sys

trace = json.load(open(sys.argv[1]))
# The training step only: the file also holds the evaluation function.
# A large step is split into part functions train_step_part1, ..., defined
# in the order train_step calls them.
source = open(sys.argv[2]).read()
marks = []
for header in re.finditer(r"^static void train_step(_part[0-9]+)?\(", source,
                          re.MULTILINE):
    end = source.find("\nstatic ", header.start() + 1)
    marks += re.findall(r'memopt::rt::traceKernel\("([^"]+)", "([^"]+)"\);',
                        source[header.start():end if end >= 0 else len(source)])
assert marks, "no trace marks in the generated step"

events = trace["traceEvents"]
for event in events:
    if event["ph"] == "X":
        assert event["ts"] >= 0 and event["dur"] >= 0, event
(step,) = [e for e in events if e["name"] == "step"]
assert any(e["name"] == "load" and e["cat"] == "data" for e in events)
kernels = [e for e in events if e["ph"] == "X" and
           e["cat"] not in ("step", "data", "io")]
assert [(e["name"], e["cat"]) for e in kernels] == marks, \
    (len(kernels), len(marks))
end = step["ts"] + step["dur"]
for e in kernels:
    assert e["args"]["step"] == 1, e
    # Microsecond rounding of the printed times may cross by 0.001.
    assert step["ts"] - 0.002 <= e["ts"] and \
        e["ts"] + e["dur"] <= end + 0.002, (e, step)
print("one event per kernel call: %d of %d kinds, inside step %d" %
      (len(kernels), len({c for _, c in marks}), step["args"]["step"]))
