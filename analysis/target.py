"""TARGET resolution shared by every analysis CLI, and the (cached) simulation behind it.

TARGET is a catalog name (`transpose_tiled`, with `--size N`) or `path/to/file.cu::kernel`
with `--grid X[,Y[,Z]] --block X[,Y[,Z]] --arg NAME=VALUE --define NAME=VALUE`. Scalars are
named as in the kernel's C signature; buffers are `NAME=float32[COUNT]`, or left out for an
unsized buffer at a fresh aligned base. The simulator and the catalog belong to other
packages and are imported lazily, so a missing piece is one clear line and exit status 2.

Large launches are not simulated block by block: `plan_blocks` picks the blocks that cover
the distinct cases (first, interior, last along each grid dimension) and weights each by
the number of blocks of its class, so totals are "sampled and scaled (which blocks)".
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any

import numpy as np

ANALYSIS_CACHE_VERSION = 1
ALL_BLOCKS_THREADS = 1 << 16  # simulate every block when the launch has at most this many threads
INTERIOR_SAMPLES = 2  # interior blocks sampled per grid dimension


class TargetError(Exception):
    """A TARGET or option the CLI cannot use; printed as one line, exit status 2."""


# ---- parsing -----------------------------------------------------------------------------

def parse_dims(text: str | None, default: tuple[int, int, int] | None = None) -> tuple[int, int, int] | None:
    """'32,8' -> (32, 8, 1)."""
    if text is None:
        return default
    try:
        parts = [int(p) for p in re.split(r"[,x ]+", text.strip()) if p]
    except ValueError:
        raise TargetError(f"bad dimensions {text!r}: expected X[,Y[,Z]]") from None
    if not 1 <= len(parts) <= 3 or any(p <= 0 for p in parts):
        raise TargetError(f"bad dimensions {text!r}: expected 1 to 3 positive integers")
    return tuple(parts + [1] * (3 - len(parts)))  # type: ignore[return-value]


@dataclass(frozen=True)
class Param:
    ctype: str
    name: str
    pointer: bool


_CTYPES = {
    "float": np.float32, "double": np.float64, "half": np.float16, "__half": np.float16,
    "int": np.int32, "signed": np.int32, "unsigned": np.uint32, "unsigned int": np.uint32, "uint": np.uint32,
    "int32_t": np.int32, "uint32_t": np.uint32, "long": np.int64, "long long": np.int64, "int64_t": np.int64,
    "unsigned long": np.uint64, "unsigned long long": np.uint64, "uint64_t": np.uint64, "size_t": np.uint64,
    "short": np.int16, "unsigned short": np.uint16, "char": np.int8, "unsigned char": np.uint8,
    "int8_t": np.int8, "uint8_t": np.uint8, "bool": np.bool_, "float4": np.float32, "float2": np.float32,
    "int4": np.int32, "int2": np.int32, "double2": np.float64,
}


def _strip_comments(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


def parse_signature(source: str, kernel: str) -> list[Param]:
    """Parameters of `__global__ ... kernel(...)` from the C++ source (names, types, pointer-ness)."""
    base = kernel.split("<")[0].strip()
    src = _strip_comments(source)
    for m in re.finditer(r"__global__[^;{(]*?\b" + re.escape(base) + r"\s*\(", src):
        i, depth = m.end(), 1
        j = i
        while j < len(src) and depth:
            depth += {"(": 1, ")": -1}.get(src[j], 0)
            j += 1
        body = src[i:j - 1]
        parts, depth, cur = [], 0, ""
        for ch in body:
            if ch in "<([" : depth += 1
            if ch in ">)]": depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur); cur = ""
            else:
                cur += ch
        if cur.strip():
            parts.append(cur)
        out = []
        for p in parts:
            p = p.split("=")[0].strip()
            if not p or p == "void":
                continue
            m2 = re.match(r"(.*?)([A-Za-z_]\w*)\s*(\[[^\]]*\])?$", p, flags=re.S)
            if not m2:
                raise TargetError(f"cannot read the parameter {p!r} of {base}")
            ctype, name = m2.group(1), m2.group(2)
            pointer = "*" in ctype or bool(m2.group(3))
            ctype = re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict|struct)\b|\*|&", " ", ctype)
            out.append(Param(" ".join(ctype.split()), name, pointer))
        return out
    raise TargetError(f"no __global__ function named {base!r} in the source")


_BUF_RE = re.compile(r"^([a-z]+\d*)\[(\d+)\]$")


def make_args(params: list[Param], specs: dict[str, str], threads: int) -> tuple[list[Any], list[str]]:
    """Kernel arguments from `--arg` specs; returns (args, notes about defaults)."""
    unknown = set(specs) - {p.name for p in params}
    if unknown:
        raise TargetError(f"--arg {sorted(unknown)[0]}: no such parameter; the kernel takes "
                          + ", ".join(p.name for p in params))
    args: list[Any] = []
    notes: list[str] = []
    for p in params:
        spec = specs.get(p.name)
        if p.pointer:
            if spec is None:
                args.append(unsized_buffer(p, threads))
                notes.append(f"{p.name}: unsized buffer at a fresh 256-byte aligned base")
                continue
            m = _BUF_RE.match(spec.replace(" ", ""))
            if not m:
                raise TargetError(f"--arg {p.name}={spec}: buffers are given as DTYPE[COUNT], e.g. float32[4096]")
            try:
                dt = np.dtype(m.group(1))
            except TypeError:
                raise TargetError(f"--arg {p.name}={spec}: unknown dtype {m.group(1)!r}") from None
            rng = np.random.default_rng(len(args))
            arr = (rng.standard_normal(int(m.group(2))).astype(dt) if dt.kind == "f"
                   else np.zeros(int(m.group(2)), dt))
            args.append(arr)
        else:
            dt = _CTYPES.get(p.ctype)
            if dt is None:
                raise TargetError(f"parameter {p.name} has type {p.ctype!r}, which the CLI cannot build")
            if spec is None:
                raise TargetError(f"missing --arg {p.name}=VALUE ({p.ctype})")
            try:
                val = float(spec) if np.dtype(dt).kind == "f" else int(spec, 0)
            except ValueError:
                raise TargetError(f"--arg {p.name}={spec}: not a {p.ctype}") from None
            args.append(np.dtype(dt).type(val))
    return args, notes


def unsized_buffer(p: Param, threads: int) -> Any:
    """An argument buffer whose size the user did not give.

    Prefers the simulator's own unsized buffer (no bounds, fresh aligned base); otherwise a
    zero-filled array generous enough for kernels that touch a few elements per thread.
    """
    try:
        import cudasim
        for name in ("Unsized", "UnsizedBuffer", "unsized"):
            if hasattr(cudasim, name):
                return getattr(cudasim, name)()
    except ImportError:
        pass
    dt = _CTYPES.get(p.ctype, np.float32)
    return np.zeros(max(threads * 16, 1 << 12), dt)


@dataclass
class Target:
    """A kernel launch to analyse, from the catalog or from a file."""

    spec: str
    kernel: str  # name expression
    source: str
    filename: str
    options: list[str]
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int = 0  # dynamic shared bytes
    arg_specs: dict[str, str] = field(default_factory=dict)
    catalog: bool = False
    size: int | None = None
    entry: Any = None  # the catalog entry
    notes: list[str] = field(default_factory=list)

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
        d = [self.kernel, self.source, self.options, self.grid, self.block, self.shared, sorted(self.arg_specs.items()),
             self.size, self.catalog]
        return hashlib.sha256(json.dumps(d, default=str).encode()).hexdigest()


def add_target_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("target", help="catalog name, or path/to/file.cu::kernel")
    p.add_argument("--grid", help="X[,Y[,Z]] blocks (file targets)")
    p.add_argument("--block", help="X[,Y[,Z]] threads (file targets)")
    p.add_argument("--shared", type=int, default=0, help="dynamic shared memory bytes per block")
    p.add_argument("--arg", action="append", default=[], metavar="NAME=VALUE",
                   help="scalar by name, or buffer NAME=float32[COUNT]")
    p.add_argument("--define", action="append", default=[], metavar="NAME=VALUE", help="preprocessor define")
    p.add_argument("--size", type=int, help="problem size for catalog kernels")
    p.add_argument("--gpu", help="GPU from cudasim/gpus.json (default H100-SXM)")
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.add_argument("--all-blocks", action="store_true", help="simulate every block however many there are")
    p.add_argument("--no-cache", action="store_true", help="ignore the on-disk result cache")


def _kv(items: list[str], what: str) -> dict[str, str]:
    out = {}
    for it in items:
        if "=" not in it:
            if what == "--define":
                out[it] = ""
                continue
            raise TargetError(f"{what} {it!r}: expected NAME=VALUE")
        k, v = it.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _define_options(defines: dict[str, str]) -> list[str]:
    return [f"-D{k}={v}" if v != "" else f"-D{k}" for k, v in defines.items()]


def resolve(args: argparse.Namespace) -> Target:
    """Turn the parsed CLI arguments into a Target (no simulation yet)."""
    defines = _kv(args.define, "--define")
    arg_specs = _kv(args.arg, "--arg")
    if "::" in args.target:
        path, kernel = args.target.split("::", 1)
        if not os.path.exists(path):
            raise TargetError(f"{path}: no such file")
        grid, block = parse_dims(args.grid), parse_dims(args.block)
        if grid is None or block is None:
            raise TargetError("a file target needs --grid X[,Y[,Z]] and --block X[,Y[,Z]]")
        return Target(args.target, kernel, Path(path).read_text(), path, _define_options(defines), grid, block,
                      args.shared, arg_specs)
    return resolve_catalog(args.target, args.size, defines, args)


def _catalog():
    try:
        from kernels import catalog  # type: ignore
    except ImportError as e:
        raise TargetError(f"the kernel catalog is not available yet (kernels.catalog: {e}); "
                          "use path/to/file.cu::kernel --grid .. --block ..") from None
    return catalog


def catalog_entry(name: str) -> Any:
    cat = _catalog()
    getter = getattr(cat, "get", None)
    entries = getattr(cat, "CATALOG", None) or getattr(cat, "catalog", None) or getattr(cat, "ENTRIES", None)
    entry = None
    if callable(getter):
        try:
            entry = getter(name)
        except (KeyError, LookupError) as e:
            msg = str(e.args[0]) if e.args else ""
            if msg and " " in msg:  # the catalog's own message names the close matches
                raise TargetError(msg) from None
            entry = None
    elif isinstance(entries, dict):
        entry = entries.get(name)
    if entry is None:
        names = sorted(entries) if isinstance(entries, dict) else []
        import difflib
        close = difflib.get_close_matches(name, names, n=5, cutoff=0.5)
        hint = f"; did you mean {', '.join(close)}?" if close else ""
        raise TargetError(f"no catalog kernel named {name!r}{hint}")
    return entry


def _field(obj: Any, *names: str, default: Any = None) -> Any:
    for n in names:
        if isinstance(obj, dict) and n in obj:
            return obj[n]
        if hasattr(obj, n):
            return getattr(obj, n)
    return default


def launch_config(entry: Any, size: int, sm_count: int) -> tuple[tuple[int, int, int], tuple[int, int, int], int]:
    """(grid, block, dynamic shared) from a catalog entry's launch(size, sm_count)."""
    cfg = entry.launch(size, sm_count)
    if isinstance(cfg, tuple) and len(cfg) in (2, 3) and not hasattr(cfg, "_fields"):
        grid, block, shared = cfg[0], cfg[1], cfg[2] if len(cfg) == 3 else 0
    else:
        grid, block, shared = _field(cfg, "grid"), _field(cfg, "block"), _field(cfg, "shared", "smem", default=0)
    pad = lambda t: tuple(int(v) for v in tuple(t) + (1,) * (3 - len(tuple(t))))  # noqa: E731
    return pad(grid), pad(block), int(shared or 0)


