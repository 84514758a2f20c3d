"""The third held-out set: sixteen more common CUDA patterns that neither the catalog, the corpus
nor the first two held-out sets have, written as their authors write them (textbooks, CUDA
samples, blog posts, framework code) and kept away from the model developers, so that the timing
model can be tested out of sample once more.

The same shape as corpus.manifest (CORPUS, BY_NAME, get, SMS; every entry a CorpusKernel made
by corpus.manifest.entry, sources under corpus/holdout3/): each kernel with its launch, seeded
inputs, float64 numpy reference, FLOPs and compulsory bytes (each input element read once, each
output element written once). FLOPs count floating-point +, -, *, / and each math intrinsic as
one; integer and comparison work counts zero. Every size is chosen for about 50 us - 3 ms on an
H100 (~3 TB/s, ~60 TFLOP/s FP32) and stated with its reason beside the entry.

    python -m corpus.holdout3.manifest       # the table: pattern, launch, bytes, FLOPs
"""
from __future__ import annotations

import numpy as np

from kernels.catalog import _positive, _signed

from ..manifest import SMS, CorpusKernel, _blocks, _nan, entry, index

__all__ = ["CORPUS", "BY_NAME", "get", "SMS", "CorpusKernel"]


# ---- shapes: each kernel's one size parameter n and what it implies ------------------------------
NORM_BATCH = 64  # normalize_hwc_to_chw: 64 images of n x n (a YOLO batch at 640 x 640)
IMAGENET_MEAN = (0.485, 0.456, 0.406)
IMAGENET_STD = (0.229, 0.224, 0.225)
GELU_COLS = 16384  # bias_gelu: the MLP hidden width of a 4096-wide model


def _bn_shape(n):  # N = n images of ResNet-50 layer1 (256 channels, 56 x 56); fewer channels, 14 x 14, below n = 16
    return (n, 256, 56 * 56) if n >= 16 else (n, 4 * n, 14 * 14)


GNN_FEATURES = 64
GNN_DEGREE = 8  # edges per node, on average


def _hash_capacity(n):  # load factor 1/2: the next power of two at or above 2n
    return 1 << int(2 * n - 1).bit_length()


HASH_EMPTY = 0xFFFFFFFF
IM2COL_C = 128  # im2col: 128 channels of n x n, 3x3 taps, pad 1, stride 1 (a U-Net level at 256 x 256)
CE_CLASSES = 1000  # cross-entropy: ImageNet's 1000 classes
ARGMAX_VOCAB = 32000  # argmax: Llama 2's vocabulary
BOX_RADIUS = 14  # the boxFilter sample's default radius


def _box_shape(n):  # n wide, 9/16 n high (3840 -> a 4K UHD frame)
    return n, n * 9 // 16


Q8_COLS = 4096  # quantize_q8_1: rows of a 4096-wide activation (a multiple of llama.cpp's 512 padding)
RAY_SPHERES = 20
RAY_HITS = 0.36  # expected sphere hits per pixel: 20 x pi E[r^2] / dim^2 with r uniform in [dim/50, 3 dim/25)


# ---- inputs and references ----------------------------------------------------------------------
def _norm_inputs(n, rng):
    px = NORM_BATCH * n * n
    (mr, mg, mb), (sr, sg, sb) = IMAGENET_MEAN, IMAGENET_STD
    return {"src": rng.integers(0, 256, 3 * px, dtype=np.uint8), "dst": _nan(3 * px), "width": np.int32(n),
            "height": np.int32(n), "batch": np.int32(NORM_BATCH), "mean_r": np.float32(mr),
            "mean_g": np.float32(mg), "mean_b": np.float32(mb), "std_r": np.float32(sr), "std_g": np.float32(sg),
            "std_b": np.float32(sb)}


def _norm_ref(d):
    b, area = int(d["batch"]), int(d["width"]) * int(d["height"])
    bgr = d["src"].astype(np.float64).reshape(b, area, 3)
    mean = np.array([float(d[k]) for k in ("mean_r", "mean_g", "mean_b")])
    std = np.array([float(d[k]) for k in ("std_r", "std_g", "std_b")])
    rgb = bgr[:, :, ::-1] / 255.0
    return ((rgb - mean) / std).transpose(0, 2, 1).ravel()


