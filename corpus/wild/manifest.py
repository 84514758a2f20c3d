"""The wild set: eleven kernels as users keep and write them, exercising what the simulator learned
last (files with host code and headers, templates with computed launch bounds, calls that ptxas does
not inline, recursion, printf and assert left in, 16-bit floats, dp4a, double-precision math
library calls, 64-bit carry chains in inline PTX, FMA and directed-rounding intrinsics) and never
measured: the CUDA samples' matrixMul as the whole tutorial program (main(), <cstdio>, <vector>,
<cuda_runtime.h>, an error-checking macro; nvcc compiles it), llm.c's bf16 LayerNorm forward kept in
the llmc/ header the .cu includes, llama.cpp's Q8_0 mul_mat_vec_q (a template with __launch_bounds__
computed from its parameters, __dp4a), a half2 attention softmax as fp16 inference plugins write it
(__hmul2, __hmax2, h2exp, __hadd2), the reciprocal half of an Ewald sum after Allen & Tildesley's
(sincos and exp in double), batch inversion in the BN254 scalar field in the style of ec-gpu-gen's
FIELD_* code (64-bit Montgomery products through mad.lo.cc / madc.hi / addc), Friedman, Bentley &
Finkel's kd-tree search as a recursive __device__ function (with its author's assert and debug
printf), PyTorch's EmbeddingBag (its device asserts on), an RK4 ensemble of Elowitz & Leibler's
repressilator in the Numerical Recipes shape whose right-hand side is __noinline__ (__fdividef in its
Hill term), Ogita, Rump & Oishi's Dot2 (__fma_rn) and Rump's midpoint-radius interval matrix-vector
product (__fma_rd, __fma_ru, __dadd_rd, ...). Each file says which source or style it follows.

The same shape as corpus.manifest (CORPUS, BY_NAME, get, SMS; every entry a CorpusKernel made
by corpus.manifest.entry, sources under corpus/wild/): each kernel with its launch, seeded inputs,
float64 numpy reference, FLOPs and compulsory bytes (each input element read once, each output
element written once). FLOPs count floating-point +, -, *, / and each math intrinsic as one (an FMA
as two), as the source writes them; integer and comparison work counts zero. Every size is chosen
for about 50 us - 3 ms on an H100 (~3 TB/s, ~60 TFLOP/s FP32, ~30 TFLOP/s FP64) and stated with its
reason beside the entry. corpus.measure verifies the first launch and times the later ones on the
same buffers: every kernel here writes outputs it does not read, so a launch on what the first left
does the same work again.

Verification compares numbers, which shaped two entries: the LayerNorm's bf16 rows have no numpy
dtype (they are uint16 bit patterns, and a bit pattern is not a number to compare with a tolerance),
so its entry checks the float32 rstd and tests/test_corpus.py checks the bf16 rows within an ulp; the
field inverses' 64-bit limbs are handed over as 32-bit words, which float64 holds exactly.

cudasim runs all eleven as written (the half2 softmax's shuffles read PTX's constant WARP_SZ, which it
learned from this set).

    python -m corpus.wild.manifest       # the table: pattern, launch, bytes, FLOPs
"""
from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from kernels.catalog import _signed

from ..manifest import SMS, CorpusKernel, _blocks, _nan, entry, index

__all__ = ["CORPUS", "BY_NAME", "get", "SMS", "CorpusKernel"]

f16, f32, f64, i32, i64, u16, u32, u64 = (np.float16, np.float32, np.float64, np.int32, np.int64, np.uint16,
                                          np.uint32, np.uint64)


# ---- CUDA samples matrixMul, the whole program ----------------------------------------------------
MM_BLOCK = 32  # the sample's block_size


def _mm_shape(n):
    """(hA, wA, wB): A is hA x wA, B is wA x wB; multiples of 32, as the sample requires."""
    assert n % 128 == 0, "hA must be a multiple of 128 (wA = hA / 2, wB = 3 hA / 4, each of 32)"
    return n, n // 2, 3 * n // 4


def _mm_inputs(n, rng):
    hA, wA, wB = _mm_shape(n)
    return {"C": _nan(hA * wB), "A": _signed(rng, hA * wA, f32), "B": _signed(rng, wA * wB, f32),
            "wA": i32(wA), "wB": i32(wB)}


def _mm_ref(d):
    wA, wB = int(d["wA"]), int(d["wB"])
    return (d["A"].astype(f64).reshape(-1, wA) @ d["B"].astype(f64).reshape(wA, wB)).ravel()


# ---- llm.c LayerNorm forward, bf16 ------------------------------------------------------------------
LN_C, LN_T, LN_BLOCK = 768, 1024, 256  # GPT-2 small's channels, llm.c's sequence length and block_size


def _to_bf16(a) -> np.ndarray:
    """float32 -> bf16 bit patterns, rounded to nearest even as __float2bfloat16 rounds."""
    u = np.asarray(a, f32).view(u32).astype(u64)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(u16)


def _from_bf16(b) -> np.ndarray:
    return (np.asarray(b, u16).astype(u32) << 16).view(f32)