def resolve_catalog(name: str, size: int | None, defines: dict[str, str], args: argparse.Namespace | None = None,
                    sm_count: int | None = None) -> Target:
    entry = catalog_entry(name)
    if sm_count is None:
        from cudasim.gpus import get_gpu
        sm_count = get_gpu(getattr(args, "gpu", None)).sms
    source = _field(entry, "source", "src")
    if isinstance(source, Path) or (isinstance(source, str) and source.endswith(".cu") and "\n" not in source):
        path = Path(source)
        if not path.is_absolute():
            import kernels
            path = Path(kernels.__file__).parent / path
        filename, source = str(path), path.read_text()
    else:
        filename = _field(entry, "filename", "path", default=f"{name}.cu")
    if size is None:
        size = _field(entry, "sim_size", "size", default=None)
    edefs = dict(_field(entry, "defines", default={}) or {})
    edefs.update(defines)
    grid, block, shared = launch_config(entry, size, sm_count)
    kernel = _field(entry, "entry", "kernel", "name")
    return Target(name, kernel, source, str(filename), _define_options(edefs), grid, block, shared, {},
                  catalog=True, size=size, entry=entry)


# ---- compile and simulate ----------------------------------------------------------------

def compile_target(t: Target):
    """(CompileResult, mangled entry name) via NVRTC (disk-cached by cudasim.compile)."""
    from cudasim.compile import CompileError, compile_cuda
    exprs = [t.kernel] if "<" in t.kernel else []
    try:
        res = compile_cuda(t.source, exprs, options=t.options, filename=os.path.basename(t.filename))
    except CompileError as e:
        raise TargetError(str(e).splitlines()[0]) from None
    try:
        return res, res.entry(t.kernel)
    except KeyError:
        raise TargetError(f"{t.filename}: no kernel {t.kernel!r}; found " + ", ".join(res.resources)) from None


