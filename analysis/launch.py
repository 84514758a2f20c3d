"""A TARGET resolved into one launch: what is compiled, how it is launched, with which arguments.

    resolve   TARGET + --define/--size/--gpu (or --grid/--block/--arg/--data)  -> ResolvedLaunch

TARGET is a catalog name (`transpose_tiled`, with `--size N`) or `path/to/file.cu::kernel` with
`--grid X[,Y[,Z]] --block X[,Y[,Z]] --arg NAME=VALUE`; a folder, or a file without `::kernel`, is
refused naming what to give (and the kernels the file holds). A catalog target is its entry
configured with the defines (kernels.catalog.configure, so the launch follows them) at the GPU
row's SM count, fed the catalog's inputs. A file target's buffers are the user's (`--arg
NAME=DTYPE[COUNT]`, `--data NAME=FILE.npy`), or, given neither, zeros that start small and grow
(`ResolvedLaunch.grow`) to what the kernel touches, up to UNSIZED_LIMIT bytes each.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from cudasim import In, MemoryFault
from cudasim.compile import identity
from cudasim.execute import MAX_STEPS
from cudasim.gpus import GPU, UnknownGPU, get_gpu
from cudasim.includes import include_dirs_of
from kernels import catalog

from .args import UNSIZED_LIMIT, TargetError, data_spec, made_up, make_args, module_variables, parse_dims, parse_kv
from .signature import kernel_names, parse_signature
from .targetargs import compile_flags

_ARGUMENTS: dict = {}  # (launch key, seed) -> the arguments made for it (ResolvedLaunch.arguments)
Dim3 = tuple[int, int, int]


@dataclass(frozen=True)
class ResolvedLaunch:
    """One launch, fully resolved: what is compiled (source, options, the GPU row's architecture),
    how it is launched (grid, block, dynamic shared bytes), with which arguments, on which GPU."""

    spec: str  # the TARGET as typed
    kernel: str  # name expression of the entry
    source: str
    filename: str
    options: tuple[str, ...]  # -D, -I and compiler flags; the architecture comes from `gpu`
    grid: Dim3
    block: Dim3
    shared: int  # dynamic shared bytes per block
    gpu: GPU
    size: int | None = None  # catalog targets: the problem size
    entry: catalog.Kernel | None = None  # catalog targets: the entry as configured; None for a file
    arg_specs: tuple[tuple[str, str], ...] = ()  # file targets: --arg NAME=VALUE
    flags: tuple[str, ...] = ()  # the -I folders and compiler options given (also in `options`)
    max_steps: int = MAX_STEPS  # warp instructions a simulation may run before it stops as runaway (not in the key)

    @property
    def threads_per_block(self) -> int:
        return self.block[0] * self.block[1] * self.block[2]

    @property
    def blocks(self) -> int:
        return self.grid[0] * self.grid[1] * self.grid[2]

    def describe(self) -> str:
        g = "x".join(map(str, self.grid))
        b = "x".join(map(str, self.block))
        sz = f", size {self.size}" if self.size is not None else ""
        return f"{self.kernel} grid {g} block {b}{sz}" + (f", {self.shared} B dynamic shared" if self.shared else "")

    def key(self) -> str:
        """What determines a simulation's result, hashed (the result cache's key)."""
        d = [self.kernel, self.source, self.filename, list(self.options), self.gpu.arch, self.grid, self.block,
             self.shared, sorted(self.arg_specs), self.size, self.entry is not None,  # the file: lines name it
             identity(self.source, self.filename, self.options)]  # headers, compilers
        return hashlib.sha256(json.dumps(d, default=str).encode()).hexdigest()

    @property
    def include_dirs(self) -> list[str]:
        """The -I folders the options name."""
        return include_dirs_of(self.options)

    def signature(self) -> list:
        """The kernel's parameters, from the source or the headers it includes (signature.Param)."""
        return parse_signature(self.source, self.kernel, self.filename, self.include_dirs)

    def arguments(self, seed: int = 0) -> tuple[list[Any], list[str]]:
        """The kernel's arguments (fresh copies: a launch may write them), and notes on any the user
        left to defaults: the catalog's inputs for a catalog target, the `--arg` specs for a file target.
        Made once per launch and seed: probes of one launch share them."""
        args, notes, _ = self._made(seed)
        return [a.copy() if isinstance(a, np.ndarray) else a for a in args], list(notes)

    def simulation_arguments(self, seed: int = 0) -> tuple[list[Any], list[str]]:
        """`arguments()` as a simulation for the models takes them: a buffer left unsized is fresh zeros copied
        in and not back (cudasim.In), so that its pages are touched once, in the simulated memory, and memory
        follows what the kernel touches rather than a few copies of the largest buffer."""
        args, notes, _ = self._made(seed)
        unsized = set(self.unsized())
        params = self.signature() if unsized else []
        out = []
        for i, a in enumerate(args):
            if unsized and isinstance(a, np.ndarray) and params[i].name in unsized:
                out.append(In(np.zeros(a.size, a.dtype)))  # calloc'ed: no page is touched until the copy in
            else:
                out.append(a.copy() if isinstance(a, np.ndarray) else a)
        return out, list(notes)

    def variables(self, seed: int = 0) -> dict[str, np.ndarray]:
        """Contents for the module's `__constant__` / `__device__` variables: the catalog's inputs that
        are variables, or `--data NAME=FILE.npy` naming one (a diagonal table in constant memory
        decides addresses as much as an argument does)."""
        return dict(self._made(seed)[2])

    def _made(self, seed: int) -> tuple[list[Any], list[str], dict[str, np.ndarray]]:
        key = (self.key(), seed)
        if key not in _ARGUMENTS:
            if self.entry is not None:
                inputs = self.entry.make_inputs(self.size, seed)
                names = getattr(self.entry, "constants", ())
                made = (self.entry.args(inputs, self.size), [], {n: inputs[n] for n in names})
            else:
                made = make_args(self.signature(), dict(self.arg_specs),
                                 module_variables(self.source, self.filename, self.include_dirs),
                                 _GROWN.get(self.key()))
            _ARGUMENTS.clear()  # one launch's arguments at a time: they can be large
            _ARGUMENTS[key] = made
        return _ARGUMENTS[key]

    def made_up(self) -> dict[str, str]:
        """The buffers and module variables whose contents the simulation makes up (a file target's, given no
        --data): name -> what they hold ("zeros", "random values"). A catalog target's inputs are its own."""
        if self.entry is not None:
            return {}
        return made_up(self.signature(), dict(self.arg_specs),
                       module_variables(self.source, self.filename, self.include_dirs))

    def unsized(self) -> list[str]:
        """The buffers given neither size nor data (a file target's pointers without --arg or --data)."""
        if self.entry is not None:
            return []
        specs = dict(self.arg_specs)
        return [p.name for p in self.signature() if p.pointer and p.name not in specs]

    def grow(self, fault: MemoryFault) -> str | None:
        """Make the buffer a global access ran past the end of larger, where the user gave it neither size nor
        data (its bounds were a guess): to cover the access with headroom, and at least double, so that a run
        that touches more and more fits after few runs. Which buffer: the one the launch named (the pointer
        parameter the address is made from, else the one the access's lowest lane is in or past: cudasim.api).
        False where the fault is not such a buffer's (a real out-of-bounds access). One line (TargetError) naming
        the buffer and how to size it where it would pass UNSIZED_LIMIT bytes. The next `arguments()` has the
        new size: simulation is deterministic, so the run that faulted can run again. Returns the buffer's name,
        None where nothing grew."""
        if self.entry is not None or fault.kind != "out-of-bounds" or fault.reach is None:
            return None
        params = self.signature()
        bases = {i: ptr for ptr, _, i in fault.buffers}
        index = fault.argument
        if index is None or index >= len(params) or index not in bases or fault.reach <= bases[index]:
            return None
        p = params[index]
        if not p.pointer or p.name in dict(self.arg_specs):
            return None
        now = self._made(0)[0][index]
        reach = fault.reach - bases[index]
        if reach <= now.nbytes:
            return None
        if reach > UNSIZED_LIMIT:
            raise TargetError(f"{p.name}: the kernel reaches {reach:,} bytes into {p.name}, which was given "
                              f"no size, past the {UNSIZED_LIMIT >> 20:,} MiB an unsized buffer may grow to: give its "
                              f"size with --arg {p.name}={now.dtype}[COUNT] (or its contents with --data "
                              f"{p.name}=FILE.npy)")
        need = -(-reach // now.itemsize)
        count = min(max(need + need // 8, 2 * now.size), UNSIZED_LIMIT // now.itemsize)
        _GROWN.setdefault(self.key(), {})[p.name] = int(count)
        _ARGUMENTS.clear()
        return p.name


_GROWN: dict[str, dict[str, int]] = {}  # launch key -> the element counts its unsized buffers grew to


# ---- resolve -----------------------------------------------------------------------------

def resolve(args: argparse.Namespace, catalog_size: str = "sim_size") -> ResolvedLaunch:
    """The parsed command line as one ResolvedLaunch (nothing compiled or simulated yet).

    `catalog_size` names the catalog size a catalog target without --size gets.
    """
    if args.gpu is not None and not args.gpu.strip():
        raise TargetError("--gpu '': give a GPU's name, e.g. --gpu H100 (cudasim/gpus.json lists them), or leave "
                          "--gpu out for the default")
    try:
        gpu = get_gpu(args.gpu)
    except UnknownGPU as e:
        raise TargetError(str(e)) from None
    if args.size is not None and args.size < 1:
        raise TargetError(f"--size {args.size}: must be a positive integer")
    defines = parse_kv(args.define, "--define")
    flags = compile_flags(args)
    if getattr(args, "shared", 0) and args.shared < 0:
        raise TargetError(f"--shared {args.shared}: dynamic shared memory is a number of bytes, 0 or more")
    steps = getattr(args, "max_steps", None)
    if steps is not None and steps < 1:
        raise TargetError(f"--max-steps {steps}: must be a positive number of warp instructions")
    launch = _resolve(args, gpu, defines, flags, catalog_size)
    return launch if steps is None else replace(launch, max_steps=steps)


def _resolve(args: argparse.Namespace, gpu: GPU, defines: dict[str, str], flags: tuple[str, ...],
             catalog_size: str) -> ResolvedLaunch:
    if "::" in args.target:
        check_file_target(args.target, flags)
        if args.size is not None:
            raise TargetError(f"--size {args.size}: a file target's launch and buffers are --grid, --block and --arg "
                              f"NAME=DTYPE[COUNT]; --size sizes a catalog kernel")
        specs = parse_kv(args.arg, "--arg")
        for name, path in parse_kv(getattr(args, "data", []), "--data").items():
            if name in specs:
                raise TargetError(f"--data {name}: {name} is also given by --arg; give it one way")
            specs[name] = data_spec(name, path)
        return resolve_file(args.target, parse_dims(args.grid), parse_dims(args.block), args.shared, defines,
                            specs, gpu, flags)
    given = [o for o, v in (("--grid", args.grid), ("--block", args.block), ("--shared", args.shared),
                            ("--arg", args.arg), ("--data", getattr(args, "data", []))) if v]
    not_a_name(args.target, flags)  # a file named without its ::KERNEL is told so, launch options or not
    if given:
        raise TargetError(f"{', '.join(given)}: a catalog kernel's launch and arguments follow its size, defines and "
                          f"GPU; use path/to/file.cu::kernel to give them")
    return resolve_catalog(args.target, args.size, defines, gpu, catalog_size, flags)


def check_file_target(spec: str, flags: tuple[str, ...] = ()) -> None:
    """TargetError for `path::kernel` with no file or no kernel named, naming what to give."""
    path, kernel = spec.split("::", 1)
    if not path:
        raise TargetError(f"{spec}: give the file before '::', as path/to/file.cu::{kernel or 'KERNEL'}")
    if os.path.isdir(path):
        raise TargetError(f"{path}: a folder, not a .cu file; give path/to/file.cu::KERNEL")
    if not os.path.isfile(path):
        what = ("a link that leads nowhere (or round in a loop)" if os.path.islink(path) and not os.path.exists(path)
                else "not a regular file (a pipe or device)" if os.path.exists(path) else "no such file")
        raise TargetError(f"{path}: {what} (give path/to/file.cu::KERNEL, the path from this folder)")
    if not kernel.strip():
        raise TargetError(f"{spec}: give the kernel after '::'; {_holds(path, flags)}")
    if kernel.count("<") != kernel.count(">") or kernel.count("(") != kernel.count(")"):
        raise TargetError(f"{kernel}: its < > or ( ) do not pair up; give a template's arguments or an overload's "
                          f"types whole, as {path}::name<float, 32> or {path}::name(float*, int), in quotes for the "
                          f"shell")


def not_a_name(target: str, flags: tuple[str, ...] = ()) -> None:
    """TargetError for a TARGET without '::' that is a folder or a file rather than a catalog name."""
    if os.path.isdir(target):
        raise TargetError(f"{target}: a folder, not a kernel; give a catalog name (python -m kernels lists them) or "
                          f"path/to/file.cu::KERNEL")
    if os.path.isfile(target) or target.endswith((".cu", ".cuh", ".h", ".hpp", ".cpp")):
        if not os.path.isfile(target):
            raise TargetError(f"{target}: no such file (give path/to/file.cu::KERNEL, the path from this folder)")
        raise TargetError(f"{target} is a file: give {target}::KERNEL; {_holds(target, flags)}")


def _holds(path: str, flags: tuple[str, ...]) -> str:
    """'it has a, b, c' for the kernels a file and its headers declare (or that it declares none)."""
    try:
        names = kernel_names(Path(path).read_text(errors="replace"), path, include_dirs_of(flags))
    except OSError as e:
        return f"it cannot be read ({e.strerror or e})"
    return f"it has {', '.join(names)}" if names else "it declares no __global__ function"


def resolve_catalog(name: str, size: int | None = None, defines: dict[str, str] | None = None, gpu: GPU | None = None,
                    catalog_size: str = "sim_size", flags: tuple[str, ...] = ()) -> ResolvedLaunch:
    """A catalog kernel configured with `defines`, at `size` (default: its `catalog_size`), launched
    as the catalog launches it on `gpu` (default: the table's default row), compiled with `flags`
    (-I folders, compiler options) besides its defines."""
    gpu = gpu or get_gpu()
    try:
        entry = catalog.configure(name, defines or {})
        if entry.kind == "pipeline":  # its time is the copies' as much as the kernel's: not one launch's
            raise TargetError(f"{name} is a host pipeline (copies, the kernel, copies): python -m analysis.transfers "
                              f"{name} predicts it; its kernel alone is {entry.entry}, a target here")
        if entry.min_cc and float(gpu.cc) < float(entry.min_cc):
            raise TargetError(f"{name}: kernels/{entry.source} holds tensor-core kernels that need compute capability "
                              f"{entry.min_cc} or newer, and the {gpu.name} is {gpu.cc}: a GPU of {entry.min_cc} or "
                              f"newer (--gpu)")
        size = size or {"sim_size": entry.sim_size, "default_size": entry.default_size}[catalog_size]
        entry.check_size(size)
        entry.check_fits(size, gpu.memory_bytes, f"the {gpu.name}")
    except catalog.CatalogError as e:
        raise TargetError(str(e)) from None
    grid, block, shared = entry.launch(size, gpu.sms)
    problem = gpu.launch_problem(grid, block)
    if problem:
        fix = "a smaller --size" if problem.startswith("grid dimension") else \
            f"the block follows the defines ({', '.join(f'{k}={v}' for k, v in entry.defines)}): smaller ones"
        raise TargetError(f"{name} at size {size:,}: {problem}; {fix}")
    return ResolvedLaunch(name, entry.entry, catalog.source(entry), str(entry.path), (*entry.options(), *flags),
                          _dim3(grid), _dim3(block), int(shared), gpu, size, entry, flags=tuple(flags))


def resolve_file(spec: str, grid: Dim3 | None, block: Dim3 | None, shared: int, defines: dict[str, str],
                 arg_specs: dict[str, str], gpu: GPU | None = None, flags: tuple[str, ...] = ()) -> ResolvedLaunch:
    """`path/to/file.cu::kernel` launched with the given grid, block and dynamic shared bytes, compiled
    with its defines and `flags` (-I folders, compiler options)."""
    check_file_target(spec, flags)
    path, kernel = spec.split("::", 1)
    if grid is None or block is None:
        raise TargetError("a file target needs --grid X[,Y[,Z]] and --block X[,Y[,Z]]")
    options = tuple(f"-D{k}={v}" if v != "" else f"-D{k}" for k, v in defines.items()) + tuple(flags)
    try:
        source = Path(path).read_text(encoding="utf-8-sig")  # a BOM, as some editors write, is no C
    except UnicodeDecodeError as e:
        raise TargetError(f"{path}: not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start}); give a CUDA "
                          f"source file") from None
    return ResolvedLaunch(spec, kernel, source, path, options, grid, block, int(shared or 0),
                          gpu or get_gpu(), arg_specs=tuple(arg_specs.items()), flags=tuple(flags))


def _dim3(t) -> Dim3:
    t = tuple(int(v) for v in t)
    return t + (1,) * (3 - len(t))  # type: ignore[return-value]
