"""The corpus out of sample: every model's prediction (no GPU) against what the H100 measured.

    python -m corpus.compare [--set corpus|holdout] [--measured corpus/results/SET_h100.json] [--kernels a,b]
                             [--jobs N] [--out corpus/results/corpus_compare_h100.md]

Counters: each corpus launch resolved as analysis.pipeline resolves a file target (the corpus
entry supplies the inputs, so data-dependent kernels see the measured data), simulated with the
pipeline's default block sampling, every registered model's ncu-named prediction judged by
analysis.compare.judge (the rule and tolerance the registry declares) against ncu's counter.
Time: analysis.timing's prediction (CUDA-event time at default clocks) against the CUDA-event
median measured at default clocks. Nothing here is fitted: a model or the simulator refusing a
kernel is a row saying so. Writes Markdown and, beside it, the same as JSON.
"""
from __future__ import annotations

import contextlib
import importlib
import json
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from analysis import pipeline, registry, simulation
from analysis.compare import judge, load_measured, same_gpu
from analysis.measured import run_line
from analysis.models.timing import l1_hit_pct
from cudasim import progress
from cudasim.console import Parser, check_out, fail
from cudasim.gpus import get_gpu

from . import manifest
from .sets import DEFAULT, SETS, TITLES, load_set, measured_path

ROOT = Path(__file__).resolve().parent.parent


def resolve(k: manifest.CorpusKernel, gpu_name: str | None = None) -> pipeline.ResolvedLaunch:
    gpu = get_gpu(gpu_name)
    grid, block, shared = k.launch(k.size, gpu.sms)
    return pipeline.ResolvedLaunch(f"corpus/{k.source}::{k.entry}", k.entry, k.path.read_text(), str(k.path), (),
                                   pipeline._dim3(grid), pipeline._dim3(block), int(shared), gpu, k.size, k)


def _one_line(e: Exception) -> str:
    return f"{type(e).__name__}: {(str(e).splitlines() or [''])[0][:220]}"


def predict(k: manifest.CorpusKernel, gpu_name: str | None = None, all_blocks: bool = False) -> dict:
    """Every model's predictions for the corpus launch; refusals as one line each."""
    launch = resolve(k, gpu_name)
    out: dict = {"metrics": {}, "refusals": {}, "notes": []}
    t0 = time.perf_counter()
    try:
        traced = pipeline.trace_results(launch, all_blocks=all_blocks)
        out["provenance"] = traced["provenance"]
        out["notes"] = traced.get("notes", [])
        out["findings"] = traced.get("findings", [])
        out["contention"] = bool((traced.get("banks") or {}).get("contention"))
    except Exception as e:  # noqa: BLE001 - a refusal is a row
        traced = None
        out["refusals"]["simulation"] = _one_line(e)
    for model in registry.models():
        if model.needs == "simulation":
            continue
        try:
            if model.needs == "trace":
                if traced is None:
                    continue
                result = traced[model.name]
            else:
                result = pipeline.launch_result(model, launch)
            out["metrics"].update(model.predictions(result))
        except Exception as e:  # noqa: BLE001
            out["refusals"][model.name] = _one_line(e)
    out["counter_seconds"] = round(time.perf_counter() - t0, 1)
    t0 = time.perf_counter()
    try:
        t = simulation.result(registry.get("timing"), launch)
        out["time_us"], out["limiter"], out["timing_provenance"] = t["time_us"], t["limiter"], t["provenance"]
        c = t.get("counts", {})
        w = c.get("warp_instructions")
        out["warp_instructions"] = None if w is None else int(round(w))  # a count: an int, as ncu's
        out["l1_hit_pct"] = l1_hit_pct(c)
    except Exception as e:  # noqa: BLE001
        out["refusals"]["timing"] = _one_line(e)
    out["timing_seconds"] = round(time.perf_counter() - t0, 1)
    return out


