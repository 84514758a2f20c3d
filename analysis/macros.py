"""The macros a source defines, expanded far enough to read the signature of a kernel a macro declares
(`#define AXPY(NAME, T) __global__ void NAME(const T *x, T *y, T a, int n) {...}`, then `AXPY(saxpy, float)`).

Object-like and function-like `#define`s of the source and its headers, with `#`, `##` and `__VA_ARGS__`;
conditionals are not evaluated (every `#define` counts), which is enough for the declarations such macros
write. The compiler, not this, decides what the kernel is: this only finds its parameters' names and types.
"""
from __future__ import annotations

import re

_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)(\([^)]*\))?[ \t]*(.*)$", re.M)
_PASSES = 16  # macros inside macros, expanded this deep
_GROWTH = 64  # an expansion past this many times the source's size is not a declaration (a macro bomb)


def expand(texts: list[str]) -> str | None:
    """The texts (comments stripped) joined, with their macros expanded and their preprocessor lines left out;
    None where they define no macro."""
    joined = "\n".join(re.sub(r"\\[ \t]*\r?\n", " ", t) for t in texts)
    defines = {m.group(1): (_formals(m.group(2)), m.group(3).strip()) for m in _DEFINE.finditer(joined)}
    if not defines:
        return None
    text = re.sub(r"^[ \t]*#.*$", "", joined, flags=re.M)
    limit = _GROWTH * max(len(text), 1024)
    for _ in range(_PASSES):
        out = _once(text, defines)
        if out == text or len(out) > limit:
            break
        text = out
    return text


def _formals(group: str | None) -> list[str] | None:
    """A function-like macro's parameter names (None: object-like)."""
    if group is None:
        return None
    return [p.strip() for p in group[1:-1].split(",") if p.strip()]


def _once(text: str, defines: dict[str, tuple[list[str] | None, str]]) -> str:
    """One pass: every use of a macro replaced by its body, its arguments put in."""
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, defines)) + r")\b")
    out, i = [], 0
    for m in pattern.finditer(text):
        if m.start() < i:
            continue
        formals, body = defines[m.group(1)]
        if formals is None:
            out.append(text[i:m.start()] + body)
            i = m.end()
            continue
        call = re.match(r"\s*\(", text[m.end():])
        if call is None:  # a function-like macro's name not followed by '(' is no use of it
            continue
        args, end = _arguments(text, m.end() + call.end())
        if args is None:
            continue
        out.append(text[i:m.start()] + _substitute(body, formals, args))
        i = end
    return "".join(out) + text[i:]


def _arguments(text: str, i: int) -> tuple[list[str] | None, int]:
    """The arguments of a macro use whose '(' ends just before `i`, and the index after its ')'."""
    depth, cur, args = 1, [], []
    while i < len(text):
        ch = text[i]
        i += 1
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                args.append("".join(cur).strip())
                return args, i
        elif ch == "," and depth == 1:
            args.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    return None, i


def _substitute(body: str, formals: list[str], args: list[str]) -> str:
    """`body` with each parameter replaced by its argument (`#p` by its text quoted), then `##` pasted."""
    values = dict(zip(formals, args))
    if formals and formals[-1] == "...":
        values["__VA_ARGS__"] = ", ".join(args[len(formals) - 1:])
    if not values:
        return re.sub(r"\s*##\s*", "", body)
    names = "|".join(map(re.escape, values))
    body = re.sub(r"(?<!#)#\s*(" + names + r")\b", lambda m: '"' + values[m.group(1)] + '"', body)
    body = re.sub(r"\b(" + names + r")\b", lambda m: values[m.group(1)], body)
    return re.sub(r"\s*##\s*", "", body)
