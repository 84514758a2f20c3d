"""The analysis pipeline: a TARGET resolved into one launch, compiled once, simulated once, modelled.

    resolve   TARGET + --define/--size/--gpu (or --grid/--block/--arg)  -> ResolvedLaunch (analysis.launch)
    compile   NVRTC (nvcc for host code) for the GPU row's arch, cached -> PTX + ptxas resources, cubin
    simulate  cudasim.SourceModule over that PTX, sampled blocks        -> memory trace
    model     every trace model over the one trace (cached on disk); launch models over
              the resources and the GPU row (analysis.registry)

TARGET is a catalog name (`transpose_tiled`, with `--size N`) or `path/to/file.cu::kernel`
with `--grid X[,Y[,Z]] --block X[,Y[,Z]] --arg NAME=VALUE`. What the target says is what is
compiled and simulated: a catalog target is its entry configured with the defines
(kernels.catalog.configure, so the launch follows them) at the GPU row's SM count, fed the
catalog's inputs; both kinds of target take the same compile and the same simulation.

Large launches are not simulated block by block: analysis.sampling picks the blocks that cover
the distinct cases and weights each by the blocks of its class, so totals are "sampled and
scaled (which blocks)"; sampled blocks of one class that did different work are named in a note.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import warnings
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable

import numpy as np

from cudasim import (CompileError, CompileResult, Launch, LaunchError, MemoryFault, Resources, Runaway, SimulationError,
                     SourceModule, Stalled, compile_cuda)
from cudasim import progress
from cudasim.compile import cache_dir, name_expressions, split_overload
from cudasim.includes import include_dirs_of
from cudasim.ptx import cluster_problem, directives_of, launch_bounds
from cudasim.memory import GlobalMemory, host_free_bytes
from cudasim.operands import untimed_notes

from . import dataflow, issues, registry, sass
from .args import TargetError, byte_size
from .signature import kernel_names, no_such_kernel
from .common import Model, interior, longest_warp, provenance
from .launch import (Dim3, ResolvedLaunch, _dim3, check_file_target, not_a_name, resolve, resolve_catalog,  # noqa: F401
                     resolve_file)
from .targetargs import add_compile_args, add_launch_args, add_target_args, compile_flags, target_command  # noqa: F401
from .sampling import (ALL_BLOCKS_THREADS, ALL_BLOCKS_WARPS, INTERIOR_SAMPLES, REFINE_PROBES,  # noqa: F401
                       TRACE_BUDGET_BYTES, UNEVEN_BLOCKS, _picks, _uneven_interior, block_signature, plan_blocks,
                       STRATA, refine_1d, stratified_1d, trace_bytes, uneven_samples, uneven_work)

ANALYSIS_CACHE_VERSION = 2


# ---- compile -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Compiled:
    """The compiler's output for a launch (NVRTC's, or nvcc's for a file with host code): the PTX
    cudasim runs and ptxas's report on it."""

    result: CompileResult
    entry: str  # the mangled entry name

    @property
    def resources(self) -> Resources:
        return self.result.resources[self.entry]


def compile_launch(launch: ResolvedLaunch) -> Compiled:
    """Compile the launch's source with its options for its GPU row's architecture (once per
    process; cudasim.compile also caches on disk, keyed on the architecture)."""
    return _compile(launch.source, launch.kernel, launch.options, launch.gpu.arch, launch.filename)


@lru_cache(maxsize=16)
def _compile(source: str, kernel: str, options: tuple[str, ...], arch: str, filename: str) -> Compiled:
    exprs = name_expressions(kernel)
    try:
        res = compile_cuda(source, exprs, options=list(options), arch=arch, filename=filename)
        entry = res.entry(kernel)
        if entry not in res.resources:  # ptxas's report missing from the log (cudasim.compile.reports_every_entry)
            res = compile_cuda(source, exprs, options=list(options), arch=arch, filename=filename, cache=False)
    except CompileError as e:
        if "invalid value for --gpu-architecture" in str(e):
            raise TargetError(f"--gpu: this compiler cannot make code for {arch} (CUDA 13 dropped compute capability "
                              f"7.0 and older): choose a GPU of 7.5 or newer (cudasim/gpus.json)") from None
        if "__nv_name_map" in str(e):  # NVRTC could not name the kernel asked for (the expression's file)
            every = compile_cuda(source, [], options=list(options), arch=arch, filename=filename)
            raise TargetError(no_such_kernel(filename, kernel, list(every.resources),
                                             kernel_names(source, filename, include_dirs_of(options)))) from None
        raise TargetError(f"{str(e).splitlines()[0]} (compiling for {arch})") from None
    except KeyError:
        raise TargetError(no_such_kernel(filename, kernel, list(res.resources),
                                         kernel_names(source, filename, include_dirs_of(options)))) from None
    if entry not in res.resources:
        raise TargetError(f"{filename}: the compiler reported no registers or shared memory for {kernel} (ptxas's "
                          f"report is missing from {res.compiler}'s log, twice); run again after deleting the cache "
                          f"folder ($CUDASIM_CACHE, by default ~/.cache/cudasim)")
    return Compiled(res, entry)


