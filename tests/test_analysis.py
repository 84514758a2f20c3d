"""The analysis models against the facts measured on an H100 (DESIGN.md, shared/hardware.md),
and the CLIs end to end (catalog and file targets, bad input, refusals).

Synthetic warps (MemEvent rows built here) test the index math; the CLI tests need the
simulator and NVRTC and skip with the reason when those are missing.
"""
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from analysis import draw
from analysis.args import TargetError, parse_dims
from analysis.signature import parse_signature
from analysis.common import Example, provenance
from analysis.models import banks, coalescing
from analysis.models.occupancy import allocated_registers, driver_carveout, neighbours, occupancy, smem_per_block
from analysis.pipeline import plan_blocks
from cudasim.gpus import UnknownGPU, get_gpu, gpu_names
from cudasim.trace import MemEvent, Trace
from needs import need_nvrtc

ROOT = Path(__file__).resolve().parent.parent
FULL = np.uint32(0xFFFFFFFF)
BASE = 1 << 40  # 256-byte aligned, like cudasim's allocations


def warp(addrs, size=4, space="global", op="ld", mask=FULL, pc=0, line=1, block=0, w=0):
    a = np.zeros((1, 32), np.uint64)
    a[0, :len(addrs)] = np.asarray(addrs, np.uint64)
    return MemEvent(pc, line, "t.cu", "ld", space, op, size, np.array([block], np.int64), np.array([w], np.int32),
                    np.array([mask], np.uint32), a)


def sectors(addrs, size=4, mask=FULL):
    rs = coalescing.row_stats(np.asarray(addrs, np.uint64).reshape(1, 32), np.array([mask], np.uint32), size)
    return int(rs.sectors[0])


def wavefronts(addrs, size=4, mask=FULL):
    br = banks.bank_rows(np.asarray(addrs, np.uint64).reshape(1, 32), np.array([mask], np.uint32), size)
    return int(br.wavefronts[0]), int(br.wavefronts[0] - br.ideal[0])


LANES = np.arange(32, dtype=np.uint64)


# ---- global: DESIGN.md's measured facts ------------------------------------------------------

@pytest.mark.parametrize("stride,want", [(1, 4), (2, 8), (4, 16), (8, 32), (16, 32), (33, 32)])
def test_sectors_by_stride(stride, want):
    assert sectors(BASE + LANES * 4 * stride) == want


def test_offset_by_one_float_is_5_sectors_and_16_floats_is_4():
    assert sectors(BASE + 4 + LANES * 4) == 5
    assert sectors(BASE + 64 + LANES * 4) == 4


def test_float4_is_16_sectors_and_double_is_8():
    assert sectors(BASE + LANES * 16, size=16) == 16
    assert sectors(BASE + LANES * 8, size=8) == 8


def test_broadcast_and_inactive_lanes():
    assert sectors(np.full(32, BASE, np.uint64)) == 1
    assert sectors(BASE + LANES * 4, mask=np.uint32(0x1)) == 1
    assert sectors(BASE + LANES * 4, mask=np.uint32(0)) == 0


