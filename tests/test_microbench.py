"""The microbenchmarks (kernels/microbench.cu, kernels.microbench) and their committed H100 results.

CPU tests: the source compiles for sm_90 with NVRTC within its launch bounds and without
spills; the SASS holds the instructions each figure counts (where nvdisasm is installed), and
the timed loops of the latency, bytes-in-flight, shared-atomics, barrier, L2-store, L1-hit and
random-read kernels hold exactly those and their loop counter, each latency chain one dependent
chain; the empty-block kernels differ only in their shared memory; the host's replay of
atoms_random's bins matches the kernel run in cudasim; the whole program, and the newest groups
alone, run against a fake driver that checks every launch's arguments against the kernel's PTX
parameters; the committed results file has every figure with a unit and
a method. The GPU test skips with the reason where PyCUDA or a GPU is absent.
"""
import json
import math
import re
import subprocess
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from kernels import microbench
from needs import need_nvrtc

RESULTS = Path(__file__).resolve().parent.parent / "kernels" / "results" / "microbench_h100.json"
SRC = microbench.SOURCE.read_text()

# kernel -> most registers per thread its launch may use (2048 threads per SM, or as launched)
REG_LIMIT = {**{k: 32 for k in ("mem_read", "mem_write", "mem_copy", "fp32_ffma", "fp64_dfma", "int_imad",
                                "int_lop3", "sfu_rsqrt", "sfu_exp", "smem_read128",
                                "atomic_shared_distinct_add", "atomic_shared_same_add",
                                "atomic_shared_distinct_one", "atomic_shared_same_one")},
             **{f"smem_read32_stride{k}": 32 for k in (1, 2, 4, 8, 16, 32)},
             "wmma_tf32": 64, "wmma_fp64": 64, "mma_tf32_m16n8k8": 64, "mma_fp64_m16n8k16": 128,
             **{k: 32 for k in ("inflight_u1", "inflight_u2", "inflight_u4", "atoms_fixed", "atoms_random",
                                "barrier_ffma", "barrier_ffma_nobar")},
             "inflight_u8": 64, "deplat_bar": 64,
             **{k: 32 for k in ("l2_store_full", "l2_store_sector", "l2_store_vec", "l2_store_q4", "l2_store_q2",
                                "l2_store_h16", "l2_store_half", "l2_store_q4x2", "l2_store_q4x8", "l1_hit_line", "l1_hit_broadcast",
                                "l2_random", "write_once")},
             **{f"l1p_{mode}{p[1]}_{k}": 32 for k, p in enumerate(microbench.L1_PATTERNS)
                for mode in ("hit", "miss", "st")},
             "res_probe": 32, "res_smem": 32, "l1cap": 32}

# kernel -> (SASS opcode the figure counts, how many per loop body at least)
SASS_COUNTS = {"fp32_ffma": ("FFMA", 256), "fp64_dfma": ("DFMA", 128), "int_imad": ("IMAD", 128),
               "int_lop3": ("LOP3.LUT", 128), "sfu_rsqrt": ("MUFU.RSQ", 128), "sfu_exp": ("MUFU.EX2", 128),
               "wmma_tf32": ("HMMA.1684.F32.TF32", 16), "wmma_fp64": ("DMMA.8x8x4", 8),
               "mma_tf32_m16n8k8": ("HMMA.1688.F32.TF32", 8), "mma_fp64_m16n8k16": ("DMMA.16x8x16", 4),
               "smem_read32_stride1": ("LDS", 16), "smem_read32_stride32": ("LDS", 16),
               "smem_read128": ("LDS.128", 4), "chase_ca": ("LDG.E.64", 1), "chase_cg": ("LDG.E.64.STRONG.GPU", 1),
               "atomic_global_distinct": ("REDG.E.ADD.STRONG.GPU", 1), "atomic_shared_same_add": ("ATOMS.ADD", 1),
               "atomic_shared_same_one": ("ATOMS.POPC.INC.32", 1)}


@pytest.fixture(scope="module")
def compiled():
    from cudasim import compile_cuda

    return compile_cuda(SRC, filename="microbench.cu")  # NVRTC, disk-cached


def _entries(ptx: str) -> dict[str, list[str]]:
    """PTX entry -> its parameter types (.u64, .u32, .f32, .f64 ...)."""
    out = {}
    for m in re.finditer(r"\.entry (\w+)\(([^)]*)\)", ptx):
        out[m.group(1)] = re.findall(r"\.param \.(\w+)", m.group(2))
    return out


