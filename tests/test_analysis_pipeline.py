"""The pipeline compiles and simulates what the target says (defines, GPU, size); models are
found through the registry, which alone names ncu metrics; analysis has no import cycle.

Expected counts are derived here from the kernels' source and the GPU table, not pasted.
"""
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from analysis import pipeline, registry
from analysis.args import TargetError, module_variables
from analysis.models import coalescing
from cudasim.gpus import get_gpu
from kernels import catalog
from needs import need_nvrtc

ROOT = Path(__file__).resolve().parent.parent


def _cli(*args):
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


def _by_line(result: dict, op: str) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {}
    for g in result["instructions"]:
        if g["op"] == op:
            out.setdefault(g["line"], []).append(g)
    return out


# ---- what the target says is what is compiled and simulated -------------------------------

def test_define_reaches_the_launch_and_the_simulated_build():
    """transpose.cu: blocks of TILE x BLOCK_ROWS threads, grid ceil(n / TILE)^2, each thread
    moving TILE / BLOCK_ROWS elements in an unrolled loop: one load instruction per step."""
    need_nvrtc()
    n, tile, rows = 256, 32, 16
    launch = pipeline.resolve_catalog("transpose_tiled", None, {"BLOCK_ROWS": str(rows)})
    assert launch.block == (tile, rows, 1) and launch.grid == (n // tile, n // tile, 1)
    assert "-DBLOCK_ROWS=16" in launch.options
    res = pipeline.trace_results(launch, use_cache=False)
    assert "block 32x16x1" in res["target"]
    r = res["coalescing"]
    blocks, warps = (n // tile) ** 2, tile * rows // 32
    steps = tile // rows
    (loads,) = _by_line(r, "ld").values()  # one source line loads from global memory
    assert len(loads) == steps  # the build the define asked for: 2 unrolled steps, not the default's 4
    assert all(g["requests"] == blocks * warps for g in loads)
    assert r["totals"][coalescing.LOAD_REQUESTS.name] == blocks * warps * steps
    assert r["totals"][coalescing.LOAD_SECTORS.name] == blocks * warps * steps * (32 * 4 // 32)


def test_define_on_the_command_line():
    need_nvrtc()
    r = _cli("analysis.coalescing", "transpose_tiled", "--define", "BLOCK_ROWS=16", "--json", "--no-cache")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["target"] == "transpose_tiled grid 8x8x1 block 32x16x1, size 256"
    assert len(_by_line(d["coalescing"], "ld")[44]) == 32 // 16


@pytest.mark.parametrize("define,match", [("BK=banana", "BK=banana: not an integer"),
                                          ("NOPE=1", "no parameter NOPE"),
                                          ("BLOCK_ROWS=12", "must divide TILE=32")])
def test_bad_define_is_one_line_and_exit_2(define, match):
    name = "transpose_tiled" if define.startswith("BLOCK_ROWS") else "sgemm_warptiling"
    r = _cli("analysis.occupancy", name, "--define", define)
    assert r.returncode == 2 and r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1
    assert match in r.stderr


def test_gemm_tile_define_goes_through_the_catalog_variant():
    launch = pipeline.resolve_catalog("sgemm_double_buffered", 256, {"BM": "256", "WM": "64", "WN": "64",
                                                                      "WMITER": "4", "MINBLOCKS": "1"})
    k = catalog.variant("sgemm_double_buffered", BM=256, WM=64, WN=64, WMITER=4, MINBLOCKS=1)
    assert launch.options == tuple(k.options())
    assert (launch.grid, launch.block, launch.shared) == k.launch(256, get_gpu().sms)


def test_catalog_target_refuses_file_target_options():
    with pytest.raises(TargetError, match="--grid"):
        pipeline.resolve(_args("transpose_tiled", grid="4"))


def _args(target, **kw):
    import argparse
    p = argparse.ArgumentParser()
    pipeline.add_target_args(p)
    a = p.parse_args([target])
    for k, v in kw.items():
        setattr(a, k, v)
    return a


def test_gpu_reaches_the_grid_and_the_simulation():
    """vector_add_grid_stride on an A100 at n = 4M floats: 8 blocks of 256 threads per SM (the
    catalog's rule), float4 loads of a and b in a grid-stride loop."""
    need_nvrtc()
    n, a100 = 4194304, get_gpu("A100")
    blocks = min(8 * a100.sms, math.ceil(n / (256 * 4)))
    threads = blocks * 256
    n4 = n // 4  # float4 elements; lane i of the grid takes i, i + threads, ...
    assert threads % 32 == 0 and n4 % 32 == 0  # so every warp step is 32 whole lanes or none
    warp_steps = n4 // 32  # warp-level steps over the array, each one load of a and one of b
    load_requests = 2 * warp_steps
    load_sectors = load_requests * (32 * 16 // 32)
    r = _cli("analysis.coalescing", "vector_add_grid_stride", "--size", str(n), "--gpu", "A100", "--json",
             "--all-blocks", "--no-cache")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["target"].startswith(f"vector_add_grid_stride grid {blocks}x1x1 block 256x1x1")
    assert d["coalescing"]["provenance"]["label"] == f"simulated (all {blocks} blocks)"
    tot = d["coalescing"]["totals"]
    assert tot[coalescing.LOAD_REQUESTS.name] == load_requests == 65536
    assert tot[coalescing.LOAD_SECTORS.name] == load_sectors
    assert tot[coalescing.STORE_REQUESTS.name] == warp_steps


def test_sampled_grid_stride_launch_is_exact():
    """Without --all-blocks the A100's 864-block grid is sampled, and the total is still exact:
    the grid-stride loop gives the first blocks one trip more, and the sampling finds where."""
    need_nvrtc()
    n, a100 = 4194304, get_gpu("A100")
    blocks = min(8 * a100.sms, math.ceil(n / 1024))
    threads, n4 = blocks * 256, n // 4
    launch = pipeline.resolve_catalog("vector_add_grid_stride", n, {}, a100)
    assert launch.grid == (blocks, 1, 1) and launch.gpu.key == "A100"

    def trips(warp: int) -> int:  # float4 steps of one warp: i = 32 * warp, + threads, ... < n4
        return len(range(32 * warp, n4, threads))

    assert len({trips(w) for w in range(threads // 32)}) == 2  # blocks really differ in work
    want = sum(2 * trips(w) for w in range(threads // 32))
    res = pipeline.trace_results(launch, use_cache=False)
    assert res["provenance"].startswith("sampled and scaled") and f"of {blocks})" in res["provenance"]
    assert res["coalescing"]["totals"][coalescing.LOAD_REQUESTS.name] == want == 65536


def test_refine_1d_finds_every_change_and_weights_the_rest():
    """Blocks 0..376 do work A, then B up to the last block, which does C: the refined sample
    counts each kind exactly and simulates only a few blocks."""
    g = 1000
    kinds = lambda b: "C" if b == g - 1 else ("A" if b < 377 else "B")  # noqa: E731
    asked = []
    picks, weights, located = pipeline.refine_1d(g, [0, 250, 750, g - 1], lambda b: asked.append(b) or kinds(b))
    assert sum(weights.values()) == g and len(asked) < 20 and located
    counted = {}
    for b, w in weights.items():
        counted[kinds(b)] = counted.get(kinds(b), 0) + w
    assert counted == {"A": 377, "B": g - 1 - 377, "C": 1}


def test_refine_1d_is_bounded_where_every_block_differs():
    """Work that depends on the data differs from block to block: the bisection stops after its
    probes and says the changes were not all located."""
    asked = []
    picks, weights, located = pipeline.refine_1d(4096, [0, 2048, 4095], lambda b: asked.append(b) or b, probes=10)
    assert not located and len(asked) == 3 + 2 + 10 and sum(weights.values()) == 4096


@pytest.mark.parametrize("g", [1000, 4097, 100_000])
def test_stratified_1d_estimates_work_periodic_in_the_block(g):
    """lavaMD's boxes on a 10^3 lattice: a block's neighbours are 27, fewer on a face, edge or corner, a
    pattern periodic in the block index. Bisection probes and evenly spaced picks follow the period (an
    11% undercount); one block drawn from each of 64 runs, weighted by its run, estimates the total
    within 3%, and the same grid always draws the same blocks."""
    def work(b: int) -> int:
        per = [2 if c in (0, 9) else 3 for c in (b % 10, b // 10 % 10, b // 100 % 10)]
        return per[0] * per[1] * per[2]
    picks, weights = pipeline.stratified_1d(g)
    assert len(picks) == 66 and picks[0] == 0 and picks[-1] == g - 1 and sum(weights.values()) == g
    assert (picks, weights) == pipeline.stratified_1d(g)
    exact = sum(work(b) for b in range(g))
    assert abs(sum(work(b) * w for b, w in weights.items()) / exact - 1) < 0.03


def test_uneven_interior_of_a_2d_grid_is_said(tmp_path):
    """A 2-D grid whose interior blocks differ (the columns from 40 load twice) is sampled more densely
    (two interior blocks a dimension would count half the columns twice: +9%); the output says the
    counts are estimates instead of presenting them as exact."""
    need_nvrtc()
    src = tmp_path / "uneven.cu"
    src.write_text("""
extern "C" __global__ void uneven(const float* a, float* out) {
    int i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    float v = a[i];
    if (blockIdx.x >= 40) v += a[i + 1];
    out[i] = v;
}
""")
    r = _cli("analysis.coalescing", f"{src}::uneven", "--grid", "64,64", "--block", "256", "--json",
             "--no-cache", "--arg", f"a=float32[{64 * 64 * 256 + 1}]", "--arg", f"out=float32[{64 * 64 * 256}]")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["coalescing"]["provenance"]["kind"] == "sampled"
    assert any("did different work" in n and "--all-blocks" in n for n in d["notes"]), d["notes"]
    assert len(d["coalescing"]["provenance"]["traced_blocks"]) > 4 * 4
    exact = 64 * 64 * 8 + 64 * 24 * 8  # every warp's first load, and the second of columns 40..63
    assert abs(d["coalescing"]["totals"]["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] / exact - 1) < 0.05


def test_a_small_launch_of_heavy_blocks_is_sampled_not_held_whole(monkeypatch):
    """Few threads but much work per block (an all-pairs loop): when block 0's trace times the
    blocks exceeds the budget, the blocks are sampled and the notes say why."""
    need_nvrtc()
    launch = pipeline.resolve_catalog("sgemm_naive", 128, {}, get_gpu(None))
    whole = pipeline.simulate_sampled(launch)
    assert whole.weights == {} and not any("GiB" in n for n in whole.notes)
    per_block = pipeline.trace_bytes(whole.result.trace) / 16
    monkeypatch.setattr(pipeline, "TRACE_BUDGET_BYTES", int(4 * per_block))
    sampled = pipeline.simulate_sampled(launch)
    assert sampled.weights and sum(sampled.weights.values()) == 16
    assert any("would take about" in n and "--all-blocks" in n for n in sampled.notes), sampled.notes


def test_pipeline_compiles_for_the_gpu_rows_compute_capability():
    need_nvrtc()
    for key in ("A100", "H100-SXM", "RTX4090"):
        gpu = get_gpu(key)
        launch = pipeline.resolve_catalog("transpose_tiled", None, {}, gpu)
        compiled = pipeline.compile_launch(launch)
        arch = "sm_" + gpu.cc.replace(".", "")
        assert compiled.result.arch == arch and f".target {arch}" in compiled.result.ptx
    from cudasim import SourceModule
    a100 = pipeline.compile_launch(pipeline.resolve_catalog("copy", None, {}, get_gpu("A100")))
    f = SourceModule.from_ptx(a100.result.ptx, a100.result).get_function("copy")
    assert f.gpu.cc == "8.0" and f.max_dynamic_shared == get_gpu("A100").smem_per_block_default


def test_occupancy_json_names_the_gpu_it_compiled_for():
    need_nvrtc()
    r = _cli("analysis.occupancy", "sgemm_naive", "--gpu", "A100", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["gpu"] == "A100" and d["grid"] == [4096 // 32, 4096 // 32, 1]


# ---- the registry ------------------------------------------------------------------------

METRIC_RE = re.compile(r"\b(?:l1tex|smsp|sm|launch|lts|dram|gpu|gpc|tpc|fbpa|sys)__[A-Za-z0-9_.]*[A-Za-z0-9_]")


def test_registry_is_the_only_place_metric_names_appear():
    """Every ncu metric name in the packages' code is written once, in its model's declaration."""
    declared = {m.name for m in registry.metrics()}
    where: dict[str, list[str]] = {}
    for pkg in ("analysis", "kernels", "cudasim"):
        for f in sorted((ROOT / pkg).rglob("*.py")):
            for name in METRIC_RE.findall(f.read_text()):
                where.setdefault(name, []).append(str(f.relative_to(ROOT)))
    assert set(where) <= declared, set(where) - declared
    assert all(len(files) == 1 and files[0].startswith("analysis/models/") for files in where.values()), where
    assert set(where) == declared


def test_registry_covers_what_collect_ncu_measured():
    from analysis import collect_ncu, compare
    measured = json.loads((ROOT / "analysis" / "results" / "ncu_h100.json").read_text())
    # kernel time is judged against kernels.bench's CUDA events (analysis.timing --accuracy), not ncu,
    # which locks clocks to base: the committed ncu run predates the timing model
    timed = {m.name for m in registry.get("timing").metrics}
    assert set(collect_ncu.METRICS) == {m.name for m in registry.metrics()}
    assert set(measured["metrics"]) == {m.name for m in registry.metrics()} - timed
    assert [m.name for m in registry.metrics(predicted_only=True)] == [
        *(x for m in registry.models() for x in (y.name for y in m.metrics if y.predicted))]
    assert compare.judge(coalescing.LOAD_REQUESTS.name, 3, 3)[0] == "ok"
    assert compare.judge(coalescing.LOAD_REQUESTS.name, 3, 4)[0] == "MISS"


def test_profile_parts_are_collected_metrics():
    """The metrics the accuracy table judges the model's parts by are among those collect_profile reads."""
    from analysis import collect_profile, timing_accuracy
    assert all(METRIC_RE.fullmatch(m) for m in collect_profile.METRICS)
    for part, names in timing_accuracy.PARTS.items():
        assert part.startswith("_") or set(names) <= set(collect_profile.METRICS), part


def test_models_are_found_not_named():
    """The dispatch and the pipeline neither import a model nor use a model's name as a key."""
    import ast
    names = [m.name for m in registry.models()]
    assert names == ["coalescing", "banks", "occupancy", "timing"]
    for f in ("cli.py", "pipeline.py", "registry.py", "__main__.py", "common.py", "present.py", "draw.py"):
        for node in ast.walk(ast.parse((ROOT / "analysis" / f).read_text())):
            if isinstance(node, ast.ImportFrom):
                assert not (node.module or "").startswith("models."), (f, node.module)
                assert not (node.module == "models" and {a.name for a in node.names} & set(names)), f
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                assert node.value.strip() not in names, (f, node.value)
    with pytest.raises(LookupError, match="did you mean banks"):
        registry.get("bank")


def test_one_example_type_and_short_files():
    defs = [f for f in (ROOT / "analysis").rglob("*.py") if re.search(r"^class Example\b", f.read_text(), re.M)]
    assert [f.name for f in defs] == ["common.py"]
    for f in (ROOT / "analysis").rglob("*.py"):
        assert len(f.read_text().splitlines()) <= 600, f


def test_compare_writes_the_table_only_with_out(tmp_path, monkeypatch):
    from analysis import compare
    measured = tmp_path / "ncu.json"
    measured.write_text(json.dumps({"kernels": {}, "device": "NVIDIA H100 80GB HBM3"}))
    written = []
    monkeypatch.setattr(compare.Path, "write_text", lambda self, text, *a, **k: written.append(str(self)))
    assert compare.main(["--measured", str(measured)]) == 0
    assert written == []
    assert compare.main(["--measured", str(measured), "--out", str(tmp_path / "t.md")]) == 0
    assert written == [str(tmp_path / "t.md")]


def test_a_simulation_does_not_depend_on_what_the_process_simulated_before():
    """Each simulation has a device memory of its own, so a result cached by a process that
    simulated other kernels first (analysis.compare) shows the same addresses as a fresh one."""
    need_nvrtc()
    launch = pipeline.resolve_catalog("copy", 64, {})
    first = pipeline.trace_results(launch, use_cache=False)
    pipeline.trace_results(pipeline.resolve_catalog("sgemm_naive", 32, {}), use_cache=False)
    assert pipeline.trace_results(launch, use_cache=False) == first


def test_pointer_repeats_the_options_that_shape_the_launch():
    a = _args("transpose_tiled", size=512, define=["BLOCK_ROWS=16"], gpu="A100")
    assert pipeline.target_command(a) == "transpose_tiled --size 512 --gpu A100 --define BLOCK_ROWS=16"
    assert pipeline.target_command(_args("transpose_tiled")) == "transpose_tiled"


def test_uneven_work_names_the_spread_of_interior_blocks():
    """pipeline.uneven_work: the sampled interior blocks' warp instructions, from their followed paths
    (pc of a run, bit mask of the warps entering it); edge blocks are left out, a spread within 25% is even."""
    from analysis.pipeline import uneven_work
    run_end = lambda pc: pc + 10  # noqa: E731 - every run is 10 instructions long
    paths = {1: [(0, 0b11)] * 3, 2: [(0, 0b11)] * 30, 0: [(0, 0b1)]}
    assert uneven_work(paths, run_end, lambda b: b != 0) == (60, 600)
    assert uneven_work({1: [(0, 0b11)] * 4, 2: [(0, 0b11)] * 5}, run_end, lambda b: True) is None
    assert uneven_work(paths, run_end, lambda b: b == 1) is None  # one interior block: nothing to compare


def test_uneven_interior_blocks_are_sampled_more_densely():
    """About UNEVEN_BLOCKS blocks in all, whatever the grid's dimensions (never fewer than the plan's)."""
    from analysis.pipeline import INTERIOR_SAMPLES, UNEVEN_BLOCKS, _picks, uneven_samples
    for grid in ((256, 256, 1), (64, 64, 64), (40, 1, 30)):
        k = uneven_samples(grid)
        assert k >= INTERIOR_SAMPLES
        n = len(_picks(grid, k)[0])
        assert UNEVEN_BLOCKS / 2 < n <= UNEVEN_BLOCKS


# ---- --data: the user's buffer contents -------------------------------------------------------

_GATHER = """extern "C" __global__ void gather(float* out, const float* src, const int* idx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = src[idx[i]];
}
"""


def _gather(tmp_path, idx: np.ndarray | None = None, **kw):
    cu = tmp_path / "gather.cu"
    cu.write_text(_GATHER)
    a = _args(f"{cu}::gather", grid="8", block="128", arg=["out=float32[1024]", "src=float32[65536]", "n=1024"], **kw)
    if idx is not None:
        np.save(tmp_path / "idx.npy", idx)
        a.data = [f"idx={tmp_path / 'idx.npy'}"]
    return a


def test_data_gives_the_gather_its_addresses(tmp_path):
    """Zeros (no --data) make the gather a broadcast; the user's random indices make it scattered, and
    the launch's cache key follows the file's contents."""
    need_nvrtc()
    zeros = pipeline.trace_results(pipeline.resolve(_gather(tmp_path)), use_cache=False)["coalescing"]
    rand = np.random.default_rng(1).integers(0, 65536, 1024).astype(np.int32)
    a = _gather(tmp_path, rand)
    launch = pipeline.resolve(a)
    scattered = pipeline.trace_results(launch, use_cache=False)["coalescing"]
    sect = lambda r: max(g["sectors"] / g["requests"] for g in r["instructions"] if g["op"] == "ld")  # noqa: E731
    assert sect(zeros) <= 4 and sect(scattered) > 28
    np.save(tmp_path / "idx.npy", np.arange(1024, dtype=np.int32))
    assert pipeline.resolve(a).key() != launch.key()


@pytest.mark.parametrize("idx, data, match", [
    (np.arange(1024), None, "holds int64, the parameter is int"),
    (None, ["idx=/nonexistent/idx.npy"], "No such file"),
    (None, ["n=/nonexistent/n.npy"], "also given by --arg"),
])
def test_bad_data_is_one_line(tmp_path, idx, data, match):
    a = _gather(tmp_path, idx)
    if data is not None:
        a.data = data
    with pytest.raises(TargetError, match=match):
        pipeline.resolve(a).arguments()


def test_data_on_a_catalog_target_is_refused():
    with pytest.raises(TargetError, match="--data"):
        pipeline.resolve(_args("transpose_tiled", data=["x=y.npy"]))


_TABLE = """__constant__ int starts[64];

extern "C" __global__ void diagonals(float* out, const float* src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float s = 0.0f;
        for (int k = 0; k < 4; k++) s += src[starts[k] + i];
        out[i] = s;
    }
}
"""


def _table(tmp_path, starts: np.ndarray | None = None, **kw):
    cu = tmp_path / "table.cu"
    cu.write_text(_TABLE)
    a = _args(f"{cu}::diagonals", grid="8", block="128", arg=["out=float32[1024]", "src=float32[65536]", "n=1024"],
              **kw)
    if starts is not None:
        np.save(tmp_path / "starts.npy", starts)
        a.data = [f"starts={tmp_path / 'starts.npy'}"]
    return a


def test_data_fills_a_constant_table_that_places_the_loads(tmp_path):
    """A __constant__ table of offsets (JDS diagonals): left as zeros, the four loads read the same
    words (and the note says so, naming --data); filled by --data, they read four separate regions."""
    need_nvrtc()
    zeros = pipeline.resolve(_table(tmp_path))
    assert any("starts: a __constant__ variable given no data" in n for n in zeros.arguments()[1])
    starts = np.zeros(64, np.int32)
    starts[:4] = [0, 8192, 16384, 32768]
    filled = pipeline.resolve(_table(tmp_path, starts))
    assert not any("starts" in n for n in filled.arguments()[1]) and filled.key() != zeros.key()

    def words(launch):
        sim = pipeline.simulate_sampled(launch, use_sass=False)
        ev = [e for e in sim.result.trace.events if e.space == "global" and e.op == "ld"]
        return len(np.unique(np.concatenate([e.addrs[:, :].reshape(-1) for e in ev])))
    assert words(zeros) == 1024 and words(filled) == 4 * 1024


@pytest.mark.parametrize("arg, data, match", [
    (["starts=int32[64]"], None, "starts is a __constant__ variable, not a parameter"),
    ([], np.zeros(65, np.int32), "260 bytes given, the variable holds 256"),
    ([], np.zeros(64, np.float32), "holds float32, the variable is int "),
])
def test_bad_constant_data_is_one_line(tmp_path, arg, data, match):
    need_nvrtc()
    a = _table(tmp_path, data)
    a.arg += arg
    launch = pipeline.resolve(a)
    with pytest.raises(TargetError, match=match):
        pipeline.simulate_sampled(launch, use_sass=False)


def test_module_variables_are_read_from_the_source():
    src = ("__constant__ float c_w[9];\n__device__ int counter = 0;\nstatic __constant__ const double k[2] = {1, 2};\n"
           "__device__ __forceinline__ float f(float x) { return x; }\n// __constant__ int commented[4];\n")
    v = module_variables(src)
    assert set(v) == {"c_w", "counter", "k"}
    assert (v["c_w"].ctype, v["c_w"].initialized, v["k"].ctype, v["k"].initialized) == ("float", False, "double", True)


def test_refine_gives_each_gap_to_both_neighbours():
    """Blocks whose work changes everywhere (rows sorted longest first): each unsampled block counts as
    its nearer sampled neighbour (the midpoint rule), the edge blocks as themselves."""
    work = lambda b: (2000 - 2 * b,)  # noqa: E731 - a different signature in every block, falling
    blocks, weights, located = pipeline.refine_1d(1000, [0, 300, 700, 999], work, probes=6)
    assert not located and sum(weights.values()) == 1000 and weights[0] == weights[999] == 1
    est = sum(w * work(b)[0] for b, w in weights.items())
    true = sum(work(b)[0] for b in range(1000))
    assert abs(est / true - 1) < 0.01  # (the left neighbour standing for each gap: +13%)
    runs = lambda b: (0 if b < 37 else 1,)  # noqa: E731 - a grid-stride loop: piecewise constant
    blocks, weights, located = pipeline.refine_1d(1000, [0, 300, 700, 999], runs)
    assert located and sum(w * runs(b)[0] for b, w in weights.items()) == sum(runs(b)[0] for b in range(1000))


def test_a_kernel_that_loops_forever_stops_at_max_steps_on_every_command(tmp_path):
    """issue 16: a runaway kernel stops with one line naming the loop's line, in bounded time."""
    need_nvrtc()
    cu = tmp_path / "spin.cu"
    cu.write_text("__global__ void spin(int *out, const int *flag) {\n    int x = threadIdx.x;\n"
                  "    while (flag[0] == 0) x = x * 3 + 1;\n    out[threadIdx.x] = x;\n}\n")
    launch = [f"{cu}::spin", "--grid", "4", "--block", "256", "--arg", "out=int32[1024]", "--arg", "flag=int32[1]",
              "--max-steps", "2000000"]
    for cmd in ("analysis.coalescing", "analysis.timing", "cudasim.check"):
        r = _cli(cmd, *launch)
        assert r.returncode == 2 and r.stdout == "", (cmd, r.stdout, r.stderr)
        (line,) = r.stderr.strip().splitlines()
        assert "limit of 2,000,000 warp instructions" in line and "spin.cu:3" in line, (cmd, line)
    r = _cli("analysis.banks", f"{cu}::spin", "--grid", "1", "--block", "32", "--max-steps", "0")
    assert r.returncode == 2 and "--max-steps 0" in r.stderr


def test_an_inlined_helpers_accesses_are_attributed_to_each_call_site(tmp_path):
    """issue 16: loads inside an inlined helper were all attributed to the helper's line, hiding the call sites
    (PTX's .loc carries inlined_at): each call is a row of its own, named helper line < call line."""
    need_nvrtc()
    cu = tmp_path / "inl.cu"
    cu.write_text("__device__ __forceinline__ float load(const float *p, int i) {\n    return p[i];\n}\n"
                  "__global__ void two_sites(float *out, const float *a, int n) {\n"
                  "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
                  "    float x = load(a, i);\n    float y = load(a, i * 8 % n);\n    out[i] = x + y;\n}\n")
    args = [f"{cu}::two_sites", "--grid", "4", "--block", "256", "--arg", "n=1024", "--arg", "out=float32[1024]",
            "--arg", "a=float32[1024]"]
    r = _cli("analysis.coalescing", *args, "--json")
    assert r.returncode == 0, r.stderr
    loads = sorted((g["site"], g["sectors"]) for g in json.loads(r.stdout)["coalescing"]["instructions"] if g["op"] == "ld")
    assert [(s.rsplit(":", 1)[1], n) for s, n in loads] == [("6", 128), ("7", 1024)]
    text = _cli("analysis.coalescing", *args, "--draw", "none").stdout
    assert "inl.cu:2 < inl.cu:7" in text and "inlined at inl.cu:7: float y = load(a, i * 8 % n);" in text


def test_two_files_of_the_same_text_are_two_results(tmp_path):
    """The result cache is keyed by the file as well as its text: the second of two copies was answered from the
    first's cached result, naming the first file's lines."""
    need_nvrtc()
    text = 'extern "C" __global__ void k(float *a, int n) {\n    int i = threadIdx.x;\n    if (i < n) a[i] *= 2.0f;\n}\n'
    for name in ("first", "second"):
        (tmp_path / name).mkdir()
        (tmp_path / name / f"{name}.cu").write_text(text)
    for name in ("first", "second"):
        r = _cli("analysis.coalescing", f"{tmp_path}/{name}/{name}.cu::k", "--grid", "1", "--block", "32", "--arg",
                 "n=32", "--draw", "none")
        assert r.returncode == 0, r.stderr
        assert f"{name}.cu:3" in r.stdout and ("first.cu" in r.stdout) == (name == "first"), r.stdout


def test_a_sampled_launch_says_what_its_samples_cannot_see():
    need_nvrtc()
    said = "blocks simulated, the others taken to do what these do"
    big = pipeline.trace_results(pipeline.resolve_catalog("transpose_naive", 4096, {}))
    assert any(said in n and "cudasim.check" in n for n in big["notes"])
    small = pipeline.trace_results(pipeline.resolve_catalog("transpose_naive", 64, {}))
    assert not any(said in n for n in small["notes"])


def test_all_blocks_refuses_before_a_trace_past_memory(monkeypatch):
    """--all-blocks estimates the trace from block 0 and refuses at once where it would pass a third of the
    memory free, rather than stopping when the trace gets there."""
    need_nvrtc()
    monkeypatch.setattr(pipeline, "host_free_bytes", lambda: 3 << 20)
    with pytest.raises(pipeline.TargetError, match=r"--all-blocks: a trace of every block would take about .* past "
                                                   r"the 1\.0 MiB it may use"):
        pipeline.trace_results(pipeline.resolve_catalog("transpose_naive", 1024, {}), all_blocks=True, use_cache=False)


SHARED_ATOMICS = r"""
extern "C" __global__ void bins(const float* w, float* out, int n) {
    __shared__ TYPE h[64];
    if (threadIdx.x < 64) h[threadIdx.x] = 0;
    __syncthreads();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&h[threadIdx.x % 64], (TYPE)w[i]);
    __syncthreads();
    if (threadIdx.x < 64) out[blockIdx.x * 64 + threadIdx.x] = (float)h[threadIdx.x];
}
"""


@pytest.mark.parametrize("kind, loop", [("float", True), ("int", False)])
def test_a_shared_atomic_ptxas_writes_as_a_cas_loop_counts_its_load(tmp_path, kind, loop):
    """A float atomicAdd on shared memory has no instruction: ptxas loops LDS, FADD, ATOMS.CAST.SPIN, so each
    warp's atomic issues an LDS that ncu counts (llm.c's layernorm backward: 1.67 M of 1.87 M, the rest retries).
    An int one is ATOMS.ADD and loads nothing."""
    need_nvrtc()
    from analysis import sass
    if sass.find_nvdisasm() is None:
        pytest.skip("needs nvdisasm: the loop is read from the SASS")
    src = tmp_path / "bins.cu"
    src.write_text(SHARED_ATOMICS.replace("TYPE", kind))
    blocks, threads = 4, 256
    launch = pipeline.resolve_file(f"{src}::bins", (blocks, 1, 1), (threads, 1, 1), 0, {},
                                   {"w": f"float32[{blocks * threads}]", "out": f"float32[{blocks * 64}]",
                                    "n": str(blocks * threads)})
    res = pipeline.trace_results(launch, use_cache=False)
    lds = res["banks"]["totals"]["smsp__inst_executed_op_shared_ld.sum"]
    reads = blocks * 2  # the two warps of each block that read h back
    assert lds == reads + (blocks * threads // 32 if loop else 0)
    assert any("compare-and-swap loop" in n for n in res["notes"]) == loop
