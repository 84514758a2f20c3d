"""From PTX-level trace rows to the memory instructions the GPU really issues (SASS).

Why: ptxas merges neighbouring PTX loads and stores into wider ones when it can prove the
alignment (four `ld.shared.f32` at [r], [r+4], [r+8], [r+12] become one `LDS.128`). ncu
counts the SASS instructions, so a PTX-level trace over-counts shared instructions (and
misjudges their wavefronts: four broadcast words are four wavefronts, one broadcast
16-byte word is one). Measured on the H100: sgemm_smem issues 81,920 LDS where its PTX
has 131,072 ld.shared.

How: the compile that made the PTX also made the cubin (cudasim.compile), nvdisasm (pip:
nvidia-cuda-nvdisasm) lists its SASS with source lines, and for each source line the PTX accesses of the trace
are grouped into the SASS widths found on that line: sorted by address, split into
contiguous, aligned chunks whose widths use up the SASS widths exactly. Grouped rows are
joined per warp execution (the k-th execution by a warp of each member) into one wider
access. Lines where no such grouping exists are left as PTX and listed in the notes.
Without nvdisasm everything stays PTX-level, and the output says so.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import shutil
import subprocess
import sysconfig
import tempfile
from collections import Counter, defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable

import numpy as np

from cudasim.compile import DEFAULT_ARCH, cache_dir, compile_cubin, name_expressions
from cudasim.spaces import space_of
from cudasim.trace import MemEvent

_SPACE = {"LDS": ("shared", "ld"), "STS": ("shared", "st"), "LDG": ("global", "ld"), "STG": ("global", "st"),
          "LD": ("generic", "ld"), "ST": ("generic", "st"), "LDL": ("local", "ld"), "STL": ("local", "st")}
_INS_RE = re.compile(r"^\s*/\*([0-9a-f]+)\*/\s*(?:@(!?U?P[T0-9]+)\s+)?([A-Z][A-Z0-9]*)((?:\.[A-Z0-9_]+)*)\s*(.*?)\s*;")
_LOC_RE = re.compile(r'//## File "([^"]+)", line (\d+)( inlined at)?')
_FUN_RE = re.compile(r"^\.text\.([\w$.]+):")
_LABEL_RE = re.compile(r"^(\.L_x_\d+):")
_HI_RE = re.compile(r"^\s*/\*\s*(0x[0-9a-f]{16})\s*\*/\s*$")
LISTING_VERSION = 4


@dataclass(frozen=True)
class SassInstruction:
    """One SASS instruction as nvdisasm -g lists it, with the source line it came from."""

    addr: int
    op: str  # FFMA, LDG, BRA ...
    mods: tuple[str, ...]  # ("E", "128")
    guard: str  # "" (always), "P0", "!P1", "UP0" ...
    operands: str  # the operand text, as listed
    file: str  # basename
    line: int
    control: int = -1  # the scheduling control bits ptxas set (bits 105-125 of the encoding), -1 if not listed
    site: tuple[str, int] = ("", 0)  # the kernel-level line the code was inlined at (basename, line); ("", 0): none

    # The control bits, as the Volta-and-later encoding lays them out (Jia et al., "Dissecting the NVIDIA
    # Volta GPU Architecture via Microbenchmarking", 2018; the same layout on sm_80 and sm_90):
    @property
    def stall(self) -> int:
        """Cycles before this warp may issue its next instruction (ptxas's fixed-latency waits)."""
        return self.control & 15

    @property
    def write_barrier(self) -> int:
        """Scoreboard barrier (0-5) this instruction's result releases when written; 7: none."""
        return (self.control >> 5) & 7

    @property
    def read_barrier(self) -> int:
        """Scoreboard barrier released once this instruction has read its operands; 7: none."""
        return (self.control >> 8) & 7

    @property
    def wait_mask(self) -> int:
        """Scoreboard barriers (bit k: barrier k) that must be clear before this instruction issues."""
        return (self.control >> 11) & 63

    @property
    def width(self) -> int:
        """Bytes per lane of a memory instruction (.64, .128, .U8, .S16 ...); 4 by default."""
        return _width(".".join(self.mods))

    @property
    def placed(self) -> tuple[str, int]:
        """(file, line) as cudasim places the PTX of the same code: code of another file (the toolkit's
        headers, a header's helper) at the kernel-level line it was inlined at, the rest at its own line."""
        return self.site if self.site[1] and self.site[0] != self.file else (self.file, self.line)

    @property
    def memory(self) -> tuple[str, str] | None:
        """(space, ld|st) for a load or store, else None."""
        return _SPACE.get(self.op)


@dataclass
class Listing:
    """A kernel's SASS: instructions in address order and where each label points."""

    instructions: list[SassInstruction]
    labels: dict[str, int]  # label -> index of the instruction it marks


def find_nvdisasm() -> str | None:
    """nvdisasm from PATH, the pip wheel (nvidia-cuda-nvdisasm) or a toolkit; None when absent
    or when CUDAPERF_NO_SASS is set (PTX-level counts)."""
    if os.environ.get("CUDAPERF_NO_SASS"):
        return None
    exe = shutil.which("nvdisasm")
    if exe:
        return exe
    pure = sysconfig.get_paths()["purelib"]
    for pat in (f"{pure}/nvidia/cu13/bin/nvdisasm", f"{pure}/nvidia/*/bin/nvdisasm", "/usr/local/cuda*/bin/nvdisasm"):
        hits = sorted(glob.glob(pat))
        if hits:
            return hits[-1]
    return None


def _width(mods: str) -> int:
    """Bytes per lane from SASS modifiers (.64, .128, .U8, .S16 ...); 4 by default."""
    for m in mods.split("."):
        if m in ("64", "128"):
            return int(m) // 8
        if m in ("U8", "S8"):
            return 1
        if m in ("U16", "S16"):
            return 2
    return 4


def parse_listing(text: str) -> dict[str, Listing]:
    """nvdisasm -c -g (or -gi) output -> {function: Listing}. With -gi, a location is a chain of lines, the
    innermost first ("line 13 inlined at ..., line 30", "line 30 inlined at ..., line 49", "line 49"):
    an instruction keeps the innermost as its line, as -g gives it, and the outermost as its site."""
    out: dict[str, Listing] = {}
    cur: Listing | None = None
    loc, site, chain = ("", 0), ("", 0), False
    for line in text.splitlines():
        st = line.strip()
        if m := _FUN_RE.match(st):
            cur = out.setdefault(m.group(1), Listing([], {}))
            loc, site, chain = ("", 0), ("", 0), False
            continue
        if cur is None:
            continue
        if m := _LOC_RE.search(line):
            here = (os.path.basename(m.group(1)), int(m.group(2)))
            if not chain:  # the first line of a location: the innermost
                loc, site = here, ("", 0)
            elif here != loc:
                site = here
            chain = bool(m.group(3))  # "inlined at": the chain goes on to the caller
            continue
        chain = False
        if m := _LABEL_RE.match(st):
            cur.labels[m.group(1)] = len(cur.instructions)
            continue
        if m := _INS_RE.match(line):
            cur.instructions.append(SassInstruction(int(m.group(1), 16), m.group(3), tuple(m.group(4).split(".")[1:]),
                                                    m.group(2) or "", m.group(5), loc[0], loc[1], site=site))
            continue
        if (m := _HI_RE.match(line)) and cur.instructions and cur.instructions[-1].control < 0:
            last = cur.instructions[-1]
            cur.instructions[-1] = replace(last, control=(int(m.group(1), 16) >> 41) & 0x1FFFFF)
    return out


def parse_sass(text: str) -> dict[str, dict[tuple[str, int], list[tuple[str, str, int]]]]:
    """nvdisasm -g output -> {function: {(file basename, line): [(space, op, bytes per lane)]}}."""
    return {f: memory_ops(lst) for f, lst in parse_listing(text).items()}


def memory_ops(lst: Listing) -> dict[tuple[str, int], list[tuple[str, str, int]]]:
    """The loads and stores of a listing by source line: {(file, line): [(space, ld|st, bytes per lane)]}, and
    ("shared", "cas", bytes) for a shared compare-and-swap (ATOMS.CAS / ATOMS.CAST): the loop ptxas writes for a
    shared atomic the hardware has no instruction for (a float add: LDS, FADD, ATOMS.CAST.SPIN, retry)."""
    out: dict[tuple[str, int], list] = defaultdict(list)
    for ins in lst.instructions:
        if ins.memory:
            out[ins.placed].append((*ins.memory, ins.width))
        elif ins.op == "ATOMS" and any(m.startswith("CAS") for m in ins.mods):
            out[ins.placed].append(("shared", "cas", 8 if "64" in ins.mods else 4))
    return dict(out)


def kernel_listing(source: str, options: list[str], filename: str, kernel: str, mangled: str | None = None,
                   arch: str = DEFAULT_ARCH) -> Listing | None:
    """One kernel's SASS: the cubin of cudasim.compile's compile (NVRTC, or nvcc for a file with host code),
    listed by nvdisasm; None without nvdisasm. Cached on disk by the cubin itself, so an edited header or
    another compiler is a new listing."""
    exe = find_nvdisasm()
    if exe is None:
        return None
    exprs = name_expressions(kernel)
    cubin, lowered = compile_cubin(source, exprs, options, arch, filename=filename)  # the compile the PTX came from
    what = [hashlib.sha256(cubin).hexdigest(), kernel, mangled, exe, LISTING_VERSION]
    key = hashlib.sha256(json.dumps(what).encode()).hexdigest()[:32]
    path = cache_dir() / "sass" / f"{key}.json"
    if path.exists():
        try:
            d = json.loads(path.read_text())
            return Listing([SassInstruction(x[0], x[1], tuple(x[2]), x[3], x[4], x[5], x[6], x[7], tuple(x[8]))
                            for x in d["ins"]], d["labels"])
        except (ValueError, TypeError, KeyError, IndexError):
            pass
    with tempfile.TemporaryDirectory() as folder:  # not in the cache: a full cache must not cost the listing
        tmp = Path(folder) / "kernel.cubin"
        tmp.write_bytes(cubin)
        text = subprocess.run([exe, "-gi", "-c", "-hex", str(tmp)], capture_output=True, text=True, timeout=120).stdout
    funs = parse_listing(text)
    name = lowered.get(kernel) or mangled or kernel
    lst = funs.get(name)
    if lst is None:
        cands = [f for f in funs if f == kernel or f.startswith(f"_Z{len(kernel)}{kernel}")]
        lst = funs.get(cands[0]) if len(cands) == 1 else None
    if lst is None:
        return None
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps({"ins": [[i.addr, i.op, list(i.mods), i.guard, i.operands, i.file, i.line, i.control,
                                            list(i.site)] for i in lst.instructions], "labels": lst.labels}))
        tmp.replace(path)
    except OSError:  # a full or read-only cache: the listing is made again next time
        tmp.unlink(missing_ok=True)
    return lst