def test_requests_sectors_totals_and_diagnoses():
    evs = [warp(BASE + LANES * 4, pc=0, line=10), warp(BASE + LANES * 4 * 32, pc=1, line=11),
           warp(BASE + 4 + LANES * 4, pc=2, line=12, op="st"), warp(np.full(32, BASE, np.uint64), pc=3, line=13)]
    ins = coalescing.analyze_events(evs)
    by = {g.line: g for g in ins}
    assert by[10].diagnosis.startswith("unit stride, coalesced") and not by[10].fix
    assert "stride 32" in by[11].diagnosis and "threadIdx.x" in by[11].fix
    assert "misaligned" in by[12].diagnosis
    assert by[13].diagnosis.startswith("broadcast")
    tot = coalescing.totals(ins)
    assert tot["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 3
    assert tot["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 4 + 32 + 1
    assert tot["l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"] == 1
    assert tot["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == 5


def test_stride_of_a_fraction_of_an_element_between_active_lanes():
    """Lanes 0, 8, 16, 24 of an 8-wide block one 300-float row apart: 150 B per lane, 37.5 floats, named as
    the few far-apart lanes they are."""
    mask = np.uint32(0x01010101)
    (g,) = coalescing.analyze_events([warp(BASE + LANES * 150, mask=mask, line=12)])
    assert g.strides == {37.5: 1.0} and g.diagnosis.startswith("4.0 of 32 lanes active per request")
    assert g.sectors == 4 and "neighbouring lanes" in g.fix


def test_drawings_name_every_sector():
    ex = Example((0, 0, 0), 0, 0xFFFFFFFF, [int(a) for a in BASE + LANES * 8], 4)
    txt = draw.sector_text(ex)
    assert "8 sectors" in txt and "lanes 0-3" in txt
    assert draw.sector_mermaid(ex).startswith("flowchart LR")
    assert draw.sector_svg(ex).startswith("<svg") and draw.sector_svg(ex).endswith("</svg>")
    assert Example.of({"block": [1, 2, 0], "warp": 0, "mask": 1, "addrs": [0] * 32, "size": 4}).block == (1, 2, 0)


def test_sampled_provenance_scales_and_says_which_blocks():
    tr = Trace((4, 1, 1), (32, 1, 1), [warp(BASE + LANES * 4, block=0), warp(BASE + LANES * 4, block=3)],
               traced_blocks=[0, 3])
    prov = provenance(tr, {0: 1.0, 3: 3.0})
    assert prov.kind == "sampled" and "(0,0,0)" in prov.label and "(3,0,0)" in prov.label and "of 4" in prov.label
    res = coalescing.analyze(tr, {0: 1.0, 3: 3.0})
    assert res["totals"]["l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"] == 4
    full = Trace((2, 1, 1), (32, 1, 1), [], traced_blocks=None)
    assert provenance(full).label == "simulated (all 2 blocks)"


# ---- shared: DESIGN.md's measured facts ------------------------------------------------------

@pytest.mark.parametrize("pitch", [32, 33, 34, 40, 48])
def test_column_walk_wavefronts_are_gcd(pitch):
    wf, conflicts = wavefronts(LANES * 4 * pitch)
    assert wf == math.gcd(pitch, 32)
    assert conflicts == wf - 1


def test_broadcast_is_one_wavefront():
    assert wavefronts(np.zeros(32, np.uint64)) == (1, 0)
    assert wavefronts(np.array([4 * (l % 4) for l in range(32)], np.uint64)) == (1, 0)  # multicast


def test_8_byte_consecutive_is_2_wavefronts_no_conflict_and_16_byte_is_4():
    assert wavefronts(LANES * 8, size=8) == (2, 0)
    assert wavefronts(LANES * 16, size=16) == (4, 0)


def test_8_byte_column_walk_conflicts():
    # dgemm_smem's read: 8-byte words down a column of a 32-double row: 16 per half-warp, one bank pair
    wf, conflicts = wavefronts(LANES * 8 * 32, size=8)
    assert wf == 32 and conflicts == 30


def test_bank_diagnosis_fix_and_map():
    ev = warp(LANES * 4 * 32, space="shared")
    (si,) = banks.analyze_events([ev])
    assert si.max_degree == 32 and "32-way" in si.diagnosis and "pad each row by 1 word" in si.fix
    assert "tile[N][33]" in si.fix
    tot = banks.totals([si])
    assert tot["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 32
    assert tot["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"] == 31
    assert tot["smsp__inst_executed_op_shared_ld.sum"] == 1
    txt = draw.bank_text(si.example)
    assert "wavefront  1" in txt and "more wavefronts" in txt
    assert "bank  0: 32 distinct words" in draw.collisions(si.example)[0]
    (ok,) = banks.analyze_events([warp(LANES * 4 * 33, space="shared")])
    assert ok.conflicts == 0 and ok.diagnosis.startswith("conflict-free")


# ---- occupancy: the hardware table and the rules ----------------------------------------------

H100 = get_gpu("H100")


def test_gpu_table_has_the_issue_5_chips_with_sources():
    for name in ("H100 SXM", "H100 PCIe", "H200", "A100", "A6000", "RTX 4090", "RTX 4060 Ti", "L4", "T4", "V100"):
        g = get_gpu(name)
        assert g.sms > 0 and g.sources and g.carveouts[-1] == g.smem_per_sm
    assert len(gpu_names()) >= 10
    with pytest.raises(UnknownGPU, match="did you mean"):
        get_gpu("H10")


def test_registers_12_show_as_16_and_others_as_compiled():
    # measured (analysis/results/ncu_h100.json): 10 -> 16, 18 -> 18, 25 -> 25, 94 -> 94
    assert allocated_registers(H100, 12) == 16
    assert allocated_registers(H100, 10) == 16
    assert allocated_registers(H100, 25) == 25
    assert allocated_registers(H100, 94) == 94
    # ...but a warp is given a multiple of 256: 25 registers -> 1024 per warp -> 8 blocks of 256
    assert occupancy(H100, 25, 256).limit_registers == 8
    assert occupancy(H100, 20, 256).limit_registers == 10


def test_carveout_examples_from_design():
    o = occupancy(H100, 16, 256, smem_static=1024)
    assert o.limit_shared_mem == 16 and o.smem_carveout == 32 * 1024
    assert o.blocks_per_sm == 8 and o.limiters == ["warps"]
    o = occupancy(H100, 16, 32, smem_static=8192)
    assert o.limit_shared_mem == 25
    assert round(o.occupancy_pct, 2) == 39.06
    assert o.limiters == ["shared_mem"]
    assert driver_carveout(H100, 2048, 8, threads=256) == 32 * 1024


def test_carveout_rule_against_the_measured_launches():
    """driver_carveout reproduces the carveout of every H100 launch measured (catalog kernels and
    probes), and every one holds the blocks the other limits allow: occupancy never depends on it."""
    path = ROOT / "analysis" / "results" / "ncu_h100.json"
    if not path.exists():
        pytest.skip("no measurements in analysis/results")
    d = json.loads(path.read_text())
    launches = [(p["metrics"], p["threads"]) for p in d["probes"]]
    launches += [(k["metrics"], math.prod(eval(k["block"]))) for k in d["kernels"].values() if "metrics" in k]
    assert len(launches) >= 70
    misses = []
    for m, threads in launches:
        own = m["launch__shared_mem_per_block_static"] + m["launch__shared_mem_per_block_dynamic"]
        per_block = smem_per_block(H100, own, 0)
        want = min(m["launch__occupancy_limit_registers"], m["launch__occupancy_limit_warps"],
                   m["launch__occupancy_limit_blocks"])
        assert m["launch__shared_mem_config_size"] // per_block >= min(want, H100.smem_per_sm // per_block)
        if driver_carveout(H100, per_block, want, threads, own > 0) != m["launch__shared_mem_config_size"]:
            misses.append((threads, own, m["launch__shared_mem_config_size"]))
    assert not misses


def test_register_limit_and_waves():
    o = occupancy(H100, 94, 256, smem_static=8192, grid_blocks=1024)
    assert o.registers_per_thread == 94 and o.limit_registers == 2
    assert o.limiters == ["registers"] and o.occupancy_pct == 25.0
    assert o.waves == pytest.approx(1024 / (2 * H100.sms))
    assert o.full_waves == 1024 // (2 * H100.sms) and o.tail_blocks == 1024 % (2 * H100.sms)
    d = o.to_dict()  # ncu's names for the fields that predict an ncu metric, in the field order
    assert d["launch__occupancy_limit_registers"] == 2 and d["sm__maximum_warps_per_active_cycle_pct"] == 25.0
    assert list(o.metrics())[0] == "launch__registers_per_thread"


def test_less_than_a_wave_spreads_its_blocks_over_the_sms():
    """40 blocks of 8 a SM could hold run one per SM on 40 SMs, as the block scheduler deals them (the sweep's
    F8: "fill 5 of 132 SMs", where the timing model said 40 SMs busy)."""
    from analysis.models.occupancy import spread_note
    note = spread_note(occupancy(H100, 32, 256, grid_blocks=40), H100)
    assert "40 blocks run on 40 of 132 SMs, 1 per SM of the 8 each could hold" in note
    assert "200 blocks run on 132 of 132 SMs, 2 per SM" in spread_note(occupancy(H100, 32, 256, grid_blocks=200),
                                                                        H100)


def test_refusals_name_the_limit():
    assert "1024" in occupancy(H100, 16, 2048).refused
    assert "232448" in occupancy(H100, 16, 256, smem_dynamic=240 * 1024).refused
    assert "opt-in" in occupancy(H100, 16, 256, smem_dynamic=60 * 1024, optin=False).refused
    assert "registers" in occupancy(H100, 255, 1024).refused
    assert occupancy(H100, 255, 1024).metrics() == {}


def test_neighbours_table():
    rows = neighbours(H100, 94, 256, 8192, 0, 1024)
    assert rows[0]["change"] == "as compiled"
    lose = [r for r in rows if "lose a block" in r["change"]]
    assert lose and lose[0]["registers"] == 129 and lose[0]["blocks_per_sm"] == 1


# ---- target parsing ----------------------------------------------------------------------

def test_parse_dims_and_signature():
    assert parse_dims("32,8") == (32, 8, 1)
    with pytest.raises(TargetError):
        parse_dims("0,1")
    ps = parse_signature("template<int T> __global__ void k(float *__restrict__ out, const float* in, int n) {}", "k<4>")
    assert [(p.name, p.pointer) for p in ps] == [("out", True), ("in", True), ("n", False)]


def test_plan_blocks_covers_edges_and_weights_sum_to_grid():
    blocks, w = plan_blocks((256, 256, 1), 256)
    assert blocks is not None and 0 in blocks and 255 in blocks and 256 * 256 - 1 in blocks
    assert sum(w.values()) == pytest.approx(256 * 256)
    assert plan_blocks((8, 8, 1), 256) == (None, {})


# ---- the CLIs (need NVRTC and the simulator) ---------------------------------------------

def _cli(*args, env=None):
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_banks_says_ncu_counts_contention_on_shared_stores_of_global_data():
    """tests/contention_h100.json: stores of just-loaded global data at 64 warps an SM measured >= 4% over their
    addresses, the same stores from registers exactly 1.0; the banks report says so where a kernel does that."""
    data = json.loads((ROOT / "tests" / "contention_h100.json").read_text())
    per = {(x["kernel"], x["grid"], x["block"]): x["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"]
           / x["smsp__inst_executed_op_shared_st.sum"] for x in data["launches"]
           if x["smsp__inst_executed_op_shared_st.sum"]}
    assert per[("sts_after_ldg", 8448, 256)] > 1.04 and per[("tiled_stage", 8448, 256)] > 1.04
    assert per[("sts_only", 8448, 256)] == 1.0 and per[("sts_after_ldg", 132, 256)] == 1.0
    need_nvrtc()
    r = _cli("analysis.banks", "corpus/matmul.cu::matmul_tiled", "--grid", "2,2", "--block", "16,16",
             "--arg", "M=32", "--arg", "N=32", "--arg", "K=32")
    assert r.returncode == 0 and "note: ncu counts shared wavefronts beyond" in r.stdout, r.stderr
    r = _cli("analysis.banks", "transpose_naive")
    assert r.returncode == 0 and "ncu counts shared wavefronts beyond" not in r.stdout


def test_coalescing_cli_on_transpose_tiled_points_to_banks():
    need_nvrtc()
    r = _cli("analysis.coalescing", "transpose_tiled")
    assert r.returncode == 0, r.stderr
    assert "unit stride, coalesced" in r.stdout
    assert "python -m analysis.banks transpose_tiled" in r.stdout and "32-way" in r.stdout
    assert "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum" in r.stdout and "simulated (all 64 blocks)" in r.stdout


def test_banks_and_occupancy_cli_json():
    need_nvrtc()
    r = _cli("analysis.banks", "transpose_tiled", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["banks"]["totals"]["l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"] == 64 * 32 * 32
    r = _cli("analysis.occupancy", "sgemm_2d_blocktiling", "--json")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["metrics"]["launch__occupancy_limit_warps"] == 8


def test_file_target_the_project_has_never_seen(tmp_path):
    need_nvrtc()
    src = tmp_path / "walk.cu"
    src.write_text("""
__global__ void walk(float *out, const float *in, int pitch) {
    __shared__ float s[32 * 40];
    int t = threadIdx.x;
    for (int i = t; i < 32 * 40; i += 32) s[i] = in[i];
    __syncthreads();
    out[blockIdx.x * 32 + t] = s[t * pitch] + in[t * 2];
}
""")
    r = _cli("analysis.banks", f"{src}::walk", "--grid", "2", "--block", "32", "--arg", "pitch=40",
             "--arg", "in=float32[4096]", "--arg", "out=float32[64]", "--no-cache")
    assert r.returncode == 0, r.stderr
    assert "8-way" in r.stdout and "gcd(40, 32) = 8" in r.stdout
    r = _cli("analysis.coalescing", f"{src}::walk", "--grid", "2", "--block", "32", "--arg", "pitch=40",
             "--arg", "in=float32[4096]", "--arg", "out=float32[64]", "--draw", "mermaid")
    assert r.returncode == 0, r.stderr
    assert "stride 2" in r.stdout and "flowchart LR" in r.stdout
    r = _cli("analysis.occupancy", f"{src}::walk", "--grid", "2", "--block", "2048")  # refused as any unusable input
    assert r.returncode == 2 and not r.stdout and "would not launch" in r.stderr and "1024" in r.stderr


@pytest.mark.parametrize("args", [
    ("analysis.coalescing", "no_such_kernel"),
    ("analysis.banks", "transpose_tiled", "--gpu", "Z80"),
    ("analysis.occupancy", "/nonexistent.cu::k", "--grid", "1", "--block", "32"),
    ("analysis.coalescing", "transpose_tiled", "--size", "-3"),
])
def test_bad_input_is_one_line_and_exit_2(args):
    need_nvrtc()
    r = _cli(*args)
    assert r.returncode == 2, (r.stdout, r.stderr)
    assert r.stderr.startswith("error: ") and len(r.stderr.strip().splitlines()) == 1


# ---- SASS-level regrouping (ptxas merges neighbouring accesses) ---------------------------

SASS_SNIPPET = """
.text.k:
	//## File "/x/k.cu", line 48
        /*0320*/                   LDS R26, [R6] ;
        /*0330*/                   LDS.128 R12, [R17] ;
        /*0340*/              @!P1 LDG.E.64 R8, desc[UR6][R8.64] ;
	//## File "/x/k.cu", line 50
        /*0350*/                   STS [R16], R27 ;
"""


def test_parse_sass_by_line_and_width():
    from analysis.sass import parse_sass
    ops = parse_sass(SASS_SNIPPET)["k"]
    assert sorted(ops[("k.cu", 48)]) == [("global", "ld", 8), ("shared", "ld", 4), ("shared", "ld", 16)]
    assert ops[("k.cu", 50)] == [("shared", "st", 4)]


def test_regroup_merges_four_broadcast_floats_into_one_16_byte_load():
    from analysis.sass import regroup
    # sgemm_smem's line: As[ty*32 + k] for k = 0..3 (one row, every lane the same word): 4 PTX loads
    # and one column load Bs[k*32 + tx]; SASS on the line: one LDS.128 and one LDS
    row = [warp(np.full(32, 4 * k, np.uint64), space="shared", pc=k, line=48) for k in range(4)]
    col = warp(4096 + LANES * 4, space="shared", pc=9, line=48)
    for e in row + [col]:
        e.file = "k.cu"
    out, notes = regroup(row + [col], {("k.cu", 48): [("shared", "ld", 16), ("shared", "ld", 4)]})
    assert not notes and sorted(e.size for e in out) == [4, 16]
    (merged,) = [e for e in out if e.size == 16]
    (si,) = [s for s in banks.analyze_events([merged])]
    assert si.requests == 1 and si.wavefronts == 2 and si.conflicts == 0  # a 16-byte broadcast: 2, measured
    # without a matching SASS shape the line stays PTX-level and says so
    out, notes = regroup(row, {("k.cu", 48): [("shared", "ld", 8)] * 3 + [("shared", "ld", 4)]})
    assert len(out) == 4 and notes


def test_regroup_merges_across_lines_and_never_across_a_store():
    """scan_blelloch's last step: `t = temp[ai]` (line 29) and `temp[bi]` (line 30) with ai = 2t, bi = 2t + 1 are
    one LDS.64 that nvdisasm names by line 29; the final out[...] = temp[2t], temp[2t + 1] (lines 35, 36) another,
    with a global store between them (it cannot write shared memory). A load of the same words past a shared
    store is a new load, not a re-read ptxas drops."""
    from analysis.sass import regroup

    class Body:  # the PTX between the pcs: 10, 11 the pair; 12 a shared store; 15, 17 the pair with st.global 16
        def __init__(self, base, mods=()):
            self.base, self.mods = base, mods
    body = [Body("add")] * 20
    body[12], body[16] = Body("st", ("shared", "f32")), Body("st", ("global", "f32"))
    from analysis.sass import fences
    fenced = fences(body)
    pair = [warp(LANES * 8 + 4 * k, space="shared", pc=10 + k, line=29 + k) for k in range(2)]
    final = [warp(LANES * 8 + 4 * k, space="shared", pc=15 + 2 * k, line=35 + k) for k in range(2)]
    for e in pair + final:
        e.file = "k.cu"
    sass = {("k.cu", 29): [("shared", "ld", 8)], ("k.cu", 35): [("shared", "ld", 8)]}
    out, notes = regroup(pair + final, sass, fenced)
    assert not notes and sorted((e.line, e.size) for e in out) == [(29, 8), (35, 8)]
    # the same two loads with a shared store between: two SASS loads, and the second is not dropped
    again = [warp(LANES * 4, space="shared", pc=pc, line=30) for pc in (11, 13)]
    for e in again:
        e.file = "k.cu"
    out, notes = regroup(again, {("k.cu", 30): [("shared", "ld", 4)] * 2}, fenced)
    assert len(out) == 2 and not notes
    out, notes = regroup(again, {("k.cu", 30): [("shared", "ld", 4)]})  # nothing between: ptxas drops the re-read
    assert len(out) == 1


def test_16_byte_quarters_of_a_load_share_a_wavefront_only_where_they_fit_in_one():
    # measured (tests/banks_h100.json): chunk lane % 8 -> 4 (two quarters of one 128-byte row: 256 bytes to
    # carry a half-warp); chunk lane / 8 -> 2 (a half-warp's two chunks share); a store never shares
    same = (LANES % 8) * 16
    split = (LANES // 8) * 16
    assert wavefronts(same, size=16) == (4, 0)
    assert wavefronts(split, size=16) == (2, 0)
    br = banks.bank_rows(split.reshape(1, 32), np.array([FULL], np.uint32), 16, "st")
    assert int(br.wavefronts[0]) == 4


@pytest.mark.parametrize("op", ["ld", "st"])
def test_bank_rule_equals_every_lane_pattern_measured_on_the_h100(op):
    """tests/banks_gpu.py's one-warp patterns (4-, 8- and 16-byte; strides, broadcasts, quarter copies, GEMM
    tiles, random), counted by ncu on the H100: the rule gives each one's wavefronts per request."""
    data = json.loads((ROOT / "tests" / "banks_h100.json").read_text())
    wrong = []
    for p in data["patterns"]:
        addr = np.array(p["addr"], np.int64)
        mask = int(sum(1 << i for i in range(32) if addr[i] >= 0))
        br = banks.bank_rows(np.where(addr >= 0, addr, 0).astype(np.uint64).reshape(1, 32),
                             np.array([mask], np.uint32), p["size"], op)
        if int(br.wavefronts[0]) != p[op]["per_request"]:
            wrong.append((p["size"], p["name"], int(br.wavefronts[0]), p[op]["per_request"]))
    assert len(data["patterns"]) >= 300 and not wrong, wrong


def test_compare_reproduces_the_committed_ncu_counts():
    """Predictions against the H100 measurements in analysis/results (the accuracy table's core)."""
    need_nvrtc()
    from analysis.compare import compare
    from analysis.sass import find_nvdisasm
    path = ROOT / "analysis" / "results" / "ncu_h100.json"
    if not path.exists():
        pytest.skip("no measurements in analysis/results")
    names = ["transpose_tiled", "transpose_padded", "sgemm_naive"] + (["sgemm_smem"] if find_nvdisasm() else [])
    c = compare(json.loads(path.read_text()), names)
    judged = [r for r in c["rows"] if r.get("status") in ("ok", "MISS")
              and r["metric"] != "launch__occupancy_limit_shared_mem"]
    assert judged and all(r["status"] == "ok" for r in judged), [r for r in judged if r["status"] != "ok"]
