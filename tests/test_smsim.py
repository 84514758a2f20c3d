"""The SM simulation on instruction streams whose cycles follow from the rules: one issue per
scheduler per cycle, ptxas's stall counts, scoreboard barriers released by loads, pipe intervals,
the data stage's one wavefront per cycle, DRAM's share, block barriers and block launches."""
import pytest

from analysis import smsim
from analysis.smsim import BARRIER, LOAD, SHARED, STORE, Access, Memory, Op, WarpWork

FMA, MEM, BAR = 0, 1, 2
MEMORY = Memory(wavefront_clk=1.0, l2_load_line_clk=4.0, l2_load_byte_clk=0.0, l2_store_line_clk=4.0,
                l2_store_byte_clk=0.0, dram_byte_clk=0.1, dram_line_clk=0.0, latency_l1=30.0, latency_l2=300.0,
                latency_dram=700.0)


def op(stall=1, interval=1.0, kind=0, pipe=FMA, wb=7, wait=0, latency=4.0):
    return Op(pipe, interval, latency, (), (), kind, stall, wb, 7, wait)


def run(ops, warps, resident=1, blocks=1, mem=MEMORY, barrier=0.0, launch=0.0):
    return smsim.simulate(ops, warps, resident, blocks, mem, barrier, launch)


def test_one_warp_issues_once_a_cycle():
    r = run([op()], [WarpWork([0] * 100, [])])
    assert r.issued == 100 and r.cycles == pytest.approx(99 + 4, abs=1)  # the last result lands 4 cycles on


def test_stall_counts_space_a_warps_instructions():
    r = run([op(stall=4)], [WarpWork([0] * 100, [])])
    assert r.cycles == pytest.approx(400, abs=5)


def test_four_warps_fill_four_schedulers_and_a_pipe_interval_limits_each():
    warps = [WarpWork([0] * 100, []) for _ in range(8)]  # two warps per scheduler
    assert run([op(stall=4)], warps).cycles == pytest.approx(400, abs=5)  # latency hidden by the second warp
    assert run([op(stall=1, interval=2.0)], warps).cycles == pytest.approx(400, abs=5)  # 200 per warp, pipe-bound


def test_a_load_releases_its_scoreboard_when_its_data_arrives():
    ops = [op(kind=LOAD, pipe=MEM, wb=0), op(wait=1)]  # the use waits on barrier 0
    hit = run(ops, [WarpWork([0, 1], [Access(1.0, level=1)])])
    dram = run(ops, [WarpWork([0, 1], [Access(1.0, lines=1.0, dram_bytes=128.0, level=3)])])
    assert hit.cycles == pytest.approx(1 + 1 + 30 + 1, abs=2)
    assert dram.cycles > 700 and dram.cycles < 700 + 30
    assert dram.idle["DRAM"] > 600


def test_the_data_stage_serializes_wavefronts():
    ops = [op(kind=SHARED, pipe=MEM)]
    warps = [WarpWork([0] * 50, [Access(4.0, latency=20.0)] * 50) for _ in range(4)]
    r = run(ops, warps)
    assert r.data_stage == pytest.approx(4 * 50 * 4.0)
    assert r.cycles >= 800


def test_dram_share_bounds_a_stream_of_stores():
    ops = [op(kind=STORE, pipe=MEM)]
    warps = [WarpWork([0] * 100, [Access(1.0, lines=1.0, dram_bytes=512.0, level=0)] * 100) for _ in range(4)]
    r = run(ops, warps)
    assert r.dram == pytest.approx(400 * 512 * 0.1)
    assert r.cycles >= r.dram


def test_a_barrier_waits_for_the_slowest_warp():
    ops = [op(kind=LOAD, pipe=MEM, wb=0), op(wait=1), op(kind=BARRIER, pipe=BAR), op()]
    slow = WarpWork([0, 1, 2, 3], [Access(1.0, lines=1.0, dram_bytes=32.0, level=3)])
    fast = WarpWork([2, 3], [])
    r = run(ops, [slow, fast], barrier=10.0)
    assert r.cycles > 700 + 10
    assert r.idle.get("barrier", 0) > 600


def test_warps_that_exit_do_not_hold_a_barrier():
    ops = [op(), op(kind=BARRIER, pipe=BAR)]
    r = run(ops, [WarpWork([0], []), WarpWork([0, 1, 0], [])])
    assert not r.deadlock and r.issued == 4


def test_blocks_start_at_the_launch_rate():
    r = run([op()], [WarpWork([0], [])], resident=8, blocks=64, launch=100.0)
    assert r.cycles == pytest.approx(63 * 100 + 2, abs=5)


def test_a_freed_slot_refills_after_the_refill_time():
    # one slot: each 100-cycle block is followed by 300 empty cycles; eight slots hide the refill behind the
    # launch rate as the empty-block microbenchmark saw (tests/refill_h100.json against blocks_empty_*)
    one = smsim.simulate([op()], [WarpWork([0] * 100, [])], 1, 10, MEMORY, 0.0, 0.0, block_refill=300.0)
    assert one.cycles == pytest.approx(10 * (99 + 4) + 9 * 300, abs=5)  # a block ends as its last result lands
    eight = smsim.simulate([op()], [WarpWork([0], [])], 8, 64, MEMORY, 0.0, 100.0, block_refill=300.0)
    assert eight.cycles == pytest.approx(63 * 100 + 2, abs=5)


def test_a_barrier_some_warps_never_reach_is_reported():
    ops = [op(kind=BARRIER, pipe=BAR), op()]
    r = run(ops, [WarpWork([0, 1], []), WarpWork([1, 1], [])], barrier=0.0)
    assert r.issued >= 3 and not r.deadlock  # the second warp exits; the first is released


def test_latency_spread_makes_a_request_wait_for_its_slowest_line():
    ops = [op(kind=LOAD, pipe=MEM, wb=0), op(wait=1)]
    mem = Memory(**{**MEMORY.__dict__, "dram_sigma": 50.0})
    one = run(ops, [WarpWork([0, 1], [Access(1.0, lines=1.0, dram_bytes=32.0, level=3)])], mem=mem)
    many = run(ops, [WarpWork([0, 1], [Access(1.0, lines=32.0, dram_bytes=1024.0, level=3)])], mem=mem)
    assert many.cycles > one.cycles + 50


def test_blocks_that_do_different_work_run_in_turn():
    """Two kinds of block, one at a time on the SM: the i-th block launched runs the (i mod 2)-th kind."""
    long, short = [WarpWork([0] * 300, [])], [WarpWork([0] * 100, [])]
    r = run([op()], [long, short], resident=1, blocks=4)
    assert r.issued == 2 * 300 + 2 * 100
    done = sorted(r.block_done)
    assert done[1] - done[0] == pytest.approx(100, abs=6) and done[2] - done[1] == pytest.approx(300, abs=6)


def test_block_done_is_in_launch_order():
    """A long block launched first and short ones after it on other slots: block_done[0] is the long
    block's end (the timing model reads the longest block's end there), though it finishes last."""
    long, short = [WarpWork([0] * 1000, [])], [WarpWork([0] * 100, [])]
    r = run([op()], [long, short, short, short], resident=4, blocks=4)
    assert r.block_done[0] == max(r.block_done) and r.block_done[1] < r.block_done[0]
