"""The checker of one decoded kernel: where the simulator's accesses and syncs are seen.

A checked program (execute.Program(..., checked=True), built only when a launch asks for
`check="full"`) differs from the plain one in three places, so the plain one costs nothing:
its layout's `locate` -- which every load, store, atomic, cp.async and wmma access calls
before touching memory -- is this checker's (bounds, alignment, races, initialisation);
its barrier, warp-sync and fence closures are wrapped (`sync`); and its loads and stores run
one instruction at a time (fused groups bypass `locate`). Traces and counters are those of
the plain program -- the same instructions run in the same order -- but for global addresses:
a checked launch puts guard zones between its arrays (api.GUARD), so that an overrun into the
next array is out of bounds rather than a valid access.
"""
from __future__ import annotations

import time
from typing import Callable

import numpy as np

from ..calls import AssertionFailed, BadFree
from ..errors import SimulationError
from ..memory import HEAP_BASE, GlobalMemory
from ..operands import dtype_of, reader
from ..spaces import Layout, shared_base
from ..state import Batch
from .bounds import SINK, alignment, global_bad, nearest, report_bounds, signed
from .findings import Finding, Findings, Side, site
from .order import NEVER, Clocks, Visibility
from .races import Access, RaceCheck, init_check
from .shadow import Shadow
from .sync import FULL, Pending, intrinsic, report_pending, wrap_barrier, wrap_fence, wrap_warp

SHADOW_BUDGET = 4 << 30  # bytes of shadow memory a launch may take
_STRONG_LD = ("volatile", "relaxed", "acquire", "mmio")
_STRONG_ST = ("volatile", "relaxed", "release", "mmio")
_INT32 = (1 << 31) - 2


class CheckStopped(SimulationError):
    """The check was stopped: too long (a spin-wait the simulator cannot interleave?) or too large."""


class CheckedLayout(Layout):
    """The layout whose `locate` is the checker's (see Checker.locate)."""

    checker: "Checker"

    def locate(self, b, ins, space, idx, a, size, rows=0):
        return self.checker.locate(b, ins, space, idx, a, size, rows)

    def plain_locate(self, b, ins, space, idx, a, size, rows=0):
        return Layout.locate(self, b, ins, space, idx, a, size, rows)


