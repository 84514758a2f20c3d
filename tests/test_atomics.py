"""Global atomics at the L2's atomic units (analysis.atomics) and DRAM's line visits (analysis.memaccess):
the unit costs of known lane patterns, the committed constants against the microbenchmarks they were
fitted to, the replay of the microbenchmark's addresses against the kernel run in cudasim, and what a
block's warps are charged on kernels/microbench.cu's own kernels."""
import json
from pathlib import Path

import numpy as np
import pytest

from analysis import atomics
from analysis.models.timing import rates
from blockwalk import walk_block
from cudasim.gpus import get_gpu
from needs import need_nvrtc

ROOT = Path(__file__).resolve().parent.parent
FIGURES = json.loads((ROOT / "kernels" / "results" / "microbench_h100.json").read_text())["figures"]
UNITS = atomics.Units(1024, 1.0, 0.1, 0.5, 2.0, 0.0625, 0.25, 0.0125)


def test_costs_of_known_lane_patterns():
    one_word = np.zeros(32, np.int64)  # every lane on byte 0: one chunk, one line, 31 repeats
    assert sorted(atomics.costs(one_word, UNITS)) == [(0, 1.0 + 3.2 + 15.5), (1, 2.0 + 32 * 0.0625 + 31 * 0.25)]
    line = np.arange(32, dtype=np.int64) * 4  # lane l on word l of line 0
    assert sorted(atomics.costs(line, UNITS)) == [(0, 1.0 + 3.2), (1, 2.0 + 32 * 0.0625)]
    spread = np.arange(32, dtype=np.int64) * 128  # each lane its own line: 4 KiB over 4 chunks of 8 lines
    c = dict(atomics.costs(spread, UNITS))
    assert [c[2 * k] for k in range(4)] == [8 * 1.0 + 8 * 0.1] * 4
    assert all(c[2 * ln + 1] == 2.0 + 0.0625 for ln in range(32))
    assert atomics.costs(np.array([], np.int64), UNITS) == []


def test_l2_operations_count_sectors_and_repeated_lanes():
    """One operation per sector a warp's atomic updates, one more per lane on a word an earlier lane
    updates (ncu's lts__t_sectors_op_red: 28 per request where the 32 lanes of a COO SpMV warp share 2-3
    words)."""
    assert atomics.l2_ops(np.arange(32, dtype=np.int64) * 4) == 4  # one line's 32 words: 4 sectors
    assert atomics.l2_ops(np.zeros(32, np.int64)) == 32  # one word: 1 sector + 31 repeats
    assert atomics.l2_ops(np.repeat(np.array([0, 4, 40], np.int64), [10, 12, 10])) == 2 + 29
    assert atomics.l2_ops(np.arange(32, dtype=np.int64) * 128) == 32
    assert atomics.l2_ops(np.array([], np.int64)) == 0


def test_sharing_tells_a_shared_table_from_each_blocks_own_words():
    """How many blocks reach a unit while a block runs, with 1056 blocks on the chip at once: a 256-bin
    table every block updates is reached by all of them; rows sorted by block (64 bytes a block) by the
    blocks whose rows overlap the unit's span; 256 words scattered over a 64 MiB table by those of the
    1056 blocks whose words fall in its chunk (1 + 1055 x 256 / 65536) or line, though one other sampled
    block reaches it by chance."""
    rng = np.random.default_rng(0)
    sampled = (0, 1000, 5000, 9000, 13000)
    shared = {b: rng.integers(0, 256, 2048) * 4 for b in sampled}
    s = atomics.sharing(shared, 5000, UNITS, 1056)
    assert s and all(v == pytest.approx(1056) for v in s.values())
    sorted_rows = {b: (b * 16 + np.repeat(np.arange(16), 16)) * 4 for b in sampled}
    s = atomics.sharing(sorted_rows, 5000, UNITS, 1056)
    chunk, line = [v for k, v in s.items() if k % 2 == 0], [v for k, v in s.items() if k % 2]
    assert chunk == [pytest.approx((1024 + 64) / 64)] and line == [pytest.approx((128 + 64) / 64)]
    scattered = {b: rng.integers(0, 1 << 24, 256) * 4 for b in sampled}
    s = atomics.sharing(scattered, 5000, UNITS, 1056)
    chunk, line = [v for k, v in s.items() if k % 2 == 0], [v for k, v in s.items() if k % 2]
    assert max(chunk) == pytest.approx(1 + 1055 * 256 / 65536, rel=0.01) and 1 < max(line) < 2
    assert atomics.sharing({5000: sorted_rows[5000]}, 5000, UNITS, 1056) == {}  # one block: no estimate


def test_committed_constants_reproduce_the_measured_patterns():
    """gpus.json's constants (fitted by python -m analysis.atomics) against the 19 measured rates."""
    u = atomics.Units.of(rates(get_gpu("H100-SXM")))
    err = atomics.errors(FIGURES, u)
    assert len(err) == 19
    logs = np.log1p(np.array(list(err.values())))
    assert np.sqrt(np.mean(logs ** 2)) <= 0.15  # the fit's stated rms log error, 0.142
    assert max(abs(e) for e in err.values()) < 0.6
    # the contention the constants encode: a warp on one word is ~30x slower than a warp on one line's words
    assert err.keys() >= {"atomic_warp_256", "atomic_line_256"}
    reqs = {m: atomics.pattern_requests(atomics.MODES[m], 256) for m in ("warp", "line")}
    assert atomics.predicted_rate(reqs["line"], u) > 5 * atomics.predicted_rate(reqs["warp"], u)


