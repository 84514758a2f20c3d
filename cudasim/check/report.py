"""Findings as compute-sanitizer prints them (a block per finding, a summary line), and as JSON.

The text keeps compute-sanitizer's shape -- `=========` prefixes, "Invalid __global__ write of
size 4 bytes", "at ... by thread (x,y,z) in block (x,y,z)", "ERROR SUMMARY: N errors" -- so
that what a learner reads here reads like what the GPU tool will say, plus what the GPU tool
does not: both sides of a race, how many threads, the source line and a fix.
"""
from __future__ import annotations

from collections import Counter
from functools import lru_cache
from pathlib import Path

from .findings import KINDS, SPACES, Finding, Side

P = "========= "


def title(f: Finding) -> str:
    space = SPACES.get(f.space, "generic")
    if f.kind == "race":
        hazard = f.message.split("(", 1)[1].split(")")[0] if "(" in f.message else "hazard"
        return f"Race ({hazard}) on {space} memory between {f.relation}"
    if f.kind == "out-of-bounds":
        return f"Invalid {space} {f.this.access} of size {f.size} bytes (out of bounds)"
    if f.kind == "misaligned":
        return f"Misaligned {space} {f.this.access} of size {f.size} bytes"
    if f.kind == "uninitialized":
        return f"Uninitialized {space} memory {f.this.access} of size {f.size} bytes"
    if f.kind == "divergent-barrier":
        return "Barrier error: __syncthreads() reached by part of a block (divergent barrier)"
    if f.kind == "assert":
        return "Device-side assertion failed (the GPU stops the launch: cudaErrorAssert)"
    if f.kind == "trap":
        return "Device-side trap (the GPU stops the launch: cudaErrorLaunchFailure)"
    if f.kind == "malloc-free":
        return "Malloc/Free error: free() of a pointer malloc did not return, or freed twice"
    return "Warp-sync error: " + f.message.split(" ", 1)[0]


def threads(side: Side) -> str:
    if not side.threads:
        return "by no thread"
    first = ", ".join(f"thread {_d(t)} in block {_d(b)}" for b, t in side.threads[:2])
    n = side.thread_count
    more = n - min(2, len(side.threads))
    tail = f" and {more:,}{'+' if side.at_least else ''} more" if more > 0 else ""
    return f"by {first}{tail} ({n:,}{'+' if side.at_least else ''} thread{'s' if n != 1 else ''} in all)"


def _d(v) -> str:
    return "(" + ",".join(str(x) for x in v) + ")"


@lru_cache(maxsize=64)
def _source(path: str) -> tuple[str, ...]:
    try:
        return tuple(Path(path).read_text().splitlines())
    except (OSError, UnicodeDecodeError):
        return ()


def source_line(file: str, line: int) -> str | None:
    lines = _source(file)
    return lines[line - 1].strip() if 0 < line <= len(lines) else None


def where(s: Side) -> str:
    name = s.file.rsplit("/", 1)[-1] if s.file else "?"
    return f"{name}:{s.line}" if s.line else f"pc {s.pc}"


def block(f: Finding) -> list[str]:
    """The lines of one finding."""
    out = [P + title(f)]
    out.append(P + f"    {f.this.access} at {where(f.this)}   PTX: {f.this.instruction}")
    out.append(P + "        " + threads(f.this))
    if f.other is not None:
        o = f.other
        out.append(P + f"    {o.access} at {where(o)}   PTX: {o.instruction}")
        out.append(P + "        " + threads(o))
    for (b1, t1), (b2, t2) in f.pairs[:2]:
        verb = {"read": "reads", "write": "writes", "atomic": "updates"}.get(f.this.access, f.this.access)
        out.append(P + f"        e.g. thread {_d(t1)} in block {_d(b1)} {verb} what thread {_d(t2)} in block {_d(b2)} "
                       f"{'wrote' if f.other.access != 'read' else 'read'}")
    out.append(P + f"    {f.message}")
    for s in ([f.this] + ([f.other] if f.other is not None and f.other.line != f.this.line else [])):
        text = source_line(s.file, s.line)
        if text:
            out.append(P + f"    {where(s):>18} | {text}")
    if f.hint:
        out.append(P + f"    fix: {f.hint}")
    return out + [P.rstrip()]


def summary(findings: list[Finding]) -> str:
    n = len(findings)
    by = Counter(f.kind for f in findings)
    kinds = ", ".join(f"{by[k]} {k}" for k in KINDS if by[k])
    return P + f"ERROR SUMMARY: {n} error{'s' if n != 1 else ''}" + (f" ({kinds})" if kinds else "")


def render(description: str, findings: list[Finding], notes: list[str], stats: str) -> str:
    lines = [P + "CUDASIM.CHECK (compute-sanitizer's checks, on the CPU: race, out-of-bounds, misaligned, "
             "divergent-barrier, uninitialized, warp-sync, assert, trap, malloc-free)", P + f"Checking {description}: {stats}", P.rstrip()]
    for f in findings:
        lines += block(f)
    for n in notes:
        lines.append(P + f"note: {n}")
    lines.append(summary(findings))
    return "\n".join(lines)


def to_json(description: str, grid, block, findings: list[Finding], notes: list[str], seconds: float) -> dict:
    by = Counter(f.kind for f in findings)
    return {"target": description, "grid": list(grid), "block": list(block),
            "findings": [f.to_dict() for f in findings],
            "summary": {"errors": len(findings), "by_kind": {k: by[k] for k in KINDS if by[k]}},
            "notes": notes, "seconds": round(seconds, 3)}
