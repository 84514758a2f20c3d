"""Whole `.cu` files with host code, compiled by nvcc where it is installed.

Why: NVRTC compiles device code only, so a file as users keep it (a `main()`, `<vector>`,
`<cuda_runtime.h>`, error-checking macros around host calls) needs the toolkit's compiler.
nvcc compiles only the device side here (`-cubin --keep`): the PTX it keeps has line info,
ptxas's `-v` report gives the resources, and the cubin is what nvdisasm lists; no host object
is built and no GPU is needed. nvcc needs a host compiler (gcc) even so, to preprocess.

Where nvcc comes from: `CUDASIM_NVCC` (a path, or `none` to never use it), then the PATH,
then a CUDA toolkit (`CUDA_HOME`, /usr/local/cuda) or the pip wheels (`nvidia-cuda-nvcc` with
`nvidia-nvvm` for cicc and `nvidia-cuda-crt` for its headers), as cuda.pathfinder finds them.
"""
from __future__ import annotations

import base64
import ctypes
import ctypes.util
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
import zlib
from functools import lru_cache
from pathlib import Path


INSTALL_HINT = ("put nvcc on the PATH (install the CUDA toolkit, or pip install nvidia-cuda-nvcc nvidia-nvvm "
                "nvidia-cuda-crt, with gcc/g++ installed) or set CUDASIM_NVCC=/path/to/nvcc")


def find_nvcc() -> str | None:
    """The nvcc to use, or None where there is none or CUDASIM_NVCC=none."""
    env = os.environ.get("CUDASIM_NVCC")
    if env:
        return None if env.lower() in ("none", "off", "0") else env
    exe = shutil.which("nvcc")
    if exe:
        return exe
    try:
        from cuda.pathfinder import find_nvidia_binary_utility

        return find_nvidia_binary_utility("nvcc")
    except Exception:  # noqa: BLE001 - no pathfinder or nothing found: no nvcc
        return None


def host_compiler() -> str | None:
    """The gcc nvcc preprocesses with (its default host compiler), or None."""
    return shutil.which("gcc")


@lru_cache(maxsize=8)
def _identity(exe: str, mtime: float) -> str:
    try:
        out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=60).stdout
    except OSError as e:
        return f"nvcc at {exe} unusable ({e.strerror})"
    m = re.search(r"release ([\d.]+), V([\d.]+)", out)
    return f"nvcc {m.group(2) if m else '?'}"


def identity(exe: str | None = None) -> str:
    """'nvcc 13.0.88' for the nvcc in use ('none' without one): part of every compile's cache key,
    since whether nvcc is there decides which compiler takes a file with host code."""
    exe = exe if exe is not None else find_nvcc()
    if not exe or not host_compiler():
        return "none"
    try:
        return _identity(exe, os.stat(exe).st_mtime)
    except OSError:
        return "none"


def unavailable() -> str | None:
    """Why nvcc cannot be used here (one phrase), or None where it can."""
    exe = find_nvcc()
    if exe is None:
        return "nvcc is turned off (CUDASIM_NVCC=none)" if os.environ.get("CUDASIM_NVCC") else "nvcc is not installed"
    if not os.path.isfile(exe):
        return f"CUDASIM_NVCC={exe}: no such file"
    if not host_compiler():
        return "nvcc is installed but needs a host compiler (gcc), which is not on the PATH"
    return None


