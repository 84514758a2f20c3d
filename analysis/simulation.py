"""The simulations a simulation model (analysis.models.timing) reads: the launch as asked for,
simulated directly when that is cheap, else at two smaller sizes of the same catalog kernel.

Why two sizes: bench sizes are large (SGEMM 4096^3 is 1024 blocks of 512-trip K loops;
vector_add_single is one thread doing 2^20 iterations). Per-block work of every catalog
kernel is linear in the size (a K loop, a grid-stride or block-stride loop, or constant), so
the model simulates sizes s and 2s whose grids grow as the asked size's grid grows (so a
grid capped at the SM count is capped in both), and extrapolates per-block counts linearly.
Each sample is itself block-sampled as every trace model samples (analysis.sampling.plan_blocks).
"""
from __future__ import annotations

import argparse

from . import pipeline, registry, sass
from .args import parse_kv
from .common import Model, Sample, Simulation, provenance

DIRECT_FACTOR = 2  # a catalog size up to this x its sim_size is simulated as asked
MAX_DOUBLINGS = 16


def sample_sizes(launch: pipeline.ResolvedLaunch) -> list[int | None]:
    """[size] to simulate as asked, or [s, 2s]: the smallest pair from the catalog's sim_size up
    whose grid grows by the same factor as the asked size's grid over half of it."""
    entry, size = launch.entry, launch.size
    if entry is None or size is None or size <= DIRECT_FACTOR * entry.sim_size:
        return [size]
    sms = launch.gpu.sms

    def blocks(n: int) -> int:
        g = entry.launch(n, sms)[0]
        return int(g[0] * (g[1] if len(g) > 1 else 1) * (g[2] if len(g) > 2 else 1))

    half = max(entry.multiple, size // 2 // entry.multiple * entry.multiple)
    want = blocks(size) / blocks(half)
    s = entry.sim_size
    for _ in range(MAX_DOUBLINGS):
        if 2 * s >= size:
            break
        if abs(blocks(2 * s) / blocks(s) - want) < 1e-9:
            return [s, 2 * s]
        s *= 2
    return [size]


def _sample(launch: pipeline.ResolvedLaunch, all_blocks: bool, use_sass: bool) -> tuple[Sample, list, list[str]]:
    """Simulate one launch (block-sampled, as every model samples), with its per-pc warp instruction counts."""
    sim = pipeline.simulate_sampled(launch, all_blocks, use_sass)
    result, trace, weights, notes = sim.result, sim.result.trace, sim.weights, sim.notes
    wavefronts = 0.0
    for m in registry.trace_models():
        names = {x.name for x in m.metrics if x.unit == "wavefronts"}
        if names:
            preds = m.predictions(m.analyze(trace, weights, sim.issued))
            wavefronts += sum(v for k, v in preds.items() if k in names)
    s = Sample(launch.size, launch.grid, launch.blocks, result.stats["blocks_run"], trace, weights,
               result.stats["pc_warp_instructions"], wavefronts, provenance(trace, weights).label, sim.program,
               sim.listing, result.stats.get("followed", {}),
               float(launch.entry.min_bytes(launch.size)) if launch.entry is not None else None,
               result.stats.get("buffers", []), sim.follow_weights, result.stats.get("followed_parted", {}))
    return s, sim.body, notes


def simulation(launch: pipeline.ResolvedLaunch, defines: dict[str, str] | None = None,
               all_blocks: bool = False) -> Simulation:
    """The Simulation of `launch`: occupancy, the PTX body, one or two samples."""
    sizes = sample_sizes(launch)
    use_sass = sass.find_nvdisasm() is not None
    samples, notes, body = [], [], []
    for s in sizes:
        one = launch if s == launch.size else pipeline.resolve_catalog(launch.spec, s, defines or {}, launch.gpu,
                                                                        flags=launch.flags)
        sample, body, n = _sample(one, all_blocks, use_sass)
        samples.append(sample)
        notes += [x for x in n if x not in notes]
    if all_blocks and sizes != [launch.size]:
        notes.append(f"--all-blocks: every block ran at the sizes simulated ({' and '.join(map(str, sizes))}); the "
                     f"asked size {launch.size} is scaled from them, as without --all-blocks (the timing model "
                     f"simulates a catalog kernel at smaller sizes; `--grid/--block` on its file simulate any launch)")
    occ_model = registry.get("occupancy")
    occ = pipeline.launch_result(occ_model, launch)["occupancy"]
    res = pipeline.compile_launch(launch).resources
    occupancy = {"blocks_per_sm": occ["blocks_per_sm"], "warps_per_sm": occ["warps_per_sm"],
                 "occupancy_pct": 100.0 * occ["warps_per_sm"] / launch.gpu.max_warps_per_sm,
                 "limiters": occ["limiters"], "refused": occ["refused"], "carveout_bytes": occ["smem_carveout"]}
    if occ["refused"]:
        raise ValueError(f"the driver would refuse this launch: {occ['refused']}")
    entry, size = launch.entry, launch.size
    return Simulation(launch.describe(), launch.gpu, size, launch.blocks, launch.threads_per_block, launch.grid, body,
                      occupancy,
                      res.registers, samples,
                      compulsory_bytes=float(entry.min_bytes(size)) if entry is not None else None,
                      flops=float(entry.flops(size)) if entry is not None else None, notes=notes)


def result(model: Model, launch: pipeline.ResolvedLaunch, args: argparse.Namespace | None = None) -> dict:
    """A simulation model's result for a launch, cached on disk like the trace models' results."""
    if model.check is not None:
        model.check(launch.gpu)  # before any simulation: a GPU without rates is refused at once
    defines = parse_kv(args.define, "--define") if args is not None else {}
    all_blocks = bool(getattr(args, "all_blocks", False))
    use_cache = not getattr(args, "no_cache", False)
    return pipeline.cached(f"{model.name}|{launch.key()}|{all_blocks}|{sass.find_nvdisasm()}",
                           lambda: {**model.analyze(simulation(launch, defines, all_blocks)),
                                    "compiler": pipeline.compile_launch(launch).result.compiler}, use_cache)
