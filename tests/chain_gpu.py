"""What one iteration of a serial chain of global loads costs when stores come between the loads: the
shape of a thread-per-system solver (Thomas), whose every load follows the previous row's stores.

    python3 tests/chain_gpu.py > tests/chain_h200.json      # needs CuPy and a GPU (measured on the H200)

Two kernels (SOURCE), both stamping each warp's clock64() around the loop:

* raw: one warp per SM; each iteration loads the word its lane last loaded (an L1 hit) after, or
  without, storing to it (mode 1: the same word; mode 2: another line; mode 0: no store). The next
  address waits for the loaded value (`v & z`, z = 0 at run time), so an iteration is one load's
  latency plus the address arithmetic.
* chain: every thread walks its own column of an interleaved layout (row i of thread t at
  i * threads + t: each warp reads 256 contiguous bytes a row, rows far apart), the next row's
  address waiting for this row's value, with or without a store of the same shape between; 1 to 32
  warps per SM. An iteration is a DRAM round trip; the event time over rows x threads is the rate.
"""
from __future__ import annotations

import json

import numpy as np

SOURCE = r"""
extern "C" __global__ void raw(long long* buf, long long* other, int iters, int z, int mode, long long* rec) {
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long v = buf[k];
    long long t0 = clock64();
    for (int i = 0; i < iters; i++) {
        if (mode == 1) buf[k] = v + 1;
        if (mode == 2) other[k] = v + 1;
        v = buf[k + (v & z)];
    }
    long long t1 = clock64();
    if (threadIdx.x % 32 == 0) rec[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = t1 - t0;
    if (v == -7) other[0] = v;
}

extern "C" __global__ void chain(const long long* a, long long* out, int rows, int store, int z, long long* rec) {
    long long threads = (long long)gridDim.x * blockDim.x;
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    long long v = 0;
    long long t0 = clock64();
    for (int i = 0; i < rows; i++) {
        v = a[k + (v & z)];
        if (store) out[k] = v + i;
        k += threads;
    }
    long long t1 = clock64();
    if (threadIdx.x % 32 == 0) rec[(blockIdx.x * blockDim.x + threadIdx.x) / 32] = t1 - t0;
    if (v == -7) out[0] = v;
}
"""
RAW_ITERS = 4096
ROWS = 256
WARPS_PER_SM = (1, 2, 4, 8, 16, 32)


def main() -> None:
    import cupy as cp

    mod = cp.RawModule(code=SOURCE, options=("-arch=sm_90",))
    raw, chain = mod.get_function("raw"), mod.get_function("chain")
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    out: dict = {"what": "cycles per iteration of a serial chain of global loads, with and without stores "
                         "between (tests/chain_gpu.py)", "device": props["name"].decode(), "sms": sms, "raw": [],
                 "chain": []}
    buf = cp.zeros(sms * 32 * 4, cp.int64)
    other = cp.zeros(sms * 32 * 4, cp.int64)
    rec = cp.zeros(sms * 64, cp.int64)
    for mode, what in enumerate(("load only", "store to the same word, then load it", "store to another line")):
        raw((sms,), (32,), (buf, other, np.int32(RAW_ITERS), np.int32(0), np.int32(mode), rec))
        raw((sms,), (32,), (buf, other, np.int32(RAW_ITERS), np.int32(0), np.int32(mode), rec))
        cp.cuda.runtime.deviceSynchronize()
        c = cp.asnumpy(rec[:sms]) / RAW_ITERS
        out["raw"].append({"mode": mode, "what": what, "iters": RAW_ITERS, "clk_per_iter_median": float(np.median(c)),
                           "clk_per_iter_min": float(c.min()), "clk_per_iter_max": float(c.max())})
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    for w in WARPS_PER_SM:
        per_block = min(w, 8)
        blocks = sms * (w // per_block)
        threads = blocks * per_block * 32
        a = cp.zeros(threads * ROWS, cp.int64)
        dst = cp.zeros(threads * ROWS, cp.int64)
        rec = cp.zeros(threads // 32, cp.int64)
        for store in (0, 1):
            args = (a, dst, np.int32(ROWS), np.int32(store), np.int32(0), rec)
            chain((blocks,), (per_block * 32,), args)
            ts = []
            for _ in range(9):
                start.record()
                chain((blocks,), (per_block * 32,), args)
                stop.record()
                stop.synchronize()
                ts.append(cp.cuda.get_elapsed_time(start, stop))
            c = cp.asnumpy(rec) / ROWS
            ms = float(np.median(ts))
            moved = threads * ROWS * 8 * (2 if store else 1)
            out["chain"].append({"warps_per_sm": w, "block": per_block * 32, "blocks": blocks, "store": store,
                                 "rows": ROWS, "event_us_median": ms * 1e3,
                                 "clk_per_row_median": float(np.median(c)), "clk_per_row_p90": float(np.percentile(c, 90)),
                                 "dram_gbs": moved / (ms * 1e-3) / 1e9})
        del a, dst
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