# ---- simulate ----------------------------------------------------------------------------

def load_variables(function: Any, values: dict[str, np.ndarray]) -> list[str]:
    """Write `values` into the module variables of the function's module (as cudaMemcpyToSymbol does); notes on
    the variables they fill only in part."""
    notes = []
    for name, value in values.items():
        try:
            function.module.set_global(name, value)
        except LaunchError as e:
            raise TargetError(f"--data {name}: {e}") from None
        size = function.module.get_global(name)[1]
        if value.nbytes < size:
            notes.append(f"{name}: --data gives its first {value.size:,} elements of {size // value.itemsize:,}; the "
                         f"rest hold what the source gives them (zeros where it gives nothing)")
    return notes


def _function(launch: ResolvedLaunch, compiled: Compiled):
    """The kernel in cudasim, in a device memory of its own: addresses (in pictures, in the
    result cache) do not depend on what this process simulated before."""
    mod = SourceModule.from_ptx(compiled.result.ptx, compiled.result, memory=GlobalMemory())
    f = mod.get_function(launch.kernel)
    f.opt_in(launch.shared)  # past 48 KiB of dynamic shared memory, as analysis.occupancy assumes
    return f


def simulate(launch: ResolvedLaunch, compiled: Compiled, blocks: list[int] | None,
             seed: int = 0, function=None, follow: list[int] | None = None,
             trace: bool = True) -> tuple[Launch, list[str], list]:
    """Run the launch in cudasim over the compiled PTX, tracing `blocks` (None: all; `trace` False: none), on
    `function` where given (probes that only count reuse one: parsed once, memory grown once),
    counting per warp the instructions of the blocks `follow` (stats["followed"]). A buffer the user left
    unsized that the kernel runs past grows, and the run starts again (ResolvedLaunch.grow).

    Returns (the simulated launch: trace, stats, findings; notes on arguments left to defaults;
    the kernel's PTX instructions, which per-pc counts index).
    """
    f = function or _function(launch, compiled)
    kw: dict[str, Any] = dict(block=launch.block, grid=launch.grid, shared=launch.shared, printf=False,
                              max_steps=launch.max_steps)
    if blocks is not None:
        kw.update(run_blocks=blocks, trace_blocks=blocks)
    if follow:
        kw.update(follow_blocks=follow)
    if not trace:
        kw.update(trace=False)
    spent, grown = 0, None  # steps of the runs that stopped to grow a buffer: all the runs share max_steps
    while True:
        f.module.reset_globals()  # each run starts as a launch does: a __device__ counter as the source sets it
        partly = load_variables(f, launch.variables(seed))
        args, notes = launch.simulation_arguments(seed)
        try:
            with warnings.catch_warnings():  # the API's note on clock reads: the pipeline gives it as a note
                warnings.filterwarnings("ignore", message="cudasim: ")
                ran = f(*args, **{**kw, "max_steps": launch.max_steps - spent})
            break
        except MemoryFault as fault:  # past the end of a buffer whose size was a guess: larger, and again
            grown = launch.grow(fault)
            if grown is None:
                raise
            spent += getattr(fault, "steps", 0)
        except Stalled as stop:
            made = launch.made_up()
            deciding = sorted({n for d in _made_up(launch, f.program.fn, made)[0].values() for n in d.control})
            if not deciding:
                raise
            raise Stalled(f"{stop}; {', '.join(deciding)} hold{'s' if len(deciding) == 1 else ''} made-up contents "
                          f"(no --data) that decide this kernel's branches, so the wait may be theirs: --data "
                          f"{deciding[0]}=FILE.npy gives yours", at=stop.at) from None
        except Runaway as stop:
            if grown is None:
                raise
            err = Runaway(f"the runs that grew {grown} (given no size) to what the kernel reads passed the limit of "
                          f"{launch.max_steps:,} warp instructions together, and it reads on: an endless loop, or "
                          f"one that data (given or made up) sends far? {stop.at}; give {grown} its size (--arg) or "
                          f"contents (--data), or a higher --max-steps", at=stop.at)
            err.grew = grown  # the buffer's growth is the runaway's story: nothing is gained by running again
            raise err from None
    notes = notes + partly
    if ran.stats["yields"]:
        notes.append(f"blocks waited for others in spin-waits, so the simulator ran those first ({ran.stats['yields']:,} "
                     f"time{'s' if ran.stats['yields'] > 1 else ''}); how often a wait goes round its loop depends on "
                     "timing, so its counts are the simulator's, not the GPU's")
    notes += untimed_notes(f.program.fn.body)
    printed = ran.stats["printf"].splitlines()
    if printed:
        notes.append(f"the kernel printed {len(printed):,} line{'s' if len(printed) != 1 else ''} (printf) in the "
                     f"simulated blocks, not shown here; the first: {printed[0][:100]!r}")
    return ran, notes, f.program.fn.body