def test_the_fit_finds_the_committed_chunk_and_errors_on_too_few_figures():
    u, e = atomics.fit(FIGURES, rounds=200)
    assert u.chunk_bytes == get_gpu("H100-SXM").timing["atomic_chunk_bytes"]["value"] and e < 0.2
    with pytest.raises(ValueError, match="too few"):
        atomics.fit({})


def test_pattern_requests_replay_the_microbenchmark():
    """The addresses analysis.atomics fits on are the ones kernels/microbench.cu's atomic_global_pattern
    hits: the table it leaves in cudasim, per mode, equals the replayed requests' histogram."""
    need_nvrtc()
    from cudasim import InOut, SourceModule
    mod = SourceModule((ROOT / "kernels" / "microbench.cu").read_text(), no_extern_c=True, filename="microbench.cu")
    f = mod.get_function("atomic_global_pattern")
    for mode in (0, 1, 2):
        t = np.zeros(256, np.uint32)
        f(InOut(t), np.int32(3), np.uint32(255), np.int32(mode), block=(64, 1, 1), grid=(1, 1))
        want = np.zeros(256, np.int64)
        for r in atomics.pattern_requests(mode, 256, warps=2, iters=3):
            np.add.at(want, r // 4, 1)
        assert (t.astype(np.int64) == want).all(), mode


def _block_accesses(kernel: str, grid, block, args: dict):
    s, acc, streams = walk_block(f"kernels/microbench.cu::{kernel}", grid, block, args)
    units = atomics.Units.of(rates(get_gpu()))
    return s.listing, [acc.for_warp(s.listing, st, w, 1.0, 1.0, 24.0, units, lambda _: 261.0)
                       for w, st in enumerate(streams)]


def test_dram_opens_a_line_once_per_block():
    """grid2d_read with 16 x 16 blocks: each warp reads 8 bytes of 16 rows; the block's 8 warps take the
    same 16 lines (two sectors each), so DRAM opens 16 lines, not one per warp and line."""
    _, warps = _block_accesses("grid2d_read", (4, 4, 1), (16, 16, 1),
                               {"a": "float32[4096]", "sink": "float32[4]", "rows": "64", "cols": "64"})
    loads = [w[0] for w in warps]
    assert all(a.wavefronts == 16 for a in loads)  # every request still reaches 16 lines in L1
    assert sum(a.dram_lines for a in loads) == 16
    assert sum(a.dram_bytes for a in loads) == 16 * 2 * 32  # two sectors per line, each fetched once


def test_leader_elected_atomics_send_each_address_once():
    """atomic_global_same: ptxas sums the warp's lanes (VOTEU, POPC, UFLO) and one lane adds: one word,
    no repeats. atomic_global_pattern's lanes reach their own addresses, repeats and all."""
    from analysis import memaccess
    listing, warps = _block_accesses("atomic_global_same", (1, 1, 1), (64, 1, 1),
                                     {"a": "uint32[4]", "iters": "1", "inc": "1"})
    assert memaccess.leader_elected(listing)
    red = [a for a in warps[0] if a.serial]
    assert red and all(len(a.serial) == 2 for a in red)  # one chunk, one line
    u = atomics.Units.of(rates(get_gpu()))
    # one lane, no repeats
    assert [c for k, c in red[0].serial if k % 2] == [pytest.approx((u.same_line_ns + u.same_line_lane_ns) * 261.0)]
    listing, warps = _block_accesses("atomic_global_pattern", (1, 1, 1), (64, 1, 1),
                                     {"t": "uint32[32]", "iters": "1", "mask": "31", "mode": "1"})
    assert not memaccess.leader_elected(listing)
    red = [a for a in warps[0] if a.serial]
    line = u.same_line_ns + 32 * u.same_line_lane_ns + 31 * u.same_line_repeat_ns
    assert [c for k, c in red[0].serial if k % 2] == [pytest.approx(line * 261.0)]



def test_loads_that_hit_l1_do_not_send_a_later_store_to_dram():
    """aos_particles: six 4-byte loads of a 24-byte struct (the first misses, five hit L1), then three
    stores. With a third of the stores' bytes for DRAM, one store in three goes there, whatever the loads
    did; a store's L2 bytes are those its lanes write (32 x 4), not its 24 sectors'."""
    s, acc, streams = walk_block("corpus/holdout2/aos_particles.cu::aos_particles_step", (1, 1, 1), (64, 1, 1),
                                 {"p": "float32[384]", "n": "64", "dt": "0.01"})
    for w, st in enumerate(streams):
        a = acc.for_warp(s.listing, st, w, 1.0, 1 / 3, 24.0)
        loads, stores = [x for x in a if x.level in (1, 3)], [x for x in a if x.level == 0 and x.lines]
        assert len(loads) == 6 and sum(x.dram_bytes > 0 for x in loads) == 1
        assert len(stores) == 3 and sum(x.dram_bytes > 0 for x in stores) == 1
        assert all(x.l2_bytes == 128 for x in stores) and all(x.lines == 6 for x in stores)


def test_an_atomic_with_its_result_used_is_leader_elected_too():
    """stream compaction's atomicAdd(count, 1) feeds the store's index: ptxas votes, counts and finds the
    leader (VOTEU.ANY, POPC, FLO) and one lane's ATOMG returns the base for the warp."""
    from analysis import memaccess
    s, acc, streams = walk_block("corpus/holdout2/stream_compact.cu::stream_compact_atomic", (1, 1, 1), (64, 1, 1),
                                 {"in": "float32[64]", "out": "float32[64]", "count": "uint32[1]", "n": "64",
                                  "threshold": "-1.0", "capacity": "64"})
    elected = memaccess.leader_elected(s.listing)
    assert [s.listing.instructions[i].op for i in elected] == ["ATOMG"]
