"""Calls on the GPU and in cudasim: the kernels of kernels/calls.cu, the same PTX, the same inputs.

    python -m kernels.callsdiff [--out FILE]

What functions ptxas did not inline return (a divergent loop, recursion, a struct, locals kept across
a recursive call) and what malloc/free leave are compared bit for bit; what printf prints is compared
line for line (the GPU's order between warps is its own, so as sorted lines); a failed assert's
message and the threads that fail it are compared with the GPU's, in a child process, since the
GPU's context is lost after a device-side assert. Needs a GPU and PyCUDA.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from cudasim.console import Parser, fail

SOURCE = Path(__file__).with_name("calls.cu")
N = 200
ASSERT_LIMIT = 40


def _compiled():
    from cudasim import compile_cuda

    return compile_cuda(SOURCE.read_text(), filename="calls.cu")


def _inputs() -> dict[str, list]:
    """Each kernel's arguments (numpy arrays are outputs or inputs alike), launch and output names."""
    x = np.linspace(-3, 3, 64).astype(np.float32)
    big = (np.arange(64, dtype=np.int64) - 7) * 1_000_000_007
    return {
        "calls": [[np.zeros(N, np.int32), np.zeros(N, np.int32), np.zeros(2 * N, np.float32), np.zeros(N, np.int32),
                   np.int32(N)], (4, 1), (64, 1, 1)],
        "heap": [[np.zeros(256, np.int32), np.int64(1 << 30)], (2, 1), (128, 1, 1)],
        "talk": [[x, big, np.int32(64)], (2, 1), (32, 1, 1)],
    }


def _capture_stdout(run) -> str:
    """What the process writes to file descriptor 1 while `run()` runs (the CUDA driver's printf output)."""
    libc = ctypes.CDLL(None)
    with tempfile.TemporaryFile() as tmp:
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(tmp.fileno(), 1)
        try:
            run()
        finally:
            libc.fflush(None)
            os.dup2(saved, 1)
            os.close(saved)
        tmp.seek(0)
        return tmp.read().decode("latin-1")


def run_gpu_and_sim() -> list[dict]:
    import pycuda.autoprimaryctx  # noqa: F401
    import pycuda.driver as cuda

    from cudasim.api import SourceModule as SimModule

    res = _compiled()
    gpu_mod = cuda.module_from_buffer(res.ptx.encode())
    rows = []
    for name, (args, grid, block) in _inputs().items():
        gpu_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        sim_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        f = gpu_mod.get_function(name)

        def launch():
            f(*[cuda.InOut(a) if isinstance(a, np.ndarray) else a for a in gpu_args], grid=grid, block=block)
            cuda.Context.synchronize()
        gpu_text = _capture_stdout(launch)
        sim = SimModule.from_ptx(res.ptx, res).get_function(name)(*sim_args, grid=grid, block=block, printf=False)
        arrays = [(g, s) for g, s in zip(gpu_args, sim_args) if isinstance(g, np.ndarray)]
        row = {"kernel": name, "arrays_equal": all(np.array_equal(g.view(np.uint8), s.view(np.uint8))
                                                   for g, s in arrays),
               "printf_gpu_lines": gpu_text.count("\n"), "printf_sim_lines": sim.stats["printf"].count("\n"),
               "printf_equal": sorted(gpu_text.splitlines()) == sorted(sim.stats["printf"].splitlines()),
               "printf_gpu": gpu_text, "printf_sim": sim.stats["printf"]}
        row["ok"] = row["arrays_equal"] and row["printf_equal"]
        rows.append(row)
        print(f"{name:8s} arrays {'equal' if row['arrays_equal'] else 'DIFFER'}; printf "
              f"{row['printf_gpu_lines']} GPU lines, {row['printf_sim_lines']} cudasim, "
              f"{'equal' if row['printf_equal'] else 'DIFFER'}", flush=True)
    rows.append(_assert_row())
    return rows


def _assert_child() -> int:
    """Run the failing assert on the GPU; the driver prints each failing thread's message."""
    import pycuda.autoprimaryctx  # noqa: F401
    import pycuda.driver as cuda

    f = cuda.module_from_buffer(_compiled().ptx.encode()).get_function("checked")
    f(cuda.In(np.arange(64, dtype=np.int32)), np.int32(ASSERT_LIMIT), grid=(2, 1), block=(32, 1, 1))
    try:
        cuda.Context.synchronize()
    except cuda.Error as e:
        print(f"SYNC-ERROR {e}", file=sys.stderr)
        return 0
    return 1


def _assert_row() -> dict:
    from cudasim.api import SourceModule as SimModule
    from cudasim.calls import AssertionFailed

    r = subprocess.run([sys.executable, "-m", "kernels.callsdiff", "--assert-child"], capture_output=True, text=True,
                       timeout=300)
    gpu_lines = [ln for ln in (r.stdout + r.stderr).splitlines() if "Assertion" in ln]
    res = _compiled()
    try:
        SimModule.from_ptx(res.ptx, res).get_function("checked")(np.arange(64, dtype=np.int32),
                                                                  np.int32(ASSERT_LIMIT), grid=(2, 1), block=(32, 1, 1))
        sim_first, count = "", 0
    except AssertionFailed as e:
        sim_first, count = str(e).split("triggered: ", 1)[1].split(" (", 1)[0], e.count
    row = {"kernel": "checked (assert)", "gpu_lines": len(gpu_lines), "sim_threads": count,
           "sim_first_in_gpu": sim_first in [ln.strip() for ln in gpu_lines], "gpu_sync_error": "SYNC-ERROR" in r.stderr,
           "gpu_text": (r.stdout + r.stderr)[-4000:], "sim_first": sim_first}
    row["ok"] = row["sim_first_in_gpu"] and row["gpu_lines"] == count and row["gpu_sync_error"]
    print(f"assert   GPU printed {len(gpu_lines)} failing threads, cudasim counted {count}; cudasim's first line "
          f"{'is' if row['sim_first_in_gpu'] else 'is NOT'} among the GPU's", flush=True)
    return row


def main(argv: list[str] | None = None) -> int:
    ap = Parser(prog="python -m kernels.callsdiff", description=__doc__)
    ap.add_argument("--out", help="write the rows as JSON here")
    ap.add_argument("--assert-child", action="store_true", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    try:
        import pycuda.driver  # noqa: F401
    except ImportError:
        fail("PyCUDA is not installed: pip install -e '.[gpu]' on a machine with a CUDA GPU")
    if a.assert_child:
        return _assert_child()
    rows = run_gpu_and_sim()
    if a.out:
        Path(a.out).write_text(json.dumps(rows, indent=1))
    bad = [r["kernel"] for r in rows if not r["ok"]]
    print(f"{len(rows) - len(bad)} of {len(rows)} agree" + (f"; differ: {', '.join(bad)}" if bad else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
