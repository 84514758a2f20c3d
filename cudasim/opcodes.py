"""The opcode table: one row per PTX base opcode, the only place that says what an opcode is.

Decode reads a row's decoder; the CFG reads whether it ends a basic block, branches or exits;
the scheduler and fusion read whether it is pure (touches only the thread's registers, so it
may move within straight-line code), fusable (its closure runs unchanged on stacked (G, lanes)
registers) and whether it is a plain load or store (scheduled in its state space's order and
fused by access form). Anything else is a fence that keeps its place.

Adding an opcode is one row here, its decoder, and tests. An opcode with no row is refused
at decode; a row with `refused` set decodes to a closure that refuses when it runs, so a kernel
whose unmodelled instructions are never reached (a trap on an error path) still runs.
"""
from __future__ import annotations

from dataclasses import dataclass

from . import arith, barrier, bits, calls, carry, memops, warp, wmma
from .context import DecodeContext, Decoder
from .errors import SimulationError, UnsupportedInstruction
from .operands import Op, unsupported
from .ptx import Instruction
from .state import Batch, Mask

ALU, MEMORY, WARP, BARRIER, TENSOR, CONTROL, NOP = "alu", "memory", "warp", "barrier", "tensor", "control", "nop"
KINDS = (ALU, MEMORY, WARP, BARRIER, TENSOR, CONTROL, NOP)
_NOT_MODELLED = "indirect branches and breakpoints are not modelled"


@dataclass(frozen=True)
class Opcode:
    name: str
    decode: Decoder | None  # None: control flow the run loop executes itself, or refused
    kind: str  # one of KINDS
    pure: bool = False  # reads and writes only the thread's registers: may be reordered
    fusable: bool = False  # pure, and its closure works on stacked (G, lanes) operands
    access: str | None = None  # "load" / "store": plain forms move in their state space's order, fuse by form
    ends_block: bool = False  # the next instruction starts a basic block
    branch: bool = False  # jumps to the label in operand 0 (where its guard holds)
    exits: bool = False  # the lanes that run it leave the kernel (for the CFG: flows to the exit)
    calls: bool = False  # runs a function: the run loop's for a function of the body, its decoder's for the runtime's
    refused: str | None = None  # not modelled: why, said when it runs

    def __post_init__(self) -> None:
        problems = row_problems(self)
        if problems:
            raise ValueError(f"opcode row {self.name!r}: {'; '.join(problems)}")


def row_problems(r: Opcode) -> list[str]:
    """What is inconsistent in a row (empty when it is well formed)."""
    p = []
    if r.kind not in KINDS:
        p.append(f"kind {r.kind!r} is not one of {KINDS}")
    if r.fusable and not r.pure:
        p.append("fusable but not pure")
    if r.pure != (r.kind == ALU):  # an alu row left impure would silently become a fence
        p.append("alu instructions, and only they, are pure")
    if r.access not in (None, "load", "store") or (r.access and r.kind != MEMORY):
        p.append(f"access {r.access!r} on a {r.kind} instruction")
    if (r.branch or r.exits) and not (r.ends_block and r.kind == CONTROL):
        p.append("branches or exits without ending its block as a control instruction")
    if r.branch and r.exits:
        p.append("both branches and exits")
    if (r.decode is None) != (r.kind == CONTROL) and not r.calls:
        p.append("control instructions, and only they, have no decoder")
    if r.calls and not (r.kind == CONTROL and r.ends_block and r.decode is not None):
        p.append("a call is a control instruction that ends its block, decoded for the runtime's functions")
    if r.kind == CONTROL and not r.refused and not (r.branch or r.exits or r.calls):
        p.append("a control instruction the run loop cannot execute must be refused")
    if r.refused and (r.pure or r.access):
        p.append("refused but scheduled as movable")
    return p


def decode_nop(ins: Instruction, pc: int, ctx: DecodeContext) -> Op:
    """Memory ordering and hints: nothing to do where every access completes at issue."""
    return lambda b, m: None


