"""The second held-out set: sixteen more common CUDA patterns that neither the catalog, the corpus
nor the first held-out set has, written as their authors write them (textbooks, CUDA samples,
papers, framework code) and kept away from the model developers, so that the timing model can be
tested out of sample again.

The same shape as corpus.manifest (CORPUS, BY_NAME, get, SMS; every entry a CorpusKernel made
by corpus.manifest.entry, sources under corpus/holdout2/): each kernel with its launch, seeded
inputs, float64 numpy reference, FLOPs and compulsory bytes (each input element read once, each
output element written once). FLOPs count floating-point +, -, *, / and each math intrinsic as
one; integer and comparison work counts zero. Every size is chosen for about 50 us - 3 ms on an
H100 (~3 TB/s, ~60 TFLOP/s FP32) and stated with its reason beside the entry.

    python -m corpus.holdout2.manifest       # the table: pattern, launch, bytes, FLOPs
"""
from __future__ import annotations

import numpy as np

from kernels.catalog import _positive, _signed

from ..manifest import SMS, CorpusKernel, _blocks, _nan, entry, index

__all__ = ["CORPUS", "BY_NAME", "get", "SMS", "CorpusKernel"]


# ---- shapes: each kernel's one size parameter n and what it implies ------------------------------
def _image_shape(n):  # n wide, 16:9 (7680 -> 7680 x 4320, an 8K UHD frame)
    return n, max(1, n * 9 // 16)


def _vocab(n):  # the embedding table: 100k rows (fewer at small sizes, 4 per lookup, to keep the test light)
    return min(100_000, 4 * n)


EMB_DIM = 256


def _distinct_rows(n):  # expected number of distinct table rows among n uniform lookups
    v = _vocab(n)
    return v * (1.0 - (1.0 - 1.0 / v) ** n)


KM_K, KM_D = 32, 8  # k-means: 32 centroids, 8 features


MC_THREADS = 1 << 18  # Monte Carlo: a fixed grid of 1024 blocks of 256 threads, n / 2^18 samples each


def _mc_samples(n):
    return max(1, n // MC_THREADS)


ELL_K = 32  # ELLPACK: entries per row
COMPACT_THRESHOLD = 2.0  # stream compaction keeps x > 2 of standard-normal x: 2.275% of the elements
COMPACT_KEEP = 0.022750131948179195  # P(X > 2), X ~ N(0, 1)
HIST_BINS = 1024
MANDEL_VIEW = (-1.5, -1.0, 0.5, 1.0)  # cmin_re, cmin_im, cmax_re, cmax_im: the blog's view
MANDEL_MEAN_DWELL = 102.97  # mean iterations per pixel at the 4096 x 4096 default (the reference; 38% reach 256)


def _dot_blocks(n):  # CUDA by Example caps the grid at 32 blocks; raised to 1024 for a 132-SM chip
    return min(1024, _blocks(n, 256))


# ---- float32 arithmetic as the compiled kernels do it (for the references whose outputs are ------
# ---- decided by every rounding: escape counts) --------------------------------------------------
def _fma32(a, b, c):
    """fmaf(a, b, c) of float32 arrays, rounded once: a*b is exact in float64, the float64 sum is
    made round-to-odd (its lowest bit set when inexact) so that rounding it to float32 is correct."""
    p = a.astype(np.float64) * b.astype(np.float64)
    c = c.astype(np.float64)
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)  # TwoSum: p + c == s + err exactly
    even = (s.view(np.int64) & 1) == 0
    fix = (err != 0) & even
    s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s.astype(np.float32)


# ---- references ---------------------------------------------------------------------------------
def _gray_ref(d):
    rgb = d["rgb"].astype(np.float64).reshape(-1, 3)
    wts = np.float32([0.299, 0.587, 0.114]).astype(np.float64)  # the float32 constants the kernel uses
    return np.floor(rgb @ wts)


def _particles_ref(d):
    p = d["p"].astype(np.float64).reshape(-1, 6).copy()
    p[:, :3] += p[:, 3:] * float(d["dt"])
    return p.ravel()


def _embedding_ref(d):
    dim = int(d["dim"])
    return d["weight"].reshape(-1, dim)[d["idx"]].astype(np.float64).ravel()


def _bilinear_ref(d):
    iw, ih, ow, oh = (int(d[k]) for k in ("in_w", "in_h", "out_w", "out_h"))
    img = d["in"].astype(np.float64).reshape(ih, iw)

    def axis(n_out, n_in):
        s = np.maximum((np.arange(n_out) + 0.5) * (n_in / n_out) - 0.5, 0.0)
        i0 = s.astype(np.int64)
        return i0, np.minimum(i0 + 1, n_in - 1), s - i0

    x0, x1, lx = axis(ow, iw)
    y0, y1, ly = axis(oh, ih)
    top = (1 - lx) * img[y0][:, x0] + lx * img[y0][:, x1]
    bot = (1 - lx) * img[y1][:, x0] + lx * img[y1][:, x1]
    return ((1 - ly)[:, None] * top + ly[:, None] * bot).ravel()


def _life_ref(d):
    w, h = int(d["width"]), int(d["height"])
    g = d["in"].reshape(h, w)
    nb = sum(np.roll(np.roll(g, dy, 0), dx, 1) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy or dx)
    return ((nb == 3) | ((nb == 2) & (g == 1))).astype(np.float64).ravel()


def _conv3_ref(d):
    w, h = int(d["width"]), int(d["height"])
    img = np.pad(d["in"].astype(np.float64).reshape(h, w), 1)
    f = d["filter"].astype(np.float64).reshape(3, 3)
    return sum(f[i, j] * img[i:i + h, j:j + w] for i in range(3) for j in range(3)).ravel()


def _fw_inputs(n, rng):  # a complete digraph with integer weights 1..100 (exact in float), D[i][i] = 0
    D = rng.integers(1, 101, (n, n)).astype(np.float32)
    np.fill_diagonal(D, 0.0)
    return {"D": D.ravel(), "n": np.int32(n), "k": np.int32(n // 2)}


def _fw_ref(d):
    n, k = int(d["n"]), int(d["k"])
    D = d["D"].astype(np.float64).reshape(n, n)
    return np.minimum(D, D[:, k:k + 1] + D[k:k + 1, :]).ravel()


def _kmeans_inputs(n, rng):
    """Points from a mixture of 32 well-separated Gaussians (centres uniform in [-10, 10]^8, sd 1);
    the centroids are the centres moved by N(0, 0.1): an assignment step late in a k-means run."""
    centres = rng.uniform(-10.0, 10.0, (KM_K, KM_D))
    label = rng.integers(0, KM_K, n)
    pts = centres[label] + rng.standard_normal((n, KM_D))
    clusters = centres + 0.1 * rng.standard_normal((KM_K, KM_D))
    return {"features": np.ascontiguousarray(pts.T).astype(np.float32).ravel(),
            "membership": np.full(n, -1, np.int32), "npoints": np.int32(n),
            "c_clusters": clusters.astype(np.float32).ravel()}


def _kmeans_ref(d, chunk=1 << 16):
    n = int(d["npoints"])
    f = d["features"].astype(np.float64).reshape(KM_D, n)
    c = d["c_clusters"].astype(np.float64).reshape(KM_K, KM_D)
    out = np.empty(n)
    for s in range(0, n, chunk):
        p = f[:, s:s + chunk].T
        dist = ((p[:, None, :] - c[None, :, :]) ** 2).sum(axis=2)
        out[s:s + chunk] = dist.argmin(axis=1)  # the first of equal minima, as the kernel's strict <
    return out


def _mandel_inputs(n, rng):
    cr0, ci0, cr1, ci1 = MANDEL_VIEW
    return {"dwells": np.full(n * n, -1, np.int32), "w": np.int32(n), "h": np.int32(n), "cmin_re": np.float32(cr0),
            "cmin_im": np.float32(ci0), "cmax_re": np.float32(cr1), "cmax_im": np.float32(ci1)}


def _mandel_ref(d, max_dwell=256):
    """The kernel's iteration in float32, rounding for rounding as NVRTC compiles it (escape counts
    near the set's boundary depend on every rounding, so float64 would not do): the pixel's c by
    an FMA, z^2 from two rounded squares, the imaginary part by an FMA."""
    w, h = int(d["w"]), int(d["h"])
    f32 = np.float32
    fx = np.arange(w, dtype=f32) / f32(w)
    fy = np.arange(h, dtype=f32) / f32(h)
    c_re = _fma32(fx, np.full(w, f32(d["cmax_re"]) - f32(d["cmin_re"]), f32), np.full(w, f32(d["cmin_re"]), f32))
    c_im = _fma32(fy, np.full(h, f32(d["cmax_im"]) - f32(d["cmin_im"]), f32), np.full(h, f32(d["cmin_im"]), f32))
    cr = np.broadcast_to(c_re[None, :], (h, w)).ravel()
    ci = np.broadcast_to(c_im[:, None], (h, w)).ravel()
    zr, zi = cr.copy(), ci.copy()
    live = np.arange(w * h)  # the pixels still iterating, their z, c kept compact
    dwell = np.zeros(w * h, np.int64)
    four = f32(4.0)
    for it in range(max_dwell + 1):
        a2, b2 = zr * zr, zi * zi  # float32 products, each rounded
        go = (a2 + b2) < four
        done = live[~go]
        dwell[done] = it
        if it == max_dwell:
            dwell[live[go]] = max_dwell
            break
        live, zr, zi, cr, ci, a2, b2 = (v[go] for v in (live, zr, zi, cr, ci, a2, b2))
        if not live.size:
            break
        t = cr + (a2 - b2)
        zi = _fma32(zr + zr, zi, ci)
        zr = t
    return dwell.astype(np.float64)


def _mc_inputs(n, rng):
    return {"hits": np.zeros(1, np.uint64), "samples": np.int32(_mc_samples(n)),
            "seed": np.uint32(rng.integers(0, 1 << 32))}


def _mc_ref(d, t=MC_THREADS):
    """The hits of every thread's generator, run in numpy (all threads at once, sample by sample);
    the points compared with the circle in float64 (the kernel's float32 test may differ on a point
    within ~1e-7 of the circle: tens in 1e9)."""
    samples = int(d["samples"])
    s = (np.uint32(d["seed"]) + np.arange(t, dtype=np.uint32)).astype(np.uint32)
    s = (s ^ np.uint32(61)) ^ (s >> np.uint32(16))
    s = s * np.uint32(9)
    s = s ^ (s >> np.uint32(4))
    s = s * np.uint32(0x27D4EB2D)
    s = s ^ (s >> np.uint32(15))
    hits = np.zeros(t, np.int64)
    scale = 2.0 ** -32

    def step(s):
        s ^= s << np.uint32(13)
        s ^= s >> np.uint32(17)
        s ^= s << np.uint32(5)
        return s

    for _ in range(samples):
        s = step(s)
        x = s.astype(np.float32).astype(np.float64) * scale
        s = step(s)
        y = s.astype(np.float32).astype(np.float64) * scale
        hits += (x * x + y * y <= 1.0)
    return np.array([float(hits.sum())])


def _compact_inputs(n, rng):
    return {"in": rng.standard_normal(n).astype(np.float32), "out": _nan(n), "count": np.zeros(1, np.uint32),
            "n": np.int32(n), "threshold": np.float32(COMPACT_THRESHOLD), "capacity": np.uint32(n)}


def _whist_ref(d):
    x = d["x"].astype(np.float64)
    lo, hi = float(d["minvalue"]), float(d["maxvalue"])
    keep = (x >= lo) & (x <= hi)
    b = np.minimum(np.floor((x[keep] - lo) * HIST_BINS / (hi - lo)).astype(np.int64), HIST_BINS - 1)
    return np.bincount(b, weights=d["w"].astype(np.float64)[keep], minlength=HIST_BINS)


def _ell_inputs(n, rng):  # ELL_K entries in every row, columns uniform random (repeats allowed), no padding
    return {"num_rows": np.int32(n), "num_cols_per_row": np.int32(ELL_K),
            "indices": rng.integers(0, n, ELL_K * n, dtype=np.int32), "data": _signed(rng, ELL_K * n, np.float32),
            "x": _signed(rng, n, np.float32), "y": _signed(rng, n, np.float32)}


def _ell_ref(d):
    n, k = int(d["num_rows"]), int(d["num_cols_per_row"])
    vals = d["data"].astype(np.float64).reshape(k, n)
    cols = d["indices"].reshape(k, n)
    return d["y"].astype(np.float64) + (vals * d["x"].astype(np.float64)[cols]).sum(axis=0)


def _gauss17():  # normalized Gaussian, sigma = radius / 3
    t = np.arange(-8, 9, dtype=np.float64)
    g = np.exp(-t * t / (2.0 * (8.0 / 3.0) ** 2))
    return (g / g.sum()).astype(np.float32)


def _grows_ref(d):
    w, h = int(d["imageW"]), int(d["imageH"])
    img = np.pad(d["d_Src"].astype(np.float64).reshape(h, w), ((0, 0), (8, 8)))
    k = d["c_Kernel"].astype(np.float64)
    return sum(k[8 - j] * img[:, 8 + j:8 + j + w] for j in range(-8, 9)).ravel()


def _dot_partials_ref(d):
    g = int(d["partial"].size)
    prod = d["a"] * d["b"]
    prod = np.concatenate([prod, np.zeros(-len(prod) % (g * 256))])
    return prod.reshape(-1, g * 256).sum(axis=0).reshape(g, 256).sum(axis=1)


# ---- the second held-out set --------------------------------------------------------------------
_B256 = lambda n: ((_blocks(n, 256), 1, 1), (256, 1, 1), 0)  # noqa: E731 - one thread per element


def _image_launch(w, h):  # 16x16 blocks over a w x h image
    return (_blocks(w, 16), _blocks(h, 16), 1), (16, 16, 1), 0


CORPUS: list[CorpusKernel] = [
    # an 8K UHD frame, 7680 x 4320: 3 bytes in and 1 out per pixel, 133 MB, >= 44 us at 3 TB/s
    entry("rgb_to_gray", "holdout2/rgb_to_gray.cu", "rgb_to_gray",
          "RGB to grayscale, uchar3 (3-byte) pixels, thread per pixel", 7680,
          lambda n, sms: _image_launch(*_image_shape(n)),
          lambda n, rng: {"rgb": rng.integers(0, 256, 3 * n * _image_shape(n)[1], dtype=np.uint8),
                          "gray": np.zeros(n * _image_shape(n)[1], np.uint8), "width": np.int32(n),
                          "height": np.int32(_image_shape(n)[1])},
          "gray", _gray_ref, lambda n: 5.0 * n * _image_shape(n)[1], lambda n: 4.0 * n * _image_shape(n)[1],
          rtol=0.004, inputs_desc="rgb: width x 9/16 width interleaved RGB, uniform random bytes; BT.601 weights; "
                                  "one grey level of tolerance (a float sum may truncate one level lower)"),
    # 8M particles: 24 bytes read and 12 written each, 302 MB, >= 100 us at 3 TB/s
    entry("aos_particles", "holdout2/aos_particles.cu", "aos_particles_step",
          "particle update on an array of 24-byte structs (AoS), in place", 1 << 23,
          lambda n, sms: _B256(n),
          lambda n, rng: {"p": np.concatenate([rng.uniform(-1.0, 1.0, (n, 3)), _signed(rng, (n, 3), np.float64)],
                                              axis=1).astype(np.float32).ravel(),
                          "n": np.int32(n), "dt": np.float32(0.01)},
          "p", _particles_ref, lambda n: 6.0 * n, lambda n: 36.0 * n, rtol=1e-6,
          inputs_desc="p: n structs {x, y, z uniform in [-1, 1); vx, vy, vz signed}; dt = 0.01; updated in place"),
    # 262144 lookups (batch 128 x 2048 tokens) of 1 KB rows from a 100k x 256 table (102 MB, twice the L2):
    # 268 MB written, ~93k distinct rows (95 MB) read, >= 120 us at 3 TB/s
    entry("embedding_lookup", "holdout2/embedding.cu", "embedding_forward",
          "embedding lookup (nn.Embedding forward), warp per 256-float row", 1 << 18,
          lambda n, sms: ((_blocks(n, 8), 1, 1), (32, 8, 1), 0),
          lambda n, rng: {"idx": rng.integers(0, _vocab(n), n, dtype=np.int64),
                          "weight": _signed(rng, _vocab(n) * EMB_DIM, np.float32), "out": _nan(n * EMB_DIM),
                          "num_indices": np.int32(n), "dim": np.int32(EMB_DIM)},
          "out", _embedding_ref, lambda n: 0.0,
          lambda n: 8.0 * n + 4.0 * EMB_DIM * (n + _distinct_rows(n)), rtol=0.0,
          inputs_desc="weight: 100k x 256 signed (4n rows below n = 25000); idx: int64 uniform random rows; "
                      "bytes count each distinct row read once (expected number)"),
    # 4K UHD (3840 x 2160) up to 8K (7680 x 4320): 33 MB read, 133 MB written, >= 55 us at 3 TB/s
    entry("bilinear_resize", "holdout2/bilinear.cu", "bilinear_resize",
          "2x bilinear upscale, thread per output pixel, clamped edges (PyTorch)", 3840,
          lambda n, sms: _image_launch(2 * n, 2 * _image_shape(n)[1]),
          lambda n, rng: {"in": _positive(rng, n * _image_shape(n)[1], np.float32),
                          "out": _nan(4 * n * _image_shape(n)[1]), "in_w": np.int32(n),
                          "in_h": np.int32(_image_shape(n)[1]), "out_w": np.int32(2 * n),
                          "out_h": np.int32(2 * _image_shape(n)[1])},
          "out", _bilinear_ref, lambda n: 21.0 * 4 * n * _image_shape(n)[1], lambda n: 20.0 * n * _image_shape(n)[1],
          rtol=1e-6, inputs_desc="in: width x 9/16 width, [0.5, 1.5); out twice as wide and high; "
                                 "align_corners=False"),
    # a 16384 x 8192 board, a byte in and out per cell: 268 MB, >= 90 us at 3 TB/s
    entry("game_of_life", "holdout2/game_of_life.cu", "game_of_life_step",
          "Conway's Game of Life step, byte cells, wrap-around, global memory", 16384,
          lambda n, sms: _image_launch(n, n // 2),
          lambda n, rng: {"in": (rng.random(n * (n // 2)) < 0.3).astype(np.uint8),
                          "out": np.full(n * (n // 2), 255, np.uint8), "width": np.int32(n),
                          "height": np.int32(n // 2)},
          "out", _life_ref, lambda n: 0.0, lambda n: 2.0 * n * (n // 2), rtol=0.0,
          inputs_desc="in: n x n/2 cells, each alive with probability 0.3; out poisoned with 255"),
    # an 8K UHD frame, 7680 x 4320, a float in and out per pixel: 265 MB, >= 88 us at 3 TB/s
    entry("conv2d_naive_3x3", "holdout2/conv2d_naive.cu", "conv2d_naive_3x3",
          "2D convolution 3x3, global memory only, filter as a pointer argument", 7680,
          lambda n, sms: _image_launch(*_image_shape(n)),
          lambda n, rng: {"in": _positive(rng, n * _image_shape(n)[1], np.float32),
                          "filter": _signed(rng, 9, np.float32), "out": _nan(n * _image_shape(n)[1]),
                          "width": np.int32(n), "height": np.int32(_image_shape(n)[1])},
          "out", _conv3_ref, lambda n: 18.0 * n * _image_shape(n)[1], lambda n: 8.0 * n * _image_shape(n)[1] + 36.0,
          rtol=1e-5, inputs_desc="in: width x 9/16 width, [0.5, 1.5); filter: 3x3 signed; zero padding"),
    # 4096 x 4096 distances: 67 MB read and written, 134 MB, >= 45 us at 3 TB/s (the matrix is larger than the L2)
    entry("floyd_warshall_step", "holdout2/floyd_warshall.cu", "floyd_warshall_step",
          "Floyd-Warshall relaxation for one k, 2D grid, in place", 4096,
          lambda n, sms: _image_launch(n, n), _fw_inputs, "D", _fw_ref,
          lambda n: float(n * n), lambda n: 8.0 * n * n, rtol=0.0,
          inputs_desc="D: n x n, complete digraph, integer weights uniform in 1..100 (as floats), 0 diagonal; "
                      "k = n / 2; updated in place"),
    # 4M points of 8 features: 151 MB, >= 50 us at 3 TB/s; 3.2 GFLOP, >= 54 us at 60 TFLOP/s
    entry("kmeans_assign", "holdout2/kmeans.cu", "kmeans_assign",
          "k-means assignment, 32 centroids in __constant__, feature-major points", 1 << 22,
          lambda n, sms: _B256(n), _kmeans_inputs, "membership", _kmeans_ref,
          lambda n: 3.0 * KM_K * KM_D * n, lambda n: (4.0 * KM_D + 4.0) * n + 4.0 * KM_K * KM_D, rtol=0.0,
          constants=("c_clusters",),
          inputs_desc="points: n from 32 Gaussians (sd 1) centred uniformly in [-10, 10]^8, stored feature-major; "
                      "c_clusters: the centres moved by N(0, 0.1), in __constant__; membership poisoned with -1"),
    # 4096 x 4096 pixels of the blog's view [-1.5, 0.5] x [-1, 1]: mean dwell 103 (38% of the pixels run all 256),
    # 17.5 GFLOP at 10 an iteration, >= 290 us at 60 TFLOP/s, warps as long as their slowest pixel
    entry("mandelbrot", "holdout2/mandelbrot.cu", "mandelbrot_dwell",
          "Mandelbrot escape time, float, max 256 iterations, divergent", 4096,
          lambda n, sms: _image_launch(n, n), _mandel_inputs, "dwells", _mandel_ref,
          lambda n: (11.0 + 10.0 * MANDEL_MEAN_DWELL) * n * n, lambda n: 4.0 * n * n, rtol=0.0,
          inputs_desc="no random input: an n x n grid over [-1.5, 0.5] x [-1, 1]; dwells poisoned with -1; "
                      "the reference iterates in float32 as the compiled kernel does"),
    # 2^30 samples: 1024 blocks of 256 threads, 4096 samples each, ~30 integer and float
    # instructions a sample (two xorshift32 steps, two conversions): >= 0.5 ms of issue on 132 SMs
    entry("monte_carlo_pi", "holdout2/monte_carlo_pi.cu", "monte_carlo_pi",
          "Monte Carlo pi, xorshift32 per thread, shared tree + atomicAdd per block", 1 << 30,
          lambda n, sms: ((MC_THREADS // 256, 1, 1), (256, 1, 1), 0), _mc_inputs, "hits", _mc_ref,
          lambda n: 5.0 * MC_THREADS * _mc_samples(n), lambda n: 8.0, rtol=1e-6,
          inputs_desc="no input data: a random seed; 2^18 threads of n / 2^18 samples; hits zeroed; "
                      "a tolerance of 1e-6 for points within float rounding of the circle"),
    # 2^26 standard-normal floats: 268 MB read, 2.3% kept (1.5M atomics on one counter, 6 MB written), >= 90 us
    entry("stream_compact_atomic", "holdout2/stream_compact.cu", "stream_compact_atomic",
          "stream compaction, one global atomicAdd per kept element", 1 << 26,
          lambda n, sms: _B256(n), _compact_inputs, "count",
          lambda d: np.array([float((d["in"] > d["threshold"]).sum())]),
          lambda n: 0.0, lambda n: 4.0 * n + 4.0 * COMPACT_KEEP * n + 4.0, rtol=0.0,
          inputs_desc="in: standard normal; threshold 2 (2.3% kept); capacity n; count zeroed; the count is "
                      "verified (the kept elements' order is the atomics'; tests check them as a multiset)"),
    # 2^24 values and weights: 134 MB read, 16.8M float atomics on 1024 bins (16k each)
    entry("weighted_histogram_float", "holdout2/weighted_histogram.cu", "weighted_histogram",
          "weighted 1024-bin histogram, one global atomicAdd(float) per element", 1 << 24,
          lambda n, sms: _B256(n),
          lambda n, rng: {"x": rng.random(n, dtype=np.float32), "w": _positive(rng, n, np.float32),
                          "hist": np.zeros(HIST_BINS, np.float32), "n": np.int32(n), "minvalue": np.float32(0.0),
                          "maxvalue": np.float32(1.0)},
          "hist", _whist_ref, lambda n: 5.0 * n, lambda n: 8.0 * n + 4.0 * HIST_BINS, rtol=1e-4,
          inputs_desc="x: uniform [0, 1); w: [0.5, 1.5); range [0, 1]; hist zeroed"),
    # 2^20 rows x 32 entries: 268 MB of values and indices, x and y 12 MB, >= 93 us at 3 TB/s
    entry("ell_spmv", "holdout2/ell_spmv.cu", "spmv_ell",
          "SpMV, ELLPACK column-major (Bell & Garland), thread per row", 1 << 20,
          lambda n, sms: _B256(n), _ell_inputs, "y", _ell_ref,
          lambda n: (2.0 * ELL_K + 1.0) * n, lambda n: 8.0 * ELL_K * n + 12.0 * n, rtol=1e-5,
          inputs_desc="n x n, 32 entries per row, columns uniform random (repeats allowed), no padding; "
                      "data, x, y: signed; y += A x"),
    # 2^26 words: 268 MB, >= 90 us at 3 TB/s; 8 blocks of 256 per SM, the whole chip resident
    entry("popcount_reduce", "holdout2/popcount.cu", "popcount_reduce",
          "bit count, __popc, grid stride, warp shuffle + atomicAdd per warp", 1 << 26,
          lambda n, sms: ((min(8 * sms, _blocks(n, 256)), 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"in": rng.integers(0, 1 << 32, n, dtype=np.uint32), "total": np.zeros(1, np.uint64),
                          "n": np.int32(n)},
          "total", lambda d: np.array([float(np.bitwise_count(d["in"]).sum(dtype=np.int64))]),
          lambda n: 0.0, lambda n: 4.0 * n + 8.0, rtol=0.0,
          inputs_desc="in: uniform random 32-bit words (16 bits set on average); total zeroed"),
    # an 8K UHD frame, 7680 x 4320, a float in and out per pixel: 265 MB, >= 88 us at 3 TB/s
    entry("gaussian_blur_rows", "holdout2/gaussian_rows.cu", "gaussian_blur_rows",
          "separable Gaussian row pass, radius 8, shared tile + halo (CUDA samples)", 7680,
          lambda n, sms: ((n // 128, _image_shape(n)[1] // 4, 1), (16, 4, 1), 0),
          lambda n, rng: {"d_Dst": _nan(n * _image_shape(n)[1]), "d_Src": _positive(rng, n * _image_shape(n)[1],
                                                                                    np.float32),
                          "imageW": np.int32(n), "imageH": np.int32(_image_shape(n)[1]), "pitch": np.int32(n),
                          "c_Kernel": _gauss17()},
          "d_Dst", _grows_ref, lambda n: 34.0 * n * _image_shape(n)[1], lambda n: 8.0 * n * _image_shape(n)[1] + 68.0,
          rtol=1e-5, constants=("c_Kernel",),
          inputs_desc="d_Src: width x 9/16 width, [0.5, 1.5), width a multiple of 128; c_Kernel: normalized "
                      "17-tap Gaussian (sigma 8/3) in __constant__; zero outside the image"),
    # 2^25 doubles each: 537 MB, >= 180 us at 3 TB/s
    entry("dot_double_shared", "holdout2/dot_double.cu", "dot_double_partials",
          "dot product of doubles, shared tree per block, partials out (CUDA by Example)", 1 << 25,
          lambda n, sms: ((_dot_blocks(n), 1, 1), (256, 1, 1), 0),
          lambda n, rng: {"a": _signed(rng, n, np.float64), "b": _signed(rng, n, np.float64),
                          "partial": np.full(_dot_blocks(n), np.nan), "n": np.int32(n)},
          "partial", _dot_partials_ref, lambda n: 2.0 * n, lambda n: 16.0 * n + 8.0 * _dot_blocks(n), rtol=1e-9,
          inputs_desc="a, b: signed doubles; 1024 blocks (fewer below 2^18 elements), one partial each"),
]

BY_NAME, get = index(CORPUS)

if __name__ == "__main__":
    from cudasim.console import run

    from ..manifest import main
    run(main, CORPUS)
