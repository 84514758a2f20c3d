"""SASS instructions as the SM simulation (analysis.smsim) sees them: the pipe that issues each
one, how long that pipe stays busy, when its result can be read, and which registers it reads
and writes.

The pipe of each opcode is data (analysis/models/sass_ops.json); the intervals and latencies
are the GPU row's measured timing rates. Registers are read from the operand text: a 64-bit
operand (`.64` address, a DFMA, IMAD.WIDE's result) spans two registers, a 128-bit load four,
a tensor-core accumulator four.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

from .sass import SassInstruction
from .smsim import ATOMIC, BARRIER, LOAD, NORMAL, SHARED, STORE, Op

_TABLE = json.loads(Path(__file__).with_name("models").joinpath("sass_ops.json").read_text())
PIPES = list(_TABLE["pipes"])
_REG = re.compile(r"\b(U?R|U?P)(\d+|Z|T)\b")
_STORES = {"STS", "STG", "ST", "STL", "RED", "REDG"}
_NO_DEST = _STORES | {"BAR", "BRA", "BRX", "JMP", "EXIT", "RET", "CALL", "BSSY", "BSYNC", "WARPSYNC", "NOP",
                      "ENDCOLLECTIVE", "YIELD", "NANOSLEEP"}
_WIDE_FP = {"DFMA", "DADD", "DMUL", "DMNMX"}


_KNOWN = frozenset(op for rule in _TABLE["rules"] for op in rule["op"])


def rule_of(ins: SassInstruction) -> dict:
    """The first rule that names the opcode (and a modifier it carries, where the rule names some); an
    unknown opcode is an ALU instruction (`unknown` reports them)."""
    for rule in _TABLE["rules"]:
        if ins.op in rule["op"]:
            if "mods" not in rule or set(rule["mods"]) & set(ins.mods):
                return rule
    return {"pipe": "alu"}


def pipe_of(ins: SassInstruction) -> str:
    """The pipe that issues the instruction."""
    return rule_of(ins)["pipe"]


def unknown(instructions: list[SassInstruction]) -> dict[str, int]:
    """Opcodes no rule of analysis/models/sass_ops.json names, with how often each is listed."""
    out: dict[str, int] = {}
    for ins in instructions:
        if ins.op not in _KNOWN:
            out[ins.op] = out.get(ins.op, 0) + 1
    return out


def _reg_id(kind: str, num: str) -> int | None:
    """R0-R254 -> 0-254, P0-P6 -> 300-306, UR0-UR62 -> 400-462, UP0-UP6 -> 500-506; RZ/PT/URZ/UPT: None."""
    if num in ("Z", "T"):
        return None
    n = int(num)
    return {"R": 0, "P": 300, "UR": 400, "UP": 500}[kind] + n


_PRED_FIRST = {"ISETP", "FSETP", "DSETP", "UISETP", "PLOP3", "UPLOP3", "PSETP", "VOTE", "VOTEU", "R2P", "FCHK"}
_TWO_DEST = {"SHFL", "LOP3", "ULOP3"}  # a predicate and a register: SHFL PT, R7, ...; LOP3.LUT P0, RZ, ...


def _widths(ins: SassInstruction, n: int) -> list[int]:
    """Registers each of the `n` operands spans (64-bit values two, 128-bit four)."""
    op, mods = ins.op, ins.mods
    w = [1] * n
    if op in _WIDE_FP:
        return [2] * n
    if op == "HMMA":  # m16n8k4 TF32 / m16n8k16 F16: D and C four registers, A two, B one or two
        return [4, 2, 1 if "1684" in mods else 2, 4][:n] + [1] * max(0, n - 4)
    if op == "DMMA":
        return [4, 2, 2, 4][:n] + [1] * max(0, n - 4)
    if op == "CS2R" or (op == "IMAD" and "WIDE" in mods):
        w[0] = 2
    if op == "IMAD" and "WIDE" in mods and n >= 4:
        w[3] = 2
    big = 4 if "128" in mods else 2 if ("64" in mods or (mods and mods[0] == "F64")) else 1
    if big > 1:
        if op in _STORES:
            w[-1] = big
        else:
            w[0] = big
    return w


def registers(ins: SassInstruction) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(registers written, registers read) of one instruction."""
    parts = [p.strip() for p in re.split(r",(?![^\[]*\])", ins.operands) if p.strip()]
    dsts: list[int] = []
    srcs: list[int] = []
    if ins.guard and (m := _REG.match(ins.guard.lstrip("!"))) and (r := _reg_id(m.group(1), m.group(2))) is not None:
        srcs.append(r)
    if ins.op in _NO_DEST:
        ndst = 0
    elif ins.op in _TWO_DEST or (ins.op in ("IADD3", "LEA", "IMAD") and len(parts) > 1
                                  and re.fullmatch(r"U?P(\d+|T)", parts[1])):
        ndst = 2
    else:
        ndst = 1
    widths = _widths(ins, len(parts))
    for k, p in enumerate(parts):
        addr = "[" in p
        for m in _REG.finditer(p):
            r = _reg_id(m.group(1), m.group(2))
            if r is None:
                continue
            if addr:
                n = 2 if p[m.end():m.end() + 3] == ".64" or m.group(1) == "UR" and "desc" in p else 1
            else:
                n = widths[k] if m.group(1) in ("R", "UR") else 1
            (dsts if k < ndst and not addr else srcs).extend(range(r, r + n))
    return tuple(dsts), tuple(srcs)


def kind_of(ins: SassInstruction, pipe: str) -> int:
    if pipe == "barrier":
        return BARRIER
    if ins.op == "ATOMS":
        return ATOMIC
    if pipe in ("shared", "shfl"):
        return STORE if ins.op == "STS" else SHARED
    if pipe in ("global", "local"):
        return STORE if ins.op in _STORES else LOAD
    return NORMAL


def decode(instructions: list[SassInstruction], rates: dict[str, float]) -> list[Op]:
    """Every instruction of a listing as an Op, with the pipe intervals and latencies of `rates`."""
    out = []
    for ins in instructions:
        rule = rule_of(ins)
        pipe = rule["pipe"]
        spec = _TABLE["pipes"][pipe]
        d, s = registers(ins)
        ctl = ins.control >= 0
        out.append(Op(PIPES.index(pipe), rates[rule.get("interval", spec["interval"])], rates[spec["latency"]], s, d,
                      kind_of(ins, pipe),
                      ins.stall if ctl else -1, ins.write_barrier if ctl else 7, ins.read_barrier if ctl else 7,
                      ins.wait_mask if ctl else 0))
    return out