def sass_memory_ops(source: str, options: list[str], filename: str, kernel: str, mangled: str | None = None,
                    arch: str = DEFAULT_ARCH) -> dict[tuple[str, int], list[tuple[str, str, int]]] | None:
    """SASS memory instructions of one kernel, compiled for `arch`, by source line, or None without
    nvdisasm."""
    lst = kernel_listing(source, options, filename, kernel, mangled, arch)
    return None if lst is None else memory_ops(lst)


# ---- regrouping the trace ------------------------------------------------------------------

Fenced = Callable[[str, int, int], bool]


def fences(body) -> Fenced:
    """fenced(space, a, b): whether something lies strictly between PTX pcs a < b of `body` that keeps ptxas
    from merging two accesses of `space` there, or from reusing a load's bytes for a later load: a store or an
    atomic that may write that space (its own or generic), a barrier, a fence, a call."""
    always = np.array([ins.base in ("bar", "barrier", "membar", "fence", "call") for ins in body])
    writes = np.array([ins.base in ("st", "atom", "red", "cp") for ins in body])
    where = [space_of(ins) for ins in body]
    stops = {sp: np.cumsum(always | (writes & np.array([w in (sp, "generic") for w in where])))
             for sp in ("shared", "global", "local")}

    def fenced(space: str, a: int, b: int) -> bool:
        run = stops.get(space)
        return b - a > 1 and (run is None or bool(run[b - 1] - run[a] > 0))
    return fenced



