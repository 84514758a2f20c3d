"""The simulator benchmark's reference: the same two algorithms written for numba's CUDA simulator.

Only `python -m kernels.simbench` imports this, in a subprocess with NUMBA_ENABLE_CUDASIM=1
(numba is a benchmark-only dependency: `pip install -e '.[bench]'`). The ports follow
kernels/transpose.cu (transpose_tiled: 32x32 tile, 32x8 threads) and the 2D block-tiling
SGEMM (BM=BN=128, BK=8, TM=TN=8, 256 threads) step for step.
"""
from __future__ import annotations

import sys
import time

import numpy as np

try:
    from numba import cuda, float32
except ImportError:  # a benchmark-only dependency
    if __name__ != "__main__":
        raise
    print("error: kernels.numba_ports is kernels.simbench's reference and needs numba: pip install -e '.[bench]', "
          "then python -m kernels.simbench --numba", file=sys.stderr)
    sys.exit(2)

TILE, ROWS = 32, 8
BM, BN, BK, TM, TN = 128, 128, 8, 8, 8


@cuda.jit
def transpose_tiled(out, inp, width, height):
    tile = cuda.shared.array((TILE, TILE), float32)
    x = cuda.blockIdx.x * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.y * TILE + cuda.threadIdx.y
    for j in range(0, TILE, ROWS):
        if x < width and y + j < height:
            tile[cuda.threadIdx.y + j, cuda.threadIdx.x] = inp[(y + j) * width + x]
    cuda.syncthreads()
    x = cuda.blockIdx.y * TILE + cuda.threadIdx.x
    y = cuda.blockIdx.x * TILE + cuda.threadIdx.y
    for j in range(0, TILE, ROWS):
        if x < height and y + j < width:
            out[(y + j) * height + x] = tile[cuda.threadIdx.x, cuda.threadIdx.y + j]


@cuda.jit
def sgemm_2d_blocktiling(M, N, K, alpha, A, B, beta, C):
    c_row, c_col = cuda.blockIdx.y, cuda.blockIdx.x
    t = cuda.threadIdx.x
    thread_col, thread_row = t % (BN // TN), t // (BN // TN)
    As = cuda.shared.array(BM * BK, float32)
    Bs = cuda.shared.array(BK * BN, float32)
    row_a, col_a, stride_a = t // BK, t % BK, 256 // BK
    row_b, col_b, stride_b = t // BN, t % BN, 256 // BN
    res = cuda.local.array(TM * TN, float32)
    reg_m = cuda.local.array(TM, float32)
    reg_n = cuda.local.array(TN, float32)
    for i in range(TM * TN):
        res[i] = 0.0
    for bk in range(0, K, BK):
        for o in range(0, BM, stride_a):
            As[(row_a + o) * BK + col_a] = A[(c_row * BM + row_a + o) * K + bk + col_a]
        for o in range(0, BK, stride_b):
            Bs[(row_b + o) * BN + col_b] = B[(bk + row_b + o) * N + c_col * BN + col_b]
        cuda.syncthreads()
        for d in range(BK):
            for i in range(TM):
                reg_m[i] = As[(thread_row * TM + i) * BK + d]
            for i in range(TN):
                reg_n[i] = Bs[d * BN + thread_col * TN + i]
            for m in range(TM):
                for n in range(TN):
                    res[m * TN + n] += reg_m[m] * reg_n[n]
        cuda.syncthreads()
    for m in range(TM):
        for n in range(TN):
            i = (c_row * BM + thread_row * TM + m) * N + c_col * BN + thread_col * TN + n
            C[i] = alpha * res[m * TN + n] + beta * C[i]


def run(name: str, size: int) -> float:
    """Seconds numba's simulator takes for one launch at `size` (checked against numpy)."""
    rng = np.random.default_rng(0)
    if name == "transpose_tiled":
        a = rng.random(size * size, dtype=np.float32)
        out = np.zeros_like(a)
        t0 = time.perf_counter()
        transpose_tiled[(size // TILE, size // TILE), (TILE, ROWS)](out, a, size, size)
        dt = time.perf_counter() - t0
        assert np.array_equal(out.reshape(size, size), a.reshape(size, size).T)
        return dt
    A, B, C = (rng.random(size * size, dtype=np.float32) for _ in range(3))
    want = 1.5 * (A.reshape(size, size).astype(np.float64) @ B.reshape(size, size)) + 0.5 * C.reshape(size, size)
    t0 = time.perf_counter()
    sgemm_2d_blocktiling[(size // BN, size // BM), 256](size, size, size, np.float32(1.5), A, B, np.float32(0.5), C)
    dt = time.perf_counter() - t0
    assert np.allclose(C.reshape(size, size), want, rtol=1e-4, atol=1e-3)
    return dt


if __name__ == "__main__":  # python -m kernels.numba_ports NAME SIZE  (NUMBA_ENABLE_CUDASIM=1)
    if len(sys.argv) != 3 or not sys.argv[2].isdigit():
        print("error: kernels.numba_ports is kernels.simbench's reference, not a command: python -m "
              "kernels.simbench --numba runs it", file=sys.stderr)
        sys.exit(2)
    print(run(sys.argv[1], int(sys.argv[2])))
