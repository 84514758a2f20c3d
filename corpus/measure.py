"""Measure the corpus on a GPU machine: verify and time every kernel, then Nsight Compute counters.

    python -m corpus.measure [--set corpus|holdout|holdout2|holdout3|holdout4|holdout5|holdout6|holdout7] [--out corpus/results/SET_h100.json] [--kernels a,b] [--no-ncu]

Two protocols, both recorded in the output:
* events: the cubin NVRTC makes (cudasim.compile.compile_cubin, the binary the models read),
  loaded by PyCUDA; one launch verified against the float64 numpy reference, then timed with
  CUDA events as kernels.gpu times the catalog (3 warm-up launches, median of >= 20 timed
  launches, more for short kernels; inputs rotated over copies when they fit in L2), at the
  device's default clocks (nothing locked).
* ncu: one `ncu --csv --page raw --metrics <registry metrics + gpu__time_duration.sum>` process
  over `python -m corpus.measure --ncu-child`, which launches each kernel exactly once (verified),
  so the counters describe the same launch; ncu's defaults: clocks locked to base
  (--clock-control base) and caches flushed before each replay (--cache-control all).
"""
from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from cudasim import progress
from cudasim.compile import name_expressions
from cudasim.console import Parser, fail

from . import manifest
from .sets import DEFAULT, SETS, load_set, measured_path

NCU_ARGS = ["--csv", "--page", "raw", "--print-units", "base", "--target-processes", "all"]


def load(k: manifest.CorpusKernel):
    """(PyCUDA function, module) from NVRTC's cubin, the template reached by its name expression."""
    from cudasim.compile import compile_cubin
    from kernels import gpu
    cuda, dev = gpu.init()
    exprs = name_expressions(k.entry)
    cubin, lowered = compile_cubin(k.path.read_text(), exprs, options=k.options(), arch="sm_%d%d" % dev["cc"],
                                   filename=str(k.path))  # named as corpus.compare names it: the same compile
    mod = cuda.module_from_buffer(cubin)
    return mod.get_function(lowered.get(k.entry, k.entry)), mod


def prepare(k: manifest.CorpusKernel, copies_max: int = 8):
    from kernels import gpu
    cuda, dev = gpu.init()
    f, mod = load(k)
    inputs = k.make_inputs(k.size, 0)
    for c in k.constants:
        ptr, nbytes = mod.get_global(c)
        assert nbytes == inputs[c].nbytes, (c, nbytes, inputs[c].nbytes)
        cuda.memcpy_htod(ptr, inputs[c])
    grid, block, shared = k.launch(k.size, dev["sms"])
    sets = gpu.device_copies(inputs, skip=tuple(k.constants), most=copies_max)
    copies = len(sets)
    return f, inputs, sets, (grid, block, shared), copies


def run_once_verify(k, f, inputs, sets, cfg) -> tuple[bool, float]:
    from kernels import catalog, gpu
    cuda, _ = gpu.init()
    grid, block, shared = cfg
    f(*k.args(sets[0]), block=block, grid=grid, shared=shared)
    cuda.Context.synchronize()
    got = np.empty_like(inputs[k.output])
    cuda.memcpy_dtoh(got, sets[0][k.output])
    return catalog.verify(k, got, inputs)


def free(sets):
    for d in sets:
        for v in d.values():
            if hasattr(v, "free"):
                v.free()


def time_kernel(k: manifest.CorpusKernel, repeats: int = 20, warmup: int = 3) -> dict:
    from kernels import gpu
    f, inputs, sets, cfg, copies = prepare(k)
    made = manifest.digest(inputs)  # the bytes this GPU runs, before anything touches them
    ok, err = run_once_verify(k, f, inputs, sets, cfg)
    grid, block, shared = cfg
    ms = gpu._events_ms(lambda i: f(*k.args(sets[i % copies]), block=block, grid=grid, shared=shared), repeats, warmup)
    ms2 = gpu._events_ms(lambda i: f(*k.args(sets[i % copies]), block=block, grid=grid, shared=shared), repeats, 1)
    free(sets)
    return {"kernel": k.name, "entry": k.entry, "size": k.size, "inputs_sha256": made,
            "ok": bool(ok), "max_rel_err": err,
            "event_ms": ms, "event_ms_repeat": ms2, "registers": f.num_regs, "static_shared_bytes": f.shared_size_bytes,
            "grid": list(grid), "block": list(block), "dynamic_shared_bytes": shared, "copies": copies,
            "gbs": k.min_bytes(k.size) / ms / 1e6, "gflops": k.flops(k.size) / ms / 1e6 if k.flops(k.size) else None}


def ncu_child(names: list[str], kernel_set=manifest) -> int:
    for name in progress.track(names, "timing", unit="kernels on the GPU"):
        k = kernel_set.get(name)
        f, inputs, sets, cfg, _ = prepare(k, copies_max=1)
        ok, err = run_once_verify(k, f, inputs, sets, cfg)
        print(f"ncu-child {name}: {'OK' if ok else 'WRONG'} {err:.2e}", flush=True)
        free(sets)
    return 0


