"""What the checker found: one Finding per defect and place, collected with bounded memory.

A finding is keyed by what it is and where (kind, pc, and for a race the other side's pc),
so a bug that every thread of a large grid hits is one finding with a count, not a million.
Each keeps the first few threads (lowest global index: deterministic) and how many there
were in all; past a limit per kind, further findings of that kind are counted, not kept.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

KINDS = ("race", "out-of-bounds", "misaligned", "divergent-barrier", "uninitialized", "warp-sync", "assert", "trap",
         "malloc-free")
# the memory a finding is in, as compute-sanitizer names it; anything else (a generic address) is "generic"
SPACES = {"global": "__global__", "const": "__constant__", "shared": "__shared__", "local": "__local__"}
KEEP_THREADS = 4  # (block, thread) pairs kept per side of a finding
COUNT_THREADS = 1 << 16  # distinct threads counted exactly up to this many, then "at least"

Dim3 = tuple[int, int, int]


def site(ins, pc: int) -> tuple:
    """Where a finding is, for its key: the source line (an unrolled loop's copies are one finding),
    or the pc where the PTX has no line information."""
    return (str(ins.file), ins.line) if ins.line else ("pc", pc)


@dataclass
class Side:
    """One side of a finding: an instruction and the threads that executed it."""

    pc: int
    file: str
    line: int
    instruction: str
    access: str  # read | write | atomic | barrier | warp-sync
    threads: list[tuple[Dim3, Dim3]] = field(default_factory=list)  # (block, thread), first few
    thread_count: int = 0  # distinct threads, exact up to COUNT_THREADS
    at_least: bool = False  # thread_count stopped counting
    _ids: set = field(default_factory=set, repr=False)
    _first: list = field(default_factory=list, repr=False)  # lowest global thread ids seen

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "pc": self.pc, "instruction": self.instruction,
                "access": self.access, "threads": [{"block": list(b), "thread": list(t)} for b, t in self.threads],
                "thread_count": self.thread_count, "thread_count_is_lower_bound": self.at_least}


@dataclass
class Finding:
    """A defect found in one launch: its kind, where (file, line, PTX instruction), which threads,
    and what it touched; for a race the other side too (`other`)."""

    kind: str  # one of KINDS
    message: str  # one sentence: what happened and why it is a defect
    this: Side
    count: int = 0  # events: accesses (per lane) or executions that hit it
    space: str | None = None  # shared | global | local
    size: int | None = None  # bytes per lane of the access
    other: Side | None = None  # race: the earlier access it races with
    relation: str | None = None  # race: "lanes of one warp" | "warps of one block" | "different blocks"
    allocation: dict | None = None  # out-of-bounds / uninitialized global: {"name", "base", "size"}
    offset: int | None = None  # out-of-bounds: byte offset of the first bad access from the allocation (or space) start
    address: int | None = None  # the first bad address (global) or offset (shared, local)
    hint: str = ""  # how to fix it
    pairs: list[tuple[tuple[Dim3, Dim3], tuple[Dim3, Dim3]]] = field(default_factory=list)  # race: (this, other)
    _pair_ids: list = field(default_factory=list, repr=False)

    @property
    def file(self) -> str:
        return self.this.file

    @property
    def line(self) -> int:
        return self.this.line

    @property
    def pc(self) -> int:
        return self.this.pc

    @property
    def instruction(self) -> str:
        return self.this.instruction

    def __str__(self) -> str:
        where = f"{self.file.rsplit('/', 1)[-1]}:{self.line}" if self.line else f"pc {self.pc}"
        n = self.this.thread_count
        return f"{self.kind} at {where}: {self.message} ({n:,}{'+' if self.this.at_least else ''} threads)"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"kind": self.kind, "file": self.file, "line": self.line, "pc": self.pc,
                             "instruction": self.instruction, "message": self.message, "count": self.count,
                             **{k: v for k, v in self.this.to_dict().items() if k not in
                                ("file", "line", "pc", "instruction")}}
        for k in ("space", "size", "relation", "allocation", "offset", "address"):
            v = getattr(self, k)
            if v is not None:
                d[k] = v
        if self.other is not None:
            d["other"] = self.other.to_dict()
            d["pairs"] = [{"this": {"block": list(a[0]), "thread": list(a[1])},
                           "other": {"block": list(b[0]), "thread": list(b[1])}} for a, b in self.pairs]
        if self.hint:
            d["hint"] = self.hint
        return d


class Findings:
    """The findings of one launch, keyed; threads given as global thread ids (block * lpb + thread)."""

    def __init__(self, grid: Dim3, block: Dim3, lpb: int, limit: int = 50):
        self.grid, self.block, self.lpb, self.limit = grid, block, lpb, limit
        self.items: dict[tuple, Finding] = {}
        self.dropped: dict[str, int] = {}  # kind -> findings past the limit, counted only
        self._per_kind: dict[str, int] = {}

    def add(self, key: tuple, make: Callable[[], Finding], ids: np.ndarray, count: int | None = None,
            other_ids: np.ndarray | None = None) -> Finding | None:
        """Count `ids` (and the other side's) against the finding `key`, made by `make()` the first time."""
        f = self.items.get(key)
        if f is None:
            kind = key[0]
            if self._per_kind.get(kind, 0) >= self.limit:
                self.dropped[kind] = self.dropped.get(kind, 0) + 1
                return None
            self._per_kind[kind] = self._per_kind.get(kind, 0) + 1
            f = self.items[key] = make()
        ids = np.asarray(ids, np.int64)
        f.count += int(len(ids) if count is None else count)
        self._threads(f.this, ids)
        if other_ids is not None and f.other is not None:
            other_ids = np.asarray(other_ids, np.int64)
            self._threads(f.other, other_ids)
            if len(f._pair_ids) < KEEP_THREADS or ids.min() < f._pair_ids[-1][0]:
                order = np.lexsort((other_ids, ids))[:KEEP_THREADS]
                merged = sorted(set(f._pair_ids) | set(zip(ids[order].tolist(), other_ids[order].tolist())))
                f._pair_ids = merged[:KEEP_THREADS]
                f.pairs = [(self.coords(a), self.coords(b)) for a, b in f._pair_ids]
        return f

    def _threads(self, side: Side, ids: np.ndarray) -> None:
        if not len(ids):
            return
        u = np.unique(ids)
        first = sorted(set(side._first) | set(u[:KEEP_THREADS].tolist()))[:KEEP_THREADS]
        if first != side._first:
            side._first = first
            side.threads = [self.coords(g) for g in first]
        if not side.at_least:
            side._ids.update(u.tolist())
            side.thread_count = len(side._ids)
            if side.thread_count >= COUNT_THREADS:
                side.at_least, side._ids = True, set()

    def coords(self, gid: int) -> tuple[Dim3, Dim3]:
        """(block index, thread index) of a global thread id."""
        blk, t = divmod(int(gid), self.lpb)
        gx, gy, _ = self.grid
        bx, by, _ = self.block
        return (blk % gx, blk // gx % gy, blk // (gx * gy)), (t % bx, t // bx % by, t // (bx * by))

    def sorted(self) -> list[Finding]:
        """Every finding kept, in a stable order: by kind (as KINDS lists them), then file, line, pc."""
        order = {k: i for i, k in enumerate(KINDS)}
        return sorted(self.items.values(), key=lambda f: (order.get(f.kind, 99), f.file, f.line, f.pc,
                                                          f.other.pc if f.other else -1, f.message))
