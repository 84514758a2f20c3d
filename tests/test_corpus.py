"""The out-of-sample kernel sets (corpus.sets): the corpus (corpus/) and the held-out sets
(corpus/holdout/, corpus/holdout2/, corpus/holdout3/, corpus/holdout4/, corpus/holdout5/,
corpus/holdout6/, corpus/holdout7/, corpus/holdout8/) and the wild set (corpus/wild/). Every kernel
compiles with NVRTC (nvcc for a file with host code), its manifest entry is complete and consistent with
its source, it computes its reference in cudasim at a small size (or cudasim refuses it, as recorded), and
the committed results give a unit and a protocol for every figure."""
import json
import math
from pathlib import Path

import numpy as np
import pytest

from analysis import registry
from analysis.signature import parse_signature
from corpus import manifest
from corpus.sets import SETS, load_set, measured_path
from kernels import catalog
from needs import need_nvcc, need_nvrtc

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "corpus" / "results"
NAMES = [k.name for k in manifest.CORPUS]
CASES = [(s, k.name) for s in SETS for k in load_set(s).CORPUS]

# sizes small enough for a whole-grid simulation; the matrix multiplies have a fixed shape
SMALL = {
    "corpus": {"stencil1d": 5000, "jacobi2d": 40, "reduce_tree": 5120, "reduce_warp_atomic": 7000,
               "scan_blelloch": 2048, "softmax_rows": 4, "softmax_rows_fast": 4, "histogram256": 20000,
               "gather": 3000, "gemv_warp_per_row": 20, "conv1d_const": 3000, "saxpy_grid_stride": 10000,
               "rmsnorm_256": 3, "strided_scale": 3000},
    "holdout": {"layernorm_warp": 16, "column_sums": 320, "stencil3d_7pt": 12, "conv2d_tiled": 64,
                "spmv_csr_scalar": 300, "spmv_csr_vector": 40, "bitonic_sort_shared": 2048, "dot_float4": 20000,
                "nbody_accel": 512, "black_scholes": 2000, "maxpool2d_forward": 1, "matrix_add_2d_bad_map": 40,
                "scan_warp_shuffle": 3000, "transpose_tiled_f64": 40, "murmur3_32": 3000, "gemv_shared_x": 40,
                "sobel_u8": 64, "collatz_steps": 3000, "histogram_global_atomic": 20000},
    "holdout2": {"rgb_to_gray": 48, "aos_particles": 3000, "embedding_lookup": 40, "bilinear_resize": 32,
                 "game_of_life": 48, "conv2d_naive_3x3": 48, "floyd_warshall_step": 40, "kmeans_assign": 3000,
                 "mandelbrot": 128, "monte_carlo_pi": 1 << 18, "stream_compact_atomic": 20000,
                 "weighted_histogram_float": 20000, "ell_spmv": 300, "popcount_reduce": 20000,
                 "gaussian_blur_rows": 128, "dot_double_shared": 20000},
    "holdout3": {"normalize_hwc_to_chw": 16, "bias_gelu_half2": 2, "batchnorm_stats_welford": 4,
                 "gnn_scatter_add": 64, "hash_lookup_linear_probe": 4096, "bucketize_binary_search": 5000,
                 "dft_naive_f64": 128, "ray_trace_spheres": 128, "im2col_caffe": 12, "compact_block_ballot": 5000,
                 "batched_matmul_32": 4, "cross_entropy_online": 40, "argmax_rows": 3,
                 "complex_mul_32_blocks": 10000, "box_filter_y_running_sum": 128, "quantize_q8_1": 4},
    "holdout4": {"adam_fused_step": 3000, "rope_neox": 3, "nv12_to_bgra": 64, "sigmoid_focal_loss": 40,
                 "fft_stockham_radix2": 4096, "softmax_backward": 4, "coulomb_dcs": 64, "cdist_tiled": 40,
                 "philox_uniform": 20000, "thomas_batched_f64": 64, "crc32_records": 64,
                 "warp_bitonic_sort32": 3000, "attention_decode_llama2c": 100, "spmv_coo_atomic": 300,
                 "kepler_rv_newton": 8, "chebyshev_clenshaw_f64": 3000},
    "holdout5": {"kmeans_centroid_accum": 3000, "segment_coo_sum": 4096, "aabb_minmax_atomic": 3000,
                 "spmv_transpose_atomic": 300, "pic_deposit_cic3d": 2000, "fd3d_25pt_shared": 16, "lud_internal": 48,
                 "potrf_batched_f64": 8, "jacobi9_f64": 40, "topk_rows_warp": 2, "smith_waterman_db": 256,
                 "depthwise_conv3x3": 1, "kv_cache_reshape_vllm": 32, "dmmv_q4_0": 8, "spmm_csr_gespmm": 300,
                 "lj_force_nlist": 6},
    "holdout6": {"pathfinder_pyramid": 1000, "srad_v1": 40, "backprop_layerforward": 64, "flash_attn_minimal_fwd": 1,
                 "mri_q": 256, "particles_cell_start": 3000, "radix_sort_blocks": 2048, "lbm_d2q9_f64": 32,
                 "spmv_jds": 300, "rs_encode_gf256": 3000, "rle_decode_runs": 2000, "bias_dropout_residual": 2,
                 "bilateral_filter": 48, "btree_findk": 8, "sor_red_black_f64": 40, "insert_particles_atomic": 3000},
    "holdout7": {"hotspot_pyramid": 64, "lavamd_f64": 2, "cfd_flux_f64": 4096, "binomial_options_f64": 2,
                 "fwt_batch1_shared": 4096, "sobol_qrng": 4096, "histogram64_bytes": 30720, "triangle_count_csr": 256,
                 "layernorm_backward_llmc": 32, "causal_softmax_f16": 64, "aes128_ttable": 512, "chacha20_xor": 256,
                 "median3x3_u8": 48, "canny_nms": 48, "gesummv_polybench": 64, "particles_collide_cells": 4096},
    "holdout8": {"mt607_random": 4, "radix_histogram_onesweep": 20000, "matmul_forward_llmc": 128,
                 "ssm_scan_llamacpp": 4, "roi_align_torchvision": 2, "segmented_scan_cub": 5000, "bsr_spmv_4x4": 4,
                 "valid_if_cudf": 20000, "dct8x8_samples": 64, "transpose_add_naive": 40, "md5hash_shoc": 3000,
                 "xsbench_lookup": 256},
    "wild": {"matrixmul_samples_program": 128, "layernorm_bf16_llmc_header": 32, "mmvq_q8_0_llamacpp": 16,
             "softmax_half2_rows": 8, "ewald_recip_f64": 64, "bn254_fr_inverse": 64, "kdtree_nn_recursive": 1024,
             "embedding_bag_pytorch": 64, "repressilator_rk4_noinline": 256, "dot2_compensated_f64": 20000,
             "interval_gemv_rounded": 64},
}
# kernels cudasim refuses as their authors wrote them (each recorded in the comparison), with why
REFUSED: dict[tuple[str, str], str] = {}  # none now (the half2 softmax's WARP_SZ is read since d197f11)
# files with host code, which nvcc compiles (NVRTC cannot)
NEEDS_NVCC = {("wild", "matrixmul_samples_program")}


def test_sets_are_large_enough_and_names_are_unique():
    assert len(load_set("corpus").CORPUS) >= 12 and len(load_set("holdout").CORPUS) >= 16
    assert len(load_set("holdout2").CORPUS) >= 16 and len(load_set("holdout3").CORPUS) >= 16
    assert len(load_set("holdout4").CORPUS) >= 16 and len(load_set("holdout5").CORPUS) >= 16
    assert len(load_set("holdout6").CORPUS) >= 16 and len(load_set("holdout7").CORPUS) >= 16
    assert len(load_set("holdout8").CORPUS) >= 12
    assert len(load_set("wild").CORPUS) >= 10
    names = [n for _, n in CASES]
    assert len(set(names)) == len(names)  # unique within and across the sets
    patterns = [load_set(s).get(n).pattern for s, n in CASES]
    assert len(set(patterns)) == len(patterns)
    for s in SETS:
        m = load_set(s)
        assert m.BY_NAME == {k.name: k for k in m.CORPUS} and m.SMS == manifest.SMS
        assert set(SMALL[s]) <= set(m.BY_NAME)
    held_out = ("holdout", "holdout2", "holdout3", "holdout4", "holdout5", "holdout6", "holdout7", "holdout8",
                "wild")
    for s in held_out:  # every held-out kernel is simulated
        assert set(SMALL[s]) == set(load_set(s).BY_NAME)
    simulated = [n for n in SMALL["holdout"] if ("holdout", n) not in REFUSED]
    assert len(simulated) >= 14
    for s in ("holdout2", "holdout3", "holdout4", "holdout5", "holdout6", "holdout7", "holdout8"):  # and none refused
        assert all((s, n) not in REFUSED for n in SMALL[s])
    assert len([n for n in SMALL["wild"] if ("wild", n) not in REFUSED]) >= 10
    with pytest.raises(KeyError):
        load_set("nope")
    assert measured_path("holdout").name == "holdout_h100.json"


@pytest.mark.parametrize("kset,name", CASES)
def test_manifest_entry_is_complete(kset, name):
    k = load_set(kset).get(name)
    assert k.path.exists() and k.pattern and k.inputs_desc and k.size > 0
    grid, block, shared = k.launch(k.size, manifest.SMS)
    assert len(grid) == 3 and len(block) == 3 and all(int(v) >= 1 for v in (*grid, *block)) and shared >= 0
    assert k.flops(k.size) >= 0 and k.min_bytes(k.size) > 0
    params = [p.name for p in parse_signature(k.path.read_text(), k.entry, str(k.path))]  # headers beside it too
    n = SMALL[kset].get(name, k.size)
    inputs = k.make_inputs(n, 0)
    assert [key for key in inputs if key not in k.constants] == params  # the inputs are the signature, in order
    assert k.output in params
    want = k.reference(inputs)
    assert want.shape == inputs[k.output].shape


@pytest.mark.parametrize("kset,name", CASES)
def test_compiles_with_nvrtc(kset, name):
    need_nvrtc()
    if (kset, name) in NEEDS_NVCC:
        need_nvcc()
    from cudasim.compile import compile_cuda
    k = load_set(kset).get(name)
    res = compile_cuda(k.path.read_text(), [k.entry] if "<" in k.entry else [], arch="sm_90", filename=str(k.path))
    r = res.resources[res.entry(k.entry)]
    assert r.registers > 0


