"""One streaming multiprocessor running a kernel's blocks, SASS instruction by instruction.

The SM has four schedulers (sub-partitions); a block's warps are dealt to them in turn. Each
cycle a scheduler may issue one instruction of one of its warps whose operands are ready
(a register is ready a fixed latency after a fixed-latency instruction issues, or when its
load completes) and whose pipe is free (each pipe accepts a warp instruction every
`interval` cycles); it prefers the warp it issued last, then the oldest. Shared by the four:
the L1/shared data stage (one 128-byte wavefront per cycle), and this SM's share of L2 and
DRAM bandwidth, each a first-come first-served server ahead of a fixed latency, and after L2
the atomic units a global atomic reaches (analysis.atomics), whose time the chip shares. A barrier
releases its block's warps once every warp still running has arrived. When a block's warps
have all exited, the next block takes its place, a measured refill time later.

Everything here is a count, a rate or a latency passed in; nothing is fitted. The result is
the cycles the SM takes, each resource's busy cycles, and the cycles schedulers sat idle,
by what the warp they next issued had waited for.
"""
from __future__ import annotations

import heapq
import statistics
from dataclasses import dataclass, field

NORMAL, SHARED, LOAD, STORE, BARRIER, ATOMIC = range(6)
# what an issued instruction waited for (the register it read last became ready through)
WAITS = ("pipe latency", "shared memory", "L1", "L2", "DRAM", "barrier", "pipe busy", "issue")
_W_FIXED, _W_SHARED, _W_L1, _W_L2, _W_DRAM, _W_BAR, _W_PIPE = range(7)


@dataclass(frozen=True)
class Op:
    """A static SASS instruction as the scheduler sees it. With ptxas's control bits (stall >= 0), its
    warp waits `stall` cycles before its next instruction and for the scoreboard barriers in `wait`;
    `write_barrier` is released when its result arrives, `read_barrier` once its operands are read (7:
    none). Without them, registers: a result is ready `latency` cycles after issue (or when its load
    completes), and an instruction waits for the registers it reads."""

    pipe: int
    interval: float
    latency: float
    srcs: tuple[int, ...]
    dsts: tuple[int, ...]
    kind: int = NORMAL
    stall: int = -1
    write_barrier: int = 7
    read_barrier: int = 7
    wait: int = 0


@dataclass(frozen=True)
class Access:
    """One dynamic memory instruction of a warp: the data stage's wavefronts and, for global
    memory, the 128-byte lines that go to L2 and the DRAM bytes it causes; `level` is where the
    slowest of its data comes from (1 L1, 2 L2, 3 DRAM; 0 shared memory or no data)."""

    wavefronts: float
    lines: float = 0.0
    dram_bytes: float = 0.0
    level: int = 0
    latency: float = 0.0  # shared memory, atomics: the latency after the data stage
    l2_bytes: float = 0.0  # the bytes of the sectors that go to L2
    dram_lines: float = 0.0  # the lines DRAM opens for it: those the block had not yet touched
    serial: tuple = ()  # global atomics: (unit, cycles) on the L2's atomic units the whole chip shares
    l2_ops: float = 0.0  # global atomics: the L2's sector operations (they cost the L2 in place of lines)
    l2_partial: float = 0.0  # stores: the sectors they write in part (each costs the L2 beside its line)


@dataclass
class WarpWork:
    """What one warp of the block does: the SASS instruction indices it issues, and for each
    memory instruction among them, in order, its Access."""

    stream: list[int]
    accesses: list[Access]


@dataclass(frozen=True)
class Memory:
    """The SM's memory system: cycles per wavefront of the data stage; this SM's share of L2, in cycles
    per line and per byte, for loads and for stores (an access costs the larger), and of DRAM (cycles
    per byte); latencies in cycles."""

    wavefront_clk: float
    l2_load_line_clk: float
    l2_load_byte_clk: float
    l2_store_line_clk: float
    l2_store_byte_clk: float
    dram_byte_clk: float
    dram_line_clk: float  # scattered requests: DRAM serves lines at its random-access rate
    latency_l1: float
    latency_l2: float
    latency_dram: float
    dram_sigma: float = 0.0  # the spread (standard deviation) of one line's DRAM latency
    l2_atomic_op_clk: float = 0.0  # this SM's share of L2, in cycles per atomic sector operation
    l2_partial_clk: float = 0.0  # and per sector a store writes in part (on top of its line)


# The latency spread, without randomness: successive accesses take successive points of a low-
# discrepancy sequence of standard normal quantiles, so a request that waits for k lines waits for the
# largest of k draws and a barrier for the slowest of its warps, as on the GPU.
_GOLDEN = 0.6180339887498949
_NORMAL = [statistics.NormalDist().inv_cdf((i + 0.5) / 1024) for i in range(1024)]


