"""The shared-memory checker: races between warps and reads of words no thread has written.

Per 4-byte word of a batch's shared memory, a stamp (barrier epoch << 32 | warp) of the last
write and of the current epoch's reads (warp MULTI: several warps). An access races when
another warp touched the word in the same epoch, i.e. with no barrier between; the warps of
one instruction are compared with one another too. Reads are only queued until the next
write or barrier: after a barrier that every block reached, the queue is dropped (nothing
before it can race with what follows).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from .ptx import Instruction
from .state import Batch

_MULTI = np.int64(0xFFFFFFFF)  # "several warps" in a read stamp


@dataclass
class Finding:
    """A verifier finding: a race, an uninitialized read; `count` accesses at this pc."""

    kind: str
    message: str
    pc: int
    line: int
    file: str
    count: int = 1

    def __str__(self) -> str:
        where = f"{self.file.rsplit('/', 1)[-1]}:{self.line}" if self.line else f"pc {self.pc}"
        times = f" ({self.count} accesses)" if self.count > 1 else ""
        return f"{self.kind} at {where}: {self.message}{times}"


def words(flat: np.ndarray, k: int) -> np.ndarray:
    """The 4-byte word indices an access of k words at byte offsets `flat` covers."""
    w0 = flat >> 2
    return (w0[:, None] + np.arange(k)).ravel() if k > 1 else w0


class Hazards:
    """The checker of one program: findings of a launch, stamps of the batch being run
    (`state` is None where the batch is not checked: no shared memory, or checks off)."""

    def __init__(self, body: Sequence[Instruction]):
        self.body = body
        self.findings: dict[tuple[str, int], Finding] = {}
        self.state: dict | None = None

    def start_launch(self) -> None:
        self.findings = {}

    def start_batch(self, b: Batch, check: bool) -> None:
        """Fresh stamps for batch `b`, or none where it is not checked."""
        self.state = None
        if check:
            nw = len(b.shared) // 4
            self.state = {"epoch": np.zeros(b.nb, np.int64), "w_stamp": np.full(nw, -1, np.int64),
                          "r_stamp": np.full(nw, -1, np.int64), "w_pc": np.zeros(nw, np.int32),
                          "reads": [], "dirty": False, "all_written": False}

    def finding(self, kind: str, ins: Instruction, pc: int, message: str, count: int) -> None:
        key = (kind, pc)
        f = self.findings.get(key)
        if f is None:
            self.findings[key] = Finding(kind, message, pc, ins.line, str(ins.file), count)
        else:
            f.count += count

    def check(self, b: Batch, pc: int, ins: Instruction, idx: np.ndarray, flat: np.ndarray, size: int,
              write: bool, atomic: bool = False) -> None:
        """Check one shared access of lanes `idx` at byte offsets `flat` of the batch's shared memory."""
        st = self.state
        if st is None or len(idx) == 0:
            return
        k = max(1, size // 4)
        if not write and not atomic:
            uninit, raw, wpc = self._read_hazards(b, idx, flat, k)
            if uninit:
                self.finding("uninitialized shared read", ins, pc,
                             "reads shared memory that no thread of the block has written", uninit)
            if raw:
                self.finding("shared-memory race", ins, pc,
                             f"reads a word that another warp wrote at line {self._line(wpc)} with no barrier "
                             f"between (read-after-write)", raw)
            st["reads"].append((flat, idx, k))
            return
        wd = words(flat, k)
        w_stamp = st["w_stamp"]
        mine = self._stamps(b, idx, k)
        st["dirty"] = True
        if atomic:
            w_stamp[wd] = mine
            return
        self._flush_reads(b)
        ep = mine >> 32
        ws = w_stamp[wd]
        waw = ((ws >> 32) == ep) & (ws != mine)
        rs = st["r_stamp"][wd]
        war = ((rs >> 32) == ep) & (rs != mine)
        if waw.any():
            wpc = int(st["w_pc"][wd[waw][0]])
            self.finding("shared-memory race", ins, pc, f"overwrites a word another warp wrote at line "
                         f"{self._line(wpc)} with no barrier between (write-after-write)", int(waw.sum()))
        if war.any():
            self.finding("shared-memory race", ins, pc, "overwrites a word another warp reads with no barrier "
                         "between (write-after-read)", int(war.sum()))
        w_stamp[wd] = mine
        dup = w_stamp[wd] != mine  # two warps wrote this word in this very instruction
        if dup.any():
            self.finding("shared-memory race", ins, pc, "two warps write the same word with no barrier between "
                         "(write-after-write)", int(dup.sum()))
        st["w_pc"][wd] = pc

    def _read_hazards(self, b: Batch, idx: np.ndarray, flat: np.ndarray, k: int) -> tuple[int, int, int]:
        """(never-written words, words another warp wrote since the barrier, the pc of one such write)."""
        st = self.state
        if st["all_written"] and not st["dirty"]:  # nothing written since a barrier every block passed
            return 0, 0, 0
        wd = words(flat, k)
        ws = np.take(st["w_stamp"], wd)
        uninit = int((ws < 0).sum()) if ws.size and ws.min() < 0 else 0
        raw = wpc = 0
        if st["dirty"]:
            mine = self._stamps(b, idx, k)
            hit = ((ws >> 32) == (mine >> 32)) & (ws != mine)
            raw = int(hit.sum())
            if raw:
                wpc = int(st["w_pc"][wd[hit][0]])
        return uninit, raw, wpc

    def check_group(self, b: Batch, pcs: list[int], idx: np.ndarray, lanes: np.ndarray, flat: np.ndarray,
                    size: int, write: bool) -> None:
        """`check` for a fused group (lanes, flat: `idx` and each member's offsets, one member
        after another): checked at once; member by member, in order, only where there is a finding."""
        st = self.state
        k = max(1, size // 4)
        if not write:
            uninit, raw, _ = self._read_hazards(b, lanes, flat, k)
            clean = not (uninit or raw)
            if clean:
                st["reads"].append((flat, lanes, k))
        else:
            self._flush_reads(b)
            wd = words(flat, k)
            mine = self._stamps(b, lanes, k)
            ep = mine >> 32
            w_stamp = st["w_stamp"]
            ws = w_stamp[wd]
            rs = st["r_stamp"][wd]
            clean = not ((((ws >> 32) == ep) & (ws != mine)).any() or (((rs >> 32) == ep) & (rs != mine)).any())
            if clean:
                w_stamp[wd] = mine
                if (w_stamp[wd] != mine).any():  # two warps write one word within the group
                    w_stamp[wd] = ws
                    clean = False
            if clean:
                st["dirty"] = True
                st["w_pc"][wd] = np.repeat(np.asarray(pcs, np.int32), len(wd) // len(pcs))
        if not clean:
            na = len(idx)
            for i, pc in enumerate(pcs):
                self.check(b, pc, self.body[pc], idx, flat[i * na:(i + 1) * na], size, write=write)

    def _stamps(self, b: Batch, idx: np.ndarray, k: int) -> np.ndarray:
        mine = (self.state["epoch"][b.lane_block[idx]] << 32) | (idx >> 5)
        return np.repeat(mine, k) if k > 1 else mine

    def _flush_reads(self, b: Batch) -> None:
        """Fold the queued reads into the per-word read stamps (MULTI where warps differ)."""
        st = self.state
        r_stamp = st["r_stamp"]
        for flat, idx, k in st["reads"]:
            wd = words(flat, k)
            mine = self._stamps(b, idx, k)
            multi = ((r_stamp[wd] >> 32) == (mine >> 32)) & (r_stamp[wd] != mine)
            r_stamp[wd] = mine
            multi |= r_stamp[wd] != mine  # another warp read it in this same instruction
            if multi.any():
                r_stamp[wd[multi]] = ((mine[multi] >> 32) << 32) | _MULTI
        st["reads"] = []

    def barrier(self, b: Batch, present: np.ndarray, alive: np.ndarray) -> None:
        """A barrier reached by `present` of the `alive` threads of each block: a new epoch."""
        st = self.state
        if (present == alive).all():  # every block passed: earlier accesses cannot race with later ones
            st["reads"] = []
            st["dirty"] = False
            if not st["all_written"]:  # stamps only ever go from -1 to a stamp: true once, true after
                st["all_written"] = bool((st["w_stamp"] >= 0).all())
        else:
            self._flush_reads(b)
        st["epoch"][present > 0] += 1

    def _line(self, pc: int) -> int:
        return self.body[pc].line if 0 <= pc < len(self.body) else 0
