"""The held-out set: common CUDA patterns that neither the catalog nor the corpus has, written as
their authors write them (textbooks, CUDA samples, papers, framework code) and kept away from
the model developers, so that the timing model can be tested out of sample honestly.

The same shape as corpus.manifest (CORPUS, BY_NAME, get, SMS; every entry a CorpusKernel made
by corpus.manifest.entry, sources under corpus/holdout/): each kernel with its launch, seeded
inputs, float64 numpy reference, FLOPs and compulsory bytes (each input element read once, each
output element written once). FLOPs count floating-point +, -, *, / and each math intrinsic as
one; integer and comparison work counts zero. Every size is chosen for 20 us - 5 ms on an H100
and stated with its reason beside the entry.

    python -m corpus.holdout.manifest       # the table: pattern, launch, bytes, FLOPs
"""
from __future__ import annotations

import numpy as np

from kernels.catalog import _positive, _signed

from ..manifest import SMS, CorpusKernel, _blocks, _nan, entry, index

__all__ = ["CORPUS", "BY_NAME", "get", "SMS", "CorpusKernel"]


# ---- shapes: each kernel's one size parameter n and what it implies ------------------------------
def _colsum_shape(n):  # n columns, n / 16 rows: a wide feature matrix (2048 samples x 32768 features)
    return max(1, n // 16), n


def _image_shape(n):  # n wide, 16:9 (7680 -> 7680 x 4320, an 8K UHD frame)
    return n, max(1, n * 9 // 16)


GEMV_COLS = 2048  # gemv_shared_x: n rows x 2048 columns


def _matadd_cols(n):  # n rows x 1.5 n columns: not square, so a row/column mix-up shows
    return n + n // 2


def _pool_shape(n):  # n images of 64 channels, 112 x 112 (the ResNet stem's max pool input)
    return n, 64, 112, 112


# ---- references ---------------------------------------------------------------------------------
def _layernorm_ref(d):
    cols = int(d["cols"])
    x = d["x"].astype(np.float64).reshape(-1, cols)
    mu = x.mean(axis=1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
    y = (x - mu) / np.sqrt(var + float(d["eps"]))
    return (y * d["gamma"].astype(np.float64) + d["beta"].astype(np.float64)).ravel()


def _stencil3d_ref(d):
    nx, ny, nz = int(d["nx"]), int(d["ny"]), int(d["nz"])
    a = d["in"].astype(np.float64).reshape(nz, ny, nx)
    c0, c1 = float(d["c0"]), float(d["c1"])
    o = a.copy()
    o[1:-1, 1:-1, 1:-1] = c0 * a[1:-1, 1:-1, 1:-1] + c1 * (
        a[1:-1, 1:-1, :-2] + a[1:-1, 1:-1, 2:] + a[1:-1, :-2, 1:-1] + a[1:-1, 2:, 1:-1]
        + a[:-2, 1:-1, 1:-1] + a[2:, 1:-1, 1:-1])
    return o.ravel()


def _gaussian5():
    t = np.arange(-2, 3, dtype=np.float64)
    g = np.exp(-(t[:, None] ** 2 + t[None, :] ** 2) / 2.0)
    return (g / g.sum()).astype(np.float32).ravel()


def _conv2d_ref(d):
    w, h = int(d["width"]), int(d["height"])
    img = np.pad(d["in"].astype(np.float64).reshape(h, w), 2)
    m = d["c_mask"].astype(np.float64).reshape(5, 5)
    return sum(m[i, j] * img[i:i + h, j:j + w] for i in range(5) for j in range(5)).ravel()


def _csr_nnz(rows):  # row lengths are a shuffle of 1, 2, ..., 63 repeated: mean 32, total known from rows alone
    q, r = divmod(rows, 63)
    return q * 2016 + r * (r + 1) // 2


def _csr_inputs(n, rng):
    lengths = rng.permutation(np.resize(np.arange(1, 64, dtype=np.int64), n))
    row_ptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    nnz = int(row_ptr[-1])
    return {"num_rows": np.int32(n), "row_ptr": row_ptr, "col_idx": rng.integers(0, n, nnz, dtype=np.int32),
            "vals": _signed(rng, nnz, np.float32), "x": _signed(rng, n, np.float32), "y": _nan(n)}


def _spmv_ref(d):
    prod = d["vals"].astype(np.float64) * d["x"].astype(np.float64)[d["col_idx"]]
    return np.add.reduceat(prod, d["row_ptr"][:-1].astype(np.int64))  # every row has >= 1 entry


def _nbody_inputs(n, rng):
    pos = np.empty((n, 4), np.float32)
    pos[:, :3] = rng.uniform(-1.0, 1.0, (n, 3))
    pos[:, 3] = (rng.random(n) + 0.5) / n  # masses summing to about 1
    return {"pos": pos.ravel(), "acc": _nan(3 * n), "n": np.int32(n), "eps2": np.float32(1e-3)}


def _nbody_ref(d, chunk=256):
    p = d["pos"].astype(np.float64).reshape(-1, 4)
    eps2 = float(d["eps2"])
    x, y, z, m = p[:, 0], p[:, 1], p[:, 2], p[:, 3]
    out = np.empty((len(p), 3))
    for s in range(0, len(p), chunk):  # rows i of the (i, j) interaction matrix, j all bodies: r = pos_j - pos_i
        dx, dy, dz = (c[None, :] - c[s:s + chunk, None] for c in (x, y, z))
        r2 = dx * dx + dy * dy + dz * dz + eps2
        w = m[None, :] / (r2 * np.sqrt(r2))  # m_j / r^3
        out[s:s + chunk] = np.stack([(w * dx).sum(1), (w * dy).sum(1), (w * dz).sum(1)], axis=1)
    return out.ravel()


def _bs_inputs(n, rng):
    return {"d_call": _nan(n), "d_put": _nan(n), "d_price": rng.uniform(5.0, 30.0, n).astype(np.float32),
            "d_strike": rng.uniform(1.0, 100.0, n).astype(np.float32),
            "d_years": rng.uniform(0.25, 10.0, n).astype(np.float32), "riskfree": np.float32(0.02),
            "volatility": np.float32(0.30), "opt_n": np.int32(n)}


def _cnd(d):  # the same polynomial approximation of the normal CDF the kernel (and the sample) uses
    a1, a2, a3, a4, a5 = 0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    c = 0.39894228040143267794 * np.exp(-0.5 * d * d) * (k * (a1 + k * (a2 + k * (a3 + k * (a4 + k * a5)))))
    return np.where(d > 0, 1.0 - c, c)


def _bs_call_ref(d):
    s, x, t = (d[k].astype(np.float64) for k in ("d_price", "d_strike", "d_years"))
    r, v = float(d["riskfree"]), float(d["volatility"])
    d1 = (np.log(s / x) + (r + 0.5 * v * v) * t) / (v * np.sqrt(t))
    d2 = d1 - v * np.sqrt(t)
    return s * _cnd(d1) - x * np.exp(-r * t) * _cnd(d2)


def _pool_inputs(n, rng):
    N, C, H, W = _pool_shape(n)
    OH, OW = (H + 2 - 3) // 2 + 1, (W + 2 - 3) // 2 + 1  # 3x3, stride 2, pad 1, floor mode
    total = N * C * OH * OW
    return {"nthreads": np.int32(total), "bottom": _signed(rng, N * C * H * W, np.float32), "channels": np.int32(C),
            "height": np.int32(H), "width": np.int32(W), "pooled_height": np.int32(OH), "pooled_width": np.int32(OW),
            "kernel_h": np.int32(3), "kernel_w": np.int32(3), "stride_h": np.int32(2), "stride_w": np.int32(2),
            "pad_h": np.int32(1), "pad_w": np.int32(1), "top": _nan(total)}


def _pool_ref(d):
    C, H, W = int(d["channels"]), int(d["height"]), int(d["width"])
    OH, OW = int(d["pooled_height"]), int(d["pooled_width"])
    k, s, p = int(d["kernel_h"]), int(d["stride_h"]), int(d["pad_h"])  # square windows, strides, pads
    x = np.pad(d["bottom"].astype(np.float64).reshape(-1, C, H, W), ((0, 0), (0, 0), (p, p), (p, p)),
               constant_values=-np.inf)
    out = np.full((x.shape[0], C, OH, OW), -np.inf)
    for i in range(k):
        for j in range(k):
            out = np.maximum(out, x[:, :, i:i + s * (OH - 1) + 1:s, j:j + s * (OW - 1) + 1:s])
    return out.ravel()


def _seg_scan_ref(d, seg=1024):
    x = d["in"].astype(np.float64)
    n = len(x)
    pad = np.concatenate([x, np.zeros(-n % seg)])
    return np.cumsum(pad.reshape(-1, seg), axis=1).ravel()[:n]


def _transpose_inputs(n, rng):  # n rows x 2n columns of doubles
    return {"odata": np.full(2 * n * n, np.nan), "idata": _signed(rng, 2 * n * n, np.float64),
            "width": np.int32(2 * n), "height": np.int32(n)}


def _murmur3_ref(d):
    k = d["keys"].astype(np.uint64).reshape(-1, 4)
    m = np.uint64(0xFFFFFFFF)

    def rotl(x, r):
        return ((x << np.uint64(r)) | (x >> np.uint64(32 - r))) & m

    h = np.full(len(k), int(d["seed"]), np.uint64)
    for b in range(4):
        kb = (k[:, b] * np.uint64(0xCC9E2D51)) & m
        kb = (rotl(kb, 15) * np.uint64(0x1B873593)) & m
        h = rotl(h ^ kb, 13)
        h = (h * np.uint64(5) + np.uint64(0xE6546B64)) & m
    h ^= np.uint64(16)
    h ^= h >> np.uint64(16)
    h = (h * np.uint64(0x85EBCA6B)) & m
    h ^= h >> np.uint64(13)
    h = (h * np.uint64(0xC2B2AE35)) & m
    h ^= h >> np.uint64(16)
    return h.astype(np.float64)


def _collatz_ref(d):
    """Total stopping times, by value: the numbers in [a, 2a) are stepped only until they drop
    below a, whose stopping times are then known (a few steps each, not the whole chain)."""
    start, n = int(d["start"]), int(d["n"])
    hi = start + n
    steps = np.zeros(hi, np.int64)  # steps[1] = 0
    a = 2
    while a < hi:
        b = min(2 * a, hi)
        v = np.arange(a, b, dtype=np.uint64)
        cnt = np.zeros(b - a, np.int64)
        live = np.arange(b - a)
        while live.size:
            w = v[live]
            w = np.where(w & np.uint64(1), np.uint64(3) * w + np.uint64(1), w >> np.uint64(1))
            v[live] = w
            cnt[live] += 1
            live = live[w >= np.uint64(a)]
        steps[a:b] = cnt + steps[v.astype(np.int64)]
        a = b
    return steps[start:hi].astype(np.float64)


def _gray_image(n, rng):  # a grey-level distribution like a photograph's: normal around 128, sd 40, clipped
    return np.clip(rng.normal(128.0, 40.0, n), 0, 255).astype(np.uint8)


def _sobel_ref(d):
    w, h = int(d["width"]), int(d["height"])
    p = d["img"].astype(np.float64).reshape(h, w)
    gx = (p[:-2, 2:] + 2 * p[1:-1, 2:] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[1:-1, :-2] + p[2:, :-2])
    gy = (p[2:, :-2] + 2 * p[2:, 1:-1] + p[2:, 2:]) - (p[:-2, :-2] + 2 * p[:-2, 1:-1] + p[:-2, 2:])
    out = np.zeros((h, w))
    out[1:-1, 1:-1] = np.sqrt(gx * gx + gy * gy)
    return out.ravel()


# ---- the held-out set ---------------------------------------------------------------------------
_B256 = lambda n: ((_blocks(n, 256), 1, 1), (256, 1, 1), 0)  # noqa: E731 - one thread per element

CORPUS: list[CorpusKernel] = [
    # 32768 rows x 1024 (BERT-large's hidden size over batch 64 x sequence 512): 268 MB, >= 80 us at 3.35 TB/s
    entry("layernorm_warp", "holdout/layernorm.cu", "layernorm_warp",
          "LayerNorm, one warp per row, two-pass mean/variance by shuffles", 32768,
          lambda n, sms: ((_blocks(n * 32, 256), 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"x": (rng.standard_normal(n * 1024) + 2.0).astype(np.float32),
                          "gamma": _positive(rng, 1024, np.float32), "beta": _signed(rng, 1024, np.float32),
                          "y": _nan(n * 1024), "rows": np.int32(n), "cols": np.int32(1024), "eps": np.float32(1e-5)},
          "y", _layernorm_ref, lambda n: 8.0 * n * 1024, lambda n: 8.0 * n * 1024 + 8.0 * 1024, rtol=1e-5,
          inputs_desc="x: normal, mean 2, sd 1, n rows x 1024; gamma: [0.5, 1.5); beta: signed; eps 1e-5"),
    # 2048 x 32768: 268 MB, >= 80 us at 3.35 TB/s, from only 128 blocks (about one per SM), 2048 loads a thread
    entry("column_sums", "holdout/colsum.cu", "column_sums",
          "column sums of a row-major matrix, thread per column", 32768,
          lambda n, sms: _B256(n),
          lambda n, rng: {"A": _positive(rng, _colsum_shape(n)[0] * n, np.float32), "sums": _nan(n),
                          "rows": np.int32(_colsum_shape(n)[0]), "cols": np.int32(n)},
          "sums", lambda d: d["A"].astype(np.float64).reshape(int(d["rows"]), -1).sum(axis=0),
          lambda n: float(_colsum_shape(n)[0] * n), lambda n: 4.0 * _colsum_shape(n)[0] * n + 4.0 * n, rtol=1e-4,
          inputs_desc="A: (n / 16) x n, uniform [0.5, 1.5)"),
    # 300^3 points: 216 MB, >= 65 us at 3.35 TB/s; 300 is not a multiple of 8, so the edge blocks are partial
    entry("stencil3d_7pt", "holdout/stencil3d.cu", "stencil3d_7pt",
          "3D 7-point stencil, 8x8x8 blocks, global memory only", 300,
          lambda n, sms: ((_blocks(n, 8), _blocks(n, 8), _blocks(n, 8)), (8, 8, 8), 0),
          lambda n, rng: {"in": _signed(rng, n ** 3, np.float32), "out": _nan(n ** 3), "nx": np.int32(n),
                          "ny": np.int32(n), "nz": np.int32(n), "c0": np.float32(0.4), "c1": np.float32(0.1)},
          "out", _stencil3d_ref, lambda n: 8.0 * max(n - 2, 0) ** 3, lambda n: 8.0 * n ** 3, rtol=1e-5,
          inputs_desc="in: signed, n^3; c0 = 0.4, c1 = 0.1; boundary copied"),
    # an 8K UHD frame, 7680 x 4320, a float in and out per pixel: 265 MB, >= 80 us at 3.35 TB/s
    entry("conv2d_tiled", "holdout/conv2d_tiled.cu", "conv2d_tiled",
          "2D convolution 5x5, constant mask, shared tile + halo (Kirk & Hwu)", 7680,
          lambda n, sms: ((_blocks(_image_shape(n)[0], 12), _blocks(_image_shape(n)[1], 12), 1), (16, 16, 1), 0),
          lambda n, rng: {"in": _positive(rng, n * _image_shape(n)[1], np.float32),
                          "out": _nan(n * _image_shape(n)[1]), "width": np.int32(n),
                          "height": np.int32(_image_shape(n)[1]), "c_mask": _gaussian5()},
          "out", _conv2d_ref, lambda n: 50.0 * n * _image_shape(n)[1], lambda n: 8.0 * n * _image_shape(n)[1] + 100.0,
          rtol=1e-5, constants=("c_mask",),
          inputs_desc="in: width x 9/16 width, [0.5, 1.5); c_mask: normalized 5x5 Gaussian (sigma 1) in __constant__"),
    # 2^20 x 2^20, 33M nonzeros: 281 MB, >= 84 us at 3.35 TB/s; each warp reads 32 scattered rows
    entry("spmv_csr_scalar", "holdout/spmv.cu", "spmv_csr_scalar",
          "SpMV, CSR scalar (thread per row), random sparse matrix", 1 << 20,
          lambda n, sms: _B256(n), _csr_inputs, "y", _spmv_ref,
          lambda n: 2.0 * _csr_nnz(n), lambda n: 8.0 * _csr_nnz(n) + 4.0 * (n + 1) + 8.0 * n, rtol=1e-5,
          inputs_desc="n x n CSR; row lengths a shuffle of 1..63 repeated (mean 32); columns uniform random "
                      "(unsorted, repeats allowed); vals, x: signed"),
    # the same matrix: one warp per (mean 32-long) row, 8 rows per 256-thread block
    entry("spmv_csr_vector", "holdout/spmv.cu", "spmv_csr_vector",
          "SpMV, CSR vector (warp per row), random sparse matrix", 1 << 20,
          lambda n, sms: ((_blocks(32 * n, 256), 1, 1), (256, 1, 1), 0), _csr_inputs, "y", _spmv_ref,
          lambda n: 2.0 * _csr_nnz(n), lambda n: 8.0 * _csr_nnz(n) + 4.0 * (n + 1) + 8.0 * n, rtol=1e-5,
          inputs_desc="n x n CSR; row lengths a shuffle of 1..63 repeated (mean 32); columns uniform random "
                      "(unsorted, repeats allowed); vals, x: signed"),
    # 2^24 keys: 134 MB, >= 40 us at 3.35 TB/s; 16384 blocks of 512, 55 barrier-separated steps each
    entry("bitonic_sort_shared", "holdout/bitonic_shared.cu", "bitonic_sort_shared",
          "bitonic sort of 1024-key segments in shared memory (CUDA samples)", 1 << 24,
          lambda n, sms: ((n // 1024, 1, 1), (512, 1, 1), 0),
          lambda n, rng: {"d_dst": _nan(n), "d_src": _signed(rng, n, np.float32)},
          "d_dst", lambda d: np.sort(d["d_src"].astype(np.float64).reshape(-1, 1024), axis=1).ravel(),
          lambda n: 0.0, lambda n: 8.0 * n, rtol=0.0, inputs_desc="d_src: signed, n a multiple of 1024"),
    # 2^25-element vectors: 268 MB, >= 80 us at 3.35 TB/s; 32 x SMs blocks, the grid-stride blog's advice
    entry("dot_float4", "holdout/dot_float4.cu", "dot_float4",
          "dot product, float4 loads, grid stride, block reduce + atomicAdd", 1 << 25,
          lambda n, sms: ((min(32 * sms, _blocks(n // 4, 256)), 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"a": _positive(rng, n, np.float32), "b": _positive(rng, n, np.float32),
                          "result": np.zeros(1, np.float32), "n": np.int32(n)},
          "result", lambda d: np.array([d["a"].astype(np.float64) @ d["b"].astype(np.float64)]),
          lambda n: 2.0 * n, lambda n: 8.0 * n + 4.0, rtol=1e-4,
          inputs_desc="a, b: uniform [0.5, 1.5), n a multiple of 4; result zeroed"),
    # 32768 bodies: 1.07e9 interactions, 21 GFLOP at the chapter's 20 each; 128 blocks of 256, about one per SM
    entry("nbody_accel", "holdout/nbody.cu", "nbody_accel",
          "all-pairs N-body, shared-memory tiles, rsqrtf (GPU Gems 3)", 32768,
          lambda n, sms: ((n // 256, 1, 1), (256, 1, 1), 0), _nbody_inputs, "acc", _nbody_ref,
          lambda n: 20.0 * n * n, lambda n: 28.0 * n, rtol=1e-4,
          inputs_desc="pos: float4 (x, y, z uniform in [-1, 1], mass [0.5, 1.5) / n); eps2 = 1e-3; "
                      "n a multiple of 256"),
    # 8M options, twice the sample's 4M, so that its 160 MB take >= 48 us at 3.35 TB/s rather than 24
    entry("black_scholes", "holdout/black_scholes.cu", "black_scholes",
          "Black-Scholes call/put, float2, fast intrinsics (CUDA samples)", 8_000_000,
          lambda n, sms: ((_blocks(n // 2, 128), 1, 1), (128, 1, 1), 0), _bs_inputs, "d_call", _bs_call_ref,
          lambda n: 61.0 * n, lambda n: 20.0 * n, rtol=1e-4,
          inputs_desc="the sample's ranges: price [5, 30), strike [1, 100), years [0.25, 10); R 0.02, V 0.30; "
                      "calls verified (puts written, not checked)"),
    # batch 64 of 64 x 112 x 112 -> 56 x 56: 257 MB, >= 77 us at 3.35 TB/s
    entry("maxpool2d_forward", "holdout/maxpool.cu", "maxpool2d_forward",
          "2D max pooling 3x3/2 pad 1, NCHW, thread per output (Caffe)", 64,
          lambda n, sms: ((_blocks(n * 64 * 56 * 56, 512), 1, 1), (512, 1, 1), 0), _pool_inputs, "top", _pool_ref,
          lambda n: 0.0, lambda n: 4.0 * (n * 64 * 112 * 112 + n * 64 * 56 * 56), rtol=0.0,
          inputs_desc="bottom: n x 64 x 112 x 112 signed; 3x3 window, stride 2, pad 1, floor mode (56 x 56)"),
    # 4096 x 6144: 302 MB, >= 90 us at 3.35 TB/s if coalesced; the mapping spreads each warp over 16 rows
    entry("matrix_add_2d_bad_map", "holdout/matadd_bad.cu", "matrix_add_2d",
          "2D matrix add, threadIdx.x mapped to rows (uncoalesced)", 4096,
          lambda n, sms: ((_blocks(n, 16), _blocks(_matadd_cols(n), 16), 1), (16, 16, 1), 0),
          lambda n, rng: {"A": _signed(rng, n * _matadd_cols(n), np.float32),
                          "B": _signed(rng, n * _matadd_cols(n), np.float32), "C": _nan(n * _matadd_cols(n)),
                          "rows": np.int32(n), "cols": np.int32(_matadd_cols(n))},
          "C", lambda d: d["A"].astype(np.float64) + d["B"].astype(np.float64), lambda n: float(n * _matadd_cols(n)),
          lambda n: 12.0 * n * _matadd_cols(n), rtol=1e-6, inputs_desc="A, B: signed, n x 1.5n"),
    # 2^24 elements: 134 MB, >= 40 us at 3.35 TB/s; 16384 blocks of 1024 threads, two barriers each
    entry("scan_warp_shuffle", "holdout/scan_warp.cu", "scan_warp_shuffle",
          "block inclusive scan, Kogge-Stone warp shuffles", 1 << 24,
          lambda n, sms: ((_blocks(n, 1024), 1, 1), (1024, 1, 1), 0),
          lambda n, rng: {"in": _positive(rng, n, np.float32), "out": _nan(n), "n": np.int32(n)},
          "out", _seg_scan_ref, lambda n: 5.0 * n, lambda n: 8.0 * n, rtol=1e-5,
          inputs_desc="in: uniform [0.5, 1.5); each 1024-element segment scanned on its own"),
    # 4096 x 8192 doubles: 537 MB, >= 160 us at 3.35 TB/s
    entry("transpose_tiled_f64", "holdout/transpose_f64.cu", "transpose_tiled_f64",
          "tiled transpose of doubles, 32x33 shared tile (NVIDIA blog)", 4096,
          lambda n, sms: ((_blocks(2 * n, 32), _blocks(n, 32), 1), (32, 8, 1), 0), _transpose_inputs, "odata",
          lambda d: d["idata"].reshape(int(d["height"]), int(d["width"])).T.ravel().astype(np.float64),
          lambda n: 0.0, lambda n: 32.0 * n * n, rtol=0.0, inputs_desc="idata: n x 2n doubles, signed"),
    # 2^24 16-byte keys: 336 MB, >= 100 us at 3.35 TB/s
    entry("murmur3_32", "holdout/murmur3.cu", "murmur3_32",
          "integer hashing, MurmurHash3_x86_32 of 16-byte keys", 1 << 24,
          lambda n, sms: _B256(n),
          lambda n, rng: {"keys": rng.integers(0, 1 << 32, 4 * n, dtype=np.uint32), "hashes": np.zeros(n, np.uint32),
                          "n": np.int32(n), "seed": np.uint32(0x9747B28C)},
          "hashes", _murmur3_ref, lambda n: 0.0, lambda n: 20.0 * n, rtol=0.0,
          inputs_desc="keys: uniform random uint32 x 4 per key; seed 0x9747b28c"),
    # 32768 x 2048: 268 MB, >= 80 us at 3.35 TB/s, from 128 blocks of 256, each thread streaming its own row
    entry("gemv_shared_x", "holdout/gemv_shared.cu", "gemv_shared_x",
          "matrix-vector, thread per row, x tiles staged in shared memory", 32768,
          lambda n, sms: _B256(n),
          lambda n, rng: {"A": _signed(rng, n * GEMV_COLS, np.float32), "x": _signed(rng, GEMV_COLS, np.float32),
                          "y": _nan(n), "rows": np.int32(n), "cols": np.int32(GEMV_COLS)},
          "y", lambda d: d["A"].astype(np.float64).reshape(-1, GEMV_COLS) @ d["x"].astype(np.float64),
          lambda n: 2.0 * n * GEMV_COLS, lambda n: 4.0 * (n * GEMV_COLS + GEMV_COLS + n), rtol=1e-5,
          inputs_desc="A: n x 2048 signed; x: 2048 signed"),
    # an 8K UHD frame, 7680 x 4320, a byte in and a float out per pixel: 166 MB, >= 50 us at 3.35 TB/s
    entry("sobel_u8", "holdout/sobel.cu", "sobel_u8",
          "Sobel edge magnitude, 8-bit image, 3x3 from global memory", 7680,
          lambda n, sms: ((_blocks(n, 16), _blocks(_image_shape(n)[1], 16), 1), (16, 16, 1), 0),
          lambda n, rng: {"img": rng.integers(0, 256, n * _image_shape(n)[1], dtype=np.uint8),
                          "mag": _nan(n * _image_shape(n)[1]), "width": np.int32(n),
                          "height": np.int32(_image_shape(n)[1])},
          "mag", _sobel_ref, lambda n: float(n * _image_shape(n)[1]),
          lambda n: 5.0 * n * _image_shape(n)[1], rtol=1e-6,
          inputs_desc="img: width x 9/16 width, uniform random bytes; border pixels 0"),
    # 1 .. 2^22: 6.1e8 loop iterations in 64-bit integers (mean chain 146, longest 596); warps run 1.0e9 lane-iterations
    entry("collatz_steps", "holdout/collatz.cu", "collatz_steps",
          "Collatz stopping times, divergent 64-bit integer loop", 1 << 22,
          lambda n, sms: _B256(n),
          lambda n, rng: {"steps": np.full(n, -1, np.int32), "start": np.uint64(1), "n": np.int32(n)},
          "steps", _collatz_ref, lambda n: 0.0, lambda n: 4.0 * n, rtol=0.0,
          inputs_desc="the numbers 1 .. n (no random input); steps poisoned with -1"),
    # an 8K UHD frame of grey levels: 33M global atomics on ~200 busy addresses (33 MB read: >= 10 us of DRAM)
    entry("histogram_global_atomic", "holdout/histogram_global.cu", "histogram_global_atomic",
          "histogram, one global atomicAdd per pixel (no privatization)", 7680 * 4320,
          lambda n, sms: _B256(n),
          lambda n, rng: {"img": _gray_image(n, rng), "hist": np.zeros(256, np.uint32), "n": np.int32(n)},
          "hist", lambda d: np.bincount(d["img"], minlength=256).astype(np.float64), lambda n: 0.0,
          lambda n: float(n) + 1024.0, rtol=0.0,
          inputs_desc="img: grey levels normal around 128, sd 40, clipped to [0, 255]; hist zeroed"),
]

BY_NAME, get = index(CORPUS)

if __name__ == "__main__":
    from cudasim.console import run

    from ..manifest import main
    run(main, CORPUS)
