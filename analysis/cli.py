"""The command line of the trace models: `python -m analysis.coalescing|banks TARGET`.

One simulation feeds both models (cached on disk), so the second command answers at once.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

from . import target


def _short(path: str) -> str:
    return os.path.basename(path) if path else "?"


def _source_line(path: str, line: int) -> str:
    try:
        with open(path) as f:
            return f.read().splitlines()[line - 1].strip()[:70]
    except (OSError, IndexError):
        return ""


def main(model: str, argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog=f"python -m analysis.{model}",
                                description="coalescing of global accesses per source line" if model == "coalescing"
                                else "shared-memory bank conflicts per source line")
    target.add_target_args(p)
    p.add_argument("--draw", choices=("text", "mermaid", "svg", "none"), default="text",
                   help="picture of one warp per instruction (default: text)")
    a = p.parse_args(argv)
    t0 = time.perf_counter()
    try:
        from .gpus import UnknownGPU, get_gpu
        try:
            get_gpu(a.gpu)
        except UnknownGPU as e:
            raise target.TargetError(str(e)) from None
        if a.size is not None and a.size < 1:
            raise target.TargetError(f"--size {a.size}: must be a positive integer")
        t = target.resolve(a)
        res = target.trace_models(t, all_blocks=a.all_blocks, use_cache=not a.no_cache)
    except target.TargetError as e:
        target.fail(str(e))
    except Exception as e:  # noqa: BLE001 - simulator and compiler errors: one line, exit 2
        from cudasim import CompileError, SimulationError
        if isinstance(e, (CompileError, SimulationError, TypeError, ValueError, LookupError)):
            target.fail(str(e).splitlines()[0])
        raise
    r = res[model]
    if a.json:
        print(json.dumps({"target": res["target"], model: r, "notes": res["notes"],
                          "findings": res["findings"]}, indent=1, default=str))
        return 0
    prov = r["provenance"]["label"]
    print(f"{res['target']}  grid {tuple(res['grid'])} block {tuple(res['block'])}  [{prov}]")
    for n in res["notes"]:
        print(f"  note: {n}")
    if model == "coalescing":
        _coalescing(r, a.draw)
        sh = res["banks"]["totals"]
        conf = sum(v for k, v in sh.items() if "bank_conflicts" in k)
        if conf:
            worst = max(res["banks"]["instructions"], key=lambda s: s.get("max_degree", 1))
            print(f"\nShared memory: {int(conf):,} bank conflicts predicted, worst {worst['max_degree']}-way at "
                  f"{_short(worst['file'])}:{worst['line']}: run `python -m analysis.banks {a.target}` for the banks.")
    else:
        _banks(r, a.draw)
    for f in res["findings"]:
        print(f"  verifier: {f}")
    print(f"({time.perf_counter() - t0:.2f} s)")
    return 0


def _coalescing(r: dict, draw: str) -> None:
    from .coalescing import Example, draw_mermaid, draw_svg, draw_text
    print(f"\n{'line':>10} {'op':3} {'bytes':>5} {'requests':>10} {'sectors':>10} {'sect/req':>8} {'ideal':>6} "
          f"{'effic.':>6}  diagnosis")
    drawn = set()
    for g in r["instructions"]:
        key = (g["line"], g["op"], g["diagnosis"])
        print(f"{_short(g['file']) + ':' + str(g['line']):>10} {g['op']:3} {g['size']:5d} {g['requests']:10,.0f} "
              f"{g['sectors']:10,.0f} {g['sectors_per_request']:8.2f} {g['ideal_per_request']:6.2f} "
              f"{100 * g['efficiency']:5.0f}%  {g['diagnosis']}")
        src = _source_line(g["file"], g["line"])
        if src:
            print(f"{'':>10}     {src}")
        if g.get("fix"):
            print(f"{'':>10}     fix: {g['fix']}")
        if draw != "none" and g.get("example") and key not in drawn:
            drawn.add(key)
            ex = Example(**g["example"]) if isinstance(g["example"], dict) else g["example"]
            pic = {"text": draw_text, "mermaid": draw_mermaid, "svg": draw_svg}[draw](ex)
            print("\n".join("     " + x for x in pic.splitlines()))
    print("\nPredicted totals (Nsight Compute metric names; " + r["provenance"]["label"] + "):")
    for k, v in r["totals"].items():
        print(f"  {k:55s} {v:14,.0f}")


def _banks(r: dict, draw: str) -> None:
    from .banks import Example, draw_mermaid, draw_svg, draw_text
    print(f"\n{'line':>10} {'op':3} {'bytes':>5} {'requests':>10} {'wavefronts':>11} {'wf/req':>7} {'ideal':>6} "
          f"{'worst':>6}  diagnosis")
    drawn = set()
    for s in r["instructions"]:
        key = (s["line"], s["op"], s["diagnosis"])
        print(f"{_short(s['file']) + ':' + str(s['line']):>10} {s['op']:3} {s['size']:5d} {s['requests']:10,.0f} "
              f"{s['wavefronts']:11,.0f} {s['wavefronts_per_request']:7.2f} "
              f"{s['ideal_wavefronts'] / max(s['requests'], 1):6.2f} {str(s['max_degree']) + '-way':>6}  "
              f"{s['diagnosis']}")
        src = _source_line(s["file"], s["line"])
        if src:
            print(f"{'':>10}     {src}")
        if s.get("fix"):
            print(f"{'':>10}     fix: {s['fix']}")
        if draw != "none" and s.get("example") and s.get("max_degree", 1) > 1 and key not in drawn:
            drawn.add(key)
            ex = Example(**s["example"]) if isinstance(s["example"], dict) else s["example"]
            pic = {"text": draw_text, "mermaid": draw_mermaid, "svg": draw_svg}[draw](ex)
            print("\n".join("     " + x for x in pic.splitlines()))
    print("\nPredicted totals (Nsight Compute metric names; " + r["provenance"]["label"] + "):")
    for k, v in r["totals"].items():
        print(f"  {k:60s} {v:14,.0f}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
