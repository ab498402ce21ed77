#!/usr/bin/python3
"""memopt against the PyTorch a user would pick today: one command, one table.

    PYTHONPATH=python /usr/bin/python3 bench/vs_pytorch.py \\
        [--models resnet34-unet,unet] [--sizes 256,512,1024] [--threads N]

For each model (the ResNet-34 U-Net and the classic, milesial-style U-Net)
and size (1x1xSxS, batch 1; SGD momentum 0.9, MSE) it trains, each in a
fresh process: PyTorch eager, torch.utils.checkpoint per stage, autocast
bf16 and torch.compile with activation_memory_budget (bench/
torch_worker.py, under the newest torch from PyPI, installed into its own
virtual environment on first use; Debian's torch 1.13 when PyPI cannot
be reached), then memopt's training binary plain, --remat=sqrt,
--remat=auto at a budget halfway between those two predicted peaks, and
--amp=bf16 where memopt-compile has it. Every row's step time and
total peak memory is also given as a ratio to PyTorch eager of the same
model and size, measured in the same run. bench/README.md says what
each figure covers. The table goes to stdout and to --output.
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MIB = 1024.0 * 1024.0
TORCH_MODES = ("eager", "checkpoint", "bf16", "compile")
TORCH_LABELS = {"eager": "PyTorch eager",
                "checkpoint": "PyTorch checkpoint per stage",
                "bf16": "PyTorch autocast bf16",
                "compile": "PyTorch compile, budget %s"}
DEBIAN_PYTHON = "/usr/bin/python3"
# Timed steps per size after one warm-up step: a 1024x1024 step takes
# tens of seconds on 2 cores.
DEFAULT_STEPS = {256: 5, 512: 3, 1024: 2}


def log(message):
    print("[vs_pytorch %s] %s" % (time.strftime("%H:%M:%S"), message),
          file=sys.stderr, flush=True)


# --- The benchmark's torch --------------------------------------------------

def venv_torch(venv):
    """The venv's python if it imports torch and torchvision, else None."""
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        return None
    probe = subprocess.run([python, "-c", "import torch, torchvision"],
                           capture_output=True)
    return python if probe.returncode == 0 else None


def torch_python(args):
    """The interpreter that runs the PyTorch side and why it was chosen."""
    if args.torch_python:
        return args.torch_python, "--torch-python"
    python = venv_torch(args.venv)
    if python:
        return python, "PyPI, in " + args.venv
    log("installing the newest torch from PyPI into %s (about 5 GB with "
        "its CUDA libraries, which the PyPI wheel needs even on CPU)"
        % args.venv)
    try:
        subprocess.run([DEBIAN_PYTHON, "-m", "venv", "--clear", args.venv],
                       check=True)
        subprocess.run([os.path.join(args.venv, "bin", "pip"), "install",
                        "--quiet", "torch", "torchvision", "numpy"],
                       check=True, timeout=3600)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired,
            OSError) as error:
        log("PyPI install failed (%s): falling back to %s's torch"
            % (error, DEBIAN_PYTHON))
        return DEBIAN_PYTHON, "Debian fallback: PyPI unreachable"
    python = venv_torch(args.venv)
    if python:
        return python, "PyPI, in " + args.venv
    return DEBIAN_PYTHON, "Debian fallback: the PyPI torch does not import"


def omp_env(args):
    """The OpenMP settings both sides run under: the thread count and, if
    given, OMP_WAIT_POLICY (torch's bundled libgomp and memopt's, through
    oneDNN and the runtime's kernels, both read them)."""
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    if args.omp_wait_policy:
        env["OMP_WAIT_POLICY"] = args.omp_wait_policy
    return env


def torch_env(args):
    env = omp_env(args)
    path = os.path.join(ROOT, "python")
    old = os.environ.get("PYTHONPATH")
    env["PYTHONPATH"] = path + (os.pathsep + old if old else "")
    return env


