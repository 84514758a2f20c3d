"""The timing model end to end: its JSON, a DRAM-bound copy within its bandwidth bound, the
transpose ladder in the order physics says, an FMA-bound probe, a GPU without rates refused in
one line, counts extrapolated from two sizes, and the SASS instruction counts against ncu's."""
import json
from pathlib import Path

import numpy as np
import pytest

from analysis import cli, issues, registry
from analysis.models import timing
from cudasim.gpus import get_gpu
from needs import need_nvrtc

ROOT = Path(__file__).resolve().parent.parent
PROBE = str(ROOT / "tests" / "data" / "fma_chain.cu") + "::fma_chain"


def _timed_file(target: str, grid, block, args: dict) -> dict:
    """The timing model's result for a file's kernel, launched as given (SASS-level: skipped without nvdisasm)."""
    need_nvrtc()
    from analysis import pipeline, sass, simulation
    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm is not installed (pip: nvidia-cuda-nvdisasm)")
    return simulation.result(registry.get("timing"), pipeline.resolve_file(target, grid, block, 0, {}, args))


def _json(capsys, *argv) -> dict:
    need_nvrtc()
    assert cli.main("timing", [*argv, "--json", "--no-cache"]) == 0
    return json.loads(capsys.readouterr().out)


def test_registry_declares_the_duration():
    assert registry.metric("gpu__time_duration.sum").unit == "ns"
    assert registry.get("timing").needs == "simulation"


def test_json_schema(capsys):
    d = _json(capsys, "copy", "--size", "256")
    assert d["gpu__time_duration.sum"] == pytest.approx(d["time_us"] * 1e3)
    assert d["time_us"] == pytest.approx(d["body_us"] + d["launch_us"])
    names = [r["resource"] for r in d["resources"]]
    assert d["limiter"] == names[0] and {"issue", "DRAM", "L2", "latency", "L1/shared wavefronts"} <= set(names)
    for r in d["resources"]:
        assert set(r) == {"resource", "time_us", "share_pct", "utilization_pct"}
        assert 0 <= r["share_pct"] <= 100.0001
    assert d["provenance"] and d["advice"] and d["achieved"]["dram_bytes_per_s"] > 0
    assert d["counts"]["global_load_requests"] == 256 * 256 / 32  # one request per warp per element row


def test_copy_larger_than_l2_is_dram_bound_within_its_bandwidth(capsys):
    gpu = get_gpu()
    n = 4096  # 2 x 64 MiB moved: more than the 50 MB L2
    d = _json(capsys, "copy", "--size", str(n))
    moved = 2 * 4 * n * n
    assert moved > gpu.l2_bytes
    fastest = max(gpu.timing[k]["value"] for k in ("dram_read_gbs", "dram_write_gbs", "dram_copy_gbs")) * 1e9
    slowest = min(gpu.timing[k]["value"] for k in ("dram_read_gbs", "dram_write_gbs", "dram_copy_gbs")) * 1e9
    assert d["limiter"] == "DRAM"
    # at most the slowest measured rate, plus the ramp of the first and last waves (a few percent)
    assert moved / fastest * 1e6 <= d["body_us"] <= moved / slowest * 1e6 * 1.05
    assert d["counts"]["dram_read_bytes"] + d["counts"]["dram_write_bytes"] == pytest.approx(moved)


def test_transpose_ladder_ranks_as_physics_says(capsys):
    t = {k: _json(capsys, k, "--size", "4096")["time_us"] for k in ("transpose_naive", "transpose_tiled",
                                                                      "transpose_padded")}
    assert t["transpose_naive"] > t["transpose_tiled"] > t["transpose_padded"]


def test_fma_chain_is_fp32_pipe_bound(capsys):
    d = _json(capsys, PROBE, "--grid", "264", "--block", "256", "--arg", "iters=4", "--arg", "out=float32[67584]")
    assert d["limiter"] == "fp32 pipe"
    assert "sampled and scaled" in d["provenance"]
    c = d["counts"]
    assert c["fma_warp_instructions"] > 0.98 * c["warp_instructions"]


def test_gpu_without_rates_is_refused_in_one_line(capsys):
    assert not get_gpu("A100").timing
    with pytest.raises(SystemExit) as e:
        cli.main("timing", ["copy", "--gpu", "A100"])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "no timing rates for A100" in err


def test_pc_counts_sum_to_the_warp_instructions():
    need_nvrtc()
    from kernels import sim
    launch, _, _ = sim.run("transpose_tiled", 64)
    pcs = launch.stats["pc_warp_instructions"]
    assert isinstance(pcs, np.ndarray) and pcs.sum() == launch.stats["warp_instructions"]


