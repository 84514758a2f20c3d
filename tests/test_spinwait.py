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


def _coalescing(target: str, *argv: str) -> subprocess.CompletedProcess:
    """`python -m analysis.coalescing TARGET ARGV... --no-cache` in a process of its own."""
    return subprocess.run([sys.executable, "-m", "analysis.coalescing", target, *argv, "--no-cache"], cwd=ROOT,
                          env=ENV, capture_output=True, text=True, timeout=300)

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
__global__ void handoff(const float *in, float *out, int *passed) {
    __shared__ float data[32];
    __shared__ volatile int flag;
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    float v = 0.f;
    if (warp == 1) {                 // the consumer warp waits for the producer warp of its block
        while (flag == 0) { }
        v = data[lane] * 2.0f;
    } else if (warp == 0) {
        data[lane] = in[blockIdx.x * 32 + lane] + 1.0f;
        __threadfence_block();
        if (lane == 0) flag = 1;
    }
    int n = __syncthreads_count(v > 0.f);   // the producer waits here for the consumer
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
    if (threadIdx.x == 0) passed[blockIdx.x] = n;
}
__global__ void deadlock(int *out) {
    __shared__ volatile int flag;
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    if (threadIdx.x >= 32) while (flag == 0) { }   // set only past the barrier that thread 0 waits at
    __syncthreads();
    if (threadIdx.x == 0) flag = 1;
    out[threadIdx.x] = 1;
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


def test_a_lock_every_thread_of_a_warp_takes_serves_every_thread(module):
    """The holder is a thread of its waiters' own warp: it goes on, as a GPU since Volta lets it."""
    from cudasim import InOut
    lock, count = np.zeros(1, np.int32), np.zeros(1, np.int32)
    module.get_function("warplock")(InOut(lock), InOut(count), grid=(2, 1), block=(64, 1, 1))
    assert count[0] == 128 and lock[0] == 0


def test_a_warp_waits_for_another_warp_of_its_block(module):
    """A consumer warp spins on a flag its block's producer warp sets; both then meet at a barrier (its .red
    form counts them), and each block's result is the producer's data."""
    from cudasim import In, Out
    g = 40
    x = np.arange(g * 32, dtype=np.float32)
    out, passed = np.zeros(g * 96, np.float32), np.zeros(g, np.int32)
    ran = module.get_function("handoff")(In(x), Out(out), Out(passed), grid=(g, 1), block=(96, 1, 1))
    got = out.reshape(g, 3, 32)
    assert (got[:, 1] == (x.reshape(g, 32) + 1) * 2).all() and (got[:, [0, 2]] == 0).all()
    assert (passed == 32).all() and ran.stats["yields"] > 0


def test_a_wait_nothing_simulated_ends_stops_at_once_naming_its_line(module):
    from cudasim import Runaway, Stalled
    t0 = time.monotonic()
    with pytest.raises(Stalled) as e:
        module.get_function("deadlock")(np.zeros(64, np.int32), grid=(1, 1), block=(64, 1, 1))
    assert time.monotonic() - t0 < 30
    assert isinstance(e.value, Runaway)  # stopped, as a runaway is, by those that catch one
    msg = str(e.value)
    assert "a spin-wait that nothing simulated will end" in msg and ":" in e.value.at
    assert "a deadlock" in msg and "32 threads wait at the barrier at" in msg


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
    r = _coalescing(f"{src}::chain", "--grid", "300", "--block", "128")
    assert r.returncode == 0, r.stderr
    assert "so every block was simulated, in order" in r.stdout
    assert "blocks waited for others in spin-waits" in r.stdout
    assert "simulated (all 300 blocks)" in r.stdout


TURNS_CU = r"""
__global__ void relock(int *lock, int *out) {
    if (threadIdx.x == 0) { while (atomicCAS(lock, 0, 1) != 0) {} }
    __syncthreads();
    if (threadIdx.x == 0) { while (atomicCAS(lock, 0, 1) != 0) {} }  // takes its own lock again: never
    out[0] = 1;
}
__device__ unsigned tile_counter;
__global__ void tiles(const int *in, int *out, volatile int *done) {
    __shared__ unsigned tile;
    if (threadIdx.x == 0) tile = atomicAdd(&tile_counter, 1u);   // tiles in the order blocks start
    __syncthreads();
    int i = tile * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0 && tile > 0) while (done[tile - 1] == 0) { }
    __syncthreads();
    out[i] = in[i] + 1;
    __threadfence();
    if (threadIdx.x == 0) done[tile] = 1;
}
"""


def test_blocks_that_take_turns_waiting_stop_at_once(tmp_path):
    """Block 0 waits on the lock it holds, block 1 on block 0: each yields to the other, round after round, and
    neither goes on; the second time a wait stands as it stood, the run stops, in one line."""
    need_nvrtc()
    src = tmp_path / "turns.cu"
    src.write_text(TURNS_CU)
    t0 = time.monotonic()
    r = _coalescing(f"{src}::relock", "--grid", "2", "--block", "32")
    assert time.monotonic() - t0 < 60
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert "a spin-wait that nothing simulated will end" in r.stderr and "turns.cu:" in r.stderr


def test_a_run_started_again_finds_device_variables_as_the_source_sets_them(tmp_path):
    """Tiles taken from a __device__ counter, each waiting on the one before, with buffers left unsized: the runs
    that grow them start again, and each must find the counter at 0 (it had gone on from the last run, and the
    tiles waited on tiles no block would take)."""
    need_nvrtc()
    src = tmp_path / "turns.cu"
    src.write_text(TURNS_CU)
    r = _coalescing(f"{src}::tiles", "--grid", "50", "--block", "256", "--draw", "none")
    assert r.returncode == 0, r.stderr
    assert "grown to" in r.stdout  # the buffers grew past their first size: runs started again


def test_a_ticket_lock_with_nanosleep_backoff_serves_every_block():
    """__nanosleep, the usual backoff in a spin-wait, waits and computes nothing: it runs as a no-op."""
    need_nvrtc()
    from cudasim import InOut, SourceModule
    src = r"""
    __device__ unsigned next_ticket, now_serving;
    __global__ void ticket(int *order) {
        if (threadIdx.x == 0) {
            unsigned t = atomicAdd(&next_ticket, 1u);
            unsigned ns = 8;
            while (atomicAdd(&now_serving, 0u) != t) { __nanosleep(ns); ns = ns < 256 ? 2 * ns : 256; }
            order[t] = blockIdx.x;
            __threadfence();
            atomicExch(&now_serving, t + 1);
        }
    }"""
    order = np.full(24, -1, np.int32)
    SourceModule(src).get_function("ticket")(InOut(order), grid=(24, 1), block=(32, 1, 1))
    assert sorted(order.tolist()) == list(range(24))


def test_a_wait_on_made_up_data_says_so(tmp_path):
    """A flag given no --data holds zeros, and every block waits for it: the stop says the wait may be the
    made-up contents', and how to give real ones."""
    need_nvrtc()
    src = tmp_path / "flag.cu"
    src.write_text("__global__ void wait_flag(volatile int *flag, int *out) {\n"
                   "    while (flag[0] == 0) { }\n    out[blockIdx.x] = 1;\n}\n")
    r = _coalescing(f"{src}::wait_flag", "--grid", "2", "--block", "32")
    assert r.returncode == 2 and r.stderr.count("\n") == 1, r.stderr
    assert ("flag holds made-up contents (no --data) that decide this kernel's branches, so the wait may be theirs: "
            "--data flag=FILE.npy gives yours") in r.stderr