def cause(metric: str, pred: float, got: float, p: dict) -> str:
    """What is known of a miss: ncu's contention wavefronts, the retries of a compare-and-swap loop, a count
    from sampled blocks, or nothing."""
    if metric.endswith(("op_shared_ld.sum", "mem_shared_op_ld.sum")) and pred < got and \
            any("compare-and-swap loop" in n for n in p.get("notes", [])):
        return ("the retries of ptxas's compare-and-swap loop for a shared atomic (lanes on one word, warps racing "
                "for it), one trip counted")
    if metric.endswith("wavefronts_mem_shared_op_st.sum") and pred < got and p.get("contention"):
        return ("ncu's contention wavefronts on shared stores of global data, not modelled "
                "(tests/contention_h100.json)")
    if "mem_global" in metric and str(p.get("provenance", "")).startswith("sampled"):
        return "counted from sampled blocks, an estimate where blocks differ; --all-blocks counts every block"
    return "not explained"


def _predict_named(job: tuple[str, str, str | None, bool]) -> dict:
    """predict() of a kernel named in a set module, in a worker process (kernels hold lambdas: names travel)."""
    module, name, gpu_name, all_blocks = job
    return predict(importlib.import_module(module).get(name), gpu_name, all_blocks)


def compare(measured: dict, names: list[str] | None = None, gpu_name: str | None = None,
            all_blocks: bool = False, kernel_set=manifest, jobs: int = 1) -> dict:
    rows, times, summary = [], [], {}
    judged = [m.name for m in registry.metrics(predicted_only=True)]
    todo = [(name, meas) for name, meas in measured["kernels"].items() if not names or name in names]
    work = [(kernel_set.__name__, name, gpu_name, all_blocks) for name, _ in todo]
    parallel = jobs > 1 and len(todo) > 1
    with ProcessPoolExecutor(jobs) if parallel else contextlib.nullcontext() as pool:  # closed on any exit
        predictions = pool.map(_predict_named, work) if parallel else map(_predict_named, work)
        for (name, meas), p in progress.track(zip(todo, predictions), "predicting", total=len(todo),
                                              unit="kernels: counters and time"):
            k = kernel_set.get(name)
            mm = meas.get("ncu", {}).get("metrics", {})
            for metric in judged:
                pred, got = p["metrics"].get(metric), mm.get(metric)
                status, err = judge(metric, pred, got)
                rows.append({"kernel": name, "metric": metric, "predicted": pred, "measured": got, "error": err,
                             "status": status, "unit": registry.metric(metric).unit})
                if status == "MISS":
                    rows[-1]["cause"] = cause(metric, pred, got, p)
                s = summary.setdefault(metric, {"ok": 0, "MISS": 0, "info": 0, "n/a": 0})
                s[status] += 1
            ev = meas.get("event_ms")
            t = {"kernel": name, "pattern": k.pattern, "measured_event_us": ev * 1e3 if ev else None,
                 "measured_event_repeat_us": meas.get("event_ms_repeat", 0) * 1e3 or None,
                 "measured_ncu_us": mm.get("gpu__time_duration.sum", 0) / 1e3 or None,
                 "predicted_us": p.get("time_us"), "limiter": p.get("limiter"), "verified": meas.get("ok"),
                 "predicted_warp_instructions": p.get("warp_instructions"), "predicted_l1_hit_pct": p.get("l1_hit_pct"),
                 "provenance": p.get("provenance"), "refusals": p["refusals"], "notes": p["notes"][:4],
                 "findings": p.get("findings", [])[:3]}
            if t["predicted_us"] is not None and t["measured_event_us"]:
                t["error_pct"] = 100 * (t["predicted_us"] - t["measured_event_us"]) / t["measured_event_us"]
            if meas.get("inputs_sha256") and k.inputs_digest() != meas["inputs_sha256"]:
                t["inputs_differ"] = True  # this machine's generators drew other inputs than the measuring one's
            times.append(t)
    errs = np.array([abs(t["error_pct"]) for t in times if "error_pct" in t])
    tsum = {"kernels_timed": int(errs.size), "kernels": len(times),
            "median_abs_error_pct": float(np.median(errs)) if errs.size else None,
            "p90_abs_error_pct": float(np.percentile(errs, 90)) if errs.size else None,
            "max_abs_error_pct": float(errs.max()) if errs.size else None,
            "within_25_pct": int((errs <= 25).sum()), "over_50_pct": [t["kernel"] for t in times
                                                                     if abs(t.get("error_pct", 0)) > 50]}
    ok = sum(s["ok"] for s in summary.values())
    miss = sum(s["MISS"] for s in summary.values())
    misses = [f"{r['kernel']}: {r['metric']} predicted {r['predicted']} measured {r['measured']} ({r['cause']})"
              for r in rows if r["status"] == "MISS"]
    return {"device": measured["device"], "measured_date": measured.get("date"), "protocols": measured.get("protocols"),
            "inputs_made_by": measured.get("inputs_made_by"),
            "ncu_tool": (measured.get("ncu_tool") or "").splitlines()[-1:] or None,
            "run": run_line(ROOT),
            "counters": {"judged_ok": ok, "judged_miss": miss, "per_metric": summary, "misses": misses},
            "time_summary": tsum, "times": times, "rows": rows}