def test_scaling_from_two_sizes_agrees_with_simulating_the_size():
    """Counts extrapolated from sizes 128 and 256 match a (block-sampled) simulation at 512."""
    need_nvrtc()
    from dataclasses import replace

    from analysis import pipeline, simulation
    launch = pipeline.resolve_catalog("sgemm_naive", 512)
    assert simulation.sample_sizes(launch) == [128, 256]
    scaled = simulation.simulation(launch)
    direct = replace(scaled, samples=[simulation._sample(launch, False, True)[0]])
    a, b = timing.analyze(scaled), timing.analyze(direct)
    assert "sampled and scaled: simulated at sizes 128" in a["provenance"]
    for k in ("warp_instructions", "global_load_requests", "global_load_lines"):
        assert a["counts"][k] == pytest.approx(b["counts"][k], rel=0.02), k
    assert a["time_us"] == pytest.approx(b["time_us"], rel=0.05)
    # a count of the run at the larger sample size, not a figure scaled to 512 (a float, 0.0 for 4096)
    n = a["waves"]["simulated_blocks"]
    assert isinstance(n, int) and n >= 1 and a["waves"]["simulated_at_size"] == 256
    assert b["waves"]["simulated_at_size"] is None  # one size, as asked


def test_sass_instruction_counts_match_ncu():
    """The warp instructions the model issues (the SASS walk along cudasim's path) against the
    executed instructions ncu counted on the H100 (analysis/results/profile_h100.json), at the
    sizes it measured, for kernels of different shapes."""
    need_nvrtc()
    from analysis import pipeline, simulation
    prof = json.loads((ROOT / "analysis" / "results" / "profile_h100.json").read_text())
    for name in ("transpose_tiled", "sgemm_1d_blocktiling", "dgemm_smem_conflict_free"):
        row = prof["kernels"][name]
        launch = pipeline.resolve_catalog(name, row["size"])
        d = timing.analyze(simulation.simulation(launch))
        assert d["counts"]["warp_instructions"] == pytest.approx(row["metrics"]["smsp__inst_executed.sum"], rel=0.03), name


@pytest.mark.parametrize("name", ["potrf_batched_f64", "segment_coo_sum"])
def test_walks_of_branches_the_warp_splits_at_issue_what_ncu_counted(name):
    """holdout5's potrf_batched_f64, a warp-per-matrix Cholesky: each step lane k stores the pivot, the
    lanes past it divide (a convergence barrier's region), then the trailing loop runs; the walk, at the
    barrier, must run the dividing lanes' side in the same trip, not a trip later (it once lost the
    trailing loops: 97.5 M warp instructions where ncu counted 452.5 M). segment_coo_sum: each step of a
    warp scan divides by D on the lanes it guards, integer work only, known to the walk by its IMAD.HI
    (98.6 M where ncu counted 231.7 M)."""
    need_nvrtc()
    from analysis import sass, simulation
    from corpus.compare import resolve
    from corpus.sets import load_set
    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm is not installed (pip: nvidia-cuda-nvdisasm)")
    prof = json.loads((ROOT / "corpus" / "results" / "holdout5_profile_h100.json").read_text())
    row = prof["kernels"][name]
    k = load_set("holdout5").get(name)
    assert k.size == row["size"]
    d = timing.analyze(simulation.simulation(resolve(k)))
    assert d["counts"]["warp_instructions"] == pytest.approx(row["metrics"]["smsp__inst_executed.sum"], rel=0.10)


@pytest.mark.parametrize("set_name,name", [("holdout4", "rope_neox"), ("holdout", "maxpool2d_forward"),
                                           ("holdout3", "complex_mul_32_blocks"), ("holdout4", "chebyshev_clenshaw_f64"),
                                           ("holdout4", "thomas_batched_f64")])
