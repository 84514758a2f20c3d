"""Basic blocks, the control-flow graph, and reconvergence points.

A divergent branch reconverges at its immediate post-dominator (IPDOM): the first block
every path from the branch must pass through. Post-dominators are dominators of the reversed
graph rooted at a virtual exit node that every exiting block flows into. Which instructions
end a block, branch or exit is read from the opcode table.
"""
from __future__ import annotations

from dataclasses import dataclass

import networkx as nx

from .opcodes import OPCODES
from .ptx import Function, Instruction

EXIT = -1  # "reconverges only at kernel exit"
_VIRTUAL_EXIT = "exit"


@dataclass
class Block:
    start: int  # index of the first instruction
    end: int  # one past the last instruction

    @property
    def last(self) -> int:
        return self.end - 1


@dataclass
class CFG:
    blocks: list[Block]
    graph: nx.DiGraph  # nodes: block index and "exit"
    block_of: list[int]  # instruction index -> block index
    ipdom: dict[int, int]  # branch instruction index -> reconvergence instruction index (or EXIT)


def _control(ins: Instruction) -> tuple[bool, bool, bool]:
    """(ends its block, branches, exits), from the opcode table; an opcode with no row is none of
    them here (decode refuses it)."""
    r = OPCODES.get(ins.base)
    return (r.ends_block, r.branch, r.exits) if r is not None else (False, False, False)


def is_terminator(ins: Instruction) -> bool:
    return _control(ins)[0]


def branch_target(fn: Function, ins: Instruction) -> int:
    name = ins.operands[0].name
    if name not in fn.labels:
        raise KeyError(f"{ins.where()}: branch to unknown label {name!r}")
    return fn.labels[name]


def build_cfg(fn: Function) -> CFG:
    """Split `fn` into basic blocks, connect them, and find each branch's IPDOM."""
    body = fn.body
    n = len(body)
    leaders = {0} | {i for i in fn.labels.values() if i < n}
    for i, ins in enumerate(body):
        if is_terminator(ins) and i + 1 < n:
            leaders.add(i + 1)
    starts = sorted(leaders)
    blocks = [Block(s, e) for s, e in zip(starts, starts[1:] + [n]) if s < e]
    block_of = [0] * n
    for bi, b in enumerate(blocks):
        for i in range(b.start, b.end):
            block_of[i] = bi
    g = nx.DiGraph()
    g.add_nodes_from(range(len(blocks)))
    g.add_node(_VIRTUAL_EXIT)
    for bi, b in enumerate(blocks):
        ins = body[b.last]
        _, branch, exits = _control(ins)
        falls = bi + 1 < len(blocks)
        if branch:
            g.add_edge(bi, block_of[branch_target(fn, ins)])
            if ins.guard is not None and falls:
                g.add_edge(bi, bi + 1)
            elif ins.guard is not None:
                g.add_edge(bi, _VIRTUAL_EXIT)
        elif exits:
            g.add_edge(bi, _VIRTUAL_EXIT)
            if ins.guard is not None:
                g.add_edge(bi, bi + 1 if falls else _VIRTUAL_EXIT)
        elif falls:
            g.add_edge(bi, bi + 1)
        else:
            g.add_edge(bi, _VIRTUAL_EXIT)
    ipdoms = nx.immediate_dominators(g.reverse(copy=False), _VIRTUAL_EXIT)
    ipdom: dict[int, int] = {}
    for bi, b in enumerate(blocks):
        ins = body[b.last]
        _, branch, exits = _control(ins)
        if (branch or exits) and ins.guard is not None:
            p = ipdoms.get(bi, _VIRTUAL_EXIT)  # blocks that never reach an exit (endless loops)
            ipdom[b.last] = EXIT if p == _VIRTUAL_EXIT else blocks[p].start
    return CFG(blocks, g, block_of, ipdom)