@dataclass
class Result:
    cycles: float  # until the last block's last warp finished and its stores drained
    block_done: list[float]  # when each block finished, in launch order
    issued: int
    pipe_busy: dict[int, float]  # pipe -> busy cycles summed over the four schedulers
    data_stage: float  # busy cycles of the L1/shared data stage
    l2: float  # busy cycles of this SM's L2 share
    dram: float  # busy cycles of this SM's DRAM share
    idle: dict[str, float] = field(default_factory=dict)  # scheduler-cycles idle, by what was waited for
    deadlock: bool = False
    atomic_units: float = 0.0  # busy cycles of the busiest L2 atomic unit, this SM's share


def _l2_cost(a: Access, rates: tuple[float, float], op_clk: float, partial_clk: float) -> float:
    """Cycles of this SM's L2 share an access of global memory takes: (cycles per line, per byte) `rates`."""
    line_clk, byte_clk = rates
    return max(a.l2_ops * op_clk if a.l2_ops else a.lines * line_clk + a.l2_partial * partial_clk,
               a.l2_bytes * byte_clk)


def _dram_cost(a: Access, byte_clk: float, line_clk: float) -> float:
    """Cycles of this SM's DRAM share an access takes: its bytes, or the lines it opens, whichever is more."""
    return max(a.dram_bytes * byte_clk, a.dram_lines * line_clk)


@dataclass
class Demand:
    """What one block asks of the SM's servers, whatever the timing: busy cycles of each pipe (summed over
    the schedulers), of the data stage, of L2 and of DRAM, and the instructions it issues."""

    issued: int
    pipe_busy: dict[int, float]
    data_stage: float
    l2: float
    dram: float


def demand(ops: list[Op], warps: list[WarpWork], mem: Memory) -> Demand:
    """The busy cycles `simulate` charges the servers for one block of `warps`, counted without running it:
    the servers' share of a mix of blocks is the mix of these, however few of a rare block a run has."""
    pipes: dict[int, float] = {}
    l1 = l2 = dram = 0.0
    issued = 0
    l2_ld, l2_st = (mem.l2_load_line_clk, mem.l2_load_byte_clk), (mem.l2_store_line_clk, mem.l2_store_byte_clk)
    for w in warps:
        issued += len(w.stream)
        accesses = iter(w.accesses)
        for i in w.stream:
            o = ops[i]
            pipes[o.pipe] = pipes.get(o.pipe, 0.0) + o.interval
            if o.kind == NORMAL or o.kind == BARRIER:
                continue
            a = next(accesses)
            l1 += a.wavefronts * mem.wavefront_clk
            if o.kind != SHARED and o.kind != ATOMIC and a.lines > 0:
                l2 += _l2_cost(a, l2_st if o.kind == STORE else l2_ld, mem.l2_atomic_op_clk, mem.l2_partial_clk)
                if a.dram_bytes > 0:
                    dram += _dram_cost(a, mem.dram_byte_clk, mem.dram_line_clk)
    return Demand(issued, pipes, l1, l2, dram)