def _gelu_ref(d):
    cols = int(d["cols"])
    v = d["x"].astype(np.float64).reshape(-1, cols) + d["bias"].astype(np.float64)
    return (0.5 * v * (1.0 + np.tanh(0.7978845608 * v * (1.0 + 0.044715 * v * v)))).ravel()


def _bn_inputs(n, rng):
    N, C, HW = _bn_shape(n)
    mean = rng.uniform(-2.0, 2.0, (1, C, 1))
    std = rng.uniform(0.5, 2.0, (1, C, 1))
    x = (mean + std * rng.standard_normal((N, C, HW), dtype=np.float32)).astype(np.float32)
    return {"input": x.ravel(), "stats": _nan(2 * C), "N": np.int32(N), "C": np.int32(C), "HW": np.int32(HW),
            "eps": np.float32(1e-5)}


def _bn_ref(d):
    N, C, HW = int(d["N"]), int(d["C"]), int(d["HW"])
    x = d["input"].reshape(N, C, HW)
    mean = x.mean(axis=(0, 2), dtype=np.float64)
    var = np.empty(C)
    for c in range(C):  # one channel at a time: no float64 copy of the whole tensor
        var[c] = ((x[:, c, :].astype(np.float64) - mean[c]) ** 2).mean()
    return np.stack([mean, 1.0 / np.sqrt(var + float(d["eps"]))], axis=1).ravel()


def _gnn_inputs(n, rng):
    e = GNN_DEGREE * n
    return {"x": _signed(rng, n * GNN_FEATURES, np.float32), "src": rng.integers(0, n, e, dtype=np.int32),
            "dst": rng.integers(0, n, e, dtype=np.int32), "out": np.zeros(n * GNN_FEATURES, np.float32),
            "num_edges": np.int32(e), "features": np.int32(GNN_FEATURES)}


def _gnn_ref(d):
    f = int(d["features"])
    x = d["x"].reshape(-1, f)
    nodes = x.shape[0]
    out = np.empty((nodes, f))
    for j in range(f):  # one feature column at a time
        out[:, j] = np.bincount(d["dst"], weights=x[d["src"], j].astype(np.float64), minlength=nodes)
    return out.ravel()


def _hash32(k, cap):  # the kernel's hash: MurmurHash3's fmix32, masked to the capacity
    k = k.astype(np.uint32)
    k ^= k >> np.uint32(16)
    k *= np.uint32(0x85EBCA6B)
    k ^= k >> np.uint32(13)
    k *= np.uint32(0xC2B2AE35)
    k ^= k >> np.uint32(16)
    return (k & np.uint32(cap - 1)).astype(np.int64)


def _hash_build(keys, vals, cap):
    """The table linear-probing insertion leaves: every pending key tries its slot, one claimant of
    each empty slot takes it, the rest move one slot on (so no empty slot lies between a key's
    hash and its place, which is all a lookup needs)."""
    tkeys = np.full(cap, HASH_EMPTY, np.uint32)
    tvals = np.full(cap, HASH_EMPTY, np.uint32)
    slot = _hash32(keys, cap)
    pending = np.arange(len(keys))
    while pending.size:
        s = slot[pending]
        free = tkeys[s] == HASH_EMPTY
        tkeys[s[free]] = keys[pending[free]]  # of several claimants of one slot, the last write stays
        won = np.zeros(pending.size, bool)
        won[free] = tkeys[s[free]] == keys[pending[free]]
        tvals[s[won]] = vals[pending[won]]
        pending = pending[~won]
        slot[pending] = (slot[pending] + 1) & (cap - 1)
    return np.stack([tkeys, tvals], axis=1).ravel()