def test_compiles_for_sm_90_within_launch_bounds_without_spills(compiled):
    res = compiled.resources
    kernels = set(_entries(compiled.ptx))
    assert set(REG_LIMIT) <= kernels
    for name in kernels:
        r = res[name]
        assert r.spill_stores == 0 and r.spill_loads == 0 and r.stack_bytes == 0, (name, r)
        assert r.registers <= REG_LIMIT.get(name, 255), (name, r.registers)


@pytest.fixture(scope="module")
def sass(tmp_path_factory) -> dict[str, str]:
    """kernel -> its SASS (nvdisasm -c of NVRTC's cubin for sm_90)."""
    from analysis.sass import find_nvdisasm
    from cudasim.compile import compile_cubin

    exe = find_nvdisasm()
    if not exe:
        pytest.skip("nvdisasm is not installed (pip: nvidia-cuda-nvdisasm)")
    cubin, _ = compile_cubin(SRC, filename="microbench.cu")
    path = tmp_path_factory.mktemp("sass") / "mb.cubin"
    path.write_bytes(cubin)
    text = subprocess.run([exe, "-c", str(path)], capture_output=True, text=True, check=True).stdout
    parts = re.split(r"//-+ \.text\.(\w+)\s+-+", text)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def test_sass_has_the_instructions_each_figure_counts(sass):
    bodies = sass
    op_re = re.compile(r"/\*[0-9a-f]{4}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Za-z0-9_.]+)")
    for name, (op, least) in SASS_COUNTS.items():
        ops = op_re.findall(bodies[name])
        assert ops.count(op) >= least, (name, op, ops.count(op))
    for k in (1, 2, 4, 8, 16, 32):  # ptxas must neither merge a lane's words into wider loads nor hoist them
        ops = op_re.findall(bodies[f"smem_read32_stride{k}"])
        assert "LDS.64" not in ops and "LDS.128" not in ops, k
        assert _in_loop(bodies[f"smem_read32_stride{k}"], "LDS") == 16, k
    assert _in_loop(bodies["smem_read128"], "LDS.128") == 4


_INS = re.compile(r"/\*([0-9a-f]{4})\*/\s+(.*?)\s*;")


def _loops(body: str) -> list[list[tuple[int, str]]]:
    """Every loop of a kernel's SASS, as its (address, instruction) from a backward branch's target to the branch."""
    labels, pending, ins = {}, [], []  # label -> address of the instruction after it
    for l in body.splitlines():
        if m := re.match(r"\s*(\.L_x_\d+):", l):
            pending.append(m.group(1))
        elif m := _INS.search(l):
            a = int(m.group(1), 16)
            labels.update((p, a) for p in pending)
            pending = []
            ins.append((a, m.group(2)))
    loops = []
    for a, text in ins:
        m = re.search(r"BRA `\((\.L_x_\d+)\)", text)
        if m and labels.get(m.group(1), a) < a:
            loops.append([(b, t) for b, t in ins if labels[m.group(1)] <= b <= a])
    return loops


def _opcode(ins: str) -> str:
    return re.match(r"(?:@!?U?P\w+\s+)?([A-Z][A-Za-z0-9_.]+)", ins).group(1)


def _in_loop(body: str, op: str) -> int:
    """How many `op` instructions lie inside a loop: between a backward branch and its target."""
    return len({a for loop in _loops(body) for a, t in loop if _opcode(t) == op})


def _timed_loop(body: str, op: str) -> list[str]:
    """The instructions of the loop that holds the most `op`: the kernel's timed loop."""
    loop = max(_loops(body), key=lambda lp: sum(_opcode(t) == op for _, t in lp))
    return [t for _, t in loop]


def _each_reads_the_one_before(ins: list[str], step: int = 1) -> bool:
    """Whether every instruction reads the register the one `step` before it wrote (a dependent chain)."""
    def regs(t):
        return re.findall(r"\bR\d+\b", t.split(None, 1)[1] if not t.startswith("@") else t.split(None, 2)[2])
    return all(regs(ins[i - step])[0] in regs(ins[i])[1:] for i in range(step, len(ins)))


