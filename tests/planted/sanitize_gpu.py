"""Run NVIDIA's compute-sanitizer (racecheck, memcheck, synccheck, initcheck) on every planted kernel,
on a GPU machine, and write which tool flagged which kernel as JSON.

    OUT=/some/dir python3 tests/planted/sanitize_gpu.py        # -> $OUT/sanitizer.json, $OUT/logs/*.txt

Needs nvcc and compute-sanitizer (on PATH or under $CUDA_HOME/bin or /usr/local/cuda/bin), numpy and
PyCUDA; nothing of cudasim. Each kernel is compiled once with nvcc (-cubin -lineinfo, so the tools name
source lines), then launched through PyCUDA under each tool in a process of its own (a memcheck error
leaves the context unusable), several at a time. The launch follows tests/planted/manifest.json:
buffers with "init": "none" are allocated and never written (cudaMalloc without a copy).
`python tests/planted/comparison.py --gpu $OUT/sanitizer.json` turns the JSON into the table.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import planted_suite  # noqa: E402

TOOLS = {
    "racecheck": ["--tool", "racecheck", "--racecheck-detect-level", "info", "--racecheck-report", "all"],
    "memcheck": ["--tool", "memcheck"],
    "synccheck": ["--tool", "synccheck"],
    "initcheck": ["--tool", "initcheck"],
}
COMMON = ["--print-limit", "100", "--error-exitcode", "99", "--show-backtrace", "no"]


def find(tool: str) -> str | None:
    for d in [None, os.environ.get("CUDA_HOME"), "/usr/local/cuda"]:
        p = shutil.which(tool) if d is None else (str(Path(d) / "bin" / tool) if d else None)
        if p and Path(p).exists():
            return p
    return None


def launch(name: str, cubin: str) -> int:
    """Launch one planted kernel through PyCUDA (run under a sanitizer by `main`)."""
    import pycuda.driver as cuda

    e = next(x for x in planted_suite.load() if x["name"] == name)
    cuda.init()
    ctx = cuda.Device(0).make_context()
    keep = []
    try:
        f = cuda.module_from_file(cubin).get_function(e["kernel"])
        args = []
        for spec, v in planted_suite.arguments(e):
            if "count" not in spec:
                args.append(v)
            elif spec["init"] == "none":
                d = cuda.mem_alloc(v.nbytes)  # allocated, never written
                keep.append(d)
                args.append(d)
            else:
                d = cuda.to_device(v)
                keep.append(d)
                args.append(d)
        f(*args, block=tuple(e["block"]), grid=tuple(e["grid"]))
        ctx.synchronize()
        print(f"launched {name}: ok")
        return 0
    except Exception as ex:  # noqa: BLE001 - a kernel fault is the point of some of these launches
        print(f"launched {name}: {type(ex).__name__}: {ex}")
        return 3
    finally:
        for d in keep:
            try:
                d.free()
            except Exception:  # noqa: BLE001
                pass
        ctx.pop()


def parse(log: str) -> dict:
    """What a tool said: its summary counts, the source lines it named, whether it flagged anything."""
    errors = [int(x) for x in re.findall(r"ERROR SUMMARY:\s*(\d+) error", log)]
    hazards = [int(x) for x in re.findall(r"RACECHECK SUMMARY:\s*(\d+) hazard", log)]
    lines = sorted({int(x) for x in re.findall(r"\.cu:(\d+)", log)})
    heads = [ln.strip("= ").strip() for ln in log.splitlines()
             if re.match(r"=+ +(Invalid|Uninitialized|Barrier|Race|Warning|Error|ERROR|WARNING|Misaligned|"
                         r"Program hit|Out-of-range|Malformed|Divergent|Warp)", ln)]
    n = sum(errors) + sum(hazards)
    return {"flagged": n > 0, "errors": sum(errors), "hazards": sum(hazards), "lines": lines,
            "headlines": list(dict.fromkeys(heads))[:6]}


def run_tool(sanitizer: str, tool: str, e: dict, cubin: str, logs: Path, timeout: float) -> dict:
    """One kernel under one tool. Where the tool refused an option (the launch never ran), it is run
    again with no option but the tool's name: a refused flag must not read as "found nothing"."""
    app = [sys.executable, str(Path(__file__).resolve()), "--launch", e["name"], "--cubin", cubin]
    attempts = [("full", [*TOOLS[tool], *COMMON]), ("minimal", ["--tool", tool, "--error-exitcode", "99"])]
    for which, opts in attempts:
        cmd = [sanitizer, *opts, *app]
        t0 = time.time()
        try:
            r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
            out, code = r.stdout + r.stderr, r.returncode
        except subprocess.TimeoutExpired as ex:
            out = ex.stdout.decode(errors="replace") if isinstance(ex.stdout, bytes) else (ex.stdout or "")
            out, code = out + f"\n[timed out after {timeout:g} s: the kernel hangs under {tool}?]", "timeout"
        (logs / f"{e['name']}.{tool}.txt").write_text(" ".join(cmd) + "\n\n" + out)
        if f"launched {e['name']}:" in out or code == "timeout":
            break
    res = parse(out)
    res.update({"exit": code, "options": which, "seconds": round(time.time() - t0, 2),
                "log": f"logs/{e['name']}.{tool}.txt"})
    if code == "timeout" or f"launched {e['name']}:" not in out:
        res["flagged"] = None  # neither found nor clean: it did not run to the end
    return res


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=os.environ.get("OUT", "."), help="directory for sanitizer.json and logs/")
    p.add_argument("--arch", default=os.environ.get("ARCH", "sm_90"))
    p.add_argument("--workers", type=int, default=8)
    p.add_argument("--timeout", type=float, default=45.0, help="seconds per sanitizer run")
    p.add_argument("--budget", type=float, default=150.0, help="seconds after which no further run starts")
    p.add_argument("--only", action="append", default=[], help="kernel name (repeatable)")
    p.add_argument("--launch", help=argparse.SUPPRESS)
    p.add_argument("--cubin", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.launch:
        return launch(a.launch, a.cubin)
    nvcc, san = find("nvcc"), find("compute-sanitizer")
    if not nvcc or not san:
        print(f"error: need nvcc and compute-sanitizer (found nvcc={nvcc}, compute-sanitizer={san})", file=sys.stderr)
        return 2
    out = Path(a.out)
    logs = out / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    suite = [e for e in planted_suite.load() if not a.only or e["name"] in a.only]
    t0 = time.time()
    work = Path(tempfile.mkdtemp(prefix="planted_"))

    def build(e: dict) -> tuple[str, str | None, str]:
        cubin = work / f"{e['name']}.cubin"
        r = subprocess.run([nvcc, "-cubin", "-lineinfo", f"-arch={a.arch}", "-o", str(cubin), e["path"]],
                           capture_output=True, text=True)
        return e["name"], str(cubin) if r.returncode == 0 else None, r.stdout + r.stderr

    with ThreadPoolExecutor(a.workers) as ex:
        built = {n: (c, msg) for n, c, msg in ex.map(build, suite)}
    jobs = [(e, tool) for e in suite for tool in TOOLS if built[e["name"]][0]]
    deadline = t0 + a.budget

    def job(j: tuple[dict, str]) -> tuple[str, str, dict]:
        e, tool = j
        if time.time() > deadline:  # bounded: a few hanging kernels must not stretch the whole run
            return e["name"], tool, {"flagged": None, "skipped": f"not run: past the {a.budget:g} s budget"}
        return e["name"], tool, run_tool(san, tool, e, built[e["name"]][0], logs, a.timeout)

    with ThreadPoolExecutor(a.workers) as ex:
        results = list(ex.map(job, jobs))
    kernels: dict = {e["name"]: {"file": e["file"], "line": e["line"], "expect": e["expect"], "what": e["what"],
                                 "tools": {}} for e in suite}
    for name, (cubin, msg) in built.items():
        if cubin is None:
            kernels[name]["build_error"] = msg[-2000:]
    for name, tool, res in results:
        kernels[name]["tools"][tool] = res

    def version(cmd: list[str]) -> str:
        try:
            return subprocess.run(cmd, capture_output=True, text=True, timeout=30).stdout.strip().splitlines()[-1]
        except Exception as ex:  # noqa: BLE001
            return f"unknown ({ex})"
    doc = {"device": version(["nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"]),
           "compute_sanitizer": version([san, "--version"]), "nvcc": version([nvcc, "--version"]), "arch": a.arch,
           "tools": {t: " ".join(TOOLS[t] + COMMON) for t in TOOLS}, "seconds": round(time.time() - t0, 1),
           "kernels": kernels}
    (out / "sanitizer.json").write_text(json.dumps(doc, indent=1))
    for name, k in kernels.items():
        flags = " ".join(f"{t}={'yes' if r['flagged'] else 'no' if r['flagged'] is False else '??'}"
                         for t, r in k["tools"].items())
        print(f"{name:22s} expect {','.join(k['expect']) or '-':18s} {flags}")
    print(f"wrote {out / 'sanitizer.json'} in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
