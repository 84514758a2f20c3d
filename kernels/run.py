"""Run one catalog kernel, verified against numpy: on the GPU (PyCUDA) or in cudasim.

    python -m kernels.run NAME [--size N] [--backend gpu|sim] [--json]
"""
from __future__ import annotations

import json

from cudasim.console import Parser, fail

from . import catalog


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m kernels.run", description=__doc__)
    p.add_argument("name", help="a catalog kernel (python -m kernels lists them)")
    p.add_argument("--size", type=int, help="problem size (default: the kernel's bench size on the GPU, "
                   "its small size in the simulator)")
    p.add_argument("--backend", choices=("gpu", "sim"), default="gpu",
                   help="gpu: PyCUDA on this machine's GPU (default); sim: cudasim on the CPU")
    p.add_argument("--repeats", type=int, default=20, help="timed launches on the GPU, at least (default 20)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    a = p.parse_args(argv)
    if a.repeats < 1:
        fail(f"--repeats {a.repeats}: at least one timed launch")
    try:
        k = catalog.get(a.name)
        if a.size is not None:
            k.check_size(a.size)
        if a.backend == "sim":
            row = run_sim(k, a.size)
        else:
            from . import gpu
            size = k.default_size if a.size is None else a.size
            k.check_size(size)
            row = gpu.run_pipeline(k, size) if k.kind == "pipeline" else gpu.run_kernel(k, size, a.repeats)
    except Exception as e:  # noqa: BLE001 - every failure is one line and exit 2
        from cudasim import SimulationError
        known = (catalog.CatalogError, SimulationError, TypeError)
        if type(e).__name__ == "GpuUnavailable" or isinstance(e, known):
            fail(str(e).splitlines()[0])
        raise
    if a.json:
        print(json.dumps(row, indent=1))
    else:
        print(describe(row))
    return 0 if row["ok"] else 1


def run_sim(k: catalog.Kernel, size: int | None) -> dict:
    from . import sim

    if k.kind == "pipeline":
        raise catalog.CatalogError(f"{k.name} is a host pipeline (transfers and streams); simulate its kernel, "
                                   f"{k.entry}, instead")
    from cudasim import progress
    size = k.sim_size if size is None else size
    with progress.task(f"simulating {k.name} at size {size:,}", None, "warp instructions", pulsed=True):
        launch, outputs, inputs = sim.run(k.name, size, trace=False)  # the output is checked; no trace is read
    ok, err = catalog.verify(k, outputs[k.output], inputs)
    s = launch.stats
    return {"kernel": k.name, "size": size, "backend": "sim", "ok": ok, "max_rel_err": err,
            "thread_instructions": s["thread_instructions"], "warp_instructions": s["warp_instructions"],
            "blocks": s["blocks_run"], "seconds": s["wall_seconds"], "findings": [str(f) for f in launch.findings],
            "registers": launch.resources.registers if launch.resources else None}


def describe(row: dict) -> str:
    status = "OK" if row["ok"] else "WRONG"
    head = f"{row['kernel']} size {row['size']}: {status} (max relative error {row['max_rel_err']:.2e})"
    if row.get("backend") == "sim":
        lines = [head + " [simulated by cudasim]",
                 f"  {row['thread_instructions']:,} thread instructions, {row['warp_instructions']:,} warp instructions,"
                 f" {row['blocks']} blocks, {row['seconds']:.2f} s of CPU"]
        lines += [f"  finding: {f}" for f in row["findings"]]
        return "\n".join(lines)
    rate = f"{row['gflops']:.0f} GFLOP/s" if row.get("gflops") else f"{row['gbs']:.0f} GB/s"
    extra = ""
    if "stages_ms" in row:
        extra = "  stages (ms): " + ", ".join(f"{k} {v:.2f}" for k, v in row["stages_ms"].items())
        if "overlap_pct" in row:
            extra += (f"\n  streams: {row['streams_ms']:.2f} ms over {row['chunks']} chunks vs {row['serial_ms']:.2f} ms "
                      f"serial: {row['overlap_pct']:.0f}% of the possible overlap achieved")
    return (f"{head} [measured on {row['device']}]\n  {row['ms']:.3f} ms, {rate}, {row['registers']} registers/thread, "
            f"{row['shared_bytes']} B static shared/block{extra}")


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
