"""Kernel time from first principles: CUDA-event time of one launch at default clocks, inputs
not resident in L2 (as kernels.bench measures), with no GPU.

    python -m analysis.timing TARGET [--size N] [--gpu NAME] [--json]

How: the simulator's trace and each warp's path through the PTX become, for one block, the
SASS each warp issues (analysis.sassflow) and what each of its memory instructions costs
(analysis.memaccess). One SM is then simulated running the launch's blocks, as many at a time
as occupancy allows (a freed slot taking its next block the measured refill time later),
instruction by instruction (analysis.smsim): four schedulers, each pipe's measured issue
interval and dependent latency, the L1/shared data stage, and this SM's share
of L2 and DRAM bandwidth (the launch's busy SMs share them evenly) ahead of their measured
latencies, and the L2 atomic units global atomics reach (analysis.atomics). A server's busy time
per block bounds the pace at which blocks are extrapolated: stores and atomics nobody waits for
still queue. The busiest SM's time, at the clock, plus what the bench protocol adds to a kernel's
own time (events around a launch from Python, by its argument count), is the prediction. Every rate and latency is the GPU row's
(cudasim/gpus.json, measured by kernels.microbench on the H100, the atomic units' constants fitted
to its atomic patterns); nothing is fitted to kernels' times.

Bench sizes are simulated at two smaller sizes of the same kernel and the SM's cycles
extrapolated linearly in the size (analysis.simulation); a launch with more blocks per SM than
is worth simulating is extrapolated from the pace of its later simulated waves. The output says
which. Where the sampled interior blocks did different work (loops that depend on the block or the
data), the SM runs each of them as often as the blocks it stands for, and a block whose longest
warp runs far longer than theirs (rows sorted longest first) is run on the SM that starts it: the
kernel ends no earlier than that block ("longest block", load imbalance).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .. import atomics, issues, memaccess, sassflow, sassops, smsim, traffic
from ..common import MADE_UP, SECTOR, WORK_SPREAD, Metric, Model, Sample, Simulation, View, interior, longest_warp

DURATION = Metric("gpu__time_duration.sum", "ns", "time ns", "info")
RATES = ("sm_clock_mhz", "issue_per_clk_sm", "fp32_per_clk_sm", "fp64_per_clk_sm", "int_per_clk_sm", "imad_wide_per_clk_sm",
         "mufu_per_clk_sm", "ldc_per_clk_sm", "tf32_mma_flop_per_clk_sm", "fp64_mma_flop_per_clk_sm",
         "fp32_latency", "imad_latency", "alu_latency", "fp64_latency", "xu_latency", "hmma_latency", "dmma_latency",
         "shfl_latency", "atoms_latency", "barrier_latency", "uniform_latency", "const_latency", "sreg_latency",
         "branch_latency", "latency_smem_clk", "latency_ld_shared_clk", "l1_wavefront_clk", "l1_tag_lines_per_clk",
         "latency_l1_clk", "l1_shared_bytes",
         "l2_gbs", "l2_load_gbs", "l2_load_line_gps", "l2_store_line_gps", "l2_store_partial_gps", "l2_store_gbs",
         "latency_l2_clk",
         "l2_random_capacity_mb", "dram_read_gbs", "dram_write_gbs", "dram_copy_gbs", "dram_random_gps",
         "latency_dram_clk", "dram_queue_clk", "dram_sigma_clk",
         "launch_us", "launch_per_arg_us", "block_launch_clk", "block_launch_clk_1024", "block_refill_clk",
         "atomic_chunk_bytes", "atomic_line_ns", "atomic_lane_ns", "atomic_repeat_ns", "atomic_same_line_ns",
         "atomic_same_line_lane_ns", "atomic_same_line_repeat_ns", "atomic_l2_op_ns")
SIM_WAVES = 16  # at most this many waves of resident blocks are simulated before the pace is extrapolated
SIM_INSTRUCTIONS = 400_000  # warp instructions one SM simulation may issue, beyond two waves
_RESOURCE = {"fma": "fp32 pipe", "imad": "IMAD pipe", "alu": "integer/logic pipe", "fp64": "fp64 pipe",
             "xu": "MUFU pipe", "hmma": "tensor pipe", "dmma": "tensor pipe", "uniform": "uniform pipe",
             "const": "constant cache (LDC)"}


class NoRates(ValueError):
    """The GPU row has no measured rates for this model."""


def rates(gpu) -> dict[str, float]:
    """The GPU row's timing rates by name, and the per-scheduler issue intervals they imply; NoRates
    naming the missing ones."""
    missing = [k for k in RATES if k not in gpu.timing]
    if missing:
        raise NoRates(f"no timing rates for {gpu.key} in cudasim/gpus.json (missing {', '.join(missing[:3])}"
                      f"{', ...' if len(missing) > 3 else ''}); the timing model knows only GPUs whose rates were "
                      f"measured (python -m kernels.microbench) or cited")
    r = {k: float(gpu.timing[k]["value"]) for k in RATES}
    per_sched = 4.0 * 32  # a warp instruction is 32 lanes; a rate per SM is four schedulers' worth
    r.update(fp32_interval=per_sched / r["fp32_per_clk_sm"], imad_interval=per_sched / r["int_per_clk_sm"],
             alu_interval=per_sched / r["int_per_clk_sm"], fp64_interval=per_sched / r["fp64_per_clk_sm"],
             imad_wide_interval=per_sched / r["imad_wide_per_clk_sm"],
             xu_interval=per_sched / r["mufu_per_clk_sm"], uniform_interval=1.0, branch_interval=1.0,
             const_interval=4.0 / r["ldc_per_clk_sm"],  # a rate of warp instructions: the SM's, over four
             hmma_interval=4.0 * 1024 / r["tf32_mma_flop_per_clk_sm"],  # HMMA.1684: m16n8k4, 1024 FLOP
             dmma_interval=4.0 * 512 / r["fp64_mma_flop_per_clk_sm"])  # DMMA.8x8x4: 512 FLOP
    return r


# ---- one SM at one sample size ------------------------------------------------------------------------

def representative(s: Sample) -> int:
    """The followed block that stands for the most blocks (an interior one), else the middle one."""
    blocks = sorted(s.followed)
    weights = s.follow_weights or s.weights
    if weights:
        return max(blocks, key=lambda b: (weights.get(b, 0.0), -b))
    return blocks[len(blocks) // 2]




@dataclass
class Prepared:
    """One sample, ready for the SM: per block it runs (the representative one; where the sampled interior
    blocks did different work, each of them), each warp's SASS stream and its memory accesses; the memory
    totals."""

    sample: Sample
    block: int
    kinds: list  # (streams, BlockAccesses) per block the SM runs in turn
    totals: dict
    blocks: list  # the block each kind is
    share: list = field(default_factory=lambda: [1.0])  # the share of the grid's blocks each kind stands for
    order: list = field(default_factory=lambda: [0])  # the kind of each block the SM starts, in turn
    longest: int | None = None  # the kind of a block whose longest warp outlasts the others' (its share: itself)

    def per_block(self, f) -> float:
        """The mean of f(streams, accesses) over the grid's blocks, each kind by its share."""
        return sum(f(st, acc) * w for (st, acc), w in zip(self.kinds, self.share))


