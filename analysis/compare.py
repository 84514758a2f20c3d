"""Predicted beside measured: the models against Nsight Compute, per kernel and metric.

    python -m analysis.compare [--measured analysis/results/ncu_h100.json] [--kernels a,b] [--json]
                               [--out analysis/results/compare_h100.md] [--timing analysis/results/timing_h100.json]

The measurements come from `python -m analysis.collect_ncu` on the GPU machine (one ncu
launch per catalog kernel at its simulator size). The predictions are the same launch
through analysis.pipeline with every block traced, from every registered model; each
metric is judged by the rule and tolerance its model declares (analysis.registry). The
kernel time is not an ncu counter: it comes from the timing model's accuracy run (predicted
at the bench size against kernels.bench's CUDA events, analysis/results/timing_h100.json) and
is shown per kernel with its error. The Markdown table is written only where --out says.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from cudasim import progress
from cudasim.console import Parser, check_out, fail
from cudasim.gpus import UnknownGPU, get_gpu

from . import pipeline, registry
from .collect_ncu import RESULTS
from .measured import device_name, device_row

TIMING = RESULTS / "timing_h100.json"
from .models.banks import LOAD_INSTRUCTIONS
from .models.occupancy import CARVEOUT, LIMIT_SHARED, OCCUPANCY, REGISTERS, SHARED_DRIVER, occupancy


def predict(name: str, size: int, gpu_name: str | None = None) -> dict:
    """ncu-named predictions of every model for one catalog kernel at `size`, every block simulated."""
    launch = pipeline.resolve_catalog(name, size, {}, get_gpu(gpu_name))
    traced = pipeline.trace_results(launch, all_blocks=True)
    out: dict = {}
    for model in registry.models():
        if model.needs == "simulation":  # kernel time: judged against kernels.bench's events (analysis.timing --accuracy)
            continue
        result = traced[model.name] if model.needs == "trace" else pipeline.launch_result(model, launch)
        out.update(model.predictions(result))
    r = pipeline.compile_launch(launch).resources
    return {"metrics": out, "provenance": traced["provenance"], "ptxas_registers": r.registers,
            "static_shared": r.shared_bytes, "grid": list(launch.grid), "block": list(launch.block)}


def judge(metric: str, pred: float | None, meas: float | str | None) -> tuple[str, float | None]:
    """('ok' | 'MISS' | 'info' | 'n/a', relative error)."""
    if pred is None or meas is None or isinstance(meas, str):
        return "n/a", None
    try:
        m = registry.metric(metric)
        rule, tol = m.rule, m.tolerance
    except KeyError:
        rule, tol = "info", 0
    err = (pred - meas) / meas if meas else (0.0 if pred == 0 else float("inf"))
    if rule == "info":
        return "info", err
    if rule == "exact":
        return ("ok" if abs(pred - meas) < 1e-6 * max(1.0, abs(meas)) else "MISS"), err
    if rule == "abs":
        return ("ok" if abs(pred - meas) <= tol else "MISS"), err
    return ("ok" if abs(err) <= tol or abs(pred - meas) < 0.5 else "MISS"), err


def time_rows(timing_file: Path | None, names: list[str] | None = None) -> list[dict]:
    """Predicted vs measured kernel time per kernel with the error, from the timing accuracy run
    (analysis.timing --accuracy: no simulation here); [] when the file is absent."""
    if timing_file is None or not Path(timing_file).exists():
        return []
    d = json.loads(Path(timing_file).read_text())
    return [{"kernel": r["kernel"], "size": r["size"], "predicted_us": r["predicted_us"], "measured_us": r["measured_us"],
             "error_pct": r["error_pct"], "limiter": r["limiter"], "device": d.get("device", "?")}
            for r in d.get("rows", []) if not names or r["kernel"] in names]


def compare(measured: dict, names: list[str] | None = None, gpu_name: str | None = None,
            timing_file: Path | None = TIMING) -> dict:
    """Rows of (kernel, metric, predicted, measured, status), a summary per metric, the carveout
    probes, and the kernel times (predicted vs measured, from `timing_file`)."""
    rows, summary = [], {}
    todo = [(name, m) for name, m in measured.get("kernels", {}).items() if not names or name in names]
    for name, m in progress.track(todo, "predicting", unit="kernels, every block simulated"):
        if "metrics" not in m:
            rows.append({"kernel": name, "error": "no ncu result: " + str(m.get("error", ""))[:200]})
            continue
        try:
            p = predict(name, m["size"], gpu_name)
        except Exception as e:  # noqa: BLE001 - one kernel's failure is one row, not the end of the table
            rows.append({"kernel": name, "error": f"prediction failed: {type(e).__name__}: {str(e).splitlines()[0]}"})
            continue
        for metric in (m.name for m in registry.metrics(predicted_only=True)):
            pred, meas = p["metrics"].get(metric), m["metrics"].get(metric)
            if pred is None and meas is None:  # neither side has it (the time: compared apart, below)
                continue
            status, err = judge(metric, pred, meas)
            rows.append({"kernel": name, "size": m["size"], "metric": metric, "predicted": pred, "measured": meas,
                         "error": err, "status": status, "provenance": p["provenance"]})
            s = summary.setdefault(metric, {"ok": 0, "MISS": 0, "info": 0, "n/a": 0})
            s[status] += 1
    probes = []
    if measured.get("probes"):
        gpu = get_gpu(gpu_name)
        for pr in measured["probes"]:
            mm = pr["metrics"]
            regs = mm.get(REGISTERS.name) or 16
            occ = occupancy(gpu, int(regs), pr["threads"], pr["static"], pr["dynamic"])
            probes.append({"threads": pr["threads"], "static": pr["static"], "dynamic": pr["dynamic"],
                           "registers": regs,
                           "carveout_pred": occ.smem_carveout, "carveout_meas": mm.get(CARVEOUT.name),
                           "limit_pred": occ.limit_shared_mem,
                           "limit_meas": mm.get(LIMIT_SHARED.name),
                           "occ_pred": round(occ.occupancy_pct, 2),
                           "occ_meas": mm.get(OCCUPANCY.name),
                           "driver_reserved": mm.get(SHARED_DRIVER.name)})
    return {"device": measured.get("device"), "tool": measured.get("tool"), "binary": measured.get("binary"),
            "rows": rows, "summary": summary,
            "probes": probes, "time": time_rows(timing_file, names)}


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and not v.is_integer():
        return f"{v:,.3f}"
    return f"{int(v):,}"


def render_markdown(c: dict) -> str:
    out = ["# Predicted (cudasim + analysis models) vs measured (Nsight Compute)", "",
           f"Measured on: {c.get('device') or '?'} with {c.get('tool') or 'ncu'}; one launch per kernel at the "
           "simulator's size (`python -m analysis.collect_ncu`). Predicted: `python -m analysis.compare`, every "
           "block simulated. Rules: global requests and sectors exact; shared instructions and wavefronts "
           "within 5%; registers, occupancy limits and theoretical occupancy exact; waves within 1%; bank conflicts "
           "and the carveout are shown, not judged.", ""]
    total = {"ok": 0, "MISS": 0}
    for s in c["summary"].values():
        total["ok"] += s["ok"]
        total["MISS"] += s["MISS"]
    out.append(f"**{total['ok']} of {total['ok'] + total['MISS']} judged comparisons within tolerance.**")
    out.append("")
    out.append("| metric | ok | miss |")
    out.append("|---|---|---|")
    for metric, s in c["summary"].items():
        if registry.metric(metric).rule != "info":
            out.append(f"| `{metric}` | {s['ok']} | {s['MISS']} |")
    out.append("")
    out.append("| kernel | size | metric | predicted | measured | error | status |")
    out.append("|---|---|---|---|---|---|---|")
    for r in c["rows"]:
        if "metric" not in r:
            out.append(f"| {r['kernel']} | | | | | | {r['error']} |")
            continue
        err = "-" if r["error"] is None else ("inf" if r["error"] == float("inf") else f"{100 * r['error']:+.2f}%")
        out.append(f"| {r['kernel']} | {r['size']} | {registry.metric(r['metric']).label} | {_fmt(r['predicted'])} | "
                   f"{_fmt(r['measured'])} | {err} | {r['status']} |")
    if c["probes"]:
        out += ["", "## Shared-memory carveout probes (small CuPy kernels, 2 blocks per SM launched)", "",
                "| threads | static B | dynamic B | carveout pred | carveout meas | limit_shared pred | meas | occupancy % pred | meas |",
                "|---|---|---|---|---|---|---|---|---|"]
        for p in c["probes"]:
            out.append(f"| {p['threads']} | {p['static']} | {p['dynamic']} | {_fmt(p['carveout_pred'])} | "
                       f"{_fmt(p['carveout_meas'])} | {p['limit_pred']} | {_fmt(p['limit_meas'])} | {p['occ_pred']} | "
                       f"{_fmt(p['occ_meas'])} |")
    if c.get("binary"):
        out.insert(3, f"Binary profiled: {c['binary']}.")
    if c.get("time"):
        out += ["", f"## Kernel time at the bench size: timing model vs CUDA events ({c['time'][0]['device']})", "",
                "Predicted by `python -m analysis.timing` (no GPU, sampled and scaled from two sizes); measured by "
                "`python -m kernels.bench` (CUDA-event medians, default clocks); from `analysis/results/timing_h100.json`.",
                "", "| kernel | size | predicted us | measured us | error | limiter |", "|---|---|---:|---:|---:|---|"]
        for t in c["time"]:
            out.append(f"| {t['kernel']} | {t['size']} | {t['predicted_us']:,.1f} | {t['measured_us']:,.1f} | "
                       f"{t['error_pct']:+.1f}% | {t['limiter']} |")
    out += ["", "## What the table rests on", "", *[f"- {n}" for n in NOTES]]
    return "\n".join(out) + "\n"


NOTES = [
    "One binary: the GPU runner loads the cubin NVRTC makes (cudasim.compile.compile_cubin), the code "
    "cudasim runs and ptxas reports on. An nvcc build of the same source can differ (earlier measurement: "
    "1-2 registers on five kernels, 58 against 40 on sgemm_2d_blocktiling_small).",
    "Shared counts are SASS-level: analysis.sass regroups the PTX trace the way ptxas merged the accesses "
    "(read from the cubin with nvdisasm). Tensor-core kernels: cudasim traces wmma fragments in the tensor "
    "cores' own lane layout and widths; accesses through a generic pointer are not LDS/STS, so ncu's "
    f"{LOAD_INSTRUCTIONS.name.replace('_ld.sum', '_*')} leaves them out and so does the prediction.",
    f"{LIMIT_SHARED.name} depends on the carveout the driver picks, a rule fitted to every "
    "launch measured here (analysis.models.occupancy.driver_carveout); while it was being fitted, each version "
    "scored 11, 9 and 9 of 12 on probes added after it. Resident blocks and theoretical occupancy never "
    "depend on it.",
]


def verdict(c: dict) -> dict:
    """What the comparison comes to: judged metrics within tolerance, the misses, the kernels not predicted, and
    the kernel time's error (median, 90th percentile and worst of |predicted / measured - 1|)."""
    judged = [r for r in c["rows"] if r.get("status") in ("ok", "MISS")]
    misses = [r for r in judged if r["status"] == "MISS"]
    failed = [r for r in c["rows"] if "metric" not in r]
    out: dict = {"judged": len(judged), "ok": len(judged) - len(misses),
                 "misses": [{k: r[k] for k in ("kernel", "metric", "predicted", "measured", "error")} for r in misses],
                 "not_predicted": [{"kernel": r["kernel"], "why": r["error"]} for r in failed]}
    errs = sorted((abs(t["error_pct"]), t["kernel"]) for t in c.get("time", []))
    if errs:  # as analysis.timing --accuracy summarizes them
        e = np.array([x for x, _ in errs])
        out["time"] = {"kernels": len(errs), "median_abs_error_pct": float(np.median(e)),
                       "p90_abs_error_pct": float(np.percentile(e, 90)), "worst_abs_error_pct": errs[-1][0],
                       "worst_kernel": errs[-1][1], "device": c["time"][0]["device"]}
    return out