class Checker:
    """Findings of every launch of one kernel; configured by `limit`, `progress`, `timeout` and,
    per launch, `unwritten` (global ranges the host did not write) and `known` (ranges whose
    contents it knows: allocated for the launch)."""

    def __init__(self, module, fn, symbols: dict[str, int]):
        self.body = fn.body
        self.layout = CheckedLayout(module, fn, symbols)
        self.layout.checker = self
        self.pcs = {id(ins): pc for pc, ins in enumerate(self.body)}
        self.exits: frozenset[int] = frozenset()
        self.limit = 50  # findings kept per kind
        self.progress: Callable[[int, int, float], None] | None = None  # (blocks done, blocks, seconds)
        self.timeout: float | None = None  # seconds
        self.unwritten: list[tuple[int, int]] = []  # (address, bytes): allocations the host did not write
        self.known: list[tuple[int, int]] | None = None  # (address, bytes) whose initial contents are known
        self.guards: set[int] = set()  # bases of the guard zones between a launch's arrays
        self.notes: list[str] = []
        self._kinds: dict[tuple[int, str], tuple[str, bool, bool, bool]] = {}
        self._values: dict[int, Callable] = {}
        self.sink = 0
        self.gmem: GlobalMemory | None = None
        self.findings = Findings((1, 1, 1), (1, 1, 1), 32)

    # -- wiring --------------------------------------------------------------------------------
    def instrument(self, ops: list, ctx) -> None:
        """Wrap the barrier, warp-sync and fence closures of the program in place."""
        self.exits, self.ctx = ctx.exits, ctx
        for pc, ins in enumerate(self.body):
            if ops[pc] is None:
                continue
            if ins.base in ("bar", "barrier"):
                ops[pc] = wrap_warp(ops[pc], ins, pc, self, ctx) if ins.has("warp") else \
                    wrap_barrier(ops[pc], ins, pc, self)
            elif ins.base in ("shfl", "vote", "redux", "match"):
                ops[pc] = wrap_warp(ops[pc], ins, pc, self, ctx)
            elif ins.base in ("membar", "fence"):
                ops[pc] = wrap_fence(ops[pc], ins, pc, self)
            elif ins.base == "call" and ins.operands[0].name == "__assertfail":
                ops[pc] = self._wrap_assert(ops[pc], ins, pc)
            elif ins.base == "call" and ins.operands[0].name == "free":
                ops[pc] = self._wrap_free(ops[pc], ins, pc)
            elif ins.base == "trap":
                ops[pc] = self._trap(ins, pc)

    def _wrap_assert(self, op, ins, pc: int):
        """A failed `assert` is a finding, and the lanes that failed it end there: the GPU stops the whole
        launch at the first, the checker goes on to find the rest."""
        def checked(b: Batch, m) -> np.ndarray:
            try:
                op(b, m)
            except AssertionFailed as e:
                self.findings.add(("assert", site(ins, pc)), lambda: Finding(
                    "assert", f"Assertion `{e.condition}` failed; on the GPU the launch stops at the first failing "
                    f"thread, and later calls fail with cudaErrorAssert",
                    Side(pc, str(ins.file), ins.line, ins.text, "assert")), self.clocks.gid[m.idx])
            return m.mask
        return checked

    def _wrap_free(self, op, ins, pc: int):
        """A free() of a pointer malloc did not return (or returned and it was freed) is a finding; the lanes
        go on, as the checker does past every finding."""
        def checked(b: Batch, m) -> None:
            try:
                op(b, m)
            except BadFree as e:
                self.findings.add(("malloc-free", site(ins, pc)), lambda: Finding(
                    "malloc-free", f"{e.what}: the device heap's state is undefined from here",
                    Side(pc, str(ins.file), ins.line, ins.text, "free"),
                    hint="free each pointer malloc returned once, and nothing else"), self.clocks.gid[e.lanes])
        return checked

    def _trap(self, ins, pc: int):
        """A `trap` that runs is a finding, and its lanes end there: the GPU ends the whole launch at the first,
        the checker goes on to find the rest."""
        def trapped(b: Batch, m) -> np.ndarray:
            self.findings.add(("trap", site(ins, pc)), lambda: Finding(
                "trap", "the kernel executed `trap` (__trap(), or a check the compiler made one); on the GPU the "
                "launch ends at the first, and it and later calls fail with cudaErrorLaunchFailure",
                Side(pc, str(ins.file), ins.line, ins.text, "trap")), self.clocks.gid[m.idx])
            return m.mask
        return trapped

    def tick(self) -> int:
        """The next event time; stops the run past the time limit."""
        self.now += 1
        if not self.now & 0x3FF:
            if self.now >= _INT32:
                raise CheckStopped("the launch has more events than the checker counts (2^31): check a smaller launch")
            t = time.perf_counter()
            if self.progress is not None and t - self.last_progress >= 2.0:
                self.last_progress = t
                self.progress(self.done, self.blocks, t - self.t0)
            if self.deadline is not None and t > self.deadline:
                raise CheckStopped(f"the check ran past its time limit of {self.timeout:g} s: a loop that never ends, "
                                   f"or one that waits on another thread of its own block (the simulator runs a "
                                   f"block's threads as one group, the waiters first); or the launch is too large "
                                   f"(check a smaller size)")
        return self.now

    # -- a launch ------------------------------------------------------------------------------
    def start_launch(self, gmem: GlobalMemory, grid, block, lpb: int, nblocks: int) -> None:
        self.gmem = gmem
        self.findings = Findings(grid, block, lpb, self.limit)
        self.notes = []
        self.now = 0
        self.t0 = time.perf_counter()
        self.deadline = None if self.timeout is None else self.t0 + self.timeout
        self.blocks, self.done, self.last_progress = nblocks, 0, self.t0
        threads = grid[0] * grid[1] * grid[2] * lpb
        if threads >= _INT32:
            raise CheckStopped(f"the launch has {threads:,} threads; the checker counts up to 2^31: check a smaller one")
        self.sink = gmem.alloc(SINK, "cudasim.check's sink")
        self.off_limits = self.guards | {self.sink}
        nbytes = gmem.top - HEAP_BASE
        if nbytes // 4 * Shadow.nbytes_per_word() + nbytes > SHADOW_BUDGET:
            raise CheckStopped(f"checking {nbytes / 2**20:,.0f} MiB of global memory needs more than "
                               f"{SHADOW_BUDGET >> 30} GiB of shadow memory: check a smaller size")
        init = None
        if self.unwritten:
            init = np.ones(nbytes, bool)
            for addr, n in self.unwritten:
                init[addr - HEAP_BASE:addr - HEAP_BASE + n] = False
        self.gshadow = Shadow((nbytes + 3) // 4, init)
        self.vis = Visibility(lpb)
        self.races = RaceCheck(self.findings, self.body, lpb, self._in_heap)
        self.pending: dict[tuple[int, str, int], Pending] = {}
        self.unknown_read: set[str] = set()

    def _in_heap(self, address: int) -> bool:
        heap = getattr(self.gmem, "device_heap", None)
        return heap is not None and bool(heap.contains(np.array([address], np.uint64))[0])

    def start_batch(self, b: Batch) -> None:
        self.clocks = Clocks(b)
        n = b.nb * b.shared_size
        self.shared_sink = len(b.shared)
        b.shared = np.concatenate([b.shared, np.zeros(SINK, np.uint8)])
        self.local_sink = len(b.local)
        b.local = np.concatenate([b.local, np.zeros(SINK, np.uint8)])
        self.sshadow = Shadow(n // 4, np.zeros(n, bool)) if n else None

    def end_batch(self, b: Batch) -> None:
        for (w, opkey, mval), p in sorted(self.pending.items(), key=lambda kv: kv[1].pc):
            report_pending(self, p, self.body[p.pc], intrinsic(self.body[p.pc]))
        self.pending = {}
        self.done += b.nb

    def end_launch(self) -> list[Finding]:
        if self.unknown_read:
            names = sorted(self.unknown_read)
            self.notes.append(f"global memory not allocated for this launch ({', '.join(names[:3])}"
                              f"{', ...' if len(names) > 3 else ''}) is taken as initialized: the checker cannot "
                              f"know what wrote it before the launch")
        for kind, n in sorted(self.findings.dropped.items()):
            self.notes.append(f"{n} more {kind} finding(s) not kept (the limit is {self.limit} per kind)")
        self.release()
        return self.findings.sorted()

    def release(self) -> None:
        """Give back the sink allocation (also where a launch stopped with an error)."""
        if self.sink and self.gmem is not None:
            try:
                self.gmem.free(self.sink)
            except ValueError:
                pass
            self.sink = 0

    # -- every access --------------------------------------------------------------------------
    def _kind(self, ins, pc: int, space: str) -> tuple[str, bool, bool, bool]:
        """(read | write | atomic, strong, acquires, releases) of an instruction's access to `space`."""
        key = (pc, space)
        k = self._kinds.get(key)
        if k is None:
            base = ins.base
            glob = space == "global"
            if base in ("atom", "red"):
                k = ("atomic", True, base == "atom", ins.has("release", "acq_rel"))
            elif base in ("ld", "ldu"):
                strong = glob and ins.has(*_STRONG_LD)
                k = ("read", strong, strong, False)
            elif base == "st":
                strong = glob and ins.has(*_STRONG_ST)
                k = ("write", strong, False, ins.has("release"))
            elif base == "cp":
                k = ("write", False, False, False) if space == "shared" else ("read", False, False, False)
            elif base == "wmma":
                k = ("read", False, False, False) if ins.has("load") else ("write", False, False, False)
            else:
                k = ("read", False, False, False)
            self._kinds[key] = k
        return k

    def locate(self, b: Batch, ins, space: str, idx: np.ndarray, a: np.ndarray, size: int, rows: int = 0):
        """Layout.locate, checked: bad lanes reported and sent to a sink, the others' accesses checked."""
        pc = self.pcs[id(ins)]
        if space not in ("global", "const", "shared", "local", "bad"):
            return self.layout.plain_locate(b, ins, space, idx, a, size, rows)
        op, strong, acq, rel = self._kind(ins, pc, "generic" if space == "bad" else space)
        gid = self.clocks.gid
        if space in ("global", "const"):
            gmem = b.gmem
            bad, mis = global_bad(gmem, a, size, self.off_limits)
            heap = getattr(gmem, "device_heap", None)
            if heap is not None and (inheap := heap.contains(a)).any():
                # malloc's blocks are allocations of their own, as compute-sanitizer keeps them
                wrong = inheap.copy()
                wrong[inheap] = ~heap.holds(a[inheap], size)
                if wrong.any():
                    j = int(np.flatnonzero(wrong)[0])
                    report_bounds(self.findings, "out-of-bounds", "global", pc, ins, size, op,
                                  gid[idx[wrong]], int(a[j]), heap.describe(int(a[j]), size))
                bad = (bad & ~inheap) | wrong  # the heap's reported here, the rest's below
                mis = mis & ~wrong
            else:
                wrong = np.zeros(len(a), bool)
            off = (a - np.uint64(HEAP_BASE)).astype(np.int64)
            if bad.any() or mis.any():
                self._global_faults(pc, ins, idx, a, size, op, bad & ~wrong, mis, space)
                off[bad | mis] = self.sink - HEAP_BASE
                keep = ~(bad | mis)
                idx_ok, off_ok = idx[keep], off[keep]
            else:
                idx_ok, off_ok = idx, off
            if space == "global" and len(idx_ok):
                self._access(b, self.gshadow, 0, pc, ins, "global", idx_ok, off_ok, size, op, strong, acq, rel,
                             gmem.heap)
            return gmem.heap, off
        if space == "shared":
            L = self.layout
            limit = L.dynamic_base + b.dynamic_shared if b.dynamic_shared else L.static_shared
            bad = a > np.uint64(limit - size) if limit >= size else np.ones(len(a), bool)
            mis = ~bad & ((a & np.uint64(alignment(size) - 1)) != 0)
            flat = shared_base(b, idx, rows) + a.astype(np.int64)
            if bad.any() or mis.any():
                for kind, sel in (("out-of-bounds", bad), ("misaligned", mis)):
                    if sel.any():
                        s = np.flatnonzero(sel)
                        first = int(a[s[0]])
                        detail = (f"{first + size - limit} bytes past the end of the block's {limit} bytes of shared "
                                  f"memory" if kind == "out-of-bounds" and first < (1 << 62) else
                                  f"before the start of the block's {limit} bytes of shared memory (a negative index)"
                                  if kind == "out-of-bounds" else f"the offset must be a multiple of {alignment(size)}")
                        unsized = (kind == "out-of-bounds" and not b.dynamic_shared and L.extern_shared
                                   and L.static_shared <= first < (1 << 62))  # into extern arrays the launch gave 0
                        report_bounds(self.findings, kind, "shared", pc, ins, size, op, gid[idx[s]], first, detail,
                                      {"name": "shared memory of the block", "base": 0, "size": limit}, signed(first),
                                      "give the launch its dynamic shared memory, --shared BYTES (the <<<..., BYTES>>> "
                                      "of CUDA): extern __shared__ arrays get only the bytes a launch gives them"
                                      if unsized else None)
                flat = flat.copy()
                flat[bad | mis] = self.shared_sink
                keep = ~(bad | mis)
                idx_ok, flat_ok = idx[keep], flat[keep]
            else:
                idx_ok, flat_ok = idx, flat
            if len(idx_ok) and self.sshadow is not None:
                self._access(b, self.sshadow, 1, pc, ins, "shared", idx_ok, flat_ok, size, op,
                             op == "atomic", False, False, b.shared)
            return b.shared, flat
        if space == "local":
            ls = self.layout.local_end
            bad = a > np.uint64(ls - size) if ls >= size else np.ones(len(a), bool)
            mis = ~bad & ((a & np.uint64(alignment(size) - 1)) != 0)
            off = idx.astype(np.int64) * b.local_size + a.astype(np.int64)
            for kind, sel in (("out-of-bounds", bad), ("misaligned", mis)):
                if sel.any():
                    s = np.flatnonzero(sel)
                    first = int(a[s[0]])
                    detail = (f"the thread's local arrays take {ls} bytes (one indexed past its end?)"
                              if kind == "out-of-bounds" else f"the offset must be a multiple of {alignment(size)}")
                    report_bounds(self.findings, kind, "local", pc, ins, size, op, gid[idx[s]], first, detail,
                                  {"name": "local memory of the thread", "base": 0, "size": ls}, signed(first))
                    off[sel] = self.local_sink
            return b.local, off
        # "bad": a generic address in no memory window
        first = int(a[0])
        alloc, offset, words = nearest(b.gmem, first, size, self.off_limits)
        report_bounds(self.findings, "out-of-bounds", "generic", pc, ins, size, op, gid[idx], first,
                      f"the address is in no memory (a null or uninitialized pointer?); {words}", alloc, offset)
        return b.gmem.heap, np.full(len(idx), self.sink - HEAP_BASE, np.int64)

    def _global_faults(self, pc, ins, idx, a, size, op, bad, mis, space: str = "global") -> None:
        """Report the lanes outside every allocation (one finding per nearest allocation) and the misaligned;
        `space`: "global", or "const" for a load from __constant__ memory."""
        gid = self.clocks.gid
        if bad.any():
            s = np.flatnonzero(bad)
            ab = a[s]
            allocs = [x for x in self.gmem.allocs if x.base not in self.off_limits]
            if allocs:
                bases = np.fromiter((x.base for x in allocs), np.uint64, len(allocs))
                ends = np.fromiter((x.end for x in allocs), np.uint64, len(allocs))
                i = np.searchsorted(bases, ab, side="right").astype(np.int64) - 1
                ip = np.maximum(i, 0)
                prev = np.where(i >= 0, np.where(ab < ends[ip], 0, (ab - ends[ip]).astype(np.float64) + 1), np.inf)
                nx = np.minimum(i + 1, len(allocs) - 1)
                nxt = np.where(i + 1 < len(allocs), (bases[nx] - ab).astype(np.float64), np.inf)
                near = np.where(prev <= nxt, i, i + 1)
            else:
                near = np.zeros(len(s), np.int64)
            for k in np.unique(near).tolist():
                sel = s[near == k]
                j = int(sel[0])
                alloc, offset, words = nearest(self.gmem, int(a[j]), size, self.off_limits)
                report_bounds(self.findings, "out-of-bounds", space, pc, ins, size, op, gid[idx[sel]], int(a[j]),
                              words, alloc, offset)
        if mis.any():
            s = np.flatnonzero(mis)
            j = int(s[0])
            alloc, offset, _ = nearest(self.gmem, int(a[j]), size, self.off_limits)
            report_bounds(self.findings, "misaligned", space, pc, ins, size, op, gid[idx[s]], int(a[j]),
                          f"the address must be a multiple of {alignment(size)}"
                          + (f" ({offset} bytes into {alloc['name']})" if alloc else ""), alloc, offset)

    def _access(self, b: Batch, sh: Shadow, mem: int, pc: int, ins, space: str, lanes: np.ndarray,
                flat: np.ndarray, size: int, op: str, strong: bool, acq: bool, rel: bool, arr: np.ndarray) -> None:
        now = self.tick()
        values = self._store_values(b, ins, pc, lanes) if ins.base == "st" else None
        current = (lambda p: arr[flat[p][:, None] + np.arange(size)]) if values is not None else None
        acc = Access(pc, ins, space, lanes, flat, size, op, strong, values, current)
        if op != "write" and not sh.all_init:
            init_check(self.findings, sh.init, acc, self._describe(space), self.clocks.gid)
        if mem == 0 and op != "write" and self.known is not None:
            self._note_unknown(flat)
        self.races.access(sh, self.clocks, self.vis, now, acc)
        if op != "read" and sh.init is not None and not sh.all_init:
            sh.init[flat[:, None] + np.arange(size) if size > 1 else flat] = True
        if strong:
            self._sync_through_memory(mem, lanes, flat, op, acq, rel, now)

    def _sync_through_memory(self, mem: int, lanes, flat, op: str, acq: bool, rel: bool, now: int) -> None:
        """Release (a strong write after a fence, or a release write) and acquire (a strong read, an atomic)."""
        clocks, vis = self.clocks, self.vis
        if op != "read":
            ft = clocks.fence_t[lanes]
            rl = np.flatnonzero((ft > NEVER) | rel)
            for j in rl.tolist():
                lane = int(lanes[j])
                g = int(clocks.gid[lane])
                full = int(clocks.full_t[lane // 32])
                ws = full if clocks.sync_t[lane] >= full > NEVER else NEVER
                vis.release((mem, int(flat[j]) >> 2), g, now if rel else int(ft[j]), int(clocks.bar_t[lane]), ws)
        if (acq or op != "write") and vis.active:  # a strong read, or an atomic's read of the flag
            for j, w in enumerate((flat >> 2).tolist()):
                if (mem, w) in vis.flags:
                    vis.acquire((mem, w), int(clocks.gid[int(lanes[j])]))

    def _store_values(self, b: Batch, ins, pc: int, lanes: np.ndarray) -> Callable:
        """positions -> (n, size) bytes that the `st` at pc writes for lanes[positions]."""
        f = self._values.get(pc)
        if f is None:
            src = ins.operands[1]
            items = src.items if src.kind == "vec" else (src,)
            t = ins.type
            dt = dtype_of(t)
            udt = np.dtype(f"u{dt.itemsize}")
            try:
                rs = [reader(x, t, self.ctx) for x in items]
            except (KeyError, ValueError):
                rs = None

            def f(b, lanes, p, rs=rs, dt=dt, udt=udt):
                if rs is None:
                    return None
                out = np.empty((len(p), len(rs)), udt)
                for i, r in enumerate(rs):
                    v = np.asarray(r(b))
                    v = v.view(udt) if v.dtype.itemsize == dt.itemsize else v.astype(dt).view(udt)
                    out[:, i] = v[lanes[p]] if v.ndim else v
                return out.view(np.uint8).reshape(len(p), -1)
            self._values[pc] = f
        return lambda p: f(b, lanes, p)

    def _describe(self, space: str) -> Callable[[int], tuple[str, dict | None]]:
        if space == "shared":
            return lambda flat: ("shared memory", None)

        def describe(flat: int) -> tuple[str, dict | None]:
            a = self.gmem.find(flat + HEAP_BASE)
            if a is None:
                return "global memory", None
            return a.name, {"name": a.name, "base": a.base, "size": a.size}
        return describe

    def _note_unknown(self, flat: np.ndarray) -> None:
        """Name the allocations read whose contents before the launch the checker does not know."""
        addr = flat + HEAP_BASE
        inside = np.zeros(len(addr), bool)
        for base, n in self.known:
            inside |= (addr >= base) & (addr < base + n)
        if not inside.all():
            a = self.gmem.find(int(addr[np.flatnonzero(~inside)[0]]))
            if a is not None and a.base not in self.off_limits:
                self.unknown_read.add(a.name)

    # -- warp-sync waits -----------------------------------------------------------------------
    def arrive(self, b: Batch, w: int, opkey: str, mval: int, pc: int, callers: int, missing: int) -> int:
        """Lanes `callers` of batch warp w executed a sync (`opkey`, mask `mval`); `missing`: named, live, absent.
        Returns the lanes of a wait this arrival completes (they synchronize together now), else 0."""
        key = (w, opkey, mval)
        p = self.pending.get(key)
        if p is None:
            if missing:
                gids = self.clocks.gid[w * 32 + np.flatnonzero([(callers >> l) & 1 for l in range(32)])]
                self.pending[key] = Pending(pc, callers, missing & FULL, mval, gids.tolist())
            return 0
        p.arrived |= callers
        p.missing = (p.missing & ~callers) | (missing & ~p.arrived)
        p.times += 1
        if p.missing:
            return 0
        del self.pending[key]
        return p.arrived

    def barrier_passed(self, b: Batch, every_block: bool) -> None:
        """A barrier: the shared reads logged since the last one are dropped where every live thread of
        every block passed it (nothing before it can race with what follows), else folded in."""
        sh = self.sshadow
        if sh is None:
            return
        if every_block:
            sh.log, sh.logged = [], 0
        else:
            self.races.fold(sh)
        if not sh.all_init:
            sh.all_init = bool(sh.init.all())

