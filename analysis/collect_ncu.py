"""Measure, on a GPU machine, the Nsight Compute counters the analysis models predict.

    python -m analysis.collect_ncu [--out analysis/results/ncu_h100.json] [--kernels a,b] [--no-probes]

For every catalog kernel (host pipelines excluded: their kernel is vector_add_grid_stride)
at its simulator size, runs

    ncu --csv --page raw --metrics <METRICS> -k regex:^ENTRY$ --launch-count 1 \\
        python3 -m kernels.run NAME --size N --repeats 1

so exactly one launch is profiled (the runner's first, verified launch; its warm-ups and
timed repeats run unprofiled), parses the CSV and writes one JSON file. The runner loads
the cubin NVRTC makes from the same source and flags as the PTX the simulator runs, so
the profiled binary is the one the models read. The size is the
simulator's, so `analysis.compare` predicts every block (no sampling) for the same launch.

Probes: one more ncu run over small CuPy kernels with chosen block sizes and shared-memory
footprints (`--probe-child`), to pin down which shared-memory carveout the driver picks and
so ncu's shared-memory occupancy limit; the rule lives in
analysis.models.occupancy.driver_carveout. The metrics are those the registered models
declare (analysis.registry). This file never imports pycuda: the runner does, in its own
process, and the probes use CuPy.
"""
from __future__ import annotations

import argparse
import csv
import glob
import io
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from cudasim.console import Parser, fail

from . import registry

RESULTS = Path(__file__).with_name("results")

METRICS = [m.name for m in registry.metrics()]  # predicted, and measured beside them for context

# (threads per block, static shared bytes, dynamic shared bytes): the carveout probes.
PROBES = [(256, 1024, 0), (32, 8192, 0), (256, 0, 0), (32, 0, 0), (128, 0, 0), (1024, 0, 0), (64, 0, 0),
          (128, 4096, 0), (64, 16384, 0), (512, 12288, 0), (128, 40960, 0), (256, 24576, 0), (1024, 2048, 0),
          (96, 7000, 0), (32, 2048, 0), (256, 3072, 0), (128, 6144, 0), (32, 0, 100000), (256, 0, 65536),
          (1024, 8192, 0), (512, 4096, 0), (128, 12288, 0), (64, 2048, 0), (256, 8192, 0), (384, 6000, 0),
          (192, 20000, 0), (1024, 0, 30000), (512, 30000, 0), (32, 30000, 0), (768, 3000, 0), (160, 9000, 0),
          (896, 2000, 0), (640, 2000, 0), (512, 1024, 0), (384, 500, 0), (1024, 5000, 0), (768, 0, 0),
          (896, 0, 0), (512, 0, 0), (768, 8000, 0), (832, 1000, 0), (96, 0, 0), (608, 0, 12000),
          (384, 0, 0), (640, 0, 0), (960, 0, 0), (448, 0, 0), (352, 0, 0), (992, 3000, 0),
          (960, 2000, 0), (928, 0, 6000), (576, 2000, 0), (704, 1500, 0), (1024, 20000, 0), (480, 0, 3000)]
# Added in rounds, each to test the carveout rule fitted to the launches before it
# (analysis.models.occupancy.driver_carveout says how each round scored); the rule now fits them all.


class NcuMissing(RuntimeError):
    """Nsight Compute is not on this machine."""


def find_ncu() -> str:
    """The ncu executable: on the PATH, or where the CUDA toolkit puts it; NcuMissing where there is none."""
    exe = shutil.which("ncu")
    if exe:
        return exe
    for pat in ("/opt/nvidia/nsight-compute/*/ncu", "/usr/local/cuda*/bin/ncu", "/usr/local/cuda*/nsight-compute*/ncu"):
        hits = sorted(glob.glob(pat))
        if hits:
            return hits[-1]
    raise NcuMissing("ncu (Nsight Compute) not found on this machine: put it on the PATH (it comes with the CUDA "
                     "toolkit)")