LONGEST_BLOCKS_INSTRUCTIONS = 1_000_000  # warp instructions the run beside the longest block may issue
LONGEST_WARP = 2.0  # a block whose longest warp runs this many times the longest the SM runs in turn is timed apart
KIND_SLOTS = 128  # at most this many blocks in the SM's turn of kinds that stand for unequal shares


def kind_order(weights: list[float], slots: int) -> list[int]:
    """Kinds for `slots` blocks in turn, each as often as its weight says and spread evenly (any run of
    blocks is a fair mix: the SM may run fewer than a turn)."""
    total = sum(weights)
    given = [0] * len(weights)
    out = []
    for t in range(1, slots + 1):
        i = max(range(len(weights)), key=lambda k: (weights[k] * t / total - given[k], -k))
        given[i] += 1
        out.append(i)
    return out


def sm_turn(blocks: list[int], weights: list[float], work: list[int], total: int, sms: int,
            resident: int) -> list[int]:
    """The kinds of the blocks one SM starts, in turn, where sampled blocks did different work: the block
    scheduler deals the grid out round robin (SM c starts blocks c, c + sms, ...), each block the kind whose
    share of the grid, in block order, holds it; the SM is the one whose first wave carries the most work
    (all SMs start together: the kernel waits for the heaviest)."""
    idx = sorted(range(len(blocks)), key=lambda i: blocks[i])
    bounds = np.cumsum([weights[i] for i in idx])
    bounds *= total / bounds[-1]

    def kinds_at(pos: np.ndarray) -> np.ndarray:
        return np.asarray(idx)[np.minimum(np.searchsorted(bounds, pos, side="right"), len(idx) - 1)]
    first = kinds_at(np.arange(min(total, sms * resident)))
    load = np.bincount(np.arange(len(first)) % sms, weights=np.asarray(work, float)[first], minlength=sms)
    c = int(np.argmax(load))
    return kinds_at(np.arange(c, total, sms)).tolist()


