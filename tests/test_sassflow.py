"""The SASS walk: the instructions a warp issues in ptxas's code, from its path through the PTX.

The kernels in tests/data/walks.cu have known answers: the FFMAs and barriers a warp issues
follow from the arguments, whatever ptxas did to the loops (unrolled by 4 with a remainder,
split sides of a divergent branch, a barrier in a loop). Counts against Nsight Compute on
real kernels are in test_timing.py (test_sass_instruction_counts_match_ncu)."""
from collections import Counter

import pytest

from needs import need_nvrtc

ARRAYS = {"a": "float32[1024]", "out": "float32[64]"}


def _walk(kernel: str, indices: bool | str = False, **args) -> list[Counter]:
    """Per warp of block 0 (64 threads), the SASS opcodes it issues, counted (or its instructions' indices;
    "op": (index, opcode))."""
    need_nvrtc()
    from analysis import pipeline, sass, sassflow
    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm is not installed (pip: nvidia-cuda-nvdisasm)")
    spec = {**ARRAYS, **{k: str(v) for k, v in args.items()}}
    launch = pipeline.resolve_file("tests/data/walks.cu::" + kernel, (1, 1, 1), (64, 1, 1), 0, {}, spec)
    s = pipeline.simulate_sampled(launch)
    p = s.program
    walker = sassflow.Walker.build(sassflow.sass_graph(s.listing), s.body, p.cfg, p.fn.labels, p.run_end)
    path = s.result.stats["followed"][0]
    out = []
    for warp in range(2):
        pcs = [pc for pc, bits in path if bits >> warp & 1]
        st = walker.stream(pcs, parted=walker.parted(s.result.stats["followed_parted"].get(0), warp))
        ins = s.listing.instructions
        out.append(Counter((i, ins[i].op) for i in st.tolist()) if indices == "op" else
                   Counter(st.tolist()) if indices else Counter(ins[i].op for i in st))
    return out


@pytest.mark.parametrize("n", [0, 1, 3, 4, 5, 37, 100])
def test_an_unrolled_loop_issues_each_trip_once(n):
    assert [c["FFMA"] for c in _walk("dot_n", n=n, b=1.5)] == [n, n]


@pytest.mark.parametrize("k,m,want", [(16, 5, [5 + 11, 11]), (0, 7, [15, 15]), (64, 3, [3, 3]), (40, 9, [9, 9 + 19])])
def test_a_divergent_warp_issues_both_sides(k, m, want):
    assert [c["FFMA"] for c in _walk("split", k=k, m=m)] == want


@pytest.mark.parametrize("t", [0, 1, 5])
def test_a_barrier_in_a_loop_is_passed_every_trip(t):
    assert [(c["FFMA"], c["BAR"]) for c in _walk("staged", t=t)] == [(t, t + 1)] * 2


@pytest.mark.parametrize("m", [1, 3, 7, 32, 40])
def test_a_loop_left_by_returns_runs_to_its_longest_lane(m):
    """ptxas gathers the lanes that return from inside the loop after a store at a convergence barrier
    (BSYNC) and runs the store once, when the last lane has left; cudasim's PTX runs it as each group
    leaves. The walk issues the loop's FMA for the longest lane only, and the store once."""
    for c in _walk("search", m=m):
        assert c["FFMA"] == min(m, 32)
        assert c["STG"] == 1


def test_control_bits_tie_a_load_to_its_use():
    """ptxas's scoreboard: each global load sets a write barrier that a later instruction waits on."""
    need_nvrtc()
    from analysis import pipeline, sass
    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm is not installed (pip: nvidia-cuda-nvdisasm)")
    launch = pipeline.resolve_file("tests/data/walks.cu::dot_n", (1, 1, 1), (64, 1, 1), 0, {},
                                   {**ARRAYS, "n": "8", "b": "1.0"})
    ins = pipeline.simulate_sampled(launch).listing.instructions
    loads = [i for i, x in enumerate(ins) if x.op == "LDG"]
    assert loads
    for i in loads:
        wb = ins[i].write_barrier
        assert 0 <= wb < 6 and 0 <= ins[i].stall <= 15
        assert any(x.wait_mask >> wb & 1 for x in ins[i + 1:]), ins[i]


def test_a_64_bit_division_of_small_operands_takes_the_32_bit_path():
    """ptxas divides 64-bit integers inline when both high words are zero and calls a routine otherwise;
    of the two ways alike to the walk, the one without the call."""
    for c in _walk("div64", features=8):
        assert c["MUFU"] == 1 and c["CALL"] == 0


@pytest.mark.parametrize("m", [1, 6, 40])
def test_a_loop_whose_trips_do_less_than_the_ptx_runs_once_per_iteration(m):
    """powf and logf in a loop: ptxas hoists part of their work out of it and shares part between the
    two calls, so each trip has fewer FP instructions than the PTX's iteration; the walk still takes one
    trip per iteration (it took 2 per iteration, the sigmoid focal loss's 1.86x)."""
    for c in _walk("powlog", indices=True, m=m, g=2.0):
        assert max(c.values()) == m