def compile_nvcc(source: str, exprs: list[str], options: list[str], filename: str,
                 timeout: float = 600) -> dict:
    """nvcc's device compile of `source` (named `filename` in line info): {"ok", "log", "ptx", "cubin"
    (base64), "lowered", "layout_fixed"}; {"ok": False, "log"} where it does not compile.

    nvcc names internal-linkage functions after the path it compiles and a random number, so the copy it
    compiles lives at a path made from the inputs, under a lock, and the random number is seeded."""
    import fcntl  # POSIX, as nvcc's host compilers here are

    exe = find_nvcc()
    assert exe and host_compiler(), "callers check unavailable() first"
    stem = Path(filename).stem or "kernel"
    uses = "".join(f"[[maybe_unused]] static auto const __cudasim_name_expr_{i} = &{e};\n"
                   for i, e in enumerate(exprs))  # instantiates each template the name expressions ask for
    text = f'#line 1 "{filename}"\n{source}\n{uses}'
    seed = [] if any("random-seed" in o for o in options) else [f"-frandom-seed={zlib.crc32(filename.encode())}"]
    work = _workdir([text, options, filename])
    with open(work / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process compiling the same inputs waits
        keep = work / "keep"
        shutil.rmtree(keep, ignore_errors=True)
        keep.mkdir()
        cu = work / f"{stem}.cu"
        cu.write_text(text)
        argv = [exe, "-cubin", *options, *seed, "--keep", "--keep-dir", str(keep), "-o", str(keep / "out.cubin"),
                str(cu)]
        path = os.pathsep.join(dict.fromkeys([os.path.dirname(exe), os.path.dirname(host_compiler() or ""),
                                              "/usr/bin", "/bin"]))
        try:
            from . import noaslr  # here: `python -m cudasim.noaslr` must find it not yet imported
            p, fixed = noaslr.run(argv, env={"PATH": path, "TMPDIR": str(keep)}, timeout=timeout, cwd=str(work))
            log = (p.stdout + p.stderr).decode(errors="replace").strip()
            ptx_file = keep / f"{stem}.ptx"
            if p.returncode != 0 or not ptx_file.exists():
                return {"ok": False, "log": log}
            ptx = ptx_file.read_text()
            cubin = (keep / "out.cubin").read_bytes()
        finally:
            shutil.rmtree(keep, ignore_errors=True)
            cu.unlink(missing_ok=True)
    entries = re.findall(r"^\.(?:visible |weak )?\.entry\s+([\w$]+)\s*\(", ptx, re.M)
    return {"ok": True, "log": log, "ptx": ptx, "cubin": base64.b64encode(cubin).decode(),
            "lowered": {e: lower(e, entries) for e in exprs}, "layout_fixed": fixed}


def _workdir(inputs: list) -> Path:
    """A folder named by a hash of the inputs, in /tmp (not $TMPDIR, which differs from shell to shell)."""
    base = Path("/tmp") if os.path.isdir("/tmp") else Path(tempfile.gettempdir())
    key = hashlib.sha256(json.dumps(inputs).encode()).hexdigest()[:20]
    work = base / f"cudasim-nvcc-{os.getuid() if hasattr(os, 'getuid') else 0}" / key
    work.mkdir(parents=True, exist_ok=True)
    return work


def lower(expr: str, entries: list[str]) -> str:
    """The mangled entry a name expression (`scale<128, 8>`) names among `entries`: the one whose
    demangled name reads the same, spaces aside, else the only instantiation of that template."""
    base = expr.split("<")[0].strip().split("::")[-1]
    want = re.sub(r"\s+", "", expr)
    candidates = [e for e in entries if re.match(rf"_Z(?:N.*?)?{len(base)}{re.escape(base)}I", e)]
    for e in candidates:
        d = demangle(e)  # 'void ns::scale<128, 8>(float*, int)'
        name = re.sub(r"\s+", "", re.sub(r"^\S+\s+", "", d.split("(")[0])) if d else ""
        if name == want or name.endswith("::" + want):
            return e
    if len(candidates) == 1:
        return candidates[0]
    raise LookupError(f"{expr}: no kernel instantiation of that name in nvcc's PTX; it has "
                      + ", ".join(filter(None, (demangle(e) or e for e in entries))))


def demangle(name: str) -> str | None:
    """`void scale<128>(float*, int)` for `_Z5scaleILi128EEvPfi` (libstdc++'s demangler), or None."""
    lib = _libstdcxx()
    if lib is None:
        return None
    status = ctypes.c_int()
    p = lib.__cxa_demangle(name.encode(), None, None, ctypes.byref(status))
    if status.value != 0 or not p:
        return None
    try:
        return ctypes.string_at(p).decode()
    finally:
        ctypes.CDLL(None).free(ctypes.c_void_p(p))


@lru_cache(maxsize=1)
def _libstdcxx():
    path = ctypes.util.find_library("stdc++")
    if not path:
        return None
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    lib.__cxa_demangle.restype = ctypes.c_void_p
    lib.__cxa_demangle.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.POINTER(ctypes.c_int)]
    return lib