def render_verdict(v: dict) -> list[str]:
    """The verdict as the text report's last lines."""
    out = [f"verdict: {v['ok']} of {v['judged']} judged metrics within tolerance"
           + (f"; {len(v['not_predicted'])} kernels not predicted" if v["not_predicted"] else "")]
    for m in v["misses"]:
        err = "-" if m["error"] is None else ("inf" if m["error"] == float("inf") else f"{100 * m['error']:+.2f}%")
        out.append(f"  miss: {m['kernel']} {registry.metric(m['metric']).label}: predicted {_fmt(m['predicted'])}, "
                   f"measured {_fmt(m['measured'])} ({err})")
    for f in v["not_predicted"]:
        out.append(f"  not predicted: {f['kernel']}: {f['why']}")
    if not v["misses"] and not v["not_predicted"]:
        out.append("  misses: none")
    if t := v.get("time"):
        out.append(f"  kernel time, timing model vs CUDA events ({t['device']}, {t['kernels']} kernels): |error| median "
                   f"{t['median_abs_error_pct']:.1f}%, 90th percentile {t['p90_abs_error_pct']:.1f}%, worst "
                   f"{t['worst_abs_error_pct']:.1f}% ({t['worst_kernel']})")
    return out


def render_text(c: dict) -> str:
    out = [f"measured on {c.get('device') or '?'} ({c.get('tool') or 'ncu'}); predicted: every block simulated"]
    out.append(f"{'kernel':28s} {'metric':20s} {'predicted':>14} {'measured':>14} {'error':>9}  status")
    for r in c["rows"]:
        if "metric" not in r:
            out.append(f"{r['kernel']:28s} {r['error']}")
            continue
        err = "-" if r["error"] is None else ("inf" if r["error"] == float("inf") else f"{100 * r['error']:+.2f}%")
        out.append(f"{r['kernel']:28s} {registry.metric(r['metric']).label:20s} {_fmt(r['predicted']):>14} "
                   f"{_fmt(r['measured']):>14} {err:>9}  {r['status']}")
    if c.get("time"):
        out.append(f"kernel time at the bench size: predicted (timing model, no GPU) vs measured (CUDA events, "
                   f"{c['time'][0]['device']})")
        for t in c["time"]:
            out.append(f"{t['kernel']:28s} {'time us':20s} {t['predicted_us']:>14,.1f} {t['measured_us']:>14,.1f} "
                       f"{t['error_pct']:>+8.1f}%  {t['limiter']}")
    for p in c["probes"]:
        out.append(f"probe {p['threads']:>4} threads {p['static']:>6} B static {p['dynamic']:>6} B dyn: carveout "
                   f"{_fmt(p['carveout_pred'])} vs {_fmt(p['carveout_meas'])}, limit {p['limit_pred']} vs "
                   f"{_fmt(p['limit_meas'])}")
    return "\n".join(out + [""] + render_verdict(verdict(c)))


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m analysis.compare", description=__doc__)
    p.add_argument("--measured", default=str(RESULTS / "ncu_h100.json"),
                   help="Nsight Compute counters from python -m analysis.collect_ncu (default: %(default)s)")
    p.add_argument("--out", help=f"write the Markdown table here (the committed one: {RESULTS / 'compare_h100.md'})")
    p.add_argument("--kernels", help="comma-separated catalog names")
    p.add_argument("--gpu", help="GPU row the predictions use (default: the measured device's row)")
    p.add_argument("--timing", help=f"the timing model's accuracy run, predicted vs measured time (default: {TIMING})")
    p.add_argument("--json", action="store_true", help="print the comparison as JSON instead of the table")
    a = p.parse_args(argv)
    measured = load_measured(Path(a.measured))
    a.gpu = same_gpu(a.gpu, measured.get("device"), a.measured)
    timing = Path(a.timing) if a.timing else TIMING
    if a.timing and not timing.is_file():
        fail(f"--timing {timing}: no such file (python -m analysis.timing --accuracy --out FILE.md writes FILE.json)")
    if timing.is_file():
        try:
            rows = json.loads(timing.read_text()).get("rows")
        except (ValueError, AttributeError) as e:
            fail(f"--timing {timing}: not the JSON of python -m analysis.timing --accuracy ({type(e).__name__}: "
                 f"{str(e).splitlines()[0][:120]})")
        if not isinstance(rows, list):
            fail(f"--timing {timing}: not the JSON of python -m analysis.timing --accuracy (no \"rows\" table)")
    names = [n.strip() for n in a.kernels.split(",") if n.strip()] if a.kernels else None
    unknown = [n for n in names or [] if n not in measured.get("kernels", {})]
    if unknown:
        fail(f"--kernels {unknown[0]}: not measured in {a.measured}; it has "
             + ", ".join(measured.get("kernels", {})))
    if a.out:
        check_out(a.out)
    c = compare(measured, names, a.gpu, timing)
    if a.json:
        print(json.dumps({**c, "verdict": verdict(c)}, indent=1, default=str))
    else:
        print(render_text(c))
    if a.out:
        Path(a.out).write_text(render_markdown(c))
        print(f"wrote {a.out}")
    return 1 if verdict(c)["not_predicted"] else 0


