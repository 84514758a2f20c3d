"""What a user types, as values: dimensions, NAME=VALUE lists, and the arguments of a file target built
from `--arg` and `--data` specs over its signature (analysis.signature).

Scalars are named as in the kernel's C signature; buffers are `NAME=float32[COUNT]`, or
left out for an unsized buffer. Anything unusable is a TargetError: one line, exit status 2.
"""
from __future__ import annotations

import hashlib
import math
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cudasim.includes import included_files
from cudasim.memory import reserve

from .signature import _CTYPES, Param, TargetError  # noqa: F401 - TargetError: every command's, raised here too


def parse_dims(text: str | None, default: tuple[int, int, int] | None = None) -> tuple[int, int, int] | None:
    """'32,8' -> (32, 8, 1)."""
    if text is None:
        return default
    fields = re.split(r"\s*[,x]\s*|\s+", text.strip())
    if len(fields) > 1 and "" in fields:  # '1,,2' is not 1x2
        raise TargetError(f"bad dimensions {text!r}: an empty field; expected X[,Y[,Z]], e.g. 32,8")
    try:
        parts = [int(p) for p in fields if p]
    except ValueError:
        raise TargetError(f"bad dimensions {text!r}: expected X[,Y[,Z]]") from None
    if not 1 <= len(parts) <= 3 or any(p <= 0 for p in parts):
        raise TargetError(f"bad dimensions {text!r}: expected 1 to 3 positive integers")
    return tuple(parts + [1] * (3 - len(parts)))  # type: ignore[return-value]

_BF16 = {"__nv_bfloat16", "nv_bfloat16"}


def _float(text: str) -> float:
    """A float written as C writes one: decimal, hex (0x1p-3), inf or nan."""
    t = text.strip()
    return float.fromhex(t) if re.match(r"[-+]?0[xX]", t) else float(t)


_LITERAL = re.compile(r"([-+]?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?))[fFuUlL]*")
_VECTORS = {"float4", "float2", "int4", "int2", "double2", "half2", "__half2", "__nv_bfloat162"}


_DTYPE_ALIASES = {"bfloat16": "uint16"}  # numpy has no bfloat16: its 16 bits are what the buffer holds
_BUF_RE = re.compile(r"^([a-z]+\d*)\[(\d+)\]$")
_DATA = "npy:"  # an --arg spec that --data made: npy:<digest>:<path> (the digest keys cached results)


