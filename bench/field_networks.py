#!/usr/bin/python3
"""Field networks: how far memopt's memory passes lower the planned peak
of segmentation_models_pytorch (smp) networks.

Per network and square size (smp `ARCH(encoder_name=ENCODER,
encoder_weights=None, in_channels=1, classes=1)`, batch `--batch`, fp32,
SGD, MSE; all `memopt-compile --plan-only --report`), one row per plan:

- plain: nothing traded for memory;
- each of `--techniques` at the smallest budget it reaches: asked with
  `--budget=1`, memopt-compile fails naming the smallest peak it reaches,
  `(--budget=N)`, and the plan at N is the technique's floor. remat:
  `--remat=auto`; remat+offload: `--remat=auto --offload=auto`; +lean:
  with `--workspaces=lean` (backward convolutions may run on their lean
  workspace; a memopt-compile that refuses it gives "n/a: <its reason>");

with the predicted peak, its ratio to plain's, what lies outside the
arena (weights, optimizer state, inputs and outputs: no plan lowers it),
the pinned host memory offload uses (on --target=cpu the same RAM: peak +
host is what the process holds), the predicted overhead (step time over
the same step's with nothing traded) and what sets the peak: the
report's `peak_op` (op, ONNX node), its largest live buffer (bytes,
category, whose) and the workspace bytes live there.

smp is installed on first use into `--venv` (default
~/.cache/memopt/field-venv), a venv that sees the torch of
`--torch-python` (default: the newest PyPI torch of
~/.cache/memopt/torch-venv, which scripts/install-deps.sh makes, else
Debian's /usr/bin/python3) through a .pth file and gets smp and the
dependencies that torch lacks (timm, huggingface_hub, safetensors, ...)
from PyPI, torch and torchvision pinned to the installed ones. No
network: one line says so, exit 1. Each network is exported in training
mode by a worker in that venv (memopt.onnx_export.export_training):
first with the TorchScript exporter (dynamo=False, opset 17,
TrainingMode.TRAINING, no constant folding), and where that fails with
the torch.export one (optimize=False; `--exporters` sets the order), the
row then naming it; a network that fails to build or export with every
exporter gets a row with each exporter's error line.

    /usr/bin/python3 bench/field_networks.py \\
        [--models Unet:resnet34,Unet:mobilenet_v2,...] [--sizes 64,256] \\
        [--batch 1] [--target cpu] [--device cpu] [--timeout 900] \\
        [--memopt-compile build/bin/memopt-compile] [--workdir DIR] \\
        [--output field.md] [--venv DIR] [--torch-python PY] \\
        [--techniques remat,remat+lean,remat+offload,remat+offload+lean] \\
        [--exporters torchscript,torch.export]
"""
import argparse
import json
import os
import platform
import re
import subprocess
import sys
import tempfile
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(BENCH)
DEFAULT_MODELS = ("Unet:resnet34,Unet:mobilenet_v2,Linknet:resnet34,"
                  "MAnet:resnet34,FPN:resnet34,UnetPlusPlus:resnet34,"
                  "DeepLabV3Plus:resnet34,PSPNet:resnet34")
TORCH_VENV_PYTHON = os.path.join(os.path.expanduser("~"), ".cache", "memopt",
                                 "torch-venv", "bin", "python")
DEBIAN_PYTHON = "/usr/bin/python3"
DEFAULT_VENV = os.path.join(os.path.expanduser("~"), ".cache", "memopt",
                            "field-venv")
COMMON = ["--plan-only", "--loss=mse", "--optimizer=sgd", "--lr=0.01"]
TECHNIQUES = {
    "remat": ["--remat=auto"],
    "remat+lean": ["--remat=auto", "--workspaces=lean"],
    "remat+offload": ["--remat=auto", "--offload=auto"],
    "remat+offload+lean": ["--remat=auto", "--offload=auto",
                           "--workspaces=lean"],
}
# The plan at the budget a failed plan names may itself name a slightly
# different one (the greedy is not monotone in its budget): retries.
FLOOR_TRIES = 4
MIB = 2 ** 20
# At least the smp whose encoders no longer need `pretrainedmodels`: with
# torch pinned, pip would otherwise settle on 0.0.2, which has no torch
# requirement and does not import.
SMP_REQUIREMENT = "segmentation-models-pytorch>=0.4"


