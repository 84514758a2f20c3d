"""Which memory accesses and branches depend on the contents of buffers whose contents were made up.

A buffer the user gave no data (`--data`) is simulated as zeros (or random values): where its
contents become an address (`src[idx[i]]`) or decide a branch (`if (idx[i] >= 0)`, a loop over
`row_ptr[i]..row_ptr[i+1]`), the counts show what those made-up contents do, not what the user's
data would. This reads the PTX and says, per instruction, which such buffers its address is made
from and which decide whether (and how often) it runs, so that the output can mark those rows.

The analysis is a forward taint over the kernel's registers, run to a fixpoint (loops):
- a pointer's provenance (which parameter or module variable it was made from) follows arithmetic
  and moves from the entry's `ld.param`; a load's value carries the contents of the buffers its
  address points into, and whatever its address already carried;
- stores carry their values' taint into memory: per buffer for global memory, per `__shared__`
  array where the address is made from it (else a bucket every shared load reads), one bucket
  for each of local and call-parameter memory (coarse, never missing a flow);
- a tainted branch decides whether every instruction it controls runs (those from the branch to
  its immediate post-dominator); a register written there carries the branch's taint where it is
  read outside that region (which path ran decides its value there: implicit flows), as does a
  guarded instruction's result.
It over-approximates: a row marked may, with real data, behave as with the made-up contents; a row
not marked cannot depend on them.
"""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from cudasim.cfg import EXIT, build_cfg
from cudasim.ptx import Function, Instruction, Operand
from cudasim.spaces import space_of
from cudasim.pointers import dests as _dests
from cudasim.pointers import regs as _regs

from .common import MADE_UP as NOTE
from .present import short

_EMPTY: frozenset[str] = frozenset()
SHARED = "__shared__ "  # the provenance a pointer made from a __shared__ array carries: this, then its PTX name


@dataclass(frozen=True)
class Dependence:
    """What one instruction's behaviour depends on, as names of buffers with made-up contents."""

    address: frozenset[str] = _EMPTY  # buffers whose contents its addresses are made from
    control: frozenset[str] = _EMPTY  # buffers whose contents decide whether, or how often, it runs

    def __bool__(self) -> bool:
        return bool(self.address or self.control)


def _syms(o: Operand) -> list[str]:
    """The symbols (module variables) an operand names, directly or as a memory operand's base."""
    if o.kind == "sym":
        return [o.name]
    if o.kind == "mem" and o.base is not None:
        return _syms(o.base)
    if o.kind == "vec":
        return [s for x in o.items for s in _syms(x)]
    return []


def _loads(ins: Instruction) -> bool:
    """Whether an instruction's result is read from memory."""
    return ins.base in ("ld", "ldu", "atom", "ldmatrix") or (ins.base == "wmma" and ins.has("load"))


def _stores(ins: Instruction) -> bool:
    """Whether an instruction writes memory."""
    return ins.base in ("st", "atom", "red", "stmatrix") or (ins.base == "wmma" and ins.has("store"))


def _regions(fn: Function) -> dict[int, list[int]]:
    """Each guarded branch's pc -> the pcs it controls: those reachable from it before its immediate
    post-dominator (to the end of the kernel where it has none)."""
    cfg = build_cfg(fn)
    out: dict[int, list[int]] = {}
    for pc, join in cfg.ipdom.items():
        stop = None if join == EXIT else cfg.block_of[join]
        start = cfg.block_of[pc]
        seen: set[int] = set()
        todo = [s for s in cfg.graph.successors(start) if isinstance(s, int) and s != stop]
        while todo:
            b = todo.pop()
            if b in seen:
                continue
            seen.add(b)
            todo += [s for s in cfg.graph.successors(b) if isinstance(s, int) and s != stop and s not in seen]
        out[pc] = [i for b in sorted(seen) for i in range(cfg.blocks[b].start, cfg.blocks[b].end)]
    return out


def _union(sets: Iterable[frozenset[str]]) -> frozenset[str]:
    return _EMPTY.union(*sets)


