"""Each warp's memory instructions as the SM simulation charges them, on a kernel whose answer is
known (tests/data/walks.cu::loads): a load of 1 or 32 lines a warp, a reload of what the other warp
brought into L1, a shared store without conflicts, a shared load with a 2-way conflict, a store."""
import pytest

from blockwalk import walk_block


def _accesses(stride: int, dram_share: float = 1.0) -> list[list]:
    from analysis import memaccess
    s, block, streams = walk_block("tests/data/walks.cu::loads", (1, 1, 1), (64, 1, 1),
                                   {"a": "float32[4096]", "out": "float32[64]", "stride": str(stride)})
    out = []
    for warp, stream in enumerate(streams):
        ops = [s.listing.instructions[i].op for i in stream if memaccess.sass_key(s.listing.instructions[i])]
        assert ops == ["LDG", "LDG", "STS", "LDS", "STG"]
        out.append(block.for_warp(s.listing, stream, warp, dram_share, dram_share, 24.0))
    return out


@pytest.mark.parametrize("stride,lines", [(1, 1), (32, 32)])
def test_lines_hits_and_wavefronts(stride, lines):
    for first, again, sts, lds, stg in _accesses(stride):
        assert (first.wavefronts, first.lines, first.level) == (lines, lines, 3)  # from DRAM
        assert first.dram_bytes == first.l2_bytes == 32 * (lines if stride > 1 else 4)
        assert (again.wavefronts, again.lines, again.level) == (lines, 0, 1)  # the other warp brought it
        assert (sts.wavefronts, sts.latency) == (1, 30.0)
        assert (lds.wavefronts, lds.latency) == (2, 30.0)  # s[2t]: two lanes on each bank
        assert (stg.lines, stg.dram_bytes) == (1, 128)


def test_a_dram_share_is_charged_in_whole_requests():
    """With half the missing bytes from DRAM, one of the two warps' first loads goes to DRAM."""
    firsts = [w[0] for w in _accesses(1, dram_share=0.5)]
    assert sorted(a.dram_bytes for a in firsts) == [0.0, 128.0]
    assert sorted(a.level for a in firsts) == [2, 3]


@pytest.mark.parametrize("stride,rmw,partial", [(16, 0, 32), (1, 0, 0), (16, 1, 0)])
def test_a_store_pays_for_the_sectors_it_writes_in_part_unless_the_block_read_them(stride, rmw, partial):
    """2-byte stores 32 bytes apart write 32 sectors in part (each costs the L2 beside its line:
    kernels.microbench l2_store_*); side by side they fill 2 whole sectors; after the thread read its
    element, the sectors are the block's and cost a line's share alone."""
    from analysis import memaccess
    s, block, streams = walk_block("tests/data/walks.cu::scatter16", (1, 1, 1), (64, 1, 1),
                                   {"out": "uint16[1024]", "stride": str(stride), "rmw": str(rmw)})
    for warp, stream in enumerate(streams):
        acc = block.for_warp(s.listing, stream, warp, 1.0, 1.0, 24.0)
        ops = [s.listing.instructions[i].op for i in stream if memaccess.sass_key(s.listing.instructions[i])]
        (st,) = [a for a, op in zip(acc, ops) if op == "STG"]
        assert st.l2_partial == partial


def test_global_wavefronts_match_the_h100s_l1_hit_rates():
    """Every lane pattern of kernels.microbench's l1_patterns group, as L1 hits: the rule (the larger of the tag
    stage's and the data stage's wavefronts) gives the SM cycles per warp load the H100 took, averaged over a
    thread's 16 accesses (the step moves the lines), within 10% for the regular patterns; for random lanes the
    tag groups' hash is not known exactly and the rule runs up to a quarter low."""
    import json
    from pathlib import Path

    import numpy as np

    from analysis import memaccess
    from kernels import microbench

    figs = json.loads((Path(__file__).resolve().parent.parent / "kernels/results/microbench_h100.json").read_text())
    lanes, full = np.arange(32), np.full((1,), 0xFFFFFFFF, np.uint32)
    for name, size, offsets, step, _ in microbench.L1_PATTERNS:
        offs = np.asarray(offsets(lanes), np.int64)
        rows = np.stack([(1 << 30) + offs + step * j for j in range(16)])
        got = memaccess.global_wavefronts(rows, np.repeat(full, 16), size, 4).mean()
        measured = figs["figures"][f"l1p_hit_{name}"]["value"]
        if name.startswith("random"):
            assert 0.75 * measured <= got <= 1.05 * measured, (name, got, measured)
        else:
            assert abs(got - measured) <= 0.1 * measured, (name, got, measured)


def test_tag_groups_spread_every_power_of_two_stride():
    import numpy as np

    from analysis.memaccess import tag_groups

    for k in range(12):  # 8 lines from an aligned start: 2 per group (from other starts some strides take 3)
        lines = (np.arange(8) << k) + (1 << 20)
        assert np.bincount(tag_groups(lines, 4), minlength=4).max() == 2, k


@pytest.mark.parametrize("rmw", [0, 1])
def test_a_store_opens_dram_lines_only_where_the_block_did_not_load_them(rmw):
    """A scattered store opens its lines in DRAM at the random-access rate; stored in place, after the
    thread loaded its element, the lines came from DRAM with the loads and go back with them."""
    from analysis import memaccess
    s, block, streams = walk_block("tests/data/walks.cu::scatter16", (1, 1, 1), (64, 1, 1),
                                   {"out": "uint16[1024]", "stride": "16", "rmw": str(rmw)})
    opened = 0.0
    for warp, stream in enumerate(streams):
        acc = block.for_warp(s.listing, stream, warp, 1.0, 1.0, 24.0)
        ops = [s.listing.instructions[i].op for i in stream if memaccess.sass_key(s.listing.instructions[i])]
        (st,) = [a for a, op in zip(acc, ops) if op == "STG"]
        assert st.lines > 0
        opened += st.dram_lines
    assert (opened > 0) == (rmw == 0)
