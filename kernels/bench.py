"""The benchmark: every catalog kernel on the GPU, verified, timed, against cuBLAS and copy.

    python -m kernels.bench [--family F] [--kernels NAME ...] [--sizes N ...] [--out FILE]

GEMMs are shown as % of cuBLAS (CuPy's matmul, same size and precision, timed the same way
in the same run); memory-bound kernels as % of the measured device-to-device copy bandwidth
(cuMemcpyDtoD), transposes also as % of the catalog's `copy` kernel. Every figure is
measured (CUDA events, median of repeats) and every result is checked against numpy first.
"""
from __future__ import annotations

import json
import shutil

from cudasim import progress
from cudasim.console import Parser, fail

from . import catalog


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m kernels.bench", description=__doc__)
    p.add_argument("--family", choices=catalog.FAMILIES, help="only this family of the catalog")
    p.add_argument("--kernels", nargs="*", help="only these catalog names")
    p.add_argument("--sizes", type=int, nargs="*", help="sizes to run (default: each kernel's bench size)")
    p.add_argument("--repeats", type=int, default=20, help="timed launches per kernel, at least (default 20)")
    p.add_argument("--out", help="write the rows as JSON here")
    a = p.parse_args(argv)
    try:
        for n in a.kernels or []:
            catalog.get(n)
    except catalog.CatalogError as e:
        fail(str(e))
    if bad := [s for s in a.sizes or [] if s < 1]:
        fail(f"--sizes {bad[0]}: a problem size, at least 1")
    if a.repeats < 1:
        fail(f"--repeats {a.repeats}: at least one timed launch")
    from . import gpu
    try:
        _, dev = gpu.init()
    except gpu.GpuUnavailable as e:
        fail(str(e))
    copy_gbs = gpu.copy_bandwidth()
    print(f"{dev['name']}: {dev['sms']} SMs, {dev['l2_bytes'] / 2**20:.0f} MiB L2; device-to-device copy "
          f"{copy_gbs:.0f} GB/s (measured, read + write)", flush=True)
    rows, cublas = [], {}
    todo = [(k, size) for k in catalog.KERNELS if not (a.family and k.family != a.family)
            and not (a.kernels and k.name not in a.kernels) for size in a.sizes or [k.default_size]]
    for k, size in progress.track(todo, "benchmarking", unit="kernels and sizes, on the GPU"):
        if size % k.multiple:
            print(f"{k.name}: skipped size {size} ({k.constraint})")
            continue
        r = gpu.run_pipeline(k, size) if k.kind == "pipeline" else gpu.run_kernel(k, size, a.repeats)
        if k.family in ("sgemm", "dgemm"):
            key = (k.family, size)
            if key not in cublas:
                cublas[key] = gpu.cublas_ms("float32" if k.family == "sgemm" else "float64", size)
            ms = cublas[key]
            r["cublas_ms"] = ms
            r["pct_cublas"] = 100 * ms / r["ms"] if ms else None
        else:
            r["pct_copy"] = 100 * r["gbs"] / copy_gbs
        rows.append(r)
        print(line(r), flush=True)
    for r in rows:  # transposes against the copy kernel of the same size, measured in this run
        ref = next((c for c in rows if c["kernel"] == "copy" and c["size"] == r["size"]), None)
        if r["family"] == "transpose" and ref:
            r["pct_copy_kernel"] = 100 * ref["ms"] / r["ms"]
    summary = summarize(rows, copy_gbs)
    table(rows, summary)
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"device": dev, "copy_gbs": copy_gbs, "summary": summary, "rows": rows}, f, indent=1)
    return 0 if all(r["ok"] for r in rows) else 1