def simulate(ops: list[Op], warps: list[WarpWork] | list[list[WarpWork]], resident: int, blocks: int, mem: Memory,
             barrier_latency: float, block_launch: float = 0.0, schedulers: int = 4, nregs: int = 640,
             block_refill: float = 0.0) -> Result:
    """Run `blocks` blocks of the warps `warps` (one block's), `resident` at a time, on one SM, which
    starts a block at most every `block_launch` cycles, and in a slot a block has left no sooner than
    `block_refill` cycles after it left. Blocks that do different work: `warps` is a list of blocks'
    warps, and the i-th block launched runs the (i mod len)-th."""
    kinds = warps if warps and isinstance(warps[0], list) else [warps]
    nw = len(kinds[0])
    wf, drc, dlc, sigma = mem.wavefront_clk, mem.dram_byte_clk, mem.dram_line_clk, mem.dram_sigma
    draw = [0.0]  # the position in the sequence of quantiles

    def spread(lines: float) -> float:
        """The largest of `lines` draws of the DRAM latency's spread."""
        k = min(max(int(lines + 0.5), 1), 32)
        best = -9.0
        for _ in range(k):
            draw[0] = (draw[0] + _GOLDEN) % 1.0
            z = _NORMAL[int(draw[0] * 1024)]
            if z > best:
                best = z
        return sigma * best
    l2_ld, l2_st = (mem.l2_load_line_clk, mem.l2_load_byte_clk), (mem.l2_store_line_clk, mem.l2_store_byte_clk)
    lat_l1, lat_l2, lat_dram = mem.latency_l1, mem.latency_l2, mem.latency_dram
    l2_op, l2_part = mem.l2_atomic_op_clk, mem.l2_partial_clk
    npipes = 1 + max((o.pipe for o in ops), default=0)
    t_sched = [0.0] * schedulers
    pipe_free = [[0.0] * npipes for _ in range(schedulers)]
    busy = [0.0] * npipes
    idle = [0.0] * 8
    free = {"l1": 0.0, "l2": 0.0, "dram": 0.0}
    units: dict[int, float] = {}  # when each L2 atomic unit (analysis.atomics) is next free
    unit_busy: dict[int, float] = {}
    usage = {"l1": 0.0, "l2": 0.0, "dram": 0.0}
    # live warps: per slot lists (fast indexing)
    stream: list = []
    acc: list = []
    pos: list = []
    apos: list = []
    ready: list = []
    why: list = []
    dep: list = []
    dep_why: list = []
    sb: list = []  # per warp, the six scoreboard barriers: (time clear, what it waits for)
    next_ok: list = []  # per warp, the earliest cycle its stall count allows
    state: list = []  # 0 running, 1 at a barrier, 2 done
    blk_of: list = []
    sched_warps: list[list[int]] = [[] for _ in range(schedulers)]
    last = [-1] * schedulers
    # blocks
    launched = 0
    done_times: list[float] = []
    done_ids: list[int] = []  # which block (in launch order) each of done_times is
    slot_block: list[dict] = []
    issued = 0

    def operands_ready(w: int) -> None:
        o = ops[stream[w][pos[w]]]
        best, tag = next_ok[w], _W_FIXED
        if o.stall >= 0:
            m, b = o.wait, sb[w]
            k = 0
            while m:
                if m & 1 and b[k][0] > best:
                    best, tag = b[k]
                m >>= 1
                k += 1
        else:
            r = ready[w]
            for s in o.srcs:
                if r[s] > best:
                    best, tag = r[s], why[w][s]
        if best > dep[w]:
            dep[w], dep_why[w] = best, tag

    launcher = [0.0]

    def launch(slot: int, t: float) -> None:
        nonlocal launched
        t = max(t, launcher[0])
        launcher[0] = t + block_launch
        b = {"live": nw, "arrived": 0, "at": 0.0, "waiting": [], "end": t, "warps": [], "id": launched}
        warps = kinds[launched % len(kinds)]
        for k in range(nw):
            w = len(stream)
            stream.append(warps[k].stream)
            acc.append(warps[k].accesses)
            pos.append(0)
            apos.append(0)
            ready.append([0.0] * nregs)
            why.append([_W_FIXED] * nregs)
            dep.append(t)
            dep_why.append(_W_FIXED)
            sb.append([(0.0, _W_FIXED)] * 6)
            next_ok.append(t)
            state.append(0 if warps[k].stream else 2)
            blk_of.append(slot)
            b["warps"].append(w)
            if not warps[k].stream:
                b["live"] -= 1
            sched_warps[(slot * nw + k) % schedulers].append(w)
        if slot < len(slot_block):
            slot_block[slot] = b
        else:
            slot_block.append(b)
        launched += 1

    for slot in range(min(resident, blocks)):
        launch(slot, 0.0)

    def candidate(k: int) -> tuple[float, int]:
        t0 = t_sched[k]
        pf = pipe_free[k]
        best_t, best_w = float("inf"), -1
        lw = last[k]
        for w in sched_warps[k]:
            if state[w]:
                continue
            o = ops[stream[w][pos[w]]]
            e = dep[w]
            if pf[o.pipe] > e:
                e = pf[o.pipe]
            if e < t0:
                e = t0
            if e < best_t or (e == best_t and w == lw):
                best_t, best_w = e, w
        return best_t, best_w

    # each scheduler's next issue (time, scheduler, version, warp); an entry is stale once its scheduler's
    # version moved on (its warps, pipes or clock changed), and valid entries are exact
    heap: list = []
    version = [0] * schedulers

    def refresh(k: int) -> None:
        version[k] += 1
        t, w = candidate(k)
        if w >= 0:
            heapq.heappush(heap, (t, k, version[k], w))

    for k in range(schedulers):
        refresh(k)

    def finish_block(slot: int, t: float) -> None:
        b = slot_block[slot]
        done_times.append(t)
        done_ids.append(b["id"])
        for w in b["warps"]:
            for k in range(schedulers):
                if w in sched_warps[k]:
                    sched_warps[k].remove(w)
        if launched < blocks:
            launch(slot, t + block_refill)
            for k in range(schedulers):
                refresh(k)

    def release(slot: int) -> None:
        b = slot_block[slot]
        at = b["at"] + barrier_latency
        for w in b["waiting"]:
            state[w] = 0
            if at > dep[w]:
                dep[w], dep_why[w] = at, _W_BAR
        b["waiting"], b["arrived"] = [], 0
        for k in range(schedulers):
            refresh(k)

    deadlock = False
    while heap:
        e, k, v, w = heapq.heappop(heap)
        if v != version[k]:
            continue
        o = ops[stream[w][pos[w]]]
        # idle scheduler cycles before this issue, charged to what held this warp back
        gap = e - t_sched[k]
        if gap > 0:
            if pipe_free[k][o.pipe] >= e - 1e-9 and pipe_free[k][o.pipe] > dep[w]:
                idle[_W_PIPE] += gap
            else:
                idle[dep_why[w]] += gap
        issued += 1
        last[k] = w
        t_sched[k] = e + 1.0
        pipe_free[k][o.pipe] = e + o.interval
        busy[o.pipe] += o.interval
        kind = o.kind
        done_at, tag = e + o.latency, _W_FIXED
        s1 = e
        if kind != NORMAL and kind != BARRIER:
            a = acc[w][apos[w]]
            apos[w] += 1
            s1 = free["l1"] if free["l1"] > e else e
            e1 = s1 + a.wavefronts * wf
            free["l1"] = e1
            usage["l1"] += a.wavefronts * wf
            if kind == SHARED or kind == ATOMIC:
                done_at, tag = e1 + a.latency, _W_SHARED
            else:
                done_at, tag = e1 + lat_l1, _W_L1
                if a.lines > 0:
                    s2 = free["l2"] if free["l2"] > e1 else e1
                    c2 = _l2_cost(a, l2_st if kind == STORE else l2_ld, l2_op, l2_part)
                    e2 = s2 + c2
                    free["l2"] = e2
                    usage["l2"] += c2
                    if a.level >= 2:
                        done_at, tag = e2 + lat_l2, _W_L2
                    if a.dram_bytes > 0:
                        s3 = free["dram"] if free["dram"] > e2 else e2
                        c3 = _dram_cost(a, drc, dlc)
                        e3 = s3 + c3
                        free["dram"] = e3
                        usage["dram"] += c3
                        if a.level >= 3:
                            done_at, tag = e3 + lat_dram + (spread(a.lines) if sigma else 0.0), _W_DRAM
                    for unit, c4 in a.serial:  # global atomics: after L2, each unit in turn
                        s4 = units.get(unit, 0.0)
                        s4 = s4 if s4 > e2 else e2
                        units[unit] = s4 + c4
                        unit_busy[unit] = unit_busy.get(unit, 0.0) + c4
                        if kind == LOAD and s4 + c4 + lat_l2 > done_at:
                            done_at, tag = s4 + c4 + lat_l2, _W_L2
        if o.stall >= 0:
            next_ok[w] = e + (o.stall if o.stall > 1 else 1)
            if o.write_barrier < 6:
                sb[w][o.write_barrier] = (done_at, tag)
            if o.read_barrier < 6:
                sb[w][o.read_barrier] = ((s1 if kind not in (NORMAL, BARRIER) else e) + 1.0, tag)
        elif kind != STORE:
            r, y = ready[w], why[w]
            for d in o.dsts:
                r[d] = done_at
                y[d] = tag
        pos[w] += 1
        slot = blk_of[w]
        b = slot_block[slot]
        if b["end"] < done_at:
            b["end"] = done_at
        if kind == BARRIER:
            b["arrived"] += 1
            if e > b["at"]:
                b["at"] = e
            b["waiting"].append(w)
            state[w] = 1
        if pos[w] >= len(stream[w]):
            state[w] = 2
            b["live"] -= 1
            if w in b["waiting"]:
                b["waiting"].remove(w)
                b["arrived"] -= 1
            if b["live"] == 0:
                finish_block(slot, max(b["end"], e + 1.0))
                refresh(k)
                continue
        else:
            dep[w] = 0.0
            operands_ready(w)
        if b["live"] > 0 and b["arrived"] >= b["live"] and b["arrived"] > 0:
            release(slot)
        refresh(k)
    if launched < blocks or len(done_times) < blocks:
        deadlock = True
    # the kernel ends once its last block has finished and the stores still in flight have drained
    end = max(max(done_times) if done_times else 0.0, free["l2"], free["dram"], max(units.values(), default=0.0))
    in_order = [t for _, t in sorted(zip(done_ids, done_times))]
    return Result(end, in_order, issued, {p: busy[p] for p in range(npipes) if busy[p]}, usage["l1"],
                  usage["l2"], usage["dram"], {WAITS[i]: idle[i] for i in range(8) if idle[i]}, deadlock,
                  max(unit_busy.values(), default=0.0))
