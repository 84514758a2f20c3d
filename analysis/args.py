"""What a user types, as values: dimensions, NAME=VALUE lists, a kernel's C signature, and
the arguments of a file target built from `--arg` specs.

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


class TargetError(Exception):
    """A TARGET or option the CLI cannot use; printed as one line, exit status 2."""


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


@dataclass(frozen=True)
class Param:
    ctype: str
    name: str
    pointer: bool
    default: str | None = None  # a default argument's text (`int n = 32`): the value where --arg gives none
    empty: bool = False  # a struct with no data members, by value (a functor: CUB's Sum, a predicate)


_CTYPES = {
    "float": np.float32, "double": np.float64, "half": np.float16, "__half": np.float16,
    "int": np.int32, "signed": np.int32, "unsigned": np.uint32, "unsigned int": np.uint32, "uint": np.uint32,
    "int32_t": np.int32, "uint32_t": np.uint32, "long": np.int64, "long long": np.int64, "int64_t": np.int64,
    "unsigned long": np.uint64, "unsigned long long": np.uint64, "uint64_t": np.uint64, "size_t": np.uint64,
    "short": np.int16, "unsigned short": np.uint16, "char": np.int8, "unsigned char": np.uint8,
    "int8_t": np.int8, "uint8_t": np.uint8, "int16_t": np.int16, "uint16_t": np.uint16, "long double": np.float64,
    "short int": np.int16, "unsigned short int": np.uint16, "long int": np.int64, "unsigned long int": np.uint64,
    "ptrdiff_t": np.int64, "intptr_t": np.int64, "uintptr_t": np.uint64, "bool": np.bool_, "float4": np.float32, "float2": np.float32,
    "int4": np.int32, "int2": np.int32, "double2": np.float64, "signed char": np.int8, "signed int": np.int32,
    "half2": np.float16, "__half2": np.float16,
    "__nv_bfloat16": np.uint16, "nv_bfloat16": np.uint16, "__nv_bfloat162": np.uint16,  # bfloat16's bits
}


def _strip_comments(src: str) -> str:
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    return re.sub(r"//[^\n]*", " ", src)


_ATTRIBUTES = re.compile(r"\b(__launch_bounds__|__maxnreg__|__cluster_dims__)\s*\(")


def _strip_attributes(src: str) -> str:
    """Source without the launch attributes that stand between `__global__` and the kernel's name
    (`__launch_bounds__(THREADS * 2, (MIN))`), their arguments balanced however they nest."""
    while m := _ATTRIBUTES.search(src):
        j, depth = m.end(), 1
        while j < len(src) and depth:
            depth += {"(": 1, ")": -1}.get(src[j], 0)
            j += 1
        src = src[:m.start()] + " " + src[j:]
    return src


def parse_signature(source: str, kernel: str, filename: str | None = None,
                    include_dirs: list[str] | tuple[str, ...] = ()) -> list[Param]:
    """Parameters of `__global__ ... kernel(...)` (names, types, pointer-ness), from the source or the
    headers it includes (found beside `filename` and in `include_dirs`, as the compiler finds them); a
    definition is preferred to a declaration, whose parameters may be unnamed."""
    base = kernel.split("<")[0].strip().split("::")[-1]
    texts = [source] + [text for _, text in included_files(source, filename, list(include_dirs))]
    return [_functor(_aliased(p, texts), texts) for p in _signature(texts, base, kernel, filename)]


def _functor(p: Param, texts: list[str]) -> Param:
    """`p`, marked `empty` where it is a struct or class by value with no data members in the texts (a functor:
    its one byte is all the kernel takes)."""
    if p.pointer or p.ctype in _CTYPES or not re.fullmatch(r"[A-Za-z_][\w:]*", p.ctype):
        return p
    name = p.ctype.split("::")[-1]
    for text in texts:
        src = _strip_comments(text)
        m = re.search(rf"\b(?:struct|class)\s+{re.escape(name)}\b[^;{{]*\{{", src)
        if m is None:
            continue
        i, depth, body = m.end(), 1, []
        while i < len(src) and depth:  # the body, with nested braces (member functions' bodies) left out
            depth += (src[i] == "{") - (src[i] == "}")
            if depth == 1 and src[i] != "}":
                body.append(src[i])
            i += 1
        members = re.sub(r"\b(public|private|protected)\s*:", " ", "".join(body)).split(";")
        data = [d for d in members if d.strip() and "(" not in d
                and not re.match(r"\s*(using|typedef|static|enum|friend|template)\b", d)]
        return Param(p.ctype, p.name, p.pointer, p.default, empty=not data)
    return p


def _aliased(p: Param, texts: list[str]) -> Param:
    """`p` with its type through the texts' typedef and using aliases (`typedef float real;`: real is float)."""
    for _ in range(4):  # an alias of an alias
        if p.ctype in _CTYPES:
            return p
        pat = rf"\btypedef\s+([\w\s]+?)\s+{re.escape(p.ctype)}\s*;|\busing\s+{re.escape(p.ctype)}\s*=\s*([\w\s]+?)\s*;"
        m = next((m for t in texts if (m := re.search(pat, t))), None)
        if m is None:
            return p
        p = Param(" ".join((m.group(1) or m.group(2)).replace("const", " ").split()), p.name, p.pointer, p.default)
    return p