def prepare(sim: Simulation, s: Sample, r: dict[str, float]) -> Prepared:
    if s.listing is None:
        raise NoRates("the timing model reads the SASS the GPU runs: pip install nvidia-cuda-nvdisasm")
    prog = s.program
    walker = sassflow.Walker.build(sassflow.sass_graph(s.listing), sim.body, prog.cfg, prog.fn.labels, prog.run_end)
    bypass, leaders = memaccess.bypass_keys(s.listing), memaccess.leader_elected(s.listing)
    # the L1 sectors a block keeps: what the shared-memory carveout leaves of the SM's L1, shared by the blocks
    # resident beside it (blocks of one SM are far apart in the grid: each keeps its own)
    resident = max(int(sim.occupancy["blocks_per_sm"]), 1)
    beside = min(resident, -(-s.blocks_total // sim.gpu.sms))
    l1_sectors = max(1, int(r["l1_shared_bytes"] - sim.occupancy["carveout_bytes"]) // SECTOR // beside)

    def kind(block: int) -> tuple[list, memaccess.BlockAccesses]:
        path = s.followed[block]
        link = prog.fn.linkage
        called = sorted({link.callees[pc] for pc, _ in path if pc in link.callees}) if link is not None else []
        if called:
            fix = ("leave out the printf to time the rest" if called == ["vprintf"] else
                   "mark the function __forceinline__ (recursion cannot be inlined) to time it")
            raise ValueError(f"warps of block {s.trace.block_coords(block)} call {', '.join(called)}, which ptxas did "
                             f"not inline: the SASS walk follows the kernel's own code only, so this kernel's time "
                             f"cannot be predicted; {fix}")
        streams = []
        for w in range(-(-sim.threads_per_block // 32)):
            pw = [pc for pc, bits in path if bits >> w & 1]
            streams.append(walker.stream(pw, parted=walker.parted(s.parted.get(block), w)).tolist() if pw else [])
            ptx = sum(prog.run_end(pc) - pc for pc in pw)
            if issues.lost(len(streams[-1]), ptx):
                # far longer or far shorter than the PTX the warp ran: the walk left the warp's path (a loop it
                # skipped would make a confident answer many times too short)
                raise ValueError(f"the SASS walk lost warp {w}'s PTX path in block {s.trace.block_coords(block)} "
                                 f"({len(streams[-1]):,} SASS instructions for {ptx:,} PTX ones); this kernel's time "
                                 "cannot be predicted")
        return streams, memaccess.BlockAccesses(s.trace, block, r["latency_smem_clk"], r["atoms_latency"],
                                                r["latency_ld_shared_clk"], bypass, leaders,
                                                int(r["l1_tag_lines_per_clk"]), l1_sectors)

    block = representative(s)
    kinds, blocks = [kind(block)], [block]
    # blocks whose loops depend on the block or the data (escape times, ragged rows): the SM runs every
    # sampled interior block in turn, as the hardware's blocks come to it from all over the grid
    inner = [b for b in sorted(s.followed) if b != block and interior(s.trace, b)]
    if inner and interior(s.trace, block):
        more = [kind(b) for b in inner]
        work = [sum(map(len, st)) for st, _ in kinds + more]
        if min(work) > 0 and max(work) > WORK_SPREAD * min(work):
            kinds += more
            blocks += inner
    given = s.follow_weights or s.weights
    weights = [given.get(b, 1.0) if given else 1.0 for b in blocks]
    share = [w / sum(weights) for w in weights]
    # blocks whose work differs, as the SM's own turn of the grid (sm_turn) where it is short enough to run
    # whole; else kinds standing for equal shares run in turn, unequal ones as often as their shares say
    sms = min(sim.gpu.sms, s.blocks_total)
    if len(kinds) > 1 and s.blocks_total <= KIND_SLOTS * sms:  # a turn the SM simulation runs whole
        order = sm_turn(blocks, weights, work, s.blocks_total, sms, resident)  # work: every kind's, above
    else:  # a longer turn is run in part, its pace taken on to the rest: a fair mix in any run of blocks
        order = (list(range(len(kinds))) if max(weights) <= min(weights) * 1.01
                 else kind_order(weights, min(KIND_SLOTS, 2 * len(kinds))))
    # a block whose longest warp is far longer than any the SM runs in turn (rows sorted longest first put
    # the heaviest in block 0) may end after every other: the kernel's critical path
    longest = None
    span = {b: longest_warp(path, prog.run_end) for b, path in s.followed.items()}
    heavy = max(span, key=lambda b: (span[b], -b))
    others = [span[b] for b in blocks if b != heavy]
    if others and span[heavy] > LONGEST_WARP * max(others):
        # its share of the grid is the blocks it stands for (itself, where every block ran), the rest the others'
        mine = min(1.0, (given.get(heavy, 1.0) if given else 1.0) / s.blocks_total)
        if heavy in blocks:  # a kind of the turn already: it is also the one that may end last
            longest = blocks.index(heavy)
            rest = sum(x for i, x in enumerate(share) if i != longest)
            share = [mine if i == longest else x * (1.0 - mine) / rest for i, x in enumerate(share)]
        else:
            kinds.append(kind(heavy))
            blocks.append(heavy)
            share = [x * (1.0 - mine) for x in share] + [mine]
            longest = len(kinds) - 1
    return Prepared(s, block, kinds, traffic.memory_totals(s), blocks, share, order, longest)


def sm_cycles(p: Prepared, r: dict[str, float], active_sms: int, busiest: int, resident: int, f_rd: float,
              f_wr: float, dram_rate: float, dram_u: float | None = None) -> dict:
    """One SM running `busiest` blocks of this sample's program: cycles, resources' busy cycles, counts.
    `f_rd` / `f_wr`: the share of L1-missing load bytes / stored bytes that DRAM moves, at `dram_rate`."""
    s = p.sample
    clk = r["sm_clock_mhz"] * 1e6
    units = atomics.Units.of(r)
    # a unit's ns, in this SM's cycles: the clock times the blocks on the chip that reach the unit at once
    # over the simulated SM's blocks that do (all SMs alike, unless the addresses say otherwise)
    words = memaccess.atomic_words(s.trace)
    window = min(active_sms * resident, s.blocks_total)
    reach = [set(np.concatenate(atomics.reached_units(words[b], units.chunk_bytes)).tolist()) if b in words else set()
             for b in p.blocks]

    def unit_clk(b: int):
        share = atomics.sharing(words, b, units, window)
        return lambda u: clk * 1e-9 * (share[u] / (resident * sum(u in r for r in reach) / len(reach))
                                       if u in share else active_sms)
    kinds = [[smsim.WarpWork(st, acc.for_warp(s.listing, st, w, f_rd, f_wr, r["shfl_latency"], units, clk_b))
              for w, st in enumerate(streams)] for (streams, acc), clk_b in ((k, unit_clk(b)) for k, b in
                                                                            zip(p.kinds, p.blocks))]
    ops = sassops.decode(s.listing.instructions, r)
    per_sm = 1.0 / active_sms / clk  # a chip-wide rate per second -> this SM's share per cycle

    def memory(u: float) -> smsim.Memory:
        """The memory system with DRAM's latency at utilization u: the mean grows by the measured queueing
        (dram_queue_clk x u / (1 - u)), and so does the spread (a queue's wait varies about as much as
        its mean)."""
        wait = r["dram_queue_clk"] * u / (1 - u)
        return smsim.Memory(r["l1_wavefront_clk"], 1.0 / (r["l2_load_line_gps"] * 1e9 * per_sm),
                            1.0 / (r["l2_load_gbs"] * 1e9 * per_sm), 1.0 / (r["l2_store_line_gps"] * 1e9 * per_sm),
                            1.0 / (r["l2_store_gbs"] * 1e9 * per_sm), 1.0 / (dram_rate * per_sm),
                            1.0 / (r["dram_random_gps"] * 1e9 * per_sm), r["latency_l1_clk"],
                            r["latency_l2_clk"], r["latency_dram_clk"] + wait,
                            r["dram_sigma_clk"], 1.0 / (1e9 / r["atomic_l2_op_ns"] * per_sm),
                            1.0 / (r["l2_store_partial_gps"] * 1e9 * per_sm))

    threads = len(kinds[0]) * 32
    launch_clk = r["block_launch_clk"] + (r["block_launch_clk_1024"] - r["block_launch_clk"]) * max(0, threads - 256) / 768

    # whole waves of resident blocks, then the last, partial wave: the waves between are extrapolated at
    # the pace of the later half of the whole ones (as many waves as SIM_INSTRUCTIONS allows, at least two,
    # at most SIM_WAVES): the first waves start together, one launch interval apart, and the blocks of
    # short-lived kernels take several waves to spread out into their steady pace
    per_block = max(p.per_block(lambda st, _: sum(map(len, st))), 1)
    waves = max(2, min(SIM_WAVES, int(SIM_INSTRUCTIONS // (resident * per_block))))
    if len(p.order) > 1:  # after the first wave, every kind of block at least once
        waves = max(waves, 1 + -(-len(p.order) // resident))
    full = resident * waves
    n = busiest if busiest <= full + busiest % resident else full + busiest % resident

    def run(u: float) -> smsim.Result:
        return smsim.simulate(ops, [kinds[i] for i in p.order], resident, n, memory(u), r["barrier_latency"],
                              launch_clk, block_refill=r["block_refill_clk"])

    # DRAM's latency grows with its load (requests queue at the channels, measured: dram_queue_clk): the
    # utilization u at which a run at latency(u) keeps DRAM busy u of the time (the secant between a run
    # at no queueing and one at the first run's utilization), unless given
    if dram_u is None:
        res = run(0.0)
        u0 = min(res.dram / res.cycles, 0.95) if res.cycles else 0.0
        dram_u = 0.0
        if u0 > 0.1:
            r1 = run(u0)
            u1 = r1.dram / r1.cycles if r1.cycles else 0.0
            dram_u = min(0.95, u0 * u0 / max(2 * u0 - u1, 1e-9))
            res = run(dram_u)
    else:
        res = run(dram_u)
    if res.deadlock:
        raise ValueError("the SM simulation stopped with warps waiting at a barrier that not every warp reaches "
                         "(the SASS walk lost the path); this kernel's time cannot be predicted")
    cycles = res.cycles
    if busiest > n:
        done = sorted(res.block_done)
        first = resident * (waves // 2) - 1 if len(p.order) == 1 else resident - 1  # alike: the later half
        pace = (done[full - 1] - done[first]) / (full - 1 - first)
        # a server's busy time per block bounds the pace too: stores and atomics that no warp waits for
        # still queue there, and in the steady state the SM cannot outrun them
        pace = max(pace, *(busy / n for busy in (res.l2, res.dram, res.atomic_units, res.data_stage)))
        cycles += (busiest - n) * pace
    longest = 0.0
    if p.longest is not None:
        # the SM that starts the longest block: it runs beside the blocks in turn, from when the launch order
        # reaches it, and the kernel ends no earlier than it does. Its co-runners contend for the SM; DRAM is
        # taken unloaded, as it is for most of such a block's life (it runs on after the bulk of the grid)
        turn = [kinds[i] for i in p.order]
        m = min(busiest, max(n, int(LONGEST_BLOCKS_INSTRUCTIONS // per_block)))
        alone = smsim.simulate(ops, [kinds[p.longest]] + turn * -(-m // len(turn)), resident, m, memory(0.0),
                               r["barrier_latency"], launch_clk, block_refill=r["block_refill_clk"])
        wave_of = p.blocks[p.longest] // (active_sms * resident)
        longest = cycles * min(1.0, wave_of * active_sms * resident / s.blocks_total) + alone.block_done[0]
    k = busiest / max(n, 1)
    # the servers' busy cycles: each kind of block by its share of the grid (the run's turn of kinds may
    # leave out a rare one, a block among hundreds that does the work); no fewer cycles than they take
    charged = memory(dram_u)
    asked = [smsim.demand(ops, warps, charged) for warps in kinds]

    def busy(f) -> float:
        return busiest * sum(f(d) * w for d, w in zip(asked, p.share))
    pipe_busy = {pipe: busy(lambda d: d.pipe_busy.get(pipe, 0.0)) for pipe in {q for d in asked for q in d.pipe_busy}}
    servers = {"issued": busy(lambda d: d.issued), "l1": busy(lambda d: d.data_stage), "l2": busy(lambda d: d.l2),
               "dram": busy(lambda d: d.dram)}
    cycles = max(cycles, servers["l1"], servers["l2"], servers["dram"], servers["issued"] / 4,
                 *(b / 4 for b in pipe_busy.values()))
    per_pipe: dict[str, float] = {}
    counts: dict[str, float] = {}
    for pipe, b in pipe_busy.items():
        name = _RESOURCE.get(sassops.PIPES[pipe])
        if name:
            per_pipe[name] = per_pipe.get(name, 0.0) + b
    for (streams, _), w in zip(p.kinds, p.share):
        for st in streams:
            for i in st:
                pipe = sassops.PIPES[ops[i].pipe]
                counts[pipe] = counts.get(pipe, 0.0) + w
    nb = s.blocks_total
    t = p.totals
    return {"cycles": cycles, "issued": servers["issued"], "pipes": per_pipe, "l1": servers["l1"],
            "l2": servers["l2"], "dram": servers["dram"], "atomic_units": res.atomic_units * k,
            "idle": {w: v * k for w, v in res.idle.items()},
            "warp_instructions_per_block": per_block, "pipe_instructions_per_block": counts,
            "totals_per_block": {key: t[key] / nb for key in ("ld_requests", "ld_sectors", "ld_lines", "st_requests",
                                                               "st_sectors", "st_lines")},
            "simulated_blocks": n, "block": p.block, "dram_u": dram_u, "longest_block": longest}


def _memory_at_size(sim: Simulation, preps: list[Prepared], wave: int, capacity: float) -> tuple[float, float, float, float]:
    """At the asked size: DRAM bytes read and written, the bytes loads miss in L1, the bytes stores write.
    With two samples, each array's bytes, footprint and loads grow as a power of the size, per-block
    traffic linearly."""
    def per(p: Prepared) -> tuple[list, float, float, float, float]:
        t = p.totals
        return (t["arrays"], t["unplaced_ld"], t["unplaced_st"], p.per_block(lambda _, a: a.load_miss_bytes),
                p.per_block(lambda _, a: a.store_bytes))

    grid = sim.grid
    if len(preps) == 1:
        arrays, ul, us_, miss, stored = per(preps[0])
        rd, wr = traffic.dram_bytes(arrays, ul, us_, grid, wave, capacity)
        return rd, wr, miss * sim.blocks, stored * sim.blocks
    (s1, s2), (a, b) = [p.sample.size for p in preps], [per(p) for p in preps]
    size = sim.size
    if len(a[0]) == len(b[0]):
        arrays = [[traffic.grow(x[k], y[k], s1, s2, size) for k in range(4)] + y[4:] for x, y in zip(a[0], b[0])]
    else:
        arrays = b[0]
    rd, wr = traffic.dram_bytes(arrays, traffic.grow(a[1], b[1], s1, s2, size), traffic.grow(a[2], b[2], s1, s2, size),
                                grid, wave, capacity)
    t = (size - s1) / (s2 - s1)
    miss = max(0.0, a[3] + (b[3] - a[3]) * t) * sim.blocks
    stored = max(0.0, a[4] + (b[4] - a[4]) * t) * sim.blocks
    return rd, wr, miss, stored


def _extrapolate(sim: Simulation, runs: list[dict]) -> tuple[dict, str]:
    """One run as is; two, every extensive figure linear in the size."""
    if len(runs) == 1:
        return runs[0], sim.samples[0].provenance
    (s1, s2), (a, b) = [s.size for s in sim.samples], runs
    t = (sim.size - s1) / (s2 - s1)

    def lin(x, y):
        if isinstance(x, dict):
            return {k: lin(x.get(k, 0.0), y.get(k, 0.0)) for k in set(x) | set(y)}
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            return max(0.0, x + (y - x) * t)
        return y

    out = {k: lin(a[k], b[k]) for k in a}
    out["simulated_blocks"] = b["simulated_blocks"]  # a count of this run's, not a figure of the size
    how = (f"sampled and scaled: simulated at sizes {s1} ({sim.samples[0].provenance}) and {s2} "
           f"({sim.samples[1].provenance}); one SM's cycles and counts extrapolated linearly in the size to "
           f"{sim.size}")
    return out, how


# ---- the model -----------------------------------------------------------------------------------

def analyze(sim: Simulation) -> dict:
    """The predicted time, each resource's time, share and utilization, the limiter, as plain data."""
    r = rates(sim.gpu)
    clk = r["sm_clock_mhz"] * 1e6
    sms = sim.gpu.sms
    resident = max(int(sim.occupancy["blocks_per_sm"]), 1)
    busiest = math.ceil(sim.blocks / sms)
    active = min(sim.blocks, sms)
    warps_pb = -(-sim.threads_per_block // 32)
    preps = [prepare(sim, s, r) for s in sim.samples]
    rd, wr, miss, stored = _memory_at_size(sim, preps, resident * active, r["l2_random_capacity_mb"] * 2 ** 20)
    f_rd = min(1.0, rd / miss) if miss > 0 else 0.0
    f_wr = min(1.0, wr / stored) if stored > 0 else 0.0
    rate = traffic.dram_byte_rate(r, rd, wr)
    last = sm_cycles(preps[-1], r, active, busiest, resident, f_rd, f_wr, rate)  # the size nearest the asked one
    runs = [sm_cycles(p, r, active, busiest, resident, f_rd, f_wr, rate, last["dram_u"]) for p in preps[:-1]] + [last]
    run, how = _extrapolate(sim, runs)
    run["dram_read"], run["dram_write"] = rd, wr
    cycles = max(run["cycles"], run.get("longest_block", 0.0))
    body_us = cycles / clk * 1e6
    launch_us = r["launch_us"] + r["launch_per_arg_us"] * len(sim.samples[0].program.fn.params)
    total_us = body_us + launch_us
    # per scheduler: those that have a warp to issue (one warp keeps one of the four busy at most)
    used = min(4, max(1, min(resident, busiest) * warps_pb))
    util = {"issue": run["issued"] / (used * cycles) if cycles else 0.0,
            "L1/shared wavefronts": run["l1"] / cycles if cycles else 0.0,
            "L2": run["l2"] / cycles if cycles else 0.0, "DRAM": run["dram"] / cycles if cycles else 0.0,
            "L2 atomic units": run["atomic_units"] / cycles if cycles else 0.0}
    for name, b in run["pipes"].items():
        util[name] = b / (used * cycles) if cycles else 0.0
    idle = run["idle"]
    waited = sum(v for k, v in idle.items() if k not in ("issue", "pipe busy"))
    util["latency"] = waited / (used * cycles) if cycles else 0.0
    if run.get("longest_block"):
        util["longest block"] = run["longest_block"] / cycles
    us = {k: min(v, 1.0) * body_us for k, v in util.items()}
    limiter = max(us, key=us.get)
    top = us[limiter]
    resources = [{"resource": k, "time_us": v, "share_pct": 100 * v / top if top else 0.0,
                  "utilization_pct": 100 * v / total_us} for k, v in sorted(us.items(), key=lambda kv: -kv[1])]
    blocks = sim.blocks
    per_block = run["pipe_instructions_per_block"]
    tot = {k: v * blocks for k, v in run["totals_per_block"].items()}
    counts = {"warp_instructions": run["warp_instructions_per_block"] * blocks,
              **{f"{p}_warp_instructions": per_block.get(p, 0.0) * blocks for p in sassops.PIPES},
              "global_load_requests": tot["ld_requests"], "global_load_sectors": tot["ld_sectors"],
              "global_load_lines": tot["ld_lines"], "global_store_requests": tot["st_requests"],
              "global_store_sectors": tot["st_sectors"], "global_store_lines": tot["st_lines"],
              "global_load_l1_hit_sectors": max(0.0, tot["ld_sectors"] - miss / SECTOR),
              "dram_read_bytes": run["dram_read"], "dram_write_bytes": run["dram_write"]}
    flops = sim.flops
    if flops is None:
        flops = 64.0 * (counts["fma_warp_instructions"] + counts["fp64_warp_instructions"])
    dram = run["dram_read"] + run["dram_write"]
    waits = {k: v / (used * cycles) * 100 for k, v in sorted(idle.items(), key=lambda kv: -kv[1])} if cycles else {}
    return {"target": sim.target, "gpu": sim.gpu.key, "provenance": how, "size": sim.size, "blocks": blocks,
            DURATION.name: total_us * 1e3, "units": {DURATION.name: DURATION.unit, "time_us": "us", "body_us": "us",
                                                       "launch_us": "us", "resources.time_us": "us"},
            "time_us": total_us, "body_us": body_us, "launch_us": launch_us,
            "limiter": limiter, "resources": resources, "counts": counts,
            "stalls_pct": waits,
            "waves": {"blocks_per_sm": resident, "busiest_sm_blocks": busiest, "active_sms": active,
                      "occupancy_pct": sim.occupancy.get("occupancy_pct"), "warps_per_block": warps_pb,
                      "simulated_blocks": run["simulated_blocks"],
                      "simulated_at_size": sim.samples[-1].size if len(sim.samples) > 1 else None},
            "achieved": {"flop_per_s": flops / (total_us * 1e-6), "dram_bytes_per_s": dram / (total_us * 1e-6),
                         "flops_source": "catalog" if sim.flops is not None else "estimated: 64 x FMA instructions"},
            "dram_source": traffic.DRAM_SOURCE, "advice": advice(limiter, us, body_us, waits,
                                                                       min(busiest, resident) * warps_pb, active, sms),
            "notes": list(sim.notes) + _unknown_note(preps[-1].sample.listing)}


def l1_hit_pct(counts: dict) -> float | None:
    """The share of global-load sectors that hit in L1, in %; None without loads."""
    hits, sectors = counts.get("global_load_l1_hit_sectors"), counts.get("global_load_sectors")
    return None if hits is None or not sectors else 100.0 * hits / sectors


def _unknown_note(listing) -> list[str]:
    """Say which opcodes were timed by the ALU default because the opcode table lacks them."""
    odd = sassops.unknown(listing.instructions)
    if not odd:
        return []
    ops = ", ".join(f"{op} x{n}" for op, n in sorted(odd.items(), key=lambda kv: -kv[1]))
    return [f"SASS opcodes analysis/models/sass_ops.json does not name, timed as integer-ALU instructions: {ops}"]


def advice(limiter: str, us: dict, body: float, waits: dict, warps: int, active: int = 0, sms: int = 0) -> list[str]:
    """One or two plain-words lines on what would move the time. `warps`: the warps at once on the busiest SM (its
    blocks, as many as can be resident, times the warps of a block); `active` of the GPU's `sms` SMs have blocks."""
    second = sorted(((v, k) for k, v in us.items() if k != limiter), reverse=True)
    nxt = f"; next: {second[0][1]} at {100 * second[0][0] / body:.0f}%" if second and body else ""
    top_wait = next(iter(waits), "")
    says = {
        "DRAM": "DRAM-bound: only fewer bytes help (fuse, compress, reuse through shared memory)",
        "L2": "L2-bound: too many 128-B line requests; coalesce so a warp's lanes share lines",
        "L2 atomic units": "atomic-bound: global atomics queue at the few L2 units that hold their addresses; "
                           "combine in shared memory or registers first (privatize), then one atomic per block",
        "L1/shared wavefronts": "L1/shared-bound: wavefronts (uncoalesced lines or bank conflicts) serialize; "
                                "coalesce global accesses, pad or swizzle shared arrays",
        "issue": "issue-bound: every instruction costs a scheduler slot; fewer instructions per FLOP "
                 "(vector loads, register tiling, less index math)",
        "fp32 pipe": "FP32-pipe-bound: at the FMA peak; only tensor cores (TF32 MMA) or less arithmetic help",
        "fp64 pipe": "FP64-pipe-bound: at the DFMA peak; FP64 tensor cores (DMMA) would help",
        "integer/logic pipe": "integer-pipe-bound: index arithmetic dominates; hoist it out of loops",
        "IMAD pipe": "IMAD-bound: integer multiplies (addresses) dominate; hoist them out of loops",
        "MUFU pipe": "MUFU-bound: special functions (exp, rsqrt, division) dominate",
        "constant cache (LDC)": ("constant-cache-bound: __constant__ reads at an index known only at run time (LDC) "
                                 "serialize, one address per SM every few cycles; an index the compiler can see "
                                 "(an unrolled loop) makes them operands, or read the array from shared memory"),
        "tensor pipe": "tensor-pipe-bound: at the MMA peak for this shape and type",
        "longest block": ("imbalance-bound: one block's warps run long after the rest of the grid is done (the "
                          "kernel waits for its longest block); split the heavy work over more blocks or warps"),
        "latency": (f"latency-bound: {warps} warp{'s per SM spend' if warps != 1 else ' per SM spends'} most cycles waiting "
                    f"({top_wait or 'dependencies'}); more independent work in flight per warp (unroll, vector loads) "
                    f"or more warps per SM"),
    }
    lines = [says.get(limiter, limiter) + nxt]
    if 0 < active < sms:  # SMs with no block: more blocks before anything else
        lines.append(f"the grid fills {active} of the {sms} SMs ({warps} warp{'s' if warps != 1 else ''} on the "
                     f"busiest): more blocks (a larger grid, less work per block) would put the idle SMs to work")
    return lines


def render(d: dict, view: View) -> str:
    """The report: time, limiter, each resource's time, share and utilization, what would move it."""
    out = [f"Predicted kernel time on {view.gpu.name}: {d['time_us']:,.2f} us  (CUDA-event time at default clocks, "
           f"inputs not in L2; {d['body_us']:,.2f} us of work + {d['launch_us']:.2f} us launch overhead)",
           f"  provenance: {d['provenance']}",
           *[f"  note: {n}" for n in d["notes"] if n.startswith(MADE_UP)],
           f"  limiter: {d['limiter']}", ""]
    out.append(f"  {'resource':24s} {'time us':>12} {'share of limiter':>17} {'utilization':>12}")
    for row in d["resources"]:
        out.append(f"  {row['resource']:24s} {row['time_us']:12,.2f} {row['share_pct']:16.1f}% "
                   f"{row['utilization_pct']:11.1f}%")
    a, c, w = d["achieved"], d["counts"], d["waves"]
    waits = ", ".join(f"{k} {v:.0f}%" for k, v in d["stalls_pct"].items() if v >= 1) or "none"
    out += ["", f"  achieved: {a['flop_per_s'] / 1e12:,.3f} TFLOP/s ({a['flops_source']}), "
                f"{a['dram_bytes_per_s'] / 1e9:,.1f} GB/s DRAM",
            f"  counts: {c['warp_instructions']:,.0f} SASS warp instructions (FP32 {c['fma_warp_instructions']:,.0f}, "
            f"FP64 {c['fp64_warp_instructions']:,.0f}, integer {c['alu_warp_instructions'] + c['imad_warp_instructions']:,.0f}, "
            f"shared {c['shared_warp_instructions']:,.0f}, global {c['global_warp_instructions']:,.0f})",
            f"          global: {c['global_load_requests']:,.0f} load requests / {c['global_load_sectors']:,.0f} sectors"
            f"{f' ({hit:.0f}% of them L1 hits)' if (hit := l1_hit_pct(c)) is not None else ''}; "
            f"{c['global_store_requests']:,.0f} store and atomic requests; DRAM {c['dram_read_bytes'] / 1e6:,.1f} MB read + "
            f"{c['dram_write_bytes'] / 1e6:,.1f} MB written ({d['dram_source']})",
            f"  waves: {w['blocks_per_sm']} blocks/SM resident ({w['warps_per_block']} warps each), the busiest SM runs "
            f"{w['busiest_sm_blocks']} blocks, {w['active_sms']} SMs busy; one SM simulated over {w['simulated_blocks']:,} "
            f"blocks{f' (at size {at})' if (at := w.get('simulated_at_size')) else ''}",
            f"  schedulers idle, by what they waited for (% of the cycles of the schedulers with a warp): {waits}", ""]
    out += [f"  what would move it: {line}" for line in d["advice"]]
    out += [f"  note: {n}" for n in d["notes"] if not n.startswith(MADE_UP)]
    return "\n".join(out)


MODEL = Model(
    name="timing", summary="predicted kernel time (CUDA events, default clocks), its limiter and what would move it",
    order=40, needs="simulation", metrics=(DURATION,), analyze=analyze, render=render,
    predictions=lambda d: {DURATION.name: d[DURATION.name]}, catalog_size="default_size", check=rates)
