"""DRAM bytes of reused data through a limited L2: pure functions on per-array facts."""
import pytest

from analysis.l2reuse import ArrayUse, dram_reads, shared_dims

MB = 1 << 20


def test_blocks_of_a_row_loading_one_panel_share_it_along_x():
    panel = {(x, y, 0): {y * 100 + k for k in range(50)} for x in range(3) for y in range(2)}
    private = {(x, y, 0): {1000 * x + 10 * y + k for k in range(5)} for x in range(3) for y in range(2)}
    assert shared_dims(panel) == (0,)
    assert shared_dims(private) == ()


def test_comparisons_are_bounded_however_many_blocks_are_sampled(monkeypatch):
    from analysis import l2reuse
    calls = []
    monkeypatch.setattr(l2reuse, "jaccard", lambda a, b: calls.append(1) or 0.0)
    gather = {(x, 0, 0): set(range(x, x + 1000)) for x in range(5000)}
    assert shared_dims(gather, pairs=64) == () and len(calls) <= 64


def test_streamed_and_halo_arrays_cost_their_footprint():
    stream = ArrayUse(footprint=64 * MB, offered=64 * MB, shared_dims=())
    halo = ArrayUse(footprint=64 * MB, offered=66 * MB, shared_dims=())
    assert dram_reads([stream, halo], (4096, 1, 1), 264, 32 * MB) == 128 * MB


def test_a_shared_panel_is_refetched_per_wave_only_when_a_wave_does_not_fit_in_l2():
    grid, wave = (64, 64, 1), 128  # a wave: two rows of blocks
    row = ArrayUse(footprint=16 * MB, offered=64 * 16 * MB, shared_dims=(0,))  # a row's blocks share a panel
    col = ArrayUse(footprint=16 * MB, offered=64 * 16 * MB, shared_dims=(1,))  # a column's blocks share one
    assert dram_reads([row, col], grid, wave, capacity=64 * MB) == 32 * MB
    # a row's users run in one wave: fetched once; a column's span 63 x 64 blocks: once per wave they span
    tiny = 0.1 * MB
    assert dram_reads([row], grid, wave, tiny) == 16 * MB
    assert dram_reads([col], grid, wave, tiny) == pytest.approx(16 * MB * (63 * 64 / 128 + 1))


def test_a_gather_hits_l2_in_the_share_of_the_array_it_holds():
    fits = ArrayUse(footprint=16 * MB, offered=160 * MB, shared_dims=(), scattered=True)
    twice = ArrayUse(footprint=64 * MB, offered=160 * MB, shared_dims=(), scattered=True)
    assert dram_reads([fits], (1000, 1, 1), 264, 32 * MB) == 16 * MB
    assert dram_reads([twice], (1000, 1, 1), 264, 32 * MB) == pytest.approx(64 * MB + 96 * MB / 2)


def test_hot_sectors_of_a_scattered_array_stay_in_l2():
    """A pivot row and column that every block loads (the share `hot` of the loads) are no random
    references: only the rest of what goes beyond the footprint misses as a gather's would."""
    pivot = ArrayUse(footprint=64 * MB, offered=100 * MB, shared_dims=(), scattered=True, hot=0.36)
    assert dram_reads([pivot], (1000, 1, 1), 264, 32 * MB) == 64 * MB
    some = ArrayUse(footprint=64 * MB, offered=160 * MB, shared_dims=(), scattered=True, hot=0.1)
    assert dram_reads([some], (1000, 1, 1), 264, 32 * MB) == pytest.approx(64 * MB + (96 - 16) * MB / 2)


def test_a_read_once_array_whose_sampled_estimate_overshoots_does_not_crowd_out_a_gather():
    """Sparse diagonals streamed once by blocks sampled where the work changes: the estimate of their
    bytes overshoots the array by a few percent, with no sector shared in the sample (offered = distinct).
    That is the sampling's spread, not reuse: they cost their footprint, and the gathered vector, which
    fits in L2, keeps its hits."""
    diag = ArrayUse(footprint=180 * MB, offered=190 * MB, shared_dims=(), scattered=True, distinct=190 * MB)
    x = ArrayUse(footprint=8 * MB, offered=1400 * MB, shared_dims=(), scattered=True, hot=0.7, distinct=860 * MB)
    assert not diag.reused() and x.reused()
    assert dram_reads([diag, diag, x], (16384, 1, 1), 2112, 32 * MB) == 368 * MB
    # shared in the sample (offered over distinct), the same overshoot is reuse
    assert ArrayUse(footprint=180 * MB, offered=190 * MB, shared_dims=(), distinct=100 * MB).reused()
