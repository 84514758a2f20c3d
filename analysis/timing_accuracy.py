"""The timing model's accuracy: every non-pipeline catalog kernel at its bench size, predicted
against the CUDA-event times kernels.bench measured (kernels/results/bench_h100.json).

    python -m analysis.timing --accuracy [--measured FILE] [--out analysis/results/timing_h100.md] [--kernels ...]

Prints (and with --out writes, Markdown + JSON beside it) per kernel: predicted, measured,
error, limiter; the median, 90th percentile and largest |error|; and within each family the
pairs whose measured times differ by more than 10%, and whether the prediction orders them
the same way. Beside the time, two of the model's parts against Nsight Compute at the same
launch (analysis/results/profile_h100.json): the SASS warp instructions issued and the DRAM
bytes, predicted / measured. Nothing is tuned here: the rates are the GPU row's, the counts
the simulator's.
"""
from __future__ import annotations

import json
import time
from itertools import combinations
from pathlib import Path

import numpy as np

from cudasim import progress
from cudasim.console import Parser, check_out, fail
from cudasim.gpus import UnknownGPU, get_gpu
from kernels import catalog

from . import pipeline, registry, simulation
from .measured import run_line

ROOT = Path(__file__).resolve().parent.parent
MEASURED = ROOT / "kernels" / "results" / "bench_h100.json"
PROFILE = ROOT / "analysis" / "results" / "profile_h100.json"
PARTS = json.loads((ROOT / "analysis" / "profile_metrics.json").read_text())["parts"]
RANK_GAP = 1.10  # pairs whose measured times differ by more than 10% must be ordered alike


def predict(name: str, size: int, gpu: str | None = None) -> dict:
    """The timing model's result for a catalog kernel at `size` (on-disk cache used)."""
    launch = pipeline.resolve_catalog(name, size, {}, get_gpu(gpu))
    return simulation.result(registry.get("timing"), launch)


def parts_vs_ncu(d: dict, prof: dict | None, size: int) -> dict:
    """The predicted warp instructions and DRAM bytes over ncu's, where ncu measured this launch."""
    if not prof or prof.get("size") != size:
        return {"instructions_ratio": None, "dram_ratio": None}
    m, c = prof["metrics"], d["counts"]
    inst, dram = (sum(m.get(k) or 0 for k in PARTS[part]) for part in ("warp_instructions", "dram_bytes"))
    return {"instructions_ratio": c["warp_instructions"] / inst if inst else None,
            "dram_ratio": (c["dram_read_bytes"] + c["dram_write_bytes"]) / dram if dram else None}


def summarize(rows: list[dict]) -> dict:
    err = np.array([abs(r["error_pct"]) for r in rows])
    ranks = []
    for fam in sorted({r["family"] for r in rows}):
        fr = [r for r in rows if r["family"] == fam]
        for a, b in combinations(fr, 2):
            hi, lo = (a, b) if a["measured_us"] >= b["measured_us"] else (b, a)
            if hi["measured_us"] > RANK_GAP * lo["measured_us"]:
                ranks.append({"family": fam, "slower": hi["kernel"], "faster": lo["kernel"],
                              "agree": hi["predicted_us"] > lo["predicted_us"]})
    parts = {}
    for key in ("instructions_ratio", "dram_ratio"):
        dev = [abs(r[key] - 1) * 100 for r in rows if r.get(key) is not None]
        parts[key.replace("ratio", "median_abs_dev_pct")] = float(np.median(dev)) if dev else None
        parts[key.replace("ratio", "max_abs_dev_pct")] = float(max(dev)) if dev else None
    return {"kernels": len(rows), **parts, "median_abs_error_pct": float(np.median(err)),
            "p90_abs_error_pct": float(np.percentile(err, 90)), "max_abs_error_pct": float(err.max()),
            "over_50_pct": [r["kernel"] for r in rows if abs(r["error_pct"]) > 50],
            "rank_pairs": len(ranks), "rank_agree": sum(p["agree"] for p in ranks),
            "rank_disagreements": [p for p in ranks if not p["agree"]]}