def summarize(rows: list[dict], copy_gbs: float) -> dict:
    """The issue's figures: best SGEMM vs cuBLAS, transposes vs copy, vector add vs copy, wmma vs FFMA."""
    s: dict = {"copy_gbs": copy_gbs}
    by = {(r["kernel"], r["size"]): r for r in rows}
    for fam in ("sgemm", "dgemm"):
        for size in sorted({r["size"] for r in rows if r["family"] == fam}):
            ffma = [r for r in rows if r["family"] == fam and r["size"] == size and "wmma" not in r["kernel"]]
            tc = [r for r in rows if r["family"] == fam and r["size"] == size and "wmma" in r["kernel"]]
            best = min(ffma, key=lambda r: r["ms"]) if ffma else None
            e = {}
            if best:
                e.update(best_ffma=best["kernel"], best_ffma_pct_cublas=best.get("pct_cublas"),
                         best_ffma_gflops=best["gflops"])
            if tc:
                e.update(wmma=tc[0]["kernel"], wmma_gflops=tc[0]["gflops"], wmma_pct_cublas=tc[0].get("pct_cublas"),
                         wmma_over_best_ffma=best["ms"] / tc[0]["ms"] if best else None)
            s[f"{fam}_{size}"] = e
    for r in rows:
        if r["family"] == "transpose" and r["kernel"] in ("transpose_padded", "transpose_swizzled"):
            s[f"{r['kernel']}_{r['size']}_pct_copy_kernel"] = r.get("pct_copy_kernel")
            s[f"{r['kernel']}_{r['size']}_pct_dtod"] = r["pct_copy"]
    g = by.get(("vector_add_grid_stride", 1 << 26))
    if g:
        s["vector_add_grid_stride_pct_copy"] = g["pct_copy"]
    st = next((r for r in rows if r["kernel"] == "vector_add_streams"), None)
    if st:
        s["streams_overlap_pct"] = st.get("overlap_pct")
    return s


def _pct(r: dict) -> str:
    if r.get("pct_cublas") is not None:
        return f"{r['pct_cublas']:.1f}% cuBLAS"
    if r.get("pct_copy_kernel") is not None:
        return f"{r['pct_copy']:.1f}% DtoD, {r['pct_copy_kernel']:.1f}% copy"
    if r.get("pct_copy") is not None:
        return f"{r['pct_copy']:.1f}% DtoD"
    return ""


def _rate(r: dict) -> str:
    return f"{r['gflops']:.0f} GFLOP/s" if r.get("gflops") else f"{r['gbs']:.0f} GB/s"


def _note(r: dict) -> str:
    if "stages_ms" not in r:
        return ""
    st = r["stages_ms"]
    text = f"h2d {st['h2d']:.2f} + kernel {st['kernel']:.2f} + d2h {st['d2h']:.2f} ms"
    if "overlap_pct" in r:
        text += f"; streams {r['streams_ms']:.2f} ms, overlap {r['overlap_pct']:.0f}%"
    return text


def line(r: dict) -> str:
    return (f"{r['kernel']:28s} {r['size']:9d} {'OK ' if r['ok'] else 'BAD'} {r['ms']:10.3f} ms {_rate(r):>16s} "
            f"{_pct(r):>26s} {r['registers']:4d} regs {r['shared_bytes']:6d} B smem {_note(r)}")


def table(rows: list[dict], summary: dict) -> None:
    head = ["kernel", "size", "ok", "ms", "rate", "vs reference", "regs", "smem B", "note"]
    cells = [[r["kernel"], str(r["size"]), "OK" if r["ok"] else "WRONG", f"{r['ms']:.3f}", _rate(r), _pct(r),
              str(r["registers"]), str(r["shared_bytes"]), _note(r)] for r in rows]
    try:
        from rich.console import Console
        from rich.table import Table
    except ImportError:
        widths = [max(len(h), *(len(c[i]) for c in cells)) for i, h in enumerate(head)] if cells else []
        print()
        print("  ".join(h.ljust(w) for h, w in zip(head, widths)))
        for c in cells:
            print("  ".join(x.ljust(w) for x, w in zip(c, widths)))
    else:
        t = Table(title="measured (CUDA events, median of repeats)")
        for h in head:
            t.add_column(h, justify="right" if h in ("size", "ms", "rate", "regs", "smem B") else "left")
        for c in cells:
            t.add_row(*c)
        Console(width=max(150, shutil.get_terminal_size().columns)).print(t)
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