def dependence(fn: Function, params: dict[int, str], variables: Iterable[str] = ()) -> dict[int, Dependence]:
    """pc -> what the instruction's addresses and execution depend on, for the instructions that depend on
    any of the given buffers: `params` maps the entry's parameter index to the name the output uses,
    `variables` names module variables (PTX symbols), each one whose contents were made up."""
    body = fn.body
    entry_params = {p.name: params[i] for i, p in enumerate(fn.params) if i in params}
    all_entry = {p.name for p in fn.params}
    variables = frozenset(variables)
    arrays = {v.name: SHARED + v.name for v in fn.shared}  # a __shared__ array's bucket, as a pointer's provenance
    regions = _regions(fn)
    ptr: dict[str, frozenset[str]] = {}  # register -> buffers its value points into
    data: dict[str, frozenset[str]] = {}  # register -> buffers whose contents its value depends on
    mem: dict[str, frozenset[str]] = {}  # "shared" / "local" / "param" / a buffer's name -> taint stored there
    ctrl: dict[int, frozenset[str]] = {}  # pc -> taint of the branches that decide whether it runs
    decided: dict[int, frozenset[str]] = {}  # a tainted branch's pc -> its taint
    link = fn.linkage
    calls = {pc: link.spans[name] for pc, name in link.callees.items() if name in link.spans} if link else {}
    inside = {b: set(pcs) for b, pcs in regions.items()}
    written = {b: {r for i in pcs for r in _dests(body[i])} for b, pcs in regions.items()}
    out: dict[int, Dependence] = {}
    changed = True
    while changed:
        changed = False
        for pc, ins in enumerate(body):
            if ins.label is not None:
                continue
            c = ctrl.get(pc, _EMPTY) | (data.get(ins.guard, _EMPTY) if ins.guard else _EMPTY)
            implicit = _union(t for b, t in decided.items() if pc not in inside[b]
                              and any(r in written[b] for o in ins.operands for r in _regs(o)))
            mems = [o for o in ins.operands if o.kind == "mem"]
            addr_regs = [r for o in mems for r in _regs(o)]
            addr_data = _union(data.get(r, _EMPTY) for r in addr_regs)
            points = _union(ptr.get(r, _EMPTY) for r in addr_regs) | frozenset(
                s for o in mems for s in _syms(o) if s in variables) | frozenset(
                arrays[s] for o in mems for s in _syms(o) if s in arrays)
            sp = space_of(ins)
            srcs = [r for o in ins.operands[1:] for r in _regs(o)] if _dests(ins) else \
                [r for o in ins.operands for r in _regs(o)]
            src_data = _union(data.get(r, _EMPTY) for r in srcs) | implicit
            src_ptr = _union(ptr.get(r, _EMPTY) for r in srcs) | frozenset(
                s for o in ins.operands[1:] for s in _syms(o) if s in variables and o.kind == "sym") | frozenset(
                arrays[s] for o in ins.operands[1:] for s in _syms(o) if s in arrays and o.kind == "sym")
            new_ptr, new_data = src_ptr, src_data | (data.get(ins.guard, _EMPTY) if ins.guard else _EMPTY)
            if _loads(ins):
                if sp == "param" and any(s in all_entry for o in mems for s in _syms(o)):
                    new_ptr = frozenset(entry_params[s] for o in mems for s in _syms(o) if s in entry_params)
                    new_data = _EMPTY
                else:
                    held = _memory(mem, sp, points)
                    new_ptr = _EMPTY
                    contents = (frozenset(p for p in points if not p.startswith(SHARED))
                                if sp in ("global", "generic", "const") else _EMPTY)
                    new_data = new_data | addr_data | held | contents
            if ins.base == "cp":  # cp.async: shared memory gets the global source's contents
                stored, sp = addr_data | points | c, "shared"
            elif _stores(ins):
                value = src_data if not _loads(ins) else _union(data.get(r, _EMPTY) for o in ins.operands[1:]
                                                               if o.kind != "mem" for r in _regs(o))
                stored = value | addr_data | c
            else:
                stored = _EMPTY
            if stored:
                for key in _buckets(sp, points):
                    if not stored <= mem.get(key, _EMPTY):
                        mem[key] = mem.get(key, _EMPTY) | stored
                        changed = True
            for d in _dests(ins):
                if not new_data <= data.get(d, _EMPTY):
                    data[d] = data.get(d, _EMPTY) | new_data
                    changed = True
                if not new_ptr <= ptr.get(d, _EMPTY):
                    ptr[d] = ptr.get(d, _EMPTY) | new_ptr
                    changed = True
            if pc in regions and c and not c <= decided.get(pc, _EMPTY):  # a branch, or a guarded exit
                decided[pc] = decided.get(pc, _EMPTY) | c
                changed = True
                for i in regions[pc]:
                    ctrl[i] = ctrl.get(i, _EMPTY) | c
            if c and pc in calls and not c <= ctrl.get(calls[pc][0], _EMPTY):  # a callee runs as its call does
                changed = True
                for i in range(*calls[pc]):
                    ctrl[i] = ctrl.get(i, _EMPTY) | c
            if mems or pc in regions:
                dep = Dependence(addr_data if mems else _EMPTY, c)
                if dep:
                    out[pc] = dep
                else:
                    out.pop(pc, None)
    return out


