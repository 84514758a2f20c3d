"""Out-of-bounds and misaligned accesses, lane by lane, in every state space.

The simulator proper stops at the first bad access (MemoryFault); the checker instead names
it, lets the good lanes go on, and sends the bad lanes to a sink (a few bytes no one else
uses: loads read zeros, stores vanish) so that one launch shows every bad access. Each lane
of a global access is checked against the allocation it falls in (as compute-sanitizer's
memcheck does), so lanes of one instruction may use different allocations.
"""
from __future__ import annotations

import bisect

import numpy as np

from ..memory import HEAP_BASE, GlobalMemory
from .findings import SPACES, Finding, Findings, Side, site

SINK = 64  # bytes of each sink: the widest single access is 16 bytes


def alignment(size: int) -> int:
    """The alignment an access of `size` bytes needs (vectors up to 16 bytes: their full width)."""
    return min(size, 16) if size & (size - 1) == 0 else 1


def global_bad(gmem: GlobalMemory, a: np.ndarray, size: int, off_limits: set[int] = frozenset()
               ) -> tuple[np.ndarray, np.ndarray]:
    """(out of every allocation, misaligned) per lane for `size`-byte accesses at addresses `a`;
    allocations whose base is in `off_limits` (guard zones, the sink) count as outside."""
    if not gmem.allocs:
        return np.ones(len(a), bool), np.zeros(len(a), bool)
    bases = np.fromiter((x.base for x in gmem.allocs), np.uint64, len(gmem.allocs))
    ends = np.fromiter((x.end for x in gmem.allocs), np.uint64, len(gmem.allocs))
    i = np.searchsorted(bases, a, side="right").astype(np.int64) - 1
    ip = np.maximum(i, 0)
    inside = (i >= 0) & (a <= ends[ip] - np.uint64(size))
    if off_limits:
        inside &= ~np.isin(bases[ip], np.fromiter(off_limits, np.uint64, len(off_limits)))
    mis = inside & ((a & np.uint64(alignment(size) - 1)) != 0)
    return ~inside, mis


def nearest(gmem: GlobalMemory, addr: int, size: int, off_limits: set[int] = frozenset()
            ) -> tuple[dict | None, int | None, str]:
    """The allocation nearest a bad address (guard zones and the sink passed over): ({"name", "base",
    "size"}, offset from its base, words)."""
    allocs = [x for x in gmem.allocs if x.base not in off_limits]
    if addr < HEAP_BASE:
        return None, None, "the address is in no allocation, nor near one (a null or uninitialized pointer?)"
    if not allocs:
        return None, None, "no global memory is allocated"
    bases = [x.base for x in allocs]
    i = bisect.bisect_right(bases, addr) - 1
    cands = []
    if i >= 0:
        a = allocs[i]
        over = addr + size - a.end
        cands.append((max(addr - a.end + 1, 0), a, f"{over} bytes past the end of {a.name} (at byte {addr - a.base} "
                                                    f"of its {a.size} bytes)"))
    if i + 1 < len(allocs):
        a = allocs[i + 1]
        cands.append((a.base - addr, a, f"{a.base - addr} bytes before the start of {a.name}"))
    _, a, words = min(cands, key=lambda c: c[0])
    return {"name": a.name, "base": a.base, "size": a.size}, addr - a.base, words


def report_bounds(findings: Findings, kind: str, space: str, pc: int, ins, size: int, op: str, gids: np.ndarray,
                  first: int, detail: str, allocation: dict | None = None, offset: int | None = None,
                  fix: str | None = None) -> None:
    """One out-of-bounds or misaligned finding for `gids` (the first bad address or offset: `first`); `fix`
    where the usual one (a bounds guard) is not it."""
    where = SPACES.get(space, "generic")
    what = {"read": "read", "write": "write", "atomic": "atomic"}.get(op, op)

    def make() -> Finding:
        if kind == "misaligned":
            msg = f"misaligned {where} {what} of {size} bytes at {_addr(space, first)}: {detail}"
            hint = f"keep {size}-byte accesses at addresses that are multiples of {alignment(size)}"
        else:
            msg = f"invalid {where} {what} of {size} bytes at {_addr(space, first)}: {detail}"
            hint = fix or "check the index against the size before the access (a bounds guard), or size the buffer up"
        return Finding(kind, msg, Side(pc, str(ins.file), ins.line, ins.text, what), space=space, size=size,
                       allocation=allocation, offset=offset, address=int(first) if space in ("global", "const", "generic")
                       else signed(int(first)), hint=hint)
    name = allocation["name"] if allocation else None
    findings.add((kind, space, site(ins, pc), op, name), make, gids)


def signed(a: int) -> int:
    """A 64-bit offset read as signed: a negative index shows as one."""
    return a - (1 << 64) if a >= 1 << 63 else a


def _addr(space: str, a: int) -> str:
    return f"address 0x{a:x}" if space in ("global", "const", "generic") else f"offset {signed(a)}"
