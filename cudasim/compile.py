"""CUDA C++ -> PTX (with line info), the cubin, and ptxas resource usage, on a machine with no GPU.

NVRTC from pip does the work, so no CUDA toolkit is needed; the same compile also runs ptxas
(`-Xptxas=-v`) to learn registers, shared memory, stack and spills per kernel, and makes the
cubin nvdisasm lists. A file NVRTC cannot take because it holds host code (a `main()`, a
host-only header such as `<vector>`) goes to nvcc where nvcc is installed (cudasim.nvcc), and
otherwise ends in one line naming the header or function and the fix. Which compiler made the
code is `CompileResult.compiler`.

Every compile runs in a child process with address-space randomization off (cudasim.noaslr):
NVRTC's optimizer otherwise varies its output with where its heap lands (sgemm_warptiling:
112, 114 or 121 registers from run to run). `<cmath>`, `<cfloat>`, `<climits>`, `<cstdint>`,
`<cstdio>`, `<cassert>` and their `.h` forms, which NVRTC lacks, come from cudasim/include
(libcu++'s headers and NVRTC's built-in printf and assert). Results are cached on disk by a
hash of the source, the headers it includes, the options, the name expressions, the compilers'
versions and this module's COMPILE_VERSION, since a compile takes 0.1-2 s and analysis commands
should answer at once.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import sys
import sysconfig
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from pathlib import Path

from . import includes, nvcc
from .gpus import get_gpu

DEFAULT_ARCH = get_gpu().arch  # the default GPU row's compute capability ("sm_90" for the H100)
COMPILE_VERSION = 5  # part of the cache key: raised when what a compile makes or stores changes
SHIMS = Path(__file__).parent / "include"  # the standard headers NVRTC lacks (see the docstring)
IMPLICIT = SHIMS / "cudasim_nvcc_implicit.h"  # what nvcc's implicit includes give device code


class CompileError(Exception):
    """The CUDA compiler rejected the source; the message holds its log."""


@dataclass(frozen=True)
class Resources:
    """What ptxas reports for one kernel (per thread, per block)."""

    registers: int
    shared_bytes: int  # static shared memory per block
    stack_bytes: int
    spill_stores: int
    spill_loads: int
    barriers: int
    const_bytes: int = 0
    max_threads: int = 0  # __launch_bounds__'s most threads a block (PTX .maxntid/.reqntid; 0: none asked)
    min_blocks: int = 0  # and its fewest blocks an SM should hold (.minnctapersm)


@dataclass
class CompileResult:
    ptx: str
    arch: str
    lowered: dict[str, str]  # name expression -> mangled entry name
    resources: dict[str, Resources]  # mangled entry name -> ptxas report
    log: str = ""
    compiler: str = ""  # which compiler made the code: "nvrtc 13.0", "nvcc 13.0.88", with why where it matters
    options: list[str] = field(default_factory=list)
    cubin: bytes = b""  # the machine code of this very PTX (ptxas's, in the same compile)
    layout_fixed: bool = True  # compiled with randomization off, so the same inputs give the same code

    def entry(self, name: str) -> str:
        """Mangled entry for a name expression, a plain extern "C" name, or a mangled name."""
        if name_expression(name) in self.lowered:
            return self.lowered[name_expression(name)]
        if name in self.resources or f".entry {name}(" in self.ptx:
            return name
        prefix = f"_Z{len(name)}{name}"  # a C++ kernel reached by its plain name
        matches = sorted(set(m for m in self.resources if m.startswith(prefix)) |
                         set(re.findall(rf"\.entry ({re.escape(prefix)}\w*)\(", self.ptx)))
        if len(matches) == 1:
            return matches[0]
        raise KeyError(name)


def name_expressions(kernel: str) -> list[str]:
    """The NVRTC name expressions naming `kernel` needs: a template instance, a namespace-qualified name or an
    overload named with its parameter types is a C++ expression NVRTC lowers to its mangled entry; a plain name
    is found as it is (CompileResult.entry)."""
    return [name_expression(kernel)] if "<" in kernel or "::" in kernel or "(" in kernel else []


def name_expression(kernel: str) -> str:
    """`kernel` as a C++ expression of the function: an overload named with its parameter types
    (`scale(float*, int)`) is the cast that picks it, `static_cast<void(*)(float*, int)>(scale)`."""
    name, params = split_overload(kernel)
    return kernel if params is None else f"static_cast<void(*)({params})>({name})"


def split_overload(kernel: str) -> tuple[str, str | None]:
    """(name, parameter types as written, or None) of a kernel named as `scale(float*, int)` or `scale`."""
    k = kernel.strip()
    if not k.endswith(")"):
        return k, None
    depth = 0
    for i in range(len(k) - 1, -1, -1):
        depth += (k[i] == ")") - (k[i] == "(")
        if depth == 0:
            return (k[:i].strip(), k[i + 1:-1].strip()) if i > 0 else (k, None)
    return k, None


def reports_every_entry(result: CompileResult) -> bool:
    """Whether ptxas's report (registers, shared memory) came back for every entry of the PTX. NVRTC 13.0.88 on
    the H100/H200 machine returned an empty log for a program whose PTX it had compiled before in the same
    process, which left `resources` without the kernel (a KeyError in analysis.compare while each compile ran
    in the calling process); such a result is not cached, and analysis.pipeline compiles it again."""
    return all(e in result.resources for e in re.findall(r"\.entry\s+([\w$]+)\s*\(", result.ptx))


def include_dirs() -> list[str]:
    """CUDA headers for NVRTC (mma.h, cuda_fp16.h): the pip wheels first, then a toolkit."""
    roots = []
    purelib = Path(sysconfig.get_paths()["purelib"])
    for base in [purelib, *map(Path, _site_dirs())]:
        for sub in ("nvidia/cu13/include", "nvidia/cuda_runtime/include"):
            if (base / sub / "mma.h").exists():
                roots.append(str(base / sub))
    roots += [os.path.join(os.environ[env], "include") for env in ("CUDA_HOME", "CUDA_PATH") if os.environ.get(env)]
    roots.append("/usr/local/cuda/include")
    dirs: list[str] = []
    for root in roots:  # each with its cccl folder (cuda/std/...: cooperative groups and the <cmath> family use it)
        for d in (root, os.path.join(root, "cccl")):
            if os.path.isdir(d) and d not in dirs:
                dirs.append(d)
    return dirs


def _site_dirs() -> list[str]:
    import site
    import sys

    out = list(getattr(site, "getsitepackages", lambda: [])())
    out += [p for p in sys.path if p.endswith(("site-packages", "dist-packages", ".gpu-site"))]
    return out


_FUNC_RE = re.compile(r"Compiling entry function '([^']+)'")
_STACK_RE = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED_RE = re.compile(r"Used (\d+) registers")
_USED_PARTS = {"barriers": re.compile(r"used (\d+) barriers"), "smem": re.compile(r"(\d+) bytes smem"),
               "cmem": re.compile(r"(\d+) bytes cmem\[0\]")}  # each where it stands: a kernel that calls also
# reports "N bytes cumulative stack size" among them


def parse_ptxas_log(log: str) -> dict[str, Resources]:
    """Resources per entry from `ptxas -v` output (the format NVRTC and nvcc both print)."""
    out: dict[str, Resources] = {}
    current = None
    stack = (0, 0, 0)
    for line in log.splitlines():
        if m := _FUNC_RE.search(line):
            current, stack = m.group(1), (0, 0, 0)
        elif (m := _STACK_RE.search(line)) and current:
            stack = tuple(int(g) for g in m.groups())
        elif (m := _USED_RE.search(line)) and current:
            bars, smem, cmem = (int(p.group(1)) if (p := r.search(line)) else 0 for r in _USED_PARTS.values())
            out[current] = Resources(int(m.group(1)), smem, stack[0], stack[1], stack[2], bars, cmem)
            current = None
    return out


def cache_dir() -> Path:
    """Where compiles and results are cached: $CUDASIM_CACHE, else ~/.cache/cudasim (XDG_CACHE_HOME's)."""
    base = os.environ.get("CUDASIM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "cudasim")
    return Path(base)


def cache_problem() -> str | None:
    """Why the cache folder cannot be used, as one line naming the fix; None where it can (or will be made)."""
    p = cache_dir()
    where = f"CUDASIM_CACHE={os.environ['CUDASIM_CACHE']}" if os.environ.get("CUDASIM_CACHE") else str(p)
    if p.exists() and not p.is_dir():
        return f"{where}: a file, not a folder: point CUDASIM_CACHE at a folder (or unset it for ~/.cache/cudasim)"
    try:
        p.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        return f"{where}: cannot make the cache folder ({e.strerror or e}): point CUDASIM_CACHE at a writable folder"
    if not os.access(p, os.W_OK | os.X_OK):
        return f"{where}: the cache folder is not writable: point CUDASIM_CACHE at a writable folder"
    return None


def nvrtc_version() -> str:
    from cuda.bindings import nvrtc

    _, major, minor = nvrtc.nvrtcVersion()
    return f"nvrtc {major}.{minor}"


def compile_cuda(source: str, name_expressions: list[str] | tuple[str, ...] = (),
                 options: list[str] | tuple[str, ...] = (), arch: str = DEFAULT_ARCH,
                 filename: str = "kernel.cu", cache: bool = True) -> CompileResult:
    """Compile CUDA C++ to PTX for `arch` with line info, the cubin, and ptxas's resource report.

    `name_expressions` instantiate templates ("sgemm<128,128,8>"); `options` are extra compiler
    flags such as "-DTILE=32", "-I include", "-use_fast_math", "-std=c++20"; quoted includes are
    also looked for beside `filename`. Raises CompileError, its first line naming the problem.
    """
    try:
        version = nvrtc_version()
    except ImportError as e:  # pragma: no cover - the dependency is declared
        raise CompileError("NVRTC is not importable: pip install cuda-bindings nvidia-cuda-nvrtc") from e
    opts = compiler_options(arch, options, filename)
    exprs = list(name_expressions)
    key = hashlib.sha256(json.dumps([source, sorted(exprs), opts, filename,
                                     identity(source, filename, opts)]).encode()).hexdigest()
    path = cache_dir() / f"{key[:32]}.json"
    if cache and path.exists():
        try:
            d = json.loads(path.read_text())
            d["resources"] = {k: Resources(**v) for k, v in d["resources"].items()}
            d["cubin"] = base64.b64decode(d["cubin"])
            return CompileResult(**d)
        except (ValueError, TypeError, KeyError):
            pass  # a stale or torn cache file: compile again
    result = _compile(source, exprs, opts, filename, version)
    result.arch = arch
    if cache and reports_every_entry(result):  # a log without ptxas's report is never kept (see the function)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            d = asdict(result)
            d["cubin"] = base64.b64encode(result.cubin).decode()
            tmp.write_text(json.dumps(d))
            tmp.replace(path)
        except OSError:  # a read-only or full cache still compiles, just without keeping it
            tmp.unlink(missing_ok=True)
    return result


def identity(source: str, filename: str, options: list[str] | tuple[str, ...]) -> str:
    """What else decides a compile's output besides the source and options: the headers it includes
    (their contents), the compilers here (NVRTC's version, nvcc's or its absence, which decides who
    takes host code) and COMPILE_VERSION. Part of every cache key over compiled code."""
    deps = includes.digest(source, filename, includes.include_dirs_of(options))
    return f"{COMPILE_VERSION}|{nvrtc_version()}|{nvcc.identity()}|{deps}"


def compile_cubin(source: str, name_expressions: list[str] | tuple[str, ...] = (),
                  options: list[str] | tuple[str, ...] = (), arch: str = DEFAULT_ARCH,
                  filename: str = "kernel.cu") -> tuple[bytes, dict[str, str]]:
    """The cubin of `compile_cuda`'s compile of the same source and flags: the machine code of the
    very PTX cudasim runs and the models read. Returns (cubin, lowered names)."""
    res = compile_cuda(source, name_expressions, options, arch, filename)
    return res.cubin, res.lowered


def compiler_options(arch: str, options: list[str] | tuple[str, ...], filename: str) -> list[str]:
    """The flags of a compile: architecture, line info, ptxas's report, C++17 unless the options name
    a standard, the folder of `filename` (its quoted includes, first), then the options, every -I folder
    made absolute (the compiler runs in a process of its own, in another folder)."""
    opts = [f"-arch={arch}", "-lineinfo", "-Xptxas=-v"]
    if not any(re.match(r"-?-std[= ]", o) or o in ("-std", "--std") for o in options):
        opts.append("-std=c++17")
    folder = os.path.dirname(filename)
    if folder and os.path.isdir(folder):
        opts.append(f"-I{os.path.abspath(folder)}")
    dirs, rest = includes.split_options(options)
    return opts + [f"-I{os.path.abspath(d)}" for d in dirs] + rest


_ERROR_RE = re.compile(r"^(?P<file>.+?)\((?P<line>\d+)\): (?:catastrophic )?error: (?P<msg>.*)$", re.M)
_IMPLICIT_RE = re.compile(r'identifier "\w+" is undefined|namespace "std" has no member "\w+"')


def _compile(source: str, exprs: list[str], opts: list[str], filename: str, version: str) -> CompileResult:
    """NVRTC; again with nvcc's implicit math headers where it stopped at one of their names; nvcc
    where the file holds host code (or CompileError naming it and the fix where nvcc is not here)."""
    out = _nvrtc(source, exprs, opts, filename)
    compiler = version
    if not out["ok"] and _IMPLICIT_RE.search(out["log"]):
        retry = _nvrtc(source, exprs, opts + [f"--pre-include={IMPLICIT}"], filename)
        if retry["ok"]:
            out, compiler = retry, f"{version} (with <math.h> and <limits.h> included first, as nvcc includes them)"
    if not out["ok"] and (host := _host_code(out["log"], source, filename)):
        where, what, alternative = host
        why = nvcc.unavailable()
        if why is not None:
            raise CompileError(f"{where}: {what}, which NVRTC cannot compile, and {why}: {nvcc.INSTALL_HINT}; "
                               f"or {alternative}\n{out['log']}")
        try:
            out = nvcc.compile_nvcc(source, exprs, opts, _line_info_name(filename))
            out["log"] = out["log"].replace(_line_info_name(filename), filename)
        except LookupError as e:  # a name expression that names no instantiation in nvcc's PTX
            raise CompileError(str(e)) from None
        compiler = f"{nvcc.identity()} (NVRTC cannot compile the {what} at {where})"
        if not out["ok"]:
            raise CompileError(f"{_nvcc_error(out['log'], filename)} (nvcc)\n{out['log']}")
    if not out["ok"]:
        raise CompileError(f"{_first_error(out['log'], filename)}\n{out['log']}")
    result = CompileResult(ptx=out["ptx"], arch="", lowered=out["lowered"], resources=parse_ptxas_log(out["log"]),
                           log=out["log"], compiler=compiler, options=list(opts),
                           cubin=base64.b64decode(out["cubin"]), layout_fixed=out["layout_fixed"])
    if not result.layout_fixed:
        result.compiler += " (address-space randomization could not be turned off: the code may vary between runs)"
    return result


def _host_code(log: str, source: str, filename: str) -> tuple[str, str, str] | None:
    """Where NVRTC stopped at host code, what it is and the fix other than nvcc: ('file.cu:3',
    'host-only header <vector>', ...) or ('file.cu:9', 'host code main()', ...); else None. A quoted
    header found nowhere is the user's to point -I at (CompileError, where nvcc cannot look either)."""
    move = "move the kernel into a file without host code"
    for m in _ERROR_RE.finditer(log):
        where, msg = f"{m.group('file')}:{m.group('line')}", m.group("msg")
        text = _line(m.group("file"), int(m.group("line")), source, filename)
        if h := re.match(r'cannot open source file "([^"]+)"', msg):
            name = h.group(1)
            if not re.search(rf'#\s*include\s*"{re.escape(name)}"', text) and not name.endswith(".cuh"):
                return where, f"host-only header <{name}>", f"{move} (or, if <{name}> is yours, add -I DIR)"
            if nvcc.unavailable() is not None:
                raise CompileError(f'{where}: cannot find "{name}": add -I DIR naming the folder that holds it\n{log}')
            return where, f'header "{name}" (not beside the file or on the -I path)', move
        if "host functions are not allowed" in msg:
            fn = re.findall(r"([A-Za-z_]\w*)\s*\(", text)
            return where, f"host code {fn[0] + '()' if fn else '(a function without __device__ or __global__)'}", move
    return None


def _line(file: str, line: int, source: str, filename: str) -> str:
    """Line `line` of `file` (the source being compiled, or a header on disk), '' if unreadable."""
    try:
        text = source if file == filename else Path(file).read_text(errors="replace")
    except OSError:
        return ""
    lines = text.splitlines()
    return lines[line - 1] if 0 < line <= len(lines) else ""


def _first_error(log: str, filename: str) -> str:
    m = re.search(r"Entry function '([^']+)' uses too much shared data \((0x[0-9a-f]+) bytes, (0x[0-9a-f]+) max\)", log)
    if m:
        need, limit = int(m.group(2), 16), int(m.group(3), 16)
        return (f"{filename}: {m.group(1)} declares {need:,} bytes of static shared memory a block, past the "
                f"{limit:,} a block may declare statically (ptxas): smaller __shared__ arrays (a smaller tile), or "
                f"dynamic shared memory (extern __shared__) with the opt-in for more")
    errors = [line for line in log.splitlines() if "error" in line]
    if errors:
        return f"{filename}: {errors[0].strip()}"
    said = next((line.strip() for line in log.splitlines() if line.strip()), "")
    return (f"{filename}: compilation failed with no error line" + (f" (the compiler said: {said[:120]})" if said else
            " and no output") + "; see that the compiler runs (nvcc --version, $CUDASIM_NVCC), or compile the "
            "kernels alone with NVRTC (a file of __global__ functions and their includes, no host code)")


def _nvcc_error(log: str, filename: str) -> str:
    """nvcc's first error, with the fix where it is a header not found."""
    m = re.search(r"^(.+?:\d+):\d+: fatal error: (.+?): No such file or directory", log, re.M)
    if m:
        return f'{m.group(1)}: cannot find "{m.group(2)}": add -I DIR naming the folder that holds it'
    return _first_error(log, filename)


@lru_cache(maxsize=1)
def _nvrtc_library() -> tuple[str, list[str]]:
    """libnvrtc's path (as cuda-bindings finds it) and the builtins library beside it."""
    from cuda.pathfinder import load_nvidia_dynamic_lib

    lib = load_nvidia_dynamic_lib("nvrtc").abs_path
    folder = Path(lib).parent
    builtins = sorted(str(p) for p in folder.glob("*nvrtc-builtins*") if ".alt." not in p.name)
    return lib, builtins[-1:]


def _nvrtc(source: str, exprs: list[str], opts: list[str], filename: str) -> dict:
    """One NVRTC compile in a child process laid out the same way every time (cudasim.noaslr)."""
    lib, preload = _nvrtc_library()
    request = {"lib": lib, "preload": preload, "source": source, "filename": _line_info_name(filename),
               "exprs": exprs, "options": opts + [f"-I{d}" for d in include_dirs()] + [f"-I{SHIMS}"]}
    env = {"PYTHONHASHSEED": "0", **{k: os.environ[k] for k in ("LD_LIBRARY_PATH",) if k in os.environ}}
    worker = str(Path(__file__).with_name("nvrtc_worker.py"))
    from . import noaslr  # here, not at the top: `python -m cudasim.noaslr` must find it not yet imported
    p, fixed = noaslr.run([sys.executable, "-S", "-s", worker], env, json.dumps(request).encode())
    if p.returncode != 0:
        err = p.stderr.decode(errors="replace").strip().splitlines()
        raise CompileError(f"{filename}: NVRTC's process failed: {err[-1] if err else f'exit status {p.returncode}'}")
    out = json.loads(p.stdout)
    out["layout_fixed"] = fixed
    out["log"] = out["log"].replace(f"{_line_info_name(filename)}(", f"{filename}(")  # errors as the user named it
    return out


def _line_info_name(filename: str) -> str:
    """The name line info gives the source: a file on disk by its absolute path, so that a report reads
    its lines from any folder (NVRTC would resolve a relative name against its child's folder, /)."""
    return os.path.abspath(filename) if os.path.isfile(filename) else filename
