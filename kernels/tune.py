"""Sweep the tile parameters of a catalog kernel on the GPU: verified and timed like the bench.

    python -m kernels.tune sgemm_double_buffered --size 4096 --try BK=16 "WM=64 WN=32" ...

Each --try is one variant (space-separated NAME=VALUE over the entry's defaults).
"""
from __future__ import annotations

import json

from cudasim import progress
from cudasim.console import Parser, fail

from . import catalog


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m kernels.tune", description=__doc__)
    p.add_argument("name", help="a catalog kernel with tile parameters (python -m kernels lists them)")
    p.add_argument("--size", type=int, help="problem size (default: the kernel's bench size)")
    p.add_argument("--try", dest="tries", nargs="*", default=[""], help='variants, e.g. "BK=16 MINBLOCKS=1"')
    p.add_argument("--repeats", type=int, default=20, help="timed launches per variant, at least (default 20)")
    p.add_argument("--json", help="append rows to this JSON-lines file")
    a = p.parse_args(argv)
    try:
        base = catalog.get(a.name)
        variants = [(t, variant(a.name, t)) for t in a.tries]  # every --try checked before the GPU is touched
        size = base.default_size if a.size is None else a.size
        for _, k in variants:
            k.check_size(size)
    except catalog.CatalogError as e:
        fail(str(e))
    if a.repeats < 1:
        fail(f"--repeats {a.repeats}: at least one timed launch")
    from . import gpu
    try:
        gpu.init()
    except gpu.GpuUnavailable as e:
        fail(str(e))
    ref = None
    if base.family in ("sgemm", "dgemm"):
        ref = gpu.cublas_ms("float32" if base.family == "sgemm" else "float64", size)
        print(f"cuBLAS {size}: {ref:.3f} ms" if ref else "cuBLAS: no CuPy")
    for t, k in progress.track(variants, "tuning", unit="variants, on the GPU"):
        try:
            r = gpu.run_kernel(k, size, a.repeats)
        except Exception as e:  # noqa: BLE001 - a variant that does not compile or launch is reported
            print(f"{t or 'default':40s} FAILED: {str(e).strip().splitlines()[-1][:200]}", flush=True)
            continue
        r["variant"] = t or "default"
        if ref:
            r["pct_cublas"] = 100 * ref / r["ms"]
        rate = f"{r['gflops']:.0f} GFLOP/s" if r.get("gflops") else f"{r['gbs']:.0f} GB/s"
        pct = f"{r['pct_cublas']:.1f}% cuBLAS" if ref else ""
        print(f"{r['variant']:40s} {'OK ' if r['ok'] else 'BAD'} {r['ms']:8.3f} ms {rate:>15s} {pct:>14s} "
              f"{r['registers']} regs {r['shared_bytes']} B smem", flush=True)
        if a.json:
            with open(a.json, "a") as f:
                f.write(json.dumps(r) + "\n")
    return 0


def variant(name: str, text: str) -> catalog.Kernel:
    """The entry `name` with the space-separated NAME=VALUE of one --try over its defaults (CatalogError, one
    line, for a pair that is not NAME=INTEGER or a parameter the entry lacks)."""
    over = {}
    for kv in text.split():
        key, eq, value = kv.partition("=")
        if not eq or not key:
            raise catalog.CatalogError(f"--try {text!r}: {kv!r} is not NAME=VALUE, e.g. BK=16")
        over[key] = value
    return catalog.configure(name, over) if over else catalog.get(name)


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
