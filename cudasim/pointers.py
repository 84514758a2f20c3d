"""Which kernel parameters an access's address is made from, read from the PTX.

An access past the end of a buffer is named by the buffer it was made from (cudasim.api), and a buffer
the user gave no size grows (analysis.launch): which buffer that was is not always where the lanes
landed, since a strided read from one buffer may land past the next one too. The address register's definitions say it: walked back through arithmetic and
moves (not through values loaded from memory, whose address is another matter) to the `ld.param`
of the entry's parameters they start from.
"""
from __future__ import annotations

from .ptx import Function, Instruction, Operand

_NO_DEST = {"st", "red", "bar", "bra", "ret", "exit", "call", "membar", "fence", "prefetch", "barrier", "trap",
            "cp", "mbarrier"}


def regs(o: Operand) -> list[str]:
    """The registers an operand reads (a vector's, a memory operand's base)."""
    if o.kind == "reg":
        return [o.name]
    if o.kind in ("vec", "not"):
        return [r for x in o.items for r in regs(x)]
    if o.kind == "mem" and o.base is not None:
        return regs(o.base)
    return []


def dests(ins: Instruction) -> list[str]:
    """The registers an instruction writes: its first operand (a vector of them for vector loads), and `d|p`'s
    predicate."""
    if ins.base in _NO_DEST or not ins.operands or ins.operands[0].kind == "mem":
        return []
    return regs(ins.operands[0]) + ([ins.dest_pred] if ins.dest_pred else [])


def address_params(fn: Function, where: str) -> set[int]:
    """Indices of the entry's parameters whose values flow into the address of the instruction at `where`
    ("file:line `text`", as a MemoryFault's message begins); empty where none can be told."""
    index = {p.name: i for i, p in enumerate(fn.params)}
    defs: dict[str, list[Instruction]] = {}
    for ins in fn.body:
        for d in dests(ins):
            defs.setdefault(d, []).append(ins)
    todo = [r for ins in fn.body if f"{ins.where()} `{ins.text}`" == where
            for o in ins.operands if o.kind == "mem" for r in regs(o)]
    seen: set[str] = set()
    out: set[int] = set()
    while todo:
        reg = todo.pop()
        if reg in seen:
            continue
        seen.add(reg)
        for ins in defs.get(reg, []):
            if ins.base in ("ld", "ldu", "atom", "shfl", "tex", "suld"):  # a value from memory (or another lane)
                if ins.base == "ld" and "param" in ins.mods:
                    out |= {index[o.base.name] for o in ins.operands[1:]
                            if o.kind == "mem" and o.base is not None and o.base.name in index}
                continue
            todo += [r for o in ins.operands[1:] for r in regs(o)]
    return out
