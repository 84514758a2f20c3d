"""PyCUDA's API over the simulator: change the import, keep the program.

    from cudasim import SourceModule, In, Out, InOut      # was: from pycuda.compiler import ...
    mod = SourceModule(src, options=["-DTILE=32"])
    f = mod.get_function("transpose_tiled")
    launch = f(Out(out), In(a), np.int32(w), np.int32(h), block=(32, 8, 1), grid=(w // 32, h // 32))

The call runs the kernel on the CPU and returns a `Launch`: the memory trace, instruction
counters, verifier findings and the compiler's resource usage.
"""
from __future__ import annotations

import difflib
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from .compile import DEFAULT_ARCH, CompileResult, Resources, compile_cuda
from .calls import echo, link
from .driver import ArgumentHandler, DeviceAllocation, In, InOut, Out, function_attribute
from .errors import LaunchError, MemoryFault
from .execute import MAX_STEPS, Finding, Program
from .gpus import GPU, for_arch, get_gpu
from .memory import GlobalMemory, default_memory
from .operands import untimed_notes
from .pointers import address_params
from .ptx import Module, cluster_problem, parse_module
from .trace import Trace

__all__ = ["SourceModule", "Function", "Launch", "In", "Out", "InOut"]
GUARD = 512  # bytes of no-man's-land after each array of a launch (a multiple of the 256-byte alignment)


@dataclass
class Launch:
    """What one simulated launch produced."""

    trace: Trace
    stats: dict
    findings: list[Finding]
    resources: Resources | None
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int = 0
    outputs: list[np.ndarray] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what the simulation cannot know (a clock read, %smid)

    def __repr__(self) -> str:
        s = self.stats
        return (f"<Launch grid={self.grid} block={self.block}: {s['blocks_run']}/{s['blocks_total']} blocks simulated, "
                f"{s['thread_instructions']:,} thread instructions in {s['wall_seconds']:.3f} s, "
                f"{len(self.findings)} findings>")


