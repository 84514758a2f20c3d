"""PTX calls: an entry linked with the functions it calls, and what the CUDA runtime provides.

NVRTC emits a `.func` for each function it does not inline (`__noinline__`, recursion, the math
library's slow paths such as large-argument `sin(double)`) and calls the runtime for `printf`
(vprintf), `assert` (__assertfail) and `malloc`/`free`. `link` lays the entry and every function it
reaches end to end in one body, each function's registers, labels and locals renamed apart, so the
CFG, the decoder and the run loop see one program: a call pushes a frame on the divergence stack and
`ret` hands its lanes back to the caller. Parameters are per-lane slots after the locals (ptxas
passes them in registers, so the trace does not record them). A recursive function's registers,
parameters and locals are saved at each call into it and restored when the call returns.
"""
from __future__ import annotations

import re
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import networkx as nx
import numpy as np

from .errors import LaunchError, UnsupportedInstruction
from .memory import HEAP_BASE
from .ptx import CC, Function, Instruction, Module, VarDecl, renamed
from .spaces import split_generic
from .state import Batch, Mask

if TYPE_CHECKING:
    from .context import DecodeContext
    from .operands import Op

MAX_DEPTH = 4096  # frames on one lane's call stack: deeper is taken as runaway recursion
PRINTF_LIMIT = 1 << 20  # bytes of printf output kept per launch: the GPU's default FIFO (cudaLimitPrintfFifoSize)
HEAP_BYTES = 8 << 20  # the device heap malloc draws on: the default cudaLimitMallocHeapSize
STRING_LIMIT = 1 << 16  # bytes read looking for the end of a C string
BUILTINS = ("vprintf", "__assertfail", "malloc", "free")


@dataclass
class Linkage:
    """How a linked entry's body is made of functions."""

    spans: dict[str, tuple[int, int]]  # function -> [start, end) of its instructions in the body, the entry first
    callees: dict[int, str]  # pc of a call -> the function it names
    slots: list[VarDecl]  # every call parameter and return value, a per-lane slot (space "param")
    saves: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)
    # a recursive function -> (registers, local and parameter-slot symbols) one activation of it owns

    def start(self, name: str) -> int | None:
        span = self.spans.get(name)
        return None if span is None else span[0]

    def in_entry(self, pc: int) -> bool:
        return pc < next(iter(self.spans.values()))[1]

    def slots_of(self, fname: str, kind: str) -> list[str]:
        """The slots of a function's parameters (kind "param") or return values ("ret"), in order."""
        return [s.name for s in self.slots if s.name.startswith(f"{fname}%{kind}")]


