"""Kernel time from first principles: CUDA-event time of one launch at default clocks, inputs
not resident in L2 (as kernels.bench measures), with no GPU.

    python -m analysis.timing TARGET [--size N] [--gpu NAME] [--json]

Every term is a count from the simulation (or the compiled PTX) over a rate of the GPU row's
`timing` table (measured by kernels.microbench on the H100):

* issue: warp instructions / (4 schedulers x 1 per clk); each pipe (FP32, FP64, integer,
  MUFU, tensor MMA) its warp instructions (or FLOP) / its measured rate;
* L1: global lines per request + shared wavefronts, one 128-B wavefront per clk per SM;
* L2: tag lookups (128-B line requests) at the measured L2 line rate; loads reach L2 once per
  distinct line per block (the L1 keeps a block's lines: no capacity misses), stores always;
* DRAM: compulsory bytes (reuse between resident blocks is caught by L2: blocks of a wave
  walk the same panels in step), reads and writes at their measured rates, the paired part
  at the copy rate;
* latency (Little's law, per warp): rounds of independent global loads x the expected
  latency of a round + one issue clk per instruction, per wave of resident blocks;
* launch overhead: an empty kernel timed as kernels.bench times one.

Combination: throughput terms are per SM for the busiest SM (ceil(blocks / SMs) blocks),
L2 and DRAM for the chip; time = max(every term) + launch overhead. The max assumes the
pipes and memory overlap perfectly; latency is the one term occupancy must hide.
"""
from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from ..common import LINE, SECTOR, Metric, Model, Sample, Simulation, View, active_lanes, provenance, row_weights

DURATION = Metric("gpu__time_duration.sum", "ns", "time ns", "info")
PIPES = ("fp32", "fp64", "int", "mufu", "tensor", "lsu", "issue")
RATES = ("sm_clock_mhz", "issue_per_clk_sm", "fp32_per_clk_sm", "fp64_per_clk_sm", "int_per_clk_sm",
         "mufu_per_clk_sm", "tf32_mma_flop_per_clk_sm", "fp64_mma_flop_per_clk_sm", "l1_wavefront_clk", "l2_gbs",
         "dram_read_gbs", "dram_write_gbs", "dram_copy_gbs", "latency_l1_clk", "latency_l2_clk",
         "latency_dram_clk", "launch_us")
_RULES = json.loads(Path(__file__).with_name("timing_pipes.json").read_text())["rules"]


class NoRates(ValueError):
    """The GPU row has no measured rates for this model."""


def rates(gpu) -> dict[str, float]:
    """The GPU row's timing rates by name; NoRates naming the missing ones."""
    missing = [k for k in RATES if k not in gpu.timing]
    if missing:
        raise NoRates(f"no timing rates for {gpu.key} in cudasim/gpus.json (missing {', '.join(missing[:3])}"
                      f"{', ...' if len(missing) > 3 else ''}); the timing model knows only GPUs whose rates were "
                      f"measured (python -m kernels.microbench) or cited")
    return {k: float(gpu.timing[k]["value"]) for k in RATES}


def pipe_of(ins) -> str:
    """The pipe a PTX instruction runs on (timing_pipes.json, first match)."""
    for r in _RULES:
        if r["base"] != "*" and ins.base not in r["base"]:
            continue
        if "types" in r and not set(ins.types) & set(r["types"]):
            continue
        if "mods" in r and not set(ins.mods) & set(r["mods"]):
            continue
        return r["pipe"]
    return "issue"


def mma_flops(ins) -> float:
    """FLOP of one warp's wmma.mma: 2 x m x n x k from its shape modifier (m16n16k8 -> 4096)."""
    for m in ins.mods:
        if m.startswith("m") and "n" in m and "k" in m:
            try:
                mm, rest = m[1:].split("n")
                nn, kk = rest.split("k")
                return 2.0 * int(mm) * int(nn) * int(kk)
            except ValueError:
                continue
    return 0.0


def _regs(o) -> list[str]:
    if o.kind == "reg" or o.kind == "sym":
        return [o.name]
    if o.kind == "vec":
        return [x for it in o.items for x in _regs(it)]
    if o.kind == "mem" and o.base is not None:
        return _regs(o.base)
    return []


def is_global_load(ins) -> bool:
    return ins.base in ("ld", "ldu") and not ins.has("shared", "local", "param", "const")


