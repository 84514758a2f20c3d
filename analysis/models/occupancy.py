"""Occupancy: resident blocks per SM from each limit, the limiter, theoretical occupancy, waves.

    python -m analysis.occupancy TARGET [--gpu NAME] [--json] [--regs N] [--smem BYTES] [--no-optin]

The arithmetic is the CUDA occupancy calculator's (cuda_occupancy.h) over ptxas's resources
and the GPU row, with two rules that make the numbers equal what Nsight Compute prints for
a real launch (no simulation):

* registers per thread as ncu shows them are ptxas's count, at least 16 (measured on the
  H100: 18, 20, 22, 25 ... as compiled, and 16 for kernels ptxas gave 10 or 12); the
  register limit allocates ceil(regs x 32 / 256) x 256 registers per warp.
* The shared-memory limit uses the carveout the *driver* chose for the launch, not the
  whole shared memory of the SM (see `driver_carveout` for the rule and its evidence).
"""
from __future__ import annotations

import argparse
import math
from dataclasses import asdict, dataclass, field
from typing import Any

from cudasim.gpus import GPU

from ..common import Metric, Model, View

REGISTERS = Metric("launch__registers_per_thread", "registers/thread", "registers/thread", "exact")
LIMIT_REGISTERS = Metric("launch__occupancy_limit_registers", "blocks/SM", "limit registers", "exact")
LIMIT_SHARED = Metric("launch__occupancy_limit_shared_mem", "blocks/SM", "limit shared", "exact")
LIMIT_WARPS = Metric("launch__occupancy_limit_warps", "blocks/SM", "limit warps", "exact")
LIMIT_BLOCKS = Metric("launch__occupancy_limit_blocks", "blocks/SM", "limit blocks", "exact")
OCCUPANCY = Metric("sm__maximum_warps_per_active_cycle_pct", "%", "theoretical occ. %", "abs", 0.01)
WAVES = Metric("launch__waves_per_multiprocessor", "waves", "waves", "rel", 0.01)
CARVEOUT = Metric("launch__shared_mem_config_size", "B", "carveout B", "info")
# measured beside the predictions: the launch as the driver saw it
SHARED_STATIC = Metric("launch__shared_mem_per_block_static", "B", "static shared B", "context")
SHARED_DYNAMIC = Metric("launch__shared_mem_per_block_dynamic", "B", "dynamic shared B", "context")
SHARED_DRIVER = Metric("launch__shared_mem_per_block_driver", "B", "driver shared B", "context")
CONTEXT = (
    SHARED_STATIC, SHARED_DYNAMIC, SHARED_DRIVER,
    Metric("launch__grid_size", "blocks", "grid size", "context"),
    Metric("launch__block_size", "threads", "block size", "context"),
    Metric("launch__sm_count", "SMs", "SM count", "context"),
    Metric("launch__occupancy_per_block_size", "warps", "occupancy per block size", "context"),
)
# Occupancy's fields that predict an ncu metric, in the order reports list them
FIELDS = {"registers_per_thread": REGISTERS, "limit_registers": LIMIT_REGISTERS, "limit_shared_mem": LIMIT_SHARED,
          "limit_warps": LIMIT_WARPS, "limit_blocks": LIMIT_BLOCKS, "occupancy_pct": OCCUPANCY, "waves": WAVES}
LIMITS = (LIMIT_REGISTERS, LIMIT_SHARED, LIMIT_WARPS, LIMIT_BLOCKS)

MIN_REGISTERS = 16  # measured: ncu shows 16 registers/thread for kernels ptxas compiled to 10 or 12