class SourceModule:
    """Compile CUDA C++ with NVRTC to PTX and prepare its kernels for simulation.

    Like PyCUDA, the source is wrapped in `extern "C" { }` unless `no_extern_c=True`;
    templates are reached through `name_expressions` ("sgemm<128, 128, 8>").
    """

    def __init__(self, source: str, nvcc: str = "nvcc", options: list[str] | None = None, keep: bool = False,
                 no_extern_c: bool = False, arch: str | None = None, code: str | None = None,
                 cache_dir: str | None = None, include_dirs: list[str] | tuple[str, ...] = (),
                 name_expressions: list[str] | tuple[str, ...] = (), filename: str = "kernel.cu",
                 memory: GlobalMemory | None = None):
        if not no_extern_c:
            source = f'extern "C" {{\n#line 1 "{filename}"\n{source}\n}}\n'
        opts = list(options or []) + [f"-I{d}" for d in include_dirs]
        result = compile_cuda(source, tuple(name_expressions), tuple(opts), arch or DEFAULT_ARCH, filename=filename)
        self._init(result.ptx, result, memory)

    @classmethod
    def from_ptx(cls, ptx: str, result: CompileResult | None = None,
                 memory: GlobalMemory | None = None) -> "SourceModule":
        """A module from PTX text (for example the exact PTX a GPU was given)."""
        self = cls.__new__(cls)
        self._init(ptx, result, memory)
        return self

    def _init(self, ptx: str, result: CompileResult | None, memory: GlobalMemory | None) -> None:
        self.ptx = ptx
        self.result = result
        self.module: Module = parse_module(ptx)
        self.memory = memory or default_memory()
        self.symbols: dict[str, int] = {}
        for v in self.module.globals:
            kind = "__constant__" if v.space == "const" else "__device__"
            self.symbols[v.name] = self.memory.alloc(max(v.size, 1), f"{kind} variable {v.name}")
        self.reset_globals()
        self._functions: dict[str, Function] = {}

    def reset_globals(self) -> None:
        """Give every `__device__` and `__constant__` variable the contents the source gives it (zeros where it
        gives none), as a fresh load of the module does: a run that starts again (a buffer grown) or a probe
        must not see a counter the last run left."""
        for v in self.module.globals:
            init = np.frombuffer(v.init, np.uint8) if v.init else np.zeros(0, np.uint8)
            fill = np.zeros(max(v.size, 1), np.uint8)
            fill[:len(init)] = init[:len(fill)]
            self.memory.write(self.symbols[v.name], fill)

    def _entry_name(self, name: str) -> str:
        fns = self.module.functions
        if name in fns:
            return name
        if self.result is not None:
            try:
                mangled = self.result.entry(name)
                if mangled in fns:
                    return mangled
            except KeyError:
                pass
        entries = [n for n, f in fns.items() if f.entry]
        pretty = {}
        for n in entries:
            pretty[n] = n
            if self.result is not None:
                for expr, low in self.result.lowered.items():
                    if low == n:
                        pretty[n] = expr
        close = difflib.get_close_matches(name, list(pretty.values()), n=3, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else f"; the module has: {', '.join(pretty.values())}"
        raise LaunchError(f"no kernel named {name!r} in the module{hint} (C++ kernels need extern \"C\" or a "
                          f"name expression)")

    def get_function(self, name: str) -> "Function":
        entry = self._entry_name(name)
        if entry not in self._functions:
            res = self.result.resources.get(entry) if self.result is not None else None
            self._functions[entry] = Function(self, entry, name, res)
        return self._functions[entry]

    def set_global(self, name: str, value: np.ndarray) -> None:
        """Write `value`'s bytes at the start of a `__device__` or `__constant__` variable, as
        cudaMemcpyToSymbol does (PyCUDA: memcpy_htod to get_global's address)."""
        addr, size = self.get_global(name)
        raw = np.ascontiguousarray(value).reshape(-1).view(np.uint8)
        if raw.nbytes > size:
            raise LaunchError(f"{raw.nbytes} bytes given, the variable holds {size}: give at most "
                              f"{size // max(np.asarray(value).itemsize, 1)} elements")
        self.memory.write(addr, raw)

    def get_global(self, name: str) -> tuple[int, int]:
        """(device address, size in bytes) of a `__device__` or `__constant__` variable."""
        for v in self.module.globals:
            if v.name == name:
                return self.symbols[name], v.size
        raise LaunchError(f"no __device__ or __constant__ variable named {name!r}")


def _dims(v, what: str, n: int = 3) -> tuple[int, int, int]:
    t = tuple(int(x) for x in (v if isinstance(v, (tuple, list)) else (v,)))
    if not 1 <= len(t) <= 3:
        raise LaunchError(f"{what} must have 1 to 3 dimensions, got {v!r}")
    return t + (1,) * (3 - len(t))  # type: ignore[return-value]


class Function:
    """A kernel of a SourceModule; call it like a PyCUDA function."""

    def __init__(self, module: SourceModule, entry: str, name: str, resources: Resources | None):
        self.module, self.entry, self.name, self.resources = module, entry, name, resources
        self.fn = link(module.module, entry)  # with the functions it calls, if any
        self._program: Program | None = None
        self._untimed: list[str] | None = None  # notes on registers the run cannot read as a GPU would: first launch
        self._checked: Program | None = None
        # the driver's limits are those of the chip the PTX targets (the default row without one)
        self.gpu: GPU = for_arch(module.module.target or "") or get_gpu()
        self.max_dynamic_shared = self.gpu.smem_per_block_default

    @property
    def program(self) -> Program:
        if self._program is None:
            self._program = Program(self.module.module, self.fn, self.module.memory, self.module.symbols)
        return self._program

    @property
    def checked_program(self) -> Program:
        """The kernel decoded for `check="full"` (cudasim.check): built on first use, apart from `program`."""
        if self._checked is None:
            self._checked = Program(self.module.module, self.fn, self.module.memory, self.module.symbols,
                                    checked=True)
        return self._checked

    # PyCUDA's function attributes
    @property
    def num_regs(self) -> int:
        return self.resources.registers if self.resources else 0

    @property
    def shared_size_bytes(self) -> int:
        return self.resources.shared_bytes if self.resources else self.program.static_shared

    @property
    def local_size_bytes(self) -> int:
        return self.resources.stack_bytes if self.resources else self.program.local_size

    def set_attribute(self, attr, value: int) -> None:
        if attr == function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES:
            optin = self.gpu.smem_per_block_optin
            if value > optin - self.shared_size_bytes:
                raise LaunchError(f"max dynamic shared memory {value} bytes exceeds the {optin} bytes "
                                  f"a block may opt in to on {self.gpu.arch}")
            self.max_dynamic_shared = int(value) + self.shared_size_bytes
        else:
            raise LaunchError(f"setting function attribute {attr!r} is not modelled")

    def opt_in(self, dynamic_shared: int) -> None:
        """Raise the dynamic shared-memory limit to `dynamic_shared` bytes where it passes the default, as the
        program must (cudaFuncSetAttribute) to launch it: a command line's launch is taken to have done so."""
        if self.shared_size_bytes + dynamic_shared > self.max_dynamic_shared:
            self.set_attribute(function_attribute.MAX_DYNAMIC_SHARED_SIZE_BYTES, dynamic_shared)

    def check_launch(self, grid: tuple[int, int, int], block: tuple[int, int, int], shared: int) -> None:
        """Raise LaunchError for a launch the driver would refuse, naming the limit."""
        gpu = self.gpu
        threads = block[0] * block[1] * block[2]
        problem = gpu.launch_problem(grid, block)
        if problem:
            raise LaunchError(problem)
        if (problem := cluster_problem(grid, self.fn.directives.get("reqnctapercluster"))) is not None:
            raise LaunchError(problem)
        req = self.fn.directives.get("reqntid")
        if req and tuple(req) + (1,) * (3 - len(req)) != block:
            raise LaunchError(f"the kernel requires blocks of {req} threads (__launch_bounds__ / .reqntid), got {block}")
        maxn = self.fn.directives.get("maxntid")
        if maxn and threads > int(np.prod(maxn)):
            raise LaunchError(f"block of {threads} threads exceeds the kernel's __launch_bounds__ of "
                              f"{int(np.prod(maxn))} threads (the GPU refuses it: cudaErrorInvalidValue): launch "
                              f"blocks of at most {int(np.prod(maxn))} threads, or raise the bound")
        static = self.shared_size_bytes
        if static + shared > self.max_dynamic_shared:
            extra = (" without cudaFuncSetAttribute(MaxDynamicSharedMemorySize)" if self.max_dynamic_shared ==
                     gpu.smem_per_block_default else "")
            raise LaunchError(f"the block needs {static + shared} bytes of shared memory ({static} static + "
                              f"{shared} dynamic); the limit is {self.max_dynamic_shared} bytes{extra}")
        if self.resources and self.resources.registers:
            warp = gpu.warp_size
            per_warp = -(-self.resources.registers * warp // gpu.reg_alloc_unit) * gpu.reg_alloc_unit
            need = per_warp * -(-threads // warp)
            if need > gpu.regs_per_sm:
                raise LaunchError(f"too many resources requested for launch: {self.resources.registers} registers "
                                  f"per thread x {threads} threads needs {need} registers; an SM has "
                                  f"{gpu.regs_per_sm}")

    def __call__(self, *args, block=(1, 1, 1), grid=(1, 1), shared: int = 0, stream=None, time_kernel: bool = False,
                 run_blocks=None, trace_blocks=None, trace: bool = True, check: bool | str = True,
                 lanes_per_batch: int = 1 << 15, follow_blocks=None, arg_names: list[str] | None = None,
                 printf: bool = True, max_steps: int = MAX_STEPS) -> Launch:
        """Run the kernel. `check`: True (default) the quick shared-memory check; "full" every check of
        cudasim.check (races in shared and global memory, bounds, barriers, initialisation, warp syncs:
        findings of cudasim.check.Finding, and the run goes on past them); False none. `arg_names`: the
        source's parameter names, which findings then use for the arrays (PTX numbers them). `printf`: write what the
        kernel printed to standard output, as the GPU does at the next synchronization (False: only in
        `launch.stats["printf"]`). `max_steps`: the warp instructions the launch may simulate before it stops as
        runaway (cudasim.Runaway, naming where its threads were)."""
        if check not in (True, False, "full"):
            raise ValueError(f"check={check!r}: use True, False or \"full\"")
        block3, grid3 = _dims(block, "block"), _dims(grid, "grid")
        self.check_launch(grid3, block3, int(shared))
        params = self.fn.params
        if len(args) != len(params):
            raise TypeError(f"{self.name} takes {len(params)} arguments, {len(args)} given")
        prog = self.checked_program if check == "full" else self.program  # decoded once, on first use
        t0 = time.perf_counter()
        mem = self.module.memory
        buf = np.zeros(max(self.fn.param_bytes, 1), np.uint8)
        temps: list[tuple[int, np.ndarray, bool]] = []
        unwritten: list[tuple[int, int]] = []  # Out(...) arrays: device memory the host did not write
        guards: list[int] = []  # no-man's-land around the arrays, as compute-sanitizer pads them: an overrun is caught
        owners: list[tuple[int, int, int]] = []  # (address, bytes, argument index) of the arrays passed
        try:
            for i, (a, p) in enumerate(zip(args, params)):
                where = f"argument {i} of {self.name}"
                if arg_names is not None and i < len(arg_names):
                    where = f"{arg_names[i]} ({where})"
                before = len(temps)
                raw = self._pack(where, a, p, mem, temps, unwritten, guards)
                buf[p.offset:p.offset + len(raw)] = np.frombuffer(raw, np.uint8)
                if len(temps) > before:
                    owners.append((temps[-1][0], temps[-1][1].nbytes, i))
            if temps:
                guards.append(mem.alloc(GUARD, "a guard zone between arrays", guard=True))
            if prog.checker is not None:
                heap = getattr(mem, "device_heap", None)  # what malloc returns holds no value until written
                heaps = [(heap.base, heap.size)] if heap is not None else []
                prog.checker.unwritten = unwritten + heaps
                prog.checker.known = [(ptr, arr.nbytes) for ptr, arr, _ in temps] + heaps
                prog.checker.guards = set(guards)
            try:
                tr, stats, findings = prog.launch(buf, grid3, block3, int(shared), run_blocks, trace_blocks, trace,
                                                  check, lanes_per_batch, follow_blocks, max_steps)
            except MemoryFault as fault:
                _name_argument(fault, owners, prog.fn, mem)
                raise
            if printf:
                echo(stats["printf"])
            outputs = []
            for ptr, arr, back in temps:
                if back:
                    arr.reshape(-1).view(np.uint8)[:] = mem.read(ptr, arr.nbytes)
                    outputs.append(arr)
        finally:
            if prog.checker is not None:
                prog.checker.release()
            for ptr, _, _ in reversed(temps):
                mem.free(ptr)
            for ptr in reversed(guards):
                mem.free(ptr)
        stats["call_seconds"] = time.perf_counter() - t0  # what the caller waited: copies and trace included
        stats["buffers"] = [(int(ptr), int(arr.nbytes)) for ptr, arr, _ in temps]  # the arrays passed: (address, bytes)
        if self._untimed is None:  # once per kernel: a GPU's clock or SM number is not what the run read
            self._untimed = untimed_notes(self.fn.body)
            for n in self._untimed:
                warnings.warn(f"cudasim: {self.name}: {n}", stacklevel=2)
        return Launch(tr, stats, findings, self.resources, grid3, block3, int(shared), outputs, list(self._untimed))

    def _pack(self, where: str, a, p, mem: GlobalMemory, temps: list, unwritten: list, guards: list) -> bytes:
        if isinstance(a, (ArgumentHandler, np.ndarray)):
            arr = a.array if isinstance(a, ArgumentHandler) else a
            copy_in = a.copy_in if isinstance(a, ArgumentHandler) else True
            copy_out = a.copy_out if isinstance(a, ArgumentHandler) else True
            if not arr.flags.c_contiguous:
                raise TypeError(f"{where}: the array is not contiguous; pass np.ascontiguousarray(...)")
            guards.append(mem.alloc(GUARD, "a guard zone between arrays", guard=True))  # an overrun is no valid access
            ptr = mem.alloc(arr.nbytes, f"{where} ({arr.dtype}[{arr.size}])")
            temps.append((ptr, arr, copy_out))
            if copy_in and arr.nbytes:
                mem.write(ptr, arr)
            elif not copy_in:
                unwritten.append((ptr, arr.nbytes))
            value = np.uint64(ptr)
        elif isinstance(a, DeviceAllocation):
            value = np.uint64(int(a))
        elif isinstance(a, np.generic):
            value = a
        elif isinstance(a, (bool, int, float)):
            raise TypeError(f"{where} is a Python {type(a).__name__}; pass a sized numpy scalar such as "
                            f"np.int32({a!r}) or np.float32({a!r}), as PyCUDA requires")
        elif hasattr(a, "__int__") and hasattr(a, "nbytes"):
            value = np.uint64(int(a))
        else:
            raise TypeError(f"{where}: cannot pass a {type(a).__name__} to a kernel")
        raw = np.asarray(value).tobytes()
        if len(raw) != p.size:
            raise TypeError(f"{where}: the kernel expects {p.size} bytes (.{p.type}), got {len(raw)} bytes "
                            f"({np.asarray(value).dtype}); pass np.{_suggest(p.type)}(...)")
        return raw


def _name_argument(fault: MemoryFault, owners: list[tuple[int, int, int]], fn, mem: GlobalMemory) -> None:
    """Set `fault.argument` to the argument whose array a global access ran past the end of, and
    `fault.argument_reach` to the bytes of that array, from its start, the access needs: the one parameter its
    address is made from (cudasim.pointers), else the last array starting at or below the access's lowest lane
    (lanes that step on from one array's start may land in the next array before they land nowhere). Where the
    address is made from one array and landed past another, the message names the array it is made from."""
    fault.buffers = list(owners)
    if fault.space != "global" or fault.kind != "out-of-bounds" or fault.lowest is None or fault.reach is None:
        return
    made = address_params(fn, fault.where) & {i for _, _, i in owners} if fault.where else set()
    i = made.pop() if len(made) == 1 else None
    ptr, n = next(((p, m) for p, m, j in owners if j == i), (0, 0))
    if i is not None and ptr <= fault.lowest and fault.reach > ptr + n:
        fault.argument, fault.argument_reach = i, fault.reach - ptr
        near = mem.find(ptr)
        if near is not None and near is not fault.allocation:
            fault.args = (f"{fault.where}: out-of-bounds global access at 0x{fault.address:x} ({fault.size} bytes): "
                          f"the access reaches {fault.reach - near.end:,} bytes past the end of {near.name} "
                          f"(0x{near.base:x}, {near.size} bytes), the array its address is made from",)
            fault.allocation, fault.past_end = near, fault.reach - near.end
        return
    below = [(ptr, n, i) for ptr, n, i in owners if ptr <= fault.lowest]
    if below:
        ptr, n, i = max(below)
        if fault.reach > ptr + n:
            fault.argument, fault.argument_reach = i, fault.reach - ptr


def _suggest(t: str) -> str:
    return {"u32": "uint32", "s32": "int32", "b32": "int32", "f32": "float32", "u64": "uint64", "s64": "int64",
            "b64": "uint64", "f64": "float64", "u16": "uint16", "s16": "int16", "u8": "uint8", "s8": "int8",
            "b8": "uint8"}.get(t, "int32")
