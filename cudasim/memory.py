"""Simulated memories: global allocations in one 64-bit address space, shared, local, const.

Global memory is one growable byte heap; an allocation is a 256-byte aligned range of it
with known bounds, so every access can be checked and a bad one reported against the
nearest allocation. Generic addresses follow a fixed layout (windows below the heap) so a
generic pointer into shared or local memory resolves to the right space:

    [SHARED_WINDOW, +WINDOW)   shared memory of the lane's own block (offset = addr - base)
    [LOCAL_WINDOW,  +WINDOW)   local memory of the lane itself
    [CONST_WINDOW,  +WINDOW)   the constant bank
    [HEAP_BASE, ...)           global memory
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass

import numpy as np

from .errors import MemoryFault

WINDOW = 1 << 32
SHARED_WINDOW = 1 << 32
LOCAL_WINDOW = 2 << 32
CONST_WINDOW = 3 << 32
HEAP_BASE = 1 << 40
ALIGN = 256


def host_free_bytes() -> int | None:
    """Memory this machine can still give (Linux's MemAvailable), or None where it does not say."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def reserve(nbytes: int, what: str) -> None:
    """MemoryError (one line: what needs how much, and what is free) before making arrays this machine cannot
    hold: past its free memory the kernel's out-of-memory killer ends the process without a word."""
    free = host_free_bytes()
    if free is not None and nbytes > free:
        raise MemoryError(f"{what}: {nbytes / 2**30:,.1f} GiB needed, {free / 2**30:,.1f} GiB free on this machine")


@dataclass
class Allocation:
    base: int
    size: int
    name: str
    guard: bool = False  # no-man's-land between a launch's arrays: any access to it is out of bounds

    @property
    def end(self) -> int:
        return self.base + self.size


class GlobalMemory:
    """A bump allocator over one numpy byte heap; freeing the top allocations shrinks it."""

    def __init__(self) -> None:
        self.heap = np.zeros(1 << 16, np.uint8)
        self.allocs: list[Allocation] = []  # sorted by base
        self._bases: list[int] = []
        self.top = HEAP_BASE
        self._views: dict[int, np.ndarray] = {}
        self._count = 0

    # -- allocation ----------------------------------------------------------------------
    def alloc(self, size: int, name: str = "", guard: bool = False) -> int:
        """Reserve `size` bytes (256-byte aligned base, zero-filled); returns the address. A `guard` range
        is one no access may touch (it stands between arrays, so an overrun is caught, not served)."""
        size = int(size)
        if size < 0:
            raise ValueError(f"cannot allocate {size} bytes")
        base = self.top
        self.top = base + max(ALIGN, (size + ALIGN - 1) // ALIGN * ALIGN)
        need = self.top - HEAP_BASE
        if need > len(self.heap):
            cap = len(self.heap)
            while cap < need:
                cap *= 2
            new = np.zeros(cap, np.uint8)
            new[:len(self.heap)] = self.heap
            self.heap = new
            self._views.clear()
        self.heap[base - HEAP_BASE:base - HEAP_BASE + size] = 0
        self._count += 1
        a = Allocation(base, size, name or f"allocation #{self._count}", guard)
        self.allocs.append(a)
        self._bases.append(base)
        return base

    def free(self, base: int) -> None:
        i = bisect.bisect_left(self._bases, base)
        if i == len(self._bases) or self._bases[i] != base:
            raise ValueError(f"free of 0x{base:x}, which is not the start of a live allocation")
        del self.allocs[i], self._bases[i]
        self.top = self.allocs[-1].base + max(ALIGN, (self.allocs[-1].size + ALIGN - 1) // ALIGN * ALIGN) \
            if self.allocs else HEAP_BASE

    def find(self, addr: int) -> Allocation | None:
        i = bisect.bisect_right(self._bases, addr) - 1
        if i >= 0 and addr < self.allocs[i].end:
            return self.allocs[i]
        return None

    # -- host copies ---------------------------------------------------------------------
    def write(self, addr: int, data: bytes | np.ndarray) -> None:
        buf = np.frombuffer(memoryview(np.ascontiguousarray(data)).cast("B"), np.uint8)
        self._check_host(addr, len(buf))
        self.heap[addr - HEAP_BASE:addr - HEAP_BASE + len(buf)] = buf

    def read(self, addr: int, nbytes: int) -> np.ndarray:
        self._check_host(addr, nbytes)
        return self.heap[addr - HEAP_BASE:addr - HEAP_BASE + nbytes].copy()

    def _check_host(self, addr: int, n: int) -> None:
        a = self.find(addr)
        if n and (a is None or addr + n > a.end):
            near, past = self.nearest(addr, n)
            raise MemoryFault(f"host copy of {n} bytes at 0x{addr:x} is outside every allocation", space="global",
                              kind="host copy", address=addr, size=n, lowest=addr,
                              reach=addr + n, allocation=near, past_end=past)

    # -- device access -------------------------------------------------------------------
    def view(self, itemsize: int) -> np.ndarray:
        v = self._views.get(itemsize)
        if v is None:
            v = self._views[itemsize] = self.heap.view(_UINT[itemsize])
        return v

    def check(self, addrs: np.ndarray, size: int, what: str) -> None:
        """Raise MemoryFault unless every lane's [addr, addr+size) lies in one allocation and is aligned."""
        if addrs.size == 0:
            return
        lo, hi = int(addrs.min()), int(addrs.max())
        a = self.find(lo)
        if a is None or a.guard or hi + size > a.end or self.find(hi) is not a:
            bad = self._first_bad(addrs, size)
            near, past = self.nearest(bad, size, hi + size)
            raise MemoryFault(f"{what}: out-of-bounds global access at 0x{bad:x} ({size} bytes): "
                              f"{self.describe(bad, size)}", space="global", kind="out-of-bounds", where=what,
                              address=bad, size=size, lowest=lo, reach=hi + size, allocation=near, past_end=past)
        if int(np.bitwise_or.reduce(addrs)) & (size - 1):
            bad = int(addrs[(addrs & np.uint64(size - 1)) != 0][0])
            raise MemoryFault(f"{what}: misaligned {size}-byte global access at 0x{bad:x} "
                              f"(address must be a multiple of {size})", space="global", kind="misaligned",
                              where=what, address=bad, size=size, lowest=lo, reach=hi + size,
                              allocation=self.find(bad))

    def check_rows(self, addrs: np.ndarray, size: int, what: str) -> None:
        """`check` for each row of (instructions, lanes) addresses: a row may use its own allocation."""
        if addrs.size == 0:
            return
        for lo, hi, row in zip(addrs.min(1).tolist(), addrs.max(1).tolist(), addrs):
            a = self.find(lo)
            if a is None or a.guard or hi + size > a.end or self.find(hi) is not a:
                self.check(row, size, what)
        if int(np.bitwise_or.reduce(addrs, axis=None)) & (size - 1):
            self.check(addrs.ravel(), size, what)

    def _first_bad(self, addrs: np.ndarray, size: int) -> int:
        bases = np.array(self._bases, np.uint64)
        ends = np.array([a.end for a in self.allocs], np.uint64)
        i = np.searchsorted(bases, addrs, side="right").astype(np.int64) - 1
        ok = i >= 0
        j = np.where(ok, i, 0)
        if len(ends):
            guard = np.array([a.guard for a in self.allocs])
            ok &= (addrs + np.uint64(size) <= ends[j]) & ~guard[j]
        else:
            ok[:] = False
        return int(addrs[~ok][0]) if (~ok).any() else int(addrs[0])

    def nearest(self, addr: int, size: int = 1, reach: int | None = None) -> tuple[Allocation | None, int | None]:
        """The allocation an access of `size` bytes at `addr` is nearest, as `describe` names it, and how many
        bytes the access (up to `reach`, one past its furthest byte; default addr + size) reaches past that
        allocation's end (None where the access lies before its start)."""
        if not self.allocs:
            return None, None
        reach = addr + size if reach is None else max(reach, addr + size)
        below, above = self._neighbours(addr)
        if below is not None and (addr < below.end or above is None or addr - below.end + 1 <= above.base - addr):
            return below, (reach - below.end if reach > below.end else None)
        return above, None

    def _neighbours(self, addr: int) -> tuple[Allocation | None, Allocation | None]:
        """The arrays (guard zones passed over) that start at or below `addr`, and above it."""
        real = [a for a in self.allocs if not a.guard]
        i = bisect.bisect_right([a.base for a in real], addr) - 1
        return (real[i] if i >= 0 else None), (real[i + 1] if i + 1 < len(real) else None)

    def describe(self, addr: int, size: int = 1) -> str:
        """Where an access of `size` bytes at `addr` lies relative to the nearest array."""
        below, above = self._neighbours(addr)
        if below is None and above is None:
            return "no global memory is allocated"

        def of(a: Allocation) -> str:
            return f"{a.name} (0x{a.base:x}, {a.size} bytes)"
        cands = []
        if below is not None:
            if addr < below.end:
                return f"the access ends {addr + size - below.end} bytes past the end of {of(below)}"
            cands.append((addr - below.end, f"the access reaches {addr + size - below.end} bytes past the end of "
                                            f"{of(below)}: it starts at byte {addr - below.base} of its {below.size}"))
        if above is not None:
            cands.append((above.base - addr, f"the access starts {above.base - addr} bytes before the start of "
                                             f"{of(above)}"))
        if addr < HEAP_BASE:
            return f"the address is not in global memory (nearest array: {min(cands)[1]})"
        return min(cands)[1]


_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def uint_dtype(size: int) -> type:
    return _UINT[size]


_default: GlobalMemory | None = None


def default_memory() -> GlobalMemory:
    """The process-wide device memory (what a CUDA context's allocations live in)."""
    global _default
    if _default is None:
        _default = GlobalMemory()
    return _default
