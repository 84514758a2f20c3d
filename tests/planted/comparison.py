"""The side-by-side table: what cudasim.check finds on each planted kernel (run here, on the CPU) beside
what each compute-sanitizer tool found on the GPU (the JSON tests/planted/sanitize_gpu.py wrote there).

    python tests/planted/comparison.py --gpu path/to/sanitizer.json --out tests/planted/COMPARISON.md

Without --gpu the GPU columns say "not measured". A GPU cell reads "found (lines ...)" where the tool
reported an error or hazard (with the source lines it named), "-" where it reported none, "?" where
the run did not finish (a hang or a refused launch; see the log it names).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import planted_suite  # noqa: E402

TOOLS = ("racecheck", "memcheck", "synccheck", "initcheck")


def cudasim_findings(e: dict) -> list:
    """cudasim.check's findings on one planted kernel, launched as the tests launch it."""
    from cudasim import Out, SourceModule
    from cudasim.memory import GlobalMemory

    f = SourceModule(e["source"], no_extern_c=True, filename=e["path"], memory=GlobalMemory()).get_function(e["kernel"])
    args = [Out(v) if a.get("init") == "none" else v for a, v in planted_suite.arguments(e)]
    return f(*args, grid=tuple(e["grid"]), block=tuple(e["block"]), check="full").findings


def ours(e: dict, findings: list) -> tuple[str, bool]:
    """(cell, found as planted: the expected kind at the marked line; for a correct kernel, no finding)."""
    if not findings:
        return "-", not e["expect"]
    by: dict[str, list[int]] = {}
    for f in findings:
        by.setdefault(f.kind, []).append(f.line)
    cell = "; ".join(f"**{k}** (line{'s' if len(set(v)) > 1 else ''} {', '.join(map(str, sorted(set(v))))})"
                     for k, v in by.items())
    hit = bool(e["expect"]) and any(f.kind in e["expect"] and f.line == e["line"] for f in findings)
    return cell, hit


def theirs(r: dict | None) -> tuple[str, bool | None]:
    if r is None:
        return "not measured", None
    if r.get("flagged") is None:
        return "? " + ("(" + r["skipped"] + ")" if r.get("skipped") else "(did not finish: see " + r.get("log", "log") + ")"), None
    if not r["flagged"]:
        return "-", False
    lines = r.get("lines") or []
    return "found" + (f" (line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))})" if lines else ""), True


def table(gpu: dict | None) -> str:
    suite = planted_suite.load()
    rows, ours_hit, gpu_hit, ours_fp, gpu_fp, tool_hits = [], 0, 0, 0, 0, {t: 0 for t in TOOLS}
    measured = {n for n in (gpu or {}).get("kernels", {})}  # kernels the GPU run had (a later one is not measured)
    bugs = [e for e in suite if e["expect"]]
    for e in suite:
        cell, hit = ours(e, cudasim_findings(e))
        k = (gpu or {}).get("kernels", {}).get(e["name"], {})
        cells, any_tool = [], False
        for t in TOOLS:
            c, flagged = theirs(k.get("tools", {}).get(t) if gpu else None)
            cells.append(c)
            if flagged:
                any_tool = True
                if e["expect"]:
                    tool_hits[t] += 1
        if e["expect"]:
            ours_hit += hit
            gpu_hit += any_tool
        else:
            ours_fp += cell != "-"
            gpu_fp += any_tool
        planted = f"{e['what']}" + (f" (line {e['line']})" if e["line"] else "")
        rows.append(f"| `{e['name']}` | {planted} | {', '.join(e['expect']) or 'none'} | {cell} | " + " | ".join(cells)
                    + " |")
    head = ["# cudasim.check beside compute-sanitizer on the planted kernels", ""]
    if gpu:
        head += [f"GPU: {gpu.get('device', '?')}; {gpu.get('compute_sanitizer', '?')}; {gpu.get('nvcc', '?')}; "
                 f"compiled for {gpu.get('arch', '?')} with -lineinfo, each kernel launched through PyCUDA under each "
                 f"tool ({', '.join(f'`{v}`' for v in gpu.get('tools', {}).values())}), by "
                 "`tests/planted/sanitize_gpu.py`.", ""]
    else:
        head += ["GPU: not measured yet (run tests/planted/sanitize_gpu.py on a GPU machine, then this with --gpu).", ""]
    head += ["cudasim.check: every block simulated on the CPU, `check=\"full\"` (as `python -m cudasim.check`), by "
             "`tests/planted/comparison.py`. A cell names the kinds found and their lines; \"-\" is nothing found.", ""]
    n = len(bugs)
    summary = [f"- Planted bugs found (the expected kind at the marked line): cudasim.check {ours_hit} of {n}"]
    if gpu:
        n_gpu = sum(e["name"] in measured for e in bugs)
        summary[0] += f"; compute-sanitizer, any of its four tools, {gpu_hit} of {n_gpu} measured (" + ", ".join(
            f"{t} {tool_hits[t]}" for t in TOOLS) + ")"
        if n_gpu < n:
            summary[0] += f"; {n - n_gpu} planted after the GPU run, not measured there"
        summary.append(f"- Correct kernels with a finding: cudasim.check {ours_fp} of {len(suite) - n}; "
                       f"compute-sanitizer {gpu_fp} of {len(suite) - n}")
    else:
        summary.append(f"- Correct kernels with a finding: cudasim.check {ours_fp} of {len(suite) - n}")
    body = ["| kernel | planted | expected | cudasim.check | racecheck | memcheck | synccheck | initcheck |",
            "|---|---|---|---|---|---|---|---|"] + rows
    return "\n".join(head + summary + [""] + body) + "\n"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--gpu", help="sanitizer.json from tests/planted/sanitize_gpu.py")
    p.add_argument("--out", help="write the Markdown here (default: print it)")
    a = p.parse_args()
    gpu = json.loads(Path(a.gpu).read_text()) if a.gpu else None
    text = table(gpu)
    if a.out:
        Path(a.out).write_text(text)
        print(f"wrote {a.out}")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
