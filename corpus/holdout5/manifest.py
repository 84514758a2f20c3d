"""The fifth held-out set: sixteen more common CUDA patterns that neither the catalog, the corpus
nor the first four held-out sets have, written as their authors write them (textbooks, CUDA
samples, papers, framework and library code) and kept away from the model developers, so that the
timing model can be tested out of sample once more. Five of them lean on global atomics, each in
its own way (a hot table, warp-aggregated runs, min/max on float bits, scattered words, eight
neighbouring cells per thread).

The same shape as corpus.manifest (CORPUS, BY_NAME, get, SMS; every entry a CorpusKernel made
by corpus.manifest.entry, sources under corpus/holdout5/): each kernel with its launch, seeded
inputs, float64 numpy reference, FLOPs and compulsory bytes (each input element read once, each
output element written once). FLOPs count floating-point +, -, *, / and each math intrinsic as
one, as the source writes them (a float atomicAdd as one +); integer and comparison work counts
zero. Every size is chosen for about 50 us - 3 ms on an H100 (~3 TB/s, ~60 TFLOP/s FP32,
~30 TFLOP/s FP64) and stated with its reason beside the entry. Kernels that accumulate with
atomics get their output zeroed; corpus.measure verifies the first launch and times the later
ones on the same buffers (the atomics then add to what is there, doing the same work).

    python -m corpus.holdout5.manifest       # the table: pattern, launch, bytes, FLOPs
"""
from __future__ import annotations

import numpy as np

from kernels.catalog import _positive, _signed

from ..manifest import SMS, CorpusKernel, _blocks, _nan, entry, index

__all__ = ["CORPUS", "BY_NAME", "get", "SMS", "CorpusKernel"]


# ---- shapes: each kernel's one size parameter n and what it implies ------------------------------
KM_DIMS, KM_CLUSTERS = 16, 64  # 16 features, k = 64
SEG_LOG_MEAN, SEG_LOG_SD = 2.5, 1.0  # segment lengths 1 + floor(lognormal): mean ~21, a long tail
# the warp scan's executed float adds per entry (the conditional val += tmp over the 5 steps) and the
# atomicAdds per entry (one per run end in a warp), at the default size (_segment_counts, seed 0)
SEG_SCAN_ADDS, SEG_ATOMICS = 3.199, 0.0783
SEG_MEAN_LEN = 20.59  # entries per segment at the default size (1.63M segments)
SPMVT_NNZ_PER_ROW = 32  # on average (Poisson)
PIC_SIDE = 128  # a 128^3 periodic grid (8 MB of density); 8^3 below 2^20 particles


def _pic_side(n):
    return PIC_SIDE if n >= 1 << 20 else 8


FD_RADIUS = 4
FD_COEFF = (3 * -205.0 / 72, 8.0 / 5, -1.0 / 5, 8.0 / 315, -1.0 / 560)  # 8th-order Laplacian (unit spacing)
LUD_BLOCK = 16
POTRF_N, POTRF_NTCOL = 32, 4


def _potrf_flops_per_matrix():
    """Per matrix as the lanes execute it: 32 sqrt per step (every lane), the divisions below the
    pivot, and a multiply-subtract per trailing element and step."""
    n = POTRF_N
    sqrts = n * n
    divs = n * (n - 1) // 2
    updates = sum((n - j) for k in range(n) for j in range(k + 1, n))
    return sqrts + divs + 2 * updates


TOPK_K, TOPK_COLS = 8, 32000  # top-8 over Llama's 32000-token vocabulary
SW_QLEN, SW_LEN = 32, 256  # a 32-base query against database sequences of 256
SW_SCORES = dict(match=2, mismatch=3, gap_open=5, gap_extend=2)  # BLASTN's
DW_CHANNELS, DW_HW = 144, 56  # MobileNetV2's 56 x 56 depthwise layer with 144 (expanded) channels
KV_HEADS, KV_HEAD_SIZE, KV_BLOCK, KV_X, KV_SEQ = 32, 128, 16, 8, 512  # Llama-2-7B; 16-token blocks
Q4_COLS = 8192  # Llama-2-70B's hidden size (the FFN up projection is 28672 x 8192)
Q4_QK = 32
SPMM_FEAT, SPMM_DEG = 64, 16
LJ_RHO, LJ_RCUT, LJ_SKIN, LJ_JITTER = 0.8442, 2.5, 0.4, 0.02  # the classic LJ liquid density; jitter in lattice units


def _lj_offsets():
    """Lattice offsets within r_cut + skin of a simple cubic lattice at density 0.8442 (squared
    lattice distances 1-6: 80 neighbours; the 56 with squared distance <= 5 lie inside r_cut, the 24
    at 6 outside, by more than the jitter can close)."""
    a = LJ_RHO ** (-1.0 / 3)
    r = np.arange(-3, 4)
    o = np.stack(np.meshgrid(r, r, r, indexing="ij"), axis=-1).reshape(-1, 3)
    d2 = (o * o).sum(axis=1)
    keep = (d2 > 0) & (d2 * a * a < (LJ_RCUT + LJ_SKIN) ** 2)
    return o[keep]


LJ_NEIGH = 80
LJ_INSIDE = 56


# ---- inputs and references ----------------------------------------------------------------------
def _B(n, b):  # one thread per item, b-thread blocks
    return (_blocks(n, b), 1, 1), (b, 1, 1), 0