@pytest.mark.parametrize("kset,name", [c for c in CASES if c[1] in SMALL[c[0]]])
def test_computes_its_reference_in_cudasim(kset, name):
    need_nvrtc()
    if (kset, name) in NEEDS_NVCC:
        need_nvcc()
    from cudasim import InOut, SourceModule
    from cudasim.errors import UnsupportedInstruction
    k = load_set(kset).get(name)
    exprs = [k.entry] if "<" in k.entry else []
    mod = SourceModule(k.path.read_text(), no_extern_c=True, name_expressions=exprs, filename=str(k.path))
    f = mod.get_function(k.entry)
    inputs = k.make_inputs(SMALL[kset][name], 1)
    orig = {a: (v.copy() if isinstance(v, np.ndarray) else v) for a, v in inputs.items()}
    for c in k.constants:
        mod.set_global(c, inputs[c])
    grid, block, shared = k.launch(SMALL[kset][name], 4)
    args = [InOut(v) if isinstance(v, np.ndarray) else v for v in k.args(inputs)]
    if (kset, name) in REFUSED:  # cudasim refuses it (recorded in the comparison)
        with pytest.raises(UnsupportedInstruction, match=REFUSED[kset, name]):
            f(*args, block=block, grid=grid, shared=shared)
        return
    f(*args, block=block, grid=grid, shared=shared)
    ok, err = catalog.verify(k, inputs[k.output], orig)
    assert ok, err


def _murmur3_x86_32(data: bytes, seed: int) -> int:
    """MurmurHash3_x86_32 as in SMHasher, byte by byte: to check the held-out reference against a
    plain loop, not only against the kernel run by cudasim."""
    m = 0xFFFFFFFF
    rotl = lambda x, r: ((x << r) | (x >> (32 - r))) & m  # noqa: E731
    h = seed
    nblocks = len(data) // 4
    for i in range(nblocks):
        k = int.from_bytes(data[4 * i:4 * i + 4], "little")
        k = (rotl((k * 0xCC9E2D51) & m, 15) * 0x1B873593) & m
        h = (rotl(h ^ k, 13) * 5 + 0xE6546B64) & m
    tail, k = data[4 * nblocks:], 0
    for i, b in enumerate(tail):
        k |= b << (8 * i)
    if tail:
        h ^= (rotl((k * 0xCC9E2D51) & m, 15) * 0x1B873593) & m
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & m
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & m
    return h ^ (h >> 16)


