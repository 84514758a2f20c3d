"""A kernel's C signature as the command line reads it: its parameters' names and types (through typedefs,
a template instance's arguments, default arguments), the kernels a source declares, and C++'s mangled names
as the command line names them. Anything it cannot read is a TargetError: one line, exit status 2.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from cudasim.compile import split_overload
from cudasim.includes import included_files

from . import macros

class TargetError(Exception):
    """A TARGET or option the CLI cannot use; printed as one line, exit status 2."""


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


def _closed(src: str, i: int) -> int:
    """The index just past the ')' that closes a '(' ending just before `i`, parentheses nested however deep."""
    depth = 1
    while i < len(src) and depth:
        depth += (src[i] == "(") - (src[i] == ")")
        i += 1
    return i


def _strip_attributes(src: str) -> str:
    """Source without the launch attributes that stand between `__global__` and the kernel's name
    (`__launch_bounds__(THREADS * 2, (MIN))`), their arguments balanced however they nest."""
    while m := _ATTRIBUTES.search(src):
        src = src[:m.start()] + " " + src[_closed(src, m.end()):]
    return src


def parse_signature(source: str, kernel: str, filename: str | None = None,
                    include_dirs: list[str] | tuple[str, ...] = ()) -> list[Param]:
    """Parameters of `__global__ ... kernel(...)` (names, types, pointer-ness), from the source or the
    headers it includes (found beside `filename` and in `include_dirs`, as the compiler finds them); a
    definition is preferred to a declaration, whose parameters may be unnamed."""
    name, types = split_overload(kernel)
    base = name.split("<")[0].strip().split("::")[-1]
    texts = [source] + [text for _, text in included_files(source, filename, list(include_dirs))]
    try:
        params = _signature(texts, base, name, filename, types)
    except TargetError:
        expanded = macros.expand([_strip_comments(t) for t in texts])  # a kernel a macro declares
        if expanded is None:
            raise
        params = _signature([expanded], base, name, filename, types)
    return [_functor(_aliased(p, texts), texts) for p in params]


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
    """`p` with its type through the texts' typedef and using aliases (`typedef float real;`: real is float), and
    an enum as its underlying integer type."""
    for _ in range(4):  # an alias of an alias
        if p.ctype in _CTYPES:
            return p
        pat = rf"\btypedef\s+([\w\s]+?)\s+{re.escape(p.ctype)}\s*;|\busing\s+{re.escape(p.ctype)}\s*=\s*([\w\s]+?)\s*;"
        m = next((m for t in texts if (m := re.search(pat, t))), None)
        if m is None:  # an enum passes as its underlying integer (int where it names none)
            enum = rf"\benum\s+(?:class\s+|struct\s+)?{re.escape(p.ctype)}\s*(?::\s*([\w\s]+?))?\s*\{{"
            e = next((e for t in texts if (e := re.search(enum, t))), None)
            if e is None:
                return p
            return Param(" ".join((e.group(1) or "int").replace("const", " ").split()), p.name, p.pointer, p.default)
        p = Param(" ".join((m.group(1) or m.group(2)).replace("const", " ").split()), p.name, p.pointer, p.default)
    return p


def _signature(texts: list[str], base: str, kernel: str, filename: str | None, types: str | None = None) -> list[Param]:
    """`types`: the parameter types an overload was named with (`scale(float*, int)`): the definition with them."""
    found, overloads = None, []
    for text in texts:
        src = _strip_attributes(_strip_comments(text))
        for m in re.finditer(r"__global__[^;{(]*?\b" + re.escape(base) + r"\s*\(", src):
            i, j = m.end(), _closed(src, m.end())
            defined = re.match(r"\s*(?:const\s*)?\{", src[j:]) is not None
            params = _instantiated(src[i:j - 1], src[:m.start()], kernel)
            if types is not None:
                overloads.append(params)
                if _same_types(_params(params, base), types, texts):
                    return _params(params, base)
                continue
            if found is None or defined:
                found = params
            if defined:
                return _params(found, base)
    if overloads:
        have = "; ".join(dict.fromkeys(", ".join(_type_text(p) for p in _params(o, base)) for o in overloads))
        raise TargetError(f"{base}({types}): no overload of {base} takes those types; its overloads take ({have})")
    if found is not None:
        return _params(found, base)
    where = f" or the {len(texts) - 1} headers it includes" if len(texts) > 1 else ""
    if (d := demangle(kernel)) is not None:  # a mangled name, as an earlier line listed them
        raise TargetError(_mangled(kernel, d[0], d[1] is None and _definitions(d[0], texts) > 1,
                                   f"{filename}::" if filename else ""))
    raise TargetError(f"no __global__ function named {base!r} in the source{where}, nor in what its macros "
                      f"expand to")


def _type_key(text: str, texts: list[str]) -> tuple[str, int]:
    """A parameter type as overloads tell types apart: its pointers, and its base type through aliases, with
    const, volatile and __restrict__ left out."""
    stars = text.count("*") + text.count("[") + text.count("&")
    t = " ".join(re.sub(r"\b(const|volatile|__restrict__|__restrict|restrict|struct)\b|\*|&|\[[^\]]*\]", " ",
                        text).split())
    t = _aliased(Param(t, "", False), texts).ctype
    return (np.dtype(_CTYPES[t]).str if t in _CTYPES else t), stars


def _type_text(p: Param) -> str:
    return p.ctype + ("*" if p.pointer else "")


def _same_types(params: list[Param], types: str, texts: list[str]) -> bool:
    """Whether `params` are of the `types` an overload was named with."""
    want = [_type_key(t, texts) for t in _split_top(types) if t.strip() not in ("", "void")]
    return want == [_type_key(_type_text(p), texts) for p in params]


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


def _mangled(kernel: str, base: str, overloaded: bool, file: str) -> str:
    """The line for a mangled kernel name: the command line names a kernel as C++ does, an overload with its
    parameter types. `file`: 'path::', or ''."""
    if overloaded:
        return (f"{kernel}: a mangled name of {cxx_name(kernel, True)}, one of the overloads of {base}; give it as "
                f"C++ names it, with its parameter types: {file}{cxx_name(kernel, True)}")
    return f"{kernel}: a mangled name; give the kernel as C++ names it, {file}{cxx_name(kernel)}"


_KERNEL_RE = re.compile(r"(template\s*<[^;{}]*?>\s*)?(?:extern\s*\"C\"\s*)?__global__[^;{(]*?\b([A-Za-z_]\w*)\s*\(")


def kernel_names(source: str, filename: str | None = None, include_dirs: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The `__global__` functions a source and the headers it includes declare, in order, once each; a
    template's name ends in `<...>` (it is reached by a name expression with its arguments)."""
    texts = [source] + [text for _, text in included_files(source, filename, list(include_dirs))]
    expanded = macros.expand([_strip_comments(t) for t in texts])  # kernels macros declare, as the compiler sees
    found: list[tuple[str, str]] = []  # (name, parameter list)
    for text in [expanded] if expanded is not None else texts:
        src = _strip_attributes(_strip_comments(text))
        for m in _KERNEL_RE.finditer(src):
            i = _closed(src, m.end())
            name = m.group(2) + ("<...>" if m.group(1) else "")
            if (name, src[m.end():i - 1]) not in found:
                found.append((name, src[m.end():i - 1]))
    out: list[str] = []
    for name, params in found:  # an overload is named with its parameter types, as the command line takes it
        if sum(n == name for n, _ in found) > 1 and "<" not in name:
            try:
                name += "(" + ", ".join(_type_text(p) for p in _params(params, name)) + ")"
            except TargetError:
                pass
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
    name that is not mangled, or one whose mangling is past this reader (substitutions, as S1_)."""
    closes = False  # a template in a namespace: its arguments, then the E that ends the nested name
    if name.startswith("_ZN"):  # foo::bar::nk: _ZN3foo3bar2nkE..., foo::nk<float>: _ZN3foo2nkIfEE...
        parts, j = [], 3
        while (n := re.match(r"\d+", name[j:])) is not None:
            k = j + n.end()
            parts.append(name[k:k + int(n.group())])
            j = k + int(n.group())
        if not parts or name[j:j + 1] not in ("E", "I"):
            return None
        base, closes = "::".join(parts), name[j] == "I"
        i = j if closes else j + 1
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
        if closes:
            if name[i:i + 1] != "E":
                return None
            i += 1
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


def no_such_kernel(filename: str, kernel: str, entries: list[str], declared: list[str] | tuple[str, ...] = ()) -> str:
    """The line for a kernel name the compile of `filename` has no entry for (`entries`, mangled or not): a
    template named without its arguments is shown its instantiations; an overloaded name is told the command line
    cannot pick one; otherwise the kernels there are, as the command line names them."""
    if not entries:
        return f"{filename}: no kernel {kernel!r}; it declares no __global__ function"
    base, types = split_overload(kernel)
    same = sorted((e for e in entries if (demangle(e) or ("",))[0] == base), key=lambda e: cxx_name(e, True))
    if same and all((demangle(e) or ("", None))[1] is not None for e in same):
        names = [cxx_name(e) for e in same]
        return (f"{filename}: {base} is a template: give its arguments, as {filename}::{names[0]} (instantiated: "
                f"{', '.join(names)})")
    if types is not None and same:
        return (f"{filename}: no overload of {base} takes ({types}); it has "
                f"{', '.join(cxx_name(e, True) for e in same)}")
    if not same and f"{base}<...>" in declared:  # a template the source declares and does not instantiate
        return (f"{filename}: {base} is a template: give its arguments, as {filename}::{base}<...> with the values "
                f"to compile it for (the compiler instantiates it)")
    if len(same) > 1:
        return (f"{filename}: {base} is overloaded ({', '.join(cxx_name(e, True) for e in same)}): name one with its "
                f"parameter types, as {filename}::{cxx_name(same[0], True)}")
    return f"{filename}: no kernel {kernel!r}; found " + ", ".join(dict.fromkeys(cxx_name(e) for e in entries))


def _params(body: str, base: str) -> list[Param]:
    """The parameters of a parameter list's text."""
    out = []
    for p in _split_top(body):
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

_UNNAMED = {"int", "float", "double", "char", "short", "long", "unsigned", "signed", "bool", "size_t"}