def test_walks_ptxas_reshaped_issue_what_ncu_counted(set_name, name):
    """rope_neox: cosf/sinf's quadrant branches part a warp's lanes in the PTX but are predicated code in the
    SASS (the walk once went through the kernel's tail three times: 639 instructions a block where ncu counted
    523). maxpool2d_forward: the window loop's remainder issues its last trip as predicated loads (the walk
    once took 5 trips of the outer loop for 3: 287 a warp where ncu counted 221). complex_mul: ptxas fuses a
    PTX mul into the sub that reads it (one FFMA), so a trip does less floating-point work in the SASS than
    in the PTX (the walk once took 1.5 trips for each: +50%). chebyshev and thomas: ptxas runs a loop's
    remainder trips before its unrolled bodies (the walk once took the unrolled body first and ran the
    remainder of a 511-trip loop as 12 trips: +24%, -15%)."""
    need_nvrtc()
    from analysis import sass, simulation
    from corpus.compare import resolve
    from corpus.sets import load_set
    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm is not installed (pip: nvidia-cuda-nvdisasm)")
    row = json.loads((ROOT / "corpus" / "results" / f"{set_name}_profile_h100.json").read_text())["kernels"][name]
    k = load_set(set_name).get(name)
    assert k.size == row["size"]
    d = timing.analyze(simulation.simulation(resolve(k)))
    assert d["counts"]["warp_instructions"] == pytest.approx(row["metrics"]["smsp__inst_executed.sum"], rel=0.01)


def test_a_search_loop_issues_what_ncu_counted():
    """A linear-probing hash lookup (a loop with a return on each outcome, whose trip count is the
    data's): the warp instructions the model issues against the executed instructions ncu counted on
    the H100 (corpus/results/holdout3_profile_h100.json). The walk once lost this loop's path and
    issued 42x too many."""
    need_nvrtc()
    from analysis import sass, simulation
    from corpus.compare import resolve
    from corpus.sets import load_set
    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm is not installed (pip: nvidia-cuda-nvdisasm)")
    prof = json.loads((ROOT / "corpus" / "results" / "holdout3_profile_h100.json").read_text())
    row = prof["kernels"]["hash_lookup_linear_probe"]
    k = load_set("holdout3").get("hash_lookup_linear_probe")
    assert k.size == row["size"]
    d = timing.analyze(simulation.simulation(resolve(k)))
    assert d["counts"]["warp_instructions"] == pytest.approx(row["metrics"]["smsp__inst_executed.sum"], rel=0.03)


def test_a_sass_walk_that_loses_the_path_is_refused(monkeypatch):
    """A warp whose SASS stream is far longer than its PTX path has been walked wrong; the time built
    on it would be wrong too, so the model refuses in one line (checked with the bound lowered)."""
    need_nvrtc()
    from analysis import pipeline, sass, simulation
    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm is not installed (pip: nvidia-cuda-nvdisasm)")
    monkeypatch.setattr(issues, "LOST_PATH", 0.05)
    launch = pipeline.resolve_catalog("transpose_tiled", 256)
    with pytest.raises(ValueError, match="lost warp .* PTX path"):
        timing.analyze(simulation.simulation(launch))

def test_a_sass_walk_far_shorter_than_the_ptx_path_is_refused(monkeypatch):
    """holdout8's MersenneTwister: the walk skipped a 5,860-step loop (185 SASS instructions a warp for 208,141
    PTX ones) and the time came out 20x short, unrefused. A stream LOST_PATH times shorter than the warp's PTX is
    refused as one LOST_PATH times longer is (checked by cutting the walk's streams short)."""
    need_nvrtc()
    from analysis import pipeline, sass, sassflow, simulation
    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm is not installed (pip: nvidia-cuda-nvdisasm)")
    walk = sassflow.Walker.stream
    monkeypatch.setattr(sassflow.Walker, "stream", lambda self, path, **kw: walk(self, path, **kw)[:5])
    launch = pipeline.resolve_catalog("sgemm_smem", 256)
    with pytest.raises(ValueError, match=r"lost warp 0's PTX path .*\(5 SASS instructions for"):
        timing.analyze(simulation.simulation(launch))


def test_kinds_run_as_often_as_the_blocks_they_stand_for():
    order = timing.kind_order([1.0, 3.0, 4.0], 16)
    assert [order.count(k) for k in range(3)] == [2, 6, 8]
    assert {order[:8].count(k) for k in range(3)} == {1, 3, 4}  # any run of blocks is a fair mix
    assert timing.kind_order([2.0, 2.0], 4) == [0, 1, 0, 1]


def test_an_sm_of_uneven_blocks_runs_the_heaviest_first_wave_then_round_robin():
    """Ten sampled blocks, each standing for a hundred of a 1,000-block grid, one of them ten times the work
    of the others (lavaMD's full boxes beside its faces). All 132 SMs start seven blocks at once, so the
    kernel waits for an SM whose first wave holds a heavy block; after it, the SM takes every 132nd block
    of the grid, as the scheduler deals them."""
    blocks, weights, work = [50 + 100 * i for i in range(10)], [100.0] * 10, [1] * 10
    assert timing.sm_turn(blocks, weights, work, 1000, 132, 7) == [0, 1, 2, 3, 5, 6, 7, 9]  # SM 0: blocks 0, 132, ...
    work[4] = 10  # blocks 400-499: SM 4 starts block 400 in its first wave
    assert timing.sm_turn(blocks, weights, work, 1000, 132, 7) == [0, 1, 2, 4, 5, 6, 7, 9]