def _number(text: str):
    t = text.replace(",", "").strip()
    if t in ("", "n/a", "N/A"):
        return None
    try:
        f = float(t)
    except ValueError:
        return text
    return int(f) if f.is_integer() and "." not in t else f


def parse_csv(text: str, metrics: list[str] | None = None) -> list[dict]:
    """ncu --csv --page raw output -> one dict per profiled launch (kernel name + `metrics`, by default
    the registry's)."""
    lines = [l for l in text.splitlines() if l.startswith('"')]
    rows = list(csv.reader(io.StringIO("\n".join(lines))))
    out: list[dict] = []
    header: list[str] | None = None
    for r in rows:
        if "Kernel Name" in r:
            header = r
            continue
        if header is None or not r or not r[0].strip().isdigit():
            continue  # the units row, or noise
        d = dict(zip(header, r))
        rec = {"kernel_name": d.get("Kernel Name", ""), "id": int(r[0]),
               "grid": d.get("Grid Size", ""), "block": d.get("Block Size", ""), "metrics": {}}
        for m in metrics or METRICS:
            if m in d:
                rec["metrics"][m] = _number(d[m])
        out.append(rec)
    return out


def run_ncu(ncu: str, cmd: list[str], kernel_regex: str | None, launch_count: int | None, timeout: float) -> tuple[list[dict], str]:
    args = [ncu, "--csv", "--page", "raw", "--print-units", "base", "--metrics", ",".join(METRICS),
            "--target-processes", "all"]
    if kernel_regex:
        args += ["-k", f"regex:{kernel_regex}"]
    if launch_count:
        args += ["--launch-count", str(launch_count)]
    p = subprocess.run(args + cmd, capture_output=True, text=True, timeout=timeout)
    return parse_csv(p.stdout), (p.stdout[-3000:] + "\n" + p.stderr[-3000:])


def kernels_to_measure(names: list[str] | None) -> list[tuple[str, str, int]]:
    from kernels import catalog
    out = []
    for k in catalog.KERNELS:
        if k.kind != "kernel" or (names and k.name not in names):
            continue
        out.append((k.name, k.entry, k.sim_size))
    return out


def collect(out_path: Path | None, names: list[str] | None, probes: bool, per_kernel_timeout: float = 120) -> dict:
    """Every kernel's counters into `out_path` (None: the committed ncu_h100.json, where this GPU is the one it
    holds; one line otherwise)."""
    from .measured import own_results

    ncu = find_ncu()
    ver = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    res: dict = {"tool": ver[-1] if ver else "ncu", "metrics": METRICS, "kernels": {}, "probes": [],
                 "binary": "NVRTC's cubin (cudasim.compile.compile_cubin: the code the models read), loaded by "
                           "PyCUDA as python -m kernels.run launches it",
                 "command": "ncu --csv --page raw --print-units base --metrics <metrics> -k regex:^ENTRY$ "
                            "--launch-count 1 python3 -m kernels.run NAME --size N --repeats 1"}
    try:
        import subprocess as sp
        res["device"] = sp.run(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"],
                               capture_output=True, text=True).stdout.strip()
    except OSError:
        res["device"] = "?"
    out_path = own_results(str(out_path) if out_path else None, RESULTS / "ncu_h100.json", res["device"])

    def save():
        out_path.parent.mkdir(parents=True, exist_ok=True)
        out_path.write_text(json.dumps(res, indent=1))

    if probes:
        t0 = time.time()
        try:
            recs, log = run_ncu(ncu, [sys.executable, "-m", "analysis.collect_ncu", "--probe-child"], "^probe_", None, 240)
        except subprocess.TimeoutExpired:
            recs, log = [], "timeout"
        for rec in recs:
            # probe_t{threads}_s{static}_d{dynamic}
            parts = dict((p[0], int(p[1:])) for p in rec["kernel_name"].split("(")[0].split("_")[1:])
            rec.update(threads=parts.get("t"), static=parts.get("s"), dynamic=parts.get("d"))
            res["probes"].append(rec)
        if not recs:
            res["probe_error"] = log[-1500:]
        print(f"probes: {len(recs)} launches ({time.time() - t0:.1f} s)", flush=True)
        save()
    for name, entry, size in kernels_to_measure(names):
        t0 = time.time()
        try:
            recs, log = run_ncu(ncu, [sys.executable, "-m", "kernels.run", name, "--size", str(size), "--repeats", "1"],
                                f"^{entry}$", 1, per_kernel_timeout)
        except subprocess.TimeoutExpired:
            recs, log = [], "timeout"
        row = res["kernels"][name] = kernel_row(size, entry, time.time() - t0, recs, log)
        print(f"{name}: {'ok' if recs else 'NO RESULT'} ({row['seconds']} s)", flush=True)
        save()
    return res


