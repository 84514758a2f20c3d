"""Predictions beside measurements: one self-contained HTML page (inline SVG, no script, no
file beside it) and a Markdown summary, from the committed results, with no GPU.

    python -m analysis.report [--measured FILE ...] [--out report.html] [--budget S] [--measure]

The report is the one place that joins predictions and measurements. It reads:
  kernels/results/bench_h100.json       measured: CUDA-event times (kernels.bench), host pipelines' stages
  kernels/results/microbench_h100.json  measured: the device's rates, clocks, date (kernels.microbench)
  analysis/results/ncu_h100.json        measured: Nsight Compute counters (analysis.collect_ncu)
  analysis/results/compare_h100.md      predicted counters beside them (analysis.compare, every block simulated)
  analysis/results/timing_h100.json     predicted times, limiters, each resource's time (analysis.timing --accuracy)
  corpus/results/{corpus,holdout}_compare_h100.json  kernels beyond the catalog: predicted (no GPU)
                                        beside measured times (python -m corpus.compare --set ...)
`--measured` names other files of these kinds (recognised by content). Where a prediction is
missing (no resources in the timing file), it is computed with the registry's timing model
within `--budget` seconds, with a progress bar only on a terminal. `--measure` on a GPU
machine runs kernels.bench and the ncu collection first, into files beside --out.
"""
from __future__ import annotations

import datetime
import html
import importlib.util
import re
import sys
import time
from pathlib import Path

from cudasim import progress
from cudasim.console import Parser, check_out, fail
from cudasim.gpus import get_gpu
from cudasim.memory import reserve
from kernels import catalog

from . import plots, transfers
from .report_sources import DEFAULTS, ROOT, counters, kind_of, load
from .models.occupancy import LIMIT_BLOCKS, LIMIT_REGISTERS, LIMIT_SHARED, LIMIT_WARPS, OCCUPANCY

FAMILIES = [("sgemm", "SGEMM ladder (4096³, FP32)"), ("transpose", "Transpose (8192², float)"),
            ("dgemm", "DGEMM (4096³, FP64)"), ("vector_add", "Vector add")]
OCC_LIMITS = {m.name: why for m, why in ((LIMIT_REGISTERS, "registers"), (LIMIT_SHARED, "shared memory"),
                                          (LIMIT_WARPS, "warps"), (LIMIT_BLOCKS, "blocks"))}
OCC_PCT = OCCUPANCY.name


# ---- the sources ---------------------------------------------------------------------------

def occupancy(rows: list[dict]) -> dict | None:
    """Resident blocks per SM by each limit, the limiter, theoretical occupancy: predicted and measured."""
    v = {r["metric"]: r for r in rows}
    if not all(m in v for m in OCC_LIMITS):
        return None
    out = {}
    for side in ("predicted", "measured"):
        lim = {why: v[m][side] for m, why in OCC_LIMITS.items()}
        if any(x is None for x in lim.values()):
            continue
        low = min(lim.values())
        out[side] = {"blocks": low, "limiter": "/".join(k for k, x in lim.items() if x == low),
                     "occupancy_pct": v.get(OCC_PCT, {}).get(side)}
    return out


# ---- the join ------------------------------------------------------------------------------

def kernel_rows(src: dict, budget: float) -> tuple[list[dict], list[str]]:
    """One row per catalog kernel measured: the prediction beside the measurement."""
    bench = {r["kernel"]: r for r in src.get("bench", {}).get("data", {}).get("rows", [])}
    timing = {r["kernel"]: r for r in src.get("timing", {}).get("data", {}).get("rows", [])}
    cnt = counters(src["compare"]["data"]) if "compare" in src else {}
    notes, rows = [], []
    for name, b in bench.items():
        k = catalog.get(name)
        if k.kind == "pipeline":
            continue
        t = timing.get(name)
        if t and t["size"] != b["size"]:
            notes.append(f"{name}: predicted at size {t['size']}, measured at {b['size']}: prediction left out")
            t = None
        meas_us = b["ms"] * 1e3
        row = {"kernel": name, "family": k.family, "size": b["size"], "teaches": k.teaches, "measured_us": meas_us,
               "flops": k.flops(b["size"]), "bytes": k.min_bytes(b["size"]), "ok": b.get("ok"),
               "registers": b.get("registers"), "pct_ref": b.get("pct_cublas") or b.get("pct_copy"),
               "predicted_us": t["predicted_us"] if t else None, "limiter": t.get("limiter") if t else None,
               "how": t.get("how") if t else None, "resources": t.get("resources") if t else None,
               "advice": (t.get("advice") or [None])[0] if t else None,
               "counters": cnt.get(name)}
        row["error_pct"] = 100 * (row["predicted_us"] - meas_us) / meas_us if row["predicted_us"] else None
        rows.append(row)
    missing = [r for r in rows if r["predicted_us"] is not None and not r["resources"]]
    if missing:
        notes += _compute_resources(missing, budget)
    return rows, notes


