"""Differential test: the same PTX on a real GPU (PyCUDA) and in cudasim, same inputs.

    python -m kernels.differential [--generated N] [--catalog] [--halfs] [--out FILE]

Integer outputs must be bit-identical; float outputs at most 1 ulp apart; with --halfs, every
16-bit float, dp4a/dp2a and directed-rounding form (kernels.halfdiff) bit for bit, NaNs included.
The PTX comes from NVRTC (cudasim.compile) or is written by hand, and is loaded unchanged by the
driver, so both sides run exactly the same instructions. Needs a GPU and PyCUDA (--halfs alone:
PyCUDA or CuPy).
"""
from __future__ import annotations

import json
import time

import numpy as np

from cudasim import progress
from cudasim.console import Parser, fail


def ulp_diff(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance in units in the last place between two float arrays (NaN == NaN is 0)."""
    if a.dtype.kind != "f":
        return (a != b).astype(np.int64)
    ibits = {4: np.int32, 8: np.int64}[a.dtype.itemsize]
    ia, ib = a.view(ibits).astype(np.int64), b.view(ibits).astype(np.int64)
    # map the sign-magnitude float bits onto a monotone integer line
    top = np.int64(1) << (8 * a.dtype.itemsize - 1)
    ia = np.where(ia < 0, -top - ia, ia)
    ib = np.where(ib < 0, -top - ib, ib)
    d = np.abs(ia - ib)
    both_nan = np.isnan(a) & np.isnan(b)
    return np.where(both_nan, 0, d)


def compare_outputs(gpu: np.ndarray, sim: np.ndarray) -> dict:
    d = ulp_diff(gpu, sim)
    return {"elements": int(gpu.size), "max_ulp": int(d.max()) if d.size else 0,
            "mismatched": int((d > 0).sum()), "integer": gpu.dtype.kind != "f"}


def run_generated(count: int, seed: int = 0) -> list[dict]:
    """Draw `count` random kernels, run each on the GPU and in cudasim, compare."""
    import pycuda.autoprimaryctx  # noqa: F401
    import pycuda.driver as cuda
    from hypothesis import HealthCheck, given, settings

    from cudasim import compile_cuda
    from cudasim.api import SourceModule as SimModule
    from kernels.generated import kernels

    rows: list[dict] = []
    rng = np.random.default_rng(seed)
    advance = [lambda n=1: None]  # the progress line's step, once it is shown

    @settings(max_examples=count, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(kernels())
    def one(k):
        res = compile_cuda(k.source, options=list(k.options))
        entry = res.entry(k.name)
        inputs = k.inputs(rng)
        n = np.uint32(k.n)
        dtype = np.uint32 if k.kind == "u32" else np.float32
        gpu_mod = cuda.module_from_buffer(res.ptx.encode())
        out_gpu = np.zeros(k.n, dtype)
        args = list(inputs.values())
        gpu_mod.get_function(entry)(cuda.Out(out_gpu), *[cuda.In(a) for a in args], n,
                                    block=(k.block, 1, 1), grid=(k.grid, 1))
        out_sim = np.zeros(k.n, dtype)
        SimModule.from_ptx(res.ptx).get_function(entry)(out_sim, *args, n, block=(k.block, 1, 1), grid=(k.grid, 1))
        row = {"kernel": k.expr.c[:200], "kind": k.kind, "threads": k.n, **compare_outputs(out_gpu, out_sim)}
        rows.append(row)
        advance[0]()

    with progress.task("generated kernels", count, "GPU vs cudasim") as step:
        advance[0] = step
        one()
    return rows


def run_catalog(seed: int = 0) -> list[dict]:
    """Every catalog kernel at its simulator size: the same NVRTC PTX on the GPU and in cudasim."""
    import pycuda.autoprimaryctx  # noqa: F401
    import pycuda.driver as cuda

    from cudasim import compile_cuda
    from cudasim.api import SourceModule as SimModule
    from cudasim.gpus import get_gpu
    from kernels import catalog

    gpu = get_gpu()  # the launch is sized for the table's default row, the PTX compiled for its architecture
    rows = []
    for k in progress.track([k for k in catalog.KERNELS if k.kind == "kernel"], "catalog kernels",
                            unit="GPU vs cudasim"):
        size = k.sim_size
        res = compile_cuda(catalog.source(k), options=catalog.options(k), arch=gpu.arch, filename=str(k.path))
        entry = res.entry(k.entry)
        inputs = k.make_inputs(size, seed)
        grid, block, shared = k.launch(size, gpu.sms)
        gpu_in = {n: v.copy() if isinstance(v, np.ndarray) else v for n, v in inputs.items()}
        args = [cuda.InOut(a) if isinstance(a, np.ndarray) else a for a in k.args(gpu_in, size)]
        cuda.module_from_buffer(res.ptx.encode()).get_function(entry)(*args, block=block, grid=grid, shared=shared)
        sim_in = {n: v.copy() if isinstance(v, np.ndarray) else v for n, v in inputs.items()}
        SimModule.from_ptx(res.ptx, res).get_function(entry)(*k.args(sim_in, size), block=block, grid=grid,
                                                             shared=shared)
        row = {"kernel": k.name, "size": size, **compare_outputs(gpu_in[k.output], sim_in[k.output])}
        # tensor-core MMAs accumulate in an order the ISA leaves open: those are held to the
        # catalog's tolerance against the GPU instead of to 1 ulp
        row["tensor_core"] = "wmma" in k.name
        g, c = gpu_in[k.output].astype(np.float64), sim_in[k.output].astype(np.float64)
        err = float(np.abs(g - c).max() / max(np.abs(g).max(), 1e-30))
        row["ok"] = err <= k.rtol if row["tensor_core"] else row["max_ulp"] <= 1
        row["rel_err_vs_gpu"] = err
        rows.append(row)
        print(f"{k.name:28s} {row['elements']:8d} elements  max {row['max_ulp']} ulp  {row['mismatched']} differ",
              flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = Parser(prog="python -m kernels.differential", description=__doc__)
    ap.add_argument("--generated", type=int, default=200, help="random kernels to compare (default 200)")
    ap.add_argument("--catalog", action="store_true", help="also compare every catalog kernel")
    ap.add_argument("--halfs", action="store_true",
                    help="also compare the 16-bit float, dp4a/dp2a and directed-rounding forms bit for bit")
    ap.add_argument("--out", help="write the rows as JSON here")
    args = ap.parse_args(argv)
    if args.generated < 0:
        fail(f"--generated {args.generated}: a number of kernels, 0 or more")
    if args.generated or args.catalog:
        try:
            import pycuda.driver  # noqa: F401
        except ImportError:
            fail("PyCUDA is not installed: pip install -e '.[gpu]' on a machine with a CUDA GPU")
    if args.halfs:
        import importlib.util

        if not any(importlib.util.find_spec(m) for m in ("pycuda", "cupy")):
            fail("--halfs needs PyCUDA or CuPy on a machine with a CUDA GPU")
    t0 = time.perf_counter()
    rows = run_generated(args.generated) if args.generated else []
    cat = run_catalog() if args.catalog else []
    halfs, half_rows = ({}, [])
    if args.halfs:
        from kernels import halfdiff

        halfs, half_rows = halfdiff.run_here()
    ints = [r for r in rows if r["integer"]]
    floats = [r for r in rows if not r["integer"]]
    summary = {
        "generated_kernels": len(rows),
        "integer_kernels": len(ints), "integer_elements": sum(r["elements"] for r in ints),
        "integer_mismatches": sum(r["mismatched"] for r in ints),
        "float_kernels": len(floats), "float_elements": sum(r["elements"] for r in floats),
        "float_max_ulp": max((r["max_ulp"] for r in floats), default=0),
        "catalog_kernels": len(cat), "catalog_elements": sum(r["elements"] for r in cat),
        "catalog_max_ulp_ffma": max((r["max_ulp"] for r in cat if not r["tensor_core"]), default=0),
        "catalog_tensor_core_max_rel_err_vs_gpu": max((r["rel_err_vs_gpu"] for r in cat if r["tensor_core"]),
                                                      default=0),
        "catalog_differing_elements": sum(r["mismatched"] for r in cat),
        "halfs": halfs,
        "seconds": round(time.perf_counter() - t0, 1),
    }
    print(json.dumps(summary, indent=1))
    if args.out:
        with open(args.out, "w") as f:
            json.dump({"summary": summary, "rows": rows, "catalog": cat, "halfs": half_rows}, f, indent=1)
    ok = summary["integer_mismatches"] == 0 and summary["float_max_ulp"] <= 1 and all(r["ok"] for r in cat) \
        and not halfs.get("mismatched_elements")
    print("differential: " + ("PASS" if ok else "FAIL") + " (measured on the GPU vs simulated)")
    return 0 if ok else 1


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
