"""Global atomics at the L2's atomic units: what one warp's atomic costs the units it reaches.

Lanes of a warp on one word do not combine in hardware (each is its own read-modify-write; ptxas
combines them only where it can prove the address uniform, electing a leader with VOTEU/UFLO), and
a warp's lanes on one line travel together. So a warp's global atomic costs:

* the unit that holds each `chunk_bytes` of the address space: `line_ns` per 128-byte line of the
  request in that chunk, `lane_ns` per lane, and `repeat_ns` per lane beyond the first on a word;
* each line it touches: `same_line_ns`, plus `same_line_lane_ns` per lane on it and
  `same_line_repeat_ns` per lane beyond the first on a word (one line's updates follow one another,
  whichever unit holds it; a request of one lane, as a leader-elected atomic sends, costs the line
  less than one of 32).

and the L2 as a whole `l2_op_ns` per sector operation: a warp's lanes on one sector update it in one
operation, but a lane on a word another lane already updates is an operation of its own (as ncu
counts the L2's reduction sectors).

A unit's time is shared by every SM whose blocks reach it at the same time (`sharing`): all of them
for a table every block updates, a few for a block's own words. The eight constants are fitted, by
`python -m analysis.atomics`, to the nineteen address patterns kernels.microbench measured
(atomic_patterns: three lane patterns over tables of 32 to 4M words; atomic_global_same: one word,
which ptxas sends from one elected lane per warp) and kept in cudasim/gpus.json; the fit's error on
each pattern is printed and tested.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from cudasim import progress
from cudasim.console import Parser, fail

LINE_SHIFT = 7
MODES = {"lane": 0, "warp": 1, "line": 2}  # kernels/microbench.cu atomic_global_pattern's modes
FIT_WORDS = (32, 256, 1024, 8192, 65536, 4194304)  # the large tables: the L2's rate of sector operations
SECTOR_SHIFT = 5
FIT_CHUNKS = (512, 1024, 2048)
NAMES = ("atomic_line_ns", "atomic_lane_ns", "atomic_repeat_ns", "atomic_same_line_ns", "atomic_same_line_lane_ns",
         "atomic_same_line_repeat_ns", "atomic_l2_op_ns")


@dataclass(frozen=True)
class Units:
    """The L2's atomic units (cudasim/gpus.json: atomic_*)."""

    chunk_bytes: int
    line_ns: float
    lane_ns: float
    repeat_ns: float
    same_line_ns: float
    same_line_lane_ns: float
    same_line_repeat_ns: float
    l2_op_ns: float  # the whole L2's time per sector operation

    @classmethod
    def of(cls, rates: dict[str, float]) -> "Units":
        """From a GPU row's timing rates by name (analysis.models.timing.rates)."""
        return cls(int(rates["atomic_chunk_bytes"]), *(float(rates[k]) for k in NAMES))


def features(addrs: np.ndarray, chunk_bytes: int) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """What one warp's atomic with its active lanes at byte addresses `addrs` asks of each unit: per chunk
    (lines, lanes, repeated lanes), per line (1, lanes, repeated lanes); a chunk's unit is 2 x chunk, a line's
    2 x line + 1."""
    a = np.sort(np.asarray(addrs, np.int64))
    if a.size == 0:
        return {}, {}
    lines = a >> LINE_SHIFT
    chunks = a // chunk_bytes
    repeat = np.zeros(a.size, np.int64)
    repeat[1:] = a[1:] == a[:-1]
    new_line = np.ones(a.size, np.int64)
    new_line[1:] = lines[1:] != lines[:-1]
    per_chunk, per_line = {}, {}
    for c in np.unique(chunks):
        m = chunks == c
        per_chunk[int(c) * 2] = np.array([new_line[m].sum(), m.sum(), repeat[m].sum()], float)
    for ln in np.unique(lines):
        m = lines == ln
        per_line[int(ln) * 2 + 1] = np.array([1.0, m.sum(), repeat[m].sum()], float)
    return per_chunk, per_line


def l2_ops(addrs: np.ndarray) -> int:
    """The L2's sector operations for one warp's atomic with its active lanes at byte addresses `addrs`:
    one per sector, and one more per lane on a word an earlier lane updates."""
    a = np.sort(np.asarray(addrs, np.int64))
    if a.size == 0:
        return 0
    return int(np.unique(a >> SECTOR_SHIFT).size + np.count_nonzero(a[1:] == a[:-1]))


