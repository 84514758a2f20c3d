"""Spin-waits between blocks: a lock, a flag a block before sets, end as on a GPU; a wait nothing simulated will
end stops at once, saying so; yielding to other blocks changes only the order between blocks."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from needs import need_nvrtc

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "CUDAPERF_PROGRESS": "0"}

SPIN_CU = r"""
__global__ void locked(int *lock, int *total) {
    if (threadIdx.x == 0) {
        while (atomicCAS(lock, 0, 1) != 0) { }
        *total += 1;                 // one block at a time
        __threadfence();
        atomicExch(lock, 0);
    }
}
__global__ void chain(volatile int *flag, int *out) {
    __shared__ int prev;
    if (threadIdx.x == 0) {
        if (blockIdx.x > 0) while (flag[blockIdx.x - 1] == 0) { }
        prev = blockIdx.x > 0 ? out[blockIdx.x - 1] : 0;
    }
    __syncthreads();
    if (threadIdx.x == 0) { out[blockIdx.x] = prev + 1; __threadfence(); flag[blockIdx.x] = 1; }
}
__global__ void warplock(int *lock, int *count) {
    while (atomicCAS(lock, 0, 1) != 0) { }   // every thread: the holder waits behind its own warp's waiters
    *count += 1;
    __threadfence();
    atomicExch(lock, 0);
}
__global__ void busy(int *c, int iters) {
    if (blockIdx.x == 0)
        for (int i = 0; i < iters; i++) atomicAdd(&c[threadIdx.x % 4], 1);   // goes round, other blocks wait
    c[4 + blockIdx.x * blockDim.x + threadIdx.x] = threadIdx.x;
}
"""


@pytest.fixture(scope="module")
def module():
    need_nvrtc()
    from cudasim import SourceModule
    return SourceModule(SPIN_CU)


def test_a_lock_between_blocks_is_taken_by_each_block_in_turn(module):
    from cudasim import InOut
    lock, total = np.zeros(1, np.int32), np.zeros(1, np.int32)
    ran = module.get_function("locked")(InOut(lock), InOut(total), grid=(40, 1), block=(64, 1, 1))
    assert total[0] == 40 and lock[0] == 0
    assert ran.stats["yields"] > 0


def test_each_block_waits_for_the_one_before_across_batches(module):
    from cudasim import InOut
    g = 300  # 256 blocks of 128 threads a batch: the wait crosses from the second batch into the first
    flag, out = np.zeros(g, np.int32), np.zeros(g, np.int32)
    module.get_function("chain")(InOut(flag), InOut(out), grid=(g, 1), block=(128, 1, 1))
    assert (out == np.arange(1, g + 1)).all() and flag.all()


def test_a_wait_nothing_simulated_ends_stops_at_once_naming_its_line(module):
    from cudasim import Runaway, Stalled
    t0 = time.monotonic()
    with pytest.raises(Stalled) as e:
        module.get_function("warplock")(np.zeros(1, np.int32), np.zeros(1, np.int32), grid=(2, 1), block=(64, 1, 1))
    assert time.monotonic() - t0 < 30
    assert isinstance(e.value, Runaway)  # stopped, as a runaway is, by those that catch one
    msg = str(e.value)
    assert "a spin-wait that nothing simulated will end" in msg and ":" in e.value.at
    assert "another thread of its own block" in msg


def test_yielding_changes_only_the_order_between_blocks(module, monkeypatch):
    """Block 0 goes round an atomic loop while the others wait: yielding runs them first, and every warp
    executes the same instructions, and makes the same accesses, as without yielding."""
    import cudasim.execute as ex

    def run():
        c = np.zeros(4 + 8 * 64, np.int32)
        from cudasim import InOut
        ran = module.get_function("busy")(InOut(c), np.int32(100), grid=(8, 1), block=(64, 1, 1))
        rows = sorted((ev.pc, int(bk), int(w), int(mk), tuple(a)) for ev in ran.trace.events
                      for bk, w, mk, a in zip(ev.blocks, ev.warps, ev.masks, ev.addrs.tolist()))
        return c, ran.stats, rows

    c1, s1, rows1 = run()
    monkeypatch.setattr(ex, "_SPIN", 1 << 40)  # never yields
    c2, s2, rows2 = run()
    assert s1["yields"] > 0 and s2["yields"] == 0
    assert (c1 == c2).all() and c1[0] == 16 * 100
    assert (s1["pc_warp_instructions"] == s2["pc_warp_instructions"]).all()
    assert s1["warp_instructions"] == s2["warp_instructions"]
    assert rows1 == rows2


def test_a_sampled_block_that_waits_on_another_has_every_block_simulated(tmp_path):
    """Run alone (a sample, a probe), a block waiting for the one before it waits for ever: the analysis
    simulates every block, in order, and says so."""
    need_nvrtc()
    src = tmp_path / "spin.cu"
    src.write_text(SPIN_CU)
    r = subprocess.run([sys.executable, "-m", "analysis.coalescing", f"{src}::chain", "--grid", "300", "--block",
                        "128", "--no-cache"], cwd=ROOT, env=ENV, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "so every block was simulated, in order" in r.stdout
    assert "blocks waited for others in spin-waits" in r.stdout
    assert "simulated (all 300 blocks)" in r.stdout