_COUNTER = {"UIADD3": 1, "ISETP.LE.AND": 1, "BRA": 1}  # the loop count in a uniform register, compare, branch
# kernel -> the SASS of its timed loop, exactly (kernels/microbench.py's docstring lists the same)
TIMED_LOOPS = {
    **{f"deplat_{name}": {op: 256, **_COUNTER} for name, _, op, _ in microbench.DEPLAT_CHAINS},
    "deplat_hmma_tf32": {"HMMA.1684.F32.TF32": 128, **_COUNTER},
    "deplat_dmma_fp64": {"DMMA.8x8x4": 32, "NOP": 30, **_COUNTER},
    "deplat_bar": {"BAR.SYNC.DEFER_BLOCKING": 32, **_COUNTER},
    "atoms_fixed": {"ATOMS.POPC.INC.32": 16, **_COUNTER},
    "atoms_random": {"ATOMS.POPC.INC.32": 8, "IMAD": 8, "SHF.R.U32.HI": 8, "LEA": 8, "IMAD.MOV.U32": 1, **_COUNTER},
    "barrier_ffma": {"FFMA": 8, "BAR.SYNC.DEFER_BLOCKING": 1, **_COUNTER},
    "barrier_ffma_nobar": {"FFMA": 8, **_COUNTER},
}


def test_timed_loops_hold_exactly_the_instructions_the_figures_count(sass):
    for name, want in {**TIMED_LOOPS, **TIMED_LOOPS_2}.items():
        op = next(iter(want))
        loop = _timed_loop(sass[name], op)
        assert Counter(map(_opcode, loop)) == Counter(want), (name, Counter(map(_opcode, loop)))
    for name, _, op, _ in microbench.DEPLAT_CHAINS:  # one chain: each instruction waits for the one before
        assert _each_reads_the_one_before([t for t in _timed_loop(sass[f"deplat_{name}"], op) if _opcode(t) == op])
    chain = [t for t in _timed_loop(sass["deplat_dmma_fp64"], "DMMA.8x8x4") if _opcode(t) == "DMMA.8x8x4"]
    assert _each_reads_the_one_before(chain)
    chain = [t for t in _timed_loop(sass["deplat_hmma_tf32"], "HMMA.1684.F32.TF32") if t.startswith("HMMA")]
    assert _each_reads_the_one_before(chain, step=2)  # two n8 halves, interleaved


# deplat2's chains: each step's SASS 256 times (the uniform chains' UIADD3 adds to the counter's); the L2 stores (8 per
# iteration with their address arithmetic: index x SCALE & mask, IMAD.WIDE; the float4 data copied between in-flight
# stores), the L1 hits (16 loads from one address register, 8 LOP3 folding them, the iteration's offset) and the random
# reads (per load an LCG IMAD, IMAD.HI for the index, IMAD.WIDE for the address; 8 FADD after the loads)
TIMED_LOOPS_2 = {
    **{f"deplat_{name}": dict(Counter({op: 256 for op in sass}) + Counter(_COUNTER))
       for name, _, sass, _ in microbench.DEPLAT2_CHAINS + microbench.DEPLAT_CVT_CHAINS if name != "rcp64h"},
    # rcp.approx.ftz.f64 is MUFU.RCP64H on the high word and a zero low word, which ptxas sets twice per iteration
    "deplat_rcp64h": {"MUFU.RCP64H": 256, "IMAD.MOV.U32": 2, **_COUNTER},
    "l2_store_full": {"STG.E": 8, "LOP3.LUT": 8, "IMAD.WIDE.U32": 8, "VIADD": 6, "IADD3": 2, **_COUNTER},
    "l2_store_sector": {"STG.E": 8, "LOP3.LUT": 8, "IMAD.WIDE.U32": 8, "LEA": 5, "IMAD": 3, **_COUNTER},
    "l2_store_vec": {"STG.E.128": 8, "LOP3.LUT": 8, "IMAD.WIDE.U32": 8, "VIADD": 6, "IADD3": 2, "IMAD.MOV.U32": 11,
                     "MOV": 10, **_COUNTER},
    "l1_hit_line": {"LDG.E": 16, "LOP3.LUT": 8, "ULOP3.LUT": 1, "VIADD": 1, "IADD3": 1, "IMAD.X": 1, **_COUNTER},
    "l1_hit_broadcast": {"LDG.E": 16, "LOP3.LUT": 8, "ULOP3.LUT": 1, **_COUNTER, "UIADD3": 2, "UIADD3.X": 1,
                         "IMAD.U32": 2},  # the address is uniform: the counter's UIADD3 and one of the address's
    "l2_random": {"LDG.E.STRONG.GPU": 8, "IMAD": 8, "IMAD.HI.U32": 8, "IMAD.WIDE.U32": 8, "FADD": 8, "MOV": 1,
                  **_COUNTER},
    # the L1 patterns: 16 accesses from one address register (the step an immediate), the loads folded by LOP3 after
    # all are issued, the window's offset (and for _miss its shift); the stores' data is the loop counter
    "l1p_hit4_0": {"LDG.E": 16, "LOP3.LUT": 8, "LDC.64": 1, "ULOP3.LUT": 1, "IADD3": 1, "IADD3.X": 1, **_COUNTER},
    "l1p_miss4_0": {"LDG.E": 16, "LOP3.LUT": 9, "IMAD.SHL.U32": 1, "LEA.HI": 1, "IADD3": 1, "IADD3.X": 1,
                    **_COUNTER},
    "l1p_st4_0": {"STG.E": 16, "LOP3.LUT": 1, "IADD3": 1, "IADD3.X": 1, "VIADD": 1, "ISETP.GE.AND": 1, "BRA": 1},
    "l1p_hit16_18": {"LDG.E.128": 16, "LOP3.LUT": 32, "LDC.64": 1, "ULOP3.LUT": 1, "IADD3": 1, "IADD3.X": 1,
                     **_COUNTER},
}