def test_an_atomic_after_the_other_lanes_exit_is_issued():
    """Thread 0's atomicAdd after a barrier: ptxas ends the other threads at a predicated EXIT before it. The
    atomic is an anchor, so warp 0's walk goes on past that EXIT to the RED (it ended there, and cuDF's
    valid_if had no atomics to time); warp 1 issues none."""
    w0, w1 = _walk("tail_count", k=4)
    assert w0["REDG"] == 1 and w1["REDG"] == 0
    assert w0["SHFL"] == w1["SHFL"] == 5


def test_if_converted_shared_code_is_issued_by_every_warp():
    """`if (t < k) s[t] += s[t + k]` is predicated code in the SASS: both warps issue the two loads and the store
    of all 6 trips, the second with every lane off from k = 16 on; the load of s[0] under `if (t == 0)` is
    branched around, so warp 0 alone issues it."""
    c = _walk("tree")
    assert [(w["LDS"], w["STS"]) for w in c] == [(2 * 6 + 1, 6 + 1), (2 * 6, 6 + 1)]


@pytest.mark.parametrize("name", ["reduce_tree", "softmax_rows", "scan_blelloch"])
def test_shared_instructions_are_counted_as_issued_against_ncu(name):
    """The corpus's if-converted reductions and scans: shared instructions issued (lanes on or off) equal the
    H100's count in the committed measurement (corpus/results/corpus_h100.json); the trace's requests, where
    some lane was on, are a quarter to a third of it."""
    need_nvrtc()
    import json
    from analysis import pipeline, sass
    from corpus import manifest
    from corpus.compare import resolve
    from corpus.sets import measured_path
    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm is not installed (pip: nvidia-cuda-nvdisasm)")
    measured = json.loads(measured_path("corpus").read_text())["kernels"][name]["ncu"]["metrics"]
    got = pipeline.trace_results(resolve(manifest.get(name)), use_cache=False)["banks"]
    for m in ("smsp__inst_executed_op_shared_ld.sum", "smsp__inst_executed_op_shared_st.sum"):
        assert got["totals"][m] == measured[m], m
    assert got["idle"]["ld"] > 0 and got["idle"]["st"] > 0


def test_a_walk_that_disagrees_with_the_trace_leaves_the_trace_counts(monkeypatch):
    """The walk's counts stand only where every unpredicated load and store line issues as often as the trace says
    and no predicated one less often: a walk that lost count on one line leaves the trace's counts, saying where."""
    need_nvrtc()
    from analysis import issues, pipeline, sass
    if sass.find_nvdisasm() is None:
        pytest.skip("nvdisasm is not installed (pip: nvidia-cuda-nvdisasm)")
    launch = pipeline.resolve_file("tests/data/walks.cu::tree", (4, 1, 1), (64, 1, 1), 0, {}, ARRAYS)
    good = pipeline.simulate_sampled(launch)
    assert good.issued == {"ld": 4 * (13 + 12), "st": 4 * 2 * 7}
    real = issues.walked

    def off(walker, *a):
        counts = real(walker, *a)
        for i, ins in enumerate(walker.sg.listing.instructions):
            if ins.op == "LDG":
                counts[i] *= 2  # the walk goes round a loop once too often
        return counts
    monkeypatch.setattr(issues, "walked", off)
    bad = pipeline.simulate_sampled(launch)
    assert bad.issued is None
    (note,) = [n for n in bad.notes if n.startswith("shared instructions counted from the trace")]
    assert "the SASS walk's global loads on its unpredicated lines move 64 bytes a lane in all, the trace's 32" in note


@pytest.mark.parametrize("kernel", ["sincos_fast", "sincos_split"])
def test_branches_ptxas_folded_leave_no_side_to_walk_twice(kernel):
    """cosf/sinf's PTX branches on the quadrant (lanes part there) are predicated code in the SASS, so the PTX
    path counts more floating-point work than the SASS does; a loop-free kernel still issues each SASS
    instruction at most once (rope_neox had walked its tail three times: 580 instructions a block for the
    523 Nsight Compute counted)."""
    for c in _walk(kernel, indices=True, g=0.5):
        assert c and max(c.values()) == 1, [i for i, n in c.items() if n > 1]


@pytest.mark.parametrize("n", [1, 3, 4, 8, 11, 64])
def test_an_unrolled_loop_with_work_between_its_trips_issues_each_trip_once(n):
    """NVVM's copies of the body each load, then divide under an if: a trip's loads are not one run, and the
    walk must still take the unrolled loop while four trips are left (not the remainder n times)."""
    for c in _walk("gated_n", indices="op", n=n, b=1.0):
        loads = sorted(v for (_, op), v in c.items() if op == "LDG")
        assert sum(loads) == sum(v for (_, op), v in c.items() if op == "MUFU") == n
        assert loads == sorted([n // 4] * 4 * (n >= 4) + [n % 4] * (n % 4 > 0))  # each unrolled copy n // 4 times