def _hash_inputs(n, rng):
    """n distinct random keys inserted (values random), the queries half of them and half keys
    not in the table, in random order."""
    cap = _hash_capacity(n)
    pool = np.sort(rng.integers(0, HASH_EMPTY, 2 * n + n // 4 + 64, dtype=np.uint32))
    pool = rng.permutation(pool[np.concatenate([[True], pool[1:] != pool[:-1]])])[:2 * n]  # (np.unique is slow)
    keys, absent = pool[:n], pool[n:]
    vals = rng.integers(0, HASH_EMPTY, n, dtype=np.uint32)
    queries = rng.permutation(np.concatenate([keys[:n // 2], absent[:n - n // 2]]))
    kvs = np.stack([queries, np.zeros(n, np.uint32)], axis=1).ravel()
    return {"hashtable": _hash_build(keys, vals, cap), "kvs": kvs, "numkvs": np.uint32(n), "capacity": np.uint32(cap)}


def _hash_ref(d):
    t = d["hashtable"].reshape(-1, 2)
    used = t[t[:, 0] != HASH_EMPTY]
    order = np.argsort(used[:, 0])
    keys, vals = used[order, 0], used[order, 1]
    q = d["kvs"].reshape(-1, 2)[:, 0]
    qo = np.argsort(q)  # searching sorted queries: cache-friendly
    pos = np.empty(len(q), np.int64)
    pos[qo] = np.minimum(np.searchsorted(keys, q[qo]), len(keys) - 1)
    found = keys[pos] == q
    return np.stack([q, np.where(found, vals[pos], HASH_EMPTY)], axis=1).astype(np.float64).ravel()


def _bucketize_launch(n):  # ATen: blocks of maxThreadsPerBlock (1024), at most 1024 of them
    return (min(1024, _blocks(n, 1024)), 1, 1), (1024, 1, 1), 0


def _bucketize_ref(d):
    v = d["data_in"]
    order = np.argsort(v)  # searching sorted values: cache-friendly
    out = np.empty(len(v))
    out[order] = np.searchsorted(d["data_bd"], v[order], side="left")
    return out


def _dft_ref(d):
    x = d["x"].reshape(-1, 2)
    X = np.fft.fft(x[:, 0] + 1j * x[:, 1])
    return np.stack([X.real, X.imag], axis=1).ravel()


def _ray_inputs(n, rng):
    """The book's scene scaled to an n x n image: 20 spheres, centres and radii whole numbers (so
    the float32 geometry is exact and the reference can follow it rounding for rounding), colours
    uniform in [0, 1)."""
    s = np.empty((RAY_SPHERES, 7), np.float32)  # r, b, g, radius, x, y, z: the struct's order
    s[:, 0:3] = rng.random((RAY_SPHERES, 3))
    lo = max(1, n // 50)
    s[:, 3] = rng.integers(lo, lo + max(1, n // 10), RAY_SPHERES)
    s[:, 4:7] = rng.integers(-(n // 2), n // 2, (RAY_SPHERES, 3))
    return {"ptr": np.zeros(4 * n * n, np.uint8), "dim": np.int32(n), "s": s.ravel()}


def _ray_ref(d):
    """The kernel's loop in float32: hits, depths and shades as the compiled kernel rounds them."""
    n = int(d["dim"])
    f32 = np.float32
    s = d["s"].reshape(RAY_SPHERES, 7)
    ox = (np.arange(n) - n // 2).astype(f32)[None, :]
    oy = (np.arange(n) - n // 2).astype(f32)[:, None]
    r = np.zeros((n, n), f32)
    g, b = r.copy(), r.copy()
    maxz = np.full((n, n), f32(-2e10), f32)
    for sr, sb, sg, rad, sx, sy, sz in s:
        dx, dy = ox - sx, oy - sy
        d2 = dx * dx + dy * dy
        r2 = rad * rad
        inside = d2 < r2
        dz = np.sqrt(np.where(inside, r2 - d2, f32(0)))
        t = np.where(inside, dz + sz, f32(-2e10))
        nz = dz / np.sqrt(r2)
        new = t > maxz
        r = np.where(new, sr * nz, r)
        g = np.where(new, sg * nz, g)
        b = np.where(new, sb * nz, b)
        maxz = np.where(new, t, maxz)
    rgba = [(c * f32(255)).astype(np.int32).astype(np.float64) for c in (r, g, b)] + [np.full((n, n), 255.0)]
    return np.stack(rgba, axis=2).ravel()


def _im2col_inputs(n, rng):
    k, pad, stride, dil = 3, 1, 1, 1
    hc = (n + 2 * pad - (dil * (k - 1) + 1)) // stride + 1
    i32 = np.int32
    return {"n": i32(IM2COL_C * hc * hc), "data_im": _signed(rng, IM2COL_C * n * n, np.float32), "height": i32(n),
            "width": i32(n), "kernel_h": i32(k), "kernel_w": i32(k), "pad_h": i32(pad), "pad_w": i32(pad),
            "stride_h": i32(stride), "stride_w": i32(stride), "dilation_h": i32(dil), "dilation_w": i32(dil),
            "height_col": i32(hc), "width_col": i32(hc), "data_col": _nan(IM2COL_C * 9 * hc * hc)}


def _im2col_ref(d):  # stride 1, dilation 1, 3x3, pad 1: the column row (c, i, j) is the padded plane shifted by (i, j)
    h, w = int(d["height"]), int(d["width"])
    img = np.pad(d["data_im"].astype(np.float64).reshape(-1, h, w), ((0, 0), (1, 1), (1, 1)))
    cols = [img[:, i:i + h, j:j + w] for i in range(3) for j in range(3)]
    return np.stack(cols, axis=1).ravel()


def _compact_ref(d):
    x = d["in"]
    n, blocks = len(x), _blocks(len(x), 1024)
    xb = np.concatenate([x, np.full(blocks * 1024 - n, -np.inf, np.float32)]).reshape(blocks, 1024)
    keep = xb > d["threshold"]
    rank = np.cumsum(keep, axis=1) - 1
    rows, cols = np.nonzero(keep)
    out = np.zeros((blocks, 1024))
    out[rows, rank[rows, cols]] = xb[rows, cols]
    return out.ravel()[:n]


def _bmm_ref(d):
    a = d["A"].astype(np.float64).reshape(-1, 32, 32)
    b = d["B"].astype(np.float64).reshape(-1, 32, 32)
    return np.matmul(a, b).ravel()


def _ce_ref(d):
    c = int(d["classes"])
    x = d["logits"].reshape(-1, c)
    out = np.empty(x.shape[0])
    for s in range(0, x.shape[0], 4096):  # in row chunks: no float64 copy of the whole matrix
        v = x[s:s + 4096].astype(np.float64)
        m = v.max(axis=1)
        lse = np.log(np.exp(v - m[:, None]).sum(axis=1)) + m
        out[s:s + 4096] = lse - v[np.arange(len(v)), d["targets"][s:s + 4096]]
    return out


def _argmax_inputs(n, rng):
    """Logits ~ N(0, 2^2); where a row's largest value occurs more than once, all but its first
    occurrence are lowered by one ulp, so the answer does not depend on which tied lane the
    shuffles keep."""
    x = (rng.standard_normal((n, ARGMAX_VOCAB), dtype=np.float32) * 2.0).astype(np.float32)
    top2 = np.partition(x, ARGMAX_VOCAB - 2, axis=1)[:, -2:]
    for r in np.flatnonzero(top2[:, 0] == top2[:, 1]):
        x[r, np.flatnonzero(x[r] == top2[r, 1])[1:]] = np.nextafter(top2[r, 1], np.float32(-np.inf))
    return {"x": x.ravel(), "dst": np.full(n, -2, np.int32), "ncols": np.int64(ARGMAX_VOCAB)}


def _complex_ref(d):
    a = d["a"].astype(np.float64).reshape(-1, 2)
    b = d["b"].astype(np.float64).reshape(-1, 2)
    z = (a[:, 0] + 1j * a[:, 1]) * (b[:, 0] + 1j * b[:, 1]) * float(d["scale"])
    return np.stack([z.real, z.imag], axis=1).ravel()


def _box_ref(d):
    w, h, r = int(d["w"]), int(d["h"]), int(d["r"])
    img = np.pad(d["id"].astype(np.float64).reshape(h, w), ((r, r), (0, 0)), mode="edge")
    c = np.concatenate([np.zeros((1, w)), np.cumsum(img, axis=0)])
    return ((c[2 * r + 1:] - c[:-(2 * r + 1)]) / (2 * r + 1)).ravel()


def _q8_inputs(n, rng):
    kx = Q8_COLS
    return {"x": rng.standard_normal(n * kx, dtype=np.float32), "vy": np.full(n * kx // 32 * 36, 0xAA, np.uint8),
            "kx": np.int64(kx), "kx0_padded": np.int64(kx)}


def _q8_ref(d):
    """The q8_1 blocks' bytes as the kernel computes them in float32: amax exact, the sum by the
    same butterfly of float32 adds, d = amax / 127 and xi / d rounded once each (IEEE division),
    roundf (half away from zero), d and the sum to half by round-to-nearest-even."""
    f32 = np.float32
    x = d["x"].reshape(-1, 32)
    amax = np.abs(x).max(axis=1)
    s = x.copy()
    lanes = np.arange(32)
    for off in (16, 8, 4, 2, 1):
        s = s + s[:, lanes ^ off]
    dd = (amax / f32(127)).astype(f32)
    with np.errstate(divide="ignore", invalid="ignore"):
        qf = (x / dd[:, None]).astype(f32)
    q = np.where(amax[:, None] == 0, 0.0, np.sign(qf) * np.floor(np.abs(qf.astype(np.float64)) + 0.5))
    out = np.empty((len(x), 36), np.uint8)
    out[:, 0:2] = dd.astype(np.float16).view(np.uint8).reshape(-1, 2)
    out[:, 2:4] = s[:, 0].astype(np.float16).view(np.uint8).reshape(-1, 2)
    out[:, 4:] = q.astype(np.int8).view(np.uint8)
    return out.ravel().astype(np.float64)


# ---- the third held-out set ---------------------------------------------------------------------
def _B(n, b):  # one thread per item, b-thread blocks
    return (_blocks(n, b), 1, 1), (b, 1, 1), 0


CORPUS: list[CorpusKernel] = [
    # 64 images of 640 x 640: 3 bytes in and 12 out per pixel, 393 MB, >= 130 us at 3 TB/s
    entry("normalize_hwc_to_chw", "holdout3/image_normalize.cu", "normalize_hwc_to_chw",
          "uint8 HWC BGR to normalized float CHW RGB, thread per pixel", 640,
          lambda n, sms: _B(NORM_BATCH * n * n, 256), _norm_inputs, "dst", _norm_ref,
          lambda n: 9.0 * NORM_BATCH * n * n, lambda n: 15.0 * NORM_BATCH * n * n, rtol=1e-5,
          inputs_desc="src: 64 images of n x n BGR pixels, uniform random bytes; ImageNet mean and std"),
    # 8192 tokens x 16384 hidden halves: 268 MB in and 268 MB out, >= 180 us at 3 TB/s
    entry("bias_gelu_half2", "holdout3/bias_gelu_half.cu", "bias_gelu_half2",
          "bias + GELU (tanh) on fp16 activations, half2 loads, float math", 8192,
          lambda n, sms: _B(n * GELU_COLS // 2, 256),
          lambda n, rng: {"x": rng.standard_normal(n * GELU_COLS).astype(np.float16),
                          "bias": (0.1 * rng.standard_normal(GELU_COLS)).astype(np.float16),
                          "y": np.full(n * GELU_COLS, np.nan, np.float16), "rows": np.int32(n),
                          "cols": np.int32(GELU_COLS)},
          "y", _gelu_ref, lambda n: 10.0 * n * GELU_COLS, lambda n: 4.0 * n * GELU_COLS + 2.0 * GELU_COLS, rtol=2e-3,
          inputs_desc="x: n x 16384 standard normal halves; bias: N(0, 0.1^2) halves; half rounding of the output"),
    # 64 x 256 x 56 x 56 floats: 205 MB, >= 70 us at 3 TB/s; a float division per value (51M)
    entry("batchnorm_stats_welford", "holdout3/welford_bn.cu", "batchnorm_stats_welford",
          "BatchNorm statistics, Welford per thread, block per channel", 64,
          lambda n, sms: ((_bn_shape(n)[1], 1, 1), (512, 1, 1), 0), _bn_inputs, "stats", _bn_ref,
          lambda n: 7.0 * np.prod(_bn_shape(n), dtype=float), lambda n: 4.0 * np.prod(_bn_shape(n), dtype=float)
          + 8.0 * _bn_shape(n)[1], rtol=1e-4,
          inputs_desc="input: NCHW, channel means uniform in [-2, 2], sds in [0.5, 2], normal values; eps 1e-5; "
                      "stats: (mean, 1/sqrt(biased var + eps)) per channel"),
    # 262144 nodes x 64 features, 2M random edges: 134M atomic float adds (a warp's 32 lanes on one 128-byte
    # line) into a 67 MB output beyond the L2, x (67 MB) gathered 8 times on average: hundreds of us
    entry("gnn_scatter_add", "holdout3/gnn_scatter_add.cu", "gnn_scatter_add",
          "GNN scatter-add over COO edges, atomicAdd per (edge, feature)", 1 << 18,
          lambda n, sms: _B(GNN_DEGREE * n * GNN_FEATURES, 256), _gnn_inputs, "out", _gnn_ref,
          lambda n: float(GNN_DEGREE * n * GNN_FEATURES),
          lambda n: 8.0 * n * GNN_FEATURES + 8.0 * GNN_DEGREE * n, rtol=1e-5,
          inputs_desc="x: n x 64 signed; 8n edges, src and dst uniform random nodes (unsorted); out zeroed"),
    # 2^24 queries on a 2^25-slot table (268 MB, 5x the L2), half present: ~2 dependent probes each
    entry("hash_lookup_linear_probe", "holdout3/hash_lookup.cu", "hashtable_lookup",
          "hash table lookup, open addressing, linear probing", 1 << 24,
          lambda n, sms: _B(n, 256), _hash_inputs, "kvs", _hash_ref, lambda n: 0.0,
          lambda n: 12.0 * n + 8.0 * _hash_capacity(n), rtol=0.0,
          inputs_desc="table: n distinct random keys, random values, inserted by linear probing at load 1/2; "
                      "queries: half of the keys and n/2 absent keys, shuffled; bytes count the whole table"),
    # 2^24 values searched in 2^24 sorted boundaries (67 MB, beyond the L2): 24 dependent probes each
    entry("bucketize_binary_search", "holdout3/bucketize.cu", "bucketize_lower_bound",
          "binary search per value, searchsorted (ATen), int64 out", 1 << 24,
          lambda n, sms: _bucketize_launch(n),
          lambda n, rng: {"data_out": np.full(n, -1, np.int64), "data_in": rng.random(n, dtype=np.float32),
                          "data_bd": np.sort(rng.random(n, dtype=np.float32)), "idim_bd": np.int64(n),
                          "numel_in": np.int64(n)},
          "data_out", _bucketize_ref,
          lambda n: 0.0, lambda n: 16.0 * n, rtol=0.0,
          inputs_desc="data_in: uniform [0, 1); data_bd: n sorted uniform [0, 1) floats; left side"),
    # n = 4096: 16.8M terms, each a double division and sincospi (~45 FP64 instructions) and 8 flops; only
    # 32 blocks of 128 threads (a quarter of the SMs, 4 warps each), so FP64 chains: hundreds of us
    entry("dft_naive_f64", "holdout3/dft_double.cu", "dft_naive_f64",
          "naive O(n^2) DFT in double, sincospi per term", 4096,
          lambda n, sms: _B(n, 128),
          lambda n, rng: {"x": _signed(rng, 2 * n, np.float64), "X": np.full(2 * n, np.nan), "n": np.int32(n)},
          "X", _dft_ref, lambda n: 12.0 * n * n, lambda n: 32.0 * n, rtol=1e-9,
          inputs_desc="x: n complex doubles (interleaved), signed parts; against numpy's FFT"),
    # a 4096 x 4096 frame: 20 sphere tests per pixel (~8 instructions each, 2.7G thread instructions), 67 MB out
    entry("ray_trace_spheres", "holdout3/ray_spheres.cu", "ray_trace_spheres",
          "ray tracing 20 spheres in __constant__ (CUDA by Example)", 4096,
          lambda n, sms: ((n // 16, n // 16, 1), (16, 16, 1), 0), _ray_inputs, "ptr", _ray_ref,
          lambda n: (123.0 + 6.0 * RAY_HITS) * n * n, lambda n: 4.0 * n * n + 28.0 * RAY_SPHERES, rtol=0.004,
          constants=("s",),
          inputs_desc="s: 20 spheres, whole-number centres uniform in the n x n x n cube and radii in [n/50, 3n/25), "
                      "colours uniform [0, 1); n a multiple of 16; the reference rounds as float32"),
    # 128 channels of 256 x 256, 3x3: 34 MB read, 302 MB of columns written, >= 110 us at 3 TB/s
    entry("im2col_caffe", "holdout3/im2col.cu", "im2col_gpu_kernel",
          "im2col (Caffe), thread per (channel, pixel), 9 column writes", 256,
          lambda n, sms: _B(IM2COL_C * n * n, 512), _im2col_inputs, "data_col", _im2col_ref,
          lambda n: 0.0, lambda n: 40.0 * IM2COL_C * n * n, rtol=0.0,
          inputs_desc="data_im: 128 x n x n signed; 3x3, pad 1, stride 1, dilation 1"),
    # 2^26 standard-normal floats: 268 MB read, half kept (134 MB written), >= 135 us at 3 TB/s
    entry("compact_block_ballot", "holdout3/compact_ballot.cu", "compact_block_ballot",
          "block compaction, __ballot_sync + __popc ranks, order kept", 1 << 26,
          lambda n, sms: _B(n, 1024),
          lambda n, rng: {"in": rng.standard_normal(n, dtype=np.float32), "out": np.zeros(n, np.float32),
                          "block_counts": np.full(_blocks(n, 1024), -1, np.int32), "n": np.int32(n),
                          "threshold": np.float32(0.0)},
          "out", _compact_ref, lambda n: 0.0, lambda n: 6.0 * n + 4.0 * _blocks(n, 1024), rtol=0.0,
          inputs_desc="in: standard normal; threshold 0 (half kept); out zeroed, each block's kept values "
                      "packed at its start"),
    # 16384 pairs of 32 x 32 matrices: 201 MB, >= 67 us at 3 TB/s; two shared loads per FMA
    entry("batched_matmul_32", "holdout3/batched_matmul.cu", "batched_matmul_32",
          "batched 32x32 matmul, one block per matrix, operands in shared", 16384,
          lambda n, sms: ((n, 1, 1), (32, 32, 1), 0),
          lambda n, rng: {"A": _signed(rng, n * 1024, np.float32), "B": _signed(rng, n * 1024, np.float32),
                          "C": _nan(n * 1024), "batch": np.int32(n)},
          "C", _bmm_ref, lambda n: 2.0 * 32 ** 3 * n, lambda n: 12.0 * 1024 * n, rtol=1e-5,
          inputs_desc="A, B: n row-major 32 x 32 matrices, signed"),
    # 65536 rows x 1000 classes: 262 MB, >= 88 us at 3 TB/s; two expf per logit (131M)
    entry("cross_entropy_online", "holdout3/cross_entropy.cu", "cross_entropy_online",
          "cross-entropy loss, online softmax, warp per row", 1 << 16,
          lambda n, sms: _B(32 * n, 256),
          lambda n, rng: {"logits": (3.0 * rng.standard_normal(n * CE_CLASSES, dtype=np.float32)).astype(np.float32),
                          "targets": rng.integers(0, CE_CLASSES, n, dtype=np.int64), "loss": _nan(n),
                          "rows": np.int32(n), "classes": np.int32(CE_CLASSES)},
          "loss", _ce_ref, lambda n: 6.0 * n * CE_CLASSES, lambda n: 4.0 * n * CE_CLASSES + 12.0 * n, rtol=1e-5,
          inputs_desc="logits: n x 1000, N(0, 3^2); targets: int64 uniform classes"),
    # 2048 rows x 32000 logits: 262 MB, >= 87 us at 3 TB/s; 1024-thread blocks, one per row
    entry("argmax_rows", "holdout3/argmax_rows.cu", "argmax_f32",
          "row argmax with index (llama.cpp), block per row", 2048,
          lambda n, sms: ((n, 1, 1), (min(1024, _blocks(ARGMAX_VOCAB, 32) * 32), 1, 1), 0), _argmax_inputs, "dst",
          lambda d: d["x"].reshape(len(d["dst"]), -1).argmax(axis=1).astype(np.float64), lambda n: 0.0,
          lambda n: 4.0 * n * ARGMAX_VOCAB + 4.0 * n, rtol=0.0,
          inputs_desc="x: n x 32000, N(0, 2^2), each row's maximum unique; dst poisoned with -2"),
    # 2^23 complex pairs: 201 MB, but the sample's fixed 32 x 256 grid keeps only 8192 threads (1024 loads
    # of 8 bytes each in flight per 32 SMs): latency-bound, hundreds of us
    entry("complex_mul_32_blocks", "holdout3/complex_mul.cu", "ComplexPointwiseMulAndScale",
          "complex multiply-scale, float2, fixed 32x256 grid (simpleCUFFT)", 1 << 23,
          lambda n, sms: ((32, 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"a": _signed(rng, 2 * n, np.float32), "b": _signed(rng, 2 * n, np.float32),
                          "size": np.int32(n), "scale": np.float32(1.0 / n)},
          "a", _complex_ref, lambda n: 8.0 * n, lambda n: 24.0 * n, rtol=1e-5,
          inputs_desc="a, b: n complex floats (interleaved), signed parts; scale 1/n; a updated in place"),
    # a 4K UHD frame (3840 x 2160), radius 14: 66 MB, but only 3840 threads (60 blocks of 64), each walking
    # 2160 rows: latency-bound, hundreds of us to ~1 ms
    entry("box_filter_y_running_sum", "holdout3/box_filter_y.cu", "d_boxfilter_y_global",
          "vertical box filter, running sum, thread per column (CUDA samples)", 3840,
          lambda n, sms: ((n // 64, 1, 1), (64, 1, 1), 0),
          lambda n, rng: {"id": _positive(rng, n * _box_shape(n)[1], np.float32),
                          "od": _nan(n * _box_shape(n)[1]), "w": np.int32(n), "h": np.int32(_box_shape(n)[1]),
                          "r": np.int32(BOX_RADIUS)},
          "od", _box_ref, lambda n: 3.0 * n * _box_shape(n)[1], lambda n: 8.0 * n * _box_shape(n)[1], rtol=1e-4,
          inputs_desc="id: n x 9/16 n, [0.5, 1.5), n a multiple of 64; radius 14; edges clamped; a float running "
                      "sum (tolerance 1e-4)"),
    # 16384 rows x 4096 floats: 268 MB read, 75 MB of 36-byte blocks written, >= 115 us at 3 TB/s
    entry("quantize_q8_1", "holdout3/quantize_q8_1.cu", "quantize_q8_1",
          "int8 q8_1 quantization (llama.cpp), warp absmax + sum, half2 scale", 16384,
          lambda n, sms: ((_blocks(Q8_COLS, 256), n, 1), (256, 1, 1), 0), _q8_inputs, "vy", _q8_ref,
          lambda n: 7.0 * n * Q8_COLS, lambda n: 4.0 * n * Q8_COLS + 36.0 * n * Q8_COLS / 32, rtol=0.0,
          inputs_desc="x: n x 4096 standard normal; vy poisoned with 0xAA bytes; verified byte for byte "
                      "(the reference rounds as float32 and half)"),
]

BY_NAME, get = index(CORPUS)

if __name__ == "__main__":
    from cudasim.console import run

    from ..manifest import main
    run(main, CORPUS)