def _occurrence(ev: MemEvent) -> np.ndarray:
    """(n,) k for each row: this is the k-th row of its (block, warp) in the event."""
    key = ev.blocks.astype(np.int64) * 65536 + ev.warps.astype(np.int64)
    order = np.argsort(key, kind="stable")
    ks = key[order]
    start = np.r_[0, np.flatnonzero(ks[1:] != ks[:-1]) + 1]
    run = np.repeat(start, np.diff(np.r_[start, len(ks)]))
    occ = np.empty(len(key), np.int64)
    occ[order] = np.arange(len(key)) - run
    return occ


def _rep_addr(ev: MemEvent) -> int:
    m = int(ev.masks[0])
    lane = (m & -m).bit_length() - 1 if m else 0
    return int(ev.addrs[0, lane])


def _plan(evs: list[MemEvent], widths: Counter,
          fenced: Fenced = lambda space, a, b: False) -> list[list[MemEvent]] | None:
    """Chunks of `evs` (same space and op) whose sizes use up the SASS `widths`, or None. Neighbours in a chunk
    have neighbouring addresses in every lane, and no store, barrier or fence between them (`fenced`)."""
    evs = sorted(evs, key=lambda e: (_rep_addr(e), e.pc))
    size = evs[0].size
    if any(e.size != size for e in evs):
        return None
    at: dict[int, list[MemEvent]] = defaultdict(list)
    for e in evs:
        at[_rep_addr(e)].append(e)

    def follows(prev: MemEvent, e: MemEvent) -> bool:
        return (len(e) == len(prev) and not fenced(e.space, min(e.pc, prev.pc), max(e.pc, prev.pc))
                and np.array_equal(e.addrs.astype(np.int64) - prev.addrs.astype(np.int64),
                                   np.where(e.lane_active(), size, 0)))
    taken: set[int] = set()
    runs: list[list[MemEvent]] = []
    for e in evs:  # chains of neighbours, each from its lowest address up; the nearest pc first
        if id(e) in taken:
            continue
        taken.add(id(e))
        run = [e]
        while True:
            nxt = [n for n in at.get(_rep_addr(run[-1]) + size, ()) if id(n) not in taken and follows(run[-1], n)]
            if not nxt:
                break
            n = min(nxt, key=lambda n: abs(n.pc - run[-1].pc))
            taken.add(id(n))
            run.append(n)
        runs.append(run)
    left = Counter(widths)
    chunks: list[list[MemEvent]] = []
    for run in runs:
        i = 0
        while i < len(run):
            for w in sorted((w for w in left if left[w] > 0), reverse=True):
                k = w // size
                if w % size or k < 1 or i + k > len(run):
                    continue
                act = run[i].lane_active()
                if k > 1 and np.any((run[i].addrs[act] % np.uint64(w)) != 0):
                    continue
                chunks.append(run[i:i + k])
                left[w] -= 1
                i += k
                break
            else:
                return None
    return chunks if not +left else None