def ceil_to(x: int, unit: int) -> int:
    return -(-x // unit) * unit if unit > 0 else x


def warp_registers(gpu: GPU, regs_per_thread: int) -> int:
    """Registers a warp is given: regs x 32 rounded up to the allocation unit (256 on every row)."""
    return ceil_to(regs_per_thread * gpu.warp_size, gpu.reg_alloc_unit)


def allocated_registers(gpu: GPU, ptxas_regs: int) -> int:
    """Registers per thread as the hardware allocates them (and as ncu shows them)."""
    return max(int(ptxas_regs), MIN_REGISTERS)


def smem_per_block(gpu: GPU, static: int, dynamic: int) -> int:
    """Shared bytes a block occupies: static + dynamic + driver reservation, rounded to the unit."""
    return ceil_to(static + dynamic + gpu.smem_reserved_per_block, gpu.smem_alloc_unit)


def driver_carveout(gpu: GPU, per_block: int, blocks_wanted: int, threads: int, own_smem: bool = True) -> int:
    """The shared-memory carveout (bytes per SM) the driver picks for a launch.

    Why it matters: ncu's shared-memory limit = carveout // per_block, where the carveout
    is what the driver configured for this launch, not the SM's 228 KB.

    Rule (fitted, H100, driver 580; it picks from every carveout but 0 KB), with
    blocks_wanted = min(register, warp, block limits) and "fits(n)" = the smallest carveout
    holding n blocks (or as many as fit at all); the fitted numbers are the GPU row's
    driver_carveout_* fields:
    - a kernel with no shared memory of its own: a carveout by block size (H100: 32 KB up to
      448 threads, 16 KB up to 640, 8 KB above); rows without that table: fits(block limit);
    - blocks of driver_carveout_single_from threads or more (H100: 960): fits(blocks_wanted);
    - otherwise: fits(2 x blocks_wanted), but no more than driver_carveout_cap_kb (H100:
      132 KB) unless fits(blocks_wanted) alone needs more.

    Evidence: ncu's carveout size (CARVEOUT) of the 22 catalog kernels and 55 probe launches
    of analysis.collect_ncu (analysis/results/ncu_h100.json); the rule reproduces every one.
    It is a fit, not the driver's logic: each earlier version was scored on probes added
    after it, and scored 11 of 12, 9 of 12 and 9 of 12; every miss was a block of 448 to
    992 threads, and the catalog kernels were right each time. What holds in every launch
    measured: the carveout holds the blocks the other limits allow (or all that fit), so
    resident blocks and theoretical occupancy never depend on this rule; only the reported
    shared-memory limit does.
    """
    options = [c for c in gpu.carveouts if c > 0]
    most = max(1, options[-1] // per_block) if per_block > 0 else gpu.max_blocks_per_sm

    def fits(n: int) -> int:
        demand = max(1, min(n, gpu.max_blocks_per_sm, most)) * per_block
        return next((c for c in options if c >= demand), options[-1])

    if not own_smem:
        table = [kb * 1024 for upto, kb in gpu.driver_carveout_no_smem_kb if threads <= upto]
        return table[0] if table else fits(gpu.max_blocks_per_sm)
    if threads >= (gpu.driver_carveout_single_from or gpu.max_threads_per_block):
        return fits(blocks_wanted)
    pick = fits(2 * blocks_wanted)
    if gpu.driver_carveout_cap_kb:
        pick = min(pick, max(gpu.driver_carveout_cap_kb * 1024, fits(blocks_wanted)))
    return pick


@dataclass
class Occupancy:
    """Occupancy of one launch on one GPU; to_dict() and metrics() name by ncu metric the
    fields that predict one (FIELDS)."""

    gpu: str
    threads_per_block: int
    warps_per_block: int
    registers_ptxas: int
    registers_per_thread: int
    smem_static: int
    smem_dynamic: int
    smem_per_block_allocated: int
    smem_carveout: int
    limit_registers: int
    limit_shared_mem: int
    limit_warps: int
    limit_blocks: int
    blocks_per_sm: int
    limiters: list[str]
    warps_per_sm: int
    occupancy_pct: float
    grid_blocks: int | None = None
    waves: float | None = None
    full_waves: int | None = None
    tail_blocks: int | None = None
    tail_fill_pct: float | None = None  # how full the last wave is
    refused: str | None = None
    notes: list[str] = field(default_factory=list)

    def metrics(self) -> dict[str, float]:
        """The ncu-named predictions (empty when the launch is refused)."""
        if self.refused:
            return {}
        return {m.name: getattr(self, f) for f, m in FIELDS.items() if getattr(self, f) is not None}

    def to_dict(self) -> dict:
        """Plain data with ncu's names for the fields that predict an ncu metric."""
        return {FIELDS[k].name if k in FIELDS else k: v for k, v in asdict(self).items()}


def _refusal(gpu: GPU, threads: int, block: tuple[int, int, int] | None, regs: int, total_smem: int,
             dynamic: int, optin: bool, regs_alloc: int, warps: int) -> str | None:
    if threads <= 0:
        return "the block has no threads"
    if threads > gpu.max_threads_per_block:
        return (f"too many threads per block: {threads} > {gpu.max_threads_per_block} "
                f"(cudaErrorInvalidConfiguration)")
    if block is not None:
        for dim, v, lim in zip("xyz", block, gpu.max_block_dims):
            if v > lim:
                return f"blockDim.{dim} = {v} > {lim} (cudaErrorInvalidConfiguration)"
    if regs > gpu.max_regs_per_thread:
        return f"{regs} registers per thread > {gpu.max_regs_per_thread}"
    # the hardware checks the per-block register limit as if warps filled all sub-partitions
    regs_per_warp = warp_registers(gpu, regs_alloc)
    assumed = regs_per_warp * ceil_to(warps, gpu.sub_partitions)
    if assumed > gpu.regs_per_block:
        return (f"too many resources requested for launch: {regs_alloc} registers x {threads} threads "
                f"needs {assumed} registers per block > {gpu.regs_per_block}")
    limit = gpu.smem_per_block_optin if optin else gpu.smem_per_block_default
    if total_smem > gpu.smem_per_block_optin:
        return (f"too much shared memory: {total_smem} B per block > {gpu.smem_per_block_optin} B "
                f"(the most a block can have on {gpu.key})")
    if total_smem > limit:
        return (f"too much shared memory without opt-in: {total_smem} B per block > {limit} B; "
                f"the launcher must call cudaFuncSetAttribute(MaxDynamicSharedMemorySize), as the model assumes "
                f"without --no-optin")
    return None


def occupancy(gpu: GPU, registers: int, threads: int, smem_static: int = 0, smem_dynamic: int = 0,
              grid_blocks: int | None = None, block: tuple[int, int, int] | None = None,
              optin: bool = True) -> Occupancy:
    """Resident blocks per SM, limiter, theoretical occupancy and waves for one launch.

    `registers` is ptxas's count; `smem_static` ptxas's smem; `smem_dynamic` the launch's.
    A launch the driver would refuse comes back with `refused` set and zero blocks.
    """
    warps = -(-threads // gpu.warp_size) if threads > 0 else 0
    regs_alloc = allocated_registers(gpu, registers)
    per_block = smem_per_block(gpu, smem_static, smem_dynamic)
    base = dict(gpu=gpu.key, threads_per_block=threads, warps_per_block=warps, registers_ptxas=registers,
                registers_per_thread=regs_alloc, smem_static=smem_static, smem_dynamic=smem_dynamic,
                smem_per_block_allocated=per_block, grid_blocks=grid_blocks)
    why = _refusal(gpu, threads, block, registers, smem_static + smem_dynamic, smem_dynamic, optin, regs_alloc, warps)
    if why:
        return Occupancy(**base, smem_carveout=0, limit_registers=0,
                         limit_shared_mem=0, limit_warps=0,
                         limit_blocks=gpu.max_blocks_per_sm, blocks_per_sm=0,
                         limiters=["refused"], warps_per_sm=0, occupancy_pct=0.0,
                         refused=why)
    lim_warps = gpu.max_warps_per_sm // warps
    lim_blocks = gpu.max_blocks_per_sm
    if regs_alloc > 0:
        warps_per_sub = (gpu.regs_per_sm // gpu.sub_partitions) // warp_registers(gpu, regs_alloc)
        lim_regs = (warps_per_sub * gpu.sub_partitions) // warps
    else:
        lim_regs = lim_blocks
    others = min(lim_regs, lim_warps, lim_blocks)
    carveout = driver_carveout(gpu, per_block, others, threads, smem_static + smem_dynamic > 0)
    lim_smem = carveout // per_block if per_block > 0 else lim_blocks
    blocks = min(lim_regs, lim_smem, lim_warps, lim_blocks)
    # The carveout is sized to the blocks the other limits allow, so the shared-memory limit
    # usually ties with them without binding: it limits only when it is below all of them.
    limiters = [n for n, v in (("registers", lim_regs), ("warps", lim_warps), ("blocks", lim_blocks)) if v == blocks]
    if lim_smem < others or not limiters:
        limiters = ["shared_mem"]
    occ = Occupancy(**base, smem_carveout=carveout, limit_registers=lim_regs,
                    limit_shared_mem=lim_smem, limit_warps=lim_warps,
                    limit_blocks=lim_blocks, blocks_per_sm=blocks, limiters=limiters,
                    warps_per_sm=blocks * warps,
                    occupancy_pct=100.0 * blocks * warps / gpu.max_warps_per_sm)
    if blocks == 0:
        occ.refused = "no block fits on an SM"
        return occ
    if grid_blocks:
        per_wave = blocks * gpu.sms
        occ.waves = grid_blocks / per_wave
        occ.full_waves = grid_blocks // per_wave
        occ.tail_blocks = grid_blocks % per_wave
        occ.tail_fill_pct = 100.0 * occ.tail_blocks / per_wave if occ.tail_blocks else 100.0
    return occ


def neighbours(gpu: GPU, registers: int, threads: int, smem_static: int = 0, smem_dynamic: int = 0,
               grid_blocks: int | None = None) -> list[dict]:
    """What would change with other registers, shared memory or block size: rows of a small table.

    Why: the useful question is "how many registers may I spend before losing a block"
    and "what must I save to gain one", not only today's number.
    """
    cur = occupancy(gpu, registers, threads, smem_static, smem_dynamic, grid_blocks)
    rows: list[dict] = []

    def row(change: str, r: int, t: int, s: int) -> None:
        o = occupancy(gpu, r, t, s, 0, grid_blocks)
        rows.append(dict(change=change, registers=r, threads=t, smem_bytes=s, blocks_per_sm=o.blocks_per_sm,
                         occupancy_pct=round(o.occupancy_pct, 2),
                         limiter=",".join(o.limiters), refused=o.refused))

    smem = smem_static + smem_dynamic
    row("as compiled", registers, threads, smem)
    if cur.refused:
        return rows
    b = cur.blocks_per_sm

    def max_regs_for(blocks: int) -> int | None:
        best = None
        for r in range(1, gpu.max_regs_per_thread + 1):
            if occupancy(gpu, r, threads, smem_static, smem_dynamic).blocks_per_sm >= blocks:
                best = r
            else:
                break
        return best

    keep = max_regs_for(b)
    if keep and keep != registers:
        row(f"registers up to {keep} keep {b} blocks/SM", keep, threads, smem)
    if keep is not None and keep < gpu.max_regs_per_thread:
        row(f"{keep + 1} registers lose a block", keep + 1, threads, smem)
    more = max_regs_for(b + 1) if b < gpu.max_blocks_per_sm else None
    if more:
        row(f"registers <= {more} for more blocks/SM", more, threads, smem)
    unit = gpu.smem_alloc_unit

    def max_smem_for(blocks: int) -> int | None:
        lo, hi = -1, gpu.smem_per_block_optin // unit
        while lo < hi:  # resident blocks are monotone in shared bytes
            mid = (lo + hi + 1) // 2
            if occupancy(gpu, registers, threads, mid * unit, 0).blocks_per_sm >= blocks:
                lo = mid
            else:
                hi = mid - 1
        return lo * unit if lo >= 0 else None

    s_keep = max_smem_for(b)
    if s_keep is not None and s_keep != smem:
        row(f"shared up to {s_keep} B/block keeps {b} blocks/SM", registers, threads, s_keep)
    s_more = max_smem_for(b + 1) if b < gpu.max_blocks_per_sm else None
    if s_more is not None and s_more < smem:
        row(f"shared <= {s_more} B/block for more blocks/SM", registers, threads, s_more)
    for t in (threads // 2, threads * 2):
        if 32 <= t <= gpu.max_threads_per_block and t != threads:
            row(f"{t} threads per block", registers, t, smem)
    return rows


def spread_note(occ: Occupancy, gpu: GPU) -> str | None:
    """Plain words on waves and the tail, or None when it does not matter."""
    if occ.waves is None or occ.refused:
        return None
    w = occ.waves
    if w < 1:  # the block scheduler spreads blocks over the SMs before it doubles any up
        used = min(occ.grid_blocks, gpu.sms)
        per = math.ceil(occ.grid_blocks / gpu.sms)
        return (f"less than one wave: {occ.grid_blocks} blocks run on {used} of {gpu.sms} SMs, {per} per SM of "
                f"the {occ.blocks_per_sm} each could hold; the GPU is partly idle")
    if occ.tail_blocks:
        return (f"{occ.full_waves} full wave(s) and a tail of {occ.tail_blocks} blocks "
                f"({occ.tail_fill_pct:.0f}% of a wave): the last wave leaves "
                f"{100 - occ.tail_fill_pct:.0f}% of the slots idle")
    return f"{occ.full_waves} full wave(s), no tail"


# ---- the report -------------------------------------------------------------------------

def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--regs", type=int, help="registers per thread instead of ptxas's count (what-if)")
    p.add_argument("--smem", type=int, help="static shared bytes per block instead of ptxas's (what-if)")
    p.add_argument("--no-optin", action="store_true",
                   help="the launcher does not raise the 48 KB dynamic shared limit (cudaFuncSetAttribute)")


def analyze(launch: Any, resources: Any, options: argparse.Namespace | None = None) -> dict:
    """Occupancy of a resolved launch (analysis.pipeline.ResolvedLaunch) from ptxas's `resources`
    and the launch's GPU row, as plain data; `options` may replace registers or static shared
    bytes (--regs, --smem) and drop the opt-in (--no-optin)."""
    options = options or argparse.Namespace(regs=None, smem=None, no_optin=False)  # as compiled, opted in
    regs, smem_static = options.regs, options.smem
    gpu = launch.gpu
    if regs is not None and regs < 1:  # past the GPU's limit is the driver's refusal, reported as such
        raise ValueError(f"--regs {regs}: a thread has at least 1 register")
    if smem_static is not None and not 0 <= smem_static <= gpu.smem_per_block_default:
        raise ValueError(f"--smem {smem_static}: static shared bytes per block are 0 to "
                         f"{gpu.smem_per_block_default:,} (ptxas's limit); more is dynamic shared memory (--shared)")
    r = resources.registers if regs is None else regs
    s = resources.shared_bytes if smem_static is None else smem_static
    threads = launch.threads_per_block
    bound, least = getattr(resources, "max_threads", 0), getattr(resources, "min_blocks", 0)
    if bound and threads > bound:
        raise ValueError(f"block of {threads} threads exceeds the kernel's __launch_bounds__ of {bound} threads (the "
                         f"GPU refuses it: cudaErrorInvalidValue): launch blocks of at most {bound} threads, or raise "
                         f"the bound")
    occ = occupancy(gpu, r, threads, s, launch.shared, launch.blocks, launch.block,
                    optin=not options.no_optin)
    return {"target": launch.describe(), "gpu": gpu.key, "gpu_name": gpu.name, "grid": list(launch.grid),
            "block": list(launch.block), "ptxas": {"registers": resources.registers,
                                                   "shared_bytes": resources.shared_bytes,
                                                   "stack_bytes": resources.stack_bytes,
                                                   "spill_stores": resources.spill_stores,
                                                   "spill_loads": resources.spill_loads},
            "occupancy": occ.to_dict(), "metrics": occ.metrics(),
            "neighbours": [] if occ.refused else [n for n in neighbours(gpu, r, threads, s, launch.shared,
                                                                          launch.blocks)
                                                  if not bound or n["threads"] <= bound],
            "spread": spread_note(occ, gpu), "bounds": bounds_note(occ, bound, least)}


def bounds_note(occ: Occupancy, max_threads: int, min_blocks: int) -> str | None:
    """What the kernel's __launch_bounds__ say that the launch or the resources do not meet, or None."""
    if occ.refused or not min_blocks or occ.blocks_per_sm >= min_blocks:
        return None
    return (f"__launch_bounds__ asks for {min_blocks} blocks/SM, and {occ.blocks_per_sm} fit "
            f"({', '.join(occ.limiters)} limit them): ptxas could not meet it as compiled, or the launch differs "
            f"from the one the bounds were written for")


def render(d: dict, view: View) -> str:
    """The terminal report: inputs, the four limits, limiter, occupancy, waves, neighbours."""
    gpu = view.gpu
    o = d["occupancy"]
    p = d["ptxas"]
    regs = o[REGISTERS.name]
    out = [f"{d['target']} on {gpu.name} ({gpu.sms} SMs)  [static model: ptxas resources + the "
           f"{gpu.key} table; no simulation]"]
    out.append(f"  ptxas: {p['registers']} registers/thread, {p['shared_bytes']} B static shared/block, "
               f"{p['stack_bytes']} B stack/thread" + (f", SPILLS {p['spill_stores']} B stored / {p['spill_loads']} B "
                                                        f"loaded" if p['spill_stores'] or p['spill_loads'] else ""))
    if o["refused"]:
        out.append(f"  REFUSED: the driver would not launch this: {o['refused']}")
        return "\n".join(out)
    warps = o["warps_per_block"]
    out.append(f"  per block: {o['threads_per_block']} threads = {warps} warps; "
               f"{regs} registers/thread ({o['registers_ptxas']} from ptxas, at least "
               f"{MIN_REGISTERS}), {warp_registers(gpu, regs):,} registers/warp (rounded "
               f"to {gpu.reg_alloc_unit}) = {warp_registers(gpu, regs) * warps:,} "
               f"registers/block; "
               f"{o['smem_per_block_allocated']:,} B shared/block allocated ({o['smem_static']} static + "
               f"{o['smem_dynamic']} dynamic + {gpu.smem_reserved_per_block} driver reservation, "
               f"rounded to {gpu.smem_alloc_unit} B)")
    out.append(f"  shared-memory carveout the driver picks: {o['smem_carveout'] // 1024} KB of "
               f"{gpu.smem_per_sm // 1024} KB per SM (a rule fitted to the 77 launches measured on an H100: only "
               f"{LIMIT_SHARED.name} depends on it)")
    out.append(f"  note: registers are ptxas's count for the code {d.get('compiler') or 'NVRTC'} made (the code "
               "cudasim runs); another compiler or version can differ by a few registers")
    out.append("")
    out.append(f"  {'limit (Nsight Compute metric)':44s} {'blocks/SM':>10}")
    lim = o["blocks_per_sm"]
    for m in LIMITS:
        v = o[m.name]
        mark = "  <- limiter" if v == lim else ""
        out.append(f"  {m.name:44s} {v:>10}{mark}")
    out.append(f"  {'resident blocks/SM (min of the four)':44s} {lim:>10}  = {o['warps_per_sm']} warps of "
               f"{gpu.max_warps_per_sm}")
    out.append(f"  {OCCUPANCY.name:44s} {o[OCCUPANCY.name]:>9.2f}{OCCUPANCY.unit}  (theoretical occupancy)")
    out.append(f"  {REGISTERS.name:44s} {regs:>10}  {REGISTERS.unit}")
    if o[WAVES.name] is not None:
        out.append(f"  {WAVES.name:44s} {o[WAVES.name]:>10.3f}  {WAVES.unit} "
                   f"({o['grid_blocks']:,} blocks / ({lim} blocks/SM x {gpu.sms} SMs))")
    if d.get("spread"):
        out.append(f"  waves: {d['spread']}")
    if d.get("bounds"):
        out.append(f"  note: {d['bounds']}")
    if d["neighbours"]:
        out.append("")
        out.append("  What would change (same model):")
        out.append(f"    {'change':48s} {'regs/thr':>8} {'threads':>7} {'smem B/blk':>10} {'blocks/SM':>9} "
                   f"{'occupancy':>9}  limiter")
        for r in d["neighbours"]:
            occ = "refused" if r["refused"] else f"{r['occupancy_pct']:.2f}%"
            out.append(f"    {r['change'][:48]:48s} {r['registers']:>8} {r['threads']:>7} {r['smem_bytes']:>10,} "
                       f"{r['blocks_per_sm']:>9} {occ:>9}  {r['limiter']}")
    return "\n".join(out)


def predictions(d: dict) -> dict[str, float]:
    """The ncu-named predictions of a report, the driver's carveout included."""
    return {**d["metrics"], CARVEOUT.name: d["occupancy"]["smem_carveout"]}


MODEL = Model(
    name="occupancy", summary="resident blocks per SM, the limiter, theoretical occupancy and waves", order=30,
    needs="launch", metrics=(REGISTERS, *LIMITS, OCCUPANCY, WAVES, CARVEOUT, *CONTEXT), analyze=analyze,
    render=render, predictions=predictions, add_arguments=add_arguments, catalog_size="default_size",
    refusal=lambda d: (f"the driver would not launch this: {d['occupancy']['refused']}"
                       if d["occupancy"]["refused"] else None))