def size_unsized(launch: ResolvedLaunch) -> str | None:
    """Grow the buffers the user left unsized to what every block touches, by one plain run of the whole grid
    (no trace, no checks), for a consumer that runs every block and cannot grow them itself (cudasim.check
    reports an access past an end instead of stopping). A run that stops for another reason (a real
    out-of-bounds access, a runaway loop) leaves the sizes as far as it got: that consumer reports it, with
    what it found before (the note returned says the sizes stopped growing). Runs that grew a buffer until
    the step limit stop here (Runaway): the buffer's growth is the story."""
    if not launch.unsized():
        return None
    with progress.task(f"sizing {', '.join(launch.unsized())} (given no size)", None,
                       "a run of every block: warp instructions", pulsed=True):
        try:
            simulate(launch, compile_launch(launch), None, trace=False)
        except Runaway as stop:
            if getattr(stop, "grew", None):
                raise
            return (f"{', '.join(launch.unsized())} (given no size) grew only as far as a plain run reached before it "
                    f"stopped ({str(stop).splitlines()[0][:160]}...)")
        except (MemoryFault, SimulationError):
            pass
    return None


@dataclass
class Simulated:
    """One simulation of a launch as every model reads it."""

    result: Launch  # trace (regrouped as ptxas emitted the accesses, where SASS is at hand), stats, findings
    weights: dict[int, float]  # sampled block -> how many blocks it stands for ({}: every block ran)
    notes: list[str]
    level: str  # "SASS" or "PTX": at which level memory instructions are counted
    body: list  # the kernel's PTX instructions
    program: Any = None  # cudasim's decoded kernel (control-flow graph, straight-line runs)
    listing: Any = None  # the kernel's SASS (analysis.sass.Listing), where nvdisasm is at hand
    depends: dict = field(default_factory=dict)  # pc -> dataflow.Dependence on made-up contents
    made: dict = field(default_factory=dict)  # buffers with made-up contents -> what they hold
    issued: dict | None = None  # "ld"/"st" -> shared instructions the SASS issues (analysis.issues); None: unknown
    follow_weights: dict = field(default_factory=dict)  # followed block -> how many blocks its path stands for


def simulate_sampled(launch: ResolvedLaunch, all_blocks: bool = False, use_sass: bool = True) -> Simulated:
    """The one simulation every model reads: the blocks planned (refined on a 1-D grid), the
    launch simulated over them, its memory accesses regrouped as ptxas emits them (with a progress
    line on a terminal: an every-block run of a large grid takes a while)."""
    blocks, _ = plan_blocks(launch.grid, launch.threads_per_block, all_blocks)
    how = ("every block" if blocks is None else "sampled blocks") + ": warp instructions"
    with progress.task(f"simulating {launch.kernel}, {launch.blocks:,} blocks", None, how, pulsed=True):
        try:
            return _simulate_sampled(launch, all_blocks, use_sass)
        except Stalled as stop:
            if all_blocks or blocks is None and launch.blocks == 1:
                raise
            wait = stop.at
    plan_blocks(launch.grid, launch.threads_per_block, True)  # refuses a grid too large to run whole
    with progress.task(f"simulating {launch.kernel}, {launch.blocks:,} blocks", None,
                       "every block, in order: warp instructions", pulsed=True):
        sim = _simulate_sampled(launch, True, use_sass, alone=False)
    sim.notes.insert(0, f"a block run alone waited for ever on another ({wait}), so every block was simulated, in "
                        "order")
    return sim


