"""Which PTX branches ptxas turns into predicated code.

ptxas if-converts a short branch: the instructions it jumped around are issued by every lane, with a
predicate, and the branch is gone. Lanes that part at such a branch in cudasim's PTX go on together in
the GPU's SASS, so the SASS walk (analysis.sassflow) gives them no other side to walk.
"""
from __future__ import annotations

FOLDED_SIDE = 4  # ptxas makes a branch around at most this many plain instructions predicated code


def folded_branches(body: list, labels: dict) -> frozenset:
    """The PTX conditional branches ptxas turns into predicated code: forward, around at most FOLDED_SIDE
    instructions (or an if-else of two such sides) with no memory access, barrier, call or other branch.
    Lanes that part there go on together in the SASS."""
    def plain(lo: int, hi: int) -> bool:
        return 0 <= hi - lo <= FOLDED_SIDE and all(
            body[p].label is None and body[p].base not in ("bra", "ld", "st", "atom", "red", "bar", "barrier",
                                                           "call", "ret", "exit", "brx") for p in range(lo, hi))

    out = set()
    for pc, x in enumerate(body):
        if x.base != "bra" or x.guard is None:
            continue
        t = labels.get(x.operands[0].name, -1)
        if t <= pc:
            continue
        if plain(pc + 1, t):  # if (...) { side }
            out.add(pc)
            continue
        j = t - 1  # if (...) { side } else { side }: the first side ends in a branch past the second
        y = body[j]
        if y.base == "bra" and y.guard is None and plain(pc + 1, j) and plain(t, labels.get(y.operands[0].name, -1)):
            out.add(pc)
    return frozenset(out)