def _signature(texts: list[str], base: str, kernel: str, filename: str | None) -> list[Param]:
    found = None
    for text in texts:
        src = _strip_attributes(_strip_comments(text))
        for m in re.finditer(r"__global__[^;{(]*?\b" + re.escape(base) + r"\s*\(", src):
            i, depth = m.end(), 1
            j = i
            while j < len(src) and depth:
                depth += {"(": 1, ")": -1}.get(src[j], 0)
                j += 1
            defined = re.match(r"\s*(?:const\s*)?\{", src[j:]) is not None
            if found is None or defined:
                found = _instantiated(src[i:j - 1], src[:m.start()], kernel)
            if defined:
                return _params(found, base)
    if found is not None:
        return _params(found, base)
    where = f" or the {len(texts) - 1} headers it includes" if len(texts) > 1 else ""
    if (d := demangle(kernel)) is not None:  # a mangled name, as an earlier line listed them
        named = f"{filename}::{cxx_name(kernel)}" if filename else cxx_name(kernel)
        raise TargetError(_mangled(kernel, d[0], d[1] is None and _definitions(d[0], texts) > 1, named))
    raise TargetError(f"no __global__ function named {base!r} in the source{where} (signatures are read as written: "
                      f"a kernel a macro declares is not seen; write its signature out)")


def _split_top(text: str) -> list[str]:
    """`text` split at the commas outside brackets."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch in "<([") - (ch in ">)]")
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    return parts + ([cur.strip()] if cur.strip() else [])


def _instantiated(params: str, before: str, kernel: str) -> str:
    """A template kernel's parameter list with its type parameters replaced by the instance's arguments
    (`axpy<float, 256, true>`: `T a` -> `float a`), so that a by-value `T` is a type the command line builds."""
    t = re.search(r"template\s*<([^;{}]*)>\s*(?:__global__|extern|static|inline|\w|\s|\(|\)|,)*$", before)
    if "<" not in kernel or t is None:
        return params
    formal, actual = _split_top(t.group(1)), _split_top(kernel[kernel.index("<") + 1:kernel.rindex(">")])
    for f, a in zip(formal, actual):
        m = re.match(r"(?:typename|class)\s+([A-Za-z_]\w*)", f)
        if m:
            params = re.sub(rf"\b{m.group(1)}\b", a, params)
    return params


def _definitions(base: str, texts: list[str]) -> int:
    """How many `__global__` functions named `base` the texts define (more than one: overloads)."""
    pattern = r"__global__[^;{(]*?\b" + re.escape(base) + r"\s*\([^{};]*\)\s*\{"
    return sum(len(re.findall(pattern, _strip_attributes(_strip_comments(t)))) for t in texts)


def _mangled(kernel: str, base: str, overloaded: bool, named: str) -> str:
    """The line for a mangled kernel name: the command line names a kernel as C++ does, and cannot tell overloads
    apart."""
    if overloaded:
        return (f"{kernel}: a mangled name of {cxx_name(kernel, True)}, one of the overloads of {base}; the command "
                f"line cannot tell overloads apart: give the one to analyze a name of its own, or make it extern \"C\"")
    return f"{kernel}: a mangled name; give the kernel as C++ names it, {named}"


_KERNEL_RE = re.compile(r"(template\s*<[^;{}]*?>\s*)?(?:extern\s*\"C\"\s*)?__global__[^;{(]*?\b([A-Za-z_]\w*)\s*\(")


def kernel_names(source: str, filename: str | None = None, include_dirs: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The `__global__` functions a source and the headers it includes declare, in order, once each; a
    template's name ends in `<...>` (it is reached by a name expression with its arguments)."""
    texts = [source] + [text for _, text in included_files(source, filename, list(include_dirs))]
    out: list[str] = []
    for text in texts:
        for m in _KERNEL_RE.finditer(_strip_attributes(_strip_comments(text))):
            name = m.group(2) + ("<...>" if m.group(1) else "")
            if name not in out:
                out.append(name)
    return out