def log(message):
    print("field_networks: " + message, file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# The export worker (runs in the venv: `--export-worker SPEC`).
# ---------------------------------------------------------------------------

def export_worker(spec):
    """Builds spec's smp network and exports it at each size; prints one
    JSON object: versions, parameters, per size the file or the error."""
    import torch
    import segmentation_models_pytorch as smp
    from memopt.onnx_export import export_training

    result = {"torch": torch.__version__, "smp": smp.__version__,
              "sizes": {}}
    try:
        torch.manual_seed(0)
        model = getattr(smp, spec["arch"])(
            encoder_name=spec["encoder"], encoder_weights=None,
            in_channels=1, classes=1)
        result["params"] = sum(p.numel() for p in model.parameters())
    except Exception as error:  # noqa: BLE001 - reported in the table
        result["error"] = one_line(error)
        print(json.dumps(result))
        return
    for size in spec["sizes"]:
        path = os.path.join(spec["workdir"], "%s-%d-b%d.onnx" % (
            spec["name"], size, spec["batch"]))
        errors = []
        for exporter in spec["exporters"]:
            start = time.monotonic()
            try:
                x = torch.randn(spec["batch"], 1, size, size)
                export_training(model, x, path, exporter=exporter)
                result["sizes"][str(size)] = {
                    "path": path, "exporter": exporter,
                    "seconds": time.monotonic() - start}
                break
            except Exception as error:  # noqa: BLE001 - reported
                errors.append((exporter, one_line(error)))
        else:
            result["sizes"][str(size)] = {"error": "; ".join(
                "%s: %s" % (", ".join(names), message)
                for message, names in group_errors(errors))}
    print(json.dumps(result))


def group_errors(errors):
    """[(exporter, message)] as [(message, [exporters])], in order: two
    exporters that fail alike (a forward that fails) are named once."""
    groups = {}
    for exporter, message in errors:
        groups.setdefault(message, []).append(exporter)
    return list(groups.items())


def one_line(error, limit=300):
    """An exception as one line: its type and the first non-empty line of
    its message (torch's export errors put the reason first, the graph
    after it), cut at `limit` characters. torch.export's own error wraps
    the reason: the innermost cause is named instead."""
    while error.__cause__ is not None:
        error = error.__cause__
    message = re.sub(r"\x1b\[[0-9;]*m", "", str(error))
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    text = "%s: %s" % (type(error).__name__, lines[0] if lines else "")
    # torch's exporter asks for a pull request and names the graph value.
    text = re.split(r" Please feel free to request support| +\[Caused by",
                    text)[0]
    return text if len(text) <= limit else text[:limit - 3] + "..."


# ---------------------------------------------------------------------------
# The venv with smp.
# ---------------------------------------------------------------------------

def probe(python, code):
    """`python -c code`'s stdout, or None when it fails."""
    try:
        done = subprocess.run([python, "-c", code], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def torch_python(args):
    if args.torch_python:
        return args.torch_python
    if probe(TORCH_VENV_PYTHON, "import torch, torchvision") is not None:
        return TORCH_VENV_PYTHON
    return DEBIAN_PYTHON


def field_python(args):
    """The venv's python, smp installed into it on first use (exit 1 with
    one line when that fails)."""
    python = os.path.join(args.venv, "bin", "python")
    if probe(python, "import torch, segmentation_models_pytorch") is not None:
        return python
    base = torch_python(args)
    # The distributions' versions, as pip sees them (torch.__version__
    # carries a local label, +cu132, that the wheel's metadata has not).
    found = probe(base, "import os, torch, torchvision; "
                  "from importlib.metadata import version; "
                  "print(os.path.dirname(os.path.dirname(torch.__file__))); "
                  "print(version('torch')); print(version('torchvision'))")
    if found is None:
        raise SystemExit("field_networks: error: %s does not import torch "
                         "and torchvision (give --torch-python)" % base)
    site, torch_version, vision_version = found.split()
    log("installing segmentation-models-pytorch into %s over %s's torch %s "
        "(%s)" % (args.venv, base, torch_version, site))
    try:
        subprocess.run([base, "-m", "venv", "--clear", args.venv],
                       check=True, stdout=subprocess.DEVNULL)
        purelib = subprocess.run(
            [python, "-c", "import sysconfig; "
             "print(sysconfig.get_paths()['purelib'])"],
            check=True, stdout=subprocess.PIPE, text=True).stdout.strip()
        # The torch interpreter's packages after the venv's own: pip sees
        # torch as installed, so smp's dependencies do not pull another.
        with open(os.path.join(purelib, "memopt-torch.pth"), "w") as f:
            f.write(site + "\n")
        constraints = os.path.join(args.venv, "constraints.txt")
        with open(constraints, "w") as f:
            f.write("torch==%s\ntorchvision==%s\n"
                    % (torch_version, vision_version))
        done = subprocess.run(
            [python, "-m", "pip", "install", "--quiet",
             "--disable-pip-version-check", "-c", constraints,
             SMP_REQUIREMENT],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            timeout=1800)
    except (OSError, subprocess.CalledProcessError,
            subprocess.TimeoutExpired) as error:
        raise SystemExit("field_networks: error: could not make the venv %s: "
                         "%s" % (args.venv, one_line(error)))
    if done.returncode:
        lines = [line for line in done.stdout.splitlines() if line.strip()]
        raise SystemExit(
            "field_networks: error: pip could not install "
            "segmentation-models-pytorch into %s (PyPI unreachable?): %s"
            % (args.venv, lines[-1] if lines else "exit %d" % done.returncode))
    if probe(python, "import torch, segmentation_models_pytorch") is None:
        raise SystemExit("field_networks: error: segmentation_models_pytorch "
                         "does not import in %s after its install" % args.venv)
    return python


def export(args, python, name, arch, encoder, sizes):
    spec = {"name": name, "arch": arch, "encoder": encoder, "sizes": sizes,
            "batch": args.batch, "workdir": args.workdir,
            "exporters": args.exporters.split(",")}
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [
        os.path.join(REPO, "python"), os.environ.get("PYTHONPATH")])))
    try:
        done = subprocess.run([python, os.path.abspath(__file__),
                               "--export-worker", json.dumps(spec)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, env=env, timeout=args.timeout)
    except subprocess.TimeoutExpired:
        return {"error": "export timed out after %d s" % args.timeout}
    if done.returncode:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        return {"error": lines[-1] if lines else "exit %d" % done.returncode}
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---------------------------------------------------------------------------
# memopt-compile.
# ---------------------------------------------------------------------------

def reason(stderr):
    """memopt-compile's error line without its prefixes."""
    lines = [line for line in stderr.splitlines() if "error" in line] or \
        [line for line in stderr.splitlines() if line.strip()]
    if not lines:
        return "no message"
    line = lines[0]
    for prefix in ("memopt-compile: error: ", "error: "):
        if prefix in line:
            line = line.split(prefix, 1)[1]
    return line.strip()


def plan(args, onnx_path, flags, budget=None):
    """{report, seconds, refused, smallest}: the report when it planned,
    else `smallest` (the budget it names) or `refused` (why not)."""
    report_path = onnx_path[:-len(".onnx")] + ".report.json"
    if os.path.exists(report_path):
        os.remove(report_path)
    command = ([args.memopt_compile, onnx_path] + COMMON
               + ["--target=" + args.target, "--device=" + args.device,
                  "--report=" + report_path] + flags)
    if budget is not None:
        command.append("--budget=%d" % budget)
    start = time.monotonic()
    result = {"report": None, "refused": None, "smallest": None}
    try:
        done = subprocess.run(command, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True,
                              timeout=args.timeout)
    except subprocess.TimeoutExpired:
        result["refused"] = "timed out after %d s" % args.timeout
        result["seconds"] = time.monotonic() - start
        return result
    except OSError as error:  # a memopt-compile being rebuilt under us
        result["refused"] = "memopt-compile did not run: %s" % error
        result["seconds"] = time.monotonic() - start
        return result
    result["seconds"] = time.monotonic() - start
    if done.returncode == 0:
        with open(report_path) as f:
            result["report"] = json.load(f)
        return result
    smallest = re.search(r"\(--budget=(\d+)", done.stderr)
    if smallest:
        result["smallest"] = int(smallest.group(1))
    else:
        result["refused"] = reason(done.stderr)
    return result


def floor(args, onnx_path, flags):
    """The plan at the smallest budget `flags` reach: {report, budget,
    seconds} or {refused, seconds}."""
    seconds = 0.0
    budget = 1
    for _ in range(FLOOR_TRIES):
        result = plan(args, onnx_path, flags, budget)
        seconds += result["seconds"]
        if result["report"] is not None:
            return {"report": result["report"], "budget": budget,
                    "seconds": seconds}
        if result["refused"]:
            return {"refused": result["refused"], "seconds": seconds}
        if result["smallest"] <= budget:
            break
        budget = result["smallest"]
    return {"refused": "no plan at the smallest budget it names (%d)"
                       % budget, "seconds": seconds}


# ---------------------------------------------------------------------------
# The table.
# ---------------------------------------------------------------------------

def mib(value):
    return "%.1f" % (value / MIB)


def floor_op(report):
    """What holds the peak: `op` (onnx_node): the largest live buffer and
    the workspace bytes live there."""
    peak = report.get("peak_op") or {}
    if not peak:
        return "-"
    live = peak.get("live") or []
    text = "`%s` (%s)" % (peak.get("op", "?"), peak.get("onnx_node") or "-")
    if live:
        top = max(live, key=lambda entry: entry.get("bytes", 0))
        own = (top.get("op") == peak.get("op")
               and top.get("value") == peak.get("onnx_node"))
        text += "; largest live: %s MiB %s, %s%s" % (
            mib(top.get("bytes", 0)), top.get("category", "?"),
            "its own" if own else "of `%s` (%s)" % (
                top.get("op", "?"), top.get("value") or "-"),
            ", recomputed" if top.get("recomputed") else "")
        workspace = sum(entry.get("bytes", 0) for entry in live
                        if entry.get("category") == "workspace")
        if workspace:
            text += "; workspaces %s of %s MiB live" % (
                mib(workspace), mib(report.get("activation_peak_bytes", 0)))
    return text


def overhead(report):
    """The predicted step time over the same step's with nothing traded
    for memory (recomputation, transfer stalls, lean workspaces)."""
    baseline = report.get("baseline_predicted_seconds")
    total = (report.get("predicted_seconds") or {}).get("total")
    if not baseline or total is None:
        return "-"
    return "%+.1f %%" % (100 * (total / baseline - 1))


def host_mib(report):
    return mib(report.get("host_bytes", 0))


def row_lines(row, techniques):
    """The markdown rows of one network at one size: its plain plan and
    each technique's floor."""
    head = [row["name"], "%dx%d" % (row["size"], row["size"]),
            "%.1f M" % (row["params"] / 1e6) if row.get("params") else "-"]
    blank = [""] * (len(COLUMNS) - len(head) - 2)
    if row.get("error"):
        return [head + ["-", "n/a: " + row["error"]] + blank]
    plain = row["plain"]
    if plain.get("refused"):
        return [head + ["plain", "n/a: memopt-compile: " + plain["refused"]]
                + blank]
    base = plain["report"]["predicted_peak_bytes"]
    lines = []
    for technique in ["plain"] + techniques:
        result = plain if technique == "plain" else row[technique]
        if result.get("refused"):
            lines.append(head + [technique, "n/a: " + result["refused"]]
                         + blank[:-1] + ["%.1f" % result["seconds"]])
            continue
        report = result["report"]
        peak = report["predicted_peak_bytes"]
        host = report.get("host_bytes", 0)
        lines.append(head + [
            technique, mib(peak), "%.2f" % (peak / base),
            # What no plan of the step's activations lowers: weights,
            # optimizer state, inputs and outputs.
            mib(peak - report["arena_bytes"]), mib(host), mib(peak + host),
            overhead(report), floor_op(report), "%.1f" % result["seconds"]])
    return lines


COLUMNS = ("network", "size", "params", "plan", "peak MiB", "vs plain",
           "outside the arena MiB", "host MiB", "peak + host MiB",
           "overhead", "what sets the peak (peak_op)", "plan s")


def machine():
    model = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d cores" % (model, os.cpu_count() or 0)


def memopt_version(compiler):
    """The commit of the checkout memopt-compile was built from, if any,
    `-dirty` when that checkout has changes now."""
    checkout = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(compiler))))
    try:
        done = subprocess.run(["git", "-C", checkout, "describe", "--always",
                               "--dirty", "--abbrev=7"],
                              stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    except OSError:
        done = None
    built = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(
        os.path.getmtime(compiler)))
    return "%s (%s, built %s)" % (
        done and done.stdout.strip() or "?", compiler, built)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", default=DEFAULT_MODELS,
                        help="ARCH:ENCODER,... (smp class and encoder names)")
    parser.add_argument("--sizes", default="64,256",
                        help="square input sides, comma-separated")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--target", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--device", default="cpu",
                        help="memopt-compile's --device (needs a host link "
                        "for --offload=auto; cpu has one)")
    parser.add_argument("--memopt-compile",
                        default=os.path.join(REPO, "build", "bin",
                                             "memopt-compile"))
    parser.add_argument("--timeout", type=int, default=900,
                        help="seconds per compile (and per network export)")
    parser.add_argument("--workdir", help="keep the exports and reports here")
    parser.add_argument("--output", help="also write the table here")
    parser.add_argument("--venv", default=DEFAULT_VENV,
                        help="the venv smp is installed into")
    parser.add_argument("--torch-python",
                        help="the interpreter whose torch the venv uses "
                        "(default: ~/.cache/memopt/torch-venv's, else "
                        "Debian's)")
    parser.add_argument("--techniques", default=",".join(TECHNIQUES),
                        help="the floors to plan, of %s" % ", ".join(
                            TECHNIQUES))
    parser.add_argument("--exporters", default="torchscript,torch.export",
                        help="memopt.onnx_export's exporters to try, in "
                        "order, until one exports the network")
    parser.add_argument("--export-worker", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.export_worker:
        export_worker(json.loads(args.export_worker))
        return
    if not os.access(args.memopt_compile, os.X_OK):
        raise SystemExit("field_networks: error: no memopt-compile at %s "
                         "(build it, or give --memopt-compile)"
                         % args.memopt_compile)
    networks = []
    for item in args.models.split(","):
        arch, _, encoder = item.strip().partition(":")
        if not arch or not encoder:
            raise SystemExit("field_networks: error: --models takes "
                             "ARCH:ENCODER items, got %r" % item)
        networks.append((arch, encoder))
    sizes = [int(s) for s in args.sizes.split(",")]
    exporters = args.exporters.split(",")
    techniques = args.techniques.split(",")
    for technique in techniques:
        if technique not in TECHNIQUES:
            raise SystemExit("field_networks: error: --techniques takes %s, "
                             "got %r" % (", ".join(TECHNIQUES), technique))
    args.workdir = os.path.abspath(args.workdir or tempfile.mkdtemp(
        prefix="field-networks-"))
    os.makedirs(args.workdir, exist_ok=True)
    python = field_python(args)
    started = time.monotonic()

    rows, versions = [], {}
    for arch, encoder in networks:
        name = "%s-%s" % (arch.lower(), encoder.lower().replace("_", "-"))
        log("%s(%s): exporting at %s" % (arch, encoder, args.sizes))
        exported = export(args, python, name, arch, encoder, sizes)
        for package in ("torch", "smp"):
            if exported.get(package):
                versions.setdefault(package, exported[package])
        for size in sizes:
            row = {"name": "%s(%s)" % (arch, encoder), "size": size,
                   "params": exported.get("params")}
            rows.append(row)
            done = exported.get("sizes", {}).get(str(size), {})
            error = exported.get("error") or done.get("error")
            if error:
                row["error"] = "export: " + error
                log("%s at %d: %s" % (row["name"], size, row["error"]))
                continue
            if done["exporter"] != exporters[0]:
                row["name"] += " [%s]" % done["exporter"]
            row["plain"] = plan(args, done["path"], [])
            if row["plain"].get("refused"):
                log("%s at %d: plain: %s" % (row["name"], size,
                                             row["plain"]["refused"]))
                continue
            for technique in techniques:
                row[technique] = floor(args, done["path"],
                                       TECHNIQUES[technique])
            for line in row_lines(row, techniques):
                log("%s at %d: %s" % (row["name"], size, " | ".join(
                    c for c in line[3:10] if c)))

    lines = ["smp networks, memopt-compile --plan-only --target=%s "
             "--device=%s --loss=mse --optimizer=sgd, batch %d, fp32; torch "
             "%s, segmentation_models_pytorch %s (exported by %s%s); "
             "memopt %s; %s; %.0f s"
             % (args.target, args.device, args.batch, versions.get("torch"),
                versions.get("smp"), exporters[0],
                "".join(", else %s [named in the row]" % e
                        for e in exporters[1:]),
                memopt_version(args.memopt_compile), machine(),
                time.monotonic() - started),
             "", "| " + " | ".join(COLUMNS) + " |",
             "|" + "---|" * len(COLUMNS)]
    lines += ["| " + " | ".join(cells) + " |" for row in rows
              for cells in row_lines(row, techniques)]
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
