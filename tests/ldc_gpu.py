"""How many indexed constant loads (LDC, `__constant__` arrays read at an index in a register) an SM
completes per cycle: the rate a kernel such as a ray tracer looping over spheres in constant memory
runs into (ncu: stalls on the MIO queue, instructions in the ADU pipe).

    python3 tests/ldc_gpu.py > tests/ldc_h100.json      # needs CuPy and a GPU

One block per SM of 4 to 32 warps; each thread runs `iters` steps of four independent LDCs (four
accumulator chains) at an index built from threadIdx.x x `stride` (0 at run time: every lane reads the
same word, but ptxas cannot know it and emits LDC, not the uniform ULDC; 1: 32 different words). Thread 0
stamps clock64() before and after, around a barrier each side; the rate is the block's LDCs over those
cycles. The SASS is listed (cuobjdump) so that the LDC count per step is read, not assumed.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile

import numpy as np

SOURCE = r"""
__constant__ float cbuf[1024];
extern "C" __global__ void ldc_rate(int iters, int stride, long long* cyc, float* out) {
    int i = threadIdx.x * stride;
    float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
    __syncthreads();
    long long t0 = clock64();
    for (int k = 0; k < iters; k++) {
        a0 += cbuf[(i + k) & 1023];
        a1 += cbuf[(i + k + 256) & 1023];
        a2 += cbuf[(i + k + 512) & 1023];
        a3 += cbuf[(i + k + 768) & 1023];
    }
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0) { cyc[2 * blockIdx.x] = t0; cyc[2 * blockIdx.x + 1] = t1; }
    out[blockIdx.x * blockDim.x + threadIdx.x] = a0 + a1 + a2 + a3;
}
"""


def ldc_per_step() -> int:
    """LDC instructions in the loop body of the compiled kernel (cuobjdump -sass of nvcc's cubin)."""
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "k.cu")
        open(src, "w").write(SOURCE)
        subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-o", os.path.join(d, "k.cubin"), src], check=True)
        sass = subprocess.run(["cuobjdump", "-sass", os.path.join(d, "k.cubin")], capture_output=True,
                              text=True, check=True).stdout
    return len(re.findall(r"\bLDC\b", sass)), sass


def main() -> None:
    import cupy as cp

    mod = cp.RawModule(code=SOURCE, options=("-arch=sm_90",))
    fn = mod.get_function("ldc_rate")
    ptr = mod.get_global("cbuf")
    cp.ndarray((1024,), cp.float32, ptr)[:] = cp.arange(1024, dtype=cp.float32) * 1e-3
    sms = cp.cuda.runtime.getDeviceProperties(0)["multiProcessorCount"]
    ldcs, sass = ldc_per_step()
    out = {"what": "indexed constant loads (LDC) an SM completes per cycle (tests/ldc_gpu.py)", "sms": sms,
           "ldc_in_kernel_sass": ldcs, "sass_loop": [l.strip() for l in sass.splitlines() if "LDC" in l][:16],
           "cases": []}
    iters = 4096
    for stride in (0, 1):
        for warps in (4, 8, 16, 32):
            cyc = cp.zeros(2 * sms, cp.int64)
            o = cp.zeros(sms * warps * 32, cp.float32)
            fn((sms,), (warps * 32,), (np.int32(16), np.int32(stride), cyc, o))
            fn((sms,), (warps * 32,), (np.int32(iters), np.int32(stride), cyc, o))
            cp.cuda.runtime.deviceSynchronize()
            c = cp.asnumpy(cyc).reshape(-1, 2)
            cycles = float(np.median(c[:, 1] - c[:, 0]))
            out["cases"].append({"stride": stride, "distinct_words_per_warp": 1 if stride == 0 else 32,
                                 "warps_per_sm": warps, "iters": iters, "ldc_per_iter_per_thread": 4,
                                 "cycles_median": cycles,
                                 "ldc_warp_instructions_per_clk_sm": 4 * iters * warps / cycles})
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
