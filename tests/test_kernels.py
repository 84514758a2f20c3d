"""The kernel catalog: names, compiles, launch limits, inputs, references, and the CLIs.

GPU tests skip with the reason when PyCUDA or a CUDA device is absent; simulator tests
skip when cudasim has no SourceModule yet.
"""
import json
import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cudasim.gpus import get_gpu
from kernels import catalog
from kernels import __main__ as kmain

ISSUE_3_NAMES = [
    "vector_add_single", "vector_add_block_stride", "vector_add_grid_stride",
    "vector_add_pageable", "vector_add_pinned", "vector_add_streams",
    "copy", "transpose_naive", "transpose_tiled", "transpose_padded", "transpose_swizzled",
    "sgemm_uncoalesced", "sgemm_naive", "sgemm_smem", "sgemm_1d_blocktiling", "sgemm_2d_blocktiling",
    "sgemm_2d_blocktiling_small", "sgemm_vectorized", "sgemm_warptiling", "sgemm_double_buffered",
    "sgemm_tf32_wmma",
    "dgemm_packed", "dgemm_smem", "dgemm_smem_conflict_free", "dgemm_wmma",
]
KERNELS = [k for k in catalog.KERNELS if k.kind == "kernel"]
MAX_STATIC_SHARED = 48 * 1024
PROPS = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SMS = get_gpu().sms  # the default row's SM count (132 on the H100-SXM)


def test_catalog_lists_every_issue_3_name():
    """The issue's kernels are all there (the catalog may hold more), each name once; every host
    pipeline runs a kernel of the catalog, the issue's three the grid-stride vector add."""
    names = catalog.names()
    assert set(ISSUE_3_NAMES) <= set(names)
    assert len(set(names)) == len(names)
    pipelines = {k.name: k for k in catalog.KERNELS if k.kind == "pipeline"}
    assert {"vector_add_pageable", "vector_add_pinned", "vector_add_streams"} <= set(pipelines)
    assert all(pipelines[n].entry == "vector_add_grid_stride"
               for n in ("vector_add_pageable", "vector_add_pinned", "vector_add_streams"))
    entries = {k.entry for k in catalog.KERNELS if k.kind == "kernel"}
    assert all(k.entry in entries for k in pipelines.values())


@pytest.mark.parametrize("name", ISSUE_3_NAMES)
def test_entry_is_complete(name):
    k = catalog.get(name)
    assert k.path.is_file()
    assert k.teaches and k.params and k.constraint
    assert k.family in catalog.FAMILIES
    assert k.sim_size % k.multiple == 0 and k.default_size % k.multiple == 0
    assert k.default_size == {"vector_add": k.default_size, "transpose": 8192, "sgemm": 4096, "dgemm": 4096}[k.family]
    assert f"__global__" in k.path.read_text() and k.entry in k.path.read_text()
    for n, v in k.defines:  # every compile-time parameter is a guarded macro in the source
        assert f"#ifndef {n}" in k.path.read_text(), n


def test_unknown_name_lists_close_names():
    with pytest.raises(catalog.CatalogError) as e:
        catalog.get("sgemm_naiv")
    msg = str(e.value)
    assert "sgemm_naive" in msg and "\n" not in msg
    with pytest.raises(LookupError, match="python -m kernels"):
        catalog.get("zzzzzzzzzzzzzz")


def test_size_constraint_has_a_clear_message():
    k = catalog.get("sgemm_2d_blocktiling")
    with pytest.raises(catalog.CatalogError, match="multiple of 128.*try 128"):
        k.make_inputs(200)
    with pytest.raises(catalog.CatalogError):
        catalog.get("copy").check_size(0)


def _compile(k):
    from cudasim import compile_cuda

    res = compile_cuda(catalog.source(k), options=catalog.options(k), filename=str(k.path))
    return res.resources[res.entry(k.entry)]