def add_issued(c: dict, profile: dict, where: str) -> None:
    """Beside each kernel's time, the SASS warp instructions the timing model walked and its share of global-load
    sectors that hit in L1, against ncu's in the set's profile run (smsp__inst_executed.sum; lookup_hit over the
    op_ld sectors), and their summaries."""
    errs, hits = [], []
    for t in c["times"]:
        m = profile.get("kernels", {}).get(t["kernel"], {}).get("metrics", {})
        got = m.get("smsp__inst_executed.sum")
        t["measured_warp_instructions"] = got
        if got and t.get("predicted_warp_instructions"):
            errs.append(abs(t["predicted_warp_instructions"] - got) / got * 100)
        secs = m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum")
        if secs and m.get("l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum") is not None:
            t["measured_l1_hit_pct"] = 100.0 * m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum"] / secs
            if t.get("predicted_l1_hit_pct") is not None:
                hits.append(abs(t["predicted_l1_hit_pct"] - t["measured_l1_hit_pct"]))
    if errs:
        c["issued_summary"] = {"file": where, "kernels": len(errs), "median_abs_error_pct": float(np.median(errs)),
                               "within_5_pct": int(sum(e <= 5 for e in errs)),
                               "over_25_pct": int(sum(e > 25 for e in errs))}
    if hits:
        c["l1_hit_summary"] = {"file": where, "kernels": len(hits), "median_abs_points": float(np.median(hits)),
                               "within_10_points": int(sum(h <= 10 for h in hits)),
                               "over_25_points": int(sum(h > 25 for h in hits))}


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float) and not float(v).is_integer():
        return f"{v:,.2f}"
    return f"{int(v):,}"


PROVENANCE = {  # what a table's predictions are, for a held-out set and for the project's own corpus
    False: "No model is fitted to these measurements, but this is not a blind check: the set was first predicted "
           "before its kernels were seen, and the models have changed since, some after its misses (the blind "
           "figures are in the issues' notes).",
    True: "No model is fitted to these measurements, but the models' developers wrote these kernels and have seen "
          "their misses: a check beyond the catalog, not a blind one."}


def _differ_lines(c: dict) -> list[str]:
    """A warning where the inputs generated here are not the bytes the GPU ran (the measured file's digest)."""
    odd = [t["kernel"] for t in c["times"] if t.get("inputs_differ")]
    if not odd:
        return []
    return [f"**Inputs differ from those measured** for {', '.join(odd)}: generated here with numpy "
            f"{np.__version__}, measured with inputs made by {c.get('inputs_made_by') or 'another numpy'}; where "
            f"addresses or branches follow the data, these predictions are for other data than the GPU ran.", ""]