def same_gpu(gpu_name: str | None, device, measured_file) -> str | None:
    """The GPU row to predict for beside measurements of `device`: `--gpu` where given (one line where it names
    another GPU than the measured one: its predictions would be judged against another chip's counters), else
    the measured device's row, so that a file measured on another GPU is never judged by the default row's
    predictions; None (the default row) where the file does not name its device."""
    try:
        gpu = get_gpu(gpu_name)
    except UnknownGPU as e:
        fail(str(e))
    name, row = device_name(device), device_row(device)
    if gpu_name is not None and row is not None and row.key != gpu.key:
        fail(f"--gpu {gpu_name}: {measured_file} measured {name} ({row.key}), so {gpu.key}'s predictions "
             f"would be judged by another GPU's counters: leave --gpu out, or give --measured FILE measured on the "
             f"{gpu.key}")
    if gpu_name is None and name and row is None:
        fail(f"{measured_file} measured {name}, which cudasim/gpus.json has no row for: add the GPU's row, or pass "
             f"--gpu NAME to predict for a row of your choosing")
    return gpu_name if gpu_name is not None else row.key if row is not None else None


def load_measured(path: Path, tool: str = "analysis.collect_ncu", what: str = "measurements",
                  also: str = "") -> dict:
    """A measurements file as `python -m tool` writes it, or one line naming what is wrong with it."""
    if not path.is_file():
        fail(f"{path}: no {what}; run `python -m {tool}` on the GPU machine first{also}")
    try:
        measured = json.loads(path.read_text())
    except ValueError as e:
        fail(f"{path}: not JSON ({str(e)[:80]}); give the JSON file `python -m {tool}` writes on the GPU machine")
    if not isinstance(measured, dict) or not isinstance(measured.get("kernels"), dict):
        fail(f"{path}: not a file of python -m {tool.split()[0]} (no \"kernels\" table)")
    return measured


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
