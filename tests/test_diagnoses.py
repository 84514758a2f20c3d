"""Each diagnosis pinned to the cases it is for, and never at odds with its own numbers; rows whose counts
rest on made-up buffer contents marked as such (issue 16 item 1)."""
import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis import dataflow
from analysis.models import banks, coalescing
from cudasim.trace import MemEvent
from needs import need_nvrtc

BASE = np.uint64(1 << 40)
LANES = np.arange(32, dtype=np.uint64)
FULL = np.uint32(0xFFFFFFFF)


def warp(addrs, size=4, space="global", mask=FULL):
    a = np.zeros((1, 32), np.uint64)
    a[0, :len(addrs)] = np.asarray(addrs, np.uint64)
    return MemEvent(0, 1, "t.cu", "ld", space, "ld", size, np.array([0], np.int64), np.array([0], np.int32),
                    np.array([mask], np.uint32), a)


def coalesce(addrs, size=4, mask=FULL):
    (g,) = coalescing.analyze_events([warp(addrs, size, mask=mask)])
    return g


def rows16(pitch_elems, col=LANES % 16, row=LANES // 16):
    """A warp over two rows of a 16-wide block: lane -> row * pitch + column, in floats."""
    return BASE + (row * np.uint64(pitch_elems) + col) * np.uint64(4)


# ---- coalescing: one case per diagnosis ------------------------------------------------------

CASES = [  # (what, addresses, mask, the diagnosis begins with, the fix contains ("" = no fix))
    ("consecutive floats", BASE + LANES * 4, FULL, "unit stride, coalesced", ""),
    ("one float off a sector", BASE + 4 + LANES * 4, FULL, "unit stride but misaligned", "align the base"),
    ("one address", np.full(32, BASE, np.uint64), FULL, "broadcast", ""),
    ("lane 0 alone", BASE + LANES * 4, np.uint32(1), "one active lane per request", "share this work"),
    ("a column of a 32-float matrix", BASE + LANES * 128, FULL, "stride 32 elements (128 B between lanes)",
     "bind threadIdx.x"),
    ("every other float (array of structs)", BASE + LANES * 8, FULL, "stride 2 elements (8 B between lanes)",
     "structure of arrays"),
    ("rows of 16 misaligned to their sectors", rows16(72) + np.uint64(4), FULL, "unit stride in short runs",
     "blockDim.x a multiple of 32"),
    ("rows of 16 filling whole sectors", rows16(64), FULL, "unit stride in short runs, but every byte", ""),
    ("a column read by a 16-wide block (lanes 16-31 repeat lanes 0-15)", rows16(0, col=(LANES % 16) * 64),
     FULL, "stride 64 elements (256 B between lanes)", "bind threadIdx.x"),
    ("a halo column: lane 0 of each row", rows16(64), np.uint32(0x00010001), "2.0 of 32 lanes active",
     "neighbouring lanes"),
    ("a permutation inside the warp's sectors", BASE + (LANES ^ np.uint64(5)) * 4, FULL,
     "lanes in no common order, but every byte", ""),
    ("a hashed gather", BASE + ((LANES * np.uint64(2654435761)) % np.uint64(1 << 20)) * 4, FULL,
     "scattered: no common stride", "sort or bucket the indices"),
]


@pytest.mark.parametrize("what,addrs,mask,starts,fix", CASES, ids=[c[0] for c in CASES])
def test_each_coalescing_diagnosis_names_its_case(what, addrs, mask, starts, fix):
    g = coalesce(addrs, mask=mask)
    assert g.diagnosis.startswith(starts), g.diagnosis
    assert (fix in g.fix) if fix else g.fix == "", g.fix
    assert f"{g.sectors_per_request:.1f} sectors/request vs ideal {g.ideal_per_request:.1f}" in g.diagnosis


def test_lanes_per_sector_is_what_the_sectors_served():
    """'N active lanes per sector' is counted, never derived from the stride: a column read by two rows of
    a 16-wide block puts 2 lanes on each sector although the stride alone says 1."""
    g = coalesce(rows16(0, col=(LANES % 16) * 64))
    assert g.sectors == 16 and "2.0 active lanes per sector" in g.diagnosis


PROPS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(elems=st.lists(st.integers(0, 2048), min_size=32, max_size=32), mask=st.integers(1, 2 ** 32 - 1),
       size=st.sampled_from([1, 2, 4, 8, 16]))
def test_no_fix_where_no_sector_is_wasted_and_coalesced_means_ideal(elems, mask, size):
    g = coalesce(BASE + np.array(elems, np.uint64) * np.uint64(size), size=size, mask=np.uint32(mask))
    if g.sectors == g.ideal_sectors and not g.diagnosis.startswith("one active lane"):
        assert g.fix == "", (g.diagnosis, g.fix)
    if g.diagnosis.startswith("unit stride, coalesced"):
        assert g.sectors == g.ideal_sectors
    if "active lanes per sector" in g.diagnosis:
        assert f"{g.lanes / g.sectors:.1f} active lanes per sector" in g.diagnosis


# ---- banks: one case per diagnosis -----------------------------------------------------------

BANK_CASES = [
    ("consecutive words", LANES * 4, 4, "conflict-free;", ""),
    ("one word", np.zeros(32, np.uint64), 4, "conflict-free: broadcast", ""),
    ("four words, eight lanes each", (LANES % 4) * 4, 4, "conflict-free with multicast", ""),
    ("a column of a 32-word tile", LANES * 128, 4, "32-way bank conflict", "pad each row by 1 word"),
    ("a column of a 34-word tile", LANES * 136, 4, "2-way bank conflict", "pad each row by 1 word"),
    ("every second word", LANES * 8, 4, "2-way bank conflict", "sequential addressing"),
    ("8-byte words down a column", LANES * 8 * 32, 8, "16-way bank conflict", "spread the lanes"),
]


@pytest.mark.parametrize("what,addrs,size,starts,fix", BANK_CASES, ids=[c[0] for c in BANK_CASES])
def test_each_bank_diagnosis_names_its_case(what, addrs, size, starts, fix):
    (s,) = banks.analyze_events([warp(addrs, size, space="shared")])
    assert s.diagnosis.startswith(starts), s.diagnosis
    assert (fix in s.fix) if fix else s.fix == "", s.fix
    assert (s.conflicts > 0) == bool(s.fix)


# ---- made-up contents: which rows rest on them ------------------------------------------------

GATHER = """__global__ void gather(const float* src, const int* idx, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int j = idx[i];
        if (j >= 0)
            out[i] = src[j] * 2.0f;
    }
}
__global__ void hist(const unsigned char* in, unsigned int* bins, int n) {
    __shared__ unsigned int h[256];
    h[threadIdx.x] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[in[i]], 1u);
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], h[threadIdx.x]);
}
__global__ void csr(const int* rows, const int* cols, const float* x, float* y, int n) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    float s = 0.0f;
    for (int k = rows[r]; k < rows[r + 1]; k++)
        s += x[cols[k]];
    y[r] = s;
}
__global__ void scale(const float* a, float* b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) b[i] = 2.0f * a[i];
}
__global__ void staged(const float* in, float* out) {
    __shared__ float vals[64];
    __shared__ int order[64];
    vals[threadIdx.x] = in[blockIdx.x * 64 + threadIdx.x];
    order[threadIdx.x] = (threadIdx.x * 7) & 63;
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = vals[order[threadIdx.x]];
}
__global__ void staged_idx(const float* src, const int* idx, float* out) {
    __shared__ int order[64];
    order[threadIdx.x] = idx[blockIdx.x * 64 + threadIdx.x] & 63;
    __syncthreads();
    out[blockIdx.x * 64 + threadIdx.x] = src[order[63 - threadIdx.x]];
}
"""


def _depends(kernel: str, made: list[str]) -> list[tuple[int, str, frozenset, frozenset]]:
    """(line, opcode base, buffers its addresses come from, buffers that decide whether it runs), for each
    instruction that depends on any of `made`."""
    need_nvrtc()
    from cudasim import SourceModule
    fn = SourceModule(GATHER, filename="g.cu").get_function(kernel).program.fn
    names = {"gather": "src idx out", "hist": "in bins", "csr": "rows cols x y", "scale": "a b", "staged": "in out",
             "staged_idx": "src idx out"}[kernel].split()
    deps = dataflow.dependence(fn, {i: n for i, n in enumerate(names) if n in made})
    return sorted((fn.body[pc].line, fn.body[pc].base, d.address, d.control) for pc, d in deps.items())


def test_a_gathers_address_and_its_guard_depend_on_the_index_buffer_alone():
    deps = _depends("gather", ["src", "idx", "out"])
    assert deps == [(5, "bra", frozenset(), {"idx"}), (6, "ld", {"idx"}, {"idx"}), (6, "st", frozenset(), {"idx"})]


def test_a_histograms_shared_atomics_depend_on_the_input_and_not_on_the_bins():
    assert _depends("hist", ["in", "bins"]) == [(14, "atom", {"in"}, frozenset())]


def test_a_csr_loop_runs_as_the_row_pointers_say_and_gathers_as_the_columns_say():
    deps = _depends("csr", ["rows", "cols", "x", "y"])
    loads = {a for line, base, a, c in deps if line == 23 and base == "ld" and "rows" in c}
    assert loads == {frozenset({"rows"}), frozenset({"rows", "cols"})}  # cols[k] (k from rows), x[cols[k]]
    assert "x" not in {n for *_, a, c in deps for n in a | c}
    assert all("y" not in a for *_, a, _ in deps)


def test_a_shared_array_carries_only_what_was_stored_in_it():
    """Data staged in one __shared__ array does not make the indices kept in another made up (both had been
    one bucket: the sweep's taint_sep was told its addresses depended on `in`); an index staged from a
    made-up buffer still does."""
    assert _depends("staged", ["in", "out"]) == []
    deps = _depends("staged_idx", ["src", "idx", "out"])
    assert [(base, a) for _, base, a, _ in deps if base == "ld" and a] == [("ld", {"idx"})]


def test_an_elementwise_kernel_depends_on_no_contents():
    assert _depends("scale", ["a", "b"]) == []


def _cli(*args):
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, timeout=300)