def test_rows_sorted_longest_first_end_with_their_longest_block():
    """holdout6's spmv_jds (Parboil): rows sorted by length, longest first, so the work falls from block
    to block and block 0's warps loop thousands of times. The sampled blocks stand for the blocks nearest
    them, the diagonals' starts come from its __constant__ table, and the kernel ends when block 0 does:
    DRAM bytes, warp instructions and time against the H100's (ncu once sent 381 MB from DRAM; the model,
    reading the table as zeros, 34 MB, and without the longest block, 491 us for 633 us measured)."""
    need_nvrtc()
    from analysis import sass, simulation
    from corpus.compare import resolve
    from corpus.sets import load_set
    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm is not installed (pip: nvidia-cuda-nvdisasm)")
    row = json.loads((ROOT / "corpus" / "results" / "holdout6_profile_h100.json").read_text())["kernels"]["spmv_jds"]
    measured = json.loads((ROOT / "corpus" / "results" / "holdout6_h100.json").read_text())["kernels"]["spmv_jds"]
    d = timing.analyze(simulation.simulation(resolve(load_set("holdout6").get("spmv_jds"))))
    m = row["metrics"]
    assert d["counts"]["dram_read_bytes"] == pytest.approx(m["dram__bytes_read.sum"], rel=0.05)
    assert d["counts"]["warp_instructions"] == pytest.approx(m["smsp__inst_executed.sum"], rel=0.10)
    assert d["limiter"] == "longest block"
    assert d["time_us"] == pytest.approx(measured["event_ms"] * 1e3, rel=0.25)


def test_advice_counts_the_warps_the_busiest_sm_runs(capsys):
    """One block of one warp on one SM of 132 (the sweep's o11): the advice says one warp, not the 32 that could be
    resident, and that the grid leaves SMs idle; a grid that fills the GPU says nothing of idle SMs."""
    d = _json(capsys, "transpose_tiled", "--size", "1")  # one block of 8 warps
    assert d["waves"]["active_sms"] == 1 and d["waves"]["warps_per_block"] == 8
    assert "the grid fills 1 of the 132 SMs (8 warps on the busiest): more blocks" in d["advice"][-1]
    assert not any("64 warps" in line for line in d["advice"])
    lines = timing.advice("latency", {"latency": 1.0, "issue": 0.5}, 1.0, {"DRAM": 20.0}, 1, 1, 132)
    assert lines[0].startswith("latency-bound: 1 warp per SM spends most cycles waiting (DRAM)")
    assert "fills 1 of the 132 SMs" in lines[1]
    assert len(timing.advice("latency", {"latency": 1.0}, 1.0, {}, 64, 132, 132)) == 1


def test_one_warp_latency_bound_is_the_time_it_takes():
    """One thread: one scheduler has a warp, the other three none. Its waits are counted against that scheduler's
    cycles, so the latency row comes to most of the kernel's work (over four schedulers it read a quarter), and
    the idle reasons to most of its cycles."""
    res = _timed_file("tests/data/walks.cu::dot_n", (1, 1, 1), (1, 1, 1),
                      {"n": "300", "b": "1.5", "a": "float32[1024]", "out": "float32[64]"})
    rows = {r["resource"]: r for r in res["resources"]}
    assert res["limiter"] == "latency"
    assert rows["latency"]["time_us"] > 0.75 * res["body_us"], (rows["latency"], res["body_us"])
    assert sum(res["stalls_pct"].values()) > 75


def test_a_rare_block_that_does_the_work_still_loads_the_servers():
    """A million blocks of which 0.4% touch data (the sweep's s39): the SM's turn of sampled blocks has no room
    for them, but the DRAM and L2 rows carry their traffic, by their share of the grid (DRAM had read 0.00 us
    beside 12 MB moved)."""
    res = _timed_file("tests/data/gridstride.cu::saxpy_gs", (1_000_000, 1, 1), (256, 1, 1),
                      {"n": "1000000", "a": "2", "x": "float32[1000000]", "y": "float32[1000000]"})
    rows = {r["resource"]: r["time_us"] for r in res["resources"]}
    moved = res["counts"]["dram_read_bytes"] + res["counts"]["dram_write_bytes"]
    assert moved == pytest.approx(12e6, rel=0.05)
    r = timing.rates(get_gpu("H100"))
    peak = max(r["dram_read_gbs"], r["dram_write_gbs"], r["dram_copy_gbs"]) * 1e3  # bytes per us
    assert moved / peak <= rows["DRAM"] < 3 * moved / peak, rows
    assert rows["L2"] > 0 and rows["L1/shared wavefronts"] > 0