_BUILTINS = {"v": "void", "b": "bool", "c": "char", "a": "signed char", "h": "unsigned char", "s": "short",
             "t": "unsigned short", "i": "int", "j": "unsigned int", "l": "long", "m": "unsigned long",
             "x": "long long", "y": "unsigned long long", "f": "float", "d": "double", "e": "long double",
             "Dh": "__half"}


def demangle(name: str) -> tuple[str, str | None, list[str] | None] | None:
    """(base name, template arguments as C++ writes them or None, parameter types or None) of a mangled kernel
    name of the simple kinds a .cu file makes (`_Z5scaleILi4EEvPf` -> ('scale', '4', ['float*'])); None for a
    name that is not mangled, or one whose mangling is past this reader (substitutions, namespaces)."""
    nested = re.match(r"_ZN((?:\d+[A-Za-z_]\w*?)+)E", name)  # foo::bar::nk: _ZN3foo3bar2nkE...
    if nested:
        parts, j, body = [], 0, nested.group(1)
        while j < len(body):
            n = re.match(r"\d+", body[j:])
            if n is None:
                return None
            k = j + n.end()
            parts.append(body[k:k + int(n.group())])
            j = k + int(n.group())
        base, i = "::".join(parts), nested.end()
    else:
        m = re.match(r"_Z(\d+)", name)
        if not m or len(name) < m.end() + int(m.group(1)):
            return None
        base, i = name[m.end():m.end() + int(m.group(1))], m.end() + int(m.group(1))

    def typ(i: int) -> tuple[str, int] | None:
        quals = []
        while i < len(name) and name[i] in "PKRV":
            quals.append(name[i])
            i += 1
        code = name[i:i + 2] if name[i:i + 2] in _BUILTINS else name[i:i + 1]
        if code not in _BUILTINS:
            return None
        out, i = _BUILTINS[code], i + len(code)
        for q in reversed(quals):
            out += {"P": "*", "R": "&", "K": " const", "V": " volatile"}[q]
        return out, i

    targs = None
    if name[i:i + 1] == "I":
        i, args = i + 1, []
        while i < len(name) and name[i] != "E":
            if name[i] == "L":
                lit = re.match(r"L([a-z])(n?)(\d+)E", name[i:])
                if not lit:
                    return None
                value = ("-" if lit.group(2) else "") + lit.group(3)
                args.append({"1": "true", "0": "false"}[value] if lit.group(1) == "b" else value)
                i += lit.end()
            else:
                t = typ(i)
                if t is None:
                    return None
                args.append(t[0])
                i = t[1]
        targs, i = ", ".join(args), i + 1
        t = typ(i)  # a template function's mangling names its return type first
        if t is None:
            return None
        i = t[1]
    params = []
    while i < len(name):
        t = typ(i)
        if t is None:
            return base, targs, None
        params.append(t[0])
        i = t[1]
    return base, targs, [p for p in params if p != "void"]


def cxx_name(entry: str, with_params: bool = False) -> str:
    """An entry's name as the command line takes it: `scale<4>` for `_Z5scaleILi4EEvPf`, `dupk` (or
    `dupk(int*)`, with_params) for `_Z4dupkPi`; an extern "C" name, or one past `demangle`, as it is."""
    d = demangle(entry)
    if d is None:
        return entry
    base, targs, params = d
    name = base if targs is None else f"{base}<{targs}>"
    return f"{name}({', '.join(params)})" if with_params and params is not None else name


def no_such_kernel(filename: str, kernel: str, entries: list[str]) -> str:
    """The line for a kernel name the compile of `filename` has no entry for (`entries`, mangled or not): a
    template named without its arguments is shown its instantiations; an overloaded name is told the command line
    cannot pick one; otherwise the kernels there are, as the command line names them."""
    if not entries:
        return f"{filename}: no kernel {kernel!r}; it declares no __global__ function"
    base = kernel.split("(")[0].strip()
    same = sorted((e for e in entries if (demangle(e) or ("",))[0] == base), key=lambda e: cxx_name(e, True))
    if same and all((demangle(e) or ("", None))[1] is not None for e in same):
        names = [cxx_name(e) for e in same]
        return (f"{filename}: {base} is a template: give its arguments, as {filename}::{names[0]} (instantiated: "
                f"{', '.join(names)})")
    if len(same) > 1:
        return (f"{filename}: {base} is overloaded ({', '.join(cxx_name(e, True) for e in same)}), and the command "
                f"line cannot tell overloads apart: give the one to analyze a name of its own, or make it extern \"C\"")
    return f"{filename}: no kernel {kernel!r}; found " + ", ".join(dict.fromkeys(cxx_name(e) for e in entries))


