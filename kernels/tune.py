"""Sweep the tile parameters of a catalog kernel on the GPU: verified and timed like the bench.

    python -m kernels.tune sgemm_double_buffered --size 4096 --try BK=16 "WM=64 WN=32" ...

Each --try is one variant (space-separated NAME=VALUE over the entry's defaults).
"""
from __future__ import annotations

import argparse
import json
import sys

from . import catalog


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m kernels.tune", description=__doc__.splitlines()[0])
    p.add_argument("name")
    p.add_argument("--size", type=int)
    p.add_argument("--try", dest="tries", nargs="*", default=[""], help='variants, e.g. "BK=16 MINBLOCKS=1"')
    p.add_argument("--repeats", type=int, default=20)
    p.add_argument("--json", help="append rows to this JSON-lines file")
    a = p.parse_args(argv)
    from . import gpu
    try:
        gpu.init()
    except gpu.GpuUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    base = catalog.get(a.name)
    size = a.size or base.default_size
    ref = None
    if base.family in ("sgemm", "dgemm"):
        ref = gpu.cublas_ms("float32" if base.family == "sgemm" else "float64", size)
        print(f"cuBLAS {size}: {ref:.3f} ms" if ref else "cuBLAS: no CuPy")
    for t in a.tries:
        over = dict(kv.split("=") for kv in t.split())
        try:
            k = catalog.variant(a.name, **{n: int(v) for n, v in over.items()}) if over else base
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


if __name__ == "__main__":
    sys.exit(main())
