"""Shared-memory wavefronts of one warp's 4-, 8- and 16-byte loads and stores, lane pattern by lane
pattern, as Nsight Compute counts them on the GPU: the measurements the bank rule of
analysis/models/banks.py is checked against (tests/test_banks_measured.py reads the results).

    OUT=/some/dir ncu --csv --page raw --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,\
l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum,smsp__inst_executed_op_shared_ld.sum,\
smsp__inst_executed_op_shared_st.sum python3 tests/banks_gpu.py > $OUT/ncu.csv
    python3 tests/banks_gpu.py --collect $OUT/ncu.csv > tests/banks_h100.json

One block of one warp per launch: each active lane reads (or writes) REPS times, through inline PTX
(ld/st.volatile.shared.v4/.v2/.f32, so ptxas can neither merge nor drop them), the shared byte
address its pattern gives it; a lane whose address is -1 sits out. The kernel's only other shared
accesses are none (the loads read what was never written: only the addresses matter). Needs CuPy.
"""
from __future__ import annotations

import csv
import json
import sys

import numpy as np

REPS = 64
SHARED_BYTES = 16384
SIZES = (4, 8, 16)
_PTX = {4: ("f32", "%0", 1), 8: ("v2.f32", "{%0, %1}", 2), 16: ("v4.f32", "{%0, %1, %2, %3}", 4)}


def source() -> str:
    """The CUDA source of the load and store kernels of every access width."""
    out = [f"#define REPS {REPS}\n"]
    for size, (ty, regs, n) in _PTX.items():
        decl = ", ".join(f"v{i}" for i in range(n))
        outs = ", ".join(f'"=f"(v{i})' for i in range(n))
        ins = ", ".join(f'"f"(v{i})' for i in range(n))
        sregs = "%1" if n == 1 else "{" + ", ".join(f"%{i + 1}" for i in range(n)) + "}"
        out.append(f'''
extern "C" __global__ void ld{size}(const int* addr, float* out) {{
    __shared__ __align__(16) float s[{SHARED_BYTES // 4}];
    int a = addr[threadIdx.x];
    float acc = 0.f;
    if (a >= 0) {{
        unsigned p = (unsigned)__cvta_generic_to_shared(s) + a;
        for (int r = 0; r < REPS; r++) {{
            float {decl};
            asm volatile("ld.volatile.shared.{ty} {regs}, [%{n}];" : {outs} : "r"(p));
            acc += {" + ".join(f"v{i}" for i in range(n))};
        }}
    }}
    out[threadIdx.x] = acc;
}}
extern "C" __global__ void st{size}(const int* addr, float* out) {{
    __shared__ __align__(16) float s[{SHARED_BYTES // 4}];
    int a = addr[threadIdx.x];
    if (a >= 0) {{
        unsigned p = (unsigned)__cvta_generic_to_shared(s) + a;
        float {", ".join(f"v{i} = out[{i}]" for i in range(n))};
        for (int r = 0; r < REPS; r++) {{
            asm volatile("st.volatile.shared.{ty} [%0], {sregs};" :: "r"(p), {ins} : "memory");
        }}
    }}
}}
''')
    return "".join(out)


