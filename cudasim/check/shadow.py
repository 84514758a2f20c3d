"""Shadow memory: per 4-byte word, who last wrote it and who read it since, for the race check.

Per word: the last write (thread, time, pc, bytes, strong or not); the strong writes (atomics,
volatile or release stores) since the last plain write, as their first writer and the widest
relation among the writers (one thread, one warp, one block, several blocks); and the reads
since the last plain write likewise, as the first and the latest reader. A conflict is then
checked against the named threads; where only the relation is known ("several blocks read
it") and the named ones are ordered, nothing is reported: the checker says what it knows.

Bytes written are kept per byte where initialisation matters (`init`), so a read of a byte
that no one wrote is found even inside a word others wrote.

Thread ids are global (block * lanes per block + thread) and times are the checker's event
counter, both int32: a launch must have fewer than 2^31 threads and checked events.
"""
from __future__ import annotations

import numpy as np

NONE = -1
ONE, WARP, BLOCK, GRID = 1, 2, 3, 4  # the relation among the threads of a summary (0: empty)
BYTES = 0x0F  # flags: the bytes of the word an access covers
STRONG = 0x10  # flags: the access is strong (atomic, volatile, relaxed, acquire, release)
WEAK_ANY = 0x20  # read flags: at least one of the reads was plain


def same_block(a: np.ndarray, b: np.ndarray, lpb: int) -> np.ndarray:
    """Whether global thread ids `a` and `b` (not negative) are of one block."""
    return (a ^ b) < lpb if lpb & (lpb - 1) == 0 else a // lpb == b // lpb


def relation(a: np.ndarray, b: np.ndarray, lpb: int) -> np.ndarray:
    """ONE / WARP / BLOCK / GRID: how global thread ids `a` and `b` are related."""
    x = a ^ b
    return np.where(x == 0, ONE, np.where(x < 32, WARP, np.where(same_block(a, b, lpb), BLOCK, GRID))).astype(np.uint8)


class Shadow:
    """The race-check state of one memory of `nwords` words; `init` (bool per byte) where reads of
    bytes nobody wrote are checked, None where they are not (the initial contents are known good)."""

    def __init__(self, nwords: int, init: np.ndarray | None = None):
        i32 = np.int32
        self.nwords = nwords
        self.w_tid = np.full(nwords, NONE, i32)
        self.w_t = np.zeros(nwords, i32)
        self.w_pc = np.zeros(nwords, i32)
        self.w_fl = np.zeros(nwords, np.uint8)
        self.s_tid = np.full(nwords, NONE, i32)  # first strong writer since the last plain write
        self.s_t = np.zeros(nwords, i32)
        self.s_pc = np.zeros(nwords, i32)
        self.s_rel = np.zeros(nwords, np.uint8)  # relation among the strong writers (0: none)
        self.r1_tid = np.full(nwords, NONE, i32)  # first reader since the last plain write
        self.r1_t = np.zeros(nwords, i32)
        self.r1_pc = np.zeros(nwords, i32)
        self.r2_tid = np.full(nwords, NONE, i32)  # latest reader
        self.r2_t = np.zeros(nwords, i32)
        self.r2_pc = np.zeros(nwords, i32)
        self.r_rel = np.zeros(nwords, np.uint8)  # relation among the readers (0: none)
        self.r_fl = np.zeros(nwords, np.uint8)  # bytes read | WEAK_ANY
        self.init = init
        self.log: list[tuple] = []  # reads not yet folded into r1/r2/r_rel/r_fl: (words, gids, time, pc, flags)
        self.logged = 0  # words in the log
        self.all_init = init is None  # every byte written: reads need no init check

    @staticmethod
    def nbytes_per_word() -> int:
        return 4 * 13 + 4  # what one word of shadow costs, for the memory budget