def round_heads(body: list) -> np.ndarray:
    """(n,) bool: the global loads that start a round of independent loads.

    Why: a warp issues in order, so loads issued before the first use of any of them overlap
    (one latency); the first instruction that reads a pending load's register waits for all of
    them. Straight-line code only: a branch or label ends the round (conservative in loops).
    """
    heads = np.zeros(len(body), dtype=bool)
    pending: set[str] = set()
    for pc, ins in enumerate(body):
        if ins.label is not None or ins.base in ("bra", "ret", "exit", "bar", "barrier"):
            pending.clear()
            continue
        reads = {r for o in (ins.operands if ins.base in ("st", "red", "atom") else ins.operands[1:]) for r in _regs(o)}
        if ins.guard:
            reads.add(ins.guard)
        if reads & pending:
            pending.clear()
        if is_global_load(ins):
            heads[pc] = not pending
            pending.update(_regs(ins.operands[0]) if ins.operands else [])
    return heads


# ---- per-sample counts -------------------------------------------------------------------

def _rows(ev):
    """Per row of a global event: active lanes, distinct sectors, distinct lines (vectorized)."""
    act = active_lanes(ev.masks)
    first = ev.addrs.astype(np.uint64)
    last = first + np.uint64(max(int(ev.size), 1) - 1)
    both = np.concatenate([act, act], axis=1)

    def distinct(shift: int) -> np.ndarray:
        k = np.concatenate([first >> np.uint64(shift), last >> np.uint64(shift)], axis=1).astype(np.int64)
        k = np.where(both, k, np.iinfo(np.int64).max)
        k.sort(axis=1)
        new = np.ones_like(k, dtype=bool)
        new[:, 1:] = k[:, 1:] != k[:, :-1]
        return (new & (k != np.iinfo(np.int64).max)).sum(axis=1)
    return act, distinct(5), distinct(7)


def sample_counts(s: Sample, body: list, heads: np.ndarray, pipes: list[str]) -> dict[str, float]:
    """Counts of one sample per block of its grid (the extensive quantities the times are made of)."""
    scale = s.blocks_total / max(s.blocks_run, 1)
    w = s.pc_warps.astype(np.float64) * scale
    c: dict[str, float] = {p: 0.0 for p in PIPES}
    for pc, p in enumerate(pipes):
        c[p] += w[pc]
    c["warp_instructions"] = float(w.sum())
    c["tf32_flop"] = sum(w[pc] * mma_flops(ins) for pc, ins in enumerate(body) if pipes[pc] == "tensor"
                         and "f64" not in ins.types)
    c["fp64_mma_flop"] = sum(w[pc] * mma_flops(ins) for pc, ins in enumerate(body) if pipes[pc] == "tensor"
                             and "f64" in ins.types)
    c["rounds"] = float(w[heads].sum())
    c["shared_wavefronts"] = s.shared_wavefronts
    prov = provenance(s.trace, s.weights)
    keys = {"ld": [], "st": []}
    for k in ("ld_requests", "ld_sectors", "ld_lines", "st_requests", "st_sectors", "st_lines", "l2_ld_lines"):
        c[k] = 0.0
    block_w: dict[int, float] = prov.weights if prov.kind == "sampled" else {}
    for ev in s.trace.events:
        if ev.space != "global" or len(ev) == 0:
            continue
        op = "st" if ev.op == "st" else "ld"
        rw = row_weights(ev, prov)
        act, sectors, lines = _rows(ev)
        c[f"{op}_requests"] += float(rw.sum())
        c[f"{op}_sectors"] += float((sectors * rw).sum())
        c[f"{op}_lines"] += float((lines * rw).sum())
        a = ev.addrs.astype(np.uint64)[act]
        blk = np.broadcast_to(ev.blocks.astype(np.int64)[:, None], act.shape)[act]
        keys[op].append((blk, (a >> np.uint64(7)).astype(np.int64), (a >> np.uint64(5)).astype(np.int64)))
    distinct = {}
    for op, parts in keys.items():
        if not parts:
            distinct[op] = 0.0
            continue
        blk = np.concatenate([p[0] for p in parts])
        line = np.concatenate([p[1] for p in parts])
        sec = np.concatenate([p[2] for p in parts])
        distinct[op] = float(len(np.unique(sec))) * SECTOR * (s.blocks_total / max(len(np.unique(blk)), 1))
        if op == "ld":  # the distinct lines each block loads: what reaches L2 when L1 keeps a block's lines
            pairs = np.unique((blk << 40) | (line & ((1 << 40) - 1)))  # one key per (block, line)
            blocks, n = np.unique(pairs >> 40, return_counts=True)
            bw = np.array([block_w.get(int(b), 1.0) for b in blocks]) if block_w else np.ones(len(blocks))
            c["l2_ld_lines"] = float((bw * n).sum()) * (1.0 if block_w or s.blocks_run == s.blocks_total else scale)
    c["distinct_ld_bytes"], c["distinct_st_bytes"] = distinct["ld"], distinct["st"]
    return {k: float(v) / s.blocks_total for k, v in c.items()}