def test_the_output_names_the_buffer_marks_the_rows_and_data_removes_the_marks(tmp_path):
    """A gather with its index buffer left to zeros was reported "broadcast, 100%" with nothing said; now the
    notes open with the buffer and the lines, the rows carry '?', and --data with the real indices clears them."""
    need_nvrtc()
    cu = tmp_path / "g.cu"
    cu.write_text(GATHER)
    args = [f"{cu}::gather", "--grid", "8", "--block", "256", "--arg", "n=2048", "--draw", "none"]
    r = _cli("analysis.coalescing", *args)
    assert r.returncode == 0, r.stderr
    first = r.stdout.splitlines()[1]
    assert "made-up data: idx holds zeros (no --data)" in first and "g.cu:6" in first and "--data idx=" in first
    assert "no address or branch depends on the contents of out, src" in r.stdout
    marked = [ln for ln in r.stdout.splitlines() if ln.strip().startswith("? g.cu:")]
    assert [m.split()[1:3] for m in marked] == [["g.cu:6", "ld"], ["g.cu:6", "st"]]
    assert "? made-up data: idx's contents (zeros) may give its addresses and decide whether it runs" in r.stdout
    rows = json.loads(_cli("analysis.coalescing", *args, "--json").stdout)["coalescing"]["instructions"]
    assert sorted(bool(g.get("data")) for g in rows) == [False, True, True]
    idx = tmp_path / "idx.npy"
    np.save(idx, np.random.default_rng(1).permutation(2048).astype(np.int32))
    real = _cli("analysis.coalescing", *args, "--data", f"idx={idx}")
    assert real.returncode == 0, real.stderr
    assert "? " not in real.stdout and "made-up contents" not in real.stdout
    assert "scattered" in real.stdout