def run_torch(args, python, spec):
    """One mode in a fresh process; its JSON result or {"na": why}."""
    proc = subprocess.run([python, os.path.join(HERE, "torch_worker.py"),
                           json.dumps(spec)], env=torch_env(args),
                          capture_output=True, text=True)
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        tail = (proc.stderr.strip().splitlines() or ["exit %d"
                                                     % proc.returncode])[-1]
        return {"na": "failed: " + tail[:120]}
    result = json.loads(lines[-1])
    if "na" in result:
        result["na"] = "n/a: " + result["na"]
    return result


def gpu_present(python):
    """True when nvidia-smi lists a GPU and the benchmark's torch sees it."""
    smi = shutil.which("nvidia-smi")
    if not smi or subprocess.run([smi, "-L"], capture_output=True,
                                 text=True).returncode != 0:
        return False
    probe = subprocess.run([python, "-c", "import torch; print(torch.cuda."
                            "is_available())"], capture_output=True,
                           text=True)
    return probe.stdout.strip() == "True"


# --- memopt ----------------------------------------------------------------

def memopt_compile(args, onnx_path, binary, report, target, extra):
    """Compiles (binary None: --plan-only); returns (compile report, None)
    or (None, error line)."""
    output = ["-o", binary] if binary else []
    cmd = [args.memopt_compile, onnx_path] + output + [
        "--batch=1", "--target=" + target, "--optimizer=sgd", "--lr=0.01",
        "--momentum=0.9", "--loss=mse", "--report=" + report] + extra
    # The binary runs on the compiler's OpenMP thread count.
    proc = subprocess.run(cmd, capture_output=True, text=True,
                          env=omp_env(args))
    if proc.returncode != 0:
        lines = (proc.stderr + proc.stdout).strip().splitlines()
        line = (lines or ["exit %d" % proc.returncode])[-1]
        return None, line.replace("memopt-compile: error: ", "")
    with open(report) as f:
        return json.load(f), None


def read_hwm(pid):
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM for process %d" % pid)


# Forks from a small interpreter: a child's ru_maxrss keeps the RSS of the
# process it was forked from (Linux carries the high-water across exec),
# and this script's own RSS (torch imported for the export) would swamp
# the binary's.
_BASELINE = """
import os, sys
pid = os.fork()
if pid == 0:
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.execv(sys.argv[1], [sys.argv[1], "--help"])
print(os.wait4(pid, 0)[2].ru_maxrss)
"""


def baseline_rss(binary):
    """The binary's resident set with its libraries loaded and no model or
    data: the peak RSS of `BIN --help` (at least the forking interpreter's,
    a few MiB)."""
    out = subprocess.run([DEBIAN_PYTHON, "-S", "-c", _BASELINE, binary],
                         capture_output=True, text=True, check=True).stdout
    return int(out.split()[-1]) * 1024


def run_memopt(args, binary, data, warmup, steps, work):
    """Runs warmup + steps steps. RSS is measured as for PyTorch: the
    high-water mark is reset once the warm-up steps are done and read when
    the last step's progress line appears (before --out is written)."""
    report = os.path.join(work, "run.json")
    total = warmup + steps
    proc = subprocess.Popen(
        [binary, "--data", data, "--steps", str(total), "--no-shuffle",
         "--log-every", "1", "--out", os.path.join(work, "trained.onnx"),
         "--report", report], stdout=subprocess.PIPE, text=True,
        env=omp_env(args))
    peak = None
    for line in proc.stdout:
        match = re.match(r"step (\d+)/", line)
        if match and int(match.group(1)) == warmup:
            with open("/proc/%d/clear_refs" % proc.pid, "w") as refs:
                refs.write("5")
        if match and int(match.group(1)) == total:
            peak = read_hwm(proc.pid)
    if proc.wait() != 0 or peak is None:
        return {"na": "training binary failed (exit %d)" % proc.returncode}
    with open(report) as f:
        run = json.load(f)
    # A CPU binary runs on the compiler's thread count (memopt_compile).
    if run["device"] == "cpu" and run["threads"] != args.threads:
        return {"na": "the binary ran on %d threads, not %d"
                % (run["threads"], args.threads)}
    seconds = run["step_seconds"][warmup:]
    return {"median_seconds": statistics.median(seconds), "seconds": seconds,
            "rss_before": baseline_rss(binary), "rss_peak": peak,
            "measured": run["measured_peak_bytes"],
            "driver": run.get("driver_peak_bytes")}