def extrapolate(sim: Simulation, per_block: list[dict[str, float]]) -> tuple[dict[str, float], str]:
    """Totals over the launch's blocks: one sample as is; two, linear in the size per block."""
    if len(per_block) == 1:
        return {k: v * sim.blocks for k, v in per_block[0].items()}, sim.samples[0].provenance
    (s1, s2), (a, b) = [s.size for s in sim.samples], per_block
    out = {}
    for k in a:
        slope = (b[k] - a[k]) / (s2 - s1)
        out[k] = max(0.0, a[k] + slope * (sim.size - s1)) * sim.blocks
    how = (f"sampled and scaled: simulated at sizes {s1} ({sim.samples[0].provenance}) and {s2} "
           f"({sim.samples[1].provenance}); counts per block extrapolated linearly in the size to {sim.size} "
           f"x {sim.blocks} blocks")
    return out, how


# ---- the model -----------------------------------------------------------------------------

def analyze(sim: Simulation) -> dict:
    """The predicted time, each resource's time, share and utilization, the limiter, as plain data."""
    r = rates(sim.gpu)
    body = sim.body
    pipes = [pipe_of(ins) for ins in body]
    heads = round_heads(body)
    per_block = [sample_counts(s, body, heads, pipes) for s in sim.samples]
    tot, how = extrapolate(sim, per_block)
    clk = r["sm_clock_mhz"] * 1e6  # Hz
    sms = sim.gpu.sms
    occ = sim.occupancy
    resident = max(int(occ["blocks_per_sm"]), 1)
    warps_pb = -(-sim.threads_per_block // 32)
    busiest = math.ceil(sim.blocks / sms)  # blocks the busiest SM runs
    active_sms = min(sim.blocks, sms)
    per_sm = busiest / sim.blocks  # share of the launch's counts on the busiest SM
    waves_sm = math.ceil(busiest / resident)
    warps_resident = min(resident, busiest) * warps_pb
    schedulers = min(r["issue_per_clk_sm"], warps_resident)
    # DRAM bytes: compulsory
    if sim.compulsory_bytes is not None:
        moved = tot["distinct_ld_bytes"] + tot["distinct_st_bytes"]
        wfrac = tot["distinct_st_bytes"] / moved if moved else 0.0
        dram_w = sim.compulsory_bytes * wfrac
        dram_r = sim.compulsory_bytes - dram_w
        dram_src = "the catalog's compulsory bytes (min_bytes), split read/write as the trace's distinct sectors"
    else:
        dram_r, dram_w = tot["distinct_ld_bytes"], tot["distinct_st_bytes"]
        dram_src = "distinct 32-B sectors the simulated blocks touch, scaled to the grid"
    pair = min(dram_r, dram_w)
    t_dram = ((dram_r - pair) / (r["dram_read_gbs"] * 1e9) + (dram_w - pair) / (r["dram_write_gbs"] * 1e9)
              + 2 * pair / (r["dram_copy_gbs"] * 1e9))
    l2_lines = tot["l2_ld_lines"] + tot["st_lines"]
    t_l2 = l2_lines * LINE / (r["l2_gbs"] * 1e9)
    l1_wavefronts = tot["ld_lines"] + tot["st_lines"] + tot["shared_wavefronts"]
    cyc = {  # per busiest SM, clk
        "issue": tot["warp_instructions"] * per_sm / schedulers,
        "fp32 pipe": tot["fp32"] * per_sm / (r["fp32_per_clk_sm"] / 32),
        "fp64 pipe": tot["fp64"] * per_sm / (r["fp64_per_clk_sm"] / 32),
        "integer pipe": tot["int"] * per_sm / (r["int_per_clk_sm"] / 32),
        "MUFU pipe": tot["mufu"] * per_sm / (r["mufu_per_clk_sm"] / 32),
        "tensor pipe": (tot["tf32_flop"] / r["tf32_mma_flop_per_clk_sm"]
                        + tot["fp64_mma_flop"] / r["fp64_mma_flop_per_clk_sm"]) * per_sm,
        "L1/shared wavefronts": l1_wavefronts * per_sm * r["l1_wavefront_clk"],
    }
    # latency: per warp, rounds of independent global loads x their expected latency + issue
    ldreq = tot["ld_requests"]
    f_dram = min(1.0, dram_r / LINE / ldreq) if ldreq else 0.0
    f_l2 = min(1.0 - f_dram, max(0.0, tot["l2_ld_lines"] / ldreq - f_dram)) if ldreq else 0.0
    lat = f_dram * r["latency_dram_clk"] + f_l2 * r["latency_l2_clk"] + (1 - f_dram - f_l2) * r["latency_l1_clk"]
    warps = sim.blocks * warps_pb
    rounds_w = tot["rounds"] / warps
    instr_w = tot["warp_instructions"] / warps
    cyc["latency"] = waves_sm * (rounds_w * lat + instr_w)
    us = {k: v / clk * 1e6 for k, v in cyc.items()}
    us["L2"] = t_l2 * 1e6
    us["DRAM"] = t_dram * 1e6
    body_us = max(us.values())
    limiter = max(us, key=us.get)
    total_us = body_us + r["launch_us"]
    flops = sim.flops
    if flops is None:
        flops = 32.0 * (tot["fp32"] + tot["fp64"]) + tot["tf32_flop"] + tot["fp64_mma_flop"]
    resources = [{"resource": k, "time_us": v, "share_pct": 100 * v / body_us if body_us else 0.0,
                  "utilization_pct": 100 * v / total_us} for k, v in sorted(us.items(), key=lambda kv: -kv[1])]
    counts = {"warp_instructions": tot["warp_instructions"], **{f"{p}_warp_instructions": tot[p] for p in PIPES},
              "tensor_flop": tot["tf32_flop"] + tot["fp64_mma_flop"], "global_load_requests": ldreq,
              "global_load_sectors": tot["ld_sectors"], "global_load_lines": tot["ld_lines"],
              "global_store_requests": tot["st_requests"], "global_store_sectors": tot["st_sectors"],
              "global_store_lines": tot["st_lines"], "shared_wavefronts": tot["shared_wavefronts"],
              "l2_line_requests": l2_lines, "dram_read_bytes": dram_r, "dram_write_bytes": dram_w,
              "load_rounds_per_warp": rounds_w, "instructions_per_warp": instr_w}
    return {"target": sim.target, "gpu": sim.gpu.key, "provenance": how, "size": sim.size, "blocks": sim.blocks,
            DURATION.name: total_us * 1e3, "time_us": total_us, "body_us": body_us, "launch_us": r["launch_us"],
            "limiter": limiter, "resources": resources, "counts": counts,
            "latency": {"expected_load_latency_clk": lat, "dram_fraction": f_dram, "l2_fraction": f_l2,
                        "waves_on_busiest_sm": waves_sm, "resident_warps_per_sm": warps_resident},
            "waves": {"blocks_per_sm": resident, "busiest_sm_blocks": busiest, "active_sms": active_sms,
                      "occupancy_pct": occ.get("occupancy_pct")},
            "achieved": {"flop_per_s": flops / (total_us * 1e-6), "dram_bytes_per_s": (dram_r + dram_w) / (total_us * 1e-6),
                         "flops_source": "catalog" if sim.flops is not None else "estimated: 32 lanes x FP instructions"},
            "dram_source": dram_src, "advice": advice(limiter, us, body_us, warps_resident, rounds_w, instr_w),
            "notes": list(sim.notes)}


def advice(limiter: str, us: dict, body: float, warps: int, rounds: float, instr: float) -> list[str]:
    """One or two plain-words lines on what would move the time."""
    second = sorted(((v, k) for k, v in us.items() if k != limiter), reverse=True)
    nxt = f"; next: {second[0][1]} at {100 * second[0][0] / body:.0f}%" if second and body else ""
    says = {
        "DRAM": "DRAM-bound: only fewer bytes help (fuse, compress, reuse through shared memory)",
        "L2": "L2-bound: too many 128-B line requests; coalesce so a warp's lanes share lines",
        "L1/shared wavefronts": "L1/shared-bound: wavefronts (uncoalesced lines or bank conflicts) serialize; "
                                "coalesce global accesses, pad or swizzle shared arrays",
        "issue": "issue-bound: every instruction costs a scheduler slot; fewer instructions per FLOP "
                 "(vector loads, register tiling, less index math)",
        "fp32 pipe": "FP32-pipe-bound: at the FMA peak; only tensor cores (TF32 MMA) or less arithmetic help",
        "fp64 pipe": "FP64-pipe-bound: at the DFMA peak; FP64 tensor cores (DMMA) would help",
        "integer pipe": "integer-pipe-bound: index arithmetic dominates; hoist it out of loops",
        "MUFU pipe": "MUFU-bound: special functions (exp, rsqrt, division) dominate",
        "tensor pipe": "tensor-pipe-bound: at the MMA peak for this shape and type",
        "latency": (f"latency-bound: {warps} warps per SM, {rounds:.3g} rounds of dependent global loads per warp "
                    f"cannot cover the load latency; more loads in flight per thread or more warps"),
    }
    return [says.get(limiter, limiter) + nxt]


def render(d: dict, view: View) -> str:
    """The report: time, limiter, each resource's time, share and utilization, what would move it."""
    out = [f"Predicted kernel time on {view.gpu.name}: {d['time_us']:,.2f} us  (CUDA-event time at default clocks, "
           f"inputs not in L2; {d['body_us']:,.2f} us of work + {d['launch_us']:.2f} us launch overhead)",
           f"  provenance: {d['provenance']}",
           f"  limiter: {d['limiter']}", ""]
    out.append(f"  {'resource':24s} {'time us':>12} {'share of limiter':>17} {'utilization':>12}")
    for row in d["resources"]:
        out.append(f"  {row['resource']:24s} {row['time_us']:12,.2f} {row['share_pct']:16.1f}% "
                   f"{row['utilization_pct']:11.1f}%")
    a, c, lt, w = d["achieved"], d["counts"], d["latency"], d["waves"]
    out += ["", f"  achieved: {a['flop_per_s'] / 1e12:,.3f} TFLOP/s ({a['flops_source']}), "
                f"{a['dram_bytes_per_s'] / 1e9:,.1f} GB/s DRAM",
            f"  counts: {c['warp_instructions']:,.0f} warp instructions (FP32 {c['fp32_warp_instructions']:,.0f}, "
            f"FP64 {c['fp64_warp_instructions']:,.0f}, int {c['int_warp_instructions']:,.0f}, "
            f"LSU {c['lsu_warp_instructions']:,.0f}), {c['tensor_flop']:,.0f} tensor FLOP",
            f"          global: {c['global_load_requests']:,.0f} load requests / {c['global_load_sectors']:,.0f} sectors "
            f"/ {c['global_load_lines']:,.0f} lines; {c['global_store_requests']:,.0f} store requests / "
            f"{c['global_store_lines']:,.0f} lines; {c['shared_wavefronts']:,.0f} shared wavefronts",
            f"          L2: {c['l2_line_requests']:,.0f} line requests; DRAM: {c['dram_read_bytes'] / 1e6:,.1f} MB read + "
            f"{c['dram_write_bytes'] / 1e6:,.1f} MB written ({d['dram_source']})",
            f"  waves: {w['blocks_per_sm']} blocks/SM resident, the busiest SM runs {w['busiest_sm_blocks']} blocks "
            f"({lt['waves_on_busiest_sm']} waves), {w['active_sms']} SMs busy",
            f"  latency: {lt['resident_warps_per_sm']} warps/SM, {c['load_rounds_per_warp']:,.1f} load rounds and "
            f"{c['instructions_per_warp']:,.0f} instructions per warp, expected load latency "
            f"{lt['expected_load_latency_clk']:.0f} clk ({100 * lt['dram_fraction']:.0f}% DRAM, "
            f"{100 * lt['l2_fraction']:.0f}% L2)", ""]
    out += [f"  what would move it: {line}" for line in d["advice"]]
    out += [f"  note: {n}" for n in d["notes"]]
    return "\n".join(out)


MODEL = Model(
    name="timing", summary="predicted kernel time (CUDA events, default clocks), its limiter and what would move it",
    order=40, needs="simulation", metrics=(DURATION,), analyze=analyze, render=render,
    predictions=lambda d: {DURATION.name: d[DURATION.name]}, catalog_size="default_size", check=rates)