def link(module: Module, name: str) -> Function:
    """The entry `name` with every function it reaches appended and renamed apart; the entry itself
    where it makes no call."""
    entry = module.function(name)
    if not any(ins.base == "call" for ins in entry.body):
        return entry
    order, graph = [entry.name], nx.DiGraph()
    graph.add_node(entry.name)
    i = 0
    while i < len(order):
        for ins in module.functions[order[i]].body:
            target = ins.operands[0] if ins.base == "call" else None
            if target is not None and target.kind == "sym":
                graph.add_edge(order[i], target.name)
                if target.name in module.functions and target.name not in order:
                    order.append(target.name)
        i += 1
    slots: dict[str, VarDecl] = {}
    names = {f: _slot_names(module, f, slots) for f in graph.nodes if f != entry.name}
    body: list[Instruction] = []
    regs: dict[str, str] = {}
    locals_: list[VarDecl] = []
    shared: list[VarDecl] = []
    labels: dict[str, int] = {}
    spans: dict[str, tuple[int, int]] = {}
    callees: dict[int, str] = {}
    owned: dict[str, tuple[list[str], list[str]]] = {}
    for k, fname in enumerate(order):
        fn = module.functions[fname]
        tag = "" if k == 0 else f"@{k}"
        regmap = {r: r if r == CC else r + tag for r in fn.regs}  # the carry flag is the thread's, not a function's
        symmap = {d.name: d.name + tag for d in fn.locals + fn.shared}
        if k:  # a function's parameters are slots; the entry's stay the kernel's parameter buffer
            symmap.update(zip([p.name for p in fn.params + fn.rets], names[fname][0] + names[fname][1]))
        labmap = {lab: lab + tag for lab in fn.labels}
        scoped = _call_scopes(fn, names)
        start = len(body)
        spans[fname] = (start, start + len(fn.body))
        for lab, pc in fn.labels.items():
            labels[labmap[lab]] = start + pc
        labels.setdefault(f"{fname}{tag}", start)
        for pc, ins in enumerate(fn.body):
            here = {**regmap, **symmap, **labmap, **scoped.get(ins.scope, {})}  # a register may stand as a symbol
            body.append(renamed(ins, regmap, here))
            if ins.base == "call" and ins.operands[0].kind == "sym":
                callees[start + pc] = ins.operands[0].name
        regs.update({regmap[r]: t for r, t in fn.regs.items()})
        locals_ += [replace(d, name=symmap[d.name]) for d in fn.locals]
        shared += [replace(d, name=symmap[d.name]) for d in fn.shared]
        owned[fname] = ([regmap[r] for r in fn.regs], [symmap[d.name] for d in fn.locals] + names.get(fname, ([],))[0])
    saves = {}
    for scc in nx.strongly_connected_components(graph):
        if len(scc) > 1 or any(graph.has_edge(f, f) for f in scc):
            keep = tuple(r for f in sorted(scc) if f in owned for r in owned[f][0]), \
                   tuple(s for f in sorted(scc) if f in owned for s in owned[f][1])
            saves.update({f: keep for f in scc})
    linkage = Linkage(spans, callees, list(slots.values()), saves)
    return Function(entry.name, True, entry.params, regs, locals_, shared, body, labels, dict(entry.directives),
                    [], linkage)


def _slot_names(module: Module, fname: str, slots: dict[str, VarDecl]) -> tuple[list[str], list[str]]:
    """The slots of a function's parameters and return values, made once per function."""
    fn = module.functions.get(fname)
    params, rets = (fn.params, fn.rets) if fn is not None else module.declared.get(fname, ([], []))
    out: tuple[list[str], list[str]] = ([], [])
    for group, ps in zip(out, (params, rets)):
        for k, p in enumerate(ps):
            slot = f"{fname}%{'ret' if group is out[1] else 'param'}{k}"
            slots.setdefault(slot, VarDecl("param", slot, p.type, p.size, p.align))
            group.append(slot)
    return out


def _call_scopes(fn: Function, names: dict[str, tuple[list[str], list[str]]]) -> dict[int, dict[str, str]]:
    """For each scope of `fn` that holds a direct call: its argument and return names -> the callee's slots."""
    out: dict[int, dict[str, str]] = {}
    for ins in fn.body:
        if ins.base != "call" or ins.operands[0].kind != "sym" or ins.operands[0].name not in names:
            continue
        params, rets = names[ins.operands[0].name]
        args, outs = ins.operands[1].items, ins.operands[2].items
        if len(args) != len(params) or len(outs) > len(rets):
            raise UnsupportedInstruction(f"{ins.where()}: `{ins.text}` passes {len(args)} arguments to "
                                         f"{ins.operands[0].name}, which takes {len(params)}")
        m = out.setdefault(ins.scope, {})
        m.update({a.name: s for a, s in zip(args, params)})
        m.update({a.name: s for a, s in zip(outs, rets)})
    return out


# -- the run time --------------------------------------------------------------------------------------