def _simulate_sampled(launch: ResolvedLaunch, all_blocks: bool, use_sass: bool, alone: bool = True) -> Simulated:
    """`alone`: blocks may be run one at a time to size buffers and to find where the work changes."""
    blocks, weights = plan_blocks(launch.grid, launch.threads_per_block, all_blocks)
    compiled = compile_launch(launch)
    one_d = launch.grid[1] == launch.grid[2] == 1
    located = True
    extra: list[str] = []
    probe = None  # one parsed kernel for every probe launch
    if launch.blocks > 1 and launch.unsized() and alone:  # the grid's last block first: buffers left unsized grow at once to
        probe = _function(launch, compiled)     # what it reaches, rather than step by step as probes reach further
        simulate(launch, compiled, [launch.blocks - 1], function=probe)
    if blocks is None and launch.blocks > 1 and (alone or not all_blocks):  # every block asked for, or few
        # threads (but each block may do much work): block 0's trace times the grid's blocks
        probe = probe or _function(launch, compiled)
        need = launch.blocks * trace_bytes(simulate(launch, compiled, [0], function=probe)[0].trace)
        if all_blocks and (free := host_free_bytes()) is not None and need > free // 3:  # refuse it before, not late
            raise TargetError(f"--all-blocks: a trace of every block would take about {byte_size(need)} (block 0's "
                              f"times {launch.blocks:,} blocks), past the {byte_size(free // 3)} it may use (a third of "
                              f"the memory free); leave out --all-blocks to simulate a sample of blocks, scaled")
        if not all_blocks and need > TRACE_BUDGET_BYTES:
            blocks, weights = _picks(launch.grid, INTERIOR_SAMPLES)
            extra.append(f"blocks sampled although the launch is small: a trace of every block would take about "
                         f"{byte_size(need)} of memory (--all-blocks to simulate them all)")
    if blocks is not None and one_d:
        probe = probe or _function(launch, compiled)
        blocks, weights, located = refine_1d(launch.grid[0], blocks, lambda b: block_signature(
            simulate(launch, compiled, [b], function=probe)[0].trace, b))
        if not located:  # work that changes everywhere: its mean from blocks drawn across the grid
            blocks, weights = stratified_1d(launch.grid[0], STRATA)
    follow, follow_weights = (blocks, weights) if blocks is not None else _picks(launch.grid, INTERIOR_SAMPLES)
    function = _function(launch, compiled)
    result, notes, body = simulate(launch, compiled, blocks, function=function, follow=follow)
    trace = result.trace
    g = launch.grid
    if blocks is not None and not one_d and (uneven_work(result.stats.get("followed", {}), function.program.run_end,
                                                         lambda b: interior(trace, b)) or _uneven_interior(trace, blocks)):
        # interior blocks whose work depends on where they are (an escape-time image) or on the data (branches
        # and addresses on an image's contents): their mean is estimated from more of them, evenly spread
        blocks, weights = _picks(g, uneven_samples(g))
        function = _function(launch, compiled)
        result, notes, body = simulate(launch, compiled, blocks, function=function, follow=blocks)
        follow_weights = weights
        trace = result.trace
    heaviest: dict[int, float] = {}  # the followed blocks' weights where the heaviest block joined them
    if blocks is None and launch.blocks > 1 and alone:
        heaviest = _follow_heaviest(launch, compiled, result, follow_weights, function.program.run_end)
        follow_weights = heaviest or follow_weights
    if blocks is not None and trace.traced_blocks is None:
        trace.traced_blocks = list(blocks)
    notes.extend(extra)
    if not located:
        notes.append(f"the blocks of this grid did different work in more places than {REFINE_PROBES} probes could "
                     f"locate (work that depends on the data?): the counts are estimated from {STRATA} blocks drawn "
                     f"across the grid, one from each of {STRATA} equal runs; --all-blocks gives exact ones")
    if blocks is not None and not one_d and (pair := _uneven_interior(trace, blocks)):
        a, b = (trace.block_coords(x) for x in pair)
        notes.append(f"blocks {a} and {b} were sampled to stand for alike blocks but did different work: "
                     "the counts are sampled estimates; --all-blocks gives exact ones")
    if blocks is not None:
        notes.append(f"{len(set(blocks))} of {launch.blocks:,} blocks simulated, the others taken to do what these "
                     "do: an out-of-bounds access, a hang or a far longer loop in a block not sampled is not seen "
                     "(--all-blocks simulates every block; python -m cudasim.check checks every block)")
        if (spread := uneven_work(result.stats.get("followed", {}), function.program.run_end,
                                  lambda b: interior(trace, b))):
            notes.append(f"the sampled interior blocks executed from {spread[0]:,} to {spread[1]:,} warp instructions "
                         f"each (loops that depend on the block or the data): the time and counts are estimates from "
                         f"{len(set(blocks))} of {launch.blocks} blocks (the time model's SM runs each sampled interior block "
                         "in turn); --all-blocks simulates every block")
    level = "PTX"
    disasm = sass.find_nvdisasm() if use_sass else None
    listing = None
    if disasm:
        try:
            listing = sass.kernel_listing(launch.source, list(launch.options), launch.filename, launch.kernel,
                                          compiled.entry, launch.gpu.arch)
            ops = None if listing is None else sass.memory_ops(listing)
        except Exception as e:  # noqa: BLE001 - SASS is a refinement: without it, PTX-level counts
            ops = None
            notes.append(f"SASS unavailable ({type(e).__name__}: {str(e).splitlines()[0][:80]}); PTX-level counts")
        if ops is not None:
            trace.events, sass_notes = sass.regroup(trace.events, ops, sass.fences(body))
            level = "SASS"
            notes.append("instructions as ptxas emits them: PTX accesses that ptxas merges into wider "
                         "loads/stores are counted as one (SASS from nvdisasm)")
            notes.extend("SASS: " + n for n in sass_notes[:8])
    if level == "PTX":
        notes.append("PTX-level counts: ptxas may merge neighbouring accesses into wider ones "
                     "(pip install nvidia-cuda-nvdisasm for SASS-level counts)")
    issued = None
    if level == "SASS":
        issued, why = issues.shared(listing, function.program, body, result.stats.get("followed", {}),
                                    follow_weights, -(-launch.threads_per_block // 32), trace, weights,
                                    result.stats.get("followed_parted"))
        if issued is None:
            notes.append(f"shared instructions counted from the trace, where some lane was on ({why}): those "
                         "that ptxas's predicated code issues with every lane off are not counted")
    made = launch.made_up()
    depends, said = _made_up(launch, function.program.fn, made)
    notes[:0] = said
    return Simulated(result, weights, notes, level, body, function.program, listing, depends, made, issued,
                     heaviest)


def _follow_heaviest(launch: ResolvedLaunch, compiled: Compiled, result: Launch, weights: dict[int, float],
                     run_end: Callable[[int], int]) -> dict[int, float]:
    """Every block ran, but the paths of a few were followed: where the block whose longest warp ran longest is
    not among them and ran longer than each of them, follow it too (run again alone), standing for itself, so
    that the models see a block that outlasts the rest (the sweep's F5: one block of 20 running 1000 times
    the others' loop was never seen). Returns the followed blocks' weights then, else {}."""
    followed = result.stats.get("followed", {})
    heavy, longest = result.stats.get("heaviest_block", (-1, -1))
    if heavy < 0 or heavy in followed:
        return {}
    if longest <= max((longest_warp(p, run_end) for p in followed.values()), default=0):
        return {}
    try:
        again, _, _ = simulate(launch, compiled, [heavy], follow=[heavy], trace=False)
    except Stalled:  # it waits on another block: its path is the one its spin-wait took there, not known alone
        return {}
    followed[heavy] = again.stats["followed"][heavy]
    if "followed_parted" in result.stats:
        result.stats["followed_parted"][heavy] = again.stats.get("followed_parted", {}).get(heavy, {-1: -1})
    rest = sum(weights.values()) or len(followed) - 1
    scale = (launch.blocks - 1) / rest
    return {**{b: w * scale for b, w in (weights or dict.fromkeys(followed, 1.0)).items() if b != heavy}, heavy: 1.0}


def _made_up(launch: ResolvedLaunch, fn, made: dict[str, str],
             said: str = "what is said of those lines (rows marked '?')") -> tuple[dict, list[str]]:
    """(pc -> dataflow.Dependence on the made-up contents, the notes that say so)."""
    if not made:
        return {}, []
    params = {i: p.name for i, p in enumerate(launch.signature()) if p.name in made}
    depends = dataflow.dependence(fn, params, set(made) - set(params.values()))
    return depends, dataflow.summary(depends, fn.body, made, said)


def check_notes(launch: ResolvedLaunch) -> list[str]:
    """For a check of the launch: the notes on buffers with made-up contents that decide its addresses or its
    branches (what the check finds there is what those contents do), and on registers the simulator cannot
    give their GPU values."""
    fn = _function(launch, compile_launch(launch)).program.fn
    made = launch.made_up()
    notes = _made_up(launch, fn, made, "what the check finds on those lines")[1] if made else []
    return notes + untimed_notes(fn.body)


# ---- model -------------------------------------------------------------------------------

def trace_results(launch: ResolvedLaunch, all_blocks: bool = False, use_cache: bool = True,
                  use_sass: bool = True) -> dict:
    """Every trace model's result for a launch, from one simulation, keyed by model name, with
    the launch's description, notes, verifier findings and provenance.

    Cached on disk by launch, sampling and code version, so a second command answers at once.
    """
    blocks, _ = plan_blocks(launch.grid, launch.threads_per_block, all_blocks)
    disasm = sass.find_nvdisasm() if use_sass else None
    return cached(f"{launch.key()}|{blocks}|{disasm}", lambda: _trace_results(launch, all_blocks, use_sass), use_cache)


def _trace_results(launch: ResolvedLaunch, all_blocks: bool, use_sass: bool) -> dict:
    sim = simulate_sampled(launch, all_blocks, use_sass)
    result, trace, weights, notes, level = sim.result, sim.result.trace, sim.weights, sim.notes, sim.level
    out: dict[str, Any] = {"target": launch.describe(), "grid": list(launch.grid), "block": list(launch.block),
                           "level": level, "provenance": provenance(trace, weights).label,
                           "compiler": compile_launch(launch).result.compiler}
    for model in registry.trace_models():
        out[model.name] = model.analyze(trace, weights, sim.issued)
        for row in out[model.name].get("instructions", []) if isinstance(out[model.name], dict) else []:
            if row.get("pc") in sim.depends:
                row["data"] = dataflow.mark(sim.depends[row["pc"]], sim.made)
    out["notes"] = notes
    out["findings"] = [str(f) for f in result.findings][:20]
    return out


def cached(key: str, compute: Callable[[], dict], use_cache: bool = True) -> dict:
    """`compute()`'s result, kept on disk under `key` and the code's hash, so that a second command
    answers at once; a cached answer is marked `"cached": True`."""
    path = _cache_path(hashlib.sha256(f"{key}|{_code_hash()}".encode()).hexdigest())
    if use_cache and path.exists():
        try:
            return {**json.loads(path.read_text()), "cached": True}
        except ValueError:
            pass
    out = compute()
    if use_cache:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(json.dumps(out, default=float))
            tmp.replace(path)
        except OSError:  # a full or read-only cache: answered, not kept
            tmp.unlink(missing_ok=True)
    return out


def launch_result(model: Model, launch: ResolvedLaunch, options: argparse.Namespace | None = None) -> dict:
    """A launch model's result: ptxas's resources for the launch and its GPU row, no simulation; with
    the compiler that made the code."""
    compiled = compile_launch(launch)
    cluster = directives_of(compiled.result.ptx, compiled.entry).get("reqnctapercluster")
    if (problem := cluster_problem(launch.grid, cluster)) is not None:
        raise ValueError(problem)
    threads, blocks = launch_bounds(compiled.result.ptx, compiled.entry)
    resources = replace(compiled.resources, max_threads=threads, min_blocks=blocks)
    return {**model.analyze(launch, resources, options), "compiler": compiled.result.compiler}


def _code_hash() -> str:
    """Hash of the code and data that shape a result, so the result cache invalidates itself."""
    h = hashlib.sha256(str(ANALYSIS_CACHE_VERSION).encode())
    root = Path(__file__).resolve().parent.parent
    for pkg in ("cudasim", "analysis", "kernels"):
        d = root / pkg
        if d.is_dir():
            for f in sorted(p for p in d.rglob("*") if p.suffix in (".py", ".json", ".cu")):
                if "results" in f.relative_to(d).parts:
                    continue
                h.update(str(f.relative_to(root)).encode())
                h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _cache_path(key: str) -> Path:
    return cache_dir() / "analysis" / f"{key[:40]}.json"