def resources(t: Target):
    res, mangled = compile_target(t)
    return res.resources[mangled]


def _coords(linear: int, grid: tuple[int, int, int]) -> tuple[int, int, int]:
    gx, gy, _ = grid
    return (linear % gx, linear // gx % gy, linear // (gx * gy))


def plan_blocks(grid: tuple[int, int, int], threads_per_block: int, all_blocks: bool = False,
                interior: int = INTERIOR_SAMPLES) -> tuple[list[int] | None, dict[int, float]]:
    """Which blocks to simulate, and how many blocks each stands for.

    Every block when the launch is small (<= ALL_BLOCKS_THREADS threads) or asked for;
    otherwise along each dimension the first, `interior` evenly spaced interior and the
    last index, and their product: edges and corners behave differently (bounds checks),
    interior blocks alike. Returns (None, {}) for "all blocks".
    """
    total = grid[0] * grid[1] * grid[2]
    if all_blocks or total * threads_per_block <= ALL_BLOCKS_THREADS:
        return None, {}
    per_dim: list[list[tuple[int, float]]] = []
    for g in grid:
        if g <= 2 + interior:
            per_dim.append([(i, 1.0) for i in range(g)])
            continue
        inner = g - 2
        picks = sorted({1 + (k * inner) // interior + inner // (2 * interior) for k in range(interior)})
        picks = [min(max(p, 1), g - 2) for p in picks]
        w = inner / len(picks)
        per_dim.append([(0, 1.0)] + [(p, w) for p in picks] + [(g - 1, 1.0)])
    blocks, weights = [], {}
    for (x, wx), (y, wy), (z, wz) in product(*per_dim):
        lin = x + y * grid[0] + z * grid[0] * grid[1]
        blocks.append(lin)
        weights[lin] = wx * wy * wz
    return blocks, weights


def _code_hash() -> str:
    """Hash of the code that shapes a result, so the result cache invalidates itself."""
    h = hashlib.sha256(str(ANALYSIS_CACHE_VERSION).encode())
    root = Path(__file__).resolve().parent.parent
    for pkg in ("cudasim", "analysis", "kernels"):
        d = root / pkg
        if d.is_dir():
            for f in sorted(d.glob("*.py")):
                h.update(f.name.encode())
                h.update(f.read_bytes())
    return h.hexdigest()[:16]


def _cache_path(key: str) -> Path:
    base = os.environ.get("CUDASIM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "cudasim")
    return Path(base) / "analysis" / f"{key[:40]}.json"


def simulate(t: Target, blocks: list[int] | None, seed: int = 0):
    """Run the launch in cudasim, tracing `blocks` (None: all). Returns the launch object."""
    if t.catalog:
        try:
            from kernels import sim as ksim  # type: ignore
        except ImportError as e:
            raise TargetError(f"the catalog simulator runner is not available yet (kernels.sim: {e})") from None
        kw: dict[str, Any] = dict(size=t.size, seed=seed)
        if blocks is not None:
            kw.update(run_blocks=blocks, trace_blocks=blocks)
        out = ksim.run(t.spec, **kw)
        return out[0] if isinstance(out, tuple) else out
    try:
        from cudasim import SourceModule  # type: ignore
    except ImportError as e:
        raise TargetError(f"the simulator is not available yet (cudasim.SourceModule: {e})") from None
    params = parse_signature(t.source, t.kernel)
    args, notes = make_args(params, t.arg_specs, t.blocks * t.threads_per_block)
    t.notes.extend(notes)
    mod = SourceModule(t.source, options=list(t.options), no_extern_c=True, filename=t.filename)
    f = mod.get_function(t.kernel)
    kw = dict(block=t.block, grid=t.grid, shared=t.shared)
    if blocks is not None:
        kw.update(run_blocks=blocks, trace_blocks=blocks)
    return f(*args, **kw)


def trace_models(t: Target, all_blocks: bool = False, use_cache: bool = True, use_sass: bool = True) -> dict:
    """Coalescing and bank results for a target (both at once: one simulation feeds both).

    Cached on disk by target, sampling and code version, so a second command answers at once.
    """
    from . import sass as sass_mod
    blocks, weights = plan_blocks(t.grid, t.threads_per_block, all_blocks)
    disasm = sass_mod.find_nvdisasm() if use_sass else None
    key = hashlib.sha256(f"{t.key()}|{blocks}|{_code_hash()}|{disasm}".encode()).hexdigest()
    path = _cache_path(key)
    if use_cache and path.exists():
        try:
            return {**json.loads(path.read_text()), "cached": True}
        except ValueError:
            pass
    from . import banks, coalescing
    launch = simulate(t, blocks)
    trace = getattr(launch, "trace", None)
    if trace is None:
        raise TargetError("the simulator returned no trace")
    if blocks is not None and trace.traced_blocks is None:
        trace.traced_blocks = list(blocks)
    level = "PTX"
    if disasm:
        try:
            ops = sass_mod.sass_memory_ops(t.source, list(t.options), t.filename, t.kernel)
        except Exception as e:  # noqa: BLE001 - SASS is a refinement: without it, PTX-level counts
            ops = None
            t.notes.append(f"SASS unavailable ({type(e).__name__}: {str(e).splitlines()[0][:80]}); PTX-level counts")
        if ops is not None:
            trace.events, sass_notes = sass_mod.regroup(trace.events, ops)
            level = "SASS"
            t.notes.append("instructions as ptxas emits them: PTX accesses that ptxas merges into wider "
                           "loads/stores are counted as one (SASS from nvdisasm)")
            t.notes.extend("SASS: " + n for n in sass_notes[:8])
    if level == "PTX":
        t.notes.append("PTX-level counts: ptxas may merge neighbouring accesses into wider ones "
                       "(pip install nvidia-cuda-nvdisasm for SASS-level counts)")
    result = {
        "target": t.describe(), "grid": list(t.grid), "block": list(t.block), "level": level,
        "coalescing": coalescing.analyze(trace, weights),
        "banks": banks.analyze(trace, weights),
        "local": local_summary(trace, weights),
        "notes": list(t.notes),
        "findings": [str(f) for f in (getattr(launch, "findings", None) or [])][:20],
    }
    if use_cache:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(result))
            tmp.replace(path)
        except OSError:
            pass
    return result


def local_summary(trace, weights: dict[int, float] | None) -> dict:
    """Local-memory (spill/stack) traffic, which ncu counts apart from global."""
    from .coalescing import analyze_events
    from .common import provenance
    prov = provenance(trace, weights)
    ins = analyze_events(trace.events, prov, trace, space="local")
    return {"requests": sum(i.requests for i in ins), "sectors": sum(i.sectors for i in ins),
            "lines": sorted({i.line for i in ins})}


def fail(msg: str) -> "NoReturn":  # type: ignore[name-defined]
    print(f"error: {msg}", file=sys.stderr)
    raise SystemExit(2)
