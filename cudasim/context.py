"""What a decoder is given: the program's names and the services its closures call at run time.

Decoders see this and the instruction, never the executor: register types and symbol
addresses to build operand readers, the layout for bounds, the checker and the trace
recorder for memory accesses, and which pcs are unguarded exits (a barrier counts lanes
parked there as exited).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable

from .hazards import Hazards
from .operands import Clock, Op
from .ptx import Instruction
from .spaces import Layout
from .trace import Recorder


@dataclass(frozen=True)
class DecodeContext:
    """One per program, shared by all its decoders."""

    reg_types: Mapping[str, str]
    layout: Layout
    clock: Clock
    hazards: Hazards
    recorder: Recorder
    exits: frozenset[int]  # pcs of unguarded exit/ret instructions
    linkage: Any = None  # cudasim.calls.Linkage of an entry that calls functions
    runtime: Any = None  # cudasim.calls.Runtime: printf's output, the device heap

    def symbol_address(self, name: str) -> int:
        return self.layout.symbol_address(name)


Decoder = Callable[[Instruction, int, DecodeContext], Op]  # (instruction, its pc, context) -> closure