ROWS = (
    # arithmetic: register-only; the fusable ones run stacked
    Opcode("add", carry.with_carry(arith.decode_binary), ALU, pure=True, fusable=True),
    Opcode("sub", carry.with_carry(arith.decode_binary), ALU, pure=True, fusable=True),
    Opcode("mul", arith.decode_binary, ALU, pure=True, fusable=True),
    Opcode("mad", carry.with_carry(arith.decode_mad), ALU, pure=True, fusable=True),
    Opcode("addc", carry.decode_carry, ALU, pure=True),  # carry chains, with the .cc forms of add, sub and mad
    Opcode("subc", carry.decode_carry, ALU, pure=True),
    Opcode("madc", carry.decode_carry, ALU, pure=True),
    Opcode("fma", arith.decode_fma, ALU, pure=True, fusable=True),
    Opcode("div", arith.decode_div, ALU, pure=True),
    Opcode("rem", arith.decode_div, ALU, pure=True),
    Opcode("min", arith.decode_minmax, ALU, pure=True, fusable=True),
    Opcode("max", arith.decode_minmax, ALU, pure=True, fusable=True),
    Opcode("neg", arith.decode_unary, ALU, pure=True, fusable=True),
    Opcode("abs", arith.decode_unary, ALU, pure=True, fusable=True),
    Opcode("not", arith.decode_unary, ALU, pure=True, fusable=True),
    Opcode("cnot", arith.decode_unary, ALU, pure=True),
    Opcode("popc", arith.decode_unary, ALU, pure=True),
    Opcode("clz", arith.decode_unary, ALU, pure=True),
    Opcode("brev", arith.decode_unary, ALU, pure=True),
    Opcode("bfind", arith.decode_unary, ALU, pure=True),
    Opcode("sad", arith.decode_sad, ALU, pure=True),
    Opcode("dp4a", arith.decode_dot, ALU, pure=True),
    Opcode("dp2a", arith.decode_dot, ALU, pure=True),
    Opcode("sqrt", arith.decode_unary, ALU, pure=True, fusable=True),
    Opcode("rsqrt", arith.decode_unary, ALU, pure=True, fusable=True),
    Opcode("rcp", arith.decode_unary, ALU, pure=True, fusable=True),
    Opcode("ex2", arith.decode_unary, ALU, pure=True, fusable=True),
    Opcode("lg2", arith.decode_unary, ALU, pure=True, fusable=True),
    Opcode("sin", arith.decode_unary, ALU, pure=True),
    Opcode("cos", arith.decode_unary, ALU, pure=True),
    Opcode("tanh", arith.decode_unary, ALU, pure=True),
    # bits, logic, comparison, selection, moves, conversions
    Opcode("and", bits.decode_logic, ALU, pure=True, fusable=True),
    Opcode("or", bits.decode_logic, ALU, pure=True, fusable=True),
    Opcode("xor", bits.decode_logic, ALU, pure=True, fusable=True),
    Opcode("shl", bits.decode_shift, ALU, pure=True, fusable=True),
    Opcode("shr", bits.decode_shift, ALU, pure=True, fusable=True),
    Opcode("shf", bits.decode_funnel, ALU, pure=True),
    Opcode("mov", bits.decode_mov, ALU, pure=True, fusable=True),
    Opcode("setp", bits.decode_setp, ALU, pure=True, fusable=True),
    Opcode("set", bits.decode_set, ALU, pure=True),
    Opcode("selp", bits.decode_selp, ALU, pure=True, fusable=True),
    Opcode("slct", bits.decode_selp, ALU, pure=True),
    Opcode("cvt", bits.decode_cvt, ALU, pure=True, fusable=True),
    Opcode("bfe", bits.decode_bfe, ALU, pure=True),
    Opcode("bfi", bits.decode_bfi, ALU, pure=True),
    Opcode("lop3", bits.decode_lop3, ALU, pure=True),
    Opcode("prmt", bits.decode_prmt, ALU, pure=True),
    Opcode("copysign", bits.decode_copysign, ALU, pure=True),
    Opcode("testp", bits.decode_testp, ALU, pure=True),
    Opcode("cvta", memops.decode_cvta, ALU, pure=True),  # window arithmetic on an address, no access
    # memory
    Opcode("ld", memops.decode_ld, MEMORY, access="load"),
    Opcode("ldu", memops.decode_ld, MEMORY),
    Opcode("st", memops.decode_st, MEMORY, access="store"),
    Opcode("atom", memops.decode_atom, MEMORY),
    Opcode("red", memops.decode_atom, MEMORY),
    Opcode("cp", memops.decode_cp, MEMORY),  # cp.async
    # ordering and hints: no effect where every access completes at issue; fences all the same
    Opcode("membar", decode_nop, NOP),
    Opcode("fence", decode_nop, NOP),
    Opcode("prefetch", decode_nop, NOP),
    Opcode("prefetchu", decode_nop, NOP),
    Opcode("pmevent", decode_nop, NOP),
    Opcode("nanosleep", decode_nop, NOP),  # __nanosleep: a wait of some time, with nothing to compute
    # warp-wide
    Opcode("shfl", warp.decode_shfl, WARP),
    Opcode("vote", warp.decode_vote, WARP),
    Opcode("redux", warp.decode_redux, WARP),
    Opcode("match", warp.decode_match, WARP),
    Opcode("activemask", warp.decode_activemask, WARP),
    # block-wide
    Opcode("bar", barrier.decode_bar, BARRIER),
    Opcode("barrier", barrier.decode_bar, BARRIER),
    # tensor cores
    Opcode("wmma", wmma.decode_wmma, TENSOR),
    # control flow
    Opcode("bra", None, CONTROL, ends_block=True, branch=True),
    Opcode("exit", None, CONTROL, ends_block=True, exits=True),
    Opcode("ret", None, CONTROL, ends_block=True, exits=True),
    Opcode("trap", None, CONTROL, ends_block=True, exits=True, refused="the kernel trapped"),
    Opcode("brx", None, CONTROL, ends_block=True, refused=_NOT_MODELLED),
    Opcode("call", calls.decode_call, CONTROL, ends_block=True, calls=True),
    Opcode("brkpt", None, CONTROL, refused=_NOT_MODELLED),
    # textures and surfaces: refused where a thread reaches one
    *(Opcode(name, None, CONTROL, refused="textures and surfaces are not modelled")
      for name in ("tex", "tld4", "txq", "suld", "sust", "sured", "suq")),
)