def markdown(out: dict) -> str:
    s = out["summary"]
    lines = [f"# Timing model accuracy ({out['device']})", "",
             f"Predicted by `python -m analysis.timing` (no GPU) against `{out['measured_file']}` "
             f"(CUDA-event medians, default clocks, measured on {out['device']}). Run: {out['run']}.", "",
             "**instructions** and **DRAM bytes**: the model's warp instructions issued and DRAM bytes over "
             f"Nsight Compute's at the same launch (`{out.get('profile_file', '-')}`; 1.00 is exact).", "",
             "| kernel | family | size | predicted us | measured us | error % | limiter | instructions | DRAM bytes "
             "| provenance |",
             "|---|---|---|---:|---:|---:|---|---:|---:|---|"]

    def ratio(v):
        return "-" if v is None else f"{v:.2f}"
    for r in out["rows"]:
        lines.append(f"| {r['kernel']} | {r['family']} | {r['size']} | {r['predicted_us']:,.1f} | "
                     f"{r['measured_us']:,.1f} | {r['error_pct']:+.1f} | {r['limiter']} | "
                     f"{ratio(r.get('instructions_ratio'))} | {ratio(r.get('dram_ratio'))} | {r['how']} |")
    lines += ["", f"Median |error| {s['median_abs_error_pct']:.1f}%, 90th percentile {s['p90_abs_error_pct']:.1f}%, "
                  f"max {s['max_abs_error_pct']:.1f}% over {s['kernels']} kernels; over 50%: "
                  f"{', '.join(s['over_50_pct']) or 'none'}.",
              f"Rank agreement within families (pairs measured more than 10% apart): {s['rank_agree']} of "
              f"{s['rank_pairs']}."]
    if s.get("instructions_median_abs_dev_pct") is not None:
        lines.append(f"Against Nsight Compute: warp instructions within {s['instructions_median_abs_dev_pct']:.1f}% "
                     f"(median; largest {s['instructions_max_abs_dev_pct']:.1f}%), DRAM bytes within "
                     f"{s['dram_median_abs_dev_pct']:.1f}% (median; largest {s['dram_max_abs_dev_pct']:.1f}%).")
    for p in s["rank_disagreements"]:
        lines.append(f"- {p['family']}: measured {p['slower']} slower than {p['faster']}, predicted the other way")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m analysis.timing --accuracy", description=__doc__)
    p.add_argument("--measured", default=str(MEASURED),
                   help="kernels.bench's CUDA-event times to score against (default: %(default)s)")
    p.add_argument("--out", help="write the table here (Markdown) and beside it the same as JSON")
    p.add_argument("--kernels", nargs="*", help="only these catalog names")
    p.add_argument("--gpu", help="GPU row the predictions use (default H100-SXM)")
    a = p.parse_args(argv)
    if not Path(a.measured).is_file():
        fail(f"--measured {a.measured}: no such file (python -m kernels.bench --out FILE writes one)")
    if a.out:
        check_out(a.out, json_beside=True)
    try:
        measured = json.loads(Path(a.measured).read_text())
        rows_measured = measured["rows"]
    except (ValueError, KeyError, TypeError) as e:
        fail(f"--measured {a.measured}: not kernels.bench's results ({type(e).__name__}: {e})")
    timed = {m["kernel"] for m in rows_measured}
    if unknown := [n for n in a.kernels or [] if n not in timed]:
        fail(f"--kernels {unknown[0]}: not timed in {a.measured}; it has " + ", ".join(sorted(timed)))
    try:
        get_gpu(a.gpu)
    except UnknownGPU as e:
        fail(str(e))
    profile = json.loads(PROFILE.read_text())["kernels"] if PROFILE.exists() else {}
    rows = []
    for m in progress.track(rows_measured, "predicting", unit="kernels at their bench sizes"):
        k = catalog.get(m["kernel"])
        if k.kind == "pipeline" or (a.kernels and k.name not in a.kernels):
            continue
        t0 = time.perf_counter()
        d = predict(k.name, m["size"], a.gpu)
        us = m["ms"] * 1e3
        row = {"kernel": k.name, "family": k.family, "size": m["size"], "predicted_us": d["time_us"],
               "measured_us": us, "error_pct": 100 * (d["time_us"] - us) / us, "limiter": d["limiter"],
               "how": "scaled from 2 sizes" if d["provenance"].startswith("sampled and scaled: simulated at sizes")
               else "as asked", "seconds": time.perf_counter() - t0,
               # kept so that a report can draw each resource's share without simulating again
               "resources": [{k: x[k] for k in ("resource", "time_us", "utilization_pct")} for x in d["resources"]],
               "achieved": d["achieved"], "waves": d["waves"], "advice": d["advice"]}
        row.update(parts_vs_ncu(d, profile.get(k.name), m["size"]))
        rows.append(row)
        print(f"{k.name:28s} {m['size']:>9} pred {row['predicted_us']:12,.1f} us  meas {us:12,.1f} us  "
              f"{row['error_pct']:+7.1f}%  {row['limiter']}", flush=True)
    out = {"device": measured.get("device", {}).get("name", "?"), "measured_file": str(Path(a.measured).relative_to(ROOT))
           if Path(a.measured).resolve().is_relative_to(ROOT) else a.measured,
           "run": run_line(ROOT),
           "profile_file": str(PROFILE.relative_to(ROOT)), "rows": rows, "summary": summarize(rows)}
    text = markdown(out)
    print()
    print(text)
    if a.out:
        Path(a.out).write_text(text)
        Path(a.out).with_suffix(".json").write_text(json.dumps(out, indent=1))
    return 0
