"""SIMT execution of a PTX entry function over whole batches of blocks at once.

Every lane of every block in a batch is one element of the register arrays, and the batch
runs as one wide SIMT group: the divergence stack holds (pc, mask, reconvergence pc)
entries; a branch that splits the active lanes pushes both sides and reconverges at the
branch's immediate post-dominator. Seen from any one warp this is exactly the warp-level
IPDOM stack (the same instructions, in the same order, with the same lane masks); only
the interleaving between warps differs, which a race-free kernel cannot observe (between
barriers, the race checker looks for exactly the accesses whose order would matter).

Blocks are independent, so a large grid is cut into batches that fit in memory.
"""
from __future__ import annotations

import operator
import time
from dataclasses import dataclass, field

import numpy as np

from . import ops as O
from .cfg import EXIT, build_cfg
from .errors import BarrierDivergence, LaunchError, MemoryFault, SimulationError, UnsupportedInstruction
from .memory import HEAP_BASE, LOCAL_WINDOW, SHARED_WINDOW, WINDOW, GlobalMemory
from .ptx import STATE_SPACES, Function, Instruction, Module, Operand
from .schedule import Step, regroup
from .state import Batch, Entry, Mask, new_batch
from .trace import MemEvent, Trace

_NORMAL, _BRA, _EXIT = 0, 1, 2
_MULTI = np.int64(0xFFFFFFFF)  # "several warps" in a read stamp
MAX_WARP_INSTRUCTIONS = 2_000_000_000
SHARED_LIMIT = 48 * 1024  # without the opt-in attribute
SHARED_OPTIN_LIMIT = 227 * 1024  # sm_90 with cudaFuncAttributeMaxDynamicSharedMemorySize
_WMMA_SHAPES = {"m16n16k8": (16, 16, 8), "m8n8k4": (8, 8, 4)}
_WMMA_TYPES = {"tf32": "b32", "f32": "f32", "f64": "f64"}
# Register-only instructions whose closures work unchanged on stacked (G, lanes) operands.
_FUSABLE = frozenset({"add", "sub", "mul", "mad", "fma", "min", "max", "and", "or", "xor", "not", "neg", "abs",
                      "shl", "shr", "mov", "cvt", "setp", "selp", "rcp", "sqrt", "rsqrt", "ex2", "lg2"})
# Register-only instructions that may be reordered (they touch nothing but the thread's registers).
_PURE = _FUSABLE | {"div", "rem", "cnot", "popc", "clz", "brev", "sin", "cos", "tanh", "slct", "bfe", "bfi",
                    "lop3", "prmt", "copysign", "testp", "cvta"}
_ORDERED_LOAD = frozenset({"volatile", "relaxed", "acquire", "release", "mmio", "cv"})
_STATE_MEMORIES = ("shared", "global", "const", "param", "local")  # disjoint: not generic addresses
_LOG2 = {1: 0, 2: 1, 4: 2, 8: 3, 16: 4}
_MIN_FUSED = 4  # below this, stacking the operands costs more than it saves
FUSE = True  # run straight-line code regrouped (cudasim.schedule); tests turn it off to compare


class _Stacked:
    """The view of a batch a fused group's first closure runs on: its registers stacked (G, lanes)."""

    __slots__ = ("regs", "L")

    def __init__(self, regs: dict, L: int):
        self.regs, self.L = regs, L


@dataclass
class Finding:
    """A verifier finding: a race, an uninitialized read; `count` accesses at this pc."""

    kind: str
    message: str
    pc: int
    line: int
    file: str
    count: int = 1

    def __str__(self) -> str:
        where = f"{self.file.rsplit('/', 1)[-1]}:{self.line}" if self.line else f"pc {self.pc}"
        times = f" ({self.count} accesses)" if self.count > 1 else ""
        return f"{self.kind} at {where}: {self.message}{times}"


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