OPCODES: dict[str, Opcode] = {r.name: r for r in ROWS}


def decode(ins: Instruction, pc: int, ctx: DecodeContext) -> Op | None:
    """The closure for `ins` at `pc`; None for the branches and exits the run loop executes.
    An opcode with no row, or a form its decoder does not model, raises UnsupportedInstruction."""
    row = OPCODES.get(ins.base)
    if row is None:
        raise unsupported(ins)
    if ins.unread and not row.refused:
        raise unsupported(ins, f"cannot read its operands: {ins.unread}")
    if row.refused:
        err = unsupported(ins, row.refused) if ins.base != "trap" else SimulationError(
            f"the kernel executed `trap` at {ins.where()} (__trap(), or a check the compiler made one): on the GPU the "
            f"launch ends there with an error (cudaErrorLaunchFailure), so there is nothing after it to simulate")

        def refuse(b: Batch, m: Mask) -> None:
            raise err
        return refuse
    if row.decode is None:
        return None
    if "b128" in ins.types:  # registers hold at most 64 bits: refused rather than truncated
        raise unsupported(ins, ".b128 values are not modelled")
    try:
        return row.decode(ins, pc, ctx)
    except UnsupportedInstruction:
        raise
    except (KeyError, IndexError, ValueError, TypeError) as e:
        raise unsupported(ins, str(e)) from None