def _params(body: str, base: str) -> list[Param]:
    """The parameters of a parameter list's text."""
    parts, depth, cur = [], 0, ""
    for ch in body:
        if ch in "<([":
            depth += 1
        if ch in ">)]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    out = []
    for p in parts:
        default = p.split("=", 1)[1].strip() if "=" in p else None
        p = re.sub(r"\[\[.*?\]\]|__attribute__\s*\(\(.*?\)\)|\b__grid_constant__\b", " ", p.split("=")[0]).strip()
        if not p or p == "void":
            continue
        m2 = re.match(r"(.*?)([A-Za-z_]\w*)\s*(\[[^\]]*\])?$", p, flags=re.S)
        if not m2:
            raise TargetError(f"cannot read the parameter {p!r} of {base}")
        ctype, name = m2.group(1), m2.group(2)
        if not ctype.strip() or name in _UNNAMED:
            raise TargetError(f"{base}: a parameter with no name ({p!r}): name it in the kernel's definition, so that "
                              f"--arg can give it")
        stars = ctype.count("*") + bool(m2.group(3))
        ctype = re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict|struct)\b|\*|&", " ", ctype)
        ctype = " ".join(ctype.split()) + ("*" * (stars - 1) if stars > 1 else "")  # float** keeps one: float*
        out.append(Param(ctype, name, stars > 0, default))
    return out


_BF16 = {"__nv_bfloat16", "nv_bfloat16"}


def _float(text: str) -> float:
    """A float written as C writes one: decimal, hex (0x1p-3), inf or nan."""
    t = text.strip()
    return float.fromhex(t) if re.match(r"[-+]?0[xX]", t) else float(t)


_LITERAL = re.compile(r"([-+]?(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?))[fFuUlL]*")
_VECTORS = {"float4", "float2", "int4", "int2", "double2", "half2", "__half2", "__nv_bfloat162"}
_UNNAMED = {"int", "float", "double", "char", "short", "long", "unsigned", "signed", "bool", "size_t"}


_DTYPE_ALIASES = {"bfloat16": "uint16"}  # numpy has no bfloat16: its 16 bits are what the buffer holds
_BUF_RE = re.compile(r"^([a-z]+\d*)\[(\d+)\]$")
_DATA = "npy:"  # an --arg spec that --data made: npy:<digest>:<path> (the digest keys cached results)


def data_spec(name: str, path: str) -> str:
    """The `--arg` spec for `--data NAME=PATH`: the file checked readable now, its digest in the spec."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise TargetError(f"--data {name}={path}: {e.strerror or e}") from None
    if not stat.S_ISREG(st.st_mode):  # a pipe or a device would be read until it ended: perhaps never
        raise TargetError(f"--data {name}={path}: not a regular file (a folder, pipe or device); give a .npy file "
                          f"saved by np.save")
    reserve(2 * st.st_size, f"--data {name}={path} ({st.st_size / 2**30:,.1f} GiB)")  # read, then loaded
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise TargetError(f"--data {name}={path}: {e.strerror or e}") from None
    return f"{_DATA}{hashlib.sha256(raw).hexdigest()[:16]}:{Path(path).resolve()}"


def _load(p: Param, spec: str, variable: bool = False) -> np.ndarray:
    """The array of a --data file, as the parameter's (or module `variable`'s) element type (a different type is
    refused: the bytes would be read as something else)."""
    what, star = ("variable", "") if variable else ("parameter", "*")
    path = spec[len(_DATA):].split(":", 1)[1]
    try:
        arr = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        why = str(e).splitlines()[0]
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
        raise TargetError(f"--data {p.name}={path}: the array is empty")
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
        raise TargetError(f"--arg {sorted(unknown)[0]}: no such parameter; the kernel takes "
                          + ", ".join(p.name for p in params))
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
    size = f"{arr.size:,} {arr.dtype} ({_bytes(arr.nbytes)})"
    how = (f"grown to {size} to cover what the simulated blocks touched" if grown
           else f"{size}; the simulated blocks touched no further")
    return (f"{name}: no size or data given: zeros, {how} (--arg {name}={arr.dtype}[COUNT] sizes it, "
            f"--data {name}=FILE.npy fills it)")


def _bytes(n: int) -> str:
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
        if k.strip() in out and what != "--define":  # a later --define overrides, as the compiler's -D does
            raise TargetError(f"{what} {k.strip()}: given twice ({k.strip()}={out[k.strip()]} and "
                              f"{k.strip()}={v.strip()}); give it once")
        out[k.strip()] = v.strip()
    return out