def memopt_variants(args):
    """(label, extra flags or a callable of the earlier reports, n/a)."""
    has_amp = "--amp" in subprocess.run([args.memopt_compile, "--help"],
                                        capture_output=True,
                                        text=True).stdout
    variants = [("memopt", [], None), ("memopt --remat=sqrt",
                                       ["--remat=sqrt"], None),
                ("memopt --remat=auto", "auto", None)]
    variants.append(("memopt --amp=bf16", ["--amp=bf16"], None) if has_amp
                    else ("memopt --amp=bf16", None,
                          "n/a: memopt-compile has no --amp on this build"))
    return variants


def auto_budget(reports):
    """Halfway between plain's and sqrt's predicted peaks."""
    plain = reports["memopt"]["predicted_peak_bytes"]
    sqrt = reports["memopt --remat=sqrt"]["predicted_peak_bytes"]
    return (plain + sqrt) // 2


def memopt_rows(args, onnx_path, data, steps, target, work):
    rows, reports = [], {}
    for label, extra, na in memopt_variants(args):
        row = {"run": label}
        rows.append(row)
        if na:
            row["na"] = na
            continue
        if extra == "auto":
            budget = auto_budget(reports)
            extra = ["--remat=auto", "--budget=%d" % budget]
        sub = os.path.join(work, target + "-" + re.sub(r"\W+", "_", label))
        os.makedirs(sub, exist_ok=True)
        binary = os.path.join(sub, "train")
        report, error = memopt_compile(args, onnx_path, binary,
                                       os.path.join(sub, "compile.json"),
                                       target, extra)
        smallest = re.search(r"--budget=(\d+)", error or "")
        if report is None and label.endswith("auto") and smallest:
            extra = ["--remat=auto", "--budget=" + smallest.group(1)]
            report, error = memopt_compile(args, onnx_path, binary,
                                           os.path.join(sub, "compile.json"),
                                           target, extra)
        if report is None:
            # A strategy memopt plans but does not build for this model:
            # its predicted peak, no run, and the compiler's reason.
            plan, _ = memopt_compile(args, onnx_path, None,
                                     os.path.join(sub, "plan.json"), target,
                                     extra + ["--plan-only"])
            row["na"] = ("plan only, no binary: " if plan else
                         "compile failed: ") + error[:160]
            if plan:
                row["predicted"] = plan["predicted_peak_bytes"]
            continue
        reports[label] = report
        if "--budget" in " ".join(extra):
            row["run"] = "memopt --remat=auto, budget %.0f MiB" % (
                int(extra[-1].split("=")[1]) / MIB)
        row["predicted"] = report["predicted_peak_bytes"]
        log("%s: %s" % (os.path.basename(onnx_path), row["run"]))
        row.update(run_memopt(args, binary, data, 1, steps, sub))
    return rows


# --- The table ---------------------------------------------------------------

def export(model, size, path):
    from memopt.export import export_model
    export_model(model, path, 1, (1, size, size))


def write_data(directory, size):
    rng = np.random.default_rng(0)
    for sub in ("inputs", "targets"):
        os.makedirs(os.path.join(directory, sub), exist_ok=True)
        np.save(os.path.join(directory, sub, "s0.npy"),
                rng.random((1, size, size), dtype=np.float32))


def mib(value):
    return "%.0f" % (value / MIB)


def ratio(value, reference):
    return "%.2f" % (value / reference) if value and reference else "n/a"


def cpu_cells(row, eager):
    """steps, s/step, vs eager, RSS MiB, vs eager, memopt measured (pred.)."""
    if "na" in row:
        return [row["na"], "", "", "", "",
                "(%s)" % mib(row["predicted"]) if "predicted" in row else ""]
    rss = row["rss_peak"] - row["rss_before"]
    eager_rss = (eager["rss_peak"] - eager["rss_before"]
                 if "na" not in eager else None)
    ours = "" if "measured" not in row else "%s (%s)" % (
        mib(row["measured"]), mib(row["predicted"]))
    if not ours and "predicted" in row:
        ours = "(%s)" % mib(row["predicted"])
    return [str(len(row["seconds"])), "%.3f" % row["median_seconds"],
            ratio(row["median_seconds"], eager.get("median_seconds")),
            mib(rss), ratio(rss, eager_rss), ours]


