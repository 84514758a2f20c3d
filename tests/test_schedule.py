"""The straight-line scheduler: any order it picks must keep each thread's program order."""
from hypothesis import given, settings
from hypothesis import strategies as st

from cudasim.schedule import Step, dependencies, regroup

REGS = ["%r1", "%r2", "%r3", "%r4", "%r5", "mem:shared"]


@st.composite
def programs(draw):
    n = draw(st.integers(1, 40))
    steps = []
    for _ in range(n):
        fence = draw(st.booleans()) and draw(st.integers(0, 5)) == 0
        reads = frozenset(draw(st.lists(st.sampled_from(REGS), max_size=3)))
        writes = frozenset(draw(st.lists(st.sampled_from(REGS), max_size=2)))
        sig = draw(st.sampled_from([None, "fma", "ld", "add"]))
        steps.append(Step(None if fence else sig, frozenset() if fence else reads,
                          frozenset() if fence else writes, fence))
    return steps


def _conflict(a: Step, b: Step) -> bool:
    return a.fence or b.fence or bool(a.writes & (b.reads | b.writes) or a.reads & b.writes)


@settings(max_examples=300, deadline=None)
@given(programs())
def test_every_instruction_runs_once_after_everything_it_depends_on(steps):
    groups = regroup(steps)
    order = [i for g in groups for i in g]
    assert sorted(order) == list(range(len(steps)))
    when = {i: k for k, g in enumerate(groups) for i in g}
    for j in range(len(steps)):
        for i in range(j):
            if _conflict(steps[i], steps[j]):
                assert when[i] < when[j], (i, j, groups)


@settings(max_examples=300, deadline=None)
@given(programs())
def test_a_group_shares_one_signature_and_its_members_are_independent(steps):
    for g in regroup(steps):
        if len(g) > 1:
            assert steps[g[0]].sig is not None and {steps[i].sig for i in g} == {steps[g[0]].sig}
            assert not any(_conflict(steps[a], steps[b]) for a in g for b in g if a < b)


def test_an_unrolled_tile_loop_becomes_one_load_group_and_one_fma_group():
    """The SGEMM inner loop: 4 shared loads feed 4 independent accumulations."""
    loads = [Step("ld", frozenset({"%rd1", "mem:shared"}), frozenset({f"%f{i}"})) for i in range(4)]
    fmas = [Step("fma", frozenset({f"%f{i}", f"%acc{i}"}), frozenset({f"%acc{i}"})) for i in range(4)]
    interleaved = [s for pair in zip(loads, fmas) for s in pair]
    assert regroup(interleaved) == [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert dependencies(interleaved)[1] == {0}