def smi(query: str) -> str:
    try:
        return subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return "?"


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m corpus.measure", description=__doc__)
    p.add_argument("--set", choices=sorted(SETS), default=DEFAULT, help="which kernel set (default: %(default)s)")
    p.add_argument("--out", help="default: corpus/results/SET_h100.json, where this GPU is the H100 the committed "
                                 "measurements are of")
    p.add_argument("--kernels", help="comma-separated kernel names of the set (default: all)")
    p.add_argument("--no-ncu", action="store_true", help="CUDA-event times only, no Nsight Compute run")
    p.add_argument("--ncu-child", action="store_true", help=argparse.SUPPRESS)  # the process ncu profiles
    p.add_argument("--ncu-timeout", type=float, default=300, help="seconds allowed for the ncu run (default 300)")
    a = p.parse_args(argv)
    kernel_set = load_set(a.set)
    names = [n.strip() for n in a.kernels.split(",") if n.strip()] if a.kernels else [k.name for k in kernel_set.CORPUS]
    unknown = [n for n in names if n not in kernel_set.BY_NAME]
    if unknown:
        fail(f"--kernels {unknown[0]}: not in the set {a.set}; it has {', '.join(kernel_set.BY_NAME)}")
    if a.ncu_child:
        return ncu_child(names, kernel_set)
    from kernels import gpu
    try:
        _, dev = gpu.init()
    except gpu.GpuUnavailable as e:
        fail(str(e))
    from analysis.measured import own_results

    a.out = str(own_results(a.out, measured_path(a.set), dev))
    out: dict = {
        "set": a.set,
        "device": {**dev, "smi": smi("name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,"
                                     "power.limit,temperature.gpu")},
        "smi_fields": "name, driver_version, clocks.sm, clocks.max.sm, clocks.mem, clocks.max.mem, power.limit, temp",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "inputs_made_by": f"numpy {np.__version__}, Python {platform.python_version()}",
        "protocols": {
            "event_ms": "CUDA events (ms), NVRTC cubin loaded by PyCUDA, 3 warm-up launches, median of >= 20 timed "
                        "launches (more for short kernels, up to 0.25 s), inputs rotated over copies when they fit "
                        "in L2; device default clocks (not locked), as kernels.bench",
            "event_ms_repeat": "the same, measured a second time right after (the spread between the two)",
            "ncu": "Nsight Compute, one launch per kernel (the verified one), --csv --page raw; ncu defaults: "
                   "--clock-control base (SM clock locked to base), --cache-control all (caches flushed per pass); "
                   "gpu__time_duration.sum in ns under that protocol"},
        "kernels": {}}
    for name in progress.track(names, "timing", unit="kernels on the GPU"):
        k = kernel_set.get(name)
        t0 = time.time()
        try:
            r = time_kernel(k)
        except Exception as e:  # noqa: BLE001 - one kernel's failure is one row
            r = {"kernel": name, "error": f"{type(e).__name__}: {str(e)[:300]}"}
        r["seconds"] = round(time.time() - t0, 1)
        out["kernels"][name] = r
        print(f"{name:22s} " + (f"{'OK ' if r['ok'] else 'BAD'} {r['event_ms'] * 1e3:10.1f} us "
                                f"(again {r['event_ms_repeat'] * 1e3:.1f}) err {r['max_rel_err']:.1e} "
                                f"{r['registers']} regs" if "error" not in r else r["error"]), flush=True)
        Path(a.out).parent.mkdir(parents=True, exist_ok=True)
        Path(a.out).write_text(json.dumps(out, indent=1))
    if not a.no_ncu:
        from analysis.collect_ncu import METRICS, NcuMissing, find_ncu, parse_csv
        try:
            ncu = find_ncu()
        except NcuMissing as e:
            fail(f"{e} (or --no-ncu for the CUDA-event times only)")
        out["ncu_tool"] = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip()
        out["ncu_metrics"] = METRICS
        cmd = [ncu, *NCU_ARGS, "--metrics", ",".join(METRICS), sys.executable, "-m", "corpus.measure",
               "--ncu-child", "--set", a.set, "--kernels", ",".join(names)]
        out["ncu_command"] = " ".join(cmd[:8]) + " <metrics> python -m corpus.measure --ncu-child --set " + a.set
        t0 = time.time()
        try:
            pr = subprocess.run(cmd, capture_output=True, text=True, timeout=a.ncu_timeout)
            recs, log = parse_csv(pr.stdout), pr.stdout[-2000:] + pr.stderr[-2000:]
        except subprocess.TimeoutExpired as e:
            recs, log = parse_csv((e.stdout or b"").decode() if isinstance(e.stdout, bytes) else (e.stdout or "")), "timeout"
        out["ncu_seconds"] = round(time.time() - t0, 1)
        out["ncu_log_tail"] = log[-1500:]
        print(f"ncu: {len(recs)} launches profiled in {out['ncu_seconds']} s", flush=True)
        for name, rec in zip(names, recs):
            out["kernels"][name]["ncu"] = rec
        if len(recs) != len(names):
            out["ncu_mismatch"] = f"{len(recs)} records for {len(names)} kernels; matched in launch order"
            print(log[-1500:])
        Path(a.out).write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