def _split(ev: MemEvent, u: int) -> list[MemEvent] | None:
    """One event per unrolled copy: rows whose occurrence is r mod u, ordered by (block, warp, occurrence // u)."""
    occ = _occurrence(ev)
    key = ev.blocks.astype(np.int64) * 65536 + ev.warps.astype(np.int64)
    counts = np.unique(key, return_counts=True)[1]
    if np.any(counts % u):
        return None
    out = []
    for r in range(u):
        sel = np.flatnonzero(occ % u == r)
        order = sel[np.lexsort((occ[sel] // u, key[sel]))]
        out.append(MemEvent(ev.pc, ev.line, ev.file, ev.text, ev.space, ev.op, ev.size, ev.blocks[order],
                            ev.warps[order], ev.masks[order], ev.addrs[order], ev.generic, ev.site))
    return out


def _plan_unrolled(evs: list[MemEvent], widths: Counter) -> list[list[MemEvent]] | None:
    """ptxas unrolled the loop further than the PTX and merged across iterations (As[i][k..k+3]
    over k): split each PTX access into u copies (u = SASS bytes / PTX bytes on the line) and plan."""
    ptx_bytes = sum(e.size for e in evs)
    sass_bytes = sum(w * c for w, c in widths.items())
    if sass_bytes % ptx_bytes or sass_bytes // ptx_bytes < 2 or len({len(e) for e in evs}) != 1:
        return None
    u = sass_bytes // ptx_bytes
    virtual = []
    for e in evs:
        parts = _split(e, u)
        if parts is None:
            return None
        virtual.extend(parts)
    return _plan(virtual, widths)


def _merge(chunk: list[MemEvent]) -> MemEvent:
    first = chunk[0]
    if len(chunk) == 1:
        return first
    n = len(first)
    occ = [_occurrence(e) for e in chunk]
    same = all(len(e) == n and np.array_equal(e.blocks, first.blocks) and np.array_equal(e.warps, first.warps)
               and np.array_equal(o, occ[0]) for e, o in zip(chunk, occ))
    if not same:
        raise ValueError("members differ in their rows")
    masks = first.masks.copy()
    for e in chunk[1:]:
        masks |= e.masks
    text = f"{first.text}  [x{len(chunk)} merged by ptxas into one {first.size * len(chunk)}-byte access]"
    return MemEvent(min(e.pc for e in chunk), first.line, first.file, text, first.space, first.op,
                    first.size * len(chunk), first.blocks, first.warps, masks, first.addrs, first.generic, first.site)


def _drop_covered(evs: list[MemEvent], fenced: Fenced) -> tuple[list[MemEvent], int]:
    """Loads whose bytes, in every row and lane, lie inside another load's on the same line, with nothing between
    the two that could change them (`fenced`: a store, an atomic, a barrier or a fence between two PTX pcs)."""
    keep, dropped = [], 0
    for i, e in enumerate(evs):
        covered = False
        for j, g in enumerate(evs):
            if j == i or g.size < e.size or len(g) != len(e) or (g.size == e.size and j > i):
                continue
            if fenced(e.space, min(e.pc, g.pc), max(e.pc, g.pc)):
                continue
            if not (np.array_equal(g.blocks, e.blocks) and np.array_equal(g.warps, e.warps)):
                continue
            act = e.lane_active()
            ea, ga = e.addrs.astype(np.int64), g.addrs.astype(np.int64)
            if np.all(~act | ((ga <= ea) & (ea + e.size <= ga + g.size) & g.lane_active())):
                covered = True
                break
        if covered:
            dropped += 1
        else:
            keep.append(e)
    return keep, dropped


def _cas_loads(events: list[MemEvent], sass: dict[tuple[str, int], list[tuple[str, str, int]]]
               ) -> tuple[list[MemEvent], list[str]]:
    """The events with, beside each shared atomic that ptxas wrote as a compare-and-swap loop, the loop's load
    (its LDS reads the word the CAS then swaps: the atomic's lanes and addresses, one trip), on lines whose SASS
    has such a loop and whose PTX has no shared load of its own; and a note per line. Retries (lanes of a warp on
    one word, warps racing for it) issue the loop again; they depend on timing and are not counted."""
    lines = {k for k, ops in sass.items() if any(o == "cas" for _, o, _ in ops) and any(
        sp == "shared" and o == "ld" for sp, o, _ in ops)}
    if not lines:
        return events, []
    with_loads = {(os.path.basename(e.file), e.line) for e in events if e.space == "shared" and e.op == "ld"}
    out, notes, seen = list(events), [], set()
    for ev in events:
        key = (os.path.basename(ev.file), ev.line)
        if ev.space == "shared" and ev.op == "atom" and key in lines and key not in with_loads:
            out.append(replace(ev, op="ld"))
            if key not in seen:
                seen.add(key)
                notes.append(f"{key[0]}:{key[1]}: a shared atomic ptxas writes as a compare-and-swap loop (LDS, "
                             "ATOMS.CAST): its load counted once a warp; lanes on one word and warps racing for it "
                             "go round again, which ncu counts and this does not")
    return out, notes


def regroup(events: list[MemEvent], sass: dict[tuple[str, int], list[tuple[str, str, int]]],
            fenced: Fenced = lambda space, a, b: False) -> tuple[list[MemEvent], list[str]]:
    """PTX-level events -> SASS-level events (merged where ptxas merged); notes on lines left as PTX. Lines whose
    own SASS does not fit their PTX are planned together (by space and operation): ptxas merges accesses of
    neighbouring lines too, and names the merged instruction by one of them."""
    events, notes = _cas_loads(events, sass)
    by: dict[tuple, list[MemEvent]] = defaultdict(list)
    for ev in events:
        if ev.space in ("global", "shared", "local") and ev.op in ("ld", "st"):
            by[(os.path.basename(ev.file), ev.line, ev.space, ev.op)].append(ev)
    out = [ev for ev in events if not (ev.space in ("global", "shared", "local") and ev.op in ("ld", "st"))]
    unfit: dict[tuple[str, str], list] = defaultdict(list)  # per (space, op): lines whose SASS did not fit
    for (f, line, space, op), evs in by.items():
        ops = sass.get((f, line), [])
        if op == "ld":
            evs, dropped = _drop_covered(evs, fenced)
            if dropped:
                notes.append(f"{f}:{line} {space} ld: {dropped} PTX load(s) re-reading bytes another load on the "
                             "line already read, dropped (ptxas removes them)")
        widths = Counter(w for sp, o, w in ops if o == op and sp in (space, "generic"))
        n_ptx = len({e.pc for e in evs})
        if not widths:  # none on the line: as PTX, unless a neighbouring line's SASS took its accesses in
            unfit[(space, op)].append((f, line, evs, widths))
            continue
        if set(widths) == {evs[0].size} and all(e.size == evs[0].size for e in evs):
            if sum(widths.values()) >= n_ptx:
                out.extend(evs)  # SASS as wide as PTX (perhaps unrolled further by ptxas): nothing merged
            else:  # fewer: some went into a wider access of a neighbouring line
                unfit[(space, op)].append((f, line, evs, widths))
            continue
        plan = None
        if n_ptx == len(evs):  # one event per PTX instruction
            # ptxas may also unroll a loop further than the PTX: compare bytes, not counts
            ratio = sum(e.size for e in evs) / sum(w * c for w, c in widths.items())
            scaled = {w: c * ratio for w, c in widths.items()}
            if all(abs(v - round(v)) < 1e-9 and round(v) >= 0 for v in scaled.values()):
                plan = _plan(evs, Counter({w: int(round(v)) for w, v in scaled.items() if round(v) > 0}))
        if plan is None:
            plan = _plan_unrolled(evs, widths)
        if plan is None:
            unfit[(space, op)].append((f, line, evs, widths))
            continue
        try:
            out.extend(_merge(c) for c in plan)
        except ValueError:
            notes.append(f"{f}:{line} {space} {op}: merged instructions ran a different number of times; "
                         "counted as PTX")
            out.extend(evs)
    for (space, op), lines in unfit.items():
        pool = [e for _, _, evs, _ in lines for e in evs]
        widths = sum((w for *_, w in lines), Counter())
        plan = None
        if len(lines) > 1 and sum(e.size for e in pool) == sum(w * c for w, c in widths.items()) and \
                len({e.pc for e in pool}) == len(pool):
            plan = _plan(pool, widths, fenced)
        if plan is not None:
            try:
                out.extend(_merge(c) for c in plan)
                continue
            except ValueError:
                pass
        for f, line, evs, w in lines:
            if w:
                notes.append(f"{f}:{line} {space} {op}: {len({e.pc for e in evs})} PTX instruction(s), "
                             f"{sum(w.values())} SASS; counted as PTX")
            out.extend(evs)
    out.sort(key=lambda e: (e.pc, e.space))
    return out, notes
