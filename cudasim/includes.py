"""The headers a CUDA file includes, found as the compiler finds them.

Why: a kernel is often kept in a header that the `.cu` includes, so reading its signature
means reading the headers too, and a compile (or an analysis) cached by the `.cu` alone
would not see an edited header. Quoted includes are looked for in the including file's
folder, then the `-I` folders; angle includes in the `-I` folders. Headers found nowhere
there (the standard library, the CUDA toolkit's) are the compiler's business, not listed.
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

_INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.M)


def split_options(options: list[str] | tuple[str, ...]) -> tuple[list[str], list[str]]:
    """(the folders `-I DIR`, `-IDIR` and `--include-path=DIR` name, in order; the other options)."""
    dirs: list[str] = []
    rest: list[str] = []
    it = iter(options)
    for o in it:
        if o in ("-I", "--include-path"):
            dirs.append(next(it, ""))
        elif o.startswith("--include-path="):
            dirs.append(o.split("=", 1)[1])
        elif o.startswith("-I"):
            dirs.append(o[2:])
        else:
            rest.append(o)
    return [d for d in dirs if d], rest


def include_dirs_of(options: list[str] | tuple[str, ...]) -> list[str]:
    """The folders the `-I` options name, in order."""
    return split_options(options)[0]


def includes(source: str) -> list[tuple[str, bool, int]]:
    """(name, quoted, line) of every `#include` in `source`."""
    return [(m.group(2).strip(), m.group(1) == '"', source.count("\n", 0, m.start()) + 1)
            for m in _INCLUDE_RE.finditer(source)]


def find_header(name: str, quoted: bool, including: str | None, dirs: list[str]) -> Path | None:
    """Where `#include "name"` (quoted) or `<name>` in the file `including` resolves among `dirs`."""
    places = ([str(Path(including).parent)] if quoted and including else []) + list(dirs)
    for d in places:
        p = Path(d) / name
        if p.is_file():
            return p.resolve()
    return None


def included_files(source: str, filename: str | None, dirs: list[str]) -> list[tuple[Path, str]]:
    """(path, text) of every header `source` includes that is found in its folder or `dirs`,
    recursively, each once (a header that includes itself or its includer is read once)."""
    out: list[tuple[Path, str]] = []
    seen: set[Path] = set()
    stack = [(source, filename)]
    while stack:
        text, name = stack.pop()
        for header, quoted, _ in reversed(includes(text)):
            p = find_header(header, quoted, name, dirs)
            if p is None or p in seen:
                continue
            seen.add(p)
            try:
                body = p.read_text(errors="replace")
            except OSError:
                continue
            out.append((p, body))
            stack.append((body, str(p)))
    return out


def digest(source: str, filename: str | None, dirs: list[str]) -> str:
    """A hash of the headers `source` includes (paths and contents): part of every cache key."""
    h = hashlib.sha256()
    for path, text in included_files(source, filename, dirs):
        h.update(str(path).encode() + b"\0" + text.encode() + b"\0")
    return h.hexdigest()[:32]
