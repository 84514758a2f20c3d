"""CUDA C++ -> PTX (with line info) and ptxas resource usage, on a machine with no GPU.

NVRTC from pip does the work, so no CUDA toolkit is needed; the same call also runs ptxas
(`-Xptxas=-v`) to learn registers, shared memory, stack and spills per kernel. Results are
cached on disk by a hash of the source, the options, the name expressions and the compiler
version, since NVRTC takes 0.1-2 s per file and analysis commands should answer at once.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import sysconfig
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path

from .gpus import get_gpu

DEFAULT_ARCH = get_gpu().arch  # the default GPU row's compute capability ("sm_90" for the H100)


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


@dataclass
class CompileResult:
    ptx: str
    arch: str
    lowered: dict[str, str]  # name expression -> mangled entry name
    resources: dict[str, Resources]  # mangled entry name -> ptxas report
    log: str = ""
    compiler: str = ""
    options: list[str] = field(default_factory=list)

    def entry(self, name: str) -> str:
        """Mangled entry for a name expression, a plain extern "C" name, or a mangled name."""
        if name in self.lowered:
            return self.lowered[name]
        if name in self.resources or f".entry {name}(" in self.ptx:
            return name
        prefix = f"_Z{len(name)}{name}"  # a C++ kernel reached by its plain name
        matches = sorted(set(m for m in self.resources if m.startswith(prefix)) |
                         set(re.findall(rf"\.entry ({re.escape(prefix)}\w*)\(", self.ptx)))
        if len(matches) == 1:
            return matches[0]
        raise KeyError(name)


def include_dirs() -> list[str]:
    """CUDA headers for NVRTC (mma.h, cuda_fp16.h): the pip wheels first, then a toolkit."""
    dirs = []
    purelib = Path(sysconfig.get_paths()["purelib"])
    for base in [purelib, *map(Path, _site_dirs())]:
        for sub in ("nvidia/cu13/include", "nvidia/cuda_runtime/include"):
            if (base / sub / "mma.h").exists() and str(base / sub) not in dirs:
                dirs.append(str(base / sub))
                if (base / sub / "cccl").is_dir():  # nvidia-cuda-cccl: cuda/std/..., which cooperative groups include
                    dirs.append(str(base / sub / "cccl"))
    for env in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(env):
            dirs.append(os.path.join(os.environ[env], "include"))
    dirs.append("/usr/local/cuda/include")
    return [d for d in dirs if os.path.isdir(d)]


def _site_dirs() -> list[str]:
    import site
    import sys

    out = list(getattr(site, "getsitepackages", lambda: [])())
    out += [p for p in sys.path if p.endswith(("site-packages", "dist-packages", ".gpu-site"))]
    return out


_FUNC_RE = re.compile(r"Compiling entry function '([^']+)'")
_STACK_RE = re.compile(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads")
_USED_RE = re.compile(r"Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?(?:, (\d+) bytes cmem\[0\])?")


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
            regs, bars, smem, cmem = (int(g) if g else 0 for g in m.groups())
            out[current] = Resources(regs, smem, stack[0], stack[1], stack[2], bars, cmem)
            current = None
    return out


def _cache_dir() -> Path:
    base = os.environ.get("CUDASIM_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "cudasim")
    return Path(base)


def nvrtc_version() -> str:
    from cuda.bindings import nvrtc

    _, major, minor = nvrtc.nvrtcVersion()
    return f"nvrtc {major}.{minor}"


def compile_cuda(source: str, name_expressions: list[str] | tuple[str, ...] = (),
                 options: list[str] | tuple[str, ...] = (), arch: str = DEFAULT_ARCH,
                 filename: str = "kernel.cu", cache: bool = True) -> CompileResult:
    """Compile CUDA C++ to PTX for `arch` with line info, and get ptxas's resource report.

    `name_expressions` instantiate templates ("sgemm<128,128,8>"); `options` are extra
    NVRTC flags such as "-DTILE=32". Raises CompileError with the compiler's log.
    """
    try:
        version = nvrtc_version()
    except ImportError as e:  # pragma: no cover - the dependency is declared
        raise CompileError("NVRTC is not importable: pip install cuda-bindings nvidia-cuda-nvrtc") from e
    opts = [f"-arch={arch}", "-lineinfo", "-Xptxas=-v", "-std=c++17", *options]
    key = hashlib.sha256(json.dumps([source, sorted(name_expressions), opts, filename, version]).encode()).hexdigest()
    path = _cache_dir() / f"{key[:32]}.json"
    if cache and path.exists():
        try:
            d = json.loads(path.read_text())
            d["resources"] = {k: Resources(**v) for k, v in d["resources"].items()}
            return CompileResult(**d)
        except (ValueError, TypeError, KeyError):
            pass  # a stale or torn cache file: compile again
    result = _nvrtc(source, list(name_expressions), opts, filename)
    result.compiler, result.arch = version, arch
    if cache:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            d = asdict(result)
            tmp.write_text(json.dumps(d))
            tmp.replace(path)
        except OSError:
            pass  # a read-only home still compiles, just without the cache
    return result


def compile_cubin(source: str, name_expressions: list[str] | tuple[str, ...] = (),
                  options: list[str] | tuple[str, ...] = (), arch: str = DEFAULT_ARCH,
                  filename: str = "kernel.cu") -> tuple[bytes, dict[str, str]]:
    """The cubin NVRTC makes from the same source and flags as `compile_cuda`: the machine code
    of the very PTX cudasim runs and the models read. Returns (cubin, lowered names)."""
    from cuda.bindings import nvrtc

    opts = [f"-arch={arch}", "-lineinfo", "-std=c++17", *options]
    with _program(source, list(name_expressions), opts, filename) as (prog, _, lowered):
        (size,) = _check(nvrtc.nvrtcGetCUBINSize(prog))
        buf = b" " * size
        _check(nvrtc.nvrtcGetCUBIN(prog, buf))
    return buf, lowered


def _check(ret):
    """The values an NVRTC call returns after its status; CompileError where the status is an error."""
    from cuda.bindings import nvrtc

    err = ret[0] if isinstance(ret, tuple) else ret
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        raise CompileError(f"NVRTC call failed: {err}")
    return ret[1:] if isinstance(ret, tuple) and len(ret) > 1 else None


@contextmanager
def _program(source: str, exprs: list[str], opts: list[str], filename: str):
    """An NVRTC program compiled with `opts` and the include directories: (program, log, lowered
    names), destroyed on exit; CompileError naming the first error where it does not compile."""
    from cuda.bindings import nvrtc

    (prog,) = _check(nvrtc.nvrtcCreateProgram(source.encode(), filename.encode(), 0, [], []))
    try:
        for e in exprs:
            _check(nvrtc.nvrtcAddNameExpression(prog, e.encode()))
        all_opts = opts + [f"-I{d}" for d in include_dirs()]
        ret = nvrtc.nvrtcCompileProgram(prog, len(all_opts), [o.encode() for o in all_opts])
        (size,) = _check(nvrtc.nvrtcGetProgramLogSize(prog))
        buf = b" " * size
        _check(nvrtc.nvrtcGetProgramLog(prog, buf))
        log = buf.decode(errors="replace").rstrip("\x00 \n")
        if ret[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            errors = [l for l in log.splitlines() if "error" in l]
            raise CompileError(f"{filename}: {errors[0].strip() if errors else 'compilation failed'}\n{log}")
        lowered = {}
        for e in exprs:
            (name,) = _check(nvrtc.nvrtcGetLoweredName(prog, e.encode()))
            lowered[e] = name.decode()
        yield prog, log, lowered
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def _nvrtc(source: str, exprs: list[str], opts: list[str], filename: str) -> CompileResult:
    from cuda.bindings import nvrtc

    with _program(source, exprs, opts, filename) as (prog, log, lowered):
        (size,) = _check(nvrtc.nvrtcGetPTXSize(prog))
        buf = b" " * size
        _check(nvrtc.nvrtcGetPTX(prog, buf))
        ptx = buf.decode().rstrip("\x00")
    return CompileResult(ptx=ptx, arch="", lowered=lowered, resources=parse_ptxas_log(log), log=log,
                         options=[o for o in opts])
