"""Run the spin-wait kernels of tests/test_spinwait.py on a GPU (PyCUDA) and in cudasim on the same inputs,
and say whether every output array is the same.

    OUT=/some/dir python3 tests/spinwait_gpu.py      # -> $OUT/spinwait_gpu.json, and a line per launch

Needs a GPU with PyCUDA, and NVRTC for cudasim. The launches are those the tests make, and larger ones on the
GPU alone (where cudasim would take minutes), whose outputs are checked against what the kernel must give.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))


def launches():
    """(kernel, grid, block, arrays, scalars, the outputs the kernel must give or None, also in cudasim)."""
    out = []
    for g, sim in ((40, True), (4096, False)):
        out.append(("locked", g, 64, [np.zeros(1, np.int32), np.zeros(1, np.int32)], [],
                    lambda a, g=g: a[1][0] == g and a[0][0] == 0, sim))
    for g, sim in ((300, True), (65536, False)):
        out.append(("chain", g, 128, [np.zeros(g, np.int32), np.zeros(g, np.int32)], [],
                    lambda a, g=g: (a[1] == np.arange(1, g + 1)).all(), sim))
    for g, sim in ((2, True), (512, False)):
        out.append(("warplock", g, 64, [np.zeros(1, np.int32), np.zeros(1, np.int32)], [],
                    lambda a, g=g: a[1][0] == 64 * g and a[0][0] == 0, sim))
    for g, sim in ((40, True), (20000, False)):
        x = np.arange(g * 32, dtype=np.float32)
        out.append(("handoff", g, 96, [x, np.zeros(g * 96, np.float32), np.zeros(g, np.int32)], [],
                    lambda a, g=g: ((a[1].reshape(g, 3, 32)[:, 1] == (a[0].reshape(g, 32) + 1) * 2).all()
                                    and (a[2] == 32).all()), sim))
    out.append(("busy", 8, 64, [np.zeros(4 + 8 * 64, np.int32)], [np.int32(100)], lambda a: a[0][0] == 1600, True))
    return out


def main() -> int:
    import pycuda.autoinit  # noqa: F401
    import pycuda.driver as drv
    from pycuda.compiler import SourceModule as GpuModule

    import cudasim
    from test_spinwait import SPIN_CU

    gpu, sim = GpuModule(SPIN_CU, options=["-std=c++17"]), cudasim.SourceModule(SPIN_CU)
    rows, bad = [], 0
    for name, g, blk, arrays, scalars, must, on_sim in launches():
        mine = [a.copy() for a in arrays]
        t = time.perf_counter()
        gpu.get_function(name)(*[drv.InOut(a) for a in mine], *scalars, grid=(g, 1), block=(blk, 1, 1))
        drv.Context.synchronize()
        row = {"kernel": name, "grid": g, "block": blk, "gpu_ok": bool(must(mine)),
               "gpu_seconds": round(time.perf_counter() - t, 3)}
        if on_sim:
            theirs = [a.copy() for a in arrays]
            t = time.perf_counter()
            ran = sim.get_function(name)(*[cudasim.InOut(a) for a in theirs], *scalars, grid=(g, 1),
                                         block=(blk, 1, 1))
            row.update(sim_ok=bool(must(theirs)), same=all(np.array_equal(x, y) for x, y in zip(mine, theirs)),
                       sim_seconds=round(time.perf_counter() - t, 3), yields=ran.stats["yields"])
        bad += not (row["gpu_ok"] and row.get("same", True) and row.get("sim_ok", True))
        rows.append(row)
        print(json.dumps(row), flush=True)
    dev = drv.Device(0)
    doc = {"device": dev.name(), "driver": drv.get_driver_version(), "rows": rows}
    out = Path(os.environ.get("OUT", "."))
    (out / "spinwait_gpu.json").write_text(json.dumps(doc, indent=1) + "\n")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