def kernel_row(size: int, entry: str, seconds: float, recs: list[dict], log: str) -> dict:
    """One kernel's entry of the measurements file, keyed by its catalog name in "kernels": the size, the entry
    ncu was told to profile, and ncu's first record (parse_csv: the kernel name as ncu prints it, grid, block,
    metrics), or the tail of ncu's log where it recorded nothing."""
    row = {"size": size, "entry": entry, "seconds": round(seconds, 1)}
    if recs:
        row.update(recs[0])
    else:
        row["error"] = log[-1500:]
    return row


PROBE_SRC = r'''
extern "C" __global__ void NAME(float *o, int n) {
#if STATIC_WORDS > 0
    __shared__ float s[STATIC_WORDS];
    for (int i = threadIdx.x; i < STATIC_WORDS; i += blockDim.x) s[i] = (float)i;
#endif
#if DYN
    extern __shared__ float d[];
    for (int i = threadIdx.x; i < n; i += blockDim.x) d[i] = (float)i;
#endif
    __syncthreads();
    float v = (float)threadIdx.x;
#if STATIC_WORDS > 0
    v += s[(threadIdx.x * 7) % STATIC_WORDS];
#endif
#if DYN
    v += d[(threadIdx.x * 5) % n];
#endif
    o[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
'''


def probe_child() -> int:
    """Launch each probe kernel once (CuPy), for ncu to read the launch's occupancy counters."""
    import cupy as cp
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    for threads, static, dyn in PROBES:
        name = f"probe_t{threads}_s{static}_d{dyn}"
        src = (PROBE_SRC.replace("NAME", name).replace("STATIC_WORDS", str(static // 4))
               .replace("DYN", "1" if dyn else "0"))
        k = cp.RawKernel(src, name)
        if dyn > 48 * 1024:
            k.max_dynamic_shared_size_bytes = dyn
        blocks = 2 * sms
        o = cp.zeros(blocks * threads, cp.float32)
        k((blocks,), (threads,), (o, cp.int32(max(dyn // 4, 1))), shared_mem=dyn)
        cp.cuda.Device().synchronize()
    return 0


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m analysis.collect_ncu", description=__doc__)
    p.add_argument("--out", help=f"the JSON file to write (default: {RESULTS / 'ncu_h100.json'}, the committed "
                                 "measurements, where this GPU is the H100 they were measured on)")
    p.add_argument("--kernels", help="comma-separated catalog names (default: every kernel)")
    p.add_argument("--no-probes", action="store_true",
                   help="skip the shared-memory carveout probes (one more ncu run over small CuPy kernels)")
    p.add_argument("--probe-child", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args(argv)
    names = [n.strip() for n in a.kernels.split(",") if n.strip()] if a.kernels else None
    if a.probe_child:
        return probe_child()
    from kernels import catalog
    for n in names or []:
        try:
            if catalog.get(n).kind != "kernel":
                fail(f"--kernels {n}: a host pipeline; its kernel, {catalog.get(n).entry}, is measured instead")
        except catalog.CatalogError as e:
            fail(f"--kernels: {e}")
    try:
        collect(Path(a.out) if a.out else None, names, not a.no_probes)
    except NcuMissing as e:
        fail(str(e))
    return 0


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