def test_holdout_integer_references():
    """The integer references, which cudasim checks only at a small size, against plain loops."""
    assert _murmur3_x86_32(b"The quick brown fox jumps over the lazy dog", 0) == 0x2E4FF723  # SMHasher's vector
    k = load_set("holdout").get("murmur3_32")
    d = k.make_inputs(64, 3)
    want = [_murmur3_x86_32(d["keys"][4 * i:4 * i + 4].astype("<u4").tobytes(), int(d["seed"])) for i in range(64)]
    assert k.reference(d).tolist() == want
    c = load_set("holdout").get("collatz_steps")
    d = {"steps": np.zeros(500, np.int32), "start": np.uint64(27), "n": np.int32(500)}

    def steps(v):
        s = 0
        while v != 1:
            v, s = (3 * v + 1 if v & 1 else v // 2), s + 1
        return s
    assert c.reference(d).tolist() == [steps(v) for v in range(27, 527)]
    assert c.reference(d)[0] == 111  # 27 takes 111 steps


def test_holdout2_stream_compaction_keeps_the_multiset():
    """The manifest verifies the count; the kept elements, in whatever order the atomics gave
    them, are checked here as a multiset (the rest of the output untouched)."""
    need_nvrtc()
    from cudasim import InOut, SourceModule
    k = load_set("holdout2").get("stream_compact_atomic")
    n = SMALL["holdout2"][k.name]
    f = SourceModule(k.path.read_text(), no_extern_c=True, filename=k.source).get_function(k.entry)
    d = k.make_inputs(n, 2)
    grid, block, shared = k.launch(n, 4)
    f(*[InOut(v) if isinstance(v, np.ndarray) else v for v in k.args(d)], block=block, grid=grid, shared=shared)
    kept = np.sort(d["in"][d["in"] > d["threshold"]])
    count = int(d["count"][0])
    assert count == len(kept) > 0
    assert np.array_equal(np.sort(d["out"][:count]), kept) and np.isnan(d["out"][count:]).all()


def test_holdout2_fma_emulation_rounds_once():
    """The Mandelbrot reference's fmaf: correctly rounded against exact rational arithmetic."""
    from fractions import Fraction
    from corpus.holdout2.manifest import _fma32
    rng = np.random.default_rng(5)
    a, b, c = (rng.standard_normal(3000).astype(np.float32) for _ in range(3))
    a[:2], b[:2], c[:2] = 1 + 2.0 ** -12, 1 + 2.0 ** -12, [2.0 ** -60, -(2.0 ** -60)]  # ties broken below float64
    got = _fma32(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        near = [np.nextafter(g, np.float32(-np.inf)), g, np.nextafter(g, np.float32(np.inf))]
        assert min(abs(Fraction(float(v)) - exact) for v in near) == abs(Fraction(float(g)) - exact)


def test_holdout3_hash_table_and_quantized_blocks():
    """Two held-out references checked apart from their kernels: the built table holds every
    inserted key once and a plain probing loop finds what the reference says; the q8_1 bytes
    decode to within half a step of the input."""
    from corpus.holdout3.manifest import HASH_EMPTY, _hash32
    k = load_set("holdout3").get("hash_lookup_linear_probe")
    n = 1000
    d = k.make_inputs(n, 3)
    cap = int(d["capacity"])
    table = d["hashtable"].reshape(-1, 2)
    keys = table[table[:, 0] != HASH_EMPTY, 0]
    assert cap == 2048 and len(keys) == len(set(keys.tolist())) == n
    want = k.reference(d).reshape(-1, 2)
    for q, v in want[:200]:
        slot = int(_hash32(np.array([q]), cap)[0])
        while table[slot, 0] not in (q, HASH_EMPTY):
            slot = (slot + 1) % cap
        assert v == (table[slot, 1] if table[slot, 0] == q else HASH_EMPTY)
    assert (want[:, 1] != HASH_EMPTY).sum() == n // 2
    q8 = load_set("holdout3").get("quantize_q8_1")
    d = q8.make_inputs(2, 4)
    raw = q8.reference(d).astype(np.uint8).reshape(-1, 36)
    scale = raw[:, 0:2].copy().view(np.float16).astype(np.float64)
    total = raw[:, 2:4].copy().view(np.float16).astype(np.float64)
    qs = raw[:, 4:].copy().view(np.int8).astype(np.float64)
    x = d["x"].astype(np.float64).reshape(-1, 32)
    assert np.abs(qs * scale - x).max() <= 0.51 * scale.max() and np.abs(qs).max() == 127
    assert np.allclose(total[:, 0], x.sum(axis=1), atol=0.01)


def test_holdout4_references():
    """Held-out references checked apart from their kernels: Philox4x32-10 against Random123's
    known answers, the CRC table against zlib by a plain byte loop, the NV12 matrix against BT.709's
    Kr, Kb scaled by 255/219 as the SDK scales them, Kepler's equation solved, and the Newton step
    counts that weight the Kepler FLOPs."""
    from corpus.holdout4.manifest import (KEPLER_MEAN_ITERS, _crc_table, _kepler_eccentric_anomaly,
                                          _kepler_iterations, _kepler_mean_anomaly, _nv12_matrix, _philox)
    kat = [((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
           ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
           ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
            (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]
    for ctr, key, want in kat:
        got = _philox(tuple(np.array([c], np.uint32) for c in ctr), key)
        assert tuple(int(w[0]) for w in got) == want
    import zlib
    table, data = _crc_table(), b"The quick brown fox jumps over the lazy dog"
    crc = 0xFFFFFFFF
    for byte in data:
        crc = int(table[(crc ^ byte) & 0xFF]) ^ (crc >> 8)
    assert crc ^ 0xFFFFFFFF == zlib.crc32(data) == 0x414FA339
    m = _nv12_matrix().astype(np.float64)
    kr, kb = 0.2126, 0.0722
    kg = 1 - kr - kb
    bt709 = [[1, 0, 2 * (1 - kr)], [1, -2 * kb * (1 - kb) / kg, -2 * kr * (1 - kr) / kg], [1, 2 * (1 - kb), 0]]
    assert np.allclose(m, 255 / 219 * np.array(bt709), rtol=1e-6) and abs(m[0, 0] - 1.16438) < 1e-5
    k = load_set("holdout4").get("kepler_rv_newton")
    d = k.make_inputs(64, 5)
    M = _kepler_mean_anomaly(d).astype(np.float64)
    e = d["ecc"].astype(np.float64)[:, None]
    assert M.min() >= 0 and M.max() < 2 * np.pi and e.max() <= 0.95
    E = _kepler_eccentric_anomaly(d)
    assert np.abs(E - e * np.sin(E) - M).max() < 1e-12
    steps = _kepler_iterations(d)
    assert 2.5 < steps.mean() < 4.0 and abs(steps.mean() - KEPLER_MEAN_ITERS) < 0.5


def _sw_plain(query, seq, match, mismatch, gap_open, gap_extend):
    """Smith-Waterman with affine gaps (Gotoh) by the textbook's full matrices."""
    m, n = len(query), len(seq)
    H = [[0] * (n + 1) for _ in range(m + 1)]
    E = [[-10 ** 9] * (n + 1) for _ in range(m + 1)]
    F = [[-10 ** 9] * (n + 1) for _ in range(m + 1)]
    best = 0
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            E[i][j] = max(E[i][j - 1] - gap_extend, H[i][j - 1] - gap_open)
            F[i][j] = max(F[i - 1][j] - gap_extend, H[i - 1][j] - gap_open)
            s = match if query[i - 1] == seq[j - 1] else -mismatch
            H[i][j] = max(0, H[i - 1][j - 1] + s, E[i][j], F[i][j])
            best = max(best, H[i][j])
    return best


def test_holdout5_references():
    """Held-out references and outputs the entries do not check: the Smith-Waterman reference
    against full DP matrices, the key cache, the k-means counts and the top-k indices as cudasim
    computes them, the segment scan's FLOP weights, the LJ neighbour shells."""
    need_nvrtc()
    from cudasim import InOut, SourceModule
    from corpus.holdout5.manifest import (LJ_INSIDE, LJ_NEIGH, SEG_ATOMICS, SEG_MEAN_LEN, SEG_SCAN_ADDS, SW_SCORES,
                                          _kv_key_ref, _lj_offsets, _segment_counts, _segment_index)
    h5 = load_set("holdout5")
    k = h5.get("smith_waterman_db")
    d = k.make_inputs(40, 6)
    db = d["db"].reshape(-1, 40)
    want = k.reference(d)
    assert want.max() >= 40  # some sequences hold the query
    for s in range(0, 40, 7):
        assert want[s] == _sw_plain(d["c_query"].tolist(), db[:, s].tolist(), **SW_SCORES)

    def run(name, n):
        kk = h5.get(name)
        f = SourceModule(kk.path.read_text(), no_extern_c=True, filename=kk.source).get_function(kk.entry)
        dd = kk.make_inputs(n, 2)
        grid, block, shared = kk.launch(n, 4)
        f(*[InOut(v) if isinstance(v, np.ndarray) else v for v in kk.args(dd)], block=block, grid=grid, shared=shared)
        return dd
    d = run("kv_cache_reshape_vllm", 32)
    before = {**d, "key_cache": np.zeros_like(d["key_cache"])}  # the cache the kernel was given
    assert np.array_equal(d["key_cache"].astype(np.float64), _kv_key_ref(before))
    d = run("kmeans_centroid_accum", 2000)
    assert np.array_equal(d["counts"], np.bincount(d["assignments"], minlength=len(d["counts"])))
    d = run("topk_rows_warp", 2)
    x = d["x"].reshape(2, -1)
    assert np.array_equal(np.take_along_axis(x, d["idx"].reshape(2, -1), axis=1).ravel(), d["vals"])
    index, segs = _segment_index(1 << 22, np.random.default_rng(0))
    adds, atomics = _segment_counts(index)
    assert abs(adds / SEG_SCAN_ADDS - 1) < 0.02 and abs(atomics / SEG_ATOMICS - 1) < 0.02
    assert abs(len(index) / segs / SEG_MEAN_LEN - 1) < 0.02
    off = _lj_offsets()
    d2 = (off * off).sum(axis=1)
    assert len(off) == LJ_NEIGH and (d2 <= 5).sum() == LJ_INSIDE and set(d2.tolist()) == {1, 2, 3, 4, 5, 6}


def _gf_mul_plain(a: int, b: int) -> int:
    """GF(2^8) multiplication by shift and add (x^8 + x^4 + x^3 + x^2 + 1), no tables."""
    r = 0
    while b:
        if b & 1:
            r ^= a
        a <<= 1
        if a & 0x100:
            a ^= 0x11D
        b >>= 1
    return r


def _run_in_cudasim(kk, n: int) -> tuple[dict, dict]:
    """A set's kernel at size n in cudasim, its __constant__ inputs written first: (the inputs after the
    launch, a copy from before)."""
    from cudasim import InOut, SourceModule
    exprs = [kk.entry] if "<" in kk.entry else []
    mod = SourceModule(kk.path.read_text(), no_extern_c=True, name_expressions=exprs, filename=str(kk.path))
    f = mod.get_function(kk.entry)
    dd = kk.make_inputs(n, 2)
    for c in kk.constants:
        mod.set_global(c, dd[c])
    before = {a: (v.copy() if isinstance(v, np.ndarray) else v) for a, v in dd.items()}
    grid, block, shared = kk.launch(n, 4)
    f(*[InOut(v) if isinstance(v, np.ndarray) else v for v in kk.args(dd)], block=block, grid=grid, shared=shared)
    return dd, before


def test_holdout6_references():
    """Held-out references and outputs the entries do not check: the pathfinder DP by a plain loop,
    the GF(2^8) tables and a parity word by shift-and-add, the b+tree walked as the kernel walks it,
    the LBM step's conservation of mass and momentum, the JDS FLOP weights; and as cudasim computes
    them: SRAD's derivatives, the particles' cell ends and gathered float4s, the radix sort's
    values (stability), MRI-Q's Qi, the dropout mask, the flash-attention statistics, the Fluids
    cells and ranks."""
    need_nvrtc()
    from corpus.holdout6.manifest import (BT_ORDER, BT_WORDS, JDS_NNZ, JDS_PADDED, RS_K, RS_M, _drop_keep,
                                          _fl_cells, _gf_mul_table, _gf_tables, _jds_counts, _jds_inputs, _mriq_q,
                                          _pr_cells, _radix_order, _srad_fields)
    h6 = load_set("holdout6")
    k = h6.get("pathfinder_pyramid")
    d = k.make_inputs(50, 3)
    wall = d["gpuWall"].reshape(-1, 50).tolist()
    row = d["gpuSrc"].tolist()
    for w in wall:
        row = [min(row[max(j - 1, 0):j + 2]) + w[j] for j in range(50)]
    assert k.reference(d).tolist() == row

    log, exp = _gf_tables()
    assert sorted(exp[:255].tolist()) == list(range(1, 256)) and all(exp[log[v]] == v for v in range(1, 256))
    mul = _gf_mul_table()
    rng = np.random.default_rng(4)
    for a, b in rng.integers(0, 256, (200, 2)):
        assert mul[a, b] == _gf_mul_plain(int(a), int(b))
    k = h6.get("rs_encode_gf256")
    d = k.make_inputs(16, 5)
    coef = d["c_matrix"].reshape(RS_M, RS_K)
    for i in range(RS_M):
        for j in range(RS_K):
            assert _gf_mul_plain(int(coef[i, j]), i ^ (RS_M + j)) == 1  # 1 / (x_i + y_j)
    data = d["data"].reshape(RS_K, 16)
    par = k.reference(d).reshape(RS_M, 16)
    for p, w in ((0, 0), (3, 7), (2, 15)):
        word = 0
        for b in range(4):
            byte = 0
            for j in range(RS_K):
                byte ^= _gf_mul_plain(int(coef[p, j]), (int(data[j, w]) >> (8 * b)) & 0xFF)
            word |= byte << (8 * b)
        assert par[p, w] == word

    k = h6.get("btree_findk")
    d = k.make_inputs(64, 6)
    nodes = d["knodesD"].reshape(-1, BT_WORDS)
    want = k.reference(d)
    assert (want >= 0).sum() >= 48 and int(d["height"]) == 2
    for b in range(64):
        node, key = 0, int(d["keysD"][b])
        for _ in range(int(d["height"])):
            keys = nodes[node, BT_ORDER + 2:]
            t = next(t for t in range(BT_ORDER) if keys[t] <= key < keys[t + 1])
            node = int(nodes[node, 1 + t])
        keys = nodes[node, BT_ORDER + 2:BT_ORDER + 2 + BT_ORDER].tolist()
        got = int(d["recordsD"][nodes[node, 1 + keys.index(key)]]) if key in keys else -1
        assert got == want[b]

    k = h6.get("lbm_d2q9_f64")
    d = k.make_inputs(24, 7)
    f_in, f_out = d["f_in"].reshape(9, -1), k.reference(d).reshape(9, -1)
    from corpus.holdout6.manifest import LBM_E
    assert abs(f_out.sum() / f_in.sum() - 1) < 1e-13
    assert np.allclose(LBM_E.T @ f_out.sum(axis=1), LBM_E.T @ f_in.sum(axis=1), atol=1e-11)

    padded, real = _jds_counts(_jds_inputs(1 << 20, np.random.default_rng(0)))
    assert abs(padded / JDS_PADDED - 1) < 0.02 and abs(real / JDS_NNZ - 1) < 0.02 and padded >= real

    def run(name, n):
        return _run_in_cudasim(h6.get(name), n)
    d, before = run("srad_v1", 24)
    for got, ref in zip((d["d_dN"], d["d_dS"], d["d_dW"], d["d_dE"]), _srad_fields(before)):
        assert np.array_equal(got.astype(np.float64), ref)  # differences of floats, rounded once
    d, before = run("particles_cell_start", 3000)
    assert np.array_equal(d["cellEnd"].astype(np.float64), _pr_cells(before)[1])
    order = d["gridParticleIndex"]
    assert np.array_equal(d["sortedPos"].reshape(-1, 4), d["oldPos"].reshape(-1, 4)[order])
    assert np.array_equal(d["sortedVel"].reshape(-1, 4), d["oldVel"].reshape(-1, 4)[order])
    d, before = run("radix_sort_blocks", 2048)
    _, order = _radix_order(before)
    assert np.array_equal(d["valuesOut"].reshape(order.shape), np.take_along_axis(
        before["valuesIn"].reshape(order.shape), order, axis=1))
    d, before = run("mri_q", 256)
    qi = _mriq_q(before)[1]
    assert np.abs(d["Qi"] - qi).max() <= 1e-4 * np.abs(qi).max()
    d, before = run("bias_dropout_residual", 2)
    keep = _drop_keep(before)
    assert np.array_equal(d["mask"], keep.astype(np.uint8)) and 0.88 < keep.mean() < 0.92
    d, before = run("flash_attn_minimal_fwd", 1)
    s = np.einsum("bid,bjd->bij", *(before[a].astype(np.float64).reshape(-1, 64, 64) for a in "QK")) / 8.0
    m = s.max(axis=2)
    assert np.allclose(d["m"], m.ravel(), rtol=1e-5, atol=1e-5)
    assert np.allclose(d["l"], np.exp(s - m[..., None]).sum(axis=2).ravel(), rtol=1e-4)
    d, before = run("insert_particles_atomic", 3000)
    cells = _fl_cells(before)
    assert np.array_equal(d["mgcell"], np.where(cells >= 0, cells, 0xFFFFFFFF).astype(np.uint32))
    assert 0 < (cells < 0).sum() < len(cells)
    inside = cells >= 0
    ranks = np.lexsort((d["mgndx"][inside], cells[inside]))  # by cell, then rank: 0, 1, ... in every cell
    c, r = cells[inside][ranks], d["mgndx"][inside][ranks].astype(np.int64)
    first = np.r_[0, np.flatnonzero(c[1:] != c[:-1]) + 1]
    assert np.array_equal(r, np.arange(len(c)) - np.repeat(first, np.diff(np.r_[first, len(c)])))


def test_holdout7_references():
    """Held-out references checked apart from their kernels: AES-128 against FIPS-197's example and
    ChaCha20 against RFC 7539's block (2.3.2), the primitive polynomials against Joe and Kuo's table
    and the Sobol points' stratification, the binomial tree's closed form against backward
    induction and Black-Scholes, the triangle count against networkx, the LayerNorm gradient against
    finite differences, the Walsh-Hadamard transform against Sylvester's matrix; hotspot, lavaMD,
    the CFD flux, the median, Canny and the particle collisions against plain loops; and as cudasim
    computes them: LayerNorm's dweight and dbias, the causal softmax's rows, the partial histograms'
    totals."""
    need_nvrtc()
    import math

    import networkx as nx

    from corpus.holdout7.manifest import (BO_STEPS, CFD_GAMMA, LMD_PAR, PC_COLLIDER, PC_COLLIDER_R, _aes_encrypt_words,
                                          _aes_key_schedule, _aes_sbox, _aes_tables, _bo_ref, _chacha_blocks,
                                          _ln_grads, _pc_collide, _pc_side, _primitive_polys, _sobol_points)
    h7 = load_set("holdout7")

    # crypto known answers
    assert _aes_sbox()[0x00] == 0x63 and _aes_sbox()[0x53] == 0xED
    pt = np.frombuffer(bytes.fromhex("00112233445566778899aabbccddeeff"), "<u4").astype(np.uint32)
    ct = _aes_encrypt_words(pt, _aes_key_schedule(np.arange(16, dtype=np.uint8)), _aes_tables())
    assert ct.astype("<u4").tobytes().hex() == "69c4e0d86a7b0430d8cdb78070b4c55a"
    key = np.frombuffer(bytes(range(32)), "<u4").astype(np.uint32)
    nonce = np.frombuffer(bytes([0, 0, 0, 9, 0, 0, 0, 0x4A, 0, 0, 0, 0]), "<u4").astype(np.uint32)
    block = _chacha_blocks(key, nonce, 1, 2)
    assert " ".join(f"{w:08x}" for w in block[0]) == (
        "e4e7f110 15593bd1 1fdd0f50 c47120a3 c7f4d1c7 0368c033 9aaa2204 4e6cd4c3 "
        "466482d2 09aa9f07 05d7c214 a2028bd9 d19c12b5 b94e16de e883d0cb 4e3c50a2")
    assert not np.array_equal(block[0], block[1])  # the counter moves on

    # Sobol: Joe and Kuo's (s, a) for dimensions 2..13; van der Corput first; every dimension's first
    # 2^m points fall one to each interval of 1 / 2^m
    assert _primitive_polys(12) == [(1, 0), (2, 1), (3, 1), (3, 2), (4, 1), (4, 4), (5, 2), (5, 4), (5, 7), (5, 11),
                                    (5, 13), (5, 14)]
    k = h7.get("sobol_qrng")
    d = k.make_inputs(1 << 16, 3)
    pts = _sobol_points(d)
    assert pts.shape == (100, 1 << 16) and pts[0, :4].tolist() == [0, 1 << 31, 3 << 30, 1 << 30]
    for m in (4, 10, 16):
        cells = pts[:, :1 << m] >> np.uint32(32 - m)
        assert all(len(np.unique(c)) == 1 << m for c in cells)
    want = (pts.astype(np.float32) * np.float32(2.3283064e-10)).astype(np.float64).ravel()
    assert np.array_equal(k.reference(d), want)

    # binomial options: closed form = backward induction; close to Black-Scholes at 2048 steps
    k = h7.get("binomial_options_f64")
    d = k.make_inputs(3, 4)
    S, X, vDt, pu, pd = d["d_OptionData"].reshape(-1, 5)[:3].T
    i = np.arange(BO_STEPS + 1)
    v = np.maximum(S[:, None] * np.exp(vDt[:, None] * (2.0 * i - BO_STEPS)) - X[:, None], 0.0)
    for step in range(BO_STEPS, 0, -1):
        v = pu[:, None] * v[:, 1:step + 1] + pd[:, None] * v[:, :step]
    got = _bo_ref(d)
    assert np.allclose(got, v[:, 0], rtol=1e-11, atol=1e-12) and (got > 0).any()
    T = (vDt / 0.10) ** 2 * BO_STEPS
    d1 = (np.log(S / X) + (0.06 + 0.005) * T) / (0.10 * np.sqrt(T))
    ncdf = np.vectorize(lambda z: 0.5 * math.erfc(-z / math.sqrt(2)))
    bs = S * ncdf(d1) - X * np.exp(-0.06 * T) * ncdf(d1 - 0.10 * np.sqrt(T))
    assert np.allclose(got, bs, atol=2e-3 * S.max())

    # triangles against networkx, every edge oriented upward
    k = h7.get("triangle_count_csr")
    d = k.make_inputs(1 << 10, 0)
    u, vv = d["edge_src"], d["col_idx"]
    assert (u < vv).all() and int(d["num_edges"]) == len(vv)
    g = nx.Graph()
    g.add_edges_from(zip(u.tolist(), vv.tolist()))
    assert k.reference(d)[0] == sum(nx.triangles(g).values()) // 3 > 0

    # LayerNorm backward against finite differences of sum(dout * (norm * w + b))
    rng = np.random.default_rng(5)
    C = 16
    x, w, dout = rng.standard_normal((2, C)), rng.uniform(0.5, 1.5, C), rng.standard_normal((2, C))

    def loss(xx):
        mu = xx.mean(axis=1, keepdims=True)
        return float((dout * (xx - mu) / np.sqrt(xx.var(axis=1, keepdims=True) + 1e-5) * w).sum())
    num = np.zeros_like(x)
    for r in range(2):
        for c in range(C):
            e = np.zeros_like(x)
            e[r, c] = 1e-6
            num[r, c] = (loss(x + e) - loss(x - e)) / 2e-6
    dd = {"C": C, "inp": x.ravel(), "dout": dout.ravel(), "weight": w, "mean": x.mean(axis=1),
          "rstd": 1 / np.sqrt(x.var(axis=1) + 1e-5), "dinp": np.zeros(2 * C), "dweight": np.zeros(C),
          "dbias": np.zeros(C)}
    dinp, dweight, dbias = _ln_grads(dd)
    assert np.allclose(dinp, num.ravel(), atol=1e-6) and np.allclose(dbias, dout.sum(axis=0))

    # the Walsh-Hadamard transform against Sylvester's matrix
    k = h7.get("fwt_batch1_shared")
    d = k.make_inputs(2048 * 2, 1)
    H = np.array([[1.0]])
    for _ in range(11):
        H = np.block([[H, H], [H, -H]])
    assert np.allclose(k.reference(d).reshape(2, -1), d["d_Input"].astype(np.float64).reshape(2, -1) @ H.T)

    # hotspot: two explicit steps by a plain loop (edges clamped)
    k = h7.get("hotspot_pyramid")
    d = k.make_inputs(20, 2)
    n = 20
    t = d["temp_src"].reshape(n, n).astype(np.float64).tolist()
    p = d["power"].reshape(n, n).astype(np.float64)
    sdc = float(np.float32(d["step"]) / np.float32(d["Cap"]))
    rx, ry, rz = (float(np.float32(1) / np.float32(d[a])) for a in ("Rx", "Ry", "Rz"))
    for _ in range(2):
        t = [[t[y][x] + sdc * (p[y, x] + (t[min(y + 1, n - 1)][x] + t[max(y - 1, 0)][x] - 2 * t[y][x]) * ry
                               + (t[y][min(x + 1, n - 1)] + t[y][max(x - 1, 0)] - 2 * t[y][x]) * rx
                               + (80.0 - t[y][x]) * rz) for x in range(n)] for y in range(n)]
    assert np.allclose(k.reference(d), np.array(t).ravel(), rtol=1e-12)

    # lavaMD: one home particle's potential and force by a plain loop over its box and neighbours
    k = h7.get("lavamd_f64")
    d = k.make_inputs(2, 3)
    rv, qv = d["d_rv_gpu"].reshape(-1, 4), d["d_qv_gpu"]
    fv = k.reference(d).reshape(-1, 4)
    a2 = 2 * 0.5 * 0.5
    for b, i in ((0, 0), (5, 57), (7, 99)):
        home = b * LMD_PAR + i
        want = np.zeros(4)
        for j in range(len(qv)):  # with 8 boxes in a 2 x 2 x 2 cube every box neighbours every other
            r2 = rv[home, 0] + rv[j, 0] - rv[home, 1:] @ rv[j, 1:]
            vij = math.exp(-a2 * r2)
            want += qv[j] * np.r_[vij, 2 * vij * (rv[home, 1:] - rv[j, 1:])]
        assert np.allclose(fv[home], want, rtol=1e-12)

    # the CFD flux of a few elements by the kernel's code, line for line
    k = h7.get("cfd_flux_f64")
    d = k.make_inputs(4096, 4)
    nel = 4096
    var = d["variables"].reshape(5, nel)
    nbs = d["elements_surrounding_elements"].reshape(4, nel)
    nrm = d["normals"].reshape(3, 4, nel)
    want = k.reference(d).reshape(5, nel)
    ff = d["ff_variable"]
    fcff = [d[f"ff_flux_contribution_{a}"] for a in ("momentum_x", "momentum_y", "momentum_z", "density_energy")]

    def state(e):
        rho, m, de = var[0, e], var[1:4, e], var[4, e]
        vel = m / rho
        sq = vel @ vel
        pr = (CFD_GAMMA - 1.0) * (de - 0.5 * rho * sq)
        fx = [vel[0] * m[0] + pr, vel[0] * m[1], vel[0] * m[2]]
        fy = [fx[1], vel[1] * m[1] + pr, vel[1] * m[2]]
        fz = [fx[2], fy[2], vel[2] * m[2] + pr]
        return rho, m, de, pr, sq, math.sqrt(CFD_GAMMA * pr / rho), [fx, fy, fz, list(vel * (de + pr))]
    kinds = set()
    some = [np.flatnonzero((nbs == kind).any(axis=0))[:5] for kind in (-1, -2)]
    for e in list(range(0, nel, 331)) + [int(e) for e in np.concatenate(some)]:
        rho, m, de, pr, sq, c, fc = state(e)
        f = np.zeros(5)
        for j in range(4):
            nb, nv = nbs[j, e], nrm[:, j, e]
            kinds.add(int(nb) if nb < 0 else 1)
            if nb >= 0:
                rn, mn, den, prn, sqn, cn, fcn = state(nb)
                fac = -math.sqrt(nv @ nv) * 0.2 * 0.5 * (math.sqrt(sq) + math.sqrt(sqn) + c + cn)
                f += fac * (np.r_[rho, m, de] - np.r_[rn, mn, den])
                for dim in range(3):
                    h = 0.5 * nv[dim]
                    f += h * np.r_[mn[dim] + m[dim], [fcn[a][dim] + fc[a][dim] for a in range(3)],
                                   fcn[3][dim] + fc[3][dim]]
            elif nb == -1:
                f[1:4] += nv * pr
            else:
                for dim in range(3):
                    h = 0.5 * nv[dim]
                    f += h * np.r_[ff[1 + dim] + m[dim], [fcff[a][dim] + fc[a][dim] for a in range(3)],
                                   fcff[3][dim] + fc[3][dim]]
        assert np.allclose(want[:, e], f, rtol=1e-12, atol=1e-15)
    assert kinds == {1, -1, -2}  # neighbours, wing and far field

    # the median and Canny by plain loops at a few pixels
    k = h7.get("median3x3_u8")
    d = k.make_inputs(48, 5)
    img = d["inputImageKernel"].reshape(48, 48).astype(int)
    want = k.reference(d).reshape(48, 48)
    assert want[0].max() == 0 and want[:, -1].max() == 0
    for y, x in ((1, 1), (20, 33), (46, 46), (10, 2)):
        assert want[y, x] == sorted(img[y - 1:y + 2, x - 1:x + 2].ravel())[4]
    k = h7.get("canny_nms")
    d = k.make_inputs(64, 6)
    want = k.reference(d).reshape(64, 64)
    dx, dy, mag = d["dx"].reshape(64, 64), d["dy"].reshape(64, 64), d["mag"].reshape(64, 64)
    assert (want[0] == -1).all() and set(np.unique(want[1:-1, 1:-1]).tolist()) == {0.0, 1.0, 2.0}
    for y in range(1, 63):
        for x in range(1, 63):
            if mag[y, x] <= 50.0:
                assert want[y, x] == 0
                continue
            ang = math.degrees(math.atan2(abs(int(dy[y, x])), abs(int(dx[y, x]))))
            if abs(ang - 22.5) < 0.01 or abs(ang - 67.5) < 0.01:
                continue
            s = 1 if int(dx[y, x]) * int(dy[y, x]) >= 0 else -1
            (ya, xa), (yb, xb) = (((y, x - 1), (y, x + 1)) if ang < 22.5 else ((y - 1, x), (y + 1, x)) if ang > 67.5
                                  else ((y - 1, x - s), (y + 1, x + s)))
            keep = mag[y, x] > mag[ya, xa] and mag[y, x] >= mag[yb, xb]
            assert want[y, x] == (1 + (mag[y, x] > 150.0) if keep else 0)

    # particles: the neighbour-cell reference against all pairs, brute force
    k = h7.get("particles_collide_cells")
    d = k.make_inputs(512, 7)
    nn = 512
    r = 1.0 / _pc_side(nn)
    pos = d["oldPos"].reshape(nn, 4)[:, :3].astype(np.float64)
    vel = d["oldVel"].reshape(nn, 4)[:, :3].astype(np.float64)
    force = np.zeros((nn, 3))
    contacts = 0
    for a in range(nn):
        f, hit = _pc_collide(np.repeat(pos[a:a + 1], nn, 0), pos, np.repeat(vel[a:a + 1], nn, 0), vel, r, r, 0.0)
        hit[a] = False
        force[a] = f[hit].sum(axis=0)
        contacts += int(hit.sum())
    fc, _ = _pc_collide(pos, np.broadcast_to(PC_COLLIDER, pos.shape), vel, np.zeros_like(vel), r, PC_COLLIDER_R, 0.0)
    want = np.zeros((nn, 4))
    want[d["gridParticleIndex"].astype(np.int64), :3] = vel + force + fc
    assert contacts > nn and np.allclose(k.reference(d).reshape(nn, 4), want, rtol=0, atol=1e-15)

    def run(name, size):
        return _run_in_cudasim(h7.get(name), size)
    d, before = run("layernorm_backward_llmc", 32)
    _, dweight, dbias = _ln_grads(before)
    assert np.allclose(d["dweight"], dweight, rtol=1e-4, atol=1e-6)
    assert np.allclose(d["dbias"], dbias, rtol=1e-4, atol=1e-6)
    d, before = run("causal_softmax_f16", 64)
    y = d["dst"].astype(np.float64).reshape(-1, 64, 64)
    upper = np.triu_indices(64, 1)
    assert np.allclose(y.sum(axis=2), 1.0, atol=2e-2) and (y[:, upper[0], upper[1]] == 0).all()
    d, before = run("histogram64_bytes", 30720)
    parts = d["d_PartialHistograms"].reshape(-1, 64).astype(np.int64)
    assert np.array_equal(parts.sum(axis=0), np.bincount(before["d_Data"].view(np.uint8) >> 2, minlength=64))
    assert parts.sum() == 30720 and parts.sum(axis=1).max() <= 64 * 240


def test_holdout8_references():
    """Held-out references checked apart from their kernels: the Mersenne Twister by a scalar loop,
    the matmul, the BSR product and the segmented scan against dense and plain loops, the Mamba scan
    for one channel by a scalar recurrence, RoIAlign by torchvision's bilinear_interpolate ported
    line by line, the DCT against its cosine sum and its inverse, XSBench's fast-forwarded LCG against
    stepping it and its cross sections by a plain binary search; and as cudasim computes them: the
    digit histograms added again by a second launch, cuDF's valid count, SHOC's found key and digest
    against hashlib."""
    need_nvrtc()
    import hashlib

    from corpus.holdout8.manifest import (MD5_BYTES, MD5_VALS, MT_MM, MT_NN, MT_RNG_COUNT, SS_TILE, XS_DIST, XS_M63,
                                          XS_SEED, _bsr_pattern, _dct_matrix, _lcg_forward, _md5_key, _md5_target,
                                          _xs_macro, _xs_samples)
    h8 = load_set("holdout8")
    M32 = 0xFFFFFFFF

    # MT607: generator 77 by a scalar loop over Python ints
    k = h8.get("mt607_random")
    d = k.make_inputs(30, 3)
    a, mb, mc, seed = (int(v) for v in d["ds_MT"].reshape(-1, 4)[77])
    mt = [seed]
    for s in range(1, MT_NN):
        mt.append((1812433253 * (mt[-1] ^ (mt[-1] >> 30)) + s) & M32)
    want, state = [], 0
    for _ in range(30):
        s1, sm = (state + 1) % MT_NN, (state + MT_MM) % MT_NN
        x = (mt[state] & 0xFFFFFFFE) | (mt[s1] & 1)
        x = mt[sm] ^ (x >> 1) ^ (a if x & 1 else 0)
        mt[state], state = x, s1
        x ^= x >> 12
        x ^= (x << 7) & mb & M32
        x ^= (x << 15) & mc & M32
        x ^= x >> 18
        want.append(float((np.float32(x) + np.float32(1.0)) / np.float32(4294967296.0)))
    assert k.reference(d).reshape(30, MT_RNG_COUNT)[:, 77].tolist() == want

    # digit histograms: every pass counts every key; a second launch adds the same counts again
    k = h8.get("radix_histogram_onesweep")
    d, before = _run_in_cudasim(k, 20000)
    bins = d["d_bins_out"].reshape(4, 256).astype(np.int64)
    assert (bins.sum(axis=1) == 20000).all()
    key = int(before["d_keys_in"][123])
    assert all(k.reference(before).reshape(4, 256)[p, (key >> (8 * p)) & 0xFF] >= 1 for p in range(4))
    from cudasim import InOut, SourceModule
    f = SourceModule(k.path.read_text(), no_extern_c=True, name_expressions=[k.entry],
                     filename=str(k.path)).get_function(k.entry)
    grid, block, shared = k.launch(20000, 4)
    f(*[InOut(v) if isinstance(v, np.ndarray) else v for v in k.args(d)], block=block, grid=grid, shared=shared)
    assert np.array_equal(d["d_bins_out"].astype(np.int64), 2 * k.reference(before).astype(np.int64))

    # llm.c matmul: entries by fsum
    k = h8.get("matmul_forward_llmc")
    d = k.make_inputs(128, 4)
    C, OC = int(d["C"]), int(d["OC"])
    out = k.reference(d).reshape(-1, OC)
    for r, c in ((0, 0), (127, 255), (64, 129)):
        assert out[r, c] == pytest.approx(math.fsum(float(d["inp"][r * C + t]) * float(d["weight"][c * C + t])
                                                    for t in range(C)) + float(d["bias"][c]), rel=1e-12, abs=1e-12)

    # Mamba scan: sequence 1, channel 200 by the scalar recurrence; the softplus cut is taken somewhere
    k = h8.get("ssm_scan_llamacpp")
    L = 40
    d = k.make_inputs(L, 5)
    S, D, N = 2, 256, 16
    got = k.reference(d)
    y, hs = got[:S * L * D].reshape(S, L, D), got[S * L * D:].reshape(S, D, N)
    b, ch = 1, 200
    h = [float(v) for v in d["src0"].reshape(S, D, N)[b, ch]]
    for t in range(L):
        dt = float(d["src2"].reshape(S, L, D)[b, t, ch])
        dt = math.log1p(math.exp(dt)) if dt <= 20.0 else dt
        xdt = float(d["src1"].reshape(S, L, D)[b, t, ch]) * dt
        Bt, Ct = d["src4"].reshape(S, L, N)[b, t], d["src5"].reshape(S, L, N)[b, t]
        h = [h[j] * math.exp(dt * float(d["src3"].reshape(D, N)[ch, j])) + float(Bt[j]) * xdt for j in range(N)]
        assert y[b, t, ch] == pytest.approx(math.fsum(h[j] * float(Ct[j]) for j in range(N)), rel=1e-10, abs=1e-12)
    assert np.allclose(hs[b, ch], h, rtol=1e-10, atol=1e-12)
    assert (k.make_inputs(2048, 0)["src2"] > 20).any()

    # RoIAlign: torchvision's bilinear_interpolate and bin loop, line by line, for a few outputs
    k = h8.get("roi_align_torchvision")
    d = k.make_inputs(2, 6)
    C, H, W, P = int(d["channels"]), int(d["height"]), int(d["width"]), int(d["pooled_height"])
    feat = d["input"].astype(np.float64)
    want = k.reference(d)

    def bilinear(plane, y, x):
        if y < -1.0 or y > H or x < -1.0 or x > W:
            return 0.0
        y, x = max(y, 0.0), max(x, 0.0)
        yl, xl = int(y), int(x)
        if yl >= H - 1:
            yh = yl = H - 1
            y = float(yl)
        else:
            yh = yl + 1
        if xl >= W - 1:
            xh = xl = W - 1
            x = float(xl)
        else:
            xh = xl + 1
        ly, lx = y - yl, x - xl
        hy, hx = 1.0 - ly, 1.0 - lx
        return hy * hx * plane[yl * W + xl] + hy * lx * plane[yl * W + xh] + ly * hx * plane[yh * W + xl] + \
            ly * lx * plane[yh * W + xh]
    for index in (0, 100, 2 * C * P * P - 1):
        pw, ph, c, n = index % P, index // P % P, index // P // P % C, index // P // P // C
        roi = d["rois"][5 * n:5 * n + 5].astype(np.float64)
        sw, sh, ew, eh = (roi[j] * 0.25 - 0.5 for j in (1, 2, 3, 4))
        bh, bw = (eh - sh) / P, (ew - sw) / P
        plane = feat[(int(roi[0]) * C + c) * H * W:(int(roi[0]) * C + c + 1) * H * W]
        total = sum(bilinear(plane, sh + ph * bh + (iy + 0.5) * bh / 2, sw + pw * bw + (ix + 0.5) * bw / 2)
                    for iy in range(2) for ix in range(2))
        assert want[index] == pytest.approx(total / 4, rel=1e-12, abs=1e-12)

    # segmented scan: a tile by a plain loop (segments restart at flags and at the tile)
    k = h8.get("segmented_scan_cub")
    d = k.make_inputs(5000, 7)
    got = k.reference(d)
    run = 0.0
    for i in range(SS_TILE, 2 * SS_TILE):
        run = float(d["d_in"][i]) + (0.0 if d["d_flags"][i] or i == SS_TILE else run)
        assert got[i] == pytest.approx(run, rel=1e-12)

    # BSR: against the dense matrix the blocks make
    k = h8.get("bsr_spmv_4x4")
    d = k.make_inputs(3, 8)
    rowptr, colind = _bsr_pattern(3)
    assert np.array_equal(rowptr, d["bsrRowPtr"]) and rowptr[-1] == (3 * 3 - 2) ** 3 == 343
    dense = np.zeros((108, 108))
    V = d["bsrVal"].astype(np.float64).reshape(-1, 4, 4)
    for br in range(27):
        for kk in range(rowptr[br], rowptr[br + 1]):
            dense[4 * br:4 * br + 4, 4 * colind[kk]:4 * colind[kk] + 4] = V[kk]
    assert np.allclose(k.reference(d), dense @ d["x"] + 0.5 * d["y"], rtol=1e-12, atol=1e-12)

    # cuDF valid_if in cudasim: the valid count, the mask's bits
    k = h8.get("valid_if_cudf")
    d, before = _run_in_cudasim(k, 20000)
    assert d["valid_count"][0] == int((~np.isnan(before["begin"])).sum()) > 0
    bits = np.unpackbits(d["output"].view(np.uint8), bitorder="little")
    assert np.array_equal(bits[:20000].astype(bool), ~np.isnan(before["begin"])) and not bits[20000:].any()

    # DCT: the cosine sum for one block, and the orthonormal inverse gives the block back
    k = h8.get("dct8x8_samples")
    d = k.make_inputs(32, 9)
    got = k.reference(d).reshape(32, 32)
    blk = d["src"].astype(np.float64).reshape(32, 32)[8:16, 16:24]
    cu = [math.sqrt(1 / 8)] + [math.sqrt(2 / 8)] * 7
    for u, v in ((0, 0), (3, 5), (7, 1)):
        s = sum(blk[y, x] * math.cos((2 * y + 1) * u * math.pi / 16) * math.cos((2 * x + 1) * v * math.pi / 16)
                for y in range(8) for x in range(8))
        assert got[8 + u, 16 + v] == pytest.approx(cu[u] * cu[v] * s, rel=1e-12, abs=1e-9)
    m = _dct_matrix()
    assert np.allclose(m.T @ got[8:16, 16:24] @ m, blk, atol=1e-9)

    # SHOC MD5 in cudasim: the found key and digest are hashlib's; RFC 1321's vector
    assert hashlib.md5(b"abc").hexdigest() == "900150983cd24fb0d6963f7d28e17f72"
    k = h8.get("md5hash_shoc")
    d, _ = _run_in_cudasim(k, 3000)
    t = _md5_target(3000)
    assert d["foundIndex"][0] == t and bytes(d["foundKey"][:MD5_BYTES]) == _md5_key(t) and d["foundKey"][7] == 0
    assert d["foundDigest"].astype("<u4").tobytes() == hashlib.md5(_md5_key(t)).digest()
    assert _md5_key(MD5_VALS + 3)[:2] == bytes([3, 1])

    # XSBench: the fast-forwarded seeds are the stepped ones; materials follow pick_mat's distribution;
    # macroscopic cross sections by a plain binary search and sum
    a, seed, stepped = 2806196910506780709, XS_SEED, []
    for _ in range(40):
        stepped.append(seed)
        seed = (a * seed + 1) & XS_M63
    assert _lcg_forward(XS_SEED, np.arange(40)).tolist() == stepped
    _, mats = _xs_samples(200000)
    freq = np.bincount(mats, minlength=12) / 200000
    assert abs(freq[0] - (1 - sum(XS_DIST[1:]))) < 0.005 and abs(freq[2] - XS_DIST[2]) < 0.005
    k = h8.get("xsbench_lookup")
    d = k.make_inputs(64, 10)
    G, mx = int(d["n_gridpoints"]), int(d["max_num_nucs"])
    grid = d["nuclide_grid"].reshape(-1, G, 6)
    energy, mat = _xs_samples(64)
    macro = _xs_macro(d)
    for i in (0, 31, 63):
        acc = [0.0] * 5
        for j in range(int(d["num_nucs"][mat[i]])):
            g = grid[d["mats"][mat[i] * mx + j]]
            lo, hi = 0, G - 1
            while hi - lo > 1:
                mid = lo + (hi - lo) // 2
                lo, hi = (lo, mid) if g[mid, 0] > energy[i] else (mid, hi)
            f = (g[lo + 1, 0] - energy[i]) / (g[lo + 1, 0] - g[lo, 0])
            for c in range(5):
                acc[c] += (g[lo + 1, c + 1] - f * (g[lo + 1, c + 1] - g[lo, c + 1])) * d["concs"][mat[i] * mx + j]
        assert np.allclose(macro[i], acc, rtol=1e-12) and k.reference(d)[i] == int(np.argmax(acc)) + 1


def _wild_run(kk, d: dict, n: int, **kw):
    """A wild kernel at size n in cudasim on the inputs d (changed in place); the launch."""
    from cudasim import InOut, SourceModule
    exprs = [kk.entry] if "<" in kk.entry else []
    f = SourceModule(kk.path.read_text(), no_extern_c=True, name_expressions=exprs,
                     filename=str(kk.path)).get_function(kk.entry)
    grid, block, shared = kk.launch(n, 4)
    return f(*[InOut(v) if isinstance(v, np.ndarray) else v for v in kk.args(d)], block=block, grid=grid,
             shared=shared, **kw)


def _gen_dot(n: int, cond: float, rng) -> tuple[np.ndarray, np.ndarray, "Fraction"]:
    """Ogita, Rump & Oishi's GenDot (Algorithm 6.1): x, y of about the condition number `cond`, and
    their exact dot product."""
    from fractions import Fraction
    n2, b = n // 2, math.log2(cond)
    x, y = np.empty(n), np.empty(n)
    e = np.rint(rng.random(n2) * b / 2).astype(int)
    e[0], e[-1] = round(b / 2) + 1, 0
    x[:n2] = (2 * rng.random(n2) - 1) * np.exp2(e)
    y[:n2] = (2 * rng.random(n2) - 1) * np.exp2(e)
    acc = sum((Fraction(a) * Fraction(c) for a, c in zip(x[:n2], y[:n2])), Fraction(0))
    for i, ei in zip(range(n2, n), np.rint(np.linspace(b / 2, 0, n - n2)).astype(int)):
        x[i] = (2 * rng.random() - 1) * 2.0 ** ei
        y[i] = float((Fraction((2 * rng.random() - 1) * 2.0 ** ei) - acc) / Fraction(x[i]))
        acc += Fraction(x[i]) * Fraction(y[i])
    p = rng.permutation(n)
    return x[p], y[p], acc


def test_wild_references():
    """The wild set's references checked apart from their kernels: the matrix product, the field
    inverses, the kd-tree's nearest neighbours, the bags, the ODE steps, the structure factors, the
    quantized dot products and the softmax against plain loops (brute force, Python integers, complex
    exponentials), the bf16 and Q8_1 encodings against their definitions, the BN254 constants the
    kernel declares against the field; and as cudasim computes them: the LayerNorm's bf16 rows and
    means, the Ewald energies, the kd-tree's ids with its debug printf on and its assert failing on an
    empty tree, PyTorch's offset2bag, bag sizes and index assert, Dot2 on vectors of condition 1e12
    (exact to 1e-9 where a plain double dot is not), and the interval products containing the exact
    ones, with the rounding directions they need."""
    need_nvrtc()
    import cmath
    import re
    from fractions import Fraction

    from cudasim.calls import AssertionFailed
    from corpus.wild.manifest import (BN_MONT, BN_R, KD_EXAMINED, KD_LEAF, LN_C, Q8_0, Q8_1, QK, _from_bf16,
                                      _from_limbs_u32, _kd_build, _kd_inputs, _kd_visits, _limbs_u32, _ln_out,
                                      _ln_stats, _nn_grid, _q8_1, _to_bf16)
    w = load_set("wild")
    rng = np.random.default_rng(11)

    # matrixMul: elements against a plain sum
    k = w.get("matrixmul_samples_program")
    d = k.make_inputs(128, 3)
    wA, wB = int(d["wA"]), int(d["wB"])
    C = k.reference(d).reshape(-1, wB)
    for i, j in ((0, 0), (127, 95), (64, 33)):
        assert C[i, j] == pytest.approx(math.fsum(float(d["A"][i * wA + t]) * float(d["B"][t * wB + j])
                                                  for t in range(wA)), rel=1e-12)

    # bf16: round to nearest even, as __float2bfloat16
    v = np.array([1.0, 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8, 1 + 2.0 ** -8 + 2.0 ** -20, -2.5, 3.0e38], np.float32)
    assert _to_bf16(v).tolist() == [0x3F80, 0x3F80, 0x3F82, 0x3F81, 0xC020, 0x7F62]
    assert np.array_equal(_from_bf16(_to_bf16(v[:3])), np.array([1.0, 1.0, 1 + 2.0 ** -6], np.float32))
    # LayerNorm: a row's statistics by plain sums; in cudasim the bf16 rows within an ulp and the means
    k = w.get("layernorm_bf16_llmc_header")
    d = k.make_inputs(32, 4)
    row = [float(t) for t in _from_bf16(d["inp"][5 * LN_C:6 * LN_C])]
    m = math.fsum(row) / LN_C
    mean, rstd = _ln_stats(d)
    assert mean[5] == pytest.approx(m, rel=1e-13)
    assert rstd[5] == pytest.approx(1 / math.sqrt(math.fsum((t - m) ** 2 for t in row) / LN_C + 1e-5), rel=1e-13)
    want = _ln_out(d)
    _wild_run(k, d, 32)
    got = _from_bf16(d["out"]).astype(np.float64)
    ulp = np.exp2(np.floor(np.log2(np.abs(want))) - 7)
    assert (np.abs(got - want) <= ulp + 1e-6).all() and (np.abs(got - want) > ulp / 4).any()  # rounded, as bf16
    assert np.allclose(d["mean"], mean, rtol=1e-6, atol=1e-7) and np.allclose(d["rstd"], rstd, rtol=1e-5)

    # the template's launch bounds, computed from its parameters, reach the compile; the whole program goes to nvcc
    from cudasim import nvcc
    from cudasim.compile import compile_cuda
    k = w.get("mmvq_q8_0_llamacpp")
    res = compile_cuda(k.path.read_text(), [k.entry], filename=str(k.path))
    body = res.ptx.split(f".entry {res.lowered[k.entry]}(")[1].split(".entry")[0]
    assert re.search(r"\.maxntid\s+128, 1, 1", body) and re.search(r"\.minnctapersm\s+1\b", body)
    if nvcc.unavailable() is None:
        k = w.get("matrixmul_samples_program")
        res = compile_cuda(k.path.read_text(), [k.entry], filename=str(k.path))
        assert res.compiler.startswith("nvcc") and "host-only header <cstdlib>" in res.compiler

    # Q8_1 as llama.cpp quantizes; mmvq rows against plain loops over the blocks' bytes
    x = rng.standard_normal(256).astype(np.float32)
    q = _q8_1(x)
    dq = q["ds"][:, 0].astype(np.float64)
    assert (np.abs(q["qs"]).max(axis=1) == 127).all()
    # within half a step, and the step's fp16 rounding (2^-11 of it) over up to 127 steps
    assert (np.abs(x.reshape(-1, QK) - dq[:, None] * q["qs"]) <= dq[:, None] * (0.5 + 127 * 2.0 ** -11)).all()
    assert np.allclose(q["ds"][:, 1].astype(np.float64), dq * q["qs"].sum(axis=1), rtol=2e-3, atol=1e-6)
    k = w.get("mmvq_q8_0_llamacpp")
    d = k.make_inputs(16, 5)
    want = k.reference(d)
    raw, y = d["vx"].tobytes(), d["vy"].tobytes()
    nb = int(d["ncols_x"]) // QK
    for r in (0, 9, 15):
        total = 0.0
        for b in range(nb):
            blk = raw[(r * nb + b) * Q8_0.itemsize:(r * nb + b + 1) * Q8_0.itemsize]
            yb = y[b * Q8_1.itemsize:(b + 1) * Q8_1.itemsize]
            dx = float(np.frombuffer(blk[:2], "<f2")[0])
            dy = float(np.frombuffer(yb[:2], "<f2")[0])
            total += dx * dy * sum(int(a) * int(c) for a, c in zip(np.frombuffer(blk[2:], "i1"),
                                                                    np.frombuffer(yb[4:], "i1")))
        assert want[r] == pytest.approx(total, rel=1e-12)

    # softmax: every row by math.exp
    k = w.get("softmax_half2_rows")
    d = k.make_inputs(8, 6)
    want = k.reference(d).reshape(-1, 1024)
    for r in range(8):
        xs = [float(t) * float(d["scale"]) for t in d["in"][r * 1024:(r + 1) * 1024]]
        e = [math.exp(t - max(xs)) for t in xs]
        assert np.allclose(want[r], [t / math.fsum(e) for t in e], rtol=1e-12, atol=0)

    # Ewald: the molecules' geometry, the half space, S(k) by complex exponentials; the energies in cudasim
    k = w.get("ewald_recip_f64")
    d = k.make_inputs(64, 7)
    a = d["xyzq"].reshape(-1, 3, 4)
    oh = np.linalg.norm(a[:, 1:, :3] - a[:, :1, :3], axis=2)
    cos_hoh = ((a[:, 1, :3] - a[:, 0, :3]) * (a[:, 2, :3] - a[:, 0, :3])).sum(axis=1)
    assert np.allclose(oh, 1.0) and np.allclose(cos_hoh, math.cos(math.radians(109.47)))
    assert abs(a[:, :, 3].sum()) < 1e-12
    kv = d["kvec"].reshape(-1, 4)[:, :3]
    nmax = int(1.1 * float(d["box"]) / (2 * math.pi))
    ball = [(i, j, l) for i in range(-nmax, nmax + 1) for j in range(-nmax, nmax + 1) for l in range(-nmax, nmax + 1)
            if 0 < i * i + j * j + l * l <= nmax * nmax]
    assert 2 * len(kv) == len(ball) and not ({tuple(m) for m in kv} & {tuple(-m) for m in kv})
    rho = k.reference(d).reshape(-1, 2)
    L = float(d["box"])
    for t in (0, len(kv) // 2, len(kv) - 1):
        kk = [2 * math.pi / L * int(c) for c in kv[t]]
        s = sum(q * cmath.exp(1j * (kk[0] * p[0] + kk[1] * p[1] + kk[2] * p[2])) for *p, q in a.reshape(-1, 4))
        assert rho[t] == pytest.approx([s.real, s.imag], rel=1e-12, abs=1e-12)
    before = {n_: (v_.copy() if isinstance(v_, np.ndarray) else v_) for n_, v_ in d.items()}
    _wild_run(k, d, 64)
    s2 = (rho * rho).sum(axis=1)
    k2 = ((kv * 2 * math.pi / L) ** 2).sum(axis=1)
    energy = 4 * math.pi / L ** 3 * np.exp(-k2 / (4 * float(d["alpha"]) ** 2)) / k2 * s2
    assert np.allclose(d["energy_k"], energy, rtol=1e-10) and np.allclose(d["rho_k"], k.reference(before), rtol=1e-10,
                                                                          atol=1e-10)

    # BN254: the kernel's constants are the field's; every inverse times its element is one (Montgomery)
    k = w.get("bn254_fr_inverse")
    src = k.path.read_text()

    def constant(name):
        body = re.search(name + r"\[FIELD_LIMBS\] = \{([^}]*)\}", src).group(1)
        return sum(int(h, 16) << (64 * i) for i, h in enumerate(re.findall(r"0x([0-9a-f]+)ULL", body)))
    assert constant("FIELD_P") == BN_R and constant("FIELD_ONE") == BN_MONT % BN_R
    assert constant("FIELD_P_MINUS_2") == BN_R - 2
    assert int(re.search(r"#define FIELD_INV (0x[0-9a-f]+)ULL", src).group(1), 16) * BN_R % (1 << 64) == (1 << 64) - 1
    d = k.make_inputs(16, 8)
    ins, outs = _from_limbs_u32(d["in"]), _from_limbs_u32(k.reference(d).astype(np.uint32))
    assert all(0 < a_ < BN_R and a_ * o_ % BN_R == BN_MONT * BN_MONT % BN_R for a_, o_ in zip(ins, outs))
    assert _from_limbs_u32(_limbs_u32([BN_R - 1, 5])) == [BN_R - 1, 5]

    # kd-tree: the tree's order, the grid search against brute force; in cudasim the ids, the debug
    # printf (off as the entry launches it) and the assert on an empty tree
    k = w.get("kdtree_nn_recursive")
    d = k.make_inputs(1024, 9)
    tree = d["tree"].reshape(-1, 4)

    def ordered(lo, hi, depth):
        if hi - lo <= KD_LEAF:
            return True
        mid, ax = (lo + hi) >> 1, depth % 3
        return ((tree[lo:mid, ax] <= tree[mid, ax]).all() and (tree[mid + 1:hi, ax] >= tree[mid, ax]).all()
                and ordered(lo, mid, depth + 1) and ordered(mid + 1, hi, depth + 1))
    assert ordered(0, len(tree), 0) and sorted(tree[:, 3].astype(int)) == list(range(len(tree)))
    qs = d["queries"].reshape(-1, 4)[:, :3].astype(np.float64)
    brute = ((qs[:, None, :] - tree[None, :, :3].astype(np.float64)) ** 2).sum(axis=2)
    best, arg = _nn_grid(tree[:, :3].astype(np.float64), qs)
    assert np.array_equal(best, brute.min(axis=1)) and np.array_equal(arg, brute.argmin(axis=1))
    assert np.array_equal(k.reference(d), brute.min(axis=1))
    ids = tree[brute.argmin(axis=1), 3].astype(int)
    d["debug"] = np.int32(1)
    launch = _wild_run(k, d, 1024, printf=False)
    assert np.array_equal(d["nn_id"], ids)
    lines = launch.stats["printf"].splitlines()
    assert len(lines) == 4 and all(f"query {i} " in lines[i] and f": point {ids[i]} at " in lines[i]
                                   for i in range(4))
    d = k.make_inputs(1024, 9)
    d["npts"] = np.int32(0)
    with pytest.raises(AssertionFailed, match="idx >= 0"):
        _wild_run(k, d, 1024, printf=False)
    full = _kd_inputs(1 << 16, np.random.default_rng(0))
    assert _kd_visits(full, 256) == pytest.approx(KD_EXAMINED, rel=0.1)  # the FLOPs' weight, on fewer queries
    depth, size = 0, (1 << 16) - 1
    while size > KD_LEAF:
        size, depth = size // 2, depth + 1
    assert depth == 10 and (depth + 1) * 72 + 80 <= 1024  # the deepest call, in the default stack
    assert np.array_equal(_kd_build(np.array([[0.5, 0, 0]] * 3, np.float32)), [0, 1, 2])

    # EmbeddingBag: bags by plain loops; in cudasim offset2bag and bag_size, and the index assert
    k = w.get("embedding_bag_pytorch")
    d = k.make_inputs(64, 10)
    want = k.reference(d).reshape(64, -1)
    ends = list(d["offsets"][1:]) + [int(d["numIndices"])]
    assert any(e_ == s_ for s_, e_ in zip(d["offsets"], ends))  # an empty bag among them
    for b in (0, 17, 63):
        lo, hi = int(d["offsets"][b]), int(ends[b])
        for f in (0, 77):
            assert want[b, f] == pytest.approx(math.fsum(float(d["per_sample_weights"][e_]) *
                                                         float(d["weight"][int(d["input"][e_]) * 128 + f])
                                                         for e_ in range(lo, hi)), rel=1e-12, abs=1e-15)
    _wild_run(k, d, 64)
    sizes = np.diff(np.r_[d["offsets"], int(d["numIndices"])])
    assert np.array_equal(d["bag_size"], sizes) and np.array_equal(d["offset2bag"], np.repeat(np.arange(64), sizes))
    d = k.make_inputs(64, 10)
    d["input"][5] = d["numRows"]
    with pytest.raises(AssertionFailed, match="numRows"):
        _wild_run(k, d, 64, printf=False)

    # repressilator: two systems by a plain RK4
    k = w.get("repressilator_rk4_noinline")
    d = k.make_inputs(256, 11)
    want = k.reference(d).reshape(6, -1)
    n, h = 256, float(d["dt"])
    for s in (0, 200):
        al, al0, be = (float(d["params"][j * n + s]) for j in range(3))

        def rhs(y):
            return [-y[i] + al / (1 + y[3 + (i + 2) % 3] ** 2) + al0 for i in range(3)] + \
                   [-be * (y[3 + i] - y[i]) for i in range(3)]
        y = [float(d["y0"][j * n + s]) for j in range(6)]
        for _ in range(int(d["nsteps"])):
            k1 = rhs(y)
            k2 = rhs([a_ + h / 2 * b_ for a_, b_ in zip(y, k1)])
            k3 = rhs([a_ + h / 2 * b_ for a_, b_ in zip(y, k2)])
            k4 = rhs([a_ + h * b_ for a_, b_ in zip(y, k3)])
            y = [a_ + h / 6 * (p1 + 2 * (p2 + p3) + p4) for a_, p1, p2, p3, p4 in zip(y, k1, k2, k3, k4)]
        assert np.allclose(want[:, s], y, rtol=1e-10)

    # Dot2 in cudasim on ill-conditioned vectors: the pairs sum to the exact dot product
    k = w.get("dot2_compensated_f64")
    n = 20000
    d = k.make_inputs(n, 12)
    d["x"], d["y"], exact = _gen_dot(n, 1e12, rng)
    assert float(2 * sum(abs(Fraction(a_) * Fraction(b_)) for a_, b_ in zip(d["x"], d["y"])) / abs(exact)) > 1e11
    _wild_run(k, d, n)
    total = sum(Fraction(float(v_)) for v_ in d["partial"])
    assert abs(total - exact) <= 1e-9 * abs(exact)
    assert abs(Fraction(float(np.dot(d["x"], d["y"]))) - exact) > 1e-7 * abs(exact)  # a plain double dot is not

    # interval product in cudasim: for point vectors every enclosure holds the exact product and is a few
    # ulps wide (rounded to nearest both ends would coincide, and miss the exact value); with radii, the
    # enclosures hold the exact midpoint-radius bounds
    k = w.get("interval_gemv_rounded")
    d = k.make_inputs(64, 13)
    d["xr"][:] = 0.0
    _wild_run(k, d, 64)
    A, xm = d["A"].reshape(64, -1), d["xm"]
    enc = d["y"].reshape(-1, 2)
    for r in range(64):
        ex = sum(Fraction(a_) * Fraction(b_) for a_, b_ in zip(A[r], xm))
        assert Fraction(enc[r, 0]) <= ex <= Fraction(enc[r, 1]), r
        assert enc[r, 1] - enc[r, 0] <= 1e-12 * max(1.0, abs(float(ex)))
    assert (enc[:, 1] > enc[:, 0]).sum() >= 60
    d = k.make_inputs(64, 13)
    _wild_run(k, d, 64)
    A, xm, xr = d["A"].reshape(64, -1), d["xm"], d["xr"]
    enc = d["y"].reshape(-1, 2)
    for r in (0, 31, 63):
        mid = sum(Fraction(a_) * Fraction(b_) for a_, b_ in zip(A[r], xm))
        rad = sum(abs(Fraction(a_)) * Fraction(b_) for a_, b_ in zip(A[r], xr))
        assert Fraction(enc[r, 0]) <= mid - rad and mid + rad <= Fraction(enc[r, 1])
        assert (enc[r, 1] - enc[r, 0]) == pytest.approx(2 * float(rad), rel=1e-6)
    assert np.allclose(k.reference(d), d["y"], rtol=0, atol=1e-10 * np.abs(d["y"]).max())


def test_launch_bounds_signature():
    """A kernel declared with launch bounds, reached by its template name expression."""
    k = manifest.get("rmsnorm_256")
    assert [p.name for p in parse_signature(k.path.read_text(), k.entry)] == ["x", "w", "y", "cols", "eps"]
    nested = "template <int T> __global__ void __launch_bounds__(T * (2), (T > 64 ? 2 : 1)) f(int n, float* a) {}"
    assert [(p.name, p.pointer) for p in parse_signature(nested, "f<128>")] == [("n", False), ("a", True)]


@pytest.mark.parametrize("kset", list(SETS))
def test_measured_results_have_units_and_protocols(kset):
    path = measured_path(kset)
    if not path.exists():
        pytest.skip(f"{path.name} not measured yet (python -m corpus.measure --set {kset})")
    d = json.loads(path.read_text())
    assert d.get("set", "corpus") == kset
    assert "H100" in d["device"]["name"] and d["date"] and d["device"]["smi"]
    assert {"event_ms", "event_ms_repeat", "ncu"} <= set(d["protocols"])
    assert set(d["kernels"]) == {k.name for k in load_set(kset).CORPUS}
    for name, r in d["kernels"].items():
        assert r["ok"], name  # every timed kernel was verified against numpy first
        assert r["event_ms"] > 0 and r["event_ms_repeat"] > 0
        # sized by bytes for 20 us - 5 ms; contention the sizing cannot foresee may take longer
        # (the held-out global-atomic histogram: 7.2 ms), a unit slip would not stay under 10
        assert 0.02 <= r["event_ms"] <= 10.0, name
        for metric in r["ncu"]["metrics"]:
            assert registry.metric(metric).unit, metric  # every counter's unit is declared by its model


def test_comparison_has_units_and_protocols():
    c = json.loads((RESULTS / "corpus_compare_h100.json").read_text())
    assert c["protocols"] and {t["kernel"] for t in c["times"]} == set(NAMES)
    assert all(r["unit"] for r in c["rows"])
    for t in c["times"]:
        assert all(key.endswith(("_us", "_pct")) for key in t if isinstance(t[key], float))
        assert "error_pct" in t or "timing" in t["refusals"]
    s = c["time_summary"]
    assert s["median_abs_error_pct"] is not None and s["kernels_timed"] >= 12
    text = (RESULTS / "corpus_compare_h100.md").read_text()
    assert "default clocks" in text and "locked to base" in text


def test_predictions_in_worker_processes_are_the_ones_made_in_process():
    from corpus.compare import compare
    measured = json.loads((RESULTS / "corpus_h100.json").read_text())
    names = ["stencil1d", "saxpy_grid_stride"]
    one, two = (compare(measured, names, jobs=j) for j in (1, 2))
    assert [t["kernel"] for t in two["times"]] == [t["kernel"] for t in one["times"]] == names
    assert [t["predicted_us"] for t in two["times"]] == [t["predicted_us"] for t in one["times"]]
    assert two["rows"] == one["rows"]


def test_inputs_other_than_those_measured_are_said_to_differ():
    from corpus import manifest
    from corpus.compare import compare, markdown
    measured = json.loads((RESULTS / "corpus_h100.json").read_text())
    k = manifest.get("stencil1d")
    assert k.inputs_digest() == k.inputs_digest()  # seed 0: the same bytes every time here
    for digest, differ in ((k.inputs_digest(), False), ("0" * 64, True)):
        measured["kernels"]["stencil1d"]["inputs_sha256"] = digest
        c = compare(measured, ["stencil1d"])
        assert bool(c["times"][0].get("inputs_differ")) == differ
        c.update(set="corpus", measured_file="corpus/results/corpus_h100.json")
        assert ("Inputs differ from those measured" in markdown(c)) == differ


def test_a_miss_is_named_by_what_is_known_of_it():
    from corpus.compare import cause
    st, ld = ("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
              "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")
    assert "contention" in cause(st, 100, 107, {"contention": True})
    assert cause(st, 107, 100, {"contention": True}) == "not explained"  # over the measurement: not ncu's extra
    assert cause(st, 100, 107, {"contention": False}) == "not explained"
    cas = {"notes": ["SASS: k.cu:7: a shared atomic ptxas writes as a compare-and-swap loop (LDS, ATOMS.CAST): ..."]}
    assert "compare-and-swap" in cause(ld, 100, 110, cas)
    assert "compare-and-swap" in cause("smsp__inst_executed_op_shared_ld.sum", 100, 110, cas)
    assert cause(ld, 110, 100, cas) == "not explained"  # more than measured: not retries
    assert cause(ld, 100, 107, {"contention": True}) == "not explained"  # loads: about +1% measured, not 7
    sampled = {"provenance": "sampled and scaled (blocks (0,0,0) of 64)"}
    assert "sampled" in cause("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 99, 100, sampled)
    assert cause("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 99, 100, {"provenance": "simulated"}) == \
        "not explained"


def test_the_summary_of_the_sets_is_their_tables_taken_together():
    """corpus.summary reads the committed comparisons: each set's figures are its table's own, and those of
    the sets together are over the union of their kernels (here checked on two made-up tables too)."""
    from corpus import summary
    t = lambda errs, ok, miss: {"run": "r", "times": [{"kernel": f"k{i}", "error_pct": e} for i, e in enumerate(errs)]  # noqa: E731
                                + [{"kernel": "refused", "refusals": {"timing": "x"}}],
                                "rows": [{"status": "ok"}] * ok + [{"status": "MISS"}] * miss + [{"status": "info"}]}
    s = summary.summarize({"a": t([10.0, -30.0], 3, 1), "b": t([60.0], 5, 0)})
    assert s["sets"]["a"]["timed"] == 2 and s["sets"]["a"]["kernels"] == 3 and s["sets"]["a"]["median"] == 20.0
    assert (s["all"]["timed"], s["all"]["median"], s["all"]["worst"]) == (3, 30.0, 60.0)
    assert (s["all"]["over_25"], s["all"]["over_50"], s["all"]["counters_ok"], s["all"]["counters_judged"]) == (2, 1, 8, 9)
    assert [x["kernel"] for x in s["over_25"]] == ["k0", "k1"] and s["over_25"][0]["set"] == "b"
    names = [n for n in summary.SETS if summary.table_path(n).is_file()]
    real = summary.summarize({n: json.loads(summary.table_path(n).read_text()) for n in names})
    for n in names:
        own = json.loads(summary.table_path(n).read_text())["time_summary"]
        assert real["sets"][n]["median"] == pytest.approx(own["median_abs_error_pct"])
        assert real["sets"][n]["worst"] == pytest.approx(own["max_abs_error_pct"])
    assert real["all"]["timed"] == sum(real["sets"][n]["timed"] for n in names)