class AssertionFailed(LaunchError):
    """A thread's `assert` failed: the GPU prints the message and aborts the launch (cudaErrorAssert).
    `where` is the failing `assert`'s (pc, file, line, PTX instruction), `threads` the first failing (block,
    thread) pairs, `count` how many threads failed it at once, `condition` the asserted expression."""

    def __init__(self, message: str, where: tuple = (), threads: list | None = None, count: int = 0,
                 condition: str = ""):
        super().__init__(message)
        self.where, self.threads, self.count, self.condition = where, threads or [], count, condition


class BadFree(LaunchError):
    """free() of a pointer malloc did not return, or of one freed already. `what`: that, in words, for the first;
    `lanes`: the batch lanes that made such a call (the others' blocks are freed)."""

    def __init__(self, where: str, pointer: int, lanes: np.ndarray):
        self.what = f"free(0x{pointer:x}): not a pointer malloc returned, or freed twice"
        super().__init__(f"{where}: {self.what}")
        self.lanes = lanes


class Runtime:
    """What the CUDA runtime provides a kernel's calls: printf's output, the device heap."""

    def __init__(self, gmem) -> None:
        self.gmem = gmem
        self.printed: list[str] = []
        self.printed_bytes = 0
        self.dropped = 0

    def start_launch(self) -> None:
        self.printed, self.printed_bytes, self.dropped = [], 0, 0

    def output(self) -> str:
        """printf's output of the launch, as the GPU prints it at the next synchronization."""
        text = "".join(self.printed)
        if self.dropped:
            text += (f"[cudasim: {self.dropped} more printf outputs dropped past {PRINTF_LIMIT >> 20} MiB; the GPU's "
                     f"printf FIFO (cudaLimitPrintfFifoSize) also holds 1 MiB]\n")
        return text

    def emit(self, text: str) -> None:
        if self.printed_bytes + len(text) > PRINTF_LIMIT:
            self.dropped += 1
            return
        self.printed.append(text)
        self.printed_bytes += len(text)

    def heap(self) -> "DeviceHeap":
        h = getattr(self.gmem, "device_heap", None)
        if h is None:
            h = self.gmem.device_heap = DeviceHeap(self.gmem.alloc(HEAP_BYTES, "the device heap (malloc)"),
                                                   HEAP_BYTES)
        return h