def _reads_what_the_one_before_wrote(ins: list[str]) -> bool:
    """Whether every instruction reads (as an operand or its guard) the register or predicate, vector or uniform, that
    the one before wrote (its first operand)."""
    def operands(t):
        guard = re.match(r"@!?(U?P\d)\s+", t)
        body = t[guard.end():] if guard else t
        ops = re.findall(r"\b(?:U?R\d+|U?P\d)\b", body.split(None, 1)[1])
        return ops[0], set(ops[1:]) | ({guard.group(1)} if guard else set())
    return all(operands(ins[i - 1])[0] in operands(ins[i])[1] for i in range(1, len(ins)))


def test_deplat2_chains_are_one_dependent_chain(sass):
    for name, _, steps, _ in microbench.DEPLAT2_CHAINS + microbench.DEPLAT_CVT_CHAINS:
        loop = _timed_loop(sass[f"deplat_{name}"], steps[-1])
        chain = [t for t in loop if _opcode(t) in steps and not t.startswith("UIADD3 UR4, UR4, 0x1")]
        assert len(chain) == 256 * len(steps), name
        assert [_opcode(t) for t in chain] == list(steps) * 256, name  # the step's instructions in turn
        assert _reads_what_the_one_before_wrote(chain), name
    assert _reads_what_the_one_before_wrote(["UIADD3 UR5, UR6, UR5, UR7", "UIMAD UR5, UR5, UR7, UR6"])
    assert not _reads_what_the_one_before_wrote(["S2R R5, SR_VIRTUALSMID", "S2R R7, SR_VIRTUALSMID"])


def test_l1_hit_and_random_loads_are_all_issued_before_the_first_use(sass):
    for name, load in (("l1_hit_line", "LDG.E"), ("l1_hit_broadcast", "LDG.E"), ("l2_random", "LDG.E.STRONG.GPU")):
        ops = list(map(_opcode, _timed_loop(sass[name], load)))
        first_use = min(i for i, o in enumerate(ops) if o in ("LOP3.LUT", "FADD"))
        assert max(i for i, o in enumerate(ops) if o == load) < first_use, name
    # the L1 patterns keep at least 13 (4-byte) or 4 (16-byte: 32 registers hold four) loads in flight per thread
    for name, load, least in (("l1p_hit4_0", "LDG.E", 13), ("l1p_miss4_0", "LDG.E", 13),
                              ("l1p_hit16_18", "LDG.E.128", 4)):
        ins = _timed_loop(sass[name], load)
        first_fold = min(i for i, t in enumerate(ins) if _opcode(t) == "LOP3.LUT" and "0x96" in t)
        assert sum(_opcode(t) == load for t in ins[:first_fold]) >= least, name


def test_empty_block_kernels_differ_only_in_shared_memory(compiled, sass):
    res = compiled.resources
    assert res["blocks_empty"].shared_bytes == 0 and res["blocks_smem8k"].shared_bytes == 8192

    def until_exit(body):  # the path a block with flag 0 runs
        ins = [m.group(2) for m in _INS.finditer(body)]
        return ins[:next(i for i, t in enumerate(ins) if _opcode(t) == "EXIT") + 1]
    path = until_exit(sass["blocks_empty"])
    assert path == until_exit(sass["blocks_smem8k"]) and len(path) <= 4, path


def test_event_overhead_kernels_take_0_3_6_9_parameters(compiled, sass):
    entries = _entries(compiled.ptx)
    for n in microbench.EO_ARGS:
        assert len(entries[f"eo_args{n}"]) == n
        assert "SR_GLOBALTIMERLO" in sass[f"eo_args{n}"]