class Program:
    """An entry function decoded for execution: CFG, reconvergence points, closures, layouts."""

    def __init__(self, module: Module, fn: Function, gmem: GlobalMemory, symbols: dict[str, int]):
        self.module, self.fn, self.gmem = module, fn, gmem
        self.reg_types = dict(fn.regs)
        self.global_symbols = symbols  # module .global/.const variables -> heap addresses
        self.param_offsets = {p.name: p for p in fn.params}
        off = 0
        self.shared_offsets: dict[str, int] = {}
        extern = []
        for d in list(module.shared) + list(fn.shared):
            if d.extern or d.size == 0:
                extern.append(d)
                continue
            off = _align(off, max(d.align, 1))
            self.shared_offsets[d.name] = off
            off += d.size
        self.static_shared = off
        self.dynamic_base = _align(off, 16)
        for d in extern:
            self.shared_offsets[d.name] = self.dynamic_base
        off = 0
        self.local_offsets: dict[str, int] = {}
        for d in fn.locals:
            off = _align(off, max(d.align, 1))
            self.local_offsets[d.name] = off
            off += d.size
        self.local_size = _align(off, 16)
        self.cfg = build_cfg(fn)
        self.clock = 0
        self.race: dict | None = None
        self.findings: dict[tuple[str, int], Finding] = {}
        self.ops: list = []
        self.kinds: list[int] = []
        self.guards: list[tuple[str | None, bool]] = []
        self.targets: list[int] = []
        for pc, ins in enumerate(fn.body):
            self.guards.append((ins.guard, ins.guard_neg))
            self.targets.append(-1)
            if ins.base == "bra":
                self.targets[pc] = fn.labels[ins.operands[0].name]
                self.kinds.append(_BRA)
                self.ops.append(None)
            elif ins.base in ("exit", "ret"):
                self.kinds.append(_EXIT)
                self.ops.append(None)
            elif ins.base in ("call", "trap", "brx", "brkpt"):
                self.kinds.append(_NORMAL)
                self.ops.append(self._raiser(ins))
            else:
                self.kinds.append(_NORMAL)
                self.ops.append(O.decode(ins, self))
        self.batch: Batch | None = None
        self.trace_rows: dict[tuple, list] = {}
        self.runs: dict[int, tuple] = {}  # pc -> (end pc, steps, instructions): straight-line code from pc
        self.leaders = {blk.start for blk in self.cfg.blocks}
        for blk in self.cfg.blocks:  # scheduled at decode, like the closures
            if self.kinds[blk.start] == _NORMAL:
                self._straight(blk.start)

    @staticmethod
    def _raiser(ins: Instruction):
        err = O.unsupported(ins, "calls and traps are not modelled" if ins.base != "trap" else "the kernel trapped")

        def op(b, m):
            raise err
        return op

    # -- symbols -------------------------------------------------------------------------
    def symbol_address(self, name: str) -> int:
        if name in self.shared_offsets:
            return self.shared_offsets[name]
        if name in self.local_offsets:
            return self.local_offsets[name]
        if name in self.global_symbols:
            return self.global_symbols[name]
        if name in self.param_offsets:
            raise KeyError(f"taking the address of kernel parameter {name} is not modelled")
        raise KeyError(f"unknown symbol {name}")

    def _space_of(self, ins: Instruction) -> str:
        for m in ins.mods:
            if m in STATE_SPACES:
                return m
        return "generic"

    # -- findings ------------------------------------------------------------------------
    def finding(self, kind: str, ins: Instruction, pc: int, message: str, count: int) -> None:
        key = (kind, pc)
        f = self.findings.get(key)
        if f is None:
            self.findings[key] = Finding(kind, message, pc, ins.line, str(ins.file), count)
        else:
            f.count += count

    # -- addresses and memory ------------------------------------------------------------
    def address(self, o: Operand):
        """Reader of a memory operand's address as uint64 (array over lanes or scalar)."""
        off = np.uint64(o.offset & 0xFFFFFFFFFFFFFFFF)
        if o.base is None:
            return lambda b: off
        if o.base.kind == "sym":
            v = np.uint64((self.symbol_address(o.base.name) + o.offset) & 0xFFFFFFFFFFFFFFFF)
            return lambda b: v
        r = O.reader(o.base, "u64", self)
        if o.offset == 0:
            return r
        return lambda b: r(b) + off

    def _gather_addr(self, b: Batch, addr, idx: np.ndarray) -> np.ndarray:
        a = np.asarray(addr)
        return np.full(len(idx), a, np.uint64) if a.ndim == 0 else a[idx].astype(np.uint64)

    def _spaces(self, space: str, a: np.ndarray) -> dict[str, tuple[np.ndarray | None, np.ndarray]]:
        """{space: (positions or None for all, space addresses)}: generic addresses are split by window."""
        return self._split_generic(a) if space == "generic" else {space: (None, a)}

    def _split_generic(self, a: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Generic addresses -> {space: (positions, space addresses)}."""
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

    def _locate(self, b: Batch, ins: Instruction, space: str, idx: np.ndarray, a: np.ndarray, size: int,
                rows: int = 0):
        """(flat byte array, byte offsets) for lanes `idx` at space addresses `a` (uint64); checks bounds.
        rows > 0: idx is every lane of the batch, `rows` times over (a fused group)."""
        if space in ("global", "const"):
            b.gmem.check(a, size, f"{ins.where()} `{ins.text}`")
            return b.gmem.heap, (a - np.uint64(HEAP_BASE)).astype(np.int64)
        if space == "shared":
            S = b.shared_size
            limit = self.dynamic_base + b.dynamic_shared if b.dynamic_shared else self.static_shared
            if len(a) and int(a.max()) + size > limit:
                i = int(np.flatnonzero(a + np.uint64(size) > np.uint64(limit))[0])
                lane = int(idx[i])
                raise MemoryFault(f"{ins.where()} `{ins.text}`: out-of-bounds shared access at offset "
                                  f"{int(a[i])} ({size} bytes) by thread {lane % b.lpb} of block "
                                  f"{int(b.block_ids[lane // b.lpb])}: the block has {limit} bytes of shared memory")
            if len(a) and int(np.bitwise_or.reduce(a)) & (min(size, 16) - 1):
                raise MemoryFault(f"{ins.where()} `{ins.text}`: misaligned {size}-byte shared access")
            return b.shared, self._shared_base(b, idx, rows) + a.view(np.int64)
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

    @staticmethod
    def _shared_base(b: Batch, idx: np.ndarray, rows: int) -> np.ndarray:
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

    @staticmethod
    def _read(arr: np.ndarray, off: np.ndarray, esize: int, n: int) -> np.ndarray:
        """(len(off), n) unsigned elements at byte offsets `off` (element-aligned)."""
        v = arr.view(np.dtype(f"u{esize}"))
        e = off >> _LOG2[esize]
        return v[e[:, None] + np.arange(n)] if n > 1 else v[e][:, None]

    @staticmethod
    def _write(arr: np.ndarray, off: np.ndarray, esize: int, vals: np.ndarray) -> None:
        v = arr.view(np.dtype(f"u{esize}"))
        e = off >> _LOG2[esize]
        n = vals.shape[1]
        if n > 1:
            v[e[:, None] + np.arange(n)] = vals
        else:
            v[e] = vals[:, 0]

    def record(self, b: Batch, pc: int, ins: Instruction, space: str, op: str, size: int, idx: np.ndarray,
               a: np.ndarray) -> None:
        """Append one trace row per traced warp that has an active lane here."""
        tw = b.traced_warps
        if tw is None or len(idx) == 0:
            return
        if space == "local":  # local memory is interleaved word by word across a warp's lanes
            lane = (idx % 32).astype(np.uint64)
            a = (a // np.uint64(4)) * np.uint64(128) + lane * np.uint64(4) + (a % np.uint64(4))
        rows = self.trace_rows.setdefault((pc, space, op, size), [])
        if len(idx) == b.L:  # every lane (padding included) is active: no scatter needed
            every, head = self._traced_full(b)
            A = a.reshape(-1, 32)
            rows.append((*head, A if every else A[tw]))
            return
        A = np.zeros(b.L, np.uint64)
        A[idx] = a
        A = A.reshape(-1, 32)
        act = np.zeros(b.L, np.bool_)
        act[idx] = True
        masks = np.packbits(act.reshape(-1, 32), axis=1, bitorder="little").view("<u4").ravel()
        sel = tw & (masks != 0)
        if sel.all():
            rows.append((b.warp_block, b.warp_in_block, masks, A))
        else:
            rows.append((b.warp_block[sel], b.warp_in_block[sel], masks[sel], A[sel]))

    def record_group(self, b: Batch, pcs: list[int], space: str, op: str, size: int, idx: np.ndarray,
                     A: np.ndarray) -> None:
        """`record` for a fused group: A holds each member's addresses for lanes `idx`, row by row."""
        if b.traced_warps is None or len(idx) == 0:
            return
        if len(idx) != b.L or space == "local":
            for k, pc in enumerate(pcs):
                self.record(b, pc, self.fn.body[pc], space, op, size, idx, A[k])
            return
        every, head = self._traced_full(b)
        A3 = A.reshape(len(pcs), -1, 32)
        if not every:
            A3 = A3[:, b.traced_warps]
        tr = self.trace_rows
        for k, pc in enumerate(pcs):
            tr.setdefault((pc, space, op, size), []).append((*head, A3[k]))

    @staticmethod
    def _traced_full(b: Batch) -> tuple[bool, tuple]:
        """(every warp traced, trace row heads: blocks, warps, masks) for an instruction with every lane active."""
        full = b.cache.get("traced full")
        if full is None:
            tw = b.traced_warps
            masks = np.full(b.W, 0xFFFFFFFF, np.uint32)
            every = bool(tw.all())
            full = b.cache["traced full"] = (every, (b.warp_block, b.warp_in_block, masks) if every else
                                             (b.warp_block[tw], b.warp_in_block[tw], masks[tw]))
        return full

    # -- shared-memory race and initialization checks -------------------------------------
    def _check_shared(self, b: Batch, pc: int, ins: Instruction, idx: np.ndarray, flat: np.ndarray, size: int,
                      write: bool, atomic: bool = False) -> None:
        """Races between warps since the block's last barrier, and reads of never-written words.

        Per 4-byte word, a stamp (barrier epoch << 32 | warp) of the last write and of this
        epoch's reads (warp MULTI: several warps); warps of one instruction are compared too.
        Reads are only queued until the next write or barrier: after a barrier that every
        block reached, the queue is dropped (nothing before it can race with what follows).
        """
        st = self.race
        if st is None or len(idx) == 0:
            return
        k = max(1, size // 4)
        if not write and not atomic:
            uninit, raw, wpc = self._read_hazards(b, idx, flat, k)
            if uninit:
                self.finding("uninitialized shared read", ins, pc,
                             "reads shared memory that no thread of the block has written", uninit)
            if raw:
                self.finding("shared-memory race", ins, pc,
                             f"reads a word that another warp wrote at line {self._line(wpc)} with no barrier "
                             f"between (read-after-write)", raw)
            st["reads"].append((flat, idx, k))
            return
        words = _words(flat, k)
        w_stamp = st["w_stamp"]
        mine = self._stamps(b, idx, k)
        st["dirty"] = True
        if atomic:
            w_stamp[words] = mine
            return
        self._flush_reads(b)
        ep = mine >> 32
        ws = w_stamp[words]
        waw = ((ws >> 32) == ep) & (ws != mine)
        rs = st["r_stamp"][words]
        war = ((rs >> 32) == ep) & (rs != mine)
        if waw.any():
            wpc = int(st["w_pc"][words[waw][0]])
            self.finding("shared-memory race", ins, pc, f"overwrites a word another warp wrote at line "
                         f"{self._line(wpc)} with no barrier between (write-after-write)", int(waw.sum()))
        if war.any():
            self.finding("shared-memory race", ins, pc, "overwrites a word another warp reads with no barrier "
                         "between (write-after-read)", int(war.sum()))
        w_stamp[words] = mine
        dup = w_stamp[words] != mine  # two warps wrote this word in this very instruction
        if dup.any():
            self.finding("shared-memory race", ins, pc, "two warps write the same word with no barrier between "
                         "(write-after-write)", int(dup.sum()))
        st["w_pc"][words] = pc

    def _read_hazards(self, b: Batch, idx: np.ndarray, flat: np.ndarray, k: int) -> tuple[int, int, int]:
        """(never-written words, words another warp wrote since the barrier, the pc of one such write)."""
        st = self.race
        if st["all_written"] and not st["dirty"]:  # nothing written since a barrier every block passed
            return 0, 0, 0
        words = _words(flat, k)
        ws = np.take(st["w_stamp"], words)
        uninit = int((ws < 0).sum()) if ws.size and ws.min() < 0 else 0
        raw = wpc = 0
        if st["dirty"]:
            mine = self._stamps(b, idx, k)
            hit = ((ws >> 32) == (mine >> 32)) & (ws != mine)
            raw = int(hit.sum())
            if raw:
                wpc = int(st["w_pc"][words[hit][0]])
        return uninit, raw, wpc

    def _check_shared_group(self, b: Batch, pcs: list[int], idx: np.ndarray, lanes: np.ndarray, flat: np.ndarray,
                            size: int, write: bool) -> None:
        """`_check_shared` for a fused group (lanes, flat: `idx` and each member's offsets, one member
        after another): checked at once; member by member, in order, only where there is a finding."""
        st = self.race
        k = max(1, size // 4)
        if not write:
            uninit, raw, _ = self._read_hazards(b, lanes, flat, k)
            clean = not (uninit or raw)
            if clean:
                st["reads"].append((flat, lanes, k))
        else:
            self._flush_reads(b)
            words = _words(flat, k)
            mine = self._stamps(b, lanes, k)
            ep = mine >> 32
            w_stamp = st["w_stamp"]
            ws = w_stamp[words]
            rs = st["r_stamp"][words]
            clean = not ((((ws >> 32) == ep) & (ws != mine)).any() or (((rs >> 32) == ep) & (rs != mine)).any())
            if clean:
                w_stamp[words] = mine
                if (w_stamp[words] != mine).any():  # two warps write one word within the group
                    w_stamp[words] = ws
                    clean = False
            if clean:
                st["dirty"] = True
                st["w_pc"][words] = np.repeat(np.asarray(pcs, np.int32), len(words) // len(pcs))
        if not clean:
            na = len(idx)
            for i, pc in enumerate(pcs):
                self._check_shared(b, pc, self.fn.body[pc], idx, flat[i * na:(i + 1) * na], size, write=write)

    def _stamps(self, b: Batch, idx: np.ndarray, k: int) -> np.ndarray:
        mine = (self.race["epoch"][b.lane_block[idx]] << 32) | (idx >> 5)
        return np.repeat(mine, k) if k > 1 else mine

    def _flush_reads(self, b: Batch) -> None:
        """Fold the queued reads into the per-word read stamps (MULTI where warps differ)."""
        st = self.race
        r_stamp = st["r_stamp"]
        for flat, idx, k in st["reads"]:
            words = _words(flat, k)
            mine = self._stamps(b, idx, k)
            multi = ((r_stamp[words] >> 32) == (mine >> 32)) & (r_stamp[words] != mine)
            r_stamp[words] = mine
            multi |= r_stamp[words] != mine  # another warp read it in this same instruction
            if multi.any():
                r_stamp[words[multi]] = ((mine[multi] >> 32) << 32) | _MULTI
        st["reads"] = []

    def _barrier_epoch(self, b: Batch, present: np.ndarray, alive: np.ndarray) -> None:
        st = self.race
        if (present == alive).all():  # every block passed: earlier accesses cannot race with later ones
            st["reads"] = []
            st["dirty"] = False
            if not st["all_written"]:  # stamps only ever go from -1 to a stamp: true once, true after
                st["all_written"] = bool((st["w_stamp"] >= 0).all())
        else:
            self._flush_reads(b)
        st["epoch"][present > 0] += 1

    def _line(self, pc: int) -> int:
        return self.fn.body[pc].line if 0 <= pc < len(self.fn.body) else 0

    # -- special instructions: memory, warp-wide, barriers ---------------------------------
    def decode_special(self, ins: Instruction):
        pc = len(self.ops)
        base = ins.base
        if base in ("ld", "ldu"):
            return self._d_ld(ins, pc)
        if base == "st":
            return self._d_st(ins, pc)
        if base in ("atom", "red"):
            return self._d_atom(ins, pc)
        if base == "cvta":
            return self._d_cvta(ins)
        if base == "shfl":
            return self._d_shfl(ins)
        if base == "vote":
            return self._d_vote(ins)
        if base == "activemask":
            put = O.writer(ins.operands[0], self)
            return lambda b, m: put(b, np.repeat(_ballot(m.mask, m.mask), 32), m)
        if base == "redux":
            return self._d_redux(ins)
        if base in ("bar", "barrier"):
            return self._d_bar(ins, pc)
        if base == "cp":
            return self._d_cp(ins, pc)
        if base == "wmma":
            return self._d_wmma(ins, pc)
        raise O.unsupported(ins)

    def _d_ld(self, ins: Instruction, pc: int):
        space = self._space_of(ins)
        t = ins.type
        dt = O.dtype_of(t)
        dest, src = ins.operands[:2]
        items = dest.items if dest.kind == "vec" else (dest,)
        n = len(items)
        if ins.has("v8") or t == "b128":
            raise O.unsupported(ins)
        esize = dt.itemsize
        for x in items:
            if x.kind != "sink" and x.name not in self.reg_types:
                raise O.unsupported(ins, f"{x} is not a register")
        if space == "param":
            puts = [O.writer(x, self) for x in items]
            if src.base is None or src.base.kind != "sym" or src.base.name not in self.param_offsets:
                raise O.unsupported(ins, "parameter access through a pointer")
            off = self.param_offsets[src.base.name].offset + src.offset

            def ldparam(b: Batch, m: Mask) -> None:
                raw = b.params[off:off + esize * n].view(dt)
                for i, p in enumerate(puts):
                    p(b, raw[i], m)
            return ldparam
        addr = self.address(src)

        def ld(b: Batch, m: Mask) -> None:
            idx = m.idx
            a = self._gather_addr(b, addr(b), idx)
            parts = self._spaces(space, a)
            vals = np.empty((len(idx), n), np.dtype(f"u{esize}"))
            for sp, (pos, sa) in parts.items():
                sidx = idx if pos is None else idx[pos]
                arr, off = self._locate(b, ins, sp, sidx, sa, esize * n)
                v = self._read(arr, off, esize, n)
                if sp == "shared":
                    self._check_shared(b, pc, ins, sidx, off, esize * n, write=False)
                if pos is None:
                    vals = v
                else:
                    vals[pos] = v
                self.record(b, pc, ins, "global" if sp == "const" else sp, "ld", esize * n, sidx, sa)
            typed = vals.view(dt)
            for i, item in enumerate(items):
                if item.kind != "sink":
                    _scatter(b, item.name, idx, typed[:, i])
        return ld

    def _d_st(self, ins: Instruction, pc: int):
        space = self._space_of(ins)
        t = ins.type
        dt = O.dtype_of(t)
        dst, src = ins.operands[:2]
        items = src.items if src.kind == "vec" else (src,)
        n = len(items)
        esize = dt.itemsize
        if space == "param" or ins.has("v8"):
            raise O.unsupported(ins)
        rs = [O.reader(x, t, self) for x in items]
        addr = self.address(dst)
        udt = np.dtype(f"u{esize}")

        def st(b: Batch, m: Mask) -> None:
            idx = m.idx
            a = self._gather_addr(b, addr(b), idx)
            vals = np.empty((len(idx), n), udt)
            for i, r in enumerate(rs):
                v = np.asarray(r(b))
                v = v.view(udt) if v.dtype.itemsize == esize else v.astype(dt).view(udt)
                vals[:, i] = v[idx] if v.ndim else v
            parts = self._spaces(space, a)
            for sp, (pos, sa) in parts.items():
                sidx = idx if pos is None else idx[pos]
                arr, off = self._locate(b, ins, sp, sidx, sa, esize * n)
                if sp == "shared":
                    self._check_shared(b, pc, ins, sidx, off, esize * n, write=True)
                self._write(arr, off, esize, vals if pos is None else vals[pos])
                self.record(b, pc, ins, sp, "st", esize * n, sidx, sa)
        return st

    def _d_atom(self, ins: Instruction, pc: int):
        space = self._space_of(ins)
        t = ins.type
        dt = O.dtype_of(t)
        red = ins.base == "red"
        opn = next((x for x in ins.mods if x in ("add", "min", "max", "inc", "dec", "exch", "cas", "and", "or",
                                                 "xor")), None)
        if opn is None or ins.has("v2", "v4", "v8", "noftz") or t in ("f16", "bf16", "f16x2", "bf16x2"):
            raise O.unsupported(ins)
        ops_ = ins.operands
        if red:
            dst, vals_o = ops_[0], ops_[1:]
            put = None
        else:
            put, dst, vals_o = O.writer(ops_[0], self), ops_[1], ops_[2:]
        rv = [O.reader(x, t, self) for x in vals_o]
        addr = self.address(dst)
        esize = dt.itemsize

        def atom(b: Batch, m: Mask) -> None:
            idx = m.idx
            a = self._gather_addr(b, addr(b), idx)
            operand = [np.broadcast_to(np.asarray(r(b)), (b.L,))[idx].astype(dt) for r in rv]
            parts = self._spaces(space, a)
            old = np.empty(len(idx), dt)
            for sp, (pos, sa) in parts.items():
                sidx = idx if pos is None else idx[pos]
                arr, off = self._locate(b, ins, sp, sidx, sa, esize)
                args = [x if pos is None else x[pos] for x in operand]
                o = _atomic(arr.view(dt), off // esize, opn, args, dt)
                if sp == "shared":
                    self._check_shared(b, pc, ins, sidx, off, esize, write=True, atomic=True)
                if pos is None:
                    old = o
                else:
                    old[pos] = o
                self.record(b, pc, ins, sp, "red" if red else "atom", esize, sidx, sa)
            if put is not None:
                full = np.zeros(b.L, dt)
                full[idx] = old
                put(b, full, m)
        return atom

    def _d_cvta(self, ins: Instruction):
        d, a = ins.operands[:2]
        t = ins.type
        put, ra = O.writer(d, self), O.reader(a, t, self)
        dt = O.dtype_of(t)
        to = ins.has("to")
        sp = next(x for x in ins.mods if x in STATE_SPACES)
        base = {"shared": SHARED_WINDOW, "local": LOCAL_WINDOW}.get(sp, 0)
        if base == 0:
            return lambda b, m: put(b, np.array(ra(b)), m)
        off = dt.type(base & ((1 << (8 * dt.itemsize)) - 1))
        if to:
            return lambda b, m: put(b, np.subtract(ra(b), off, dtype=dt), m)
        return lambda b, m: put(b, np.add(ra(b), off, dtype=dt), m)

    def _d_shfl(self, ins: Instruction):
        mode = next(x for x in ins.mods if x in ("up", "down", "bfly", "idx"))
        d, a, bo, c = ins.operands[:4]
        put = O.writer(d, self)
        putp = O.writer(Operand("reg", name=ins.dest_pred), self) if ins.dest_pred else None
        ra, rb, rc = O.reader(a, "b32", self), O.reader(bo, "u32", self), O.reader(c, "u32", self)

        def shfl(b: Batch, m: Mask) -> None:
            lane = b.sregs["%laneid"].astype(np.int64)
            bval = np.asarray(rb(b)).astype(np.int64) & 31
            cv = np.asarray(rc(b)).astype(np.int64)
            seg = (cv >> 8) & 31
            maxl = (lane & seg) | (cv & 31 & ~seg)
            minl = lane & seg
            if mode == "up":
                j = lane - bval
                p = j >= maxl
            elif mode == "down":
                j = lane + bval
                p = j <= maxl
            elif mode == "bfly":
                j = lane ^ bval
                p = j <= maxl
            else:
                j = minl | (bval & ~seg)
                p = j <= maxl
            j = np.where(p, j, lane)
            src = np.arange(b.L) // 32 * 32 + j
            v = np.broadcast_to(np.asarray(ra(b)), (b.L,))
            put(b, v[src], m)
            if putp is not None:
                putp(b, np.broadcast_to(p, (b.L,)), m)
        return shfl

    def _d_vote(self, ins: Instruction):
        mode = next(x for x in ins.mods if x in ("all", "any", "uni", "ballot"))
        d, p = ins.operands[:2]
        neg = False
        put, rp = O.writer(d, self), O.reader(p, "pred", self)

        def vote(b: Batch, m: Mask) -> None:
            pv = np.broadcast_to(np.asarray(rp(b)), (b.L,)) ^ neg
            act = m.mask
            ball = _ballot(pv & act, act)
            if mode == "ballot":
                put(b, np.repeat(ball, 32), m)
                return
            actb = _ballot(act, act)
            if mode == "any":
                r = ball != 0
            elif mode == "all":
                r = ball == actb
            else:
                r = (ball == 0) | (ball == actb)
            put(b, np.repeat(r, 32), m)
        return vote

    def _d_redux(self, ins: Instruction):
        opn = next(x for x in ins.mods if x in ("add", "min", "max", "and", "or", "xor"))
        t = ins.type
        dt = O.dtype_of(t)
        d, a = ins.operands[:2]
        put, ra = O.writer(d, self), O.reader(a, t, self)
        ident = {"add": 0, "or": 0, "xor": 0, "and": np.iinfo(dt).max if dt.kind == "u" else -1,
                 "min": np.iinfo(dt).max, "max": np.iinfo(dt).min}[opn]
        f = {"add": np.add, "min": np.minimum, "max": np.maximum, "and": np.bitwise_and, "or": np.bitwise_or,
             "xor": np.bitwise_xor}[opn]

        def redux(b: Batch, m: Mask) -> None:
            v = np.where(m.mask, np.broadcast_to(np.asarray(ra(b)), (b.L,)), dt.type(ident)).astype(dt)
            r = f.reduce(v.reshape(-1, 32), axis=1, dtype=dt)
            put(b, np.repeat(r, 32), m)
        return redux

    def _d_bar(self, ins: Instruction, pc: int):
        if ins.has("warp"):
            return lambda b, m: None
        if ins.has("arrive"):
            raise O.unsupported(ins, "split arrive/wait barriers")
        red = ins.has("red")
        ops_ = ins.operands
        count_o = None
        if red:
            d, bar_o, count_o, p = (ops_[0], ops_[1], ops_[2], ops_[3]) if len(ops_) == 4 else \
                (ops_[0], ops_[1], None, ops_[2])
            put, rp = O.writer(d, self), O.reader(p, "pred", self)
            kind = next(x for x in ins.mods if x in ("popc", "and", "or"))
        else:
            bar_o = ops_[0]
            count_o = ops_[1] if len(ops_) > 1 else None
        if bar_o.kind != "imm" or bar_o.value != 0 or count_o is not None:
            raise O.unsupported(ins, "named barriers and barriers with a thread count")

        def bar(b: Batch, m: Mask) -> None:
            present = m.mask.reshape(b.nb, b.lpb).sum(1)
            live = b.alive.copy()
            for e in self.stack[:-1]:  # lanes parked at the kernel's exit count as exited (early return)
                if 0 <= e.pc < len(self.kinds) and self.kinds[e.pc] == _EXIT and self.guards[e.pc][0] is None:
                    live &= ~e.m.mask | m.mask
            alive = live.reshape(b.nb, b.lpb).sum(1)
            bad = (present > 0) & (present < alive)
            if bad.any():
                i = int(np.flatnonzero(bad)[0])
                raise BarrierDivergence(
                    f"{ins.where()}: __syncthreads() reached by {int(present[i])} of the {int(alive[i])} live threads "
                    f"of block {int(b.block_ids[i])}; the others are on another path, so the GPU would hang or "
                    f"misbehave. Make the barrier unconditional, or the condition uniform across the block")
            if self.race is not None:
                self._barrier_epoch(b, present, alive)
            if red:
                pv = np.broadcast_to(np.asarray(rp(b)), (b.L,)) & m.mask
                per = pv.reshape(b.nb, b.lpb)
                if kind == "popc":
                    r = np.repeat(per.sum(1).astype(np.uint32), b.lpb)
                elif kind == "and":
                    r = np.repeat((per == m.mask.reshape(b.nb, b.lpb)).all(1), b.lpb)
                else:
                    r = np.repeat(per.any(1), b.lpb)
                put(b, r, m)
        return bar

    def _d_cp(self, ins: Instruction, pc: int):
        if not ins.mods or ins.mods[0] != "async" or ins.has("bulk", "mbarrier"):
            raise O.unsupported(ins)
        if ins.has("commit_group", "wait_group", "wait_all"):
            return lambda b, m: None  # copies complete at issue, which is one legal ordering
        dst, src, size_o = ins.operands[:3]
        src_size_o = ins.operands[3] if len(ins.operands) > 3 and ins.operands[3].kind in ("imm", "reg") else None
        if size_o.kind != "imm":
            raise O.unsupported(ins)
        size = size_o.value
        rs = O.reader(src_size_o, "u32", self) if src_size_o is not None else None
        ad, as_ = self.address(dst), self.address(src)

        def cp(b: Batch, m: Mask) -> None:
            idx = m.idx
            d = self._gather_addr(b, ad(b), idx)
            s = self._gather_addr(b, as_(b), idx)
            sarr, soff = self._locate(b, ins, "global", idx, s, size)
            darr, doff = self._locate(b, ins, "shared", idx, d, size)
            data = sarr[soff[:, None] + np.arange(size)]
            if rs is not None:
                keep = np.broadcast_to(np.asarray(rs(b)), (b.L,))[idx].astype(np.int64)
                data = np.where(np.arange(size) < keep[:, None], data, 0).astype(np.uint8)
            darr[doff[:, None] + np.arange(size)] = data
            self._check_shared(b, pc, ins, idx, doff, size, write=True)
            self.record(b, pc, ins, "global", "ld", size, idx, s)
            self.record(b, pc, ins, "shared", "st", size, idx, d)
        return cp

    def _d_wmma(self, ins: Instruction, pc: int):
        kind = ins.mods[0]
        shape = next((x for x in ins.mods if x in _WMMA_SHAPES), None)
        if shape is None:
            raise O.unsupported(ins, "only the TF32 m16n16k8 and FP64 m8n8k4 shapes are modelled")
        M, N, K = _WMMA_SHAPES[shape]
        if kind in ("load", "store"):
            frag = ins.mods[1]
            layout = "col" if ins.has("col") else "row"
            t = ins.type
            if t not in _WMMA_TYPES:
                raise O.unsupported(ins)
            rows, cols = {"a": (M, K), "b": (K, N), "c": (M, N), "d": (M, N)}[frag]
            dt = O.dtype_of("f32" if t == "tf32" else t)
            per = rows * cols // 32
            space = self._space_of(ins)
            if kind == "load":
                regs_o, mem_o = ins.operands[0], ins.operands[1]
            else:
                mem_o, regs_o = ins.operands[0], ins.operands[1]
            stride_o = ins.operands[2] if len(ins.operands) > 2 else None
            items = regs_o.items if regs_o.kind == "vec" else (regs_o,)
            if len(items) != per:
                raise O.unsupported(ins, f"expected {per} registers per lane")
            addr = self.address(mem_o)
            rstride = O.reader(stride_o, "u32", self) if stride_o is not None else None
            er, ec = _fragment_layout(shape, frag)
            readers = [O.reader(x, "f32" if t == "tf32" else t, self) for x in items]
            esize = dt.itemsize
            runs = _fragment_runs(er, ec, layout, esize)

            def wmma_mem(b: Batch, m: Mask) -> None:
                act = m.mask.reshape(-1, 32)
                warps = np.flatnonzero(act.any(1))
                if not act[warps].all():
                    raise SimulationError(f"{ins.where()}: wmma needs all 32 lanes of a warp active (.aligned)")
                lanes = (warps[:, None] * 32 + np.arange(32)).ravel()
                base = self._gather_addr(b, addr(b), lanes).reshape(-1, 32)[:, 0]
                ld = np.asarray(rstride(b)).astype(np.int64) if rstride is not None else np.int64(cols if layout ==
                                                                                                    "row" else rows)
                ld = np.broadcast_to(ld, (b.L,))[lanes].reshape(-1, 32)[:, 0] if np.ndim(ld) else \
                    np.full(len(warps), ld)
                elem = (er * ld[:, None, None] + ec) if layout == "row" else (ec * ld[:, None, None] + er)
                a = base[:, None, None] + (elem * esize).astype(np.uint64)  # (warps, 32, per)
                for k in range(per):
                    ak = a[:, :, k].ravel()
                    parts = self._spaces(space, ak)
                    for sp, (pos, sa) in parts.items():
                        sidx = lanes if pos is None else lanes[pos]
                        arr, off = self._locate(b, ins, sp, sidx, sa, esize)
                        if kind == "load":
                            _scatter(b, items[k].name, sidx, self._read(arr, off, esize, 1)[:, 0].view(dt))
                        else:
                            v = np.broadcast_to(np.asarray(readers[k](b)), (b.L,))[sidx].astype(dt)
                            self._write(arr, off, esize, v.view(np.dtype(f"u{esize}"))[:, None])
                        if sp == "shared":
                            self._check_shared(b, pc, ins, sidx, off, esize, write=kind != "load")
                for run in runs:  # traced as the hardware moves it: each contiguous run one access
                    parts = self._spaces(space, a[:, :, run[0]].ravel())
                    for sp, (pos, sa) in parts.items():
                        sidx = lanes if pos is None else lanes[pos]
                        self.record(b, pc, ins, sp, "ld" if kind == "load" else "st", esize * len(run), sidx, sa)
            return wmma_mem
        if kind != "mma":
            raise O.unsupported(ins)
        tys = ins.types
        if tys not in (("f32", "tf32", "tf32", "f32"), ("f64", "f64", "f64", "f64")):
            raise O.unsupported(ins, "only TF32 (f32 accumulate) and FP64 wmma.mma are modelled")
        tf32 = tys[1] == "tf32"
        d_o, a_o, b_o, c_o = ins.operands[:4]
        # the .row/.col layouts of wmma.mma describe how the fragments were loaded; the fragments
        # hold logical elements in the hardware's lane layout whatever the memory layout was
        lay = {f: _fragment_layout(shape, f) for f in ("a", "b", "c")}
        ft = "u32" if tf32 else "f64"
        ra = [O.reader(x, ft, self) for x in a_o.items]
        rb = [O.reader(x, ft, self) for x in b_o.items]
        rc = [O.reader(x, tys[3], self) for x in c_o.items]
        puts = [O.writer(x, self) for x in d_o.items]
        out_dt = O.dtype_of(tys[0])

        def frag(b: Batch, rs, f: str, rows: int, cols: int, bits: bool = False) -> np.ndarray:
            """(warps, rows, cols) float64 matrices from the lanes' fragment registers."""
            x = np.stack([np.broadcast_to(np.asarray(r(b)), (b.L,)) for r in rs], axis=1)  # (L, per)
            if bits:
                x = (x.astype(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)
            X = np.zeros((b.L // 32, rows, cols))
            er, ec = lay[f]
            X[:, er, ec] = x.reshape(-1, 32, x.shape[1])
            return X

        def mma(b: Batch, m: Mask) -> None:
            act = m.mask.reshape(-1, 32)
            if not (act.all(1) | ~act.any(1)).all():
                raise SimulationError(f"{ins.where()}: wmma needs all 32 lanes of a warp active (.aligned)")
            D = np.matmul(frag(b, ra, "a", M, K, tf32), frag(b, rb, "b", K, N, tf32)) + frag(b, rc, "c", M, N)
            er, ec = lay["c"]
            D = D[:, er, ec].astype(out_dt).reshape(b.L, -1)
            for i, p in enumerate(puts):
                p(b, D[:, i], m)
        return mma

    # -- running ---------------------------------------------------------------------------
    # -- straight-line code, regrouped ----------------------------------------------------
    def _straight(self, pc: int) -> tuple[int, list, int]:
        """(end, steps, instruction count) for the straight-line code from `pc` to the next
        control instruction or block boundary; steps are (closure, guard, negated)."""
        n = len(self.kinds)
        leaders = self.leaders
        end = pc
        while end < n and self.kinds[end] == _NORMAL and (end == pc or end not in leaders):
            end += 1
        pcs = list(range(pc, end))
        groups = regroup([self._step(i) for i in pcs]) if FUSE else [[i - pc] for i in pcs]
        steps = []
        for grp in _adjacent_stores(groups, [self._store_signature(i) for i in pcs]):
            members = [pcs[i] for i in grp]
            base = self.fn.body[members[0]].base
            if len(members) < _MIN_FUSED:
                steps.extend((self.ops[i], *self.guards[i]) for i in members)
            elif base in ("ld", "st"):
                steps.append((self._fuse_memory(members), None, False))
            else:
                steps.append((self._fuse_alu(members), None, False))
        run = (end, steps, end - pc)
        self.runs[pc] = run
        return run

    def _regs_of(self, o: Operand) -> list[str]:
        if o.kind == "reg" or (o.kind == "sym" and o.name in self.reg_types):
            return [o.name]
        if o.kind == "vec":
            return [x for it in o.items for x in self._regs_of(it)]
        if o.kind == "mem" and o.base is not None:
            return self._regs_of(o.base)
        return []

    def _step(self, pc: int) -> Step:
        """The scheduler's view of one instruction: what it reads and writes, and whether it may
        move (register-only instructions and plain loads) or run fused with others like it."""
        ins = self.fn.body[pc]
        base = ins.base
        space = self._space_of(ins)
        plain = base in ("ld", "st") and not ins.has(*_ORDERED_LOAD) and space in _STATE_MEMORIES
        clock = any(o.kind == "sreg" and ("clock" in o.name or "timer" in o.name) for o in ins.operands)
        if not (base in _PURE or plain) or clock or not ins.operands:
            return Step(None, frozenset(), frozenset(), fence=True)
        guard = [ins.guard] if ins.guard else []
        if base == "st":  # a state space is a register here: stores to it stay ordered with its loads
            reads = [x for o in ins.operands for x in self._regs_of(o)] + guard
            return Step(None, frozenset(reads), frozenset(["mem:" + space]))
        writes = self._regs_of(ins.operands[0]) + ([ins.dest_pred] if ins.dest_pred else [])
        reads = [x for o in ins.operands[1:] for x in self._regs_of(o)] + guard
        if base == "ld":
            reads.append("mem:" + space)
        return Step(self._signature(ins), frozenset(reads), frozenset(writes))

    def _signature(self, ins: Instruction):
        """Equal for instructions one closure can run stacked; None where the instruction runs alone."""
        if ins.guard or ins.dest_pred:
            return None
        d = ins.operands[0]
        if ins.base == "ld":
            return None if self._space_of(ins) == "param" else self._access_form(ins, ins.operands[1], d)
        if ins.base not in _FUSABLE or d.kind != "reg":
            return None
        names: list[str] = []
        pattern = []
        for o in ins.operands:
            if o.kind == "reg" or (o.kind == "sym" and o.name in self.reg_types):
                if o.name not in names:
                    names.append(o.name)
                pattern.append(("r", self.reg_types[o.name], names.index(o.name)))
            elif o.kind in ("imm", "fimm", "sym"):
                pattern.append((o.kind, o.value, o.size, o.name))
            else:
                return None
        return ("alu", ins.opcode, tuple(pattern))

    def _fuse_fma32(self, pcs: list[int]):
        """A group of `fma.rn.f32 d, a, b, c` (the FFMA tile of a GEMM): each product exact in
        float64, plus c, rounded once to float32, as `ops._fma`; the products of the distinct a and
        b rows are formed by broadcasting where the group is their outer product, and the sum is
        written in place over accumulators that are still the rows this group wrote last time."""
        body = self.fn.body
        a_rows, b_rows, c_rows, dests = ([body[pc].operands[i].name for pc in pcs] for i in (1, 2, 3, 0))
        A, B, C, D = _rows(a_rows), _rows(b_rows), _rows(c_rows), _rows(dests)
        G = len(pcs)
        outer = _outer(A, B)
        accumulate = c_rows == dests
        generic = self._fuse_generic(pcs)
        state: dict = {"last": None, "rows": (), "t": None, "t2": None}

        def fused(b: Batch, m: Mask) -> None:
            if not m.full:
                return generic(b, m)
            regs = b.regs
            t = state["t"]
            if t is None or t.shape != (G, b.L):
                t = state["t"] = np.empty((G, b.L))
                state["t2"] = np.empty((G, b.L))
            x = _stack(regs, (A[0], None, len(A[0]))).astype(np.float64)
            y = _stack(regs, (B[0], None, len(B[0]))).astype(np.float64)
            if outer is not None:
                p, q, swap = outer
                xs, ys = (x[:, None, :], y[None, :, :]) if not swap else (x[None, :, :], y[:, None, :])
                np.multiply(xs, ys, out=t.reshape(p, q, -1))
            else:
                np.take(x, A[1] if A[1] is not None else np.arange(G), axis=0, out=t)
                np.multiply(t, np.take(y, B[1] if B[1] is not None else np.arange(G), axis=0, out=state["t2"]), out=t)
            last = state["last"]
            same = (accumulate and last is not None
                    and all(map(operator.is_, map(regs.__getitem__, dests), state["rows"])))
            np.add(t, last if same else _stack(regs, C), out=t)
            if same:
                np.copyto(last, t, casting="unsafe")  # the registers are rows of `last`: updated in place
                return
            out = t.astype(np.float32)
            rows = tuple(out)
            for name, r in zip(dests, rows):
                regs[name] = r
            state["last"], state["rows"] = out, rows
        return fused

    def _store_signature(self, pc: int):
        """Equal for stores that may run as one when the schedule puts them side by side (they then
        write in their scheduled order, which keeps program order per state space)."""
        ins = self.fn.body[pc]
        if ins.base != "st" or ins.guard or ins.has(*_ORDERED_LOAD) or self._space_of(ins) not in (
                "shared", "global", "local"):
            return None
        return self._access_form(ins, *ins.operands[:2])

    def _access_form(self, ins: Instruction, mem: Operand, data: Operand):
        """(base, opcode, address register type, data register types) of a load or store addressed
        by a register plus an offset with registers for data; None for any other form."""
        items = data.items if data.kind == "vec" else (data,)
        if mem.kind != "mem" or mem.base is None or mem.base.kind != "reg" or any(x.kind != "reg" for x in items):
            return None
        return (ins.base, ins.opcode, self.reg_types[mem.base.name], tuple(self.reg_types[x.name] for x in items))

    def _fuse_alu(self, pcs: list[int]):
        """One closure for a group of register-only instructions: the first member's closure runs
        on the members' registers stacked row by row (a row of one where all name the same)."""
        body = self.fn.body
        if _is_plain_fma32(body[pcs[0]]):
            return self._fuse_fma32(pcs)
        return self._fuse_generic(pcs)

    def _fuse_generic(self, pcs: list[int]):
        body = self.fn.body
        op0 = self.ops[pcs[0]]
        ins0 = body[pcs[0]]
        slots: dict[str, list[str]] = {}
        for pos, o in enumerate(ins0.operands):
            if o.kind in ("reg", "sym") and o.name in self.reg_types and o.name not in slots:
                slots[o.name] = [body[pc].operands[pos].name for pc in pcs]
        dest = ins0.operands[0].name
        dests = slots.pop(dest)
        sources = [(k, _rows(v)) for k, v in slots.items()]
        dest_rows = _rows(dests)
        dest_read = any(o.kind == "reg" and o.name == dest for o in ins0.operands[1:])
        G = len(pcs)
        last: list = [None, ()]  # the stacked result this closure wrote last, and its rows

        def fused(b: Batch, m: Mask) -> None:
            regs = b.regs
            stacked = {}
            for k, rows in sources:
                stacked[k] = _stack(regs, rows)
            if dest_read or not m.full:
                # accumulators (an fma tile in a loop) are still the rows written last time: no copy
                same = last[0] is not None and all(map(operator.is_, map(regs.__getitem__, dests), last[1]))
                stacked[dest] = last[0] if same else _stack(regs, dest_rows)
            else:
                stacked[dest] = np.empty((G, b.L), regs[dests[0]].dtype)
            op0(_Stacked(stacked, b.L), m)
            out = stacked[dest]
            if m.full:
                rows = tuple(out)
                for x, r in zip(dests, rows):
                    regs[x] = r
                last[0], last[1] = out, rows
            else:
                for i, x in enumerate(dests):
                    regs[x][...] = out[i]
        return fused

    def _fuse_memory(self, pcs: list[int]):
        """One closure for a group of loads (or of adjacent stores) of one form: addresses stacked,
        bounds checked once, memory read or written row by row in order; the race checks and
        trace rows are done for the group, and member by member only where there is a finding."""
        body = self.fn.body
        ins0 = body[pcs[0]]
        store = ins0.base == "st"
        space = self._space_of(ins0)
        dt = O.dtype_of(ins0.type)
        esize = dt.itemsize
        udt = np.dtype(f"u{esize}")
        regs_of = [[x.name for x in (o.items if o.kind == "vec" else (o,))]
                   for o in (body[pc].operands[1 if store else 0] for pc in pcs)]
        n = len(regs_of[0])
        size = esize * n
        addr = [body[pc].operands[0 if store else 1] for pc in pcs]
        bases = _rows([o.base.name for o in addr])
        offs = np.array([o.offset & 0xFFFFFFFFFFFFFFFF for o in addr], np.uint64)[:, None]
        readers = [[O.reader(Operand("reg", name=x), ins0.type, self) for x in names] for names in regs_of]
        singles = [self.ops[pc] for pc in pcs]
        G = len(pcs)
        label = "global" if space == "const" else space

        def fused(b: Batch, m: Mask) -> None:
            regs = b.regs
            A = _stack(regs, bases)
            A = (A.view(np.uint64) if A.itemsize == 8 else A.astype(np.uint64)) + offs  # (G, lanes)
            if m.full:
                idx, lanes = _lanes(b, 1), _lanes(b, G)
            else:
                idx = m.idx
                A = A[:, idx]
                lanes = np.tile(idx, G)
            a = A.ravel()
            try:
                if space in ("global", "const"):  # each member may use its own allocation
                    b.gmem.check_rows(A, size, f"{ins0.where()} `{ins0.text}`")
                    arr, off = b.gmem.heap, (a - np.uint64(HEAP_BASE)).astype(np.int64)
                else:
                    arr, off = self._locate(b, ins0, space, lanes, a, size, G if m.full else 0)
            except MemoryFault:
                for op in singles:  # in order, as unfused: the first faulting member names itself
                    op(b, m)
                raise
            na = len(idx)
            if space == "shared" and self.race is not None:
                self._check_shared_group(b, pcs, idx, lanes, off, size, store)
            if b.traced_warps is not None:
                self.record_group(b, pcs, label, "st" if store else "ld", size, idx, A)
            if store:
                for k in range(G):
                    vals = np.empty((na, n), udt)
                    for i, r in enumerate(readers[k]):
                        v = r(b)
                        vals[:, i] = (v if m.full else v[idx]).view(udt)
                    self._write(arr, off[k * na:(k + 1) * na], esize, vals)
                return
            vals = self._read(arr, off, esize, n).view(dt)
            for k in range(G):
                sl = slice(k * na, (k + 1) * na)
                for i, x in enumerate(regs_of[k]):
                    v = vals[sl, i]
                    if m.full and regs[x].dtype == dt:
                        regs[x] = v
                    else:
                        _scatter(b, x, idx, v)
        return fused

    def run_batch(self, b: Batch, stats: dict) -> None:
        body = self.fn.body
        n = len(body)
        kinds, guards, targets, ipdom, runs = self.kinds, self.guards, self.targets, self.cfg.ipdom, self.runs
        stack = [Entry(0, Mask.of(b.valid), EXIT)]
        self.stack = stack
        regs = b.regs
        ti = wi = 0
        W = b.L // 32
        while stack:
            e = stack[-1]
            pc = e.pc
            m = e.m
            reconv = e.reconv
            if pc == reconv or m.count == 0:
                stack.pop()
                continue
            if pc >= n:
                self._kill(b, stack, m.mask)
                continue
            cnt, wc = m.count, _warps(m, W)
            while kinds[pc] == _NORMAL:  # straight-line code: no stack work between instructions
                run = runs.get(pc) or self._straight(pc)
                end, steps, k = run
                ti += cnt * k
                wi += wc * k
                for op, g, neg in steps:
                    if g is None:
                        op(b, m)
                    else:
                        p = regs[g]
                        gm = m.mask & ~p if neg else m.mask & p
                        if gm.any():
                            op(b, Mask.of(gm))
                pc = end
                if pc == reconv or pc >= n:
                    break
            e.pc = pc
            if pc == reconv or pc >= n:
                continue
            ti += cnt
            wi += wc
            k = kinds[pc]
            g, neg = guards[pc]
            if k == _BRA:
                tgt = targets[pc]
                if g is None:
                    e.pc = tgt
                    continue
                p = regs[g]
                taken = m.mask & ~p if neg else m.mask & p
                nt = m.mask & ~taken
                if not taken.any():
                    e.pc = pc + 1
                elif not nt.any():
                    e.pc = tgt
                else:
                    r = ipdom[pc]
                    e.pc = r
                    stack.append(Entry(pc + 1, Mask.of(nt), r))
                    stack.append(Entry(tgt, Mask.of(taken), r))
                continue
            # exit / ret
            if g is None:
                self._kill(b, stack, m.mask)
            else:
                p = regs[g]
                dead = m.mask & ~p if neg else m.mask & p
                e.pc = pc + 1
                if dead.any():
                    self._kill(b, stack, dead)
            if wi > MAX_WARP_INSTRUCTIONS:
                raise SimulationError(f"more than {MAX_WARP_INSTRUCTIONS} warp instructions: an endless loop?")
        stats["thread_instructions"] += ti
        stats["warp_instructions"] += wi

    @staticmethod
    def _kill(b: Batch, stack: list[Entry], dead: np.ndarray) -> None:
        dead = dead.copy()
        b.alive &= ~dead
        for e in stack:
            if (e.m.mask & dead).any():
                e.m = Mask.of(e.m.mask & ~dead)

    def launch(self, params: np.ndarray, grid: tuple[int, int, int], block: tuple[int, int, int],
               dynamic_shared: int, run_blocks=None, trace_blocks=None, trace: bool = True, check: bool = True,
               lanes_per_batch: int = 1 << 15) -> tuple[Trace, dict, list[Finding]]:
        """Run the grid (or the blocks `run_blocks`), tracing `trace_blocks` (default: those run)."""
        gx, gy, gz = grid
        total = gx * gy * gz
        ids = np.arange(total, dtype=np.int64) if run_blocks is None else np.unique(np.asarray(run_blocks, np.int64))
        if len(ids) and (ids.min() < 0 or ids.max() >= total):
            raise LaunchError(f"run_blocks names block {int(ids.max())}, but the grid has {total} blocks")
        traced = None
        if trace:
            traced = ids if trace_blocks is None else np.unique(np.asarray(trace_blocks, np.int64))
        threads = block[0] * block[1] * block[2]
        lpb = (threads + 31) // 32 * 32
        shared_size = _align(max(self.dynamic_base + dynamic_shared if dynamic_shared else self.static_shared, 1), 16)
        per_batch = max(1, lanes_per_batch // lpb)
        self.trace_rows = {}
        self.findings = {}
        stats = {"thread_instructions": 0, "warp_instructions": 0, "blocks_run": int(len(ids)),
                 "blocks_total": int(total)}
        t0 = time.perf_counter()
        with np.errstate(all="ignore"):
            for s in range(0, len(ids), per_batch):
                chunk = ids[s:s + per_batch]
                b = new_batch(self.reg_types, chunk, grid, block, params, self.gmem, shared_size, self.local_size,
                              dynamic_shared)
                if traced is not None:
                    tw = np.isin(chunk, traced)
                    b.traced_warps = np.repeat(tw, lpb // 32) if tw.any() else None
                self.race = None
                if check and (self.static_shared or dynamic_shared):
                    nw = len(b.shared) // 4
                    self.race = {"epoch": np.zeros(b.nb, np.int64), "w_stamp": np.full(nw, -1, np.int64),
                                 "r_stamp": np.full(nw, -1, np.int64), "w_pc": np.zeros(nw, np.int32),
                                 "reads": [], "dirty": False, "all_written": False}
                self.batch = b
                self.run_batch(b, stats)
        stats["wall_seconds"] = time.perf_counter() - t0
        stats["thread_instructions_per_second"] = stats["thread_instructions"] / max(stats["wall_seconds"], 1e-9)
        events = []
        # every event's addresses in one allocation: one large block is mapped with huge pages,
        # where a block per event pays a page fault per 4 KB (3x slower for a 40 MB trace)
        counts = {key: sum(len(r[3]) for r in rows) for key, rows in self.trace_rows.items()}
        arena = np.empty((sum(counts.values()), 32), np.uint64)
        at = 0
        for (pc, space, op, size), rows in self.trace_rows.items():
            ins = self.fn.body[pc]
            n = counts[pc, space, op, size]
            addrs = np.concatenate([r[3] for r in rows], out=arena[at:at + n])
            at += n
            if all(r[2] is rows[0][2] and r[0] is rows[0][0] for r in rows):  # one set of warps and masks
                blocks, warps, masks = (np.tile(x, len(rows)) for x in rows[0][:3])
            else:
                blocks, warps, masks = (np.concatenate([r[i] for r in rows]) for i in range(3))
            events.append(MemEvent(pc, ins.line, str(ins.file), ins.text, space, op, size,
                                   blocks.astype(np.int64, copy=False), warps, masks, addrs,
                                   self._space_of(ins) == "generic"))
        events.sort(key=lambda e: (e.pc, e.space))
        tr = Trace(grid, block, events, None if traced is None or (run_blocks is None and trace_blocks is None)
                   else [int(x) for x in traced])
        self.trace_rows = {}
        return tr, stats, list(self.findings.values())


def _words(flat: np.ndarray, k: int) -> np.ndarray:
    """The 4-byte word indices an access of k words at byte offsets `flat` covers."""
    w0 = flat >> 2
    return (w0[:, None] + np.arange(k)).ravel() if k > 1 else w0


def _scatter(b: Batch, name: str, idx: np.ndarray, v: np.ndarray) -> None:
    """Write loaded values into register `name` at lanes `idx` (reinterpreted, or extended/truncated)."""
    r = b.regs[name]
    r[idx] = v.view(r.dtype) if v.dtype.itemsize == r.dtype.itemsize else v.astype(r.dtype)


def _fragment_layout(shape: str, frag: str) -> tuple[np.ndarray, np.ndarray]:
    """(row, col) of the element k that lane l holds, both (32, elements): the tensor cores' own
    layouts (the PTX ISA's mma.m16n8k8 .tf32 fragments, m16n16k8 being two n-halves; mma.m8n8k4
    .f64), so that a wmma.load or store touches the addresses the hardware touches."""
    lane = np.arange(32)[:, None]
    g, t = lane >> 2, lane & 3  # group of four lanes, thread in group
    if shape == "m8n8k4":
        if frag == "a":
            return g, t
        if frag == "b":
            return t, g
        return np.broadcast_to(g, (32, 2)), 2 * t + np.arange(2)
    if frag == "a":  # 16x8
        return g + np.array([0, 8, 0, 8]), t + np.array([0, 0, 4, 4])
    if frag == "b":  # 8x16
        return t + np.array([0, 4, 0, 4]), g + np.array([0, 0, 8, 8])
    return g + np.array([0, 0, 8, 8, 0, 0, 8, 8]), 2 * t + np.array([0, 1, 0, 1, 8, 9, 8, 9])  # 16x16


def _fragment_runs(er: np.ndarray, ec: np.ndarray, layout: str, esize: int) -> list[list[int]]:
    """The fragment's elements grouped as one lane moves them in one access: consecutive
    elements adjacent in memory, up to 16 bytes, aligned to the run's size (wmma's pointer is
    32-byte aligned and its stride a multiple of 16 bytes)."""
    minor, major = (ec, er) if layout == "row" else (er, ec)
    runs: list[list[int]] = []
    for k in range(er.shape[1]):
        r = runs[-1] if runs else None
        if (r is not None and (len(r) + 1) * esize <= 16 and np.array_equal(major[:, k], major[:, r[0]])
                and np.array_equal(minor[:, k], minor[:, r[-1]] + 1)):
            r.append(k)
        else:
            runs.append([k])
    out = []
    for r in runs:  # split a run whose start is not aligned to its size
        while r:
            n = len(r)
            while n > 1 and ((minor[:, r[0]] * esize) % (n * esize)).any():
                n //= 2
            out.append(r[:n])
            r = r[n:]
    return out


def _is_plain_fma32(ins: Instruction) -> bool:
    return (ins.base in ("fma", "mad") and ins.type == "f32" and not ins.has("ftz", "sat", "rz", "rm", "rp")
            and all(o.kind == "reg" for o in ins.operands[:4]))


def _outer(A: tuple, B: tuple) -> tuple[int, int, bool] | None:
    """(p, q, swapped) where row g of a group multiplies distinct row g // q of one operand by
    distinct row g % q of the other (an outer product), else None."""
    (ua, ia, g), (ub, ib, _) = A, B
    ia = np.arange(g) if ia is None else ia
    ib = np.arange(g) if ib is None else ib
    p, q = len(ua), len(ub)
    if p * q != g:
        return None
    i = np.arange(g)
    if np.array_equal(ia, i // q) and np.array_equal(ib, i % q):
        return p, q, False
    if np.array_equal(ib, i // p) and np.array_equal(ia, i % p):
        return q, p, True
    return None


def _adjacent_stores(groups: list[list[int]], sigs: list) -> list[list[int]]:
    """Merge side-by-side single stores of one signature into one group (kept in order)."""
    out: list[list[int]] = []
    for g in groups:
        if len(g) == 1 and sigs[g[0]] is not None and out and all(sigs[i] == sigs[g[0]] for i in out[-1]):
            out[-1] = out[-1] + g
        else:
            out.append(list(g))
    return out


def _rows(names: list[str]) -> tuple[list[str], np.ndarray | None, int]:
    """How to stack registers `names` row by row: (distinct names, row of each name, rows)."""
    uniq = list(dict.fromkeys(names))
    index = None if len(uniq) == len(names) else np.array([uniq.index(x) for x in names])
    return uniq, index, len(names)


def _stack(regs: dict, rows: tuple[list[str], np.ndarray | None, int]) -> np.ndarray:
    """The registers stacked (G, lanes); a single (1, lanes) row, broadcast, where all are one register."""
    uniq, index, g = rows
    if len(uniq) == 1:
        return regs[uniq[0]][None]
    u = np.concatenate([regs[x] for x in uniq]).reshape(len(uniq), -1)
    return u if index is None else u[index]


def _lanes(b: Batch, g: int) -> np.ndarray:
    """Every lane index of the batch, `g` times over (cached on the batch)."""
    key = ("lanes", g)
    v = b.cache.get(key)
    if v is None:
        v = b.cache[key] = np.tile(np.arange(b.L, dtype=np.int64), g)
    return v


def _warps(m: Mask, W: int) -> int:
    w = getattr(m, "_warps", None)
    if w is None:
        w = W if m.full else int(m.mask.reshape(W, 32).any(1).sum())
        m._warps = w
    return w


def _ballot(pred: np.ndarray, act: np.ndarray) -> np.ndarray:
    """(W,) uint32: bit l set where lane l of the warp has `pred`."""
    bits = np.packbits((pred & act).reshape(-1, 32), axis=1, bitorder="little")
    return bits.view("<u4").ravel().astype(np.uint32)


def _atomic(view: np.ndarray, e: np.ndarray, opn: str, args: list[np.ndarray], dt: np.dtype) -> np.ndarray:
    """Apply an atomic op for lanes in order (a legal serialization); returns each lane's old value."""
    if opn == "add":
        order = np.argsort(e, kind="stable")
        es, vs = e[order], args[0][order]
        start = np.r_[True, es[1:] != es[:-1]]
        grp = np.cumsum(start) - 1
        firsts = np.flatnonzero(start)
        base = view[es[firsts]]
        if dt.kind == "f":  # the running sums, accumulated in the element type, in lane order
            old_s = np.empty(len(es), dt)
            acc = base.copy()
            ends = np.r_[firsts[1:], len(es)]
            for gi, (s0, s1) in enumerate(zip(firsts, ends)):
                run = np.cumsum(np.r_[acc[gi], vs[s0:s1]].astype(dt), dtype=dt)
                old_s[s0:s1] = run[:-1]
                acc[gi] = run[-1]
            view[es[firsts]] = acc
        else:
            cs = np.cumsum(vs, dtype=dt)
            before = np.r_[dt.type(0), cs[:-1]].astype(dt)
            gstart = before[firsts]
            old_s = (base[grp] + (before - gstart[grp])).astype(dt)
            view[es[firsts]] = (base + (np.r_[cs[firsts[1:] - 1], cs[-1]] - gstart)).astype(dt)
        old = np.empty(len(e), dt)
        old[order] = old_s
        return old
    old = np.empty(len(e), dt)
    remaining = np.arange(len(e))
    while len(remaining):
        _, first = np.unique(e[remaining], return_index=True)
        sel = remaining[first]
        ei = e[sel]
        cur = view[ei].copy()
        old[sel] = cur
        a0 = args[0][sel]
        if opn == "exch":
            new = a0
        elif opn == "cas":
            new = np.where(cur == a0, args[1][sel], cur)
        elif opn == "min":
            new = np.minimum(cur, a0)
        elif opn == "max":
            new = np.maximum(cur, a0)
        elif opn == "and":
            new = cur & a0
        elif opn == "or":
            new = cur | a0
        elif opn == "xor":
            new = cur ^ a0
        elif opn == "inc":
            new = np.where(cur >= a0, dt.type(0), cur + dt.type(1))
        elif opn == "dec":
            new = np.where((cur == 0) | (cur > a0), a0, cur - dt.type(1))
        else:
            raise UnsupportedInstruction(f"atomic .{opn}")
        view[ei] = new
        remaining = np.delete(remaining, first)
    return old
