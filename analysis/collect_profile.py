"""Measure, on a GPU machine, what a kernel's time is made of: Nsight Compute at the bench sizes
and at the device's own clocks, for the catalog and the corpus.

    python -m analysis.collect_profile [--out analysis/results/profile_h100.json] [--kernels a,b]
                                       [--set corpus|holdout|holdout2|holdout3|holdout4|holdout5|holdout6|none]

Why: the timing model predicts CUDA-event time from counts and rates; when a prediction
misses, these figures say which of its parts missed (the clock the kernel really ran at,
the SASS instructions per pipe, DRAM and L2 bytes, the L2 hit rate, achieved occupancy,
each unit's share of its peak, and where warps stalled). They are read to judge the model's
parts, never to set its rates: those come from kernels.microbench alone.

Protocol: `ncu --clock-control none` (the clocks the GPU picks itself, as CUDA events see
them, not ncu's default of base clocks) and `--cache-control all` (caches flushed before each
replay pass: inputs not resident in L2, as kernels.bench times them); one launch per kernel,
the verified first launch of `python -m kernels.run NAME --size BENCH` (catalog) or of
`python -m corpus.measure --ncu-child --set SET` (a corpus set). Metrics this ncu does not know are left out
and listed.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from cudasim.console import Parser, fail

from .collect_ncu import NcuMissing, find_ncu, parse_csv

RESULTS = Path(__file__).with_name("results")
NCU_ARGS = ["--csv", "--page", "raw", "--print-units", "base", "--target-processes", "all",
            "--clock-control", "none", "--cache-control", "all"]
METRICS = json.loads(Path(__file__).with_name("profile_metrics.json").read_text())["metrics"]


def known_metrics(ncu: str) -> set[str] | None:
    """Base names of the metrics this ncu offers for the device here, or None if it will not say."""
    try:
        p = subprocess.run([ncu, "--query-metrics", "--csv"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired):
        return None
    names = {line.split(",")[0].strip('"') for line in p.stdout.splitlines() if "__" in line}
    return names or None


def usable(metrics: list[str], known: set[str] | None) -> tuple[list[str], list[str]]:
    """(metrics whose base name this ncu knows, those it does not)."""
    if known is None:
        return list(metrics), []
    ok = [m for m in metrics if m.split(".")[0] in known]
    return ok, [m for m in metrics if m not in ok]


def profile(ncu: str, metrics: list[str], cmd: list[str], kernel_regex: str | None, launches: int | None,
            timeout: float) -> tuple[list[dict], str]:
    args = [ncu, *NCU_ARGS, "--metrics", ",".join(metrics)]
    if kernel_regex:
        args += ["-k", f"regex:{kernel_regex}"]
    if launches:
        args += ["--launch-count", str(launches)]
    try:
        p = subprocess.run(args + cmd, capture_output=True, text=True, timeout=timeout)
        out, err = p.stdout, p.stderr
    except subprocess.TimeoutExpired as e:
        out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        err = "timeout"
    return parse_csv(out, metrics), out[-1500:] + "\n" + err[-1500:]


def main(argv: list[str] | None = None) -> int:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from corpus.sets import SETS
    p = Parser(prog="python -m analysis.collect_profile", description=__doc__)
    p.add_argument("--out", help=f"the JSON file to write (default: {RESULTS / 'profile_h100.json'}, the committed "
                                 "profile, where this GPU is the H100 it was measured on)")
    p.add_argument("--kernels", help="comma-separated names (catalog or corpus; default: all of both)")
    p.add_argument("--set", default="corpus", choices=(*SETS, "none"),
                   help="the corpus set profiled after the catalog (none: the catalog only)")
    p.add_argument("--no-catalog", action="store_true", help="the corpus set only")
    p.add_argument("--timeout", type=float, default=240, help="seconds allowed per ncu process")
    a = p.parse_args(argv)
    from kernels import catalog
    want = {n.strip() for n in a.kernels.split(",") if n.strip()} if a.kernels else None
    if want:
        from corpus.sets import load_set
        known = set(catalog.names()) | (set(load_set(a.set).BY_NAME) if a.set != "none" else set())
        if unknown := sorted(want - known):
            fail(f"--kernels {unknown[0]}: neither a catalog kernel nor one of the set {a.set}")
    try:
        ncu = find_ncu()
    except NcuMissing as e:
        fail(str(e))
    metrics, unknown = usable(METRICS, known_metrics(ncu))
    ver = subprocess.run([ncu, "--version"], capture_output=True, text=True).stdout.strip().splitlines()
    smi = subprocess.run(["nvidia-smi", "--query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem",
                          "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    res: dict = {"tool": ver[-1] if ver else "ncu", "device": smi, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                 "protocol": "ncu " + " ".join(NCU_ARGS[-4:]) + ": the GPU's own clocks, caches flushed before each "
                             "replay pass; one launch per kernel at its bench size (catalog) or its size (corpus)",
                 "metrics": metrics, "unknown_metrics": unknown, "kernels": {}}
    from .measured import own_results

    out = own_results(a.out, RESULTS / "profile_h100.json", smi)

    def save() -> None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(res, indent=1))

    for k in catalog.KERNELS:
        if a.no_catalog or k.kind != "kernel" or (want and k.name not in want):
            continue
        t0 = time.time()
        recs, log = profile(ncu, metrics, [sys.executable, "-m", "kernels.run", k.name, "--size", str(k.default_size),
                                           "--repeats", "1"], f"^{k.entry}$", 1, a.timeout)
        row = {"source": "catalog", "size": k.default_size, "seconds": round(time.time() - t0, 1)}
        row.update(recs[0] if recs else {"error": log})
        res["kernels"][k.name] = row
        print(f"{k.name:28s} {'ok' if recs else 'NO RESULT'} ({row['seconds']} s)", flush=True)
        save()
    if a.set != "none":
        from corpus.sets import load_set
        manifest = load_set(a.set)
        names = [c.name for c in manifest.CORPUS if not want or c.name in want]
        if names:
            t0 = time.time()
            recs, log = profile(ncu, metrics, [sys.executable, "-m", "corpus.measure", "--ncu-child", "--set", a.set,
                                               "--kernels", ",".join(names)], None, None, a.timeout * 2)
            for name, rec in zip(names, recs):
                res["kernels"][name] = {"source": a.set, "size": manifest.get(name).size, **rec}
            if len(recs) != len(names):
                res["corpus_error"] = f"{len(recs)} launches profiled for {len(names)} kernels: {log}"
            print(f"corpus: {len(recs)} of {len(names)} profiled ({time.time() - t0:.0f} s)", flush=True)
            save()
    save()
    return 0


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