def test_inflight_loops_issue_all_loads_before_the_first_use(sass):
    for u in (1, 2, 4, 8):
        ops = list(map(_opcode, _timed_loop(sass[f"inflight_u{u}"], "LDG.E.128.STRONG.GPU")))
        c = Counter(ops)
        assert c["LDG.E.128.STRONG.GPU"] == u and c["FADD"] == 4 * u, (u, c)
        assert not {o for o in c if o.startswith(("LD", "ST")) and o not in ("LDG.E.128.STRONG.GPU", "LDC.64")}, c
        last_load = max(i for i, o in enumerate(ops) if o.startswith("LDG"))
        assert last_load < ops.index("FADD"), u  # U loads in flight before the warp waits on the first


def test_bank_stats_of_fixed_patterns():
    lanes = np.arange(32)
    for k in (1, 2, 4, 8, 16, 32):  # lane * k: k distinct words in a bank, one lane each
        assert microbench.bank_stats((lanes * k)[None]) == {"conflict_degree": k, "lanes_per_word": 1}
    for g in (2, 4, 8, 16, 32):  # lane / g: g lanes on a word, the words in distinct banks
        assert microbench.bank_stats((lanes // g)[None]) == {"conflict_degree": 1, "lanes_per_word": g}
    words = np.array([[0, 32, 32, 64] + [1] * 28])  # bank 0 asked for words 0, 32, 64; 28 lanes on word 1
    assert microbench.bank_stats(words) == {"conflict_degree": 3, "lanes_per_word": 28}


def test_atoms_random_replay_matches_the_kernel_in_cudasim():
    """The host's replay of atoms_random's words (the conflict statistics and the GPU check use it) against the
    kernel itself: two blocks' bins after 2 iterations (16 atomics per thread)."""
    need_nvrtc()
    from cudasim import Out, SourceModule

    fn = SourceModule(SRC, no_extern_c=True).get_function("atoms_random")
    for bins in microbench.ATOMS_RANDOM_BINS:
        out = np.zeros((2, 1024), np.uint32)
        fn(np.int32(2), np.uint32(32 - (bins.bit_length() - 1)), np.uint32(microbench.ATOMS_SEED), Out(out),
           Out(np.zeros(1, np.float32)), Out(np.zeros((2, 4), np.int64)), block=(1024, 1, 1), grid=(2, 1))
        words = microbench.atoms_random_words(bins, 2048, 16).reshape(16, 2, 32, 32)  # step, block, warp, lane
        for blk in (0, 1):
            assert (out[blk] == np.bincount(words[:, blk].ravel(), minlength=1024)).all(), (bins, blk)
    stats = microbench.bank_stats(microbench.atoms_random_words(256, 2048, 64))
    assert 2.5 < stats["conflict_degree"] < 4 and 1.5 < stats["lanes_per_word"] < 2.5  # 32 lanes into 32 banks


def test_chain_is_one_cycle_over_every_line():
    img, start = microbench._chain(64 * 128, 1 << 20, np.random.default_rng(0))
    seen, p = set(), start
    for _ in range(64):
        seen.add(p)
        p = int(img[(p - (1 << 20)) // 8])
    assert p == start and len(seen) == 64 and all((q - (1 << 20)) % 128 == 0 for q in seen)


# ---- a fake driver: every launch's arguments are checked against the kernel's PTX parameters
_KIND = {"u64": "8i", "s64": "8i", "b64": "8i", "u32": "4i", "s32": "4i", "b32": "4i", "f32": "4f", "f64": "8f"}


def _arg_kind(a) -> str:
    if isinstance(a, _Alloc):
        return "8i"
    if isinstance(a, np.generic):
        return f"{a.dtype.itemsize}{'f' if a.dtype.kind == 'f' else 'i'}"
    raise TypeError(f"argument {a!r} of type {type(a).__name__} is not what PyCUDA packs")


class _Alloc(int):
    def free(self):
        pass


class _Event:
    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    def time_since(self, other):
        return 1.0


class _Fn:
    def __init__(self, name, params, launches):
        self.name, self.params, self.launches = name, params, launches
        self.num_regs, self.shared_size_bytes = 32, 0

    def __call__(self, *args, block, grid, **kw):
        kinds = [_arg_kind(a) for a in args]
        want = [_KIND[p] for p in self.params]
        assert kinds == want, f"{self.name}: arguments {kinds} but the kernel takes {want}"
        assert len(block) == 3 and len(grid) == 2 and math.prod(block) <= 1024
        self.launches.append(self.name)

    def prepare(self, fmt):
        self.fmt = fmt

    def prepared_call(self, grid, block, *args):
        assert len(self.fmt) == len(self.params) == len(args), self.name
        self.launches.append(self.name)


class _FakeCuda:
    def __init__(self):
        self.next = 1 << 30
        self.Event = _Event
        self.Stream = lambda: object()

        class Context:
            @staticmethod
            def synchronize():
                pass

        self.Context = Context

    def mem_alloc(self, n):
        a = _Alloc(self.next)
        self.next += (n + 255) // 256 * 256
        return a

    def to_device(self, arr):
        return self.mem_alloc(arr.nbytes)

    def memcpy_dtoh(self, dest, src):
        if dest.dtype == np.int64:  # stamps [c0, c1, g0, g1]: 2 cycles per ns
            flat = dest.reshape(-1, dest.shape[-1]) if dest.ndim > 1 else dest.reshape(1, -1)
            if flat.shape[1] == 4:
                flat[:] = [0, 2000, 0, 1000]
            else:
                flat[:] = 100
        else:
            dest[...] = 0

    def pagelocked_empty(self, n, dtype):
        return np.empty(n, dtype)

    def get_driver_version(self):
        return 13000

    def __getattr__(self, name):  # memset_d32, memcpy_htod(_async), memcpy_dtod, memcpy_dtoh_async
        if name.startswith(("memset", "memcpy")):
            return lambda *a, **k: None
        raise AttributeError(name)


@pytest.fixture
def fake_run(compiled, monkeypatch, tmp_path):
    """main(argv + --out) against the fake driver: (the JSON it wrote, the kernels launched, the PTX entries)."""
    from kernels import gpu

    launches = []
    entries = _entries(compiled.ptx)
    fake = _FakeCuda()

    class _Module:
        def get_function(self, name):
            return _Fn(name, entries[name], launches)

        def get_global(self, name):
            assert f" {name};" in compiled.ptx or f" {name}[" in compiled.ptx, name
            return fake.mem_alloc(64), 64

    monkeypatch.setattr(gpu, "_ctx", {"cuda": fake, "dev": {"name": "fake", "cc": (9, 0), "sms": 4,
                                                            "l2_bytes": 50 << 20}})
    monkeypatch.setattr(gpu, "module", lambda source, options=(), filename="": _Module())
    monkeypatch.setattr(microbench, "CHASE_BYTES", {"l1": 32 << 10, "l2": 1 << 20, "dram": 2 << 20})
    monkeypatch.setattr(microbench, "nvidia_smi", lambda q="": {"driver_version": "0"})

    def run(argv):
        out = tmp_path / "mb.json"
        assert microbench.main([*argv, "--out", str(out)]) == 0
        data = json.loads(out.read_text())
        assert not data["errors"]
        return data, launches, entries
    return run


def test_runs_end_to_end_against_a_fake_driver(fake_run):
    data, launches, entries = fake_run(["--quick"])
    assert set(entries) - {"chase_shared"} <= set(launches) | {"chase_shared"}
    _check_results(data, quick=True)
    figs = data["figures"]
    assert NEW_FIGURES | NEW_FIGURES_2 | CVT_FIGURES <= set(figs), (NEW_FIGURES | NEW_FIGURES_2) - set(figs)
    for level in ("dram", "l2"):
        rows = figs[f"inflight_{level}"]["table"]
        assert len(rows) == 7 * 4 - 1  # 64 warps per SM only up to 4 loads per thread
        assert all({"warps_per_sm", "loads_per_thread", "bytes_in_flight_per_sm", "gbs", "latency_ns",
                    "latency_clk"} <= set(r) for r in rows)
    assert figs["atoms_stride8"]["conflict_degree"] == 8 and figs["atoms_group4"]["lanes_per_word"] == 4
    assert "minus_nobar" in figs["barrier_256x8"]
    assert "s2r_alone_estimate" in figs["deplat_s2r"]  # deplat ran before deplat2: its IMAD figure is there


def test_new_groups_run_alone_against_a_fake_driver(fake_run):
    """deplat2, blocks, event_overhead and l2_rates by --only, without the groups they borrow from (deplat's IMAD,
    clock's SM clock): full settings, every figure with its unit and method."""
    data, launches, _ = fake_run(["--only", "deplat2", "blocks", "event_overhead", "l2_rates"])
    figs = data["figures"]
    assert set(figs) == NEW_FIGURES_2 | {f"l2_random_{mb}mb" for mb in microbench.L2_RANDOM_MB}
    assert "s2r_alone_estimate" not in figs["deplat_s2r"]
    assert figs["blocks_empty_256"]["clock_mhz"] == 2000  # the fake's block stamps: 2000 cycles per 1000 ns
    assert "ns_per_added_block" in figs["blocks_queued_8_per_sm"]
    assert figs["event_overhead_3args_200us"]["spin_us"] == 1.0  # the fake's stamps: [0, 2000 cycles, 0, 1000 ns]
    assert {"eo_args0", "eo_args3", "eo_args6", "eo_args9", "write_once", "spin_ns", "fp32_ffma"} <= set(launches)
    for name, f in figs.items():
        assert isinstance(f["value"], float) and f["unit"] and len(f["method"]) > 100, name


def test_l1_patterns_kernels_match_the_table():
    """Each L1_PATTERNS row's bytes and step are those its kernels were compiled with, and its 16 accesses stay in the
    256 KiB window a _miss warp takes per iteration."""
    compiled = {int(k): (int(b), int(s)) for k, b, s in re.findall(r"L1P\((\d+), (\d+), (\d+)\)", SRC)}
    lanes = np.arange(32)
    assert compiled == {k: (p[1], p[3]) for k, p in enumerate(microbench.L1_PATTERNS)}
    for name, size, offsets, step, _ in microbench.L1_PATTERNS:
        offs = np.asarray(offsets(lanes))
        assert offs.min() >= 0 and offs.max() + 15 * step + size <= 1 << 18 and (offs % size == 0).all(), name
    shape = microbench.l1_pattern_shape(np.asarray(microbench.L1_PATTERNS[11][2](lanes)), 4)  # l32_spread
    assert shape == {"lines": 32, "sectors": 32, "sectors_per_position_max": 8, "words_per_bank_max": 8}


def test_l1_patterns_run_alone_against_a_fake_driver(fake_run):
    data, launches, _ = fake_run(["--quick", "--only", "l1_patterns"])
    figs = data["figures"]
    assert set(figs) == {f"l1p_{m}_{p[0]}" for p in microbench.L1_PATTERNS for m in ("hit", "miss", "st")}
    assert figs["l1p_hit_v_line"]["lines"] == 4 and figs["l1p_miss_random"]["kernel"] == "l1p_miss4_16"
    for name, f in figs.items():
        assert isinstance(f["value"], float) and f["unit"] == "clk/warp-request/SM" and len(f["method"]) > 100, name


def test_residency_kernels_are_bound_by_what_their_figures_name(compiled):
    """With every warp staying, res_probe (1024 threads) is bound by warp slots, res_regs by registers and res_smem by
    shared memory: each resource alone allows fewer blocks than the others (H100: 64 warps, 65536 registers,
    228 KiB of shared memory and 32 blocks per SM; 1 KiB of shared memory per block for the driver)."""
    res = compiled.resources

    def limits(name: str, threads: int) -> dict:
        r = res[name]
        regs = -(-r.registers * 32 // 256) * 256 * (threads // 32)  # allocated per warp in units of 256
        return {"warps": 64 // (threads // 32), "registers": 65536 // regs,
                "shared": 228 * 1024 // (r.shared_bytes + 1024), "blocks": 32}

    for name, threads, bound in (("res_probe", 1024, "warps"), ("res_regs", 256, "registers"),
                                 ("res_smem", 256, "shared")):
        lim = limits(name, threads)
        assert all(lim[bound] < v for k, v in lim.items() if k != bound), (name, lim)
    assert {r[1] for r in microbench.RESIDENCY} == {"res_probe", "res_regs", "res_smem"}


def test_residency_runs_alone_against_a_fake_driver(fake_run):
    data, launches, _ = fake_run(["--quick", "--only", "residency"])
    figs = data["figures"]
    assert set(figs) == {r[0] for r in microbench.RESIDENCY}
    assert {"res_probe", "res_regs", "res_smem"} <= set(launches)
    for name, f in figs.items():
        assert f["unit"] == "blocks/SM" and len(f["method"]) > 100 and f["registers"] == 32, name


def test_l1_capacity_runs_alone_against_a_fake_driver(fake_run):
    data, launches, _ = fake_run(["--quick", "--only", "l1_capacity"])
    figs = data["figures"]
    assert set(figs) == {f"l1cap_m{m}_{n}" for m, ns in microbench.L1CAP_LINES.items() for n in ns}
    assert all(n % 32 == 0 for n in microbench.L1CAP_LINES[1])  # mode 1 reads 32 lines a request
    for name, f in figs.items():
        assert f["unit"] == "clk/warp-request/SM" and len(f["method"]) > 100 and f["footprint_lines"] > 0, name


NEW_FIGURES = ({f"deplat_{c[0]}" for c in microbench.DEPLAT_CHAINS} | {f"deplat_{c[0]}" for c in microbench.DEPLAT_MMA}
               | {f"deplat_bar_{t}" for t in (32, 256, 1024)} | {"inflight_dram", "inflight_l2"}
               | {f"atoms_{p[0]}" for p in microbench.ATOMS_FIXED}
               | {f"atoms_random{n}" for n in microbench.ATOMS_RANDOM_BINS}
               | {"barrier_256x8", "barrier_256x8_nobar", "barrier_1024x2", "barrier_1024x2_nobar"})
CVT_FIGURES = {f"deplat_{c[0]}" for c in microbench.DEPLAT_CVT_CHAINS}
NEW_FIGURES_2 = ({f"deplat_{c[0]}" for c in microbench.DEPLAT2_CHAINS}
                 | {f"blocks_{k}_{t}" for k in ("empty", "smem8k") for t in microbench.BLOCKS_THREADS}
                 | {f"blocks_queued_{k}" for k in ("1", "1_per_sm", "8_per_sm")}
                 | {f"event_overhead_{n}args_{us}us" for n in microbench.EO_ARGS for us in microbench.EO_SPIN_US}
                 | {"event_overhead_write64mb", "l2_store_full", "l2_store_sector", "l2_store_vec", "l2_store_q4",
                    "l2_store_q2", "l2_store_h16", "l2_store_half", "l2_store_q4x2", "l2_store_q4x8",
                    "l2_store_full_1g", "l2_store_q4_1g", "l2_store_q4x8_1g", "l1_hit_line",
                    "l1_hit_broadcast", "l2_random_8mb", "l2_random_64mb"})


def _check_results(data: dict, quick: bool) -> None:
    for key in ("device", "date", "protocol", "clocks", "figures", "command"):
        assert key in data, key
    assert set(data["clocks"]) == {"before", "after"}
    expected = {"sm_clock", "gpu_timer_rate", "dram_read", "dram_write", "dram_copy", "l2_read", "smem_read32_per_sm",
                "smem_read128_per_sm", "smem_conflict_2way", "smem_conflict_32way", "ffma", "ffma_per_clk_sm", "dfma",
                "imad", "lop3", "mufu_rsqrt", "mufu_ex2", "tf32_wmma", "fp64_wmma", "tf32_mma_m16n8k8",
                "fp64_mma_m16n8k16", "launch_empty_event_queued", "latency_l1", "latency_l2",
                "latency_dram", "latency_smem", "atomic_global_distinct", "atomic_global_same",
                "atomic_shared_distinct_add", "atomic_shared_same_one", "launch_empty_event", "launch_gpu",
                "launch_host", "h2d_pageable", "h2d_pinned", "d2h_pageable", "d2h_pinned", "bidir_pinned",
                "bidir_overlap"}
    assert expected <= set(data["figures"]), expected - set(data["figures"])
    for name, f in data["figures"].items():
        assert isinstance(f["value"], (int, float)), name
        assert isinstance(f["unit"], str) and f["unit"], name
        assert isinstance(f["method"], str) and len(f["method"]) > 20, name


def test_committed_h100_results_have_every_figure_with_unit_and_method():
    data = json.loads(RESULTS.read_text())
    _check_results(data, quick=False)
    assert not data["quick"] and not data["errors"]
    assert "H100" in data["device"]["name"] and data["device"]["driver"]
    assert "clocks.current.sm [MHz]" in data["clocks"]["before"]
    figs = data["figures"]
    assert all(math.isfinite(f["value"]) and f["value"] > 0 for f in figs.values())
    # the measured rates sit where an H100 SXM can put them (datasheet: 3.35 TB/s HBM3, 66.9 TFLOP/s FP32)
    assert 2000 < figs["dram_copy"]["value"] < 3350
    assert 1000 < figs["sm_clock"]["value"] <= 2000
    assert 100 < figs["ffma_per_clk_sm"]["value"] <= 130


def test_cli_without_gpu_says_why():
    try:
        import pycuda  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("PyCUDA is installed: the no-GPU path is not reachable here")
    for argv in (["--quick"], ["--only", "deplat", "inflight", "smem_atomics", "barrier"],
                 ["--only", "deplat2", "blocks", "event_overhead", "l2_rates"]):
        with pytest.raises(SystemExit) as ended:  # one line on stderr, status 2 (cudasim.console.fail)
            microbench.main(argv)
        assert ended.value.code == 2


def test_on_gpu_quick_pass(tmp_path):
    from kernels import gpu

    try:
        gpu.init()
    except gpu.GpuUnavailable as e:
        pytest.skip(str(e))
    out = tmp_path / "mb.json"
    assert microbench.main(["--quick", "--only", "clock", "dram", "compute", "--out", str(out)]) == 0
    figs = json.loads(out.read_text())["figures"]
    assert figs["ffma_per_clk_sm"]["value"] > 64 and figs["dram_read"]["value"] > 100
