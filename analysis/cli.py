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
            return f.read().splitlines()[line - 1].strip()[:110]
    except (OSError, IndexError):
        return ""


def main(model: str, argv: list[str] | None = None) -> int:
    import signal
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends quietly
    p = argparse.ArgumentParser(prog=f"python -m analysis.{model}",
                                description="coalescing of global accesses per source line" if model == "coalescing"
                                else "shared-memory bank conflicts per source line")
    target.add_target_args(p)
    p.add_argument("--draw", choices=("text", "mermaid", "svg", "none"), default="text",
                   help="picture of one warp per instruction (default: text)")
    p.add_argument("--mermaid", action="store_const", const="mermaid", dest="draw", help="same as --draw mermaid")
    p.add_argument("--svg", action="store_const", const="svg", dest="draw", help="same as --draw svg")
    a = p.parse_args(argv)
    t0 = time.perf_counter()
    try:
        from cudasim.gpus import UnknownGPU, get_gpu
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
        print(json.dumps({"target": res["target"], "level": res.get("level"), model: r, "notes": res["notes"],
                          "findings": res["findings"]}, indent=1, default=str))
        return 0
    prov = r["provenance"]["label"]
    print(f"{res['target']}  [{prov}]")
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
    how = "from the on-disk cache of an earlier run" if res.get("cached") else "simulated and modelled"
    print(f"(answered in {time.perf_counter() - t0:.2f} s of wall time, {how})")
    return 0


def group_rows(instrs: list[dict], sums: tuple[str, ...]) -> list[dict]:
    """Instructions of one source line with the same op, width and diagnosis, as one row.

    Unrolled loops give one PTX/SASS instruction per unrolled step; the reader wants the line.
    """
    out: dict[tuple, dict] = {}
    for g in instrs:
        key = (g["file"], g["line"], g["op"], g["size"], g["diagnosis"])
        row = out.get(key)
        if row is None:
            row = out[key] = dict(g, count=0)
            for k in sums:
                row[k] = 0.0
        row["count"] += 1
        for k in sums:
            row[k] += g[k]
        row["max_degree"] = max(row.get("max_degree", 0), g.get("max_degree", 0))
    return list(out.values())


def _where(g: dict) -> str:
    n = f" x{g['count']}" if g["count"] > 1 else ""
    return f"{_short(g['file'])}:{g['line']}{n}"


def _details(row: dict, example_type):
    """Print a row's source text and fix; return its example warp (or None) for a picture."""
    src = _source_line(row["file"], row["line"])
    if src:
        print(f"{'':>16}     {src}")
    if row.get("fix"):
        print(f"{'':>16}     fix: {row['fix']}")
    ex = row.get("example")
    return example_type(**ex) if isinstance(ex, dict) else ex


def _picture(ex, draw: str, text, mermaid, svg) -> None:
    pic = {"text": text, "mermaid": mermaid, "svg": svg}[draw](ex)
    print("\n".join("     " + x for x in pic.splitlines()))


def _coalescing(r: dict, draw: str) -> None:
    from .coalescing import Example, draw_mermaid, draw_svg, draw_text
    prov = r["provenance"]["label"]
    print(f"\nGlobal memory per source line ({prov}; requests = warp-level instructions, sectors = 32-byte "
          f"segments; 'xN' = N instructions on the line):")
    print(f"{'line':>16} {'op':3} {'B/lane':>6} {'requests':>10} {'sectors':>10} {'sect/req':>8} {'ideal':>6} "
          f"{'effic.':>6}  diagnosis")
    drawn = set()
    for g in group_rows(r["instructions"], ("requests", "sectors", "ideal_sectors", "lines", "lanes")):
        key = (g["line"], g["op"], g["diagnosis"])
        req = max(g["requests"], 1e-9)
        eff = g["ideal_sectors"] / g["sectors"] if g["sectors"] else 1.0
        print(f"{_where(g):>16} {g['op']:3} {g['size']:6d} {g['requests']:10,.0f} {g['sectors']:10,.0f} "
              f"{g['sectors'] / req:8.2f} {g['ideal_sectors'] / req:6.2f} {100 * eff:5.0f}%  {g['diagnosis']}")
        ex = _details(g, Example)
        if draw != "none" and ex is not None and key not in drawn:
            drawn.add(key)
            _picture(ex, draw, draw_text, draw_mermaid, draw_svg)
    print(f"\nPredicted totals ({prov}), named by the Nsight Compute metric each predicts:")
    for k, v in r["totals"].items():
        unit = "requests" if "requests" in k else "sectors"
        print(f"  {k:55s} {v:14,.0f} {unit}")


def _banks(r: dict, draw: str) -> None:
    from .banks import Example, collisions, draw_mermaid, draw_svg, draw_text
    prov = r["provenance"]["label"]
    print(f"\nShared memory per source line ({prov}; requests = warp-level instructions, wavefronts = "
          f"passes through the 32 banks; 'xN' = N instructions on the line):")
    print(f"{'line':>16} {'op':3} {'B/lane':>6} {'requests':>10} {'wavefronts':>11} {'wf/req':>7} {'ideal':>6} "
          f"{'worst':>6}  diagnosis")
    drawn = set()
    if not r["instructions"]:
        print("  (no shared-memory accesses)")
    for s in group_rows(r["instructions"], ("requests", "wavefronts", "ideal_wavefronts")):
        key = (s["line"], s["op"], s["diagnosis"])
        req = max(s["requests"], 1e-9)
        print(f"{_where(s):>16} {s['op']:3} {s['size']:6d} {s['requests']:10,.0f} {s['wavefronts']:11,.0f} "
              f"{s['wavefronts'] / req:7.2f} {s['ideal_wavefronts'] / req:6.2f} {str(s['max_degree']) + '-way':>6}  "
              f"{s['diagnosis']}")
        ex = _details(s, Example)
        if draw != "none" and ex is not None and s.get("max_degree", 1) > 1 and key not in drawn:
            drawn.add(key)
            for c in collisions(ex, limit=3):
                print(f"{'':>16}     collide: {c}")
            _picture(ex, draw, draw_text, draw_mermaid, draw_svg)
    print(f"\nPredicted totals ({prov}), named by the Nsight Compute metric each predicts:")
    for k, v in r["totals"].items():
        unit = "instructions" if "inst_executed" in k else ("conflicts (wavefronts beyond the ideal)"
                                                            if "conflicts" in k else "wavefronts")
        print(f"  {k:60s} {v:14,.0f} {unit}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