class DeviceHeap:
    """First-fit allocation of 16-byte aligned blocks in one reserved range, as device malloc draws on the
    heap cudaLimitMallocHeapSize reserves; an exhausted heap gives NULL."""

    def __init__(self, base: int, size: int):
        self.base, self.size = base, size
        self.free_ranges = [(base, size)]
        self.asked: dict[int, int] = {}  # block handed out -> bytes malloc was asked for
        self.freed: dict[int, int] = {}  # block -> bytes it was asked for, once freed (and not handed out again)

    @staticmethod
    def reserved(asked: int) -> int:
        """The bytes a block asked for `asked` takes: 16-byte multiples, at least 16."""
        return max(16, (int(asked) + 15) // 16 * 16)

    def malloc(self, n: int) -> int:
        need = self.reserved(n)
        for i, (b, s) in enumerate(self.free_ranges):
            if s >= need:
                self.free_ranges[i] = (b + need, s - need)
                self.asked[b] = int(n)
                for f in [f for f in self.freed if b <= f < b + need]:
                    del self.freed[f]
                return b
        return 0

    def contains(self, a: np.ndarray) -> np.ndarray:
        """Per address: whether it is in the heap's range."""
        return (a >= np.uint64(self.base)) & (a < np.uint64(self.base + self.size))

    def holds(self, a: np.ndarray, size: int) -> np.ndarray:
        """Per address: whether `size` bytes there lie in a block malloc handed out and that is not freed (within
        the bytes asked for, as compute-sanitizer checks the device heap)."""
        if not self.asked:
            return np.zeros(len(a), bool)
        bases = np.array(sorted(self.asked), np.uint64)
        ends = bases + np.array([self.asked[int(x)] for x in bases], np.uint64)
        i = np.searchsorted(bases, a, side="right").astype(np.int64) - 1
        return (i >= 0) & (a + np.uint64(size) <= ends[np.maximum(i, 0)])

    def describe(self, addr: int, size: int) -> str:
        """Where a bad heap access is, in words: past the end of a block, or in one already freed."""
        for blocks, how in ((self.asked, "a block malloc({n}) returned"), (self.freed, "a block freed before, of {n}")):
            for b, n in blocks.items():
                if b <= addr < b + self.reserved(n):
                    where = (f"{addr + size - b - n} bytes past its end" if addr + size > b + n else "inside it")
                    return f"{where}: {how.format(n=n)} at 0x{b:x} (the device heap)"
        return "in the device heap, in no block malloc handed out"

    def free(self, ptr: int) -> bool:
        asked = self.asked.pop(int(ptr), None)
        if asked is None:
            return False
        self.freed[int(ptr)] = asked
        self.free_ranges.append((int(ptr), self.reserved(asked)))
        self.free_ranges.sort()
        merged = [self.free_ranges[0]]
        for b, s in self.free_ranges[1:]:
            if merged[-1][0] + merged[-1][1] == b:
                merged[-1] = (merged[-1][0], merged[-1][1] + s)
            else:
                merged.append((b, s))
        self.free_ranges = merged
        return True


def decode_call(ins: Instruction, pc: int, ctx: DecodeContext) -> Op | None:
    """A call to a runtime function (printf, assert, malloc, free) as a closure; None for a call of a
    function in the linked body, which the run loop executes; a closure that refuses for anything else."""
    target = ins.operands[0]
    linkage = getattr(ctx, "linkage", None)
    if target.kind != "sym":
        return _refuse(ins, "an indirect call (a function pointer or virtual function) is not modelled")
    if linkage is not None and linkage.start(target.name) is not None:
        return None
    if target.name not in BUILTINS:
        return _refuse(ins, f"{target.name} is not defined in the module (an external device function: "
                            f"separate compilation, the device runtime or a library cudasim does not provide)")
    params, rets = linkage.slots_of(target.name, "param"), linkage.slots_of(target.name, "ret")
    return _BUILTIN_DECODERS[target.name](ins, ctx, ctx.runtime, params, rets)


def _refuse(ins: Instruction, why: str):
    err = UnsupportedInstruction(f"unsupported PTX instruction `{ins.text}` at {ins.where()} ({why}); "
                                 f"cudasim stops rather than guess its result")

    def refuse(b: Batch, m: Mask) -> None:
        raise err
    return refuse


def _slot(ctx, name: str, dtype: str):
    """Read and write one per-lane slot as `dtype`."""
    off = ctx.layout.slot_offsets[name]
    dt = np.dtype(dtype)

    def get(b: Batch, idx: np.ndarray) -> np.ndarray:
        pos = idx.astype(np.int64)[:, None] * b.local_size + off + np.arange(dt.itemsize)
        return b.local[pos].copy().view(dt).reshape(-1)

    def put(b: Batch, idx: np.ndarray, vals: np.ndarray) -> None:
        pos = idx.astype(np.int64)[:, None] * b.local_size + off + np.arange(dt.itemsize)
        b.local[pos] = np.ascontiguousarray(np.asarray(vals, dt)).view(np.uint8).reshape(len(idx), dt.itemsize)
    return get, put


def read_bytes(b: Batch, layout, lane: int, addr: int, n: int, stop_at_nul: bool = False) -> bytes:
    """Up to `n` bytes one lane sees at a generic address (stopping before a NUL if asked); MemoryFault-free:
    what lies outside every memory ends the read."""
    (space, (_, sa)), = split_generic(np.array([addr], np.uint64)).items()
    a = int(sa[0])
    if space == "global":
        alloc = b.gmem.find(a)
        if alloc is None:
            return b""
        raw = b.gmem.heap[a - HEAP_BASE:min(a + n, alloc.end) - HEAP_BASE]
    elif space == "local":
        raw = b.local[lane * b.local_size + a:lane * b.local_size + min(a + n, b.local_size)]
    elif space == "shared":
        base = int(b.lane_block[lane]) * b.shared_size
        raw = b.shared[base + a:base + min(a + n, b.shared_size)]
    else:
        return b""
    raw = raw.tobytes()
    if stop_at_nul and b"\0" in raw:
        raw = raw[:raw.index(b"\0")]
    return raw


_SPEC = re.compile(r"%([-+ #0]*)(\d+|\*)?(?:\.(\d+|\*))?(hh|h|ll|l|L|z|j|t)?([diouxXcsfFeEgGaAp%n])")


def format_printf(fmt: str, arg: Callable[[int, str], object]) -> tuple[str, int]:
    """C printf formatting of `fmt`, `arg(size, kind)` giving each argument's value in turn (kind: "i" signed,
    "u" unsigned, "f" double, "s" string); returns (text, arguments consumed). Each conversion is formatted by
    the C library's snprintf, as the CUDA driver formats the GPU's printf records on the host."""
    out, pos, used = [], 0, 0
    for m in _SPEC.finditer(fmt):
        out.append(fmt[pos:m.start()])
        pos = m.end()
        flags, width, prec, length, conv = m.groups()
        if conv == "%":
            out.append("%")
            continue
        if width == "*" or prec == "*" or conv == "n":
            out.append(m.group(0))  # the GPU's printf takes neither `*` nor %n: printed as written
            continue
        used += 1
        head = "%" + flags + (width or "") + (f".{prec}" if prec is not None else "")
        if conv in "diouxXc":
            wide = length in ("l", "ll", "z", "j", "t")
            v = arg(8 if wide else 4, "i" if conv in "di" else "u")
            out.append(_c_format(head + ("ll" if wide else length or "") + conv, v, "ll" if wide else "i"))
        elif conv in "fFeEgGaA":
            out.append(_c_format(head + conv, arg(8, "f"), "f"))
        elif conv == "p":
            out.append(_c_format(head + "p", arg(8, "u"), "p"))
        else:
            out.append(_c_format(head + "s", arg(8, "s").encode("latin-1"), "s"))
    out.append(fmt[pos:])
    return "".join(out), used


_LIBC = None


def _c_format(spec: str, value, kind: str) -> str:
    """One conversion through the C library's snprintf (Python's % formatting where there is none)."""
    import ctypes

    global _LIBC
    if _LIBC is None:
        try:
            _LIBC = ctypes.CDLL(None).snprintf
        except (OSError, AttributeError):
            _LIBC = False
    if _LIBC is False:
        return (spec.replace("ll", "").replace("h", "").replace("u", "d").replace("p", "#x")) % (
            value.decode("latin-1") if isinstance(value, bytes) else value)
    c = {"ll": ctypes.c_longlong, "i": ctypes.c_int, "f": ctypes.c_double, "p": ctypes.c_void_p,
         "s": ctypes.c_char_p}[kind]
    if kind == "i":
        value = (value + (1 << 31)) % (1 << 32) - (1 << 31)
    elif kind == "ll":
        value = (value + (1 << 63)) % (1 << 64) - (1 << 63)
    n = _LIBC(None, 0, spec.encode(), c(value))
    buf = ctypes.create_string_buffer(n + 1)
    _LIBC(buf, n + 1, spec.encode(), c(value))
    return buf.raw[:n].decode("latin-1")


def _vprintf(ins, ctx, runtime: Runtime, params, rets):
    fmt_get, _ = _slot(ctx, params[0], "u8")
    args_get, _ = _slot(ctx, params[1], "u8")
    _, ret_put = _slot(ctx, rets[0], "i4") if rets else (None, None)
    layout = ctx.layout

    def vprintf(b: Batch, m: Mask) -> None:
        idx = m.idx
        fmts, bufs = fmt_get(b, idx), args_get(b, idx)
        counts = np.zeros(len(idx), np.int32)
        for j, lane in enumerate(idx.tolist()):
            fmt = read_bytes(b, layout, lane, int(fmts[j]), STRING_LIMIT, stop_at_nul=True).decode("latin-1")
            at = [0]

            def arg(size: int, kind: str, lane=lane, base=int(bufs[j])):
                at[0] = (at[0] + size - 1) // size * size
                raw = read_bytes(b, layout, lane, base + at[0], size).ljust(size, b"\0")
                at[0] += size
                v = int.from_bytes(raw, "little", signed=kind == "i")
                if kind == "f":
                    return float(np.frombuffer(raw, np.float64)[0])
                if kind == "s":
                    s = read_bytes(b, layout, lane, v, STRING_LIMIT, stop_at_nul=True) if v else b"(null)"
                    return s.decode("latin-1")
                return v
            text, counts[j] = format_printf(fmt, arg)
            runtime.emit(text)
        if ret_put is not None:
            ret_put(b, idx, counts)
    return vprintf


def _assertfail(ins, ctx, runtime: Runtime, params, rets):
    gets = [_slot(ctx, p, "u8" if k != 2 else "u4")[0] for k, p in enumerate(params[:4])]
    layout = ctx.layout

    def assertfail(b: Batch, m: Mask) -> None:
        idx = m.idx
        lane = int(idx[0])
        msg, file, line, func = (g(b, idx[:1])[0] for g in gets)

        def s(addr: int) -> str:
            return read_bytes(b, layout, lane, int(addr), STRING_LIMIT, stop_at_nul=True).decode("latin-1")

        def coords(sreg: str, lanes) -> list[tuple[int, ...]]:
            return [tuple(int(np.broadcast_to(b.sregs[f"%{sreg}.{a}"], (b.L,))[x]) for a in "xyz") for x in lanes]
        first = idx[:4].tolist()
        pairs = list(zip(coords("ctaid", first), coords("tid", first)))
        (bx, tx), cond = pairs[0], s(msg)
        text = (f"{s(file)}:{int(line)}: {s(func)}: block: [{','.join(map(str, bx))}], thread: "
                f"[{','.join(map(str, tx))}] Assertion `{cond}` failed.")
        more = f" ({len(idx) - 1} more threads failed it at the same time)" if len(idx) > 1 else ""
        raise AssertionFailed(f"device-side assert triggered: {text}{more}", (-1, ins.file, ins.line, ins.text),
                              pairs, len(idx), cond)
    return assertfail


def _malloc(ins, ctx, runtime: Runtime, params, rets):
    size_get, _ = _slot(ctx, params[0], "u8")
    _, ret_put = _slot(ctx, rets[0], "u8")
    heap = runtime.heap()

    def malloc(b: Batch, m: Mask) -> None:
        idx = m.idx
        ret_put(b, idx, np.array([heap.malloc(int(n)) for n in size_get(b, idx)], np.uint64))
    return malloc


def _free(ins, ctx, runtime: Runtime, params, rets):
    ptr_get, _ = _slot(ctx, params[0], "u8")
    heap = runtime.heap()

    def free(b: Batch, m: Mask) -> None:
        bad = [(lane, p) for lane, p in zip(m.idx.tolist(), ptr_get(b, m.idx).tolist()) if p and not heap.free(p)]
        if bad:
            raise BadFree(ins.where(), bad[0][1], np.array([lane for lane, _ in bad], np.int64))
    return free


_BUILTIN_DECODERS = {"vprintf": _vprintf, "__assertfail": _assertfail, "malloc": _malloc, "free": _free}


def echo(text: str) -> None:
    """Write a launch's printf output where the GPU's goes: the process's standard output."""
    if text:
        sys.stdout.write(text)
        sys.stdout.flush()