def _kmeans_inputs(n, rng):
    """Points around 64 centres uniform in [-10, 10)^16 (N(0, 1) spread), each labelled with its
    own centre (the assignment step's answer)."""
    centres = rng.uniform(-10.0, 10.0, (KM_CLUSTERS, KM_DIMS))
    assign = rng.integers(0, KM_CLUSTERS, n).astype(np.int32)
    points = (centres[assign] + rng.standard_normal((n, KM_DIMS))).astype(np.float32)
    return {"points": points.ravel(), "assignments": assign, "sums": np.zeros(KM_CLUSTERS * KM_DIMS, np.float32),
            "counts": np.zeros(KM_CLUSTERS, np.int32), "n": np.int32(n), "dims": np.int32(KM_DIMS)}


def _kmeans_ref(d):
    dims = int(d["dims"])
    pts = d["points"].reshape(-1, dims).astype(np.float64)
    a = d["assignments"]
    k = len(d["sums"]) // dims
    out = np.stack([np.bincount(a, weights=pts[:, j], minlength=k) for j in range(dims)], axis=1)
    return d["sums"].astype(np.float64) + out.ravel()


def _segment_index(n, rng):
    lengths = 1 + np.floor(rng.lognormal(SEG_LOG_MEAN, SEG_LOG_SD, n // 8 + 64)).astype(np.int64)
    while lengths.sum() < n:
        lengths = np.concatenate([lengths, 1 + np.floor(rng.lognormal(SEG_LOG_MEAN, SEG_LOG_SD, n // 8 + 64))
                                  .astype(np.int64)])
    segs = int(np.searchsorted(np.cumsum(lengths), n)) + 1  # the segments that reach into the n entries
    return np.repeat(np.arange(segs, dtype=np.int64), lengths[:segs])[:n], segs


def _segment_inputs(n, rng):
    index, segs = _segment_index(n, rng)
    return {"src_data": _signed(rng, n, np.float32), "index_data": index, "out_data": np.zeros(segs, np.float32),
            "D": np.int32(n), "E": np.uint64(n), "N": np.uint64(segs)}


def _segment_ref(d):
    return d["out_data"].astype(np.float64) + np.bincount(d["index_data"], weights=d["src_data"].astype(np.float64),
                                                          minlength=len(d["out_data"]))


def _segment_counts(index):
    """(scan adds, atomics) per entry that the kernel executes on this sorted index (n a multiple of
    32): a lane adds at step i when the lane i below has its index; a run's last lane in the warp
    does the atomicAdd."""
    w = index.reshape(-1, 32)
    lane = np.arange(32)
    adds = sum(((lane >= i) & (w == np.roll(w, i, axis=1))).sum() for i in (1, 2, 4, 8, 16))
    ends = ((lane == 31) | (w != np.roll(w, -1, axis=1))).sum()
    return adds / index.size, ends / index.size


def _aabb_inputs(n, rng):
    """A LiDAR sweep's extent: x, y uniform in [-80, 80) m, z in [-3, 5) m, float3s."""
    pts = np.empty((n, 3), np.float32)
    pts[:, :2] = rng.uniform(-80.0, 80.0, (n, 2))
    pts[:, 2] = rng.uniform(-3.0, 5.0, n)
    inf = np.float32(np.inf)
    return {"points": pts.ravel(), "bbox": np.array([inf, inf, inf, -inf, -inf, -inf], np.float32),
            "n": np.int32(n)}


def _aabb_ref(d):
    p = d["points"].reshape(-1, 3).astype(np.float64)
    b = d["bbox"].astype(np.float64)
    return np.concatenate([np.minimum(b[:3], p.min(axis=0)), np.maximum(b[3:], p.max(axis=0))])


def _csr(n, ncols, lengths, rng):
    """CSR structure: the given row lengths, uniform random columns, sorted within each row."""
    row_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(lengths, out=row_ptr[1:])
    rows = np.repeat(np.arange(n, dtype=np.int64), lengths)
    cols = np.sort(rows * ncols + rng.integers(0, ncols, len(rows))) - rows * ncols
    return row_ptr.astype(np.int32), cols.astype(np.int32), rows


def _spmvt_inputs(n, rng):
    row_ptr, cols, _ = _csr(n, n, rng.poisson(SPMVT_NNZ_PER_ROW, n), rng)
    return {"num_rows": np.int32(n), "row_ptr": row_ptr, "col_idx": cols,
            "values": _signed(rng, len(cols), np.float32), "x": _signed(rng, n, np.float32),
            "y": np.zeros(n, np.float32)}


def _spmvt_ref(d):
    rows = np.repeat(np.arange(int(d["num_rows"])), np.diff(d["row_ptr"]))
    prod = d["values"].astype(np.float64) * d["x"].astype(np.float64)[rows]
    return d["y"].astype(np.float64) + np.bincount(d["col_idx"], weights=prod, minlength=len(d["y"]))


def _pic_inputs(n, rng):
    """Particles uniform in the unit box (cell size 1 / side: the cell coordinates are exact in
    float32), weights in [0.5, 1.5)."""
    side = _pic_side(n)
    parts = np.empty((n, 4), np.float32)
    parts[:, :3] = rng.random((n, 3), dtype=np.float32)  # below 1 in float32 (a float64 draw may round to 1)
    parts[:, 3] = _positive(rng, n, np.float32)
    i32 = np.int32
    return {"particles": parts.ravel(), "rho": np.zeros(side ** 3, np.float32), "num_particles": i32(n),
            "nx": i32(side), "ny": i32(side), "nz": i32(side), "inv_dx": np.float32(side)}


def _pic_ref(d):
    side = int(d["nx"])
    p = d["particles"].reshape(-1, 4)
    g = p[:, :3] * d["inv_dx"]  # float32, as the kernel
    cell = np.floor(g).astype(np.int64)
    frac = (g - cell.astype(np.float32)).astype(np.float64)
    q = p[:, 3].astype(np.float64)
    rho = d["rho"].astype(np.float64).copy()
    for dz in (0, 1):
        wz = frac[:, 2] if dz else 1.0 - frac[:, 2]
        for dy in (0, 1):
            wy = frac[:, 1] if dy else 1.0 - frac[:, 1]
            for dx in (0, 1):
                wx = frac[:, 0] if dx else 1.0 - frac[:, 0]
                i, j, k = ((cell[:, a] + o) % side for a, o in ((0, dx), (1, dy), (2, dz)))
                rho += np.bincount((k * side + j) * side + i, weights=q * wx * wy * wz, minlength=len(rho))
    return rho


def _fd_inputs(n, rng):
    dim = n + 2 * FD_RADIUS
    return {"g_output": np.zeros(dim ** 3, np.float32), "g_input": _signed(rng, dim ** 3, np.float32),
            "dimx": np.int32(dim), "dimy": np.int32(dim), "dimz": np.int32(dim),
            "c_coeff": np.array(FD_COEFF, np.float32)}


def _fd_ref(d):
    dim, r = int(d["dimx"]), FD_RADIUS
    a = d["g_input"].reshape(dim, dim, dim)  # (z, y, x)
    c = d["c_coeff"].astype(np.float64)
    out = d["g_output"].astype(np.float64).reshape(dim, dim, dim).copy()
    inner = slice(r, dim - r)
    for z in range(r, dim - r):  # a plane at a time
        s = c[0] * a[z, inner, inner].astype(np.float64)
        for k in range(1, r + 1):
            s += c[k] * (a[z + k, inner, inner].astype(np.float64) + a[z - k, inner, inner]
                         + a[z, r + k:dim - r + k, inner] + a[z, r - k:dim - r - k, inner]
                         + a[z, inner, r + k:dim - r + k] + a[z, inner, r - k:dim - r - k])
        out[z, inner, inner] = s
    return out.ravel()


def _lud_ref(d):
    n, off, b = int(d["matrix_dim"]), int(d["offset"]), LUD_BLOCK
    m = d["m"].astype(np.float64).reshape(n, n).copy()
    t = off + b
    m[t:, t:] -= m[t:, off:t] @ m[off:t, t:]
    return m.ravel()


def _potrf_inputs(n, rng):
    """n SPD matrices G G^T / 32 + I/2, G signed, stored column-major (symmetric: the same)."""
    g = _signed(rng, (n, POTRF_N, POTRF_N), np.float64)
    a = np.einsum("bik,bjk->bij", g, g) / POTRF_N + 0.5 * np.eye(POTRF_N)
    return {"dA_array": a.ravel(), "dL_array": _nan(a.size, np.float64), "batch": np.int32(n)}


def _potrf_ref(d):
    a = d["dA_array"].reshape(-1, POTRF_N, POTRF_N).transpose(0, 2, 1)  # [b, row, col]
    low = np.linalg.cholesky(a)
    lower = np.tril(np.ones((POTRF_N, POTRF_N), bool))
    return np.where(lower, low, a).transpose(0, 2, 1).ravel()  # back to column-major


def _jacobi9_inputs(n, rng):
    u = _signed(rng, (n, n), np.float64)
    u[0, :], u[-1, :], u[:, 0], u[:, -1] = 0.0, 0.0, 0.0, 0.0
    return {"u": u.ravel(), "f": (_signed(rng, n * n, np.float64) * (n - 1) ** 2), "unew": np.zeros(n * n),
            "nx": np.int32(n), "ny": np.int32(n), "h2": np.float64(1.0 / (n - 1) ** 2)}


def _jacobi9_ref(d):
    nx, ny = int(d["nx"]), int(d["ny"])
    u, f = d["u"].reshape(ny, nx), d["f"].reshape(ny, nx)
    out = d["unew"].reshape(ny, nx).copy()
    c = (slice(1, -1), slice(1, -1))
    out[c] = (4.0 * (u[1:-1, :-2] + u[1:-1, 2:] + u[:-2, 1:-1] + u[2:, 1:-1])
              + u[:-2, :-2] + u[:-2, 2:] + u[2:, :-2] + u[2:, 2:] + 6.0 * float(d["h2"]) * f[c]) / 20.0
    return out.ravel()


def _topk_inputs(n, rng):
    return {"x": (2.0 * rng.standard_normal(n * TOPK_COLS, dtype=np.float32)), "vals": _nan(n * TOPK_K),
            "idx": np.full(n * TOPK_K, -1, np.int32), "rows": np.int32(n), "cols": np.int32(TOPK_COLS)}


def _topk_ref(d):
    cols = int(d["cols"])
    x = d["x"].reshape(-1, cols)
    out = np.empty((len(x), TOPK_K))
    for s in range(0, len(x), 512):  # in row chunks
        part = -np.partition(-x[s:s + 512], TOPK_K - 1, axis=1)[:, :TOPK_K]
        out[s:s + 512] = -np.sort(-part, axis=1)
    return out.ravel()


def _sw_inputs(n, rng):
    """n random sequences of 256 bases (0-3), stored interleaved; a tenth carry a copy of the query
    with a tenth of its bases changed at a random place, so some scores are high."""
    query = rng.integers(0, 4, SW_QLEN, dtype=np.uint8)
    seqs = rng.integers(0, 4, (n, SW_LEN), dtype=np.uint8)
    hits = np.flatnonzero(rng.random(n) < 0.1)
    for s in hits:
        copy = query.copy()
        mut = rng.random(SW_QLEN) < 0.1
        copy[mut] = rng.integers(0, 4, int(mut.sum()), dtype=np.uint8)
        at = rng.integers(0, SW_LEN - SW_QLEN + 1)
        seqs[s, at:at + SW_QLEN] = copy
    i32 = np.int32
    return {"db": np.ascontiguousarray(seqs.T).ravel(), "scores": np.full(n, -1, np.int32), "num_seqs": i32(n),
            "seq_len": i32(SW_LEN), **{k: i32(v) for k, v in SW_SCORES.items()}, "c_query": query}


def _sw_ref(d):
    n, length = int(d["num_seqs"]), int(d["seq_len"])
    db = d["db"].reshape(length, n)
    q = d["c_query"]
    ma, mm, go, ge = (int(d[k]) for k in ("match", "mismatch", "gap_open", "gap_extend"))
    H = np.zeros((len(q), n), np.int64)
    E = np.zeros((len(q), n), np.int64)
    best = np.zeros(n, np.int64)
    for j in range(length):
        b = db[j]
        diag = np.zeros(n, np.int64)
        up = np.zeros(n, np.int64)
        F = np.zeros(n, np.int64)
        for i in range(len(q)):
            e = np.maximum(E[i] - ge, H[i] - go)
            F = np.maximum(F - ge, up - go)
            h = np.maximum(np.maximum(diag + np.where(b == q[i], ma, -mm), 0), np.maximum(e, F))
            diag = H[i].copy()
            H[i], E[i] = h, e
            up = h
            np.maximum(best, h, out=best)
    return best.astype(np.float64)


def _dw_inputs(n, rng):
    c, hw = DW_CHANNELS, DW_HW
    total = n * c * hw * hw
    i32 = np.int32
    return {"input": _signed(rng, total, np.float32), "output": _nan(total), "weight": _signed(rng, c * 9, np.float32),
            "bias": (0.1 * _signed(rng, c, np.float64)).astype(np.float32), "totalElements": i32(total),
            "outputChannels": i32(c), "depthwiseMultiplier": i32(1), "inputWidth": i32(hw), "inputHeight": i32(hw),
            "outputWidth": i32(hw), "outputHeight": i32(hw), "strideWidth": i32(1), "strideHeight": i32(1),
            "padWidth": i32(1), "padHeight": i32(1), "dilationWidth": i32(1), "dilationHeight": i32(1)}


def _dw_ref(d):
    c, hw = int(d["outputChannels"]), int(d["inputWidth"])
    x = d["input"].reshape(-1, c, hw, hw)
    w = d["weight"].astype(np.float64).reshape(c, 3, 3)
    out = np.empty(x.shape)
    for s in range(len(x)):  # an image at a time
        p = np.pad(x[s].astype(np.float64), ((0, 0), (1, 1), (1, 1)))
        acc = np.broadcast_to(d["bias"].astype(np.float64)[:, None, None], (c, hw, hw)).copy()
        for kh in range(3):
            for kw in range(3):
                acc += w[:, kh, kw, None, None] * p[:, kh:kh + hw, kw:kw + hw]
        out[s] = acc
    return out.ravel()


def _dw_flops(n):
    hw = DW_HW
    valid = (hw + 2 * (hw - 1)) ** 2  # taps inside the image per output plane (3 x 3, padding 1)
    return 2.0 * valid * n * DW_CHANNELS


def _kv_inputs(n, rng):
    """n new tokens of sequences of 512, each sequence's 16-token blocks at random places in a cache
    of twice the blocks the tokens need (the rest untouched); fp16 bit patterns of N(0, 1) values."""
    dim = KV_HEADS * KV_HEAD_SIZE
    blocks = _blocks(n, KV_BLOCK)
    table = rng.permutation(2 * blocks)[:blocks]  # the block each 16-token chunk gets
    t = np.arange(n)
    slots = table[t // KV_BLOCK] * KV_BLOCK + t % KV_BLOCK
    half = lambda size: rng.standard_normal(size, dtype=np.float32).astype(np.float16).view(np.uint16)  # noqa: E731
    i32 = np.int32
    return {"key": half(n * dim), "value": half(n * dim),
            "key_cache": np.zeros(2 * blocks * KV_BLOCK * dim, np.uint16),
            "value_cache": np.zeros(2 * blocks * KV_BLOCK * dim, np.uint16),
            "slot_mapping": slots.astype(np.int64), "key_stride": i32(dim), "value_stride": i32(dim),
            "num_heads": i32(KV_HEADS), "head_size": i32(KV_HEAD_SIZE), "block_size": i32(KV_BLOCK), "x": i32(KV_X)}


def _kv_value_ref(d):
    heads, hs, bs = int(d["num_heads"]), int(d["head_size"]), int(d["block_size"])
    cache = d["value_cache"].astype(np.float64).reshape(-1, heads, hs, bs).copy()
    slots = d["slot_mapping"]
    v = d["value"].reshape(len(slots), heads, hs)
    cache[slots // bs, :, :, slots % bs] = v
    return cache.ravel()


def _kv_key_ref(d):
    """The key cache (checked by the tests; the entry verifies the value cache)."""
    heads, hs, bs, x = int(d["num_heads"]), int(d["head_size"]), int(d["block_size"]), int(d["x"])
    cache = d["key_cache"].astype(np.float64).reshape(-1, heads, hs // x, bs, x).copy()
    slots = d["slot_mapping"]
    k = d["key"].reshape(len(slots), heads, hs // x, x)
    cache[slots // bs, :, :, slots % bs, :] = k
    return cache.ravel()


def _q4_inputs(n, rng):
    """n rows of 8192 Q4_0 weights: scales |N(0, 0.01^2)| in half, uniform random nibbles."""
    nblocks = n * Q4_COLS // Q4_QK
    raw = np.empty((nblocks, 18), np.uint8)
    raw[:, :2] = np.abs(0.01 * rng.standard_normal(nblocks)).astype(np.float16).view(np.uint8).reshape(-1, 2)
    raw[:, 2:] = rng.integers(0, 256, (nblocks, 16), dtype=np.uint8)
    return {"vx": raw.ravel(), "y": _signed(rng, Q4_COLS, np.float32), "dst": _nan(n), "ncols": np.int32(Q4_COLS),
            "nrows": np.int32(n)}


def _q4_ref(d):
    cols = int(d["ncols"])
    raw = d["vx"].reshape(-1, 18)
    y = d["y"].astype(np.float64).reshape(-1, Q4_QK)  # (block of the row, 32)
    per_row = cols // Q4_QK
    out = np.empty(int(d["nrows"]))
    for s in range(0, len(out), 1024):  # in row chunks
        b = raw[s * per_row:(s + 1024) * per_row]
        scale = b[:, :2].copy().view(np.float16).astype(np.float64)  # (blocks, 1)
        qs = b[:, 2:].astype(np.int64)
        w = np.concatenate([(qs & 0xF) - 8, (qs >> 4) - 8], axis=1) * scale  # element j: low nibble j, j+16: high
        out[s:s + 1024] = (w.reshape(-1, per_row, Q4_QK) * y[None]).sum(axis=(1, 2))
    return out


def _spmm_inputs(n, rng):
    row_ptr, cols, _ = _csr(n, n, rng.poisson(SPMM_DEG, n), rng)
    return {"m": np.int32(n), "rowptr": row_ptr, "colind": cols, "val": _signed(rng, len(cols), np.float32),
            "B": _signed(rng, n * SPMM_FEAT, np.float32), "C": _nan(n * SPMM_FEAT)}


def _spmm_ref(d):
    n = int(d["m"])
    rows = np.repeat(np.arange(n), np.diff(d["rowptr"]))
    B = d["B"].reshape(n, SPMM_FEAT)
    val = d["val"].astype(np.float64)
    out = np.empty((n, SPMM_FEAT))
    for f in range(SPMM_FEAT):  # a feature column at a time
        out[:, f] = np.bincount(rows, weights=val * B[d["colind"], f], minlength=n)
    return out.ravel()


def _lj_inputs(n, rng):
    """An n^3 simple cubic lattice at density 0.8442 in a periodic box centred on 0, each particle
    displaced by up to 0.02 spacings per axis; its 80 lattice neighbours within r_cut + skin = 2.9
    listed column-wise in a random order per particle; LJ with epsilon = sigma = 1 (lj1 = lj2 = 4)."""
    a = LJ_RHO ** (-1.0 / 3)
    side = n * a
    grid = np.stack(np.meshgrid(*(np.arange(n),) * 3, indexing="ij"), axis=-1).reshape(-1, 3)  # (x, y, z) per id
    N = len(grid)
    pos = np.zeros((N, 4), np.float32)
    pos[:, :3] = (grid + 0.5 + rng.uniform(-LJ_JITTER, LJ_JITTER, (N, 3))) * a - side / 2
    off = _lj_offsets()
    nb = (grid[:, None, :] + off[None, :, :]) % n
    ids = ((nb[..., 0] * n + nb[..., 1]) * n + nb[..., 2]).astype(np.uint32)  # (N, 80)
    order = np.argsort(rng.random(ids.shape), axis=1)
    ids = np.take_along_axis(ids, order, axis=1)
    f32 = np.float32
    return {"d_force": _nan(4 * N), "d_pos": pos.ravel(), "N": np.int32(N),
            "d_n_neigh": np.full(N, len(off), np.uint32), "d_nlist": np.ascontiguousarray(ids.T).ravel(),
            "pitch": np.int32(N), "L": f32(side), "Linv": f32(1.0 / f32(side)), "rcutsq": f32(LJ_RCUT ** 2),
            "lj1": f32(4.0), "lj2": f32(4.0)}


def _lj_ref(d):
    """The separations as the kernel rounds them (float32 difference; the image shift is exactly
    +-L or 0), the rest in float64."""
    N = int(d["N"])
    pos = d["d_pos"].reshape(N, 4)[:, :3]
    nl = d["d_nlist"].reshape(-1, int(d["pitch"]))
    L, Linv = d["L"], d["Linv"]
    lj1, lj2, rc2 = float(d["lj1"]), float(d["lj2"]), float(d["rcutsq"])
    force = np.zeros((N, 4))
    for j in range(int(d["d_n_neigh"].max())):
        dr = pos - pos[nl[j, :N]]  # float32
        dr = (dr - L * np.rint(dr * Linv)).astype(np.float64)
        rsq = (dr * dr).sum(axis=1)
        inside = rsq < rc2
        r2inv = np.where(inside, 1.0 / rsq, 0.0)
        r6inv = r2inv ** 3
        force[:, :3] += dr * (r2inv * r6inv * (12.0 * lj1 * r6inv - 6.0 * lj2))[:, None]
        force[:, 3] += r6inv * (lj1 * r6inv - lj2)
    force[:, 3] *= 0.5
    return force.ravel()


# ---- the fifth held-out set ---------------------------------------------------------------------
CORPUS: list[CorpusKernel] = [
    # 2^20 points x 16: 67 MB read, >= 22 us of traffic, but 16.8M float atomics on one 4 KB table (1024 words in
    # 32 L2 lines) the whole grid hits: contention-bound, hundreds of us
    entry("kmeans_centroid_accum", "holdout5/kmeans_accumulate.cu", "kmeans_accumulate",
          "k-means update: atomicAdd per (point, dim) into a hot sum table", 1 << 20,
          lambda n, sms: _B(n, 256), _kmeans_inputs, "sums", _kmeans_ref,
          lambda n: float(KM_DIMS * n), lambda n: 4.0 * KM_DIMS * n + 4.0 * n + 4.0 * KM_CLUSTERS * (KM_DIMS + 1),
          rtol=1e-4,
          inputs_desc="n points of 16 features around 64 centres uniform in [-10, 10) (N(0, 1) spread), each "
                      "labelled with its centre; sums and counts zeroed (the entry checks sums); ~16K float adds "
                      "per sum in whatever order the atomics take (tolerance 1e-4)"),
    # 2^25 entries: 403 MB of (value, int64 index), >= 135 us at 3 TB/s; 5 shuffle steps per entry and ~2.6M
    # atomics (a run's end in each warp) on the 1.6M segment sums
    entry("segment_coo_sum", "holdout5/segment_coo_sum.cu", "segment_coo_sum",
          "segment sum over a sorted index (torch_scatter), shfl_up + atomics", 1 << 25,
          lambda n, sms: _B(n, 256), _segment_inputs, "out_data", _segment_ref,
          lambda n: (SEG_SCAN_ADDS + SEG_ATOMICS) * n, lambda n: 12.0 * n + 4.0 * n / SEG_MEAN_LEN, rtol=1e-5,
          inputs_desc="src: signed; index: sorted int64, segment lengths 1 + floor(lognormal(2.5, 1)) (mean ~21, "
                      "up to hundreds), n a multiple of 32; out zeroed"),
    # 2^25 float3 points: 403 MB, >= 135 us at 3 TB/s; a one-wave grid (8 blocks of 256 per SM), then 6 atomics per
    # warp (50K on 6 words)
    entry("aabb_minmax_atomic", "holdout5/aabb_minmax.cu", "aabb_minmax",
          "bounding box: warp min/max + atomicMin/Max on float bits", 1 << 25,
          lambda n, sms: ((8 * sms, 1, 1), (256, 1, 1), 0), _aabb_inputs, "bbox", _aabb_ref,
          lambda n: 0.0, lambda n: 12.0 * n + 24.0, rtol=0.0,
          inputs_desc="n float3 points: x, y uniform in [-80, 80), z in [-3, 5) (both signs: both atomics); bbox "
                      "(+inf x 3, -inf x 3)"),
    # 2^20 rows, ~33.5M nonzeros: 272 MB of CSR, >= 90 us at 3 TB/s; 33.5M float atomics scattered over a 4 MB y
    # (in L2), 32 different words per warp instruction
    entry("spmv_transpose_atomic", "holdout5/spmv_csr_transpose.cu", "csrmv_trans_warp",
          "SpMV with A^T from CSR, warp per row, scattered atomicAdd to y[col]", 1 << 20,
          lambda n, sms: _B(32 * n, 256), _spmvt_inputs, "y", _spmvt_ref,
          lambda n: 2.0 * SPMVT_NNZ_PER_ROW * n, lambda n: 8.0 * SPMVT_NNZ_PER_ROW * n + 12.0 * n + 4.0, rtol=1e-5,
          inputs_desc="n x n, row lengths Poisson(32), columns uniform random (sorted in the row), values and x "
                      "signed; y zeroed"),
    # 2^23 particles on 128^3 cells: 134 MB of particles read, >= 45 us, and 67M float atomics into an 8 MB grid
    # (in L2), a thread's 8 on 4 pairs of neighbouring words: atomic-bound, ~0.5-1.5 ms
    entry("pic_deposit_cic3d", "holdout5/pic_deposit_cic.cu", "deposit_cic",
          "PIC cloud-in-cell deposit, 8 atomicAdds per particle on its corners", 1 << 23,
          lambda n, sms: _B(n, 256), _pic_inputs, "rho", _pic_ref,
          lambda n: 41.0 * n, lambda n: 16.0 * n + 4.0 * _pic_side(n) ** 3, rtol=1e-5,
          inputs_desc="n particles uniform in the unit box, weights [0.5, 1.5); a periodic 128^3 grid (8^3 below "
                      "2^20 particles), cell size 1/side; rho zeroed"),
    # a 520^3 volume (512^3 interior): 562 MB in, 537 MB out, >= 370 us at 3 TB/s; 29 FLOPs per point
    entry("fd3d_25pt_shared", "holdout5/fd3d_25pt.cu", "fwd_3D_16x16_order8",
          "3-D 25-point stencil, shared xy tile + z register queue", 512,
          lambda n, sms: ((n // 16, n // 16, 1), (16, 16, 1), 0), _fd_inputs, "g_output", _fd_ref,
          lambda n: 29.0 * n ** 3, lambda n: 4.0 * (n + 8) ** 3 + 4.0 * n ** 3 + 20.0, rtol=1e-5,
          constants=("c_coeff",),
          inputs_desc="n^3 interior (n a multiple of 16) in an (n + 8)^3 volume, signed; the 8th-order Laplacian's "
                      "5 coefficients in __constant__; output zeroed (its frame and end planes stay 0)"),
    # 8192 x 8192, the first step (offset 0): the 8176^2 trailing matrix read and written, 535 MB, >= 180 us;
    # 2.1 GFLOP of shared-memory multiply-adds
    entry("lud_internal", "holdout5/lud_internal.cu", "lud_internal",
          "LU trailing update (Rodinia lud_internal), 16x16 shared panel tiles", 8192,
          lambda n, sms: ((n // LUD_BLOCK - 1, n // LUD_BLOCK - 1, 1), (LUD_BLOCK, LUD_BLOCK, 1), 0),
          lambda n, rng: {"m": _signed(rng, n * n, np.float32), "matrix_dim": np.int32(n), "offset": np.int32(0)},
          "m", _lud_ref, lambda n: 2.0 * LUD_BLOCK * (n - LUD_BLOCK) ** 2,
          lambda n: 8.0 * (n - LUD_BLOCK) ** 2 + 8.0 * LUD_BLOCK * (n - LUD_BLOCK), rtol=1e-5,
          inputs_desc="m: n x n signed (n a multiple of 16), updated in place at offset 0"),
    # 65536 matrices of 32 x 32 doubles: 537 MB in, 537 MB out, >= 360 us at 3 TB/s; 12.4K FP64 operations per
    # matrix (815M), with a sqrt and divisions on the critical path and lanes idling above the diagonal
    entry("potrf_batched_f64", "holdout5/potrf_batched_f64.cu", "dpotrf_batched_smem",
          "batched 32x32 Cholesky, warp per matrix in shared memory, FP64", 1 << 16,
          lambda n, sms: ((_blocks(n, POTRF_NTCOL), 1, 1), (POTRF_N, POTRF_NTCOL, 1), 0), _potrf_inputs,
          "dL_array", _potrf_ref, lambda n: float(_potrf_flops_per_matrix() * n),
          lambda n: 16.0 * POTRF_N * POTRF_N * n, rtol=1e-10,
          inputs_desc="n SPD matrices G G^T / 32 + I/2 (G signed), column-major; the factor (lower) written to "
                      "dL with the upper triangle copied"),
    # 8192 x 8192 doubles: u, f read, unew written, 1.6 GB, >= 540 us at 3 TB/s; a double division per point
    entry("jacobi9_f64", "holdout5/jacobi9_f64.cu", "jacobi9_f64",
          "2-D 9-point (Mehrstellen) Jacobi sweep, FP64, global-memory reads", 8192,
          lambda n, sms: ((_blocks(n, 16), _blocks(n, 16), 1), (16, 16, 1), 0), _jacobi9_inputs, "unew",
          _jacobi9_ref, lambda n: 12.0 * (n - 2) ** 2, lambda n: 16.0 * n * n + 8.0 * (n - 2) ** 2, rtol=1e-12,
          inputs_desc="u: n x n signed, boundary 0; f: signed x (n-1)^2; h = 1/(n-1); unew zeroed (its boundary "
                      "stays 0)"),
    # 4096 rows x 32000 logits: 524 MB, >= 175 us at 3 TB/s; 1000 loads per lane, insertions data dependent (~45 per
    # lane), then 8 x 5 shuffle rounds per warp
    entry("topk_rows_warp", "holdout5/topk_rows_warp.cu", "topk_rows_warp",
          "row top-8 by warp: per-lane register lists, data-dependent inserts", 4096,
          lambda n, sms: _B(32 * n, 256), _topk_inputs, "vals", _topk_ref,
          lambda n: 0.0, lambda n: 4.0 * n * TOPK_COLS + 64.0 * n, rtol=0.0,
          inputs_desc="x: n rows x 32000, N(0, 2^2) floats; the entry checks the 8 values per row (descending), "
                      "the indices follow them"),
    # 65536 sequences x 256 bases x 32 query bases: 537M DP cells of ~10 integer instructions each, one wave of
    # 106-register threads: issue-bound, ~0.2-0.5 ms; 16.8 MB read
    entry("smith_waterman_db", "holdout5/smith_waterman.cu", "sw_db_search",
          "Smith-Waterman DB search, thread per sequence, column in registers", 1 << 16,
          lambda n, sms: _B(n, 128), _sw_inputs, "scores", _sw_ref,
          lambda n: 0.0, lambda n: float(SW_LEN * n + 4 * n + SW_QLEN), rtol=0.0, constants=("c_query",),
          inputs_desc="n random DNA sequences of 256 (bases 0-3, interleaved), a tenth with a 10%-mutated copy of "
                      "the 32-base query (in __constant__); match 2, mismatch -3, gap open 5, extend 2"),
    # 128 images x 144 channels x 56 x 56: 231 MB in, 231 MB out, >= 155 us at 3 TB/s; three integer divisions and
    # nine guarded taps per output
    entry("depthwise_conv3x3", "holdout5/depthwise_conv3x3.cu", "conv_depthwise2d_forward",
          "depthwise 3x3 conv NCHW (PyTorch), index divisions, guarded taps", 128,
          lambda n, sms: ((min(_blocks(n * DW_CHANNELS * DW_HW * DW_HW, 256), 65536), 1, 1), (256, 1, 1), 0),
          _dw_inputs, "output", _dw_ref, _dw_flops,
          lambda n: 8.0 * n * DW_CHANNELS * DW_HW * DW_HW + 40.0 * DW_CHANNELS, rtol=1e-5,
          inputs_desc="n images of 144 x 56 x 56, signed; 3x3 filters signed, bias 0.1 x signed; stride 1, padding 1; "
                      "PyTorch's grid: blocks of 256, at most 65536 (a grid-stride loop beyond)"),
    # 16384 tokens x 4096 halves for K and V: 268 MB read, 268 MB written, >= 180 us at 3 TB/s; the value stores 2
    # bytes per 32-byte sector, merged (or not) in L2
    entry("kv_cache_reshape_vllm", "holdout5/reshape_and_cache.cu", "reshape_and_cache_kernel",
          "paged KV-cache scatter (vLLM reshape_and_cache), 2-byte stores", 16384,
          lambda n, sms: ((n, 1, 1), (min(KV_HEADS * KV_HEAD_SIZE, 512), 1, 1), 0), _kv_inputs, "value_cache",
          _kv_value_ref, lambda n: 0.0, lambda n: 8.0 * KV_HEADS * KV_HEAD_SIZE * n + 8.0 * n, rtol=0.0,
          inputs_desc="n tokens x 32 heads x 128, fp16 bits of N(0, 1); sequences of 512 in 16-token blocks placed "
                      "at random in a zeroed cache twice the size; the entry checks the value cache"),
    # 28672 x 8192 Q4_0 weights (Llama-2-70B's FFN up projection): 132 MB, >= 44 us at 3 TB/s; byte and half loads
    # from 18-byte blocks and one-warp blocks (32 per SM at most) keep it well below: ~100 us
    entry("dmmv_q4_0", "holdout5/dmmv_q4_0.cu", "dequantize_mul_mat_vec_q4_0",
          "4-bit quantized GEMV (llama.cpp DMMV Q4_0), warp per row", 28672,
          lambda n, sms: ((1, n, 1), (32, 1, 1), 0), _q4_inputs, "dst", _q4_ref,
          lambda n: 4.0 * n * Q4_COLS + 5.0 * n, lambda n: 18.0 * n * Q4_COLS / Q4_QK + 4.0 * Q4_COLS + 4.0 * n,
          rtol=1e-4,
          inputs_desc="n rows x 8192: Q4_0 blocks (half scale |N(0, 0.01^2)|, uniform random nibbles); x signed"),
    # 2^19 nodes, ~8.4M edges, 64 features: 2.1 GB of B rows gathered (B is 134 MB: partly in L2), 338 MB of
    # compulsory traffic; ~0.5-1 ms
    entry("spmm_csr_gespmm", "holdout5/spmm_csr_warp.cu", "spmm_csr_crc",
          "SpMM CSR x dense (GE-SpMM), warp per row, nonzeros in shared", 1 << 19,
          lambda n, sms: _B(32 * n, 256), _spmm_inputs, "C", _spmm_ref,
          lambda n: 2.0 * SPMM_DEG * SPMM_FEAT * n, lambda n: 8.0 * SPMM_DEG * n + 4.0 * n + 8.0 * SPMM_FEAT * n,
          rtol=1e-5,
          inputs_desc="n x n, row lengths Poisson(16), columns uniform random (sorted in the row), values signed; "
                      "B: n x 64 signed"),
    # 96^3 = 884736 particles x 80 neighbours: 283 MB of neighbour list, >= 105 us at 3 TB/s; 70.8M gathered float4s
    # (14 MB of positions, L2-resident), 56 of 80 pairs inside the cutoff (a divergent branch)
    entry("lj_force_nlist", "holdout5/lj_force_nlist.cu", "lj_force_nlist",
          "Lennard-Jones forces over a neighbour list, gathers, cutoff branch", 96,
          lambda n, sms: _B(n ** 3, 256), _lj_inputs, "d_force", _lj_ref,
          lambda n: (20.0 * LJ_NEIGH + 19.0 * LJ_INSIDE + 1.0) * n ** 3, lambda n: (36.0 + 4.0 * LJ_NEIGH) * n ** 3,
          rtol=1e-4,
          inputs_desc="n^3 particles on a simple cubic lattice at density 0.8442, jittered by 0.02 spacings; 80 "
                      "neighbours each (r_cut 2.5 + skin 0.4), column-wise, in random order; no pair within the "
                      "jitter of the cutoff"),
]

BY_NAME, get = index(CORPUS)

if __name__ == "__main__":
    from cudasim.console import run

    from ..manifest import main
    run(main, CORPUS)
