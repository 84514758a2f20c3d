"""The simulator's own benchmark: whole-grid simulation speed, side by side with numba's.

    python -m kernels.simbench [--numba] [--out FILE]

Runs `sgemm_2d_blocktiling` at 256x256x256 and `transpose_tiled` at 1024x1024 through
cudasim (every block, verified against numpy) in three modes: full (trace + race checks),
trace only, and execution only, each the best of three launches. The time is the launch
call, what the caller waits: copying the arrays in and out, the simulation and building the
trace (compile and decode excluded: once per kernel); the simulation loop alone is kept as
`loop_seconds`. The rate is simulated thread-instructions (PTX instructions times active
lanes) per second of that time. With --numba the same algorithms (kernels/numba_ports.py)
run under numba's CUDA simulator in a subprocess on the same problem, timed around its
launch call (which copies the arrays in and out too), and the speedup is the ratio. Pin one
core for a one-core figure: `taskset -c 0 python -m kernels.simbench --numba`.
"""
from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
import time

from cudasim import progress
from cudasim.console import Parser, fail

CASES = [("sgemm_2d_blocktiling", 256), ("transpose_tiled", 1024)]
MODES = {"full": dict(check=True, trace=True), "trace": dict(check=False, trace=True),
         "execute": dict(check=False, trace=False)}


def simulate(name: str, size: int, mode: str, repeat: int = 3) -> dict:
    """The best of `repeat` launches (the first in a process also pays numpy's and the allocator's warm-up)."""
    from . import catalog, sim

    k = catalog.get(name)
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        launch, outputs, inputs = sim.run(name, size=size, **MODES[mode])
        wall = time.perf_counter() - t0
        ok, err = catalog.verify(k, outputs[k.output], inputs)
        if not ok:
            raise SystemExit(f"{name}: the simulated result is wrong (relative error {err:.2e})")
        runs.append((launch.stats, wall))
    s, wall = min(runs, key=lambda r: r[0]["call_seconds"])
    return {"kernel": name, "size": size, "mode": mode, "seconds": round(s["call_seconds"], 4),
            "runs_seconds": [round(r[0]["call_seconds"], 4) for r in runs],
            "loop_seconds": round(s["wall_seconds"], 4),
            "wall_seconds_with_setup": round(wall, 4), "thread_instructions": s["thread_instructions"],
            "warp_instructions": s["warp_instructions"], "blocks": s["blocks_run"],
            "mips": round(s["thread_instructions"] / s["call_seconds"] / 1e6, 2)}


def numba_seconds(name: str, size: int, timeout: int = 1800) -> float:
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    out = subprocess.run([sys.executable, "-m", "kernels.numba_ports", name, str(size)], env=env, check=True,
                         capture_output=True, text=True, timeout=timeout)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m kernels.simbench", description=__doc__.split("\n\n")[0])
    p.add_argument("--numba", action="store_true", help="also time numba's CUDA simulator (slow: minutes)")
    p.add_argument("--out", help="write the rows as JSON here")
    a = p.parse_args(argv)
    if a.numba:
        try:
            import numba  # noqa: F401
        except ImportError:
            fail("--numba needs numba: pip install -e '.[bench]'")
    rows = []
    for name, size in progress.track(CASES, "simulating", unit="kernels, every mode"):
        for mode in MODES:
            r = simulate(name, size, mode)
            rows.append(r)
            print(f"{name:22s} {size:5d}  cudasim {mode:8s} {r['seconds']:8.3f} s  "
                  f"{r['mips']:8.1f} M thread-instr/s (measured launch call, all {r['blocks']} blocks simulated; "
                  f"best of {len(r['runs_seconds'])})", flush=True)
        if a.numba:
            t = numba_seconds(name, size)
            full = next(r for r in rows if r["kernel"] == name and r["mode"] == "full")
            ex = next(r for r in rows if r["kernel"] == name and r["mode"] == "execute")
            rows.append({"kernel": name, "size": size, "mode": "numba-cudasim", "seconds": round(t, 3),
                         "mips": round(full["thread_instructions"] / t / 1e6, 3),
                         "speedup_full": round(t / full["seconds"], 1),
                         "speedup_execute": round(t / ex["seconds"], 1)})
            print(f"{name:22s} {size:5d}  numba    {'':8s} {t:8.3f} s  {rows[-1]['mips']:8.3f} M thread-instr/s "
                  f"(same algorithm, same size; cudasim's instruction count)  -> cudasim is "
                  f"{rows[-1]['speedup_full']}x faster (full), {rows[-1]['speedup_execute']}x (execute only)",
                  flush=True)
    meta = {"python": platform.python_version(), "machine": platform.machine(), "processor": platform.processor(),
            "cpus_allowed": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None}
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"meta": meta, "rows": rows}, f, indent=1)
    return 0


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
