"""Where the report's inputs come from: each results file recognised by what it holds, read with
the line that says how it was obtained (measured or predicted, device, clocks, date)."""
from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

from cudasim.gpus import get_gpu

from . import registry

ROOT = Path(__file__).resolve().parent.parent
DEFAULTS = [ROOT / "kernels/results/bench_h100.json", ROOT / "kernels/results/microbench_h100.json",
            ROOT / "analysis/results/ncu_h100.json", ROOT / "analysis/results/compare_h100.md",
            ROOT / "analysis/results/timing_h100.json", ROOT / "corpus/results/corpus_compare_h100.json",
            ROOT / "corpus/results/holdout_compare_h100.json"]

def kind_of(path: Path) -> str:
    """bench | microbench | ncu | compare | timing | unseen:SET (a corpus comparison), from what the file holds."""
    if path.suffix == ".md":
        return "compare"
    d = json.loads(path.read_text())
    if "time_summary" in d:
        return f"unseen:{d.get('set', 'corpus')}"
    if "figures" in d:
        return "microbench"
    if "kernels" in d and "metrics" in d:
        return "ncu"
    rows = d.get("rows") or [{}]
    return "timing" if "predicted_us" in rows[0] else "bench"


def committed_date(path: Path) -> str | None:
    """When git last committed the file (for results that carry no date of their own)."""
    try:
        out = subprocess.run(["git", "log", "-1", "--format=%cI", "--", str(path)], cwd=ROOT, capture_output=True,
                             text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return out or None


def load(paths: list[Path]) -> dict:
    """Each kind's data, file and provenance line (device, clocks, date)."""
    src: dict = {}
    for p in paths:
        k = kind_of(p)
        src[k] = {"file": _rel(p), "data": p.read_text() if k == "compare" else json.loads(p.read_text())}
    micro = src.get("microbench", {}).get("data", {})
    clocks = micro.get("clocks", {}).get("before", {})
    clock_txt = (f"default clocks, not locked (SM {clocks.get('clocks.current.sm [MHz]', '?')}, memory "
                 f"{clocks.get('clocks.current.memory [MHz]', '?')}, {clocks.get('pstate', '?')}, as nvidia-smi read them "
                 f"in the microbench run)") if clocks else "default clocks"
    for k, s in src.items():
        d = s["data"]
        base = k.split(":")[0]
        date = micro.get("date") if k == "microbench" else None
        how = f"committed {committed_date(ROOT / s['file'])} (the file carries no date)"
        if date:
            how = f"measured {date}"
        if k == "timing":
            how = f"predicted, run {d.get('run', '?')}"
        if base == "unseen":
            how = f"measured {d.get('measured_date', '?')}; predicted, run {d.get('run', '?')}"
        device = {"bench": lambda: d.get("device", {}).get("name"), "microbench": lambda: d.get("device", {}).get("name"),
                  "ncu": lambda: d.get("device"), "timing": lambda: f"predicted for {get_gpu().name}; measured "
                  f"times from {d.get('device')}", "compare": lambda: _md_device(d),
                  "unseen": lambda: d.get("device", {}).get("name")}[base]()
        s["line"] = {"bench": f"measured: CUDA events (median of repeats), {clock_txt}",
                     "microbench": f"measured: the device's rates (kernels.microbench), {clock_txt}",
                     "ncu": f"measured: Nsight Compute {d.get('tool', '') if isinstance(d, dict) else ''}, one launch "
                            "per kernel at its simulator size",
                     "compare": "predicted (every block simulated) beside the ncu counters",
                     "timing": "predicted: timing model over the simulation (sampled and scaled from 2 sizes)",
                     "unseen": f"kernels beyond the catalog ({k.partition(':')[2]}): predicted time (no GPU) "
                               "beside CUDA events at default clocks"}[base]
        s["device"], s["date"] = device or "?", how
    return src


def _rel(p: Path) -> str:
    p = p.resolve()
    return str(p.relative_to(ROOT)) if p.is_relative_to(ROOT) else str(p)


def _md_device(text: str) -> str:
    m = re.search(r"Measured on: (.*?) with", text)
    return m.group(1) if m else "?"


def counters(text: str) -> dict[str, dict]:
    """Per kernel, the predicted and measured counters of analysis.compare's Markdown table."""
    by_label = {m.label: m for m in registry.metrics()}
    out: dict[str, dict] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 7 or cells[2] not in by_label:
            continue
        kernel, size, label, pred, meas, err, status = cells
        m = by_label[label]
        k = out.setdefault(kernel, {"size": int(size), "rows": []})
        k["rows"].append({"metric": m.name, "label": label, "unit": m.unit, "predicted": _num(pred),
                          "measured": _num(meas), "error": err, "status": status})
    return out


def _num(s: str) -> float | None:
    try:
        return float(s.replace(",", ""))
    except ValueError:
        return None