def test_the_servers_demand_is_what_a_run_of_one_block_charges():
    """smsim.demand counts, without running, the busy cycles simulate charges each server for a block."""
    from analysis import smsim
    from analysis.smsim import LOAD, SHARED, STORE, Access, Memory, Op, WarpWork
    mem = Memory(1.0, 4.0, 0.01, 5.0, 0.02, 0.1, 0.5, 30.0, 300.0, 700.0, l2_atomic_op_clk=2.0, l2_partial_clk=1.5)
    ops = [Op(0, 1.0, 4.0, (), (), 0, 1), Op(1, 2.0, 4.0, (), (), LOAD, 1), Op(1, 2.0, 4.0, (), (), STORE, 1),
           Op(2, 1.0, 4.0, (), (), SHARED, 1)]
    ld = Access(2.0, lines=2.0, dram_bytes=256.0, level=3, l2_bytes=256.0, dram_lines=2.0)
    st = Access(1.0, lines=1.0, dram_bytes=128.0, level=1, l2_bytes=96.0, l2_partial=1.0)
    sh = Access(3.0, latency=20.0)
    warps = [WarpWork([0, 1, 0, 2, 3], [ld, st, sh]), WarpWork([1, 1, 0], [ld, ld])]
    d = smsim.demand(ops, warps, mem)
    r = smsim.simulate(ops, warps, 1, 1, mem, 0.0)
    assert d.issued == r.issued == 8
    assert d.pipe_busy == pytest.approx(r.pipe_busy)
    assert (d.data_stage, d.l2, d.dram) == pytest.approx((r.data_stage, r.l2, r.dram))
    assert d.dram > 0 and d.l2 > 0


def test_a_kernel_that_reads_the_clock_is_told_the_simulator_has_none(capsys):
    """clock64() and %smid have no GPU values in the simulator (the sweep's F9: deltas of 0 and 1, silently)."""
    need_nvrtc()
    src = ROOT / "tests" / "data" / "clocked.cu"
    d = _json(capsys, f"{src}::clocked", "--grid", "2", "--block", "32", "--arg", "out=int64[64]",
              "--arg", "ids=uint32[64]")
    said = [n for n in d["notes"] if "the kernel reads" in n]
    assert any("%clock64" in n and "no time" in n for n in said), said
    assert any("%smid" in n and "is 0 here" in n for n in said), said


def test_a_block_that_outlasts_the_rest_sets_the_time_wherever_it_is(capsys):
    """Every block of 20 is simulated and one runs 100,000 dependent FMAs where the others run 100 (the sweep's
    F5): the kernel takes as long as that block, whichever block it is; as block 7 it had been predicted as if
    it were not there (13 us where block 0 gave 225 us)."""
    src = f"{ROOT / 'tests' / 'data' / 'outlier.cu'}::slow_block"

    def time_us(slow: int) -> float:
        return _json(capsys, src, "--grid", "20", "--block", "128", "--arg", "iters=100", "--arg", f"slow={slow}",
                     "--arg", "out=float32[2560]")["time_us"]
    first, inner, none = time_us(0), time_us(7), time_us(-1)
    assert first > 10 * none
    assert inner == pytest.approx(first, rel=0.05)


def test_the_counts_hold_the_block_that_outlasts_the_rest(capsys):
    """Its SASS counts are its share of the grid, itself (the re-test of F5: `global 880` SASS instructions beside
    4,760 load requests, the slow block's loads left out), wherever it is."""
    src = f"{ROOT / 'tests' / 'data' / 'outlier.cu'}::slow_loads"
    for slow in (0, 7):
        c = _json(capsys, src, "--grid", "20", "--block", "128", "--arg", "iters=10", "--arg", f"slow={slow}",
                  "--arg", "in=float32[4096]", "--arg", "out=float32[2560]")["counts"]
        assert c["global_load_requests"] == 19 * 10 * 4 + 1000 * 4
        assert c["global_warp_instructions"] == pytest.approx(c["global_load_requests"] + c["global_store_requests"])