def _memory(mem: dict[str, frozenset[str]], space: str, points: frozenset[str]) -> frozenset[str]:
    """The taint stores left where a load of `space` through pointers into `points` may read: a shared load
    through a pointer made from known arrays reads theirs and what stores through unknown pointers left;
    through an unknown one, every array's."""
    keys = _buckets(space, points)
    if "shared" in keys:
        arrays = [p for p in points if p.startswith(SHARED)]
        keys = [k for k in keys if k != "shared"] + ["shared"] + (arrays or [k for k in mem if k.startswith(SHARED)])
    return _union(mem.get(k, _EMPTY) for k in keys)


def _buckets(space: str, points: frozenset[str]) -> list[str]:
    """The memory buckets a store of `space` through pointers into `points` may write ("shared": an
    address made from no known __shared__ array)."""
    if space == "shared":
        return sorted(p for p in points if p.startswith(SHARED)) or ["shared"]
    if space in ("local", "param"):
        return [space]
    known = sorted(p for p in points if not p.startswith(SHARED)) or ["?"]  # a pointer from nowhere traced
    # (loaded from memory): one bucket for all
    if space == "generic":
        return ["shared", "local", *known]
    return known


def mark(dep: Dependence, made: dict[str, str]) -> str:
    """What a marked row's counts rest on, in words: which made-up contents give its addresses and decide
    whether it runs, and how to give the real ones."""
    if dep.address == dep.control:
        what = f"{_names(dep.address, made)} may give its addresses and decide whether it runs"
    elif dep.address and dep.control:
        what = (f"its addresses may come from {_names(dep.address, made)}; whether it runs, from "
                f"{_names(dep.control, made)}")
    elif dep.address:
        what = f"its addresses may come from {_names(dep.address, made)}"
    else:
        what = f"{_names(dep.control, made)} may decide whether it runs"
    flags = " ".join(f"--data {n}=FILE.npy" for n in sorted(dep.address | dep.control))
    return f"{NOTE}{what}; the counts are what those contents do ({flags} for yours)"


def _names(names: frozenset[str], made: dict[str, str]) -> str:
    """'idx's contents (zeros)', or several such joined."""
    return ", ".join(f"{n}'s contents ({made.get(n, 'made up')})" for n in sorted(names))


def summary(depends: dict[int, Dependence], body: list[Instruction], made: dict[str, str],
            said: str = "what is said of those lines (rows marked '?')") -> list[str]:
    """The notes the output opens with: per made-up buffer, the lines whose addresses or execution its
    contents decide (`said`: what the output says of them); or that no count depends on them."""
    if not made:
        return []
    out = []
    for name in sorted(made):
        addr = _lines(body, (pc for pc, d in depends.items() if name in d.address))
        runs = _lines(body, (pc for pc, d in depends.items() if name in d.control and body[pc].base != "bra"))
        branch = _lines(body, (pc for pc, d in depends.items() if name in d.control and body[pc].base == "bra"))
        if not (addr or runs):
            continue
        what = [f"the addresses at {addr}" if addr else "", f"whether {runs} run{'s' if ',' not in runs else ''} "
                f"(branches at {branch or 'predicated instructions'})" if runs else ""]
        out.append(f"{NOTE}{name} holds {made[name]} (no --data), and they may decide "
                   f"{' and '.join(w for w in what if w)} (read from the PTX; a flow through a __shared__ array or local "
                   f"memory is taken to reach every later load of it): {said} is what {made[name]} do, not your data "
                   f"(--data {name}=FILE.npy gives yours)")
    quiet = sorted(set(made) - {n for d in depends.values() for n in (d.address | d.control)})
    if quiet:
        out.append(f"{NOTE}no address or branch depends on the contents of {', '.join(quiet)} (no --data): the counts "
                   f"hold for any data there")
    return out


def _lines(body: list[Instruction], pcs: Iterable[int], limit: int = 4) -> str:
    """'k.cu:6, k.cu:9 and 3 more lines': the distinct source lines of some instructions."""
    lines = sorted({(short(str(body[pc].file)), body[pc].line) for pc in pcs if body[pc].line})
    text = ", ".join(f"{f}:{n}" for f, n in lines[:limit])
    return text + (f" and {len(lines) - limit} more lines" if len(lines) > limit else "")
