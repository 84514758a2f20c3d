"""Where the H100 puts the blocks of a launch with fewer blocks than the chip can hold at once: one per
SM, or packed. A model that spreads B blocks over min(B, SMs) SMs times the busiest SM as running one.

    python3 tests/placement_gpu.py > tests/placement_h100.json      # needs CuPy and a GPU

Each block's thread 0 stamps its SM (%smid) and its start and end (%globaltimer); every block spins
`ns` nanoseconds, so a launch's blocks are all resident at once whatever their placement. Per launch:
how many SMs got 0, 1, 2, ... blocks, and the spread of the blocks' start times.
"""
from __future__ import annotations

import json
from collections import Counter

import numpy as np

SOURCE = r"""
extern "C" __global__ void place(unsigned long long ns, long long* rec) {
    unsigned long long t0, t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
    do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); } while (t - t0 < ns);
    if (threadIdx.x == 0) {
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        rec[3 * blockIdx.x] = sm; rec[3 * blockIdx.x + 1] = (long long)t0; rec[3 * blockIdx.x + 2] = (long long)t;
    }
}
"""


def main() -> None:
    import cupy as cp

    fn = cp.RawModule(code=SOURCE, options=("-arch=sm_90",)).get_function("place")
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    out: dict = {"what": "blocks per SM when a launch has few blocks (tests/placement_gpu.py)", "sms": sms,
                 "cases": []}
    for threads in (128, 1024):
        for blocks in (1, 2, 8, 16, 32, 33, 64, 66, 100, 132, 133, 200, 264):
            rec = cp.zeros(3 * blocks, cp.int64)
            fn((blocks,), (threads,), (np.uint64(50_000), rec))
            cp.cuda.runtime.deviceSynchronize()
            r = cp.asnumpy(rec).reshape(-1, 3)
            per_sm = Counter(r[:, 0].tolist())
            hist = Counter(per_sm.values())
            out["cases"].append({"threads": threads, "blocks": blocks, "sms_used": len(per_sm),
                                 "sms_with_k_blocks": {str(k): v for k, v in sorted(hist.items())},
                                 "most_on_one_sm": max(per_sm.values()),
                                 "start_spread_ns": int(r[:, 1].max() - r[:, 1].min()),
                                 "smids_first_16": r[:16, 0].tolist()})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