def _compute_resources(rows: list[dict], budget: float) -> list[str]:
    """Each resource's time from the timing model, for rows whose timing file lacks it, within budget."""
    from . import timing_accuracy

    t0, notes = time.perf_counter(), []
    for r in progress.track(rows, "timing model (simulating)", unit="kernels"):
        if time.perf_counter() - t0 > budget:
            notes.append(f"{r['kernel']}: resources not computed within --budget {budget:.0f} s "
                         f"(python -m analysis.timing {r['kernel']})")
            continue
        d = timing_accuracy.predict(r["kernel"], r["size"])
        r["resources"] = d["resources"]
    return notes


def family_figures(rows: list[dict], gpu) -> dict[str, list[str]]:
    """Per family: the grouped bars of the rate, and the roofline where the kernels do FLOPs."""
    rates = gpu.timing
    clk = rates["sm_clock_mhz"]["value"] * 1e6
    ceilings = [
        {"kind": "bandwidth", "bytes": gpu.dram_gbps * 1e9, "label": f"DRAM {gpu.dram_gbps:,.0f} GB/s (datasheet)"},
        {"kind": "compute", "flops": gpu.fp32_tflops * 1e12, "label": f"FP32 {gpu.fp32_tflops} TFLOP/s (datasheet)"},
        {"kind": "compute", "flops": gpu.fp64_tflops * 1e12, "label": f"FP64 {gpu.fp64_tflops} TFLOP/s (datasheet)",
         "ls": ":"},
        {"kind": "compute", "flops": rates["tf32_mma_flop_per_clk_sm"]["value"] * gpu.sms * clk, "color": "#8172B2",
         "label": "TF32 wmma (measured, microbench)", "ls": "--"},
        {"kind": "compute", "flops": rates["fp64_mma_flop_per_clk_sm"]["value"] * gpu.sms * clk, "color": "#8172B2",
         "label": "FP64 wmma (measured, microbench)", "ls": "-."}]
    out = {}
    for fam, title in FAMILIES:
        fr = [r for r in rows if r["family"] == fam]
        if not fr:
            continue
        labels = [r["kernel"].replace("sgemm_", "").replace("dgemm_", "").replace("transpose_", "")
                  .replace("vector_add_", "") for r in fr]
        figs = []
        if fam in ("sgemm", "dgemm"):
            pred = [r["flops"] / r["predicted_us"] / 1e3 if r["predicted_us"] else None for r in fr]
            meas = [r["flops"] / r["measured_us"] / 1e3 for r in fr]
            figs.append(plots.grouped_bars(labels, pred, meas, "GFLOP/s (log)", f"{title}: GFLOP/s", log=True))
        else:
            pred = [r["bytes"] / r["predicted_us"] / 1e3 if r["predicted_us"] else None for r in fr]
            meas = [r["bytes"] / r["measured_us"] / 1e3 for r in fr]
            ceil = rates["dram_copy_gbs"]["value"]
            figs.append(plots.grouped_bars(labels, pred, meas, "GB/s of compulsory DRAM bytes",
                                           f"{title}: GB/s", log=fam == "vector_add",
                                           ceiling=(ceil, f"DRAM copy {ceil:,.0f} GB/s (measured)")))
        pts = [{"label": lab, "ai": r["flops"] / r["bytes"], "pred": r["flops"] / (r["predicted_us"] * 1e-6),
                "meas": r["flops"] / (r["measured_us"] * 1e-6)} for lab, r in zip(labels, fr)
               if r["flops"] and r["predicted_us"]]
        if pts:
            figs.append(plots.roofline(pts, ceilings, f"{title}: roofline ({gpu.name})"))
        out[fam] = figs
    return out


