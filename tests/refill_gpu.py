"""How long an SM's block slot stays empty between one block's end and the next block's start, and what
that costs a launch of short blocks.

    python3 tests/refill_gpu.py > tests/refill_h100.json      # needs CuPy and a GPU

Two experiments, both on blocks whose warps spin on clock64() for `spin` cycles and then do `tail`:
nothing, a store per thread, or a load per thread whose value is stored (DRAM traffic in flight at
the end), then meet at a barrier after which thread 0 stamps its SM (%smid), its start and its end
(clock64, the SM's own cycle counter).

* gap: 150 KiB of dynamic shared memory per block, so an SM holds one block at a time; per SM the
  blocks' [start, end] follow one another, and start(next) - end(previous) is the cycles the slot
  stood empty (the last warps' exit, their stores' drain, the next block's launch and its first
  instructions up to the stamp). The empty-block launch rate (kernels.microbench, blocks_empty_*)
  cannot show this: an SM with several slots hides it.
* pace: no shared memory (8 blocks of 256 threads resident), CUDA-event time of the launch per
  block per SM, against what the spin alone allows, (spin + gap) / 8, and the launch rate.
"""
from __future__ import annotations

import json

import numpy as np

SOURCE = r"""
extern "C" __global__ void refill(long long spin, int tail, long long* rec, float* dst, const float* src) {
    extern __shared__ float pad[];
    long long t0 = clock64();
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    if (spin < 0) pad[threadIdx.x] = 0.f;          // never: keeps the shared memory in the launch
    while (clock64() - t0 < spin) { }
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (tail == 1) dst[i] = (float)threadIdx.x;
    if (tail == 2) dst[i] = src[i] + 1.f;
    __syncthreads();
    if (threadIdx.x == 0) {
        long long* r = rec + 3 * blockIdx.x;
        r[0] = sm; r[1] = t0; r[2] = clock64();
    }
}
"""
TAILS = ("none", "store", "load+store")
GAP_SHARED = 150 * 1024


def gaps(rec: np.ndarray) -> np.ndarray:
    """start(next) - end(previous) of consecutive blocks on each SM (one block resident at a time)."""
    out = []
    for sm in np.unique(rec[:, 0]):
        r = rec[rec[:, 0] == sm]
        r = r[np.argsort(r[:, 1])]
        g = r[1:, 1] - r[:-1, 2]
        out.append(g)
    return np.concatenate(out)


def main() -> None:
    import cupy as cp

    fn = cp.RawModule(code=SOURCE, options=("-arch=sm_90",)).get_function("refill")
    fn.max_dynamic_shared_size_bytes = GAP_SHARED
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    n_max = sms * 1500 * 1024
    src = cp.ones(n_max, cp.float32)
    dst = cp.zeros(n_max, cp.float32)
    out: dict = {"what": "empty block-slot cycles between consecutive blocks on one SM, and the pace of short "
                         "blocks (tests/refill_gpu.py)", "sms": sms, "gap": [], "pace": []}
    for threads in (32, 256, 1024):
        for tail in range(3):
            blocks = sms * 40
            rec = cp.zeros(3 * blocks, cp.int64)
            fn((blocks,), (threads,), (np.int64(2000), np.int32(tail), rec, dst, src), shared_mem=GAP_SHARED)
            cp.cuda.runtime.deviceSynchronize()
            r = cp.asnumpy(rec).reshape(-1, 3)
            g = gaps(r)
            out["gap"].append({"threads": threads, "tail": TAILS[tail], "spin_clk": 2000, "blocks": blocks,
                               "gap_clk_median": float(np.median(g)), "gap_clk_p10": float(np.percentile(g, 10)),
                               "gap_clk_p90": float(np.percentile(g, 90)),
                               "block_clk_median": float(np.median(r[:, 2] - r[:, 1]))})
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    for spin in (0, 500, 1000, 2000, 4000):
        for tail in range(3):
            per_sm = 1500
            blocks = sms * per_sm
            rec = cp.zeros(3 * blocks, cp.int64)
            args = (np.int64(spin), np.int32(tail), rec, dst, src)
            fn((blocks,), (256,), args)
            ts = []
            for _ in range(7):
                start.record()
                fn((blocks,), (256,), args)
                stop.record()
                stop.synchronize()
                ts.append(cp.cuda.get_elapsed_time(start, stop))
            ms = float(np.median(ts))
            r = cp.asnumpy(rec).reshape(-1, 3)
            out["pace"].append({"threads": 256, "tail": TAILS[tail], "spin_clk": spin, "blocks": blocks,
                                "event_ms_median": ms, "block_clk_median": float(np.median(r[:, 2] - r[:, 1]))})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
