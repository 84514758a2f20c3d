"""Where a kernel's variables live and where an address points: layout, state spaces, bounds.

Shared variables are laid out in declaration order (module-level first), each at its own
alignment; extern (dynamic) shared arrays all start at the first 16-byte boundary after the
static ones. Local variables get their own per-thread layout. A generic address is split by
the fixed windows of `memory` into the space it points into, and every access is checked
against the bounds of its space before it touches a byte.
"""
from __future__ import annotations

import numpy as np

from .errors import MemoryFault, UnsupportedInstruction
from .memory import HEAP_BASE, LOCAL_WINDOW, SHARED_WINDOW, WINDOW
from .ptx import STATE_SPACES, Function, Instruction, Module, Param
from .state import Batch

STATE_MEMORIES = ("shared", "global", "const", "param", "local")  # disjoint: not generic addresses
_LOG2 = {1: 0, 2: 1, 4: 2, 8: 3, 16: 4}


def align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def space_of(ins: Instruction) -> str:
    """The state space an instruction names, or "generic"."""
    for m in ins.mods:
        if m in STATE_SPACES:
            return m
    return "generic"


class Layout:
    """Byte offsets of an entry function's shared and local variables, its parameters and the
    module's global symbols, and the bounds of each space that accesses are checked against."""

    def __init__(self, module: Module, fn: Function, global_symbols: dict[str, int]):
        self.global_symbols = global_symbols  # module .global/.const variables -> heap addresses
        self.functions = set(module.functions) | set(module.declared)
        self.kernels = {n for n, f in module.functions.items() if f.entry}
        self.param_offsets: dict[str, Param] = {p.name: p for p in fn.params}
        off = 0
        self.shared_offsets: dict[str, int] = {}
        extern = []
        for d in list(module.shared) + list(fn.shared):
            if d.extern or d.size == 0:
                extern.append(d)
                continue
            off = align(off, max(d.align, 1))
            self.shared_offsets[d.name] = off
            off += d.size
        self.static_shared = off
        self.dynamic_base = align(off, 16)
        self.extern_shared = bool(extern)  # the kernel declares extern __shared__ arrays (the launch sizes them)
        for d in extern:
            self.shared_offsets[d.name] = self.dynamic_base
        off = 0
        self.local_offsets: dict[str, int] = {}
        for d in fn.locals:
            off = align(off, max(d.align, 1))
            self.local_offsets[d.name] = off
            off += d.size
        self.local_end = off  # what the locals declare: the padding after them is no array's
        self.slot_offsets: dict[str, int] = {}  # call parameters and return values (cudasim.calls), after the locals
        for d in (fn.linkage.slots if fn.linkage is not None else ()):
            off = align(off, max(d.align, 1))
            self.slot_offsets[d.name] = off
            off += d.size
        self.local_size = align(off, 16)

    def symbol_address(self, name: str) -> int:
        if name in self.shared_offsets:
            return self.shared_offsets[name]
        if name in self.local_offsets:
            return self.local_offsets[name]
        if name in self.global_symbols:
            return self.global_symbols[name]
        if name in self.param_offsets:
            raise KeyError(f"taking the address of kernel parameter {name} is not modelled")
        if name in self.kernels:
            raise KeyError(f"the address of kernel {name}: a launch from the device (dynamic parallelism) is not modelled")
        if name in self.functions:
            raise KeyError(f"the address of function {name} (a function pointer or virtual function) is not modelled: "
                           f"call the function by name (a switch over the choices) to analyse it")
        raise KeyError(f"unknown symbol {name}")

    def shared_size(self, dynamic_shared: int) -> int:
        """Bytes of shared memory per block for a launch, padded to 16 (at least 16)."""
        return align(max(self.dynamic_base + dynamic_shared if dynamic_shared else self.static_shared, 1), 16)

    def locate(self, b: Batch, ins: Instruction, space: str, idx: np.ndarray, a: np.ndarray, size: int,
               rows: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(flat byte array, byte offsets) for lanes `idx` at space addresses `a` (uint64); checks bounds.
        rows > 0: idx is every lane of the batch, `rows` times over (a fused group)."""
        if space in ("global", "const"):
            b.gmem.check(a, size, f"{ins.where()} `{ins.text}`")
            return b.gmem.heap, (a - np.uint64(HEAP_BASE)).astype(np.int64)
        if space == "shared":
            limit = self.dynamic_base + b.dynamic_shared if b.dynamic_shared else self.static_shared
            if len(a) and int(a.max()) + size > limit:
                i = int(np.flatnonzero(a + np.uint64(size) > np.uint64(limit))[0])
                lane = int(idx[i])
                raise MemoryFault(f"{ins.where()} `{ins.text}`: out-of-bounds shared access at offset "
                                  f"{int(a[i])} ({size} bytes) by thread {lane % b.lpb} of block "
                                  f"{int(b.block_ids[lane // b.lpb])}: the block has {limit} bytes of shared memory"
                                  + ("" if b.dynamic_shared or not self.extern_shared else
                                     " (a launch gives extern __shared__ arrays their bytes: --shared BYTES, the "
                                     "<<<..., BYTES>>> of CUDA)"))
            if len(a) and int(np.bitwise_or.reduce(a)) & (min(size, 16) - 1):
                raise MemoryFault(f"{ins.where()} `{ins.text}`: misaligned {size}-byte shared access")
            return b.shared, shared_base(b, idx, rows) + a.view(np.int64)
        if space == "local":
            bad = a + np.uint64(size) > np.uint64(max(self.local_size, 0))
            if bad.any():
                raise MemoryFault(f"{ins.where()} `{ins.text}`: out-of-bounds local access at offset "
                                  f"{int(a[np.flatnonzero(bad)[0]])}: each thread has {self.local_size} bytes")
            return b.local, idx.astype(np.int64) * b.local_size + a.astype(np.int64)
        if space == "bad":
            raise MemoryFault(f"{ins.where()} `{ins.text}`: address 0x{int(a[0]):x} is in no memory "
                              f"(a null or uninitialized pointer?)")
        raise UnsupportedInstruction(f"{ins.where()}: memory space .{space} is not modelled")


def split(space: str, a: np.ndarray) -> dict[str, tuple[np.ndarray | None, np.ndarray]]:
    """{space: (positions or None for all, space addresses)}: generic addresses are split by window."""
    return split_generic(a) if space == "generic" else {space: (None, a)}


def split_generic(a: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Generic addresses -> {space: (positions, space addresses)}; "bad" for those in no window."""
    out = {}
    glob = a >= np.uint64(HEAP_BASE)
    sh = (a >= np.uint64(SHARED_WINDOW)) & (a < np.uint64(SHARED_WINDOW + WINDOW))
    lo = (a >= np.uint64(LOCAL_WINDOW)) & (a < np.uint64(LOCAL_WINDOW + WINDOW))
    if glob.any():
        out["global"] = (np.flatnonzero(glob), a[glob])
    if sh.any():
        out["shared"] = (np.flatnonzero(sh), a[sh] - np.uint64(SHARED_WINDOW))
    if lo.any():
        out["local"] = (np.flatnonzero(lo), a[lo] - np.uint64(LOCAL_WINDOW))
    bad = ~(glob | sh | lo)
    if bad.any():
        out["bad"] = (np.flatnonzero(bad), a[bad])
    return out


def shared_base(b: Batch, idx: np.ndarray, rows: int) -> np.ndarray:
    """Byte offset of each lane's block in the batch's shared memory."""
    if not rows and len(idx) == b.L:  # idx is a subset of the lanes: all of them
        rows = 1
    if not rows:
        return b.lane_block[idx] * b.shared_size
    key = ("shared base", rows)
    v = b.cache.get(key)
    if v is None:
        v = b.cache[key] = np.tile(b.lane_block * b.shared_size, rows)
    return v


def gather_addr(addr: "np.ndarray | np.generic", idx: np.ndarray) -> np.ndarray:
    """An address (array over lanes or scalar) at lanes `idx`, as uint64."""
    a = np.asarray(addr)
    return np.full(len(idx), a, np.uint64) if a.ndim == 0 else a[idx].astype(np.uint64)


def read(arr: np.ndarray, off: np.ndarray, esize: int, n: int) -> np.ndarray:
    """(len(off), n) unsigned elements at byte offsets `off` (element-aligned)."""
    v = arr.view(np.dtype(f"u{esize}"))
    e = off >> _LOG2[esize]
    return v[e[:, None] + np.arange(n)] if n > 1 else v[e][:, None]


def write(arr: np.ndarray, off: np.ndarray, esize: int, vals: np.ndarray) -> None:
    """Store (len(off), n) unsigned elements at byte offsets `off` (element-aligned)."""
    v = arr.view(np.dtype(f"u{esize}"))
    e = off >> _LOG2[esize]
    n = vals.shape[1]
    if n > 1:
        v[e[:, None] + np.arange(n)] = vals
    else:
        v[e] = vals[:, 0]