def _ln_inputs(n, rng):
    """n = B x T rows of 768 bf16 activations, each row N(offset, scale^2) (offsets N(0, 0.5^2), scales
    lognormal around 1, as a residual stream's rows differ); weights 1 + N(0, 0.1^2), biases N(0, 0.02^2)."""
    offset = rng.normal(0.0, 0.5, (n, 1))
    scale = rng.lognormal(0.0, 0.3, (n, 1))
    x = (offset + scale * rng.standard_normal((n, LN_C))).astype(f32)
    return {"out": np.full(n * LN_C, 0xFFFF, u16), "mean": _nan(n), "rstd": _nan(n), "inp": _to_bf16(x).ravel(),
            "weight": _to_bf16(1.0 + 0.1 * rng.standard_normal(LN_C)),
            "bias": _to_bf16(0.02 * rng.standard_normal(LN_C)),
            "N": i32(n), "C": i32(LN_C)}


def _ln_stats(d):
    """(mean, rstd) of every row in float64, eps 1e-5 as llm.c adds it."""
    x = _from_bf16(d["inp"]).astype(f64).reshape(-1, int(d["C"]))
    m = x.mean(axis=1)
    return m, 1.0 / np.sqrt(((x - m[:, None]) ** 2).mean(axis=1) + 1e-5)


def _ln_out(d):
    """The normalized rows, scaled and shifted, in float64 (the kernel rounds them to bf16)."""
    C = int(d["C"])
    x = _from_bf16(d["inp"]).astype(f64).reshape(-1, C)
    m, s = _ln_stats(d)
    w, b = (_from_bf16(d[k]).astype(f64) for k in ("weight", "bias"))
    return ((x - m[:, None]) * s[:, None] * w + b).ravel()


# ---- llama.cpp mul_mat_vec_q, Q8_0 x Q8_1 ---------------------------------------------------------
QK = 32  # QK8_0 = QK8_1
Q8_0 = np.dtype([("d", "<f2"), ("qs", "i1", (QK,))])  # 34 bytes, packed as ggml packs it
Q8_1 = np.dtype([("ds", "<f2", (2,)), ("qs", "i1", (QK,))])  # 36 bytes
MMVQ_COLS = 4096  # Llama 3 8B's hidden size
MMVQ_ROWS = 128256  # its vocabulary: the lm_head, the largest matrix-vector product of a generated token


def _q8_1(x: np.ndarray) -> np.ndarray:
    """llama.cpp's quantize_q8_1: per 32 values d = amax / 127, q = round(x / d), s = d * sum(q)."""
    blocks = x.astype(f32).reshape(-1, QK)
    amax = np.abs(blocks).max(axis=1)
    d = (amax / 127).astype(f32)
    q = np.where(amax[:, None] == 0, 0, np.round(blocks / np.where(d == 0, 1, d)[:, None])).astype(np.int8)
    out = np.zeros(len(blocks), Q8_1)
    out["ds"][:, 0] = d.astype(f16)
    out["ds"][:, 1] = (d * q.astype(f32).sum(axis=1)).astype(f16)
    out["qs"] = q
    return out


def _mmvq_inputs(n, rng):
    """n rows x 4096 of Q8_0 weights (int8 quants uniform in [-127, 127], fp16 scales lognormal around
    2e-4, as a quantized lm_head's are), the 4096 activations N(0, 1) quantized to Q8_1."""
    nb = MMVQ_COLS // QK
    w = np.empty(n * nb, Q8_0)
    w["d"] = (2e-4 * rng.lognormal(0.0, 0.25, n * nb)).astype(f16)
    w["qs"] = rng.integers(-127, 128, (n * nb, QK), dtype=np.int8)
    y = _q8_1(rng.standard_normal(MMVQ_COLS).astype(f32))
    return {"vx": w.view(np.uint8), "vy": y.view(np.uint8), "dst": _nan(n), "ncols_x": i32(MMVQ_COLS),
            "nrows_x": i32(n), "nrows_y": i32(MMVQ_COLS), "nrows_dst": i32(n)}


def _mmvq_ref(d):
    """sum over blocks of d_x * d_y * sum(q_x q_y): the dequantized dot product, in float64."""
    cols = int(d["ncols_x"])
    nb = cols // QK
    w = d["vx"].view(Q8_0).reshape(-1, nb)
    y = d["vy"].view(Q8_1)
    qy = y["qs"].astype(f32)
    dy = y["ds"][:, 0].astype(f64)
    out = np.empty(len(w))
    for r0 in range(0, len(w), 8192):  # the int products in float32 are exact (|sum| < 2^19)
        chunk = w[r0:r0 + 8192]
        sums = np.einsum("rbi,bi->rb", chunk["qs"].astype(f32), qy).astype(f64)
        out[r0:r0 + 8192] = (chunk["d"].astype(f64) * dy * sums).sum(axis=1)
    return out


# ---- half2 softmax ---------------------------------------------------------------------------------
SM_COLS, SM_SCALE = 1024, 0.125  # 1024 keys; 1 / sqrt(64), a 64-wide head


def _sm_inputs(n, rng):
    """n rows (16 x 16 heads x 1024 queries at full size) of 1024 raw fp16 scores N(0, 16^2): logits of
    standard deviation 2 once scaled."""
    return {"in": (16.0 * rng.standard_normal(n * SM_COLS)).astype(f16), "out": np.full(n * SM_COLS, np.nan, f16),
            "rows": i32(n), "scale": f32(SM_SCALE)}