def data_spec(name: str, path: str) -> str:
    """The `--arg` spec for `--data NAME=PATH`: the file checked readable now, its digest in the spec."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise TargetError(f"--data {name}={path}: {e.strerror or e}; give the path of a numpy .npy file "
                          f"(np.save(FILE.npy, array))") from None
    if not stat.S_ISREG(st.st_mode):  # a pipe or a device would be read until it ended: perhaps never
        raise TargetError(f"--data {name}={path}: not a regular file (a folder, pipe or device); give a .npy file "
                          f"saved by np.save")
    reserve(2 * st.st_size, f"--data {name}={path} ({st.st_size / 2**30:,.1f} GiB)")  # read, then loaded
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise TargetError(f"--data {name}={path}: {e.strerror or e}; give the path of a numpy .npy file "
                          f"(np.save(FILE.npy, array))") from None
    return f"{_DATA}{hashlib.sha256(raw).hexdigest()[:16]}:{Path(path).resolve()}"


def _load(p: Param, spec: str, variable: bool = False) -> np.ndarray:
    """The array of a --data file, as the parameter's (or module `variable`'s) element type (a different type is
    refused: the bytes would be read as something else)."""
    what, star = ("variable", "") if variable else ("parameter", "*")
    path = spec[len(_DATA):].split(":", 1)[1]
    try:
        arr = np.load(path, allow_pickle=False)
    except (OSError, ValueError, EOFError) as e:  # EOFError: an empty file
        why = (str(e).splitlines() or ["empty"])[0] if not isinstance(e, EOFError) else "an empty file"
        if "pickled" in why:  # numpy's guess for any file without the .npy magic; its advice (load unsafely) is not ours
            why = "no .npy header"
        raise TargetError(f"--data {p.name}={path}: not a numpy .npy array ({why}); save one with np.save(FILE.npy, "
                          f"array)") from None
    if not isinstance(arr, np.ndarray):  # np.load opens an .npz archive as a mapping of arrays
        arr.close()
        raise TargetError(f"--data {p.name}={path}: an .npz archive of arrays, not one array: save the one array "
                          f"with np.save(FILE.npy, array)")
    want = _CTYPES.get(p.ctype)
    if want is not None and arr.dtype != np.dtype(want):
        raise TargetError(f"--data {p.name}={path}: the file holds {arr.dtype}, the {what} is {p.ctype}{star} "
                          f"({np.dtype(want)}): save it with .astype(np.{np.dtype(want)})")
    if arr.size == 0:
        raise TargetError(f"--data {p.name}={path}: the array is empty; save one with the buffer's elements, "
                          f"np.save(FILE.npy, array)")
    return np.ascontiguousarray(arr.reshape(-1))


_VAR_RE = re.compile(r"\b(__constant__|__device__)\b([^;{}()=]*?)\b([A-Za-z_]\w*)\s*((?:\[[^\]]*\]\s*)*)(=|;)")


@dataclass(frozen=True)
class Variable:
    """A `__constant__` or `__device__` variable the source declares."""

    space: str  # "__constant__" or "__device__"
    ctype: str
    name: str
    initialized: bool


def module_variables(source: str, filename: str | None = None,
                     include_dirs: list[str] | tuple[str, ...] = ()) -> dict[str, Variable]:
    """The module variables a source and the headers it includes declare, by name (functions, which
    `__device__` also marks, are not)."""
    out = {}
    texts = [source] + [text for _, text in included_files(source, filename, list(include_dirs))]
    for m in _VAR_RE.finditer(re.sub(r"//[^\n]*|/\*.*?\*/", " ", "\n".join(texts), flags=re.S)):
        ctype = " ".join(w for w in m.group(2).split() if w not in ("const", "static", "volatile", "__restrict__"))
        out[m.group(3)] = Variable(m.group(1), ctype, m.group(3), m.group(5) == "=")
    return out


UNSIZED_START = 4096  # elements an unsized buffer starts with; it grows to what the kernel touches
UNSIZED_LIMIT = 1 << 30  # bytes an unsized buffer may grow to; past it the user is asked for its size


def make_args(params: list[Param], specs: dict[str, str], variables: dict[str, Variable] | None = None,
              unsized: dict[str, int] | None = None) -> tuple[list[Any], list[str], dict[str, np.ndarray]]:
    """Kernel arguments from `--arg` specs, and the contents `--data` gives the source's module variables;
    returns (args, notes about defaults, variables' contents). A buffer given neither size nor data is
    zeros of `unsized[name]` elements (UNSIZED_START where not given): analysis.pipeline grows it to what
    the kernel touches."""
    variables = variables or {}
    unsized = unsized or {}
    names = {p.name for p in params}
    unknown = set(specs) - names - set(variables)
    if unknown:
        name = sorted(unknown)[0]
        option = "--data" if specs[name].startswith(_DATA) else "--arg"
        raise TargetError(f"{option} {name}: no such parameter; the kernel takes " + ", ".join(p.name for p in params))
    contents: dict[str, np.ndarray] = {}
    notes: list[str] = []
    for v in variables.values():
        spec = specs.get(v.name)
        if v.name in names:
            continue
        if spec is not None and not spec.startswith(_DATA):
            raise TargetError(f"--arg {v.name}: {v.name} is a {v.space} variable, not a parameter; give its "
                              f"contents with --data {v.name}=FILE.npy")
        if spec is not None:
            contents[v.name] = _load(Param(v.ctype, v.name, True), spec, variable=True)
        elif v.space == "__constant__" and not v.initialized:
            notes.append(f"{v.name}: a __constant__ variable given no data: zeros, so addresses or branches that "
                         f"depend on it see zeros (--data {v.name}=FILE.npy fills it)")
    args: list[Any] = []
    for p in params:
        spec = specs.get(p.name)
        if spec is not None and spec.startswith(_DATA):
            if not p.pointer:
                raise TargetError(f"--data {p.name}: {p.name} is a scalar ({p.ctype}); give it with --arg")
            args.append(_load(p, spec))
            continue
        if p.pointer and p.ctype.endswith("*"):
            raise TargetError(f"parameter {p.name} has type {p.ctype}* (pointers to buffers): the command line cannot "
                              f"make the buffers it points to; run the kernel from Python (cudasim's API, as PyCUDA) "
                              f"with real arrays")
        if p.pointer:
            if spec is None:
                args.append(unsized_buffer(p, unsized.get(p.name, UNSIZED_START)))
                notes.append(unsized_note(p.name, args[-1], p.name in unsized))
                continue
            m = _BUF_RE.match(spec.replace(" ", ""))
            if not m:
                raise TargetError(f"--arg {p.name}={spec}: buffers are given as DTYPE[COUNT], e.g. float32[4096]")
            try:
                dt = np.dtype(_DTYPE_ALIASES.get(m.group(1), m.group(1)))
            except TypeError:
                dt = None
            if dt is None or dt.kind not in "biuf":
                raise TargetError(f"--arg {p.name}={spec}: {m.group(1)!r} is not a buffer's element type here; give "
                                  f"one of int8..int64, uint8..uint64, float16, bfloat16 (its bits, as uint16), "
                                  f"float32, float64, bool")
            want = _CTYPES.get(p.ctype)
            if want is not None and np.dtype(want) != dt:  # the kernel would read its bytes as another type
                raise TargetError(f"--arg {p.name}={spec}: the parameter is {p.ctype}* ({np.dtype(want)}); give "
                                  f"{np.dtype(want)}[{m.group(2)}]")
            count = int(m.group(2))
            if count < 1:
                raise TargetError(f"--arg {p.name}={spec}: a buffer needs at least one element")
            reserve(count * (dt.itemsize + 8 * (dt.kind == "f")),
                    f"--arg {p.name}={spec}" + (" (and the float64 values it is drawn from)" if dt.kind == "f" else ""))
            rng = np.random.default_rng(len(args))
            arr = (rng.standard_normal(count).astype(dt) if dt.kind == "f" else np.zeros(count, dt))
            args.append(arr)
        else:
            if p.empty:  # a functor: nothing to give, one byte to pass
                if spec is not None:
                    raise TargetError(f"--arg {p.name}={spec}: {p.name} is a {p.ctype}, a struct with no data: it "
                                      f"takes no value; leave out --arg {p.name}")
                args.append(np.zeros((), np.dtype([("_", "u1")]))[()])
                continue
            dt = _CTYPES.get(p.ctype)
            if dt is None or p.ctype in _VECTORS:  # a struct or vector by value: fields the command line cannot name
                raise TargetError(f"parameter {p.name} has type {p.ctype!r} (a struct or vector passed by value), which "
                                  f"the command line cannot build: run the kernel from Python (cudasim's API, as "
                                  f"PyCUDA: a numpy structured scalar), or pass its fields as scalars")
            if spec is None and p.default is not None and (lit := _LITERAL.fullmatch(p.default)):
                spec = lit.group(1)  # the default argument, a number literal's digits
            if spec is None:
                raise TargetError(f"missing --arg {p.name}=VALUE ({p.ctype})")
            bf16 = p.ctype in _BF16
            floating = np.dtype(dt).kind == "f" or bf16
            try:
                if "_" in spec:  # Python's digit separator is no C literal
                    raise ValueError(spec)
                val = _float(spec) if floating else int(spec, 0)
            except ValueError:
                form = "a decimal or hex float (1.5, 1e-3, 0x1p-3, inf, nan)" if floating else "an integer (32, 0x20)"
                raise TargetError(f"--arg {p.name}={spec}: expected a number of type {p.ctype}: {form}") from None
            if floating and val == 0 and re.search(r"[1-9]", re.split(r"[eEpP]", spec.lower().replace("0x", ""))[0]):
                raise TargetError(f"--arg {p.name}={spec}: too small for a number (it reads as 0); give 0 for zero")
            if bf16:  # bfloat16 is a float32's upper half, rounded to nearest even
                bits = int(np.float32(val).view(np.uint32))
                args.append(np.uint16((bits + 0x7FFF + (bits >> 16 & 1)) >> 16 if not math.isnan(val) else 0x7FC0))
                continue
            info = np.iinfo(dt) if np.dtype(dt).kind in "iu" else None
            if info is not None and not info.min <= val <= info.max:
                raise TargetError(f"--arg {p.name}={spec}: out of range for {p.ctype} ({info.min} to {info.max})")
            if info is None and np.dtype(dt).kind == "f" and "inf" not in spec.lower() and (
                    math.isinf(val) or abs(val) > float(np.finfo(dt).max)):  # it would become inf
                raise TargetError(f"--arg {p.name}={spec}: out of range for {p.ctype} (at most "
                                  f"{float(np.finfo(dt).max):.6g} either way); give inf for infinity")
            if floating and val != 0 and np.dtype(dt).type(val) == 0:
                raise TargetError(f"--arg {p.name}={spec}: too small for {p.ctype} (it would be 0; the least is "
                                  f"{float(np.finfo(dt).smallest_subnormal):.6g}); give 0 for zero")
            args.append(np.dtype(dt).type(val))
    return args, notes, contents


def made_up(params: list[Param], specs: dict[str, str], variables: dict[str, Variable]) -> dict[str, str]:
    """The pointer parameters and module variables whose contents the simulation makes up, as `make_args`
    makes them (no --data): name -> what they hold instead."""
    out = {}
    for p in params:
        spec = specs.get(p.name)
        if not p.pointer or (spec is not None and spec.startswith(_DATA)):
            continue
        m = _BUF_RE.match(spec.replace(" ", "")) if spec is not None else None
        out[p.name] = "random values" if m and np.dtype(m.group(1)).kind == "f" else "zeros"
    names = {p.name for p in params}
    out.update({v.name: "zeros" for v in variables.values()
                if v.name not in names and not v.initialized and v.name not in specs})
    return out


def unsized_buffer(p: Param, count: int = UNSIZED_START) -> np.ndarray:
    """A buffer whose size the user did not give: `count` zeros of the parameter's element type, bytes where
    that type has no numpy dtype here (a struct's) (cudasim allocates it at a fresh 256-byte aligned base)."""
    return np.zeros(max(int(count), 1), _CTYPES.get(p.ctype, np.uint8))


def unsized_note(name: str, arr: np.ndarray, grown: bool) -> str:
    """What the output says of a buffer the user gave neither size nor data: its size, and how to give both
    (which counts its zeros decide, analysis.dataflow says)."""
    size = f"{arr.size:,} {arr.dtype} ({byte_size(arr.nbytes)})"
    how = (f"grown to {size} to cover what the simulated blocks touched" if grown
           else f"{size}; the simulated blocks touched no further")
    return (f"{name}: no size or data given: zeros, {how} (--arg {name}={arr.dtype}[COUNT] sizes it, "
            f"--data {name}=FILE.npy fills it)")


def byte_size(n: float) -> str:
    """A byte count with its unit."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def parse_kv(items: list[str], what: str) -> dict[str, str]:
    """NAME=VALUE items into a dict; a --define may be a bare NAME (defined, empty)."""
    out = {}
    for it in items:
        if "=" not in it:
            if what == "--define":
                out[it] = ""
                continue
            raise TargetError(f"{what} {it!r}: expected NAME=VALUE")
        k, v = it.split("=", 1)
        if not k.strip():
            raise TargetError(f"{what} {it!r}: a NAME before '=' (NAME=VALUE)")
        if k.strip() in out and (what != "--define" or out[k.strip()] != v.strip()):  # the compiler would warn
            raise TargetError(f"{what} {k.strip()}: given twice ({k.strip()}={out[k.strip()]} and "
                              f"{k.strip()}={v.strip()}); give it once")
        out[k.strip()] = v.strip()
    return out
