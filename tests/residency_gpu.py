"""How many blocks an SM holds at once when most warps of each block exit at once: whether a warp that
has exited frees its slot for the next block, or the block keeps its slots until its last warp ends.

    OUT=/some/dir python3 tests/residency_gpu.py      # -> stdout JSON: per case the most blocks seen on an SM

Blocks of 256 threads (8 warps); in each, the first `exiting` warps return at once and the rest spin on
clock64() for `spin` cycles. A lane of the first spinning warp counts its block in and out on its SM
(%smid), and the most seen at once per SM is kept. Needs CuPy.
"""
from __future__ import annotations

import json

import numpy as np

SOURCE = r"""
extern "C" __global__ void resident(int* now, int* most, long long spin, int exiting) {
    int warp = threadIdx.x / 32;
    if (warp < exiting) return;
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    bool counter = warp == exiting && threadIdx.x % 32 == 0;
    if (counter) atomicMax(&most[sm], atomicAdd(&now[sm], 1) + 1);
    long long t0 = clock64();
    while (clock64() - t0 < spin) { }
    if (counter) atomicSub(&now[sm], 1);
}
"""


def main() -> None:
    import cupy as cp

    fn = cp.RawModule(code=SOURCE, options=("-arch=sm_90",)).get_function("resident")
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    out = []
    for exiting in (0, 4, 6, 7):
        for blocks_per_sm in (8, 16, 32, 64):
            now = cp.zeros(1024, cp.int32)
            most = cp.zeros(1024, cp.int32)
            fn((sms * blocks_per_sm,), (256,), (now, most, np.int64(200_000), np.int32(exiting)))
            cp.cuda.runtime.deviceSynchronize()
            m = cp.asnumpy(most)[:sms]
            out.append({"exiting_warps": exiting, "working_warps": 8 - exiting, "blocks": sms * blocks_per_sm,
                        "most_resident_median": float(np.median(m)), "most_resident_max": int(m.max())})
    print(json.dumps({"what": "blocks resident at once on an SM, 256-thread blocks, the first warps exiting at "
                              "once (tests/residency_gpu.py)", "sms": sms, "cases": out}, indent=1))


if __name__ == "__main__":
    main()