def _sm_ref(d):
    rows = d["in"].reshape(-1, SM_COLS)
    out = np.empty(rows.shape)
    for r0 in range(0, len(rows), 1 << 14):
        x = rows[r0:r0 + (1 << 14)].astype(f64) * float(d["scale"])
        e = np.exp(x - x.max(axis=1, keepdims=True))
        out[r0:r0 + (1 << 14)] = e / e.sum(axis=1, keepdims=True)
    return out.ravel()


# ---- Ewald reciprocal sum ----------------------------------------------------------------------------
EW_DENSITY = 0.0334  # water molecules per cubic angstrom
EW_KCUT = 1.1  # |k| cutoff in 1/angstrom: n_max = k_cut L / (2 pi)
EW_ALPHA = 0.25  # Ewald splitting parameter, 1/angstrom
EW_Q = (-0.8476, 0.4238, 0.4238)  # SPC/E charges, O H H
EW_THREADS = 256


def _ew_box(n):
    return (n / EW_DENSITY) ** (1.0 / 3.0)


@lru_cache(maxsize=None)
def _ew_kvecs(n):
    """The half space of integer wave vectors 0 < |m| <= n_max (m and -m give conjugate sums)."""
    nmax = int(EW_KCUT * _ew_box(n) / (2.0 * math.pi))
    r = np.arange(-nmax, nmax + 1)
    m = np.stack(np.meshgrid(r, r, r, indexing="ij"), -1).reshape(-1, 3)
    half = (m[:, 0] > 0) | ((m[:, 0] == 0) & (m[:, 1] > 0)) | ((m[:, 0] == 0) & (m[:, 1] == 0) & (m[:, 2] > 0))
    keep = half & ((m * m).sum(axis=1) <= nmax * nmax)
    return m[keep].astype(i32)


def _ew_inputs(n, rng):
    """n SPC/E-charged water molecules at the density of water (0.0334 per cubic angstrom, a cubic box
    of side L): oxygens uniform in the box, hydrogens 1 angstrom away at the tetrahedral HOH angle in a
    random orientation (not wrapped); the k set of the half space up to |k| = 1.1 / angstrom."""
    L = _ew_box(n)
    o = rng.uniform(0.0, L, (n, 3))
    u = rng.standard_normal((n, 3))
    u /= np.linalg.norm(u, axis=1, keepdims=True)
    v = rng.standard_normal((n, 3))
    v -= (v * u).sum(axis=1, keepdims=True) * u
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    half = math.radians(109.47) / 2
    h1 = o + math.cos(half) * u + math.sin(half) * v
    h2 = o + math.cos(half) * u - math.sin(half) * v
    xyz = np.stack([o, h1, h2], axis=1).reshape(-1, 3)
    q = np.tile(EW_Q, n)
    km = _ew_kvecs(n)
    return {"xyzq": np.column_stack([xyz, q]).ravel(), "kvec": np.column_stack([km, np.zeros(len(km), i32)]).ravel(),
            "rho_k": _nan(2 * len(km), f64), "energy_k": _nan(len(km), f64), "natoms": i32(3 * n), "box": f64(L),
            "alpha": f64(EW_ALPHA)}


def _ew_rho(d):
    """S(k) = sum_j q_j exp(i k.r_j) for every k of the set, (K, 2) as (Re, Im)."""
    a = d["xyzq"].reshape(-1, 4)
    k = d["kvec"].reshape(-1, 4)[:, :3] * (2.0 * math.pi / float(d["box"]))
    out = np.empty((len(k), 2))
    for k0 in range(0, len(k), 128):
        s = np.exp(1j * (k[k0:k0 + 128] @ a[:, :3].T)) @ a[:, 3]
        out[k0:k0 + 128] = np.column_stack([s.real, s.imag])
    return out


def _ew_energy(d):
    k = d["kvec"].reshape(-1, 4)[:, :3] * (2.0 * math.pi / float(d["box"]))
    k2 = (k * k).sum(axis=1)
    s = _ew_rho(d)
    weight = np.exp(-k2 / (4.0 * float(d["alpha"]) ** 2)) / k2
    return 4.0 * math.pi / float(d["box"]) ** 3 * weight * (s * s).sum(axis=1)


def _ew_flops(n):
    """11 a pair (k.r 5, sin and cos 2, the two products and sums 4); per k 3 for k, 2 x 255 tree adds
    and 16 for k^2, the volume and the energy term."""
    K = len(_ew_kvecs(n))
    return 11.0 * K * 3 * n + K * (3 + 2 * (EW_THREADS - 1) + 16)


# ---- BN254 Fr batch inversion ------------------------------------------------------------------------
BN_R = 21888242871839275222246405745257275088548364400416034343698204186575808495617  # the scalar field's order
BN_MONT = 1 << 256  # Montgomery's R


def _limbs_u32(values) -> np.ndarray:
    """Field elements as the host holds them: four little-endian 64-bit limbs each, seen as 8 u32 words."""
    return np.frombuffer(b"".join(int(v).to_bytes(32, "little") for v in values), "<u4").astype(u32)