def patterns(seed: int = 20261128) -> list[dict]:
    """Every (width, name, 32 byte addresses or -1) the run measures: the shapes kernels use (strides,
    broadcasts, rows read by two quarters alike or permuted, the float4 tiles of GEMMs) and random ones."""
    rng = np.random.default_rng(seed)
    lane = np.arange(32)
    pats: list[tuple[int, str, np.ndarray]] = []
    for size in SIZES:
        unit = size
        for s in (1, 2, 3, 4, 8, 16, 17, 32, 33):
            pats.append((size, f"stride {s}", lane * s * unit))
        pats.append((size, "broadcast", np.zeros(32, int)))
        pats.append((size, "lane % 8", (lane % 8) * unit))
        pats.append((size, "lane % 16", (lane % 16) * unit))
        pats.append((size, "lane / 8", (lane // 8) * unit))
        pats.append((size, "lane / 2", (lane // 2) * unit))
        pats.append((size, "reversed", (31 - lane) * unit))
        for active, name in ((lane < 8, "lanes 0-7"), (lane < 16, "lanes 0-15"), (lane % 2 == 0, "even lanes"),
                             (lane >= 24, "lanes 24-31"), ((lane // 8) % 2 == 1, "quarters 1 and 3")):
            pats.append((size, f"stride 1, {name}", np.where(active, lane * unit, -1)))
        for k in range(4):
            pats.append((size, f"random in 1 KB #{k}", rng.integers(0, 1024 // unit, 32) * unit))
            pats.append((size, f"random in 8 KB #{k}", rng.integers(0, 8192 // unit, 32) * unit))
            pats.append((size, f"random permutation #{k}", rng.permutation(32) * unit))
    # 16-byte shapes that decide the quarter-warp rule
    f4 = 16
    for k in range(8):  # llm.c matmul_forward_kernel4: tx = lane % 16, ty = lane / 16, columns rotated by k
        tx, ty = lane % 16, lane // 16
        pats.append((16, f"llmc rhs k={k}", ((8 * ty) * 32 + 4 * ((tx + k) % 8)) * 4))
        pats.append((16, f"llmc lhs k={k}", ((8 * tx) * 32 + 4 * ((tx + k) % 8)) * 4))
    # two groups of lanes (quarters of a half-warp for 16 bytes, the two half-warps for 8), the second group
    # silent or reading a set of its own: a distinct chunks each, the sets offset by `shift` chunks (0: the same
    # set; the row's width: the same banks, other words), the chunks dealt to lanes in turn or in runs
    for size, group, row in ((16, 8, 8), (8, 16, 16)):
        g = np.arange(group)
        for na in (1, 2, 4, group):
            for nb in (0, 1, 2, 4, group):
                for shift in ((0,) if nb == 0 else (0, 1, 2, na, row, row + 1)):
                    for dealt in (("turn", "runs") if na == nb and 1 < na < group else ("turn",)):
                        first = g % na if dealt == "turn" else g // (group // na)
                        second = (g % nb if dealt == "turn" else g // (group // nb)) + shift if nb else -np.ones(group, int)
                        idx = np.concatenate([first, second] + [-np.ones(group, int)] * (32 // group - 2))
                        pats.append((size, f"groups {na} / {nb or '-'} chunks, shift {shift}, {dealt}",
                                     np.where(idx >= 0, idx * size, -1)))
    for k in range(12):  # quarters drawn from a few float4s of two rows, so copies and overlaps are common
        pats.append((16, f"random few #{k}", rng.choice(rng.integers(0, 16, 6), 32) * f4))
        pats.append((8, f"random few #{k}", rng.choice(rng.integers(0, 32, 6), 32) * 8))
    for k in range(6):
        half = rng.integers(0, 32, 16)
        pats.append((8, f"half 1 permutes half 0 #{k}", np.concatenate([half, rng.permutation(half)]) * 8))
        quarter = rng.integers(0, 16, 8)
        pats.append((16, f"quarter 1 permutes quarter 0 #{k}",
                     np.concatenate([quarter, rng.permutation(quarter), quarter + 16, rng.permutation(quarter)]) * f4))
    return [{"size": size, "name": name, "addr": [int(a) for a in addrs]} for size, name, addrs in pats]


def run() -> None:
    import cupy as cp

    mod = cp.RawModule(code=source(), options=("-arch=sm_90",))
    out = cp.zeros(32, cp.float32)
    for p in patterns():
        for op in ("ld", "st"):
            fn = mod.get_function(f"{op}{p['size']}")
            fn((1,), (32,), (cp.asarray(np.array(p["addr"], np.int32)), out))
    cp.cuda.runtime.deviceSynchronize()
    print(f"{len(patterns()) * 2} launches", file=sys.stderr)


def collect(csv_path: str) -> dict:
    """The ncu CSV of `run` as wavefronts per request for each pattern, load and store, beside what the
    launches were."""
    rows = [r for r in csv.DictReader(line for line in open(csv_path) if line.startswith('"'))
            if r.get("ID", "").isdigit()]
    pats = patterns()
    if len(rows) != 2 * len(pats):
        raise SystemExit(f"{csv_path}: {len(rows)} profiled launches, {2 * len(pats)} expected")
    num = lambda r, m: float(r[m].replace(",", ""))  # noqa: E731
    out = []
    for i, p in enumerate(pats):
        rec = dict(p)
        for j, op in enumerate(("ld", "st")):
            r = rows[2 * i + j]
            inst = num(r, f"smsp__inst_executed_op_shared_{op}.sum")
            wav = num(r, f"l1tex__data_pipe_lsu_wavefronts_mem_shared_op_{op}.sum")
            rec[op] = {"instructions": inst, "wavefronts": wav, "per_request": wav / inst if inst else None}
        out.append(rec)
    return {"what": "one warp, REPS shared accesses per active lane, by lane pattern (tests/banks_gpu.py)",
            "reps": REPS, "patterns": out}


if __name__ == "__main__":
    if sys.argv[1:2] == ["--collect"]:
        json.dump(collect(sys.argv[2]), sys.stdout, indent=1)
    else:
        run()
