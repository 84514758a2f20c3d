"""The benchmark: every catalog kernel on the GPU, verified, timed, against cuBLAS and copy.

    python -m kernels.bench [--family F] [--sizes N ...] [--out FILE]

GEMMs are shown as % of cuBLAS (CuPy) at the same size and precision, measured in the same
run; memory-bound kernels as % of the measured device-to-device copy bandwidth. All figures
are measured (CUDA events, median of repeats).
"""
from __future__ import annotations

import argparse
import json
import sys

from . import catalog


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m kernels.bench", description=__doc__.splitlines()[0])
    p.add_argument("--family", choices=catalog.FAMILIES)
    p.add_argument("--sizes", type=int, nargs="*", help="sizes to run (default: each kernel's bench size)")
    p.add_argument("--out", help="write the rows as JSON here")
    a = p.parse_args(argv)
    from . import gpu
    try:
        _, dev = gpu.init()
    except gpu.GpuUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    copy_gbs = gpu.copy_bandwidth()
    print(f"{dev['name']}: {dev['sms']} SMs; device-to-device copy {copy_gbs:.0f} GB/s (measured)")
    rows, cublas = [], {}
    for k in catalog.KERNELS:
        if a.family and k.family != a.family:
            continue
        for size in a.sizes or [k.default_size]:
            if size % k.multiple:
                continue
            r = gpu.run_pipeline(k, size) if k.kind == "pipeline" else gpu.run_kernel(k, size)
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
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"device": dev, "copy_gbs": copy_gbs, "rows": rows}, f, indent=1)
    return 0 if all(r["ok"] for r in rows) else 1


def line(r: dict) -> str:
    rate = f"{r['gflops']:9.0f} GFLOP/s" if r.get("gflops") else f"{r['gbs']:9.0f} GB/s   "
    pct = (f"{r['pct_cublas']:6.1f}% of cuBLAS" if r.get("pct_cublas") is not None else
           f"{r['pct_copy']:6.1f}% of copy  " if r.get("pct_copy") is not None else " " * 16)
    stages = ""
    if "stages_ms" in r:
        stages = "  " + " ".join(f"{k}={v:.2f}ms" for k, v in r["stages_ms"].items())
    return (f"{r['kernel']:28s} {r['size']:6d} {'OK ' if r['ok'] else 'BAD'} {r['ms']:9.3f} ms {rate} {pct}  "
            f"{r['registers']:3d} regs {r['shared_bytes']:6d} B smem{stages}")


if __name__ == "__main__":
    sys.exit(main())