def _from_limbs_u32(words) -> list[int]:
    raw = np.asarray(words, "<u4").tobytes()
    return [int.from_bytes(raw[32 * i:32 * i + 32], "little") for i in range(len(raw) // 32)]


def _bn_inputs(n, rng):
    """n random nonzero field elements in Montgomery form (x R mod r)."""
    xs = [int.from_bytes(rng.bytes(32), "little") % (BN_R - 1) + 1 for _ in range(n)]
    return {"out": np.full(8 * n, 0xFFFFFFFF, u32), "in": _limbs_u32(x * BN_MONT % BN_R for x in xs), "n": u32(n)}


def _bn_ref(d):
    """x^-1 in Montgomery form for x R given: (xR)^(r - 2) R^2 = x^-1 R (mod r), as 32-bit words."""
    r2 = BN_MONT * BN_MONT % BN_R
    return _limbs_u32(pow(a, BN_R - 2, BN_R) * r2 % BN_R for a in _from_limbs_u32(d["in"])).astype(f64)


# ---- kd-tree nearest neighbours ------------------------------------------------------------------------
KD_LEAF = 64  # the kernel's KD_LEAF: ranges of at most this many points are scanned


def _kd_points(n):
    """2^16 - 1 points (ten levels of splits over leaves of 63: the recursion fits the 1 KB stack) at
    full size, 1023 when small."""
    return (1 << 16) - 1 if n >= 1 << 16 else 1023


def _kd_build(pts: np.ndarray) -> np.ndarray:
    """The implicit tree as the kernel reads it: each range's median (by the axis of its depth, x, y, z
    in turn) at position (lo + hi) >> 1, the lower half before it, the upper after; ranges of at most
    KD_LEAF points left as they are. Returns the permutation of the points."""
    order = np.arange(len(pts))
    stack = [(0, len(pts), 0)]
    while stack:
        lo, hi, depth = stack.pop()
        if hi - lo <= KD_LEAF:
            continue
        seg = order[lo:hi]
        order[lo:hi] = seg[np.argsort(pts[seg, depth % 3], kind="stable")]
        mid = (lo + hi) >> 1
        stack += [(lo, mid, depth + 1), (mid + 1, hi, depth + 1)]
    return order


def _kd_inputs(n, rng):
    """A cloud of points uniform in the unit cube, arranged as the tree (w = the point's index in the
    cloud); n queries uniform in the same cube; debug 0."""
    m = _kd_points(n)
    cloud = rng.random((m, 3), dtype=f32)
    order = _kd_build(cloud)
    tree = np.column_stack([cloud[order], order.astype(f32)]).astype(f32)
    queries = np.column_stack([rng.random((n, 3), dtype=f32), np.zeros(n, f32)])
    return {"tree": tree.ravel(), "npts": i32(m), "queries": queries.ravel(), "nqueries": i32(n),
            "nn_dist2": _nan(n), "nn_id": np.full(n, -1, i32), "debug": i32(0)}


def _nn_grid(pts: np.ndarray, qs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Exact nearest neighbours of qs among pts (both in [0, 1)^3, float64): a grid of cells of side h
    (about 2 points a cell), the 27 cells around each query, which hold every point within h of it;
    queries whose best distance exceeds h are searched by brute force. (squared distance, index)."""
    G = max(1, int(round((len(pts) / 2) ** (1 / 3))))
    h = 1.0 / G
    cell = np.minimum((pts * G).astype(np.int64), G - 1)
    cid = (cell[:, 0] * G + cell[:, 1]) * G + cell[:, 2]
    by = np.argsort(cid, kind="stable")
    counts = np.bincount(cid, minlength=G ** 3)
    starts = np.r_[0, np.cumsum(counts)[:-1]]
    rank = np.arange(len(pts)) - starts[cid[by]]
    padded = np.full((G ** 3, counts.max(), 3), np.inf)
    ids = np.full((G ** 3, counts.max()), -1)
    padded[cid[by], rank] = pts[by]
    ids[cid[by], rank] = by
    best = np.full(len(qs), np.inf)
    arg = np.full(len(qs), -1)
    qc = np.minimum((qs * G).astype(np.int64), G - 1)
    for off in np.stack(np.meshgrid(*[np.arange(-1, 2)] * 3, indexing="ij"), -1).reshape(-1, 3):
        c = qc + off
        ok = ((c >= 0) & (c < G)).all(axis=1)
        flat = np.where(ok, (c[:, 0] * G + c[:, 1]) * G + c[:, 2], 0)
        d2 = ((padded[flat] - qs[:, None, :]) ** 2).sum(axis=2)
        d2[~ok] = np.inf
        j = d2.argmin(axis=1)
        dj = d2[np.arange(len(qs)), j]
        better = dj < best
        best[better], arg[better] = dj[better], ids[flat[better], j[better]]
    for q in np.flatnonzero(best > h * h):  # the nearest point may lie beyond the 27 cells
        d2 = ((pts - qs[q]) ** 2).sum(axis=1)
        arg[q] = d2.argmin()
        best[q] = d2[arg[q]]
    return best, arg


def _kd_nearest(d) -> tuple[np.ndarray, np.ndarray]:
    tree = d["tree"].reshape(-1, 4).astype(f64)
    qs = d["queries"].reshape(-1, 4)[:, :3].astype(f64)
    best = np.empty(len(qs))
    arg = np.empty(len(qs), np.int64)
    for q0 in range(0, len(qs), 1 << 15):
        best[q0:q0 + (1 << 15)], arg[q0:q0 + (1 << 15)] = _nn_grid(tree[:, :3], qs[q0:q0 + (1 << 15)])
    return best, tree[arg, 3].astype(np.int64)


# points examined per query (the median at every level visited, every point of every leaf scanned) at
# full size, seed 0, counted by _kd_visits over 4096 queries: the FLOPs' weight
KD_EXAMINED = 142.9


def _kd_visits(d, queries: int) -> float:
    """Points the kernel's search examines per query, by the same recursion in Python (float64)."""
    tree = d["tree"].reshape(-1, 4).astype(f64)
    total = 0

    def search(q, lo, hi, depth, best):
        nonlocal total
        if hi - lo <= KD_LEAF:
            total += hi - lo
            return min(best, float((((tree[lo:hi, :3] - q) ** 2).sum(axis=1)).min(initial=np.inf)))
        mid = (lo + hi) >> 1
        total += 1
        best = min(best, float(((tree[mid, :3] - q) ** 2).sum()))
        diff = q[depth % 3] - tree[mid, depth % 3]
        near, far = ((lo, mid), (mid + 1, hi)) if diff < 0 else ((mid + 1, hi), (lo, mid))
        best = search(q, *near, depth + 1, best)
        if diff * diff < best:
            best = search(q, *far, depth + 1, best)
        return best
    for q in d["queries"].reshape(-1, 4)[:queries, :3].astype(f64):
        search(q, 0, len(tree), 0, np.inf)
    return total / queries


# ---- PyTorch EmbeddingBag -----------------------------------------------------------------------------
EB_ROWS, EB_DIM, EB_POOL = 1 << 19, 128, 64  # table rows, embedding dim (DLRM's 128), bags of 0..63 indices
EB_GRID, EB_BLOCK = 1024, (32, 8)  # PyTorch's launch


def _eb_rows(n):
    return EB_ROWS if n >= 4096 else 4096


def _eb_inputs(n, rng):
    """A table of 2^19 x 128 floats N(0, 0.1^2) (4096 rows below 4096 bags); n bags of 0..63 indices
    (uniform: 1 in 64 bags empty), the indices uniform over the table, per-sample weights uniform in
    [0.5, 1.5) (TorchRec's weighted features); sum mode, no padding index."""
    rows = _eb_rows(n)
    sizes = rng.integers(0, EB_POOL, n)
    offsets = np.r_[0, np.cumsum(sizes)[:-1]].astype(i64)
    L = int(sizes.sum())
    return {"input": rng.integers(0, rows, L).astype(i64), "offsets": offsets,
            "weight": (0.1 * rng.standard_normal((rows, EB_DIM), dtype=f32)).ravel(),
            "output": _nan(n * EB_DIM), "offset2bag": np.full(L, -1, i64), "numIndices": i64(L), "numBags": i64(n),
            "featureSize": i64(EB_DIM), "weight_stride0": i64(EB_DIM), "weight_stride1": i64(1), "mode": i32(0),
            "bag_size": np.full(n, -1, i64), "per_sample_weights": rng.uniform(0.5, 1.5, L).astype(f32),
            "per_sample_weights_stride": i64(1), "padding_idx": i64(-1), "numRows": i64(rows)}


def _eb_ref(d):
    """Each bag's rows, scaled by their weights, summed (float64)."""
    dim, n = int(d["featureSize"]), int(d["numBags"])
    w = d["weight"].reshape(-1, dim)
    starts = d["offsets"].astype(np.int64)
    ends = np.r_[starts[1:], int(d["numIndices"])]
    out = np.zeros((n, dim))
    for b0 in range(0, n, 4096):
        b1 = min(b0 + 4096, n)
        lo, hi = int(starts[b0]), int(ends[b1 - 1])
        full = np.flatnonzero(ends[b0:b1] > starts[b0:b1])  # empty bags stay zero
        if len(full):
            rows = w[d["input"][lo:hi]].astype(f64) * d["per_sample_weights"][lo:hi, None]
            out[b0 + full] = np.add.reduceat(rows, starts[b0 + full] - lo, axis=0)
    return out.ravel()


def _eb_lookups(n):
    return n * (EB_POOL - 1) / 2.0  # the expected indices (bags of 0..63)


def _eb_bytes(n):
    """The distinct table rows expected among the lookups, the indices, weights and offset2bag (20 B
    a lookup), offsets and bag sizes (16 B a bag) and the output."""
    L = _eb_lookups(n)
    distinct = _eb_rows(n) * (1.0 - math.exp(-L / _eb_rows(n)))
    return 4.0 * EB_DIM * distinct + 20.0 * L + 16.0 * n + 4.0 * EB_DIM * n


# ---- repressilator RK4 ensemble --------------------------------------------------------------------------
RP_NEQ, RP_DT = 6, 0.02


def _rp_steps(n):
    return 1000 if n >= 4096 else 100  # t = 20 (about two periods) at full size


def _rp_inputs(n, rng):
    """n systems: alpha uniform in [100, 400], alpha0 = alpha / 1000, beta uniform in [1, 10] (around
    Elowitz & Leibler's 216, 0.216, 5); mRNA and protein levels uniform in [0, 20) to start."""
    alpha = rng.uniform(100.0, 400.0, n)
    params = np.concatenate([alpha, alpha / 1000.0, rng.uniform(1.0, 10.0, n)]).astype(f32)
    return {"params": params, "y0": rng.uniform(0.0, 20.0, RP_NEQ * n).astype(f32), "y_out": _nan(RP_NEQ * n),
            "nsys": i32(n), "nsteps": i32(_rp_steps(n)), "dt": f32(RP_DT)}


def _rp_rhs(y, alpha, alpha0, beta):
    m, p = y[:3], y[3:]
    rep = p[[2, 0, 1]]  # cI represses lacI, lacI tetR, tetR cI
    return np.concatenate([-m + alpha / (1.0 + rep * rep) + alpha0, -beta * (p - m)])


def _rp_ref(d):
    """Classical RK4 in float64, the same steps."""
    n = int(d["nsys"])
    alpha, alpha0, beta = d["params"].astype(f64).reshape(3, n)
    y = d["y0"].astype(f64).reshape(RP_NEQ, n)
    dt = float(d["dt"])
    for _ in range(int(d["nsteps"])):
        k1 = _rp_rhs(y, alpha, alpha0, beta)
        k2 = _rp_rhs(y + 0.5 * dt * k1, alpha, alpha0, beta)
        k3 = _rp_rhs(y + 0.5 * dt * k2, alpha, alpha0, beta)
        k4 = _rp_rhs(y + dt * k3, alpha, alpha0, beta)
        y = y + dt / 6.0 * (k1 + 2.0 * (k2 + k3) + k4)
    return y.ravel()


# ---- Dot2 ---------------------------------------------------------------------------------------------
D2_THREADS, D2_GRID = 256, 1024  # a fixed grid, as reduction kernels launch it; fewer blocks for short vectors


def _d2_grid(n):
    return min(D2_GRID, _blocks(n, 8 * D2_THREADS))


def _d2_inputs(n, rng):
    return {"x": rng.standard_normal(n), "y": rng.standard_normal(n), "partial": _nan(2 * _d2_grid(n), f64),
            "n": i64(n)}


def _d2_ref(d):
    """Each block's dot product over its grid-stride share (float64, pairwise within a stride), and a
    zero error term: the kernel's (sum, error) pair must agree with it to the tolerance."""
    grid = len(d["partial"]) // 2
    n = int(d["n"])
    span = grid * D2_THREADS
    prod = np.zeros(-(-n // span) * span)
    prod[:n] = d["x"] * d["y"]
    dots = prod.reshape(-1, grid, D2_THREADS).sum(axis=2).sum(axis=0)
    return np.column_stack([dots, np.zeros(grid)]).ravel()


# ---- interval matrix-vector product -----------------------------------------------------------------------
IV_COLS = 4096


def _iv_cols(n):
    return IV_COLS if n >= 4096 else 256


def _iv_inputs(n, rng):
    """A (n x cols) and the midpoints N(0, 1); radii 1e-6 |xm| U(0, 1) (an enclosure from a Newton step)."""
    cols = _iv_cols(n)
    xm = rng.standard_normal(cols)
    return {"A": rng.standard_normal(n * cols), "xm": xm, "xr": 1e-6 * np.abs(xm) * rng.random(cols),
            "y": _nan(2 * n, f64), "rows": i32(n), "cols": i32(cols)}


def _iv_ref(d):
    A = d["A"].reshape(int(d["rows"]), int(d["cols"]))
    mid, rad = A @ d["xm"], np.abs(A) @ d["xr"]
    return np.column_stack([mid - rad, mid + rad]).ravel()


# ---- the wild set --------------------------------------------------------------------------------------
CORPUS: list[CorpusKernel] = [
    # hA 2048 x wA 1024 times wA x wB 1536: 6.4 GFLOP through 32 x 32 shared tiles (two shared loads and an FMA
    # per step, the sample's kernel reaches a few TFLOP/s): ~0.7-2 ms; 18.9 MB of matrices
    entry("matrixmul_samples_program", "wild/matrixMul.cu", "MatrixMulCUDA<32>",
          "CUDA samples matrixMul as a whole program (main, <vector>, CHECK_CUDA): 32x32 tiles", 2048,
          lambda n, sms: ((_mm_shape(n)[2] // MM_BLOCK, n // MM_BLOCK, 1), (MM_BLOCK, MM_BLOCK, 1), 0),
          _mm_inputs, "C", _mm_ref, lambda n: 2.0 * math.prod(_mm_shape(n)),
          lambda n: 4.0 * (n * _mm_shape(n)[1] + _mm_shape(n)[1] * _mm_shape(n)[2] + n * _mm_shape(n)[2]), rtol=1e-5,
          inputs_desc="A (hA x hA/2), B (hA/2 x 3hA/4) signed; hA a multiple of 128; the program around the kernel "
                      "(nvcc compiles its device code)"),
    # 64 x 1024 rows of 768 bf16 channels (GPT-2 small at llm.c's B 64, T 1024): 100 MB in, 100 MB out, >= 67 us at
    # 3 TB/s; the row read three times (the second and third mostly from L1/L2)
    entry("layernorm_bf16_llmc_header", "wild/layernorm_forward.cu", "layernorm_forward_kernel3",
          "llm.c LayerNorm forward in bf16, the kernel kept in a .cuh header", 64 * LN_T,
          lambda n, sms: ((_blocks(32 * n, LN_BLOCK), 1, 1), (LN_BLOCK, 1, 1), 0), _ln_inputs, "rstd",
          lambda d: _ln_stats(d)[1], lambda n: 8.0 * n * LN_C + 14.0 * n,
          lambda n: 4.0 * n * LN_C + 4.0 * LN_C + 8.0 * n,
          rtol=1e-5, inputs_desc="n = B x T rows of 768 bf16 activations (each row N(offset, scale^2)), bf16 weights "
                                 "1 + N(0, 0.1^2) and biases N(0, 0.02^2); the entry checks rstd (float32), the tests "
                                 "the bf16 rows and the means"),
    # Llama 3 8B's lm_head (128256 x 4096) in Q8_0: 558 MB of weights read once per generated token, >= 185 us at
    # 3 TB/s; 2 dp4a a thread per block of 32 quants
    entry("mmvq_q8_0_llamacpp", "wild/mmvq_q8_0.cu", "mul_mat_vec_q8_0_q8_1<1, 2>",
          "llama.cpp mul_mat_vec_q: Q8_0 x Q8_1 by __dp4a, template with computed __launch_bounds__", MMVQ_ROWS,
          lambda n, sms: ((n, 1, 1), (32, 4, 1), 0), _mmvq_inputs, "dst", _mmvq_ref,
          lambda n: 3.0 * n * (MMVQ_COLS // QK),
          lambda n: 34.0 * n * (MMVQ_COLS // QK) + 36.0 * (MMVQ_COLS // QK) + 4.0 * n,
          rtol=1e-5, inputs_desc="n x 4096 Q8_0 weights (quants uniform in [-127, 127], fp16 scales ~2e-4), 4096 "
                                 "activations N(0, 1) quantized to Q8_1 as llama.cpp's quantize_q8_1 does"),
    # 16 x 16 heads x 1024 queries, rows of 1024 fp16 scores: 537 MB in, 537 MB out, >= 360 us at 3 TB/s
    entry("softmax_half2_rows", "wild/softmax_half2.cu", "softmax_half2_warp<1024>",
          "attention softmax in half2 arithmetic (__hmax2, h2exp, __hadd2, __hmul2), warp per row", 16 * 16 * 1024,
          lambda n, sms: ((_blocks(n, 4), 1, 1), (128, 1, 1), 0), _sm_inputs, "out", _sm_ref,
          lambda n: 5.0 * n * SM_COLS, lambda n: 4.0 * n * SM_COLS, rtol=5e-3,
          inputs_desc="n rows of 1024 raw fp16 scores N(0, 16^2), scale 1/8 (logits of sd 2); half2 exps, sums "
                      "and output"),
    # 10922 water molecules (32766 atoms, a 69 A box) x 3576 k-vectors: 117M double sincos (~40 FP64 instructions
    # each, ~5 G) plus 3.7 GB of atom reads from L2 (each block reads all 1 MB of atoms): ~0.3-1.5 ms
    entry("ewald_recip_f64", "wild/ewald_recip.cu", "ewald_structure_factor",
          "Ewald reciprocal sum: structure factors by double sincos, block per k-vector", 10922,
          lambda n, sms: ((len(_ew_kvecs(n)), 1, 1), (EW_THREADS, 1, 1), 0), _ew_inputs, "rho_k",
          lambda d: _ew_rho(d).ravel(), _ew_flops, lambda n: 96.0 * n + 40.0 * len(_ew_kvecs(n)), rtol=1e-10,
          inputs_desc="n SPC/E-charged water molecules at water's density in a cubic box (oxygens uniform, rigid "
                      "random orientations); the half-space k-vectors up to 1.1 / angstrom; alpha 0.25 / angstrom"),
    # 65536 elements x 383 Montgomery products of 4 x 64-bit limbs (~500 SASS integer instructions each, mostly
    # IMAD on carry chains): ~1.2e10 instructions, ~0.5-2 ms; 4 MB in and out
    entry("bn254_fr_inverse", "wild/bn254_inverse.cu", "fr_batch_inverse",
          "BN254 Fr batch inversion by Fermat: 64-bit Montgomery CIOS in inline PTX carry chains", 1 << 16,
          lambda n, sms: ((_blocks(n, 256), 1, 1), (256, 1, 1), 0), _bn_inputs, "out", _bn_ref, lambda n: 0.0,
          lambda n: 64.0 * n, rtol=0.0,
          inputs_desc="n random nonzero elements of the BN254 scalar field in Montgomery form, four 64-bit limbs each "
                      "(handed over as 8 u32 words); the inverses in Montgomery form"),
    # 2^17 queries against 65535 points (1 MB, in L1/L2): ~150 points examined a query through ~20 recursive calls
    # (72-byte frames in local memory), divergent by the data. 2^20 queries took 12.7 ms on the H100 (2026-11-27,
    # past the 10 ms the sets keep to), so 2^17: ~1.6 ms
    entry("kdtree_nn_recursive", "wild/kdtree_nn.cu", "kdtree_nearest",
          "kd-tree nearest neighbour by a recursive __device__ search (assert, debug printf left in)", 1 << 17,
          lambda n, sms: ((_blocks(n, 256), 1, 1), (256, 1, 1), 0), _kd_inputs, "nn_dist2", lambda d: _kd_nearest(d)[0],
          lambda n: n * (8.0 * KD_EXAMINED + 1.0), lambda n: 16.0 * _kd_points(n) + 24.0 * n, rtol=1e-5,
          inputs_desc="points uniform in the unit cube arranged as an implicit kd-tree (2^16 - 1; 1023 below 2^16 "
                      "queries), n queries uniform in the cube; debug 0 (nothing printed), the asserts hold"),
    # 65536 bags x 31.5 lookups x 512-byte rows of a 256 MB table: 1.06 GB gathered (each row about four times, 98% of
    # the table touched, too much for L2), >= 350 us at 3 TB/s; 1024 blocks of 256 threads stride over the (bag,
    # 32-feature) chunks
    entry("embedding_bag_pytorch", "wild/embedding_bag.cu", "EmbeddingBag_updateOutputKernel_sum_mean<float, int64_t>",
          "PyTorch EmbeddingBag sum with per-sample weights, device asserts on", 1 << 16,
          lambda n, sms: ((EB_GRID, 1, 1), (*EB_BLOCK, 1), 0), _eb_inputs, "output", _eb_ref,
          lambda n: 2.0 * EB_DIM * _eb_lookups(n), _eb_bytes, rtol=1e-5,
          inputs_desc="a 2^19 x 128 float table N(0, 0.1^2); n bags of 0..63 uniform indices with per-sample weights "
                      "in [0.5, 1.5), sum mode; offset2bag and bag_size written too"),
    # 65536 systems x 1000 RK4 steps x 4 out-of-line right-hand sides (state and stages in local memory through the
    # call): 1.0e10 FLOPs, ~0.3-1.5 ms, latency-bound on the calls' local loads and stores; 2.4 MB of data
    entry("repressilator_rk4_noinline", "wild/repressilator_rk4.cu", "repressilator_ensemble",
          "RK4 ensemble ODE parameter scan, __noinline__ right-hand side with __fdividef", 1 << 16,
          lambda n, sms: ((_blocks(n, 128), 1, 1), (128, 1, 1), 0), _rp_inputs, "y_out", _rp_ref,
          lambda n: 156.0 * n * _rp_steps(n), lambda n: 60.0 * n, rtol=1e-3,
          inputs_desc="n repressilators, alpha in [100, 400], alpha0 = alpha / 1000, beta in [1, 10], initial levels "
                      "in [0, 20); dt 0.02, 1000 steps (100 below 4096 systems)"),
    # 2^26 doubles of x and y: 1.07 GB, >= 360 us at 3 TB/s; 11 FP64 operations an element (0.7 GFLOP); 1024 blocks
    # of 256, 256 elements a thread
    entry("dot2_compensated_f64", "wild/dot2_compensated.cu", "dot2_partials",
          "Ogita-Rump-Oishi Dot2: TwoProduct by __fma_rn, TwoSum, grid-stride partial pairs", 1 << 26,
          lambda n, sms: ((_d2_grid(n), 1, 1), (D2_THREADS, 1, 1), 0), _d2_inputs, "partial", _d2_ref,
          lambda n: 11.0 * n, lambda n: 16.0 * n + 16.0 * _d2_grid(n), rtol=1e-11,
          inputs_desc="x, y N(0, 1) doubles; one (sum, error) pair per block, 1024 blocks (fewer below 2^21 "
                      "elements: 8 a thread at least)"),
    # 16384 x 4096 doubles: 537 MB, >= 180 us at 3 TB/s; three directed-rounding FMAs an element
    entry("interval_gemv_rounded", "wild/interval_gemv.cu", "interval_gemv_midrad",
          "interval matrix-vector (Rump midpoint-radius) with __fma_rd/__fma_ru, warp per row", 16384,
          lambda n, sms: ((_blocks(n, 8), 1, 1), (256, 1, 1), 0), _iv_inputs, "y", _iv_ref,
          lambda n: 6.0 * n * _iv_cols(n), lambda n: 8.0 * n * _iv_cols(n) + 16.0 * _iv_cols(n) + 16.0 * n, rtol=1e-10,
          inputs_desc="A (n x 4096; 256 columns below 4096 rows) and the midpoints N(0, 1), radii 1e-6 |xm| U(0, 1); "
                      "out the enclosures (inf, sup)"),
]

BY_NAME, get = index(CORPUS)

if __name__ == "__main__":
    from cudasim.console import run

    from ..manifest import main
    run(main, CORPUS)
