"""The kernel sets side by side, from their committed comparisons (corpus/results/SET_compare_h100.json, as
`python -m corpus.compare --set SET --out ...` writes them): per set the run its predictions came from, the
predicted time's median / 90th percentile / worst |error| against the measured event time, and the counters
within tolerance; then the same over the sets taken together. Nothing is predicted here: it reads what was.

    python -m corpus.summary [--without wild] [--json]
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from cudasim.console import Parser, fail

from .sets import RESULTS, SETS

BANDS = (25.0, 50.0)  # |error| % bounds counted over


def table_path(name: str) -> Path:
    return RESULTS / f"{name}_compare_h100.json"


def errors(table: dict) -> dict[str, float]:
    """kernel -> signed time error % of one set's comparison (the kernels whose time was predicted)."""
    return {t["kernel"]: t["error_pct"] for t in table.get("times", []) if t.get("error_pct") is not None}


def counters(table: dict) -> tuple[int, int]:
    """(within tolerance, judged) of one set's counter comparisons."""
    judged = [r for r in table.get("rows", []) if r.get("status") in ("ok", "MISS")]
    return sum(r["status"] == "ok" for r in judged), len(judged)


def spread(errs: list[float]) -> dict:
    """Median, 90th percentile and worst |error| %, and how many are over each of BANDS."""
    a = np.abs(np.asarray(errs, float))
    if a.size == 0:
        return {"timed": 0}
    return {"timed": int(a.size), "median": float(np.median(a)), "p90": float(np.percentile(a, 90)),
            "worst": float(a.max()), **{f"over_{int(b)}": int((a > b).sum()) for b in BANDS}}


def summarize(tables: dict[str, dict]) -> dict:
    """Per set and over all of `tables` (set name -> comparison): the time's spread and the counters."""
    sets, every, ok_all, judged_all = {}, [], 0, 0
    for name, table in tables.items():
        errs = errors(table)
        ok, judged = counters(table)
        sets[name] = {"run": table.get("run", "?"), "kernels": len(table.get("times", [])),
                      **spread(list(errs.values())), "counters_ok": ok, "counters_judged": judged}
        every += [(name, k, e) for k, e in errs.items()]
        ok_all, judged_all = ok_all + ok, judged_all + judged
    worst = sorted(every, key=lambda x: -abs(x[2]))
    return {"sets": sets, "all": {**spread([e for *_, e in every]), "counters_ok": ok_all,
                                  "counters_judged": judged_all},
            "over_25": [{"set": s, "kernel": k, "error_pct": e} for s, k, e in worst if abs(e) > BANDS[0]]}


def render(s: dict, names: list[str]) -> str:
    def row(label: str, d: dict) -> str:
        t = (f"{d['median']:5.1f} {d['p90']:5.1f} {d['worst']:6.1f} {d['over_25']:4d} {d['over_50']:4d}"
             if d.get("timed") else f"{'-':>5} {'-':>5} {'-':>6} {'-':>4} {'-':>4}")
        return f"{label:<10} {d.get('timed', 0):5d} {t}  {d['counters_ok']:5,d} of {d['counters_judged']:5,d}"
    out = [f"{'set':<10} {'timed':>5} {'med%':>5} {'p90%':>5} {'worst%':>6} {'>25':>4} {'>50':>4}  counters within tolerance"]
    out += [row(n, s["sets"][n]) + f"   ({s['sets'][n]['run']})" for n in names]
    out.append(row("together", s["all"]))
    out.append("")
    out.append("time: |predicted - measured event time| / measured, per kernel whose time was predicted; counters: "
               "the metrics each set's comparison judged")
    if s["over_25"]:
        out.append("over 25%: " + ", ".join(f"{x['kernel']} ({x['set']}) {x['error_pct']:+.1f}%" for x in s["over_25"]))
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m corpus.summary", description=__doc__)
    p.add_argument("--without", default="", metavar="SET[,SET]", help="sets to leave out (e.g. wild)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    a = p.parse_args(argv)
    left = [x.strip() for x in a.without.split(",") if x.strip()]
    if unknown := [x for x in left if x not in SETS]:
        fail(f"--without {unknown[0]}: no such set; the sets are {', '.join(SETS)}")
    names = [n for n in SETS if n not in left and table_path(n).is_file()]
    if not names:
        fail("no committed comparison to summarize; python -m corpus.compare --set SET --out "
             "corpus/results/SET_compare_h100.md writes one")
    tables = {}
    for n in names:
        try:
            tables[n] = json.loads(table_path(n).read_text())
        except ValueError as e:
            fail(f"{table_path(n)}: not JSON ({str(e)[:80]}); write it again with python -m corpus.compare --set {n}")
    s = summarize(tables)
    print(json.dumps(s, indent=1) if a.json else render(s, names))
    return 0


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