def gpu_cells(row, eager):
    """GPU s/step, vs eager, peak MiB, vs eager."""
    if row is None or "na" in row:
        return [(row or {}).get("na", "n/a"), "", "", ""]
    if "measured" in row:  # memopt: every cudaMalloc'd byte / driver
        peak, text = row["measured"], "%s / %s driver" % (
            mib(row["measured"]), mib(row["driver"] or 0))
    else:  # PyTorch: allocated / reserved
        peak, text = row["cuda_allocated_peak"], "%s / %s reserved" % (
            mib(row["cuda_allocated_peak"]), mib(row["cuda_reserved_peak"]))
    eager_peak = (eager or {}).get("cuda_allocated_peak")
    return ["%.4f" % row["median_seconds"],
            ratio(row["median_seconds"], (eager or {}).get("median_seconds")),
            text, ratio(peak, eager_peak)]


CPU_HEADER = ["model", "size", "run", "timed steps", "CPU s/step",
              "vs eager", "peak RSS MiB", "vs eager",
              "memopt measured (predicted) MiB"]
GPU_HEADER = ["GPU s/step", "vs eager", "GPU peak MiB", "vs eager"]


def table_lines(groups, gpu):
    header = CPU_HEADER + (GPU_HEADER if gpu else [])
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    for (model, size), (cpu_rows, gpu_rows) in groups:
        eager = cpu_rows[0]
        gpu_eager = gpu_rows[0] if gpu_rows else None
        for index, row in enumerate(cpu_rows):
            cells = [model, "%dx%d" % (size, size), row["run"]]
            cells += cpu_cells(row, eager)
            if gpu:
                cells += gpu_cells(gpu_rows[index] if gpu_rows else None,
                                   gpu_eager)
            lines.append("| " + " | ".join(cell.replace("|", "\\|")
                                           for cell in cells) + " |")
    return lines


