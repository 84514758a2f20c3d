"""Shared-memory wavefronts ncu counts beyond a request's addresses when many warps run at once: the
same conflict-free loads and stores, alone or beside global loads and barriers, from one warp up to
a full GPU. Which of these makes ncu count more than the address rule says is what this measures.

    OUT=/some/dir ncu --csv --page raw --metrics <tests.contention_gpu.METRICS> python3 tests/contention_gpu.py \
        > $OUT/ncu.csv
    python3 tests/contention_gpu.py --collect $OUT/ncu.csv > tests/contention_h100.json

Needs CuPy.
"""
from __future__ import annotations

import csv
import json
import sys

import numpy as np

METRICS = ",".join(f"{m}_{op}.sum" for m in ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op",
                                             "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op",
                                             "smsp__inst_executed_op_shared") for op in ("ld", "st"))
REPS = 64
SOURCE = r"""
#define REPS 64
extern "C" __global__ void sts_only(const float* g, float* out, int n) {
    __shared__ float s[1024];
    unsigned p = (unsigned)__cvta_generic_to_shared(s) + 4 * threadIdx.x;
    float v = threadIdx.x;
    for (int r = 0; r < REPS; r++) asm volatile("st.volatile.shared.f32 [%0], %1;" :: "r"(p), "f"(v + r) : "memory");
}
extern "C" __global__ void lds_only(const float* g, float* out, int n) {
    __shared__ float s[1024];
    unsigned p = (unsigned)__cvta_generic_to_shared(s) + 4 * threadIdx.x;
    float acc = 0.f, v;
    for (int r = 0; r < REPS; r++) { asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(v) : "r"(p)); acc += v; }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}
extern "C" __global__ void sts_after_ldg(const float* g, float* out, int n) {
    __shared__ float s[1024];
    unsigned p = (unsigned)__cvta_generic_to_shared(s) + 4 * threadIdx.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int r = 0; r < REPS; r++) {
        float v = g[(i + r * 4096 * 32) % n];
        asm volatile("st.volatile.shared.f32 [%0], %1;" :: "r"(p), "f"(v) : "memory");
    }
}
extern "C" __global__ void lds_sts_mix(const float* g, float* out, int n) {
    __shared__ float s[1024];
    unsigned p = (unsigned)__cvta_generic_to_shared(s) + 4 * threadIdx.x;
    unsigned q = (unsigned)__cvta_generic_to_shared(s) + 4 * (threadIdx.x ^ 1);
    float v = 0.f;
    for (int r = 0; r < REPS; r++) {
        asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(v) : "r"(q));
        asm volatile("st.volatile.shared.f32 [%0], %1;" :: "r"(p), "f"(v + 1.f) : "memory");
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
extern "C" __global__ void tiled_stage(const float* g, float* out, int n) {
    // matmul_tiled's shape: a global load stored to shared, a barrier, shared loads, a barrier
    __shared__ float s[1024];
    unsigned p = (unsigned)__cvta_generic_to_shared(s) + 4 * threadIdx.x;
    unsigned q = (unsigned)__cvta_generic_to_shared(s) + 4 * ((threadIdx.x + 32) % blockDim.x);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.f, v;
    for (int r = 0; r < REPS; r++) {
        float x = g[(i + r * 4096 * 32) % n];
        asm volatile("st.volatile.shared.f32 [%0], %1;" :: "r"(p), "f"(x) : "memory");
        __syncthreads();
        asm volatile("ld.volatile.shared.f32 %0, [%1];" : "=f"(v) : "r"(q));
        acc += v;
        __syncthreads();
    }
    out[i] = acc;
}
"""
KERNELS = ("sts_only", "lds_only", "sts_after_ldg", "lds_sts_mix", "tiled_stage")
GRIDS = (1, 8, 132, 1056, 8448)
BLOCKS = (32, 256)


def launches() -> list[dict]:
    return [{"kernel": k, "grid": g, "block": b} for k in KERNELS for g in GRIDS for b in BLOCKS]


def run() -> None:
    import cupy as cp

    mod = cp.RawModule(code=SOURCE, options=("-arch=sm_90",))
    n = 1 << 26
    g = cp.arange(n, dtype=cp.float32)
    out = cp.zeros(8448 * 256, cp.float32)
    for x in launches():
        mod.get_function(x["kernel"])((x["grid"],), (x["block"],), (g, out, np.int32(n)))
    cp.cuda.runtime.deviceSynchronize()


def collect(csv_path: str) -> dict:
    rows = [r for r in csv.DictReader(line for line in open(csv_path) if line.startswith('"'))
            if r.get("ID", "").isdigit() and r.get("Kernel Name") in KERNELS]  # not CuPy's own kernels
    todo = launches()
    if len(rows) != len(todo):
        raise SystemExit(f"{csv_path}: {len(rows)} profiled launches, {len(todo)} expected")
    out = []
    for x, r in zip(todo, rows):
        rec = dict(x)
        for m in METRICS.split(","):
            rec[m] = float(r[m].replace(",", ""))
        out.append(rec)
    return {"what": "conflict-free shared accesses, REPS per thread, by kernel shape and launch size "
                    "(tests/contention_gpu.py)", "reps": REPS, "launches": out}


if __name__ == "__main__":
    if sys.argv[1:2] == ["--collect"]:
        json.dump(collect(sys.argv[2]), sys.stdout, indent=1)
    else:
        run()
