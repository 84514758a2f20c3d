"""The SASS basic blocks of a kernel: their edges, loops and convergence barriers (what analysis.sassflow
walks)."""
from __future__ import annotations

import re
from dataclasses import dataclass

import networkx as nx

from .sass import Listing

TARGET = re.compile(r"`\((\.L_x_\d+)\)")
_ENDS = {"BRA", "EXIT", "RET", "BRX", "JMP", "JMX"}


@dataclass
class SassGraph:
    """The SASS basic blocks of a kernel, their edges, and each block's loop depth."""

    listing: Listing
    blocks: list[tuple[int, int]]  # (first, one past last) instruction index
    graph: nx.DiGraph  # block -> block
    depth: dict[int, int]  # loops containing the block
    loops: list[tuple[int, set[int]]]  # (header, body) of each back edge's natural loop
    exits: set[int]  # blocks that end in an EXIT (guarded or not)
    syncs: set[int]  # blocks that begin with a BSYNC: a convergence barrier's wait
    opened: dict[int, list[int]]  # such a block -> the blocks whose BSSY sets its barrier up


def loop_depths(g: nx.DiGraph, root) -> tuple[dict, list[tuple[object, set]]]:
    """Loop depth of each node, and the natural loops (header, body) of the back edges u -> v
    (v dominates u) among the nodes reachable from `root`."""
    reach = nx.descendants(g, root) | {root}
    h = g.subgraph(reach)
    idom = nx.immediate_dominators(h, root)

    def dominates(a, b) -> bool:
        while True:
            if a == b:
                return True
            up = idom.get(b, b)
            if up == b:
                return False
            b = up

    depth = {n: 0 for n in g.nodes}
    loops = []
    for u, v in h.edges:
        if dominates(v, u):
            body, todo = {u, v}, [u]
            while todo:
                x = todo.pop()
                if x != v:
                    for p in h.predecessors(x):
                        if p not in body:
                            body.add(p)
                            todo.append(p)
            loops.append((v, body))
            for x in body:
                depth[x] += 1
    return depth, loops


def sass_graph(lst: Listing) -> SassGraph:
    """Basic blocks of a SASS listing: leaders are labels and instructions after a branch or exit;
    a BRA.DIV (the divergent-warp fallback of a shuffle or vote) is taken as not taken."""
    ins = lst.instructions
    n = len(ins)
    leaders = {0} | {i for i in lst.labels.values() if i < n}
    leaders |= {i + 1 for i, x in enumerate(ins) if x.op in _ENDS and i + 1 < n}
    starts = sorted(leaders)
    blocks = [(s, e) for s, e in zip(starts, starts[1:] + [n]) if s < e]
    block_of = {i: bi for bi, (s, e) in enumerate(blocks) for i in range(s, e)}
    g = nx.DiGraph()
    g.add_nodes_from(range(len(blocks)))
    exits = set()
    for bi, (s, e) in enumerate(blocks):
        last = ins[e - 1]
        falls = bi + 1 < len(blocks)
        if last.op == "BRA":
            t = TARGET.search(last.operands)
            divergent = "DIV" in last.mods
            if t and not divergent and lst.labels.get(t.group(1), n) < n:
                g.add_edge(bi, block_of[lst.labels[t.group(1)]])
            if (last.guard or divergent) and falls:
                g.add_edge(bi, bi + 1)
        elif last.op in ("EXIT", "RET"):
            exits.add(bi)
            if last.guard and falls:
                g.add_edge(bi, bi + 1)
        elif falls:
            g.add_edge(bi, bi + 1)
    depth, loops = loop_depths(g, 0)
    syncs = {bi for bi, (s, _) in enumerate(blocks) if ins[s].op == "BSYNC"}
    opened: dict[int, list[int]] = {}
    for i, x in enumerate(ins):
        t = TARGET.search(x.operands) if x.op == "BSSY" else None
        j = lst.labels.get(t.group(1), n) if t else 0
        if 0 < j <= n:  # the label is where the warp goes on: the BSYNC is the instruction before it
            opened.setdefault(block_of[j - 1 if ins[j - 1].op == "BSYNC" else min(j, n - 1)], []).append(block_of[i])
    return SassGraph(lst, blocks, g, depth, loops, exits, syncs, opened)