# ---- the page ------------------------------------------------------------------------------

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:1.5em auto;max-width:1100px;
color:#222;line-height:1.35;font-size:14px}
h1{font-size:1.5em;margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:1.6em}
h3{margin:.2em 0}table{border-collapse:collapse;margin:.5em 0;font-size:12.5px}
td,th{border-bottom:1px solid #e4e4e4;padding:2px 8px;text-align:right;vertical-align:top;white-space:nowrap}
th{background:#f4f4f4}td.l,th.l{text-align:left}td.w{white-space:normal}.p{font-size:9.5px;padding:0 3px;border-radius:3px;margin-left:3px;
white-space:nowrap}.m{background:#fbe3d3;color:#8a3c0b}.s{background:#dbe6f4;color:#1f4a7a}
.bad{color:#b00}.ok{color:#070}.card{border:1px solid #ddd;border-radius:6px;padding:.6em .9em;margin:.8em 0}
.row{display:flex;gap:1em;flex-wrap:wrap;align-items:flex-start}.row>div{flex:0 1 520px;min-width:300px}.row>div.sol{flex:0 1 400px}.row>div.tab{flex:0 0 auto}.row>div.wide{flex:1 1 640px}svg{max-width:100%;height:auto}
.small{font-size:12px;color:#555}code{background:#f3f3f3;padding:0 3px;border-radius:3px}
"""
M = '<span class="p m">measured</span>'
P = ('<span class="p s" title="predicted from the measured host-link rates, the timing model\'s kernel time and the '
     'DAG schedule">predicted</span>')


def S(how: str | None = None) -> str:
    """The label of a predicted number: simulated, or sampled and scaled."""
    sampled = how is None or "scaled" in how
    return f'<span class="p s">{"sampled+scaled" if sampled else "simulated"}</span>'


def e(x) -> str:
    return html.escape(str(x))


def _us(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v / 1e3:,.2f} ms" if v >= 1e3 else f"{v:,.1f} µs"


def _rate(r: dict, us: float | None) -> str:
    if not us:
        return "-"
    v, unit = (r["flops"] / us / 1e3, "GFLOP/s") if r["family"] in ("sgemm", "dgemm") else (r["bytes"] / us / 1e3, "GB/s")
    return f"{v:,.0f} {unit}" if v >= 10 else f"{v:.2g} {unit}"


def _err(x: float | None) -> str:
    if x is None:
        return "-"
    return f'<span class="{"bad" if abs(x) > 25 else ""}">{x:+.1f}%</span>'


def family_table(fr: list[dict]) -> str:
    head = ("<tr><th class=l>kernel</th><th>size</th><th>predicted time</th><th>measured time</th><th>error</th>"
            "<th>predicted rate</th><th>measured rate</th><th class=l>predicted limiter</th></tr>")
    body = []
    for r in fr:
        body.append(f"<tr class=kernel-row data-kernel='{e(r['kernel'])}'><td class=l><a href='#k-{e(r['kernel'])}'>"
                    f"{e(r['kernel'])}</a></td><td>{r['size']:,}</td>"
                    f"<td>{_us(r['predicted_us'])}{S(r['how'])}</td><td>{_us(r['measured_us'])}{M}</td>"
                    f"<td>{_err(r['error_pct'])}</td><td>{_rate(r, r['predicted_us'])}{S(r['how'])}</td>"
                    f"<td>{_rate(r, r['measured_us'])}{M}</td><td class=l>{e(r['limiter'] or '-')}</td></tr>")
    return f"<table>{head}{''.join(body)}</table>"


def kernel_card(r: dict) -> str:
    """One kernel: time and error, limiter, SOL bars, counters and occupancy, where to look next."""
    parts = [f"<div class=card id='k-{e(r['kernel'])}'><h3>{e(r['kernel'])} <span class=small>({e(r['family'])}, "
             f"size {r['size']:,}: {e(r['teaches'])})</span></h3>",
             f"<p>time: predicted {_us(r['predicted_us'])}{S(r['how'])}, measured {_us(r['measured_us'])}{M}, "
             f"error {_err(r['error_pct'])}; limiter <b>{e(r['limiter'] or '-')}</b>"
             + (f"; {e(r['advice'])}" if r.get("advice") else "") + "</p><div class=row>"]
    if r["resources"]:
        parts.append(f"<div class=sol><b>Speed of light</b> (each resource's time / predicted time){S(r['how'])}"
                     f"{plots.sol_bars(r['resources'], r['limiter'])}</div>")
    c = r["counters"]
    if c:
        occ = occupancy(c["rows"])
        rows = "".join(f"<tr><td class=l>{e(x['label'])}</td><td>{_fmt(x['predicted'])}</td><td>{_fmt(x['measured'])}</td>"
                       f"<td>{e(x['error'])}</td><td class='{'ok' if x['status'] == 'ok' else ''}'>{e(x['status'])}</td></tr>"
                       for x in c["rows"])
        occ_txt = ""
        if occ and "predicted" in occ:
            p, m = occ["predicted"], occ.get("measured", {})
            occ_txt = (f"<p>occupancy: {p['blocks']:g} blocks/SM, limited by <b>{e(p['limiter'])}</b>, "
                       f"{_fmt(p['occupancy_pct'])}% theoretical{S('simulated')}; ncu: {_fmt(m.get('blocks'))} blocks/SM "
                       f"by {e(m.get('limiter', '-'))}, {_fmt(m.get('occupancy_pct'))}%{M}</p>")
        parts.append(f"<div>{occ_txt}<b>Counters at size {c['size']:,}</b>: predicted{S('simulated (all blocks)')} vs "
                     f"Nsight Compute{M}<table><tr><th class=l>metric</th><th>predicted</th><th>ncu</th><th>error</th>"
                     f"<th>status</th></tr>{rows}</table></div>")
    parts.append(f"</div><p class=small>Hottest source lines: not in the committed results; "
                 f"<code>python -m analysis.coalescing {e(r['kernel'])}</code> and "
                 f"<code>python -m analysis.banks {e(r['kernel'])}</code> list them per line.</p></div>")
    return "".join(parts)


def _fmt(v) -> str:
    if v is None:
        return "-"
    return f"{v:,.0f}" if float(v).is_integer() else f"{v:,.3g}"


def transfer_section(bench_file: Path | None) -> tuple[str, list[dict]]:
    """The host pipelines: predicted stages and timeline beside the measured ones."""
    out, md = [], []
    for name in transfers.PIPELINES:
        p = transfers.predict(name)
        m = transfers.measured(name, bench_file) if bench_file else None
        if m and m["size"] != p["size"]:
            m = None
        rows = transfers.comparison(p, m)
        md.append({"pipeline": name, "rows": rows})
        trs = []
        for x in rows:
            if "predicted_pct" in x:
                trs.append(f"<tr><td class=l>{e(x['what'])}</td><td>{x['predicted_pct']:.1f}%{P}</td>"
                           f"<td>{x['measured_pct']:.1f}%{M}</td><td></td></tr>")
            else:
                meas = "-" if x["measured_ms"] is None else f"{x['measured_ms']:.3f} ms{M}"
                trs.append(f"<tr><td class=l>{e(x['what'])}</td><td>{x['predicted_ms']:.3f} ms{P}</td>"
                           f"<td>{meas}</td><td>{_err(x['error_pct'])}</td></tr>")
        bound = (f"<p class=small>If each direction slowed to {100 * p['bidir_factor']:.0f}% of its rate while the other "
                 f"copies (the measured two-direction rate): {p['bidir_bound_ms']:.2f} ms.</p>") if "bidir_bound_ms" in p else ""
        fig = plots.gantt(p["ops"], m, f"{name}: predicted timeline ({p['chunks']} chunk(s))") if p["chunks"] > 1 else ""
        out.append(f"<div class=card><h3>{e(name)}</h3><p class=small>{p['size']:,} floats per array; host link "
                   f"H2D {p['rates_gbs']['h2d']:.2f} GB/s, D2H {p['rates_gbs']['d2h']:.2f} GB/s{M} "
                   f"(cudasim/gpus.json host_link, from kernels.microbench); kernel: {e(p['kernel_source'])}</p>"
                   f"<div class=row><div class=tab><table><tr><th class=l>stage</th><th>predicted</th><th>measured</th>"
                   f"<th>error</th></tr>{''.join(trs)}</table>{bound}</div>"
                   + (f"<div class=wide>{fig}</div>" if fig else "") + "</div></div>")
    return "".join(out), md


UNSEEN_TITLES = {"corpus": "corpus: common patterns beyond the catalog (their errors were looked at while the timing "
                           "model was built)",
                 "holdout": "held out: kernels nobody looked at until the model was frozen"}


def unseen_sets(src: dict) -> list[dict]:
    """Per set of kernels the models were not built on: its summary and rows, as corpus.compare wrote them."""
    out = []
    for k in sorted(x for x in src if x.startswith("unseen:")):
        d = src[k]["data"]
        name = k.split(":")[1]
        rows = [{"kernel": t["kernel"], "pattern": t["pattern"], "predicted_us": t.get("predicted_us"),
                 "measured_us": t.get("measured_event_us"), "error_pct": t.get("error_pct"), "limiter": t.get("limiter"),
                 "refused": "; ".join(f"{m}: {r}" for m, r in t.get("refusals", {}).items())} for t in d["times"]]
        out.append({"set": name, "title": UNSEEN_TITLES.get(name, name), "summary": d["time_summary"], "rows": rows,
                    "file": src[k]["file"]})
    return out


def unseen_section(sets: list[dict], catalog_rows: list[dict]) -> tuple[str, list[str]]:
    """HTML and Markdown: each set's predicted vs measured times, and every kernel's point on one picture."""
    if not sets:
        return "", []
    points = [{"set": "catalog", "predicted_us": r["predicted_us"], "measured_us": r["measured_us"]}
              for r in catalog_rows if r["predicted_us"] and r["measured_us"]]
    points += [{"set": u["set"], "predicted_us": r["predicted_us"], "measured_us": r["measured_us"]}
               for u in sets for r in u["rows"] if r["predicted_us"] and r["measured_us"]]
    html_parts = ["<h2>Beyond the catalog</h2><p class=small>Predicted by the same models, unchanged, "
                  "against CUDA events at default clocks (<code>python -m corpus.compare --set SET</code>).</p>",
                  f"<div class=row><div>{plots.accuracy_scatter(points, 'Every kernel: predicted vs measured time')}"
                  "</div></div>"]
    md = ["", "## Beyond the catalog", ""]
    for u in sets:
        s = u["summary"]
        line = (f"median |error| {s['median_abs_error_pct']:.1f}%, 90th percentile {s['p90_abs_error_pct']:.1f}%, "
                f"worst {s['max_abs_error_pct']:.1f}% over {s['kernels_timed']} of {s['kernels']} kernels "
                f"({s['within_25_pct']} within 25%)")
        rows = "".join(f"<tr><td class=l>{e(r['kernel'])}</td><td class=l>{e(r['pattern'])}</td>"
                       f"<td>{_us(r['predicted_us'])}{S()}</td><td>{_us(r['measured_us'])}{M}</td>"
                       f"<td>{_err(r['error_pct'])}</td><td class=l>{e(r['limiter'] or r['refused'] or '-')}</td></tr>"
                       for r in u["rows"])
        html_parts.append(f"<h3>{e(u['title'])}</h3><p>{e(line)} (<code>{e(u['file'])}</code>)</p><table><tr>"
                          "<th class=l>kernel</th><th class=l>pattern</th><th>predicted</th><th>measured</th><th>error</th>"
                          f"<th class=l>limiter</th></tr>{rows}</table>")
        md += [f"**{u['title']}**: {line}.", "", "| kernel | predicted | measured | error | limiter |",
               "|---|---:|---:|---:|---|"]
        md += [f"| {r['kernel']} | {_us(r['predicted_us'])} | {_us(r['measured_us'])} | "
               f"{'-' if r['error_pct'] is None else format(r['error_pct'], '+.1f') + '%'} | "
               f"{r['limiter'] or r['refused'] or '-'} |" for r in u["rows"]]
        md.append("")
    return "".join(html_parts), md


def summary(rows: list[dict]) -> dict:
    """Median and worst |error| of the predicted times, and how many kernels were joined."""
    errs = sorted(abs(r["error_pct"]) for r in rows if r["error_pct"] is not None)
    if not errs:
        return {"kernels": len(rows), "joined": 0}
    mid = len(errs) // 2
    med = errs[mid] if len(errs) % 2 else (errs[mid - 1] + errs[mid]) / 2
    return {"kernels": len(rows), "joined": len(errs), "median_abs_error_pct": med, "max_abs_error_pct": errs[-1]}


def build(src: dict, budget: float = 60.0, notes: list[str] | None = None) -> tuple[str, str]:
    """The page (HTML) and its Markdown summary, from the loaded sources."""
    gpu = get_gpu()
    rows, more = kernel_rows(src, budget)
    notes = (notes or []) + more
    figs = family_figures(rows, gpu)
    s = summary(rows)
    bench_file = ROOT / src["bench"]["file"] if "bench" in src else None
    tr_html, tr_md = transfer_section(bench_file)
    judged = re.search(r"\*\*(\d+) of (\d+) judged", src.get("compare", {}).get("data", ""))
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    srcs = "".join(f"<tr><td class=l>{e(k)}</td><td class=l><code>{e(v['file'])}</code></td><td class='l w'>{e(v['line'])}"
                   f"</td><td class='l w'>{e(v['device'])}</td><td class='l w'>{e(v['date'])}</td></tr>" for k, v in src.items())
    head = (f"<h1>cudaperf: predicted beside measured</h1><p class=small>Built {stamp} by <code>python -m analysis.report"
            f"</code>. Predictions: cudasim + the analysis models on a CPU, for {e(gpu.name)} (no GPU). Measurements: "
            f"the committed results of the H100 runs. Labels: {M} = on the GPU; "
            f"{S('simulated')} = every block simulated; {S()} = sampled blocks, or two smaller sizes, scaled; {P} = "
            f"host transfers predicted from measured rates.</p>"
            f"<div class=card><b>Time</b>: median |error| {s.get('median_abs_error_pct', float('nan')):.1f}%, worst "
            f"{s.get('max_abs_error_pct', float('nan')):.1f}% over {s['joined']} kernels (timing model vs CUDA events). "
            + (f"<b>Counters</b>: {judged.group(1)} of {judged.group(2)} judged Nsight Compute metrics within tolerance. "
               if judged else "") + "</div>"
            f"<h2>Sources</h2><table><tr><th class=l>kind</th><th class=l>file</th><th class=l>what</th>"
            f"<th class=l>device</th><th class=l>when</th></tr>{srcs}</table>")
    body = [head, "<h2>Families</h2>"]
    for fam, title in FAMILIES:
        fr = [r for r in rows if r["family"] == fam]
        if fr:
            body.append(f"<h3 id='f-{fam}'>{e(title)}</h3>{family_table(fr)}<div class=row>"
                        + "".join(f"<div>{f}</div>" for f in figs.get(fam, [])) + "</div>")
    body.append("<h2>Host transfers: pageable, pinned, streams</h2><p class=small>Predicted by "
                "<code>python -m analysis.transfers</code>: copies at the host link's measured rates, one copy engine "
                "per direction, the kernel from the timing model; streams scheduled as a DAG over the engines.</p>"
                + tr_html)
    unseen_html, unseen_md = unseen_section(unseen_sets(src), rows)
    body.append(unseen_html)
    body.append("<h2>Per kernel</h2>" + "".join(kernel_card(r) for r in rows))
    if notes:
        body.append("<h2>Notes</h2><ul>" + "".join(f"<li>{e(n)}</li>" for n in notes) + "</ul>")
    page = (f"<!DOCTYPE html><html lang=en><head><meta charset=utf-8><title>cudaperf report</title>"
            f"<style>{CSS}</style></head><body>{''.join(body)}</body></html>\n")
    return page, markdown(rows, s, tr_md, src, stamp, judged, unseen_md)


def markdown(rows: list[dict], s: dict, tr: list[dict], src: dict, stamp: str, judged, unseen: list[str]) -> str:
    """The summary: per family predicted vs measured, the transfers, the sources."""
    out = ["# cudaperf: predicted beside measured", "",
           f"Built {stamp} by `python -m analysis.report`. Predicted: timing model over the simulation (no GPU; "
           "sampled and scaled from two sizes). Measured: CUDA events on the H100 (kernels.bench).", ""]
    if s.get("joined"):
        out.append(f"Time: median |error| {s['median_abs_error_pct']:.1f}%, worst {s['max_abs_error_pct']:.1f}% over "
                   f"{s['joined']} kernels." + (f" Counters: {judged.group(1)} of {judged.group(2)} judged ncu metrics "
                                               "within tolerance." if judged else ""))
    for fam, title in FAMILIES:
        fr = [r for r in rows if r["family"] == fam]
        if not fr:
            continue
        out += ["", f"## {title}", "", "| kernel | predicted (sampled+scaled) | measured | error | predicted rate | "
                "measured rate | limiter |", "|---|---:|---:|---:|---:|---:|---|"]
        for r in fr:
            err = "-" if r["error_pct"] is None else f"{r['error_pct']:+.1f}%"
            out.append(f"| {r['kernel']} | {_us(r['predicted_us'])} | {_us(r['measured_us'])} | {err} | "
                       f"{_rate(r, r['predicted_us'])} | {_rate(r, r['measured_us'])} | {r['limiter'] or '-'} |")
    out += ["", "## Host transfers (predicted by analysis.transfers vs measured)"]
    for t in tr:
        out += ["", f"**{t['pipeline']}**", "", "| stage | predicted | measured | error |", "|---|---:|---:|---:|"]
        for x in t["rows"]:
            if "predicted_pct" in x:
                out.append(f"| {x['what']} | {x['predicted_pct']:.1f}% | {x['measured_pct']:.1f}% | |")
            else:
                meas = "-" if x["measured_ms"] is None else f"{x['measured_ms']:.3f} ms"
                err = "-" if x["error_pct"] is None else f"{x['error_pct']:+.1f}%"
                out.append(f"| {x['what']} | {x['predicted_ms']:.3f} ms | {meas} | {err} |")
    out += unseen
    out += ["", "## Sources", ""] + [f"- {k}: `{v['file']}`: {v['line']}; {v['device']}; {v['date']}"
                                     for k, v in src.items()]
    return "\n".join(out) + "\n"


def fresh_compare(ncu: dict, ncu_file: str, budget: float) -> tuple[dict, list[str]]:
    """analysis.compare over an ncu file other than the committed one (its counters are then not the
    committed table's), kernel by kernel within `budget` seconds; the source entry and notes."""
    from . import compare

    t0, merged, notes = time.perf_counter(), None, []
    for name in ncu.get("kernels", {}):
        if time.perf_counter() - t0 > budget:
            notes.append(f"{name}: counters not predicted within --budget {budget:.0f} s "
                         f"(python -m analysis.compare --measured {ncu_file} --kernels {name})")
            continue
        c = compare.compare({**ncu, "probes": []}, [name])
        if merged is None:
            merged = c
            continue
        merged["rows"] += c["rows"]
        for metric, counts in c["summary"].items():
            into = merged["summary"].setdefault(metric, dict.fromkeys(counts, 0))
            for k, v in counts.items():
                into[k] += v
    text = compare.render_markdown(merged) if merged else ""
    return {"file": f"computed now by analysis.compare against {ncu_file}", "data": text,
            "line": "predicted (every block simulated) beside the ncu counters", "device": ncu.get("device", "?"),
            "date": "now"}, notes


def measure(out_dir: Path) -> list[Path] | str:
    """On a GPU machine: kernels.bench and the ncu collection into `out_dir`; a one-line reason when
    there is no GPU (pycuda is looked for here, never imported: kernels.gpu imports it)."""
    if importlib.util.find_spec("pycuda") is None:
        return "error: --measure needs a CUDA GPU and pycuda (pip install -e '.[gpu]'); pycuda is not installed here"
    from kernels import bench, gpu

    try:
        _, dev = gpu.init()
    except gpu.GpuUnavailable as err:
        return f"error: --measure: {err}"
    from .measured import COMMITTED_GPU, committed

    if not committed(dev):
        return (f"error: --measure: this GPU is {dev.get('name', 'unnamed')}; the report puts measurements beside the "
                f"{COMMITTED_GPU}'s predictions (the GPU whose rates were measured): run it on an H100, or compare "
                f"this GPU's counters with python -m analysis.compare --measured FILE")
    out_dir.mkdir(parents=True, exist_ok=True)
    bench_file = out_dir / "bench.json"
    if bench.main(["--out", str(bench_file)]) == 2 or not bench_file.exists():
        return "error: --measure: kernels.bench could not run (see above)"
    files = [bench_file]
    from . import collect_ncu

    try:
        collect_ncu.find_ncu()
        collect_ncu.collect(out_dir / "ncu.json", None, probes=False)
        files.append(out_dir / "ncu.json")
    except (OSError, RuntimeError, SystemExit) as err:
        print(f"note: no ncu collection ({err}); the committed counters are shown", file=sys.stderr)
    return files


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m analysis.report", description=__doc__)
    p.add_argument("--measured", nargs="*", default=[], help="results files to use instead of the committed ones "
                   "(bench, microbench, ncu JSON; compare Markdown; timing JSON), recognised by content")
    p.add_argument("--out", default="report.html", help="the page (default report.html here); the Markdown beside it")
    p.add_argument("--budget", type=float, default=60.0, help="seconds allowed for predictions not committed")
    p.add_argument("--measure", action="store_true", help="on a GPU machine: run kernels.bench and ncu first")
    a = p.parse_args(argv)
    if not 0 <= a.budget < float("inf"):
        fail(f"--budget {a.budget}: a number of seconds, 0 or more (and finite)")
    if "--measured" in (argv if argv is not None else sys.argv[1:]) and not a.measured:
        fail("--measured: give the results files after it (kernels.bench, ncu or timing JSON; compare Markdown)")
    out = Path(a.out)
    if out.suffix != ".html":  # the Markdown goes beside it, as .md: any other name could be overwritten by it
        fail(f"--out {a.out}: the page is HTML and the Markdown is written beside it as .md; give a name ending in "
             f".html, e.g. {out.with_suffix('.html')}")
    check_out(a.out, makes_folders=True)
    paths = list(DEFAULTS)
    extra = [Path(x) for x in a.measured]
    if a.measure:
        got = measure(out.parent / (out.stem + "_measured"))
        if isinstance(got, str):
            print(got, file=sys.stderr)
            return 2
        extra += got
    for x in extra:
        if not x.exists():
            print(f"error: {x}: no such file", file=sys.stderr)
            return 2
        if x.is_dir():
            fail(f"--measured {x}: a folder; give the results files in it")
        if not x.is_file():  # a pipe or a device would be read until it ended: perhaps never
            fail(f"--measured {x}: not a regular file (a pipe or device); give a results file")
        reserve(4 * x.stat().st_size, f"--measured {x} ({x.stat().st_size / 2**30:,.1f} GiB)")
    kinds = {}
    for x in extra:
        try:
            kinds[kind_of(x)] = x
        except (ValueError, AttributeError, TypeError) as e:
            fail(f"--measured {x}: not a results file of this project (bench, microbench, ncu or timing JSON, or "
                 f"compare Markdown): {type(e).__name__}: {str(e).splitlines()[0][:120]}")
    given = set(kinds)
    paths = [kinds.pop(kind_of(d), d) for d in paths if d.exists()] + list(kinds.values())
    src, notes = load(paths), []
    if "ncu" in given and "compare" not in given:  # new counters: predict them, not the committed table's
        src["compare"], notes = fresh_compare(src["ncu"]["data"], src["ncu"]["file"], a.budget)
    page, md = build(src, a.budget, notes)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page)
    out.with_suffix(".md").write_text(md)
    print(f"wrote {out} ({len(page) / 1024:,.0f} KiB, self-contained) and {out.with_suffix('.md')}")
    return 0


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