@pytest.mark.parametrize("k", KERNELS, ids=lambda k: k.name)
def test_compiles_for_sm_90_within_hardware_limits(k):
    r = _compile(k)  # NVRTC, disk-cached by source and options
    assert 1 <= r.registers <= 255
    assert r.spill_stores == 0, f"{k.name} spills {r.spill_stores} bytes"
    assert r.shared_bytes <= MAX_STATIC_SHARED
    for size in (k.sim_size, k.default_size):
        grid, block, shared = k.launch(size, SMS)
        threads = block[0] * block[1] * block[2]
        assert 1 <= threads <= 1024 and block[2] <= 64
        assert threads % 32 == 0 or threads == 1
        assert r.registers * threads <= 65536, "the block must fit in the register file"
        assert shared + r.shared_bytes <= MAX_STATIC_SHARED
        assert all(1 <= g < 2**31 for g in grid) and grid[1] < 65536 and grid[2] < 65536


def test_check_command_prints_a_line_per_kernel(capsys):
    assert kmain.main(["--check"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == len(catalog.KERNELS)
    assert all("registers/thread" in line and "sm_90" in line for line in out)


def test_list_command_text_and_json(capsys):
    """Every catalog entry is listed once, under its family's heading, and in the JSON with its family."""
    assert kmain.main([]) == 0
    listed, family = {}, None
    for line in capsys.readouterr().out.splitlines():
        if line and not line[0].isspace():
            family = line.rstrip(":")
        elif line.startswith("  ") and not line[2].isspace():
            name = line.split()[0]
            assert name not in listed, f"{name} is listed twice"
            listed[name] = family
    assert listed == {k.name: k.family for k in catalog.KERNELS}
    assert set(ISSUE_3_NAMES) <= set(listed)
    assert kmain.main(["--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in rows] == catalog.names()
    assert [r["family"] for r in rows] == [k.family for k in catalog.KERNELS]


@pytest.mark.parametrize("name", ISSUE_3_NAMES)
def test_inputs_are_random_never_zero_and_outputs_poisoned(name):
    k = catalog.get(name)
    d = k.make_inputs(k.sim_size, seed=1)
    arrays = {n: v for n, v in d.items() if isinstance(v, np.ndarray) and v.ndim}
    for n, v in arrays.items():
        if n == k.output and k.family not in ("sgemm", "dgemm"):  # GEMM's C is read (beta * C)
            assert np.isnan(v).all(), f"{n} must be poisoned with NaN"
        else:
            assert np.isfinite(v).all() and (v != 0).all(), n
            assert np.unique(v).size > v.size // 2, f"{n} must be random"
    assert not np.array_equal(d[k.output], k.make_inputs(k.sim_size, seed=2)[k.output], equal_nan=True) \
        or k.family not in ("sgemm", "dgemm")
    # the dict is the kernel's argument list, in order: arrays and numpy scalars only
    assert all(isinstance(v, (np.ndarray, np.generic)) for v in k.args(d))


def test_gemm_inputs_match_the_signature():
    k = catalog.get("sgemm_naive")
    d = k.make_inputs(32)
    assert list(d) == ["M", "N", "K", "alpha", "A", "B", "beta", "C"]
    assert d["M"].dtype == np.int32 and d["alpha"].dtype == np.float32
    assert catalog.get("dgemm_wmma").make_inputs(64)["A"].dtype == np.float64


def test_references_agree_with_simple_numpy():
    rng = np.random.default_rng(3)
    k = catalog.get("sgemm_naive")
    d = k.inputs(8, rng)
    want = np.zeros((8, 8))
    for i in range(8):
        for j in range(8):
            want[i, j] = 1.5 * sum(float(d["A"][i, p]) * float(d["B"][p, j]) for p in range(8)) + 0.5 * float(d["C"][i, j])
    assert np.allclose(k.reference(d), want, rtol=1e-12, atol=1e-12)
    t = catalog.get("transpose_tiled").inputs(5, rng)
    assert (catalog.get("transpose_tiled").reference(t) == t["inp"].T).all()
    assert (catalog.get("copy").reference(t) == t["inp"]).all()
    v = catalog.get("vector_add_single").inputs(7, rng)
    assert np.allclose(catalog.get("vector_add_single").reference(v), [float(a) + float(b) for a, b in zip(v["a"], v["b"])])


def test_verify_rejects_nan_and_wrong_results():
    k = catalog.get("sgemm_naive")
    d = k.make_inputs(32)
    want = k.reference(d).astype(np.float32)
    assert k.rtol < catalog.get("sgemm_tf32_wmma").rtol
    assert catalog.get("dgemm_wmma").rtol < k.rtol
    assert catalog.verify(k, want, d)[0]
    bad = want.copy()
    bad[3, 4] += 1.0
    assert not catalog.verify(k, bad, d)[0]
    bad[0, 0] = np.nan
    assert catalog.verify(k, bad, d) == (False, float("inf"))


def test_variant_follows_its_parameters():
    k = catalog.variant("sgemm_double_buffered", BM=256, WM=64, WN=64, WMITER=4, WNITER=2, MINBLOCKS=1)
    assert ("DB_BM", 256) in k.defines and "-DDB_BM=256" in k.options()
    assert k.launch(1024, SMS) == ((8, 4, 1), (256, 1, 1), 0)
    assert k.multiple == 256
    with pytest.raises(catalog.CatalogError, match="no parameter"):
        catalog.variant("sgemm_double_buffered", XX=1)
    with pytest.raises(catalog.CatalogError, match="no tile parameters"):
        catalog.variant("sgemm_naive", BM=64)


def test_configure_from_defines_follows_the_macros():
    """transpose.cu's block is TILE x BLOCK_ROWS threads and its grid ceil(n / TILE)^2."""
    k = catalog.configure("transpose_tiled", {"BLOCK_ROWS": "16"})
    assert k.launch(256, SMS) == ((256 // 32, 256 // 32, 1), (32, 16, 1), 0)
    assert "-DBLOCK_ROWS=16" in k.options() and "-DTILE=32" in k.options()
    k = catalog.configure("copy", {"TILE": "16", "BLOCK_ROWS": "4"})
    assert k.launch(100, SMS) == ((7, 7, 1), (16, 4, 1), 0)
    assert catalog.configure("transpose_tiled", {}) is catalog.get("transpose_tiled")
    # a GEMM takes the parameter's name or the macro's
    for name in ("BK", "WT_BK"):
        assert ("WT_BK", 16) in catalog.configure("sgemm_warptiling", {name: "16"}).defines
    assert catalog.configure("vector_add_grid_stride", {"VEC": "1"}).options() == ["-DVEC=1"]
    for name, defines, match in [("sgemm_warptiling", {"BK": "banana"}, "BK=banana: not an integer"),
                                 ("sgemm_warptiling", {"NOPE": "1"}, "no parameter NOPE"),
                                 ("sgemm_naive", {"BM": "64"}, "no tile parameters"),
                                 ("transpose_tiled", {"BLOCK_ROWS": "12"}, "must divide TILE=32"),
                                 ("vector_add_grid_stride", {"VEC": "2"}, "VEC=2")]:
        with pytest.raises(catalog.CatalogError, match=match):
            catalog.configure(name, defines)


# -- launch configurations over random valid sizes ----------------------------------------------
def _sizes(k, limit=1 << 13):
    return st.integers(1, max(1, limit // k.multiple)).map(lambda m: m * k.multiple)


@PROPS
@given(data=st.data(), sms=st.integers(1, 200))
def test_gemm_grid_covers_the_output_exactly(data, sms):
    k = data.draw(st.sampled_from([k for k in KERNELS if k.family in ("sgemm", "dgemm")]))
    n = data.draw(_sizes(k))
    grid, block, _ = k.launch(n, sms)
    tiles = {name: v for name, v in k.defines}
    # one block per tile of C: the grid times the tile is the matrix, no more, no less
    bm = next((v for name, v in k.defines if name.endswith("_BM")), None)
    bn = next((v for name, v in k.defines if name.endswith("_BN")), None)
    if bm and bn:
        assert grid[0] * bn == n and grid[1] * bm == n, tiles
    else:  # fixed-tile kernels: the tile is the multiple (or 32 for the bounds-checked ones)
        tile = max(k.multiple, 32)
        assert grid[0] == -(-n // tile) and grid[1] == -(-n // tile) or grid[0] * 64 == n
    assert grid[2] == 1


@PROPS
@given(n=st.integers(1, 20000), sms=st.integers(1, 200))
def test_transpose_grid_covers_the_output_exactly(n, sms):
    for k in KERNELS:
        if k.family != "transpose":
            continue
        grid, block, _ = k.launch(n, sms)
        assert block == (32, 8, 1)
        # every element has a block, and no block lies wholly outside the matrix
        assert grid[0] * 32 >= n > (grid[0] - 1) * 32 and grid[1] * 32 >= n > (grid[1] - 1) * 32


@PROPS
@given(n=st.integers(1, 1 << 28), sms=st.integers(1, 200))
def test_grid_stride_fills_the_chip_without_idle_blocks(n, sms):
    grid, block, _ = catalog.get("vector_add_grid_stride").launch(n, sms)
    assert 1 <= grid[0] <= 8 * sms
    assert (grid[0] - 1) * block[0] * 4 < n or grid[0] == 1  # every block has float4s to move
    assert catalog.get("vector_add_single").launch(n, sms) == ((1, 1, 1), (1, 1, 1), 0)


@PROPS
@given(data=st.data())
def test_invalid_sizes_are_refused_with_the_rule(data):
    k = data.draw(st.sampled_from([k for k in KERNELS if k.multiple > 1]))
    n = data.draw(st.integers(1, 10000).filter(lambda v: v % k.multiple))
    with pytest.raises(catalog.CatalogError, match=str(k.multiple)):
        k.check_size(n)


# -- the simulator backend ---------------------------------------------------------------------
def _need_sim():
    import cudasim

    if not hasattr(cudasim, "SourceModule"):
        pytest.skip("cudasim.SourceModule is not there yet")


@pytest.mark.parametrize("k", KERNELS, ids=lambda k: k.name)
def test_every_kernel_gives_numpy_result_in_the_simulator(k):
    """Compiled by NVRTC for sm_90, run by cudasim at its small size, checked against float64."""
    _need_sim()
    from kernels import sim

    launch, out, inputs = sim.run(k.name)
    ok, err = catalog.verify(k, out[k.output], inputs)
    assert ok, f"{k.name}: relative error {err:.2e} > {k.rtol}"
    assert not [f for f in launch.findings if "race" in f.kind], launch.findings
    assert launch.stats["blocks_run"] == math.prod(k.launch(k.sim_size, sim.SIM_SMS)[0])
    if k.family == "transpose":
        assert err == 0.0  # data movement is exact


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([k for k in KERNELS if k.family in ("transpose", "vector_add")]), st.integers(1, 300))
def test_index_math_writes_every_output_once_and_stays_in_bounds(k, size):
    """Random sizes (not tile multiples): NaN-poisoned outputs must all be written, exactly."""
    _need_sim()
    from kernels import sim

    if k.family == "transpose":
        size = size % 97 + 1
    launch, out, inputs = sim.run(k.name, size)  # an out-of-bounds access would raise MemoryFault
    ok, err = catalog.verify(k, out[k.output], inputs)
    assert ok and not np.isnan(out[k.output]).any()


@settings(max_examples=8, deadline=None)
@given(st.sampled_from([k for k in KERNELS if k.family in ("sgemm", "dgemm") and k.multiple > 1]),
       st.integers(1, 3))
def test_tiled_gemms_are_right_over_several_tiles_and_panels(k, m):
    """Sizes of 1 to 3 tiles (up to 384 for the 128-tiles: 48 k panels), run whole."""
    _need_sim()
    from kernels import sim

    size = k.multiple * m
    if size > 256 and k.multiple < 128:
        size = k.multiple * 2
    launch, out, inputs = sim.run(k.name, size, seed=m)
    assert catalog.verify(k, out[k.output], inputs)[0]


def test_sim_backend_runs_chosen_blocks_only():
    _need_sim()
    from kernels import sim

    launch, outputs, inputs = sim.run("transpose_padded", 64, run_blocks=[0])
    out = outputs["out"]
    assert np.isfinite(out[:32, :32]).all() and np.isnan(out[32:, :]).all() and np.isnan(out[:, 32:]).all()
    assert (out[:32, :32] == inputs["inp"][:32, :32].T).all()


def test_run_cli_sim_and_pipeline_refusal(capsys):
    _need_sim()
    from kernels import run

    assert run.main(["transpose_tiled", "--backend", "sim", "--size", "64"]) == 0
    assert "OK" in capsys.readouterr().out
    for argv in (["vector_add_streams", "--backend", "sim"], ["sgemm_naiv", "--backend", "sim"]):
        with pytest.raises(SystemExit) as ended:  # unusable input: one line, status 2 (cudasim.console.fail)
            run.main(argv)
        assert ended.value.code == 2
    assert "sgemm_naive" in capsys.readouterr().err


# -- the GPU backend ---------------------------------------------------------------------------
def _need_gpu():
    from kernels import gpu

    try:
        gpu.init()
    except gpu.GpuUnavailable as e:
        pytest.skip(str(e))
    return gpu


def test_gpu_commands_exit_2_without_a_gpu(capsys):
    from kernels import bench, gpu, run

    try:
        gpu.init()
    except gpu.GpuUnavailable:
        for main, argv in ((run.main, ["copy"]), (bench.main, ["--family", "transpose"])):
            with pytest.raises(SystemExit) as ended:
                main(argv)
            assert ended.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 2 and all(line.startswith("error: ") for line in err)
    else:
        pytest.skip("a GPU is present: the no-GPU path is not reachable here")


@pytest.mark.parametrize("name", ["vector_add_grid_stride", "transpose_padded", "sgemm_double_buffered",
                                  "sgemm_tf32_wmma", "dgemm_wmma"])
def test_gpu_runs_and_verifies(name):
    gpu = _need_gpu()
    k = catalog.get(name)
    row = gpu.run_kernel(k, k.multiple * max(1, 256 // k.multiple) if k.family.endswith("gemm") else 4096,
                         repeats=3)
    assert row["ok"], row
    assert row["ms"] > 0 and row["registers"] > 0


def test_gpu_pipeline_reports_stages_and_overlap():
    gpu = _need_gpu()
    row = gpu.run_pipeline(catalog.get("vector_add_streams"), 1 << 20, repeats=2)
    assert row["ok"] and {"h2d", "kernel", "d2h", "total"} <= set(row["stages_ms"]) and "overlap_pct" in row


@pytest.mark.parametrize("k", KERNELS, ids=lambda k: k.name)
def test_regrouped_straight_line_code_changes_nothing_a_user_sees(k, monkeypatch):
    """cudasim runs independent instructions of one form as one op (cudasim.schedule); with and
    without that, the outputs, the trace, the findings and the instruction counts are identical."""
    _need_sim()
    import cudasim.execute as ex
    from kernels import sim

    fused, out_f, _ = sim.run(k.name)
    monkeypatch.setattr(ex, "FUSE", False)
    plain, out_p, _ = sim.run(k.name)
    assert out_f[k.output].tobytes() == out_p[k.output].tobytes()
    for key in ("thread_instructions", "warp_instructions"):
        assert fused.stats[key] == plain.stats[key]
    assert [str(f) for f in fused.findings] == [str(f) for f in plain.findings]
    assert len(fused.trace.events) == len(plain.trace.events)
    base_f, base_p = _lowest_global_address(fused.trace), _lowest_global_address(plain.trace)
    for a, b in zip(fused.trace.events, plain.trace.events):
        assert (a.pc, a.space, a.op, a.size) == (b.pc, b.space, b.op, b.size)
        order_a, order_b = np.lexsort((a.warps, a.blocks)), np.lexsort((b.warps, b.blocks))
        for field in ("blocks", "warps", "masks"):
            assert np.array_equal(getattr(a, field)[order_a], getattr(b, field)[order_b]), (a.text, field)
        shift = (base_f, base_p) if a.space == "global" else (0, 0)  # the two runs allocate at different bases
        rel_a = np.where(a.lane_active(), a.addrs - np.uint64(shift[0]), 0)[order_a]
        rel_b = np.where(b.lane_active(), b.addrs - np.uint64(shift[1]), 0)[order_b]
        assert np.array_equal(rel_a, rel_b), a.text


def _lowest_global_address(trace) -> int:
    return min(int(e.addrs[e.lane_active()].min()) for e in trace.events if e.space == "global" and len(e))
