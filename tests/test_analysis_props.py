"""Property tests on the models' index math."""
import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.models import banks, coalescing
from analysis.models.occupancy import occupancy
from cudasim.gpus import get_gpu

PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
LANES = np.arange(32, dtype=np.uint64)
H100 = get_gpu("H100")


def _sectors(addrs, mask, size):
    rs = coalescing.row_stats(np.asarray(addrs, np.uint64).reshape(1, 32), np.array([mask], np.uint32), size)
    return int(rs.sectors[0]), int(rs.ideal[0])


sizes = st.sampled_from([1, 2, 4, 8, 16])


@PROPS
@given(size=sizes, elems=st.lists(st.integers(0, 4096), min_size=32, max_size=32),
       mask=st.integers(1, 2 ** 32 - 1), perm=st.permutations(list(range(32))))
def test_sectors_between_ideal_and_32_and_permutation_invariant(size, elems, mask, perm):
    addrs = np.uint64(1 << 40) + np.array(elems, np.uint64) * np.uint64(size)  # naturally aligned elements
    s, ideal = _sectors(addrs, mask, size)
    assert 1 <= ideal <= s <= 32  # naturally aligned lanes of <= 16 bytes touch one sector each
    p = np.array(perm)
    pmask = 0
    for new, old in enumerate(p):
        if mask >> int(old) & 1:
            pmask |= 1 << new
    assert _sectors(addrs[p], pmask, size) == (s, ideal)


@PROPS
@given(line=st.integers(0, 1 << 20), offset=st.sampled_from([0, 32, 64, 96]))
def test_unit_stride_4_byte_warp_at_aligned_base_is_4_sectors(line, offset):
    base = (1 << 40) + line * 128 + offset  # 128-byte aligned, or 32-byte aligned inside a line
    assert _sectors(base + LANES * 4, 0xFFFFFFFF, 4)[0] == 4


def _wavefronts(addrs, size=4):
    br = banks.bank_rows(np.asarray(addrs, np.uint64).reshape(1, 32), np.array([0xFFFFFFFF], np.uint32), size)
    return int(br.wavefronts[0]), int(br.degree[0])


@PROPS
@given(pitch=st.integers(1, 256), col=st.integers(0, 31), row0=st.integers(0, 64))
def test_column_walk_degree_is_gcd_and_padding_by_one_word_removes_it(pitch, col, row0):
    addrs = ((row0 + LANES) * np.uint64(pitch) + np.uint64(col)) * np.uint64(4)
    wf, degree = _wavefronts(addrs)
    assert degree == wf == math.gcd(pitch, 32)
    if pitch % 32 == 0:  # a 32-wide tile (or a multiple) padded by one word
        padded = ((row0 + LANES) * np.uint64(pitch + 1) + np.uint64(col)) * np.uint64(4)
        assert _wavefronts(padded) == (1, 1)


regs = st.integers(1, 255)
threads = st.integers(1, 1024)
smem = st.integers(0, 100 * 1024)


@PROPS
@given(r=regs, t=threads, s=smem)
def test_occupancy_never_exceeds_any_single_limit(r, t, s):
    o = occupancy(H100, r, t, s)
    if o.refused:
        return
    limits = [o.limit_registers, o.limit_shared_mem, o.limit_warps, o.limit_blocks]
    assert o.blocks_per_sm == min(limits) and all(o.blocks_per_sm <= v for v in limits)
    assert o.warps_per_sm <= H100.max_warps_per_sm
    assert 0 < o.occupancy_pct <= 100


@PROPS
@given(r=regs, dr=st.integers(0, 64), t=threads, s=smem, ds=st.integers(0, 32 * 1024))
def test_occupancy_is_monotone_in_registers_and_shared_bytes(r, dr, t, s, ds):
    base = occupancy(H100, r, t, s)
    more_regs = occupancy(H100, min(r + dr, 255), t, s)
    more_smem = occupancy(H100, r, t, s + ds)
    assert more_regs.blocks_per_sm <= base.blocks_per_sm
    assert more_smem.blocks_per_sm <= base.blocks_per_sm