def torch_rows(args, python, model, size, steps, device):
    rows = []
    for mode in args.torch_modes:
        label = TORCH_LABELS[mode]
        if mode == "compile":
            label %= args.budget
        log("%s %d: %s on %s" % (model, size, label, device))
        spec = {"mode": mode, "model": model, "size": size, "batch": 1,
                "device": device, "threads": args.threads, "lr": 0.01,
                "momentum": 0.9, "warmup": 1, "steps": steps,
                "budget": args.budget}
        row = run_torch(args, python, spec)
        row["run"] = label
        rows.append(row)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--memopt-compile", default=os.path.join(
        ROOT, "build", "bin", "memopt-compile"))
    parser.add_argument("--models", default="resnet34-unet,unet",
                        help="comma-separated (default: both U-Nets)")
    parser.add_argument("--sizes", default="256,512,1024",
                        help="comma-separated H = W (default 256,512,1024)")
    parser.add_argument("--steps", type=int,
                        help="timed steps after one warm-up step (default: "
                             "5 at 256, 3 at 512, 2 at 1024)")
    parser.add_argument("--threads", type=int, default=os.cpu_count(),
                        help="OpenMP threads of both sides (default: all "
                             "cores)")
    parser.add_argument("--omp-wait-policy", choices=("passive", "active"),
                        help="OMP_WAIT_POLICY for both sides (default: "
                             "unset, libgomp's own); passive on a machine "
                             "shared with other work, where spinning "
                             "threads wait for a core")
    parser.add_argument("--budget", type=float, default=0.5,
                        help="torch.compile's activation_memory_budget "
                             "(default 0.5)")
    parser.add_argument("--torch-modes", default=",".join(TORCH_MODES),
                        help="subset of " + ",".join(TORCH_MODES))
    parser.add_argument("--venv", default=os.path.join(
        os.path.expanduser("~"), ".cache", "memopt", "bench-venv"))
    parser.add_argument("--torch-python",
                        help="run the PyTorch side with this interpreter "
                             "instead of the venv")
    parser.add_argument("--output", default="vs_pytorch.md",
                        help="also write the table here (default "
                             "vs_pytorch.md)")
    parser.add_argument("--workdir", help="keep binaries and reports here")
    args = parser.parse_args(argv)
    args.torch_modes = args.torch_modes.split(",")
    if "eager" not in args.torch_modes[:1] or not set(
            args.torch_modes) <= set(TORCH_MODES):
        parser.error("--torch-modes: eager first (the ratios' reference), "
                     "then any of " + ",".join(TORCH_MODES))
    if not os.access(args.memopt_compile, os.X_OK):
        parser.error("no memopt-compile at %s: build it (bash scripts/"
                     "build.sh) or pass --memopt-compile"
                     % args.memopt_compile)

    start = time.perf_counter()
    python, origin = torch_python(args)
    version = subprocess.run([python, "-c", "import torch; print(torch."
                              "__version__)"], capture_output=True,
                             text=True).stdout.strip()
    gpu = gpu_present(python)
    log("torch %s (%s); GPU: %s" % (version, origin, gpu))
    work = args.workdir or tempfile.mkdtemp(prefix="memopt-vs-pytorch-")
    os.makedirs(work, exist_ok=True)
    groups, onnx_mib = [], {}
    args.onnx_mib = onnx_mib
    try:
        for size in (int(s) for s in args.sizes.split(",")):
            for model in args.models.split(","):
                steps = args.steps or DEFAULT_STEPS.get(size, 3)
                case = os.path.join(work, "%s-%d" % (model, size))
                os.makedirs(case, exist_ok=True)
                onnx_path = os.path.join(case, "model.onnx")
                export(model, size, onnx_path)
                data = os.path.join(case, "data")
                write_data(data, size)
                cpu_rows = torch_rows(args, python, model, size, steps,
                                      "cpu")
                cpu_rows += memopt_rows(args, onnx_path, data, steps, "cpu",
                                        case)
                gpu_rows = None
                if gpu:
                    gpu_rows = torch_rows(args, python, model, size, steps,
                                          "cuda")
                    gpu_rows += memopt_rows(args, onnx_path, data, steps,
                                            "cuda", case)
                onnx_mib[model] = os.path.getsize(onnx_path) / MIB
                groups.append(((model, size), (cpu_rows, gpu_rows)))
                write_table(args, groups, gpu, version, origin,
                            time.perf_counter() - start)
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    print("\n".join(render(args, groups, gpu, version, origin,
                           time.perf_counter() - start)))
    return 0


def render(args, groups, gpu, version, origin, seconds):
    head = ["memopt vs torch %s (%s); %d threads (torch.set_num_threads, "
            "OMP_NUM_THREADS), OMP_WAIT_POLICY %s; %s, %s; %s UTC; batch 1, "
            "SGD momentum 0.9, MSE; one warm-up step; %s; total %.1f min"
            % (version, origin, args.threads,
               args.omp_wait_policy or "unset", platform.node(),
               platform.processor() or platform.machine(),
               datetime.datetime.utcnow().strftime("%Y-%m-%d %H:%M"),
               "GPU columns: yes" if gpu else "no GPU: CPU columns only",
               seconds / 60.0), ""]
    notes = ["", "Peak RSS: VmHWM over the timed steps minus the resident "
             "set before the model and data exist (PyTorch: after `import "
             "torch`; memopt: `BIN --help`), one fresh process per row. "
             "memopt's reads its initial weights from its weights file "
             "(%s) before the first step and frees the parsed model; what "
             "of it the heap keeps is counted, measured_peak_bytes (every "
             "byte the step's tensors need) does not count it; "
             "bench/README.md says what else differs."
             % ", ".join("%s %.0f MiB" % item
                         for item in sorted(args.onnx_mib.items()))]
    return head + table_lines(groups, gpu) + notes


def write_table(args, groups, gpu, version, origin, seconds):
    with open(args.output, "w") as f:
        f.write("\n".join(render(args, groups, gpu, version, origin,
                                 seconds)) + "\n")


if __name__ == "__main__":
    sys.path.insert(0, os.path.join(ROOT, "python"))
    sys.exit(main())