def markdown(c: dict) -> str:
    s, cs = c["time_summary"], c["counters"]
    dev = c["device"]
    blocks = c.get("counter_blocks", "the pipeline's sampled blocks")
    name = c.get("set", DEFAULT)
    flag = "" if name == DEFAULT else f" --set {name}"
    measured_file = c.get("measured_file", f"corpus/results/{name}_h100.json")
    short = str(dev.get("name") or "GPU").removeprefix("NVIDIA ")
    L = [f"# {TITLES[name]} out of sample: predicted (no GPU) vs measured ({short})", "",
         f"Measured on {dev.get('name')} (nvidia-smi: {dev.get('smi')}), {c['measured_date']} "
         f"(`python -m corpus.measure{flag}`, `{measured_file}`); ncu: {c['ncu_tool']}. "
         f"Predicted: `python -m corpus.compare{flag}` ({c['run']}). {PROVENANCE[name == DEFAULT]}", "",
         "Protocols. **event us**: CUDA events, median of >= 20 launches after 3 warm-ups, inputs rotated "
         "when they fit in L2, default clocks (not locked), as `kernels.bench`; *again*: the same measured a second "
         "time (the spread). **ncu us**: `gpu__time_duration.sum` under ncu's defaults, SM clock locked to base, "
         "caches flushed (context only, not judged). **predicted us**: `analysis.timing`, which predicts the event "
         "time at default clocks. Counters: ncu (same launch), judged by `analysis.compare.judge` with the "
         "registry's rules (exact / relative tolerance); counters predicted from " + blocks + ".", "",
         *_differ_lines(c), "## Time", "",
         (f"**Median |error| {s['median_abs_error_pct']:.1f}%, 90th percentile {s['p90_abs_error_pct']:.1f}%, "
          f"max {s['max_abs_error_pct']:.1f}%** over {s['kernels_timed']} of {s['kernels']} kernels "
          f"({s['within_25_pct']} within 25%); over 50%: {', '.join(s['over_50_pct']) or 'none'}."
          if s["kernels_timed"] else f"**No kernel timed** of {s['kernels']}: every time prediction was refused "
          f"(see Refusals)."), "",
         "| kernel | pattern | verified | event us | again us | ncu us (base clk) | predicted us | error % | limiter |",
         "|---|---|---|---:|---:|---:|---:|---:|---|"]
    for t in c["times"]:
        err = f"{t['error_pct']:+.1f}" if "error_pct" in t else "refused"
        L.append(f"| {t['kernel']} | {t['pattern']} | {'yes' if t['verified'] else 'NO'} | "
                 f"{_fmt(t['measured_event_us'])} | {_fmt(t['measured_event_repeat_us'])} | "
                 f"{_fmt(t['measured_ncu_us'])} | {_fmt(t['predicted_us'])} | {err} | {t['limiter'] or '-'} |")
    if (i := c.get("issued_summary")):
        L += ["", f"SASS warp instructions the timing model issues against ncu's `smsp__inst_executed.sum` "
                  f"(`{i['file']}`, the same launch): median |error| {i['median_abs_error_pct']:.1f}% over "
                  f"{i['kernels']} kernels, {i['within_5_pct']} within 5%, {i['over_25_pct']} over 25%."]
    if (h := c.get("l1_hit_summary")):
        L += ["", f"Global-load sectors that hit in L1, predicted by the timing model against ncu's "
                  f"`l1tex__t_sectors_pipe_lsu_mem_global_op_ld_lookup_hit.sum` over `..._op_ld.sum` (`{h['file']}`): "
                  f"median |difference| {h['median_abs_points']:.1f} points over {h['kernels']} kernels, "
                  f"{h['within_10_points']} within 10 points, {h['over_25_points']} over 25."]
    ref = [(t["kernel"], m, r) for t in c["times"] for m, r in t["refusals"].items()]
    L += ["", "## Refusals", ""]
    L += [f"- {k} ({m}): {r}" for k, m, r in ref] or ["- none"]
    L += ["", "## Counters", "",
          f"**{cs['judged_ok']} of {cs['judged_ok'] + cs['judged_miss']} judged comparisons within tolerance.**", "",
          "| metric | unit | ok | miss | n/a |", "|---|---|---|---|---|"]
    for metric, x in cs["per_metric"].items():
        rule = registry.metric(metric).rule
        if rule != "info":
            L.append(f"| `{metric}` | {registry.metric(metric).unit} | {x['ok']} | {x['MISS']} | {x['n/a']} |")
    L += ["", "Misses:", ""] + ([f"- {m}" for m in cs["misses"]] or ["- none"])
    L += ["", "| kernel | metric | unit | predicted | measured | error | status |", "|---|---|---|---:|---:|---:|---|"]
    for r in c["rows"]:
        err = "-" if r["error"] is None else ("inf" if r["error"] == float("inf") else f"{100 * r['error']:+.2f}%")
        L.append(f"| {r['kernel']} | {registry.metric(r['metric']).label} | {r['unit']} | {_fmt(r['predicted'])} | "
                 f"{_fmt(r['measured'])} | {err} | {r['status']} |")
    L += ["", "## Provenance of the predictions", ""]
    for t in c["times"]:
        L.append(f"- {t['kernel']}: {t['provenance'] or '-'}" + (f"; findings: {t['findings']}" if t["findings"] else ""))
    return "\n".join(L) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m corpus.compare", description=__doc__)
    p.add_argument("--set", choices=sorted(SETS), default=DEFAULT, help="which kernel set (default: %(default)s)")
    p.add_argument("--measured", help="default: corpus/results/SET_h100.json")
    p.add_argument("--out", help="write Markdown here and the same as JSON beside it")
    p.add_argument("--kernels", help="comma-separated kernel names of the set (default: all)")
    p.add_argument("--gpu", help="GPU row the predictions use (default: the measured device's row)")
    p.add_argument("--all-blocks", action="store_true", help="counters from every block (the time model samples as it does)")
    p.add_argument("--jobs", type=int, default=1, metavar="N",
                   help="predict N kernels at once, each in a process of its own (default 1)")
    a = p.parse_args(argv)
    if a.jobs < 1:
        fail(f"--jobs {a.jobs}: give a count of processes, 1 or more")
    path = Path(a.measured) if a.measured else measured_path(a.set)
    measured = load_measured(path, f"corpus.measure --set {a.set}", f"measurements of the set {a.set}",
                             ", or give them with --measured")
    if measured.get("set", DEFAULT) != a.set:  # files from before --set existed hold the corpus
        fail(f"{path} measured the set {measured.get('set', DEFAULT)!r}, not {a.set!r}: pass --set to match")
    a.gpu = same_gpu(a.gpu, measured.get("device"), path)
    if a.out:
        check_out(a.out, json_beside=True)
    names = [n.strip() for n in a.kernels.split(",") if n.strip()] if a.kernels else None
    unknown = [n for n in names or [] if n not in measured["kernels"]]
    if unknown:
        fail(f"--kernels {unknown[0]}: not measured in {path}; it has {', '.join(measured['kernels'])}")
    c = compare(measured, names, a.gpu, a.all_blocks, load_set(a.set), a.jobs)
    c["set"] = a.set
    c["measured_file"] = str(path.resolve().relative_to(ROOT)) if path.resolve().is_relative_to(ROOT) else str(path)
    c["counter_blocks"] = "every block simulated" if a.all_blocks else "the pipeline's sampled blocks"
    profile = ROOT / "corpus" / "results" / f"{a.set}_profile_h100.json"
    if profile.exists():
        add_issued(c, json.loads(profile.read_text()), str(profile.relative_to(ROOT)))
    text = markdown(c)
    print(text)
    if a.out:
        Path(a.out).write_text(text)
        Path(a.out).with_suffix(".json").write_text(json.dumps(c, indent=1, default=float))
    return 0


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