def costs(addrs: np.ndarray, u: Units) -> list[tuple[int, float]]:
    """(unit, ns) for one warp's global atomic with its active lanes at byte addresses `addrs`."""
    per_chunk, per_line = features(addrs, u.chunk_bytes)
    pc = np.array([u.line_ns, u.lane_ns, u.repeat_ns])
    pl = np.array([u.same_line_ns, u.same_line_lane_ns, u.same_line_repeat_ns])
    return [(k, float(f @ pc)) for k, f in per_chunk.items()] + [(k, float(f @ pl)) for k, f in per_line.items()]


def reached_units(a: np.ndarray, chunk_bytes: int) -> tuple[np.ndarray, np.ndarray]:
    """The chunk units and the line units byte addresses `a` reach (the keys `costs` gives them)."""
    return np.unique(a // chunk_bytes) * 2, np.unique(a >> LINE_SHIFT) * 2 + 1


def _advance(words: dict[int, np.ndarray]) -> float:
    """Bytes the blocks' lowest atomic address moves per block, where it moves steadily with the block
    index (every step between sampled blocks forward, within a factor of two of one another); else 0."""
    lo = sorted((b, int(a.min())) for b, a in words.items() if a.size)
    steps = [(y - x) / (j - i) for (i, x), (j, y) in zip(lo, lo[1:])]
    if not steps or min(steps) <= 0 or max(steps) > 2 * min(steps):
        return 0.0
    return float(np.median(steps))


def sharing(words: dict[int, np.ndarray], block: int, u: Units, window: int) -> dict[int, float]:
    """For each unit `block`'s atomics reach, how many blocks reach it while `block` runs (`window` blocks
    run on the chip at once). `words`: each sampled block's global atomic byte addresses.

    A block at large in the window reaches a unit as often as the other sampled blocks do (all of them
    for a table every block updates; two of them at least, since one may by chance), or as a block with
    as many units spread over the sampled blocks' footprint would. Where each block's addresses follow
    the last's (rows sorted, a block's own words), the blocks whose addresses overlap a unit's span run
    together on different SMs."""
    rep = np.asarray(words.get(block, ()), np.int64)
    others = [np.asarray(a, np.int64) for b, a in words.items() if b != block and len(a)]
    if rep.size == 0 or not others:
        return {}
    everything = np.concatenate([rep, *others])
    lo, hi = int(everything.min()), int(everything.max())
    seen = [set(np.concatenate(reached_units(a, u.chunk_bytes)).tolist()) for a in others]
    step = _advance(words)
    extent = float(rep.max() - rep.min() + 4)
    out: dict[int, float] = {}
    for span, units in zip((u.chunk_bytes, 1 << LINE_SHIFT), reached_units(rep, u.chunk_bytes)):
        footprint = hi // span - lo // span + 1
        spread = min(1.0, len(units) / footprint)
        run = min(float(window), (span + extent) / step) if step > 0 else 1.0
        for k in units.tolist():
            hits = sum(k in s for s in seen)  # one other block's by chance is no evidence where there are more
            p = max(hits / len(seen) if hits >= min(2, len(seen)) else 0.0, spread)
            out[k] = max(1.0 + (window - 1) * p, run)
    return out


def _fmix32(h: np.ndarray) -> np.ndarray:
    h = h.astype(np.uint64) & 0xFFFFFFFF
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & 0xFFFFFFFF
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & 0xFFFFFFFF
    return h ^ (h >> 16)


def pattern_requests(mode: int, words: int, warps: int = 256, iters: int = 8) -> list[np.ndarray]:
    """The byte offsets each warp's lanes hit, request by request, as atomic_global_pattern computes them."""
    lane = np.arange(32, dtype=np.uint64)
    out = []
    for w in range(warps):
        key = w * 32 + lane if mode == 0 else np.full(32, w, np.uint64)
        for i in range(iters):
            h = _fmix32((key * 0x9E3779B9 + i) & 0xFFFFFFFF)
            word = ((h & (words - 1)) & ~np.uint64(31)) | lane if mode == 2 else h & (words - 1)
            out.append((word * 4).astype(np.int64))
    return out


def _loads(requests: list[np.ndarray], chunk_bytes: int) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Each unit's summed features over `requests` (chunk units, line units), the request count and the L2's
    sector operations: a unit's time is linear in the constants, so a fit needs these sums only."""
    cs: dict[int, np.ndarray] = {}
    ls: dict[int, np.ndarray] = {}
    ops = 0
    for r in requests:
        ops += l2_ops(r)
        c, ln = features(r, chunk_bytes)
        for k, f in c.items():
            cs[k] = cs.get(k, 0.0) + f
        for k, f in ln.items():
            ls[k] = ls.get(k, 0.0) + f
    return np.array(list(cs.values())), np.array(list(ls.values())), len(requests), ops


def _rate(loads: tuple[np.ndarray, np.ndarray, int, int], p: np.ndarray) -> float:
    """Lane atomics per ns (= G/s) when the busiest unit, or the L2 as a whole, sets the pace."""
    cs, ls, n, ops = loads
    return 32 * n / max((cs @ p[:3]).max(), (ls @ p[3:6]).max(), ops * p[6])


def predicted_rate(requests: list[np.ndarray], u: Units) -> float:
    """Lane atomics per second (G) when every request costs its units and the busiest unit sets the pace."""
    return _rate(_loads(requests, u.chunk_bytes), np.array([getattr(u, n[7:]) for n in NAMES]))


def _cases(figures: dict) -> list[tuple[str, list[np.ndarray], float]]:
    out = [(f"atomic_{m}_{w}", pattern_requests(mode, w), float(figures[f"atomic_{m}_{w}"]["value"]))
           for m, mode in MODES.items() for w in FIT_WORDS if f"atomic_{m}_{w}" in figures]
    if "atomic_global_same" in figures:  # every thread on one word: ptxas elects one lane per warp
        out.append(("atomic_global_same", [np.zeros(1, np.int64)] * 256, float(figures["atomic_global_same"]["value"])))
    return out


def errors(figures: dict, u: Units) -> dict[str, float]:
    """Each fitted pattern's predicted / measured rate - 1."""
    return {name: predicted_rate(reqs, u) / meas - 1 for name, reqs, meas in _cases(figures)}


MAX_ROUNDS = 32_000  # about a minute of search (8,000: 14 s)


def fit(figures: dict, rounds: int = 8000, seed: int = 0) -> tuple[Units, float]:
    """The units that minimise the rms log error over the measured patterns (a seeded random search
    per chunk size), and that error."""
    cases = _cases(figures)
    if len(cases) < 8:
        raise ValueError("too few atomic_patterns figures to fit (run python -m kernels.microbench --only atomic_patterns)")
    rng = np.random.default_rng(seed)
    best: tuple[float, Units] | None = None
    for chunk in progress.track(FIT_CHUNKS, "fitting the L2 atomic units", unit="chunk sizes"):
        loads = [(_loads(r, chunk), m) for _, r, m in cases]

        def err(p: np.ndarray) -> float:
            return float(np.sqrt(np.mean([np.log(_rate(ld, p) / m) ** 2 for ld, m in loads])))
        p = np.array([1.0, 0.05, 0.35, 2.0, 0.05, 0.5, 0.012])
        e, step = err(p), 0.5
        for i in range(rounds):
            q = p * np.exp(rng.normal(0, step, p.size))
            eq = err(q)
            if eq < e:
                p, e = q, eq
            if i % (rounds // 4) == rounds // 4 - 1:
                step /= 2
        if best is None or e < best[0]:
            best = (e, Units(chunk, *(float(x) for x in p)))
    return best[1], best[0]


def main(argv: list[str] | None = None) -> int:
    ap = Parser(prog="python -m analysis.atomics", description=__doc__)
    ap.add_argument("--measured", default=str(Path(__file__).resolve().parent.parent / "kernels" / "results"
                                              / "microbench_h100.json"), help="kernels.microbench's JSON")
    ap.add_argument("--rounds", type=int, default=8000, help="random-search rounds per chunk size")
    a = ap.parse_args(argv)
    if not 4 <= a.rounds <= MAX_ROUNDS:
        fail(f"--rounds {a.rounds}: 4 to {MAX_ROUNDS:,} (the search halves its step every quarter of them; the "
             f"default 8,000 takes about 14 s)")
    if not Path(a.measured).is_file():
        fail(f"--measured {a.measured}: no such file (python -m kernels.microbench --out FILE writes one)")
    try:
        figures = json.loads(Path(a.measured).read_text())["figures"]
        u, e = fit(figures, a.rounds)
    except (KeyError, ValueError) as ex:
        fail(f"--measured {a.measured}: not kernels.microbench's figures ({type(ex).__name__}: {ex})")
    print(f"chunk {u.chunk_bytes} B; " + ", ".join(f"{n} {getattr(u, n[7:]):.4g}" for n in NAMES)
          + f"; rms log error {e:.3f}")
    for name, err in errors(figures, u).items():
        print(f"  {name:22s} predicted/measured - 1: {err:+.0%}")
    return 0


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
