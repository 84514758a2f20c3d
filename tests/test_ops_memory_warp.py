"""Memory, warp-wide, barrier and miscellaneous instructions, and the forms cudasim refuses.

Hand-written PTX (checked by ptxas) run through the public API: loads and stores of every
vector width in every state space, atomics checked against some serialization of the lanes
(the ISA promises nothing more), shfl/vote/redux/activemask against the ISA's per-lane
pseudo-code, barriers with reductions, cp.async, cvta, mov packing, special registers; and
the instructions cudasim does not model, which must stop with UnsupportedInstruction naming
the instruction.
"""
from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import cudasim.driver as drv
from cudasim import In, InOut, MemoryFault, Out, UnsupportedInstruction
from ptxkit import (BITS, HAVE_PTXAS, MODULES, NP, Entry, Ptx, RawPtx, add_case, check, int_edges, ptxas_errors,
                    wrap)

PROPS = settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
RCLASS = {1: "b16", 2: "b16", 4: "b32", 8: "b64"}


def prologue(params: list[str]) -> str:
    """Load the u64 parameters into %rp0.. as global addresses; %t: thread in block, %g: in grid."""
    lines = ["\tmov.u32 %t, %tid.x;", "\tmov.u32 %cx, %ctaid.x;", "\tmov.u32 %nx, %ntid.x;",
             "\tmad.lo.s32 %g, %cx, %nx, %t;"]
    for k, p in enumerate(params):
        lines += [f"\tld.param.u64 %rp{k}, [{p}];", f"\tcvta.to.global.u64 %rp{k}, %rp{k};"]
    return "\n".join(lines)


def kernel(name: str, params: list[str], body: str, regs: str = "", scalars: str = "") -> str:
    ps = [f"\t.param .u64 {name}_{p}" for p in params] + ([scalars] if scalars else [])
    return (f".visible .entry {name}(\n" + ",\n".join(ps) + "\n)\n{\n"
            "\t.reg .pred %q<8>;\n\t.reg .b16 %h<8>;\n\t.reg .b32 %t, %cx, %nx, %g, %r<16>;\n"
            f"\t.reg .b64 %rp<{len(params) + 1}>, %rd<16>;\n\t.reg .f32 %f<8>;\n\t.reg .f64 %fd<8>;\n"
            + (f"\t{regs}\n" if regs else "") + prologue([f"{name}_{p}" for p in params]) + "\n"
            + "\n".join("\t" + line.strip() for line in body.strip().splitlines()) + "\n\tret;\n}\n")


# -- loads and stores: every width, every space ------------------------------------------------
VEC_FORMS = [(t, n) for t in ("u8", "s16", "u32", "f32", "u64", "f64") for n in (1, 2, 4) if BITS[t] * n <= 128]


def ldst_kernel(t: str, n: int) -> str:
    size = BITS[t] // 8
    rc = {"f32": ".f32", "f64": ".f64"}.get(t, "." + RCLASS[size])
    vec = f".v{n}" if n > 1 else ""
    regs = [f"%v{k}" for k in range(n)]
    src = "{" + ", ".join(regs) + "}" if n > 1 else regs[0]
    dst = "{" + ", ".join(reversed(regs)) + "}" if n > 1 else regs[0]
    return kernel(f"ldst_{t}_v{n}", ["out", "inp"], f"""
        mul.wide.u32 %rd1, %g, {size * n};
        add.s64 %rd2, %rp1, %rd1;
        add.s64 %rd3, %rp0, %rd1;
        ld.global{vec}.{t} {src}, [%rd2];
        st.global{vec}.{t} [%rd3], {dst};""", regs=f".reg {rc} %v<{n}>;")


MEM = RawPtx("memory", "\n".join(ldst_kernel(t, n) for t, n in VEC_FORMS) + """
.const .align 4 .b32 table[4] = {11, 22, 33, 44};
.global .align 8 .u64 gvar[2] = {7, 9};
""" + kernel("extend", ["out", "inp"], """
    cvt.u64.u32 %rd1, %g;
    add.s64 %rd2, %rp1, %rd1;
    ld.global.s8 %r1, [%rd2];
    ld.global.u8 %r2, [%rd2];
    ld.global.nc.s8 %h1, [%rd2];
    cvt.s32.s16 %r3, %h1;
    ldu.global.u8 %r4, [%rd2];
    mul.wide.u32 %rd3, %g, 16;
    add.s64 %rd4, %rp0, %rd3;
    st.global.v4.u32 [%rd4], {%r1, %r2, %r3, %r4};
    st.global.u8 [%rd4+15], %r2;""") + kernel("shared_exchange", ["out", "inp", "back"], """
    .shared .align 16 .b8 buf[1024];
    mul.wide.u32 %rd1, %t, 16;
    add.s64 %rd2, %rp1, %rd1;
    ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd2];
    mov.u64 %rd3, buf;
    add.s64 %rd4, %rd3, %rd1;
    st.shared.v4.u32 [%rd4], {%r1, %r2, %r3, %r4};
    bar.sync 0;
    add.u32 %r5, %t, 1;
    and.b32 %r5, %r5, 63;
    mul.wide.u32 %rd5, %r5, 16;
    cvta.shared.u64 %rd6, %rd3;
    add.s64 %rd7, %rd6, %rd5;
    ld.v2.u64 {%rd8, %rd9}, [%rd7];
    add.s64 %rd10, %rp0, %rd1;
    st.global.v2.u64 [%rd10], {%rd8, %rd9};
    cvta.to.shared.u64 %rd11, %rd6;
    setp.eq.u64 %q1, %rd11, %rd3;
    selp.u32 %r6, 1, 0, %q1;
    mul.wide.u32 %rd12, %t, 4;
    add.s64 %rd13, %rp2, %rd12;
    st.global.u32 [%rd13], %r6;""") + kernel("local_rw", ["out"], """
    .local .align 16 .b8 arr[16];
    mul.lo.s32 %r1, %g, 16;
    add.s32 %r2, %r1, 1;
    add.s32 %r3, %r1, 2;
    add.s32 %r4, %r1, 3;
    st.local.v4.u32 [arr], {%r1, %r2, %r3, %r4};
    mov.u64 %rd1, arr;
    cvta.local.u64 %rd2, %rd1;
    and.b32 %r5, %g, 3;
    mul.wide.u32 %rd3, %r5, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.u32 %r6, [%rd4];
    ld.local.u32 %r7, [arr+12];
    mul.wide.u32 %rd5, %g, 8;
    add.s64 %rd6, %rp0, %rd5;
    st.global.v2.u32 [%rd6], {%r6, %r7};""") + kernel("const_global", ["out"], """
    ld.const.u32 %r1, [table+8];
    mov.u64 %rd1, table;
    and.b32 %r2, %g, 3;
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.const.u32 %r3, [%rd3];
    ld.global.u64 %rd4, [gvar+8];
    cvt.u32.u64 %r4, %rd4;
    mov.u64 %rd5, gvar;
    cvta.global.u64 %rd6, %rd5;
    ld.u64 %rd7, [%rd6];
    cvt.u32.u64 %r5, %rd7;
    mul.wide.u32 %rd8, %g, 16;
    add.s64 %rd9, %rp0, %rd8;
    st.global.v4.u32 [%rd9], {%r1, %r3, %r4, %r5};""") + """
.visible .entry param_struct(.param .u64 param_struct_out, .param .align 8 .b8 param_struct_s[16])
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [param_struct_out];
    cvta.to.global.u64 %rd1, %rd1;
    ld.param.u32 %r1, [param_struct_s+4];
    ld.param.u64 %rd2, [param_struct_s+8];
    cvt.u32.u64 %r2, %rd2;
    st.global.v2.u32 [%rd1], {%r1, %r2};
    ret;
}
""")


@pytest.mark.parametrize("t, n", VEC_FORMS, ids=[f"{t}x{n}" for t, n in VEC_FORMS])
def test_vector_loads_and_stores_keep_element_order(t, n):
    """ld/st .v2/.v4 move elements in order: a kernel storing them reversed reverses each vector."""
    rng = np.random.default_rng(BITS[t] * n)
    a = rng.integers(0, 255, 64 * n * (BITS[t] // 8), dtype=np.uint8).view(NP[t])
    out = np.zeros_like(a)
    launch = MEM(f"ldst_{t}_v{n}")(Out(out), In(a), block=(64, 1, 1), grid=(1, 1))
    assert out.tobytes() == a.reshape(64, n)[:, ::-1].tobytes()
    sizes = {(e.space, e.op): e.size for e in launch.trace.events}
    assert sizes == {("global", "ld"): n * BITS[t] // 8, ("global", "st"): n * BITS[t] // 8}


def test_narrow_loads_sign_or_zero_extend_and_narrow_stores_truncate():
    """ld.s8 sign-extends into a wider register, ld.u8 zero-extends; st.u8 stores the low byte."""
    a = np.array([0, 1, 127, 128, 255, 0x80 | 5] * 6, np.uint8)[:32]
    out = np.zeros(32 * 4, np.uint32)
    MEM("extend")(Out(out), In(a), block=(32, 1, 1), grid=(1, 1))
    s = a.view(np.int8).astype(np.int64)
    rows = out.reshape(32, 4)
    assert (rows[:, 0].view(np.int32) == s).all() and (rows[:, 2].view(np.int32) == s).all()
    assert (rows[:, 1] == a).all()
    assert (rows[:, 3] == (a.astype(np.uint32) << 24 | a)).all()  # ldu.u8, then st.u8 of a over its top byte


def test_shared_vectors_generic_pointers_and_cvta_round_trip():
    """st.shared.v4 then, after bar.sync, ld through a cvta.shared generic pointer sees the neighbour's
    words; cvta.to.shared undoes cvta.shared; the race checker finds nothing."""
    a = np.arange(64 * 4, dtype=np.uint32) * 7 + 1
    out, back = np.zeros_like(a), np.zeros(64, np.uint32)
    launch = MEM("shared_exchange")(Out(out), In(a), Out(back), block=(64, 1, 1), grid=(1, 1), trace=True)
    assert (out.reshape(64, 4) == np.roll(a.reshape(64, 4), -1, axis=0)).all()
    assert (back == 1).all() and launch.findings == []
    generic = [e for e in launch.trace.events if e.space == "shared" and e.op == "ld"]
    assert generic and all(e.generic and e.size == 16 for e in generic)


def test_local_arrays_through_local_and_generic_addresses():
    out = np.zeros(64 * 2, np.uint32)
    MEM("local_rw")(Out(out), block=(32, 1, 1), grid=(2, 1))
    g = np.arange(64)
    assert (out[0::2] == g * 16 + g % 4).all() and (out[1::2] == g * 16 + 3).all()


def test_const_and_global_module_variables_by_symbol_register_and_generic_address():
    out = np.zeros(32 * 4, np.uint32)
    MEM("const_global")(Out(out), block=(32, 1, 1), grid=(1, 1))
    rows = out.reshape(32, 4)
    assert (rows[:, 0] == 33).all() and (rows[:, 1] == np.array([11, 22, 33, 44])[np.arange(32) % 4]).all()
    assert (rows[:, 2] == 9).all() and (rows[:, 3] == 7).all()
    addr, size = MEM.module.get_global("gvar")
    host = np.zeros(2, np.uint64)
    drv.memcpy_dtoh(host, addr)
    assert size == 16 and host.tolist() == [7, 9]


def test_a_struct_parameter_is_read_at_its_offsets():
    s = np.array([(1, 0xDEADBEEF, 0x1234567890)], dtype=[("a", "<u4"), ("b", "<u4"), ("c", "<u8")])[0]
    out = np.zeros(2, np.uint32)
    MEM("param_struct")(Out(out), s, block=(1, 1, 1), grid=(1, 1))
    assert out.tolist() == [0xDEADBEEF, 0x34567890]


def test_misaligned_and_out_of_bounds_accesses_fault():
    d = drv.mem_alloc(64)
    with pytest.raises(MemoryFault, match="misaligned"):
        MEM("ldst_u32_v1")(Out(np.zeros(8, np.uint32)), np.uint64(int(d) + 1), block=(8, 1, 1), grid=(1, 1))
    d.free()
    with pytest.raises(MemoryFault, match="out-of-bounds"):
        MEM("ldst_f64_v2")(Out(np.zeros(4, np.float64)), np.zeros(4, np.float64), block=(4, 1, 1), grid=(1, 1))


# -- atomics: some serialization of the lanes explains every old value and the final memory ---------
ATOM_FORMS = [("add", "u32"), ("add", "s32"), ("add", "u64"), ("add", "f32"), ("add", "f64"), ("min", "u32"),
              ("min", "s32"), ("max", "u64"), ("max", "s64"), ("min", "s64"), ("inc", "u32"), ("dec", "u32"),
              ("exch", "b32"), ("exch", "b64"), ("cas", "b32"), ("cas", "b64"), ("and", "b32"), ("or", "b64"),
              ("xor", "b32"), ("xor", "b64")]
SPACES = ("global", "shared", "generic")
SLOTS = 4


def atomic_step(op: str, t: str, cur, v, c):
    if op == "add":
        return np.array(cur + v, NP[t])[()] if t[0] == "f" else wrap(cur + v, t)
    if op == "min":
        return min(cur, v)
    if op == "max":
        return max(cur, v)
    if op == "inc":
        return 0 if cur >= v else cur + 1
    if op == "dec":
        return v if cur == 0 or cur > v else cur - 1
    if op == "exch":
        return v
    if op == "cas":
        return c if cur == v else cur
    return {"and": cur & v, "or": cur | v, "xor": cur ^ v}[op]


def serializable(op, t, init, olds, vals, cmps, final) -> bool:
    """Whether applying the lanes one at a time, in some order, gives each lane its old value
    and leaves `final` (a depth-first search; lanes that change nothing go first)."""
    lanes = list(range(len(olds)))

    def dfs(cur, left) -> bool:
        if not left:
            return cur == final
        ready = [i for i in left if olds[i] == cur]
        ready.sort(key=lambda i: atomic_step(op, t, cur, vals[i], cmps[i]) != cur)
        for i in ready:
            rest = [j for j in left if j != i]
            if dfs(atomic_step(op, t, cur, vals[i], cmps[i]), rest):
                return True
            if atomic_step(op, t, cur, vals[i], cmps[i]) == cur:
                return False  # a no-op lane can go first in any serialization: no other choice to try
        return False
    return dfs(init, lanes)


def atom_kernel(op: str, t: str, space: str, red: bool) -> str:
    size = BITS[t] // 8
    rc = {"f32": ".f32", "f64": ".f64"}.get(t, "." + RCLASS[size])
    name = f"{'red' if red else 'atom'}_{space}_{op}_{t}"
    call = (f"red{'.global' if space == 'global' else '.shared' if space == 'shared' else ''}.{op}.{t} [%rd6], %v1;"
            if red else
            f"atom{'.global' if space == 'global' else '.shared' if space == 'shared' else ''}.{op}.{t} %v0, [%rd6], "
            f"%v1{', %v2' if op == 'cas' else ''};")
    if space == "global":
        addr = "add.s64 %rd6, %rp1, %rd5;"
        pre = post = ""
    else:
        pre = f"""
            .shared .align 8 .b8 slots[{SLOTS * size}];
            setp.lt.u32 %q1, %t, {SLOTS};
            mul.wide.u32 %rd7, %t, {size};
            add.s64 %rd8, %rp1, %rd7;
            mov.u64 %rd9, slots;
            add.s64 %rd10, %rd9, %rd7;
            @%q1 ld.global.{t} %v3, [%rd8];
            @%q1 st.shared.{t} [%rd10], %v3;
            bar.sync 0;"""
        addr = "add.s64 %rd6, %rd9, %rd5;" + ("\ncvta.shared.u64 %rd6, %rd6;" if space == "generic" else "")
        post = f"""
            bar.sync 0;
            @%q1 ld.shared.{t} %v3, [%rd10];
            @%q1 st.global.{t} [%rd8], %v3;"""
    return kernel(name, ["old", "mem", "val", "cmp", "slot"], pre + f"""
        mul.wide.u32 %rd1, %t, {size};
        add.s64 %rd2, %rp2, %rd1;
        ld.global.{t} %v1, [%rd2];
        add.s64 %rd3, %rp3, %rd1;
        ld.global.{t} %v2, [%rd3];
        mul.wide.u32 %rd4, %t, 4;
        add.s64 %rd11, %rp4, %rd4;
        ld.global.u32 %r1, [%rd11];
        mul.wide.u32 %rd5, %r1, {size};
        {addr}
        {call}
        add.s64 %rd12, %rp0, %rd1;
        st.global.{t} [%rd12], %v0;""" + post, regs=f".reg {rc} %v<4>;")


RED_FORMS = [("add", "u32", "global"), ("max", "s32", "shared"), ("add", "f32", "global"), ("xor", "b64", "generic"),
             ("min", "u64", "shared")]
ATOM = RawPtx("atomics", "\n".join(atom_kernel(op, t, s, False) for op, t in ATOM_FORMS for s in SPACES)
              + "\n".join(atom_kernel(op, t, s, True) for op, t, s in RED_FORMS))


def atom_values(op: str, t: str, rng: np.random.Generator, n: int) -> list:
    """Operands: small integers for float adds (exact in any order), small bounds for inc/dec,
    otherwise edge values, small values and any bits."""
    if t[0] == "f":
        return rng.integers(-1000, 1000, n).astype(float).tolist()
    if op in ("inc", "dec"):
        return rng.integers(0, 12, n).tolist()
    edges = int_edges(t)
    pick = rng.integers(0, 3, n)
    return [wrap(int(v), t) for v in np.where(pick == 0, np.array(edges, object)[rng.integers(0, len(edges), n)],
                                               np.where(pick == 1, rng.integers(0, 6, n),
                                                        rng.integers(0, 1 << 62, n)))]


@pytest.mark.parametrize("op, t", ATOM_FORMS, ids=[f"{o}.{t}" for o, t in ATOM_FORMS])
@PROPS
@given(init=st.lists(st.integers(0, 2 ** 64 - 1), min_size=SLOTS, max_size=SLOTS), seed=st.integers(0, 2 ** 32 - 1))
def test_atomics_are_some_serialization_of_the_lanes(op, t, init, seed):
    """Each lane's old value and the final memory are what applying the lanes one at a time, in
    some order, gives (ISA semantics of each op), on global, shared and generic addresses."""
    n = 64
    rng = np.random.default_rng(seed)
    init = [float(v % 2001) - 1000 if t[0] == "f" else v % 13 if op in ("inc", "dec") else wrap(v, t) for v in init]
    vals, cmps = atom_values(op, t, rng, n), atom_values(op, t, rng, n)
    if op == "cas":  # b is compared, c stored: compare with values the slot may hold, so some succeed
        pool = init + cmps
        vals = [pool[k] for k in rng.integers(0, len(pool), n)]
    slot = rng.integers(0, SLOTS, n).astype(np.uint32)
    dt = NP[t]
    py = (lambda x: float(x)) if t[0] == "f" else (lambda x: wrap(int(x), t))
    for space in SPACES:
        mem = np.array(init, dt)
        old = np.zeros(n, dt)
        ATOM(f"atom_{space}_{op}_{t}")(Out(old), InOut(mem), In(np.array(vals, dt)), In(np.array(cmps, dt)), In(slot),
                                       block=(n, 1, 1), grid=(1, 1))
        for k in range(SLOTS):
            lanes = np.flatnonzero(slot == k)
            ok = serializable(op, t, py(init[k]), [py(old[i]) for i in lanes], [py(vals[i]) for i in lanes],
                              [py(cmps[i]) for i in lanes], py(mem[k]))
            assert ok, f"{space} slot {k}: init {init[k]}, lanes {lanes.tolist()}, olds {old[lanes].tolist()}, " \
                       f"values {[vals[i] for i in lanes]}, final {mem[k]}"


@pytest.mark.parametrize("op, t, space", RED_FORMS, ids=[f"{o}.{t}.{s}" for o, t, s in RED_FORMS])
def test_reductions_leave_the_fold_of_the_lanes(op, t, space):
    rng = np.random.default_rng(len(op) + BITS[t])
    n = 64
    vals = (rng.integers(-50, 50, n) if t[0] == "f" else rng.integers(0, 1 << 62, n)).astype(NP[t])
    slot = rng.integers(0, SLOTS, n).astype(np.uint32)
    mem = (np.arange(SLOTS) * 3).astype(NP[t])
    want = mem.copy()
    for v, k in zip(vals, slot):
        want[k] = atomic_step(op, t, want[k].item() if t[0] == "f" else int(want[k]),
                              v.item() if t[0] == "f" else wrap(int(v), t), None)
    ATOM(f"red_{space}_{op}_{t}")(Out(np.zeros(n, NP[t])), InOut(mem), In(vals), In(vals), In(slot), block=(n, 1, 1),
                                  grid=(1, 1))
    assert mem.tolist() == want.tolist()


# -- warp-wide instructions ---------------------------------------------------------------------
def warp_kernel(name: str, body: str, n_out: int, scalars: str = "") -> str:
    """Outputs out0.. (u32 per thread), inputs a (u32), b (u32), s (u32 0/1 'on the path') per thread."""
    params = [f"o{k}" for k in range(n_out)] + ["a", "b", "s"]
    stores = "\n".join(f"add.s64 %rd{4 + k}, %rp{k}, %rd1;\nst.global.u32 [%rd{4 + k}], %r{8 + k};"
                       for k in range(n_out))
    return kernel(name, params, f"""
        mul.wide.u32 %rd1, %g, 4;
        add.s64 %rd2, %rp{n_out}, %rd1;
        ld.global.u32 %r1, [%rd2];
        add.s64 %rd2, %rp{n_out + 1}, %rd1;
        ld.global.u32 %r2, [%rd2];
        add.s64 %rd2, %rp{n_out + 2}, %rd1;
        ld.global.u32 %r3, [%rd2];
        setp.ne.u32 %q1, %r3, 0;
        @!%q1 bra DONE;
        {body}
        {stores}
        DONE:""", scalars=scalars)


SHFL_MODES = ("up", "down", "bfly", "idx")
REDUX = [("add", "u32"), ("min", "u32"), ("max", "s32"), ("min", "s32"), ("add", "s32"), ("and", "b32"), ("or", "b32"),
         ("xor", "b32")]
WARP = RawPtx("warp", "\n".join(
    warp_kernel(f"shfl_{m}", f"""ld.param.u32 %r4, [shfl_{m}_c];
        shfl.sync.{m}.b32 %r8|%q2, %r1, %r2, %r4, 0xffffffff;
        selp.u32 %r9, 1, 0, %q2;""", 2, scalars=f"\t.param .u32 shfl_{m}_c") for m in SHFL_MODES)
    + warp_kernel("shfl_bfly_imm", "shfl.sync.bfly.b32 %r8, %r1, 1, 0x1f, 0xffffffff;", 1)
    + warp_kernel("vote", """activemask.b32 %r4;
        setp.ne.u32 %q2, %r1, 0;
        vote.sync.all.pred %q3, %q2, %r4;
        vote.sync.any.pred %q4, %q2, %r4;
        vote.sync.uni.pred %q5, %q2, %r4;
        vote.sync.ballot.b32 %r12, %q2, %r4;
        selp.u32 %r8, 1, 0, %q3;
        selp.u32 %r9, 1, 0, %q4;
        selp.u32 %r10, 1, 0, %q5;
        mov.u32 %r11, %r4;""", 5)
    + "\n".join(warp_kernel(f"redux_{op}_{t}", f"""activemask.b32 %r4;
        redux.sync.{op}.{t} %r8, %r1, %r4;""", 1) for op, t in REDUX))


def shfl_ref(mode: str, vals, bs, c: int):
    """The ISA's shfl.sync pseudo-code, lane by lane, for full warps."""
    out, pred = [], []
    for i in range(len(vals)):
        lane, base = i % 32, i // 32 * 32
        b = bs[i] & 31
        cval, seg = c & 31, (c >> 8) & 31
        max_lane = (lane & seg) | (cval & ~seg)
        min_lane = lane & seg
        if mode == "up":
            j, p = lane - b, lane - b >= max_lane
        elif mode == "down":
            j, p = lane + b, lane + b <= max_lane
        elif mode == "bfly":
            j, p = lane ^ b, (lane ^ b) <= max_lane
        else:
            j = min_lane | (b & ~seg)
            p = j <= max_lane
        out.append(vals[base + (j if p else lane)])
        pred.append(int(p))
    return out, pred


def shfl_c():
    """The clamp operand: segment mask (c[12:8], from a width) and clamp value (c[4:0])."""
    return st.one_of(st.sampled_from([0x1F, 0, 0x181F, 0x1C1F, 0x1807, 0x1E03, 0x1000]), st.integers(0, 0x1FFF))


@pytest.mark.parametrize("mode", SHFL_MODES)
@PROPS
@given(vals=st.lists(st.integers(0, 2 ** 32 - 1), min_size=64, max_size=64),
       bs=st.lists(st.one_of(st.integers(0, 40), st.integers(0, 2 ** 32 - 1)), min_size=64, max_size=64), c=shfl_c())
def test_shfl_sync_follows_the_isa_lane_by_lane(mode, vals, bs, c):
    """Source lane, clamp and segment mask per the ISA pseudo-code; the predicate says whether the
    source lane was in range (else the lane keeps its own value)."""
    a, b = np.array(vals, np.uint32), np.array(bs, np.uint32)
    d, p = np.zeros(64, np.uint32), np.zeros(64, np.uint32)
    WARP(f"shfl_{mode}")(Out(d), Out(p), In(a), In(b), In(np.ones(64, np.uint32)), np.uint32(c), block=(64, 1, 1),
                         grid=(1, 1))
    want_d, want_p = shfl_ref(mode, vals, bs, c)
    assert d.tolist() == want_d and p.tolist() == want_p


def test_shfl_with_immediates_exchanges_neighbours():
    a = np.arange(32, dtype=np.uint32) * 3
    d = np.zeros(32, np.uint32)
    WARP("shfl_bfly_imm")(Out(d), In(a), In(a), In(np.ones(32, np.uint32)), block=(32, 1, 1), grid=(1, 1))
    assert d.tolist() == (a ^ 0)[np.arange(32) ^ 1].tolist()


def warp_lanes(n=64):
    return st.lists(st.tuples(st.booleans(), st.booleans(), st.integers(0, 2 ** 32 - 1)), min_size=n, max_size=n)


@PROPS
@given(rows=warp_lanes())
@example(rows=[(False, True, 0)] * 64)  # uniform: every lane on the path votes false
@example(rows=[(True, i % 3 == 0, 0) for i in range(64)])  # uniform true on a third of the lanes
def test_vote_and_activemask_count_only_the_lanes_on_the_path(rows):
    """In a divergent branch, activemask is the lanes on the path; vote all/any/uni/ballot consider
    exactly those lanes (membermask = activemask)."""
    p = np.array([r[0] for r in rows], np.uint32)
    on = np.array([r[1] for r in rows], np.uint32)
    outs = [np.full(64, 7, np.uint32) for _ in range(5)]
    WARP("vote")(*[InOut(o) for o in outs], In(p), In(p), In(on), block=(64, 1, 1), grid=(1, 1))
    for w in range(2):
        lanes = [i for i in range(32 * w, 32 * w + 32) if on[i]]
        mask = sum(1 << (i % 32) for i in lanes)
        ballot = sum(1 << (i % 32) for i in lanes if p[i])
        for i in range(32 * w, 32 * w + 32):
            got = [int(o[i]) for o in outs]
            if not on[i]:
                assert got == [7] * 5
                continue
            vals = [bool(p[j]) for j in lanes]
            assert got == [int(all(vals)), int(any(vals)), int(all(vals) or not any(vals)), mask, ballot], i


@pytest.mark.parametrize("op, t", REDUX, ids=[f"{o}.{t}" for o, t in REDUX])
@PROPS
@given(rows=warp_lanes())
def test_redux_sync_reduces_over_the_lanes_on_the_path(op, t, rows):
    a = np.array([r[2] for r in rows], np.uint32)
    on = np.array([r[1] for r in rows], np.uint32)
    d = np.full(64, 7, np.uint32)
    WARP(f"redux_{op}_{t}")(InOut(d), In(a), In(a), In(on), block=(64, 1, 1), grid=(1, 1))
    f = {"add": sum, "min": min, "max": max, "and": lambda v: np.bitwise_and.reduce(v),
         "or": lambda v: np.bitwise_or.reduce(v), "xor": lambda v: np.bitwise_xor.reduce(v)}[op]
    for w in range(2):
        lanes = [i for i in range(32 * w, 32 * w + 32) if on[i]]
        vals = [wrap(int(a[i]), t) for i in lanes]
        want = wrap(int(f(vals)), t) & 0xFFFFFFFF if lanes else None
        for i in range(32 * w, 32 * w + 32):
            assert int(d[i]) == (want if on[i] else 7), (i, op, t)


# -- barriers and cp.async ---------------------------------------------------------------------------
SYNC = RawPtx("sync", kernel("barrier_reductions", ["count", "all", "any", "out", "pred"], """
    .shared .align 4 .b32 words[96];
    mul.wide.u32 %rd1, %t, 4;
    add.s64 %rd2, %rp4, %rd1;
    ld.global.u32 %r1, [%rd2];
    setp.ne.u32 %q1, %r1, 0;
    bar.red.popc.u32 %r2, 0, %q1;
    bar.red.and.pred %q2, 0, %q1;
    bar.red.or.pred %q3, 0, %q1;
    selp.u32 %r3, 1, 0, %q2;
    selp.u32 %r4, 1, 0, %q3;
    mov.u64 %rd3, words;
    add.s64 %rd4, %rd3, %rd1;
    st.shared.u32 [%rd4], %t;
    barrier.sync 0;
    bar.warp.sync 0xffffffff;
    sub.u32 %r5, 95, %t;
    mul.wide.u32 %rd5, %r5, 4;
    add.s64 %rd6, %rd3, %rd5;
    ld.shared.u32 %r6, [%rd6];
    add.s64 %rd7, %rp0, %rd1;
    st.global.u32 [%rd7], %r2;
    add.s64 %rd7, %rp1, %rd1;
    st.global.u32 [%rd7], %r3;
    add.s64 %rd7, %rp2, %rd1;
    st.global.u32 [%rd7], %r4;
    add.s64 %rd7, %rp3, %rd1;
    st.global.u32 [%rd7], %r6;""") + kernel("async_copy", ["out", "inp"], """
    .shared .align 16 .b8 sbuf[3072];
    mul.wide.u32 %rd1, %t, 16;
    mov.u64 %rd2, sbuf;
    add.s64 %rd3, %rd2, %rd1;
    add.s64 %rd4, %rp1, %rd1;
    cp.async.ca.shared.global [%rd3], [%rd4], 16;
    add.s64 %rd5, %rd3, 1024;
    add.s64 %rd6, %rd4, 1024;
    cp.async.cg.shared.global [%rd5], [%rd6], 16;
    add.s64 %rd7, %rd3, 2048;
    add.s64 %rd8, %rd4, 2048;
    cp.async.ca.shared.global [%rd7], [%rd8], 8, 5;
    cp.async.ca.shared.global [%rd7+8], [%rd8+8], 4;
    cp.async.ca.shared.global [%rd7+12], [%rd8+12], 4, %t;
    cp.async.commit_group;
    cp.async.wait_group 0;
    cp.async.wait_all;
    bar.sync 0;
    ld.shared.v4.u32 {%r1, %r2, %r3, %r4}, [%rd3];
    ld.shared.v4.u32 {%r5, %r6, %r7, %r8}, [%rd5];
    ld.shared.v4.u32 {%r9, %r10, %r11, %r12}, [%rd7];
    mul.wide.u32 %rd9, %t, 48;
    add.s64 %rd10, %rp0, %rd9;
    st.global.v4.u32 [%rd10], {%r1, %r2, %r3, %r4};
    st.global.v4.u32 [%rd10+16], {%r5, %r6, %r7, %r8};
    st.global.v4.u32 [%rd10+32], {%r9, %r10, %r11, %r12};"""))


@PROPS
@given(preds=st.lists(st.booleans(), min_size=96, max_size=96))
def test_bar_red_popc_and_or_over_the_block_and_barrier_sync(preds):
    p = np.array(preds, np.uint32)
    outs = [np.zeros(96, np.uint32) for _ in range(4)]
    launch = SYNC("barrier_reductions")(*[Out(o) for o in outs], In(p), block=(96, 1, 1), grid=(1, 1))
    assert (outs[0] == p.sum()).all() and (outs[1] == int(p.all())).all() and (outs[2] == int(p.any())).all()
    assert (outs[3] == 95 - np.arange(96)).all() and launch.findings == []


def test_cp_async_copies_with_zero_fill_after_the_source_size():
    """cp.async copies 4/8/16 bytes global -> shared (.ca and .cg); with a source size, the bytes past
    it are zero; commit_group / wait_group / wait_all make them visible."""
    a = (np.arange(64 * 48, dtype=np.uint32) % 251 + 1).astype(np.uint8)
    out = np.zeros(64 * 48, np.uint8)
    launch = SYNC("async_copy")(Out(out), In(a), block=(64, 1, 1), grid=(1, 1))
    src = a.reshape(3, 64, 16).transpose(1, 0, 2)
    got = out.reshape(64, 3, 16)
    assert (got[:, 0] == src[:, 0]).all() and (got[:, 1] == src[:, 1]).all()
    third = src[:, 2].copy()
    third[:, 5:8] = 0
    for t in range(64):
        third[t, 12 + min(t, 4):16] = 0  # source size %t for the last 4 bytes
    assert (got[:, 2] == third).all() and launch.findings == []


# -- moves, immediates, special registers, guards, no-ops -------------------------------------------
MISC: list = []
add_case(MISC, "mov_b64_pack", "mov.b64 %d0, {%a0, %a1};", ("b32", "b32"), ("b64",), lambda lo, hi: lo | hi << 32)
add_case(MISC, "mov_b64_unpack", "mov.b64 {%d0, %d1}, %a0;", ("b64",), ("b32", "b32"),
         lambda x: (x & 0xFFFFFFFF, x >> 32))
add_case(MISC, "mov_b64_unpack_sink", "mov.b64 {_, %d0}, %a0;", ("b64",), ("b32",), lambda x: x >> 32)
add_case(MISC, "mov_b32_pack", "mov.b32 %d0, {%a0, %a1};", ("b16", "b16"), ("b32",), lambda lo, hi: lo | hi << 16)
add_case(MISC, "mov_b32_unpack", "mov.b32 {%d0, %d1}, %a0;", ("b32",), ("b16", "b16"), lambda x: (x & 0xFFFF, x >> 16))
add_case(MISC, "mov_b32_fimm", "mov.b32 %d0, 0f3F800000;", ("b32",), ("b32",), lambda x: 0x3F800000)
add_case(MISC, "add_f32_fimm", "add.f32 %d0, %a0, 0f40490FDB;", ("f32",), ("f32",),
         lambda x: np.float32(x) + np.float32(np.pi))
add_case(MISC, "mov_f64_dimm", "mov.f64 %d0, 0d400921FB54442D18;", ("f64",), ("f64",), lambda x: np.float64(np.pi))
add_case(MISC, "xor_pred_imm", "xor.pred %d0, %a0, 1;", ("pred",), ("pred",), lambda p: not p)
add_case(MISC, "setp_imm_reg", "setp.lt.s32 %d0, 3, %a0;", ("s32",), ("pred",), lambda x: 3 < x)
add_case(MISC, "setp_imm_imm", "setp.lt.s32 %d0, 3, 5;\nmov.u32 %d1, %a0;", ("u32",), ("pred", "u32"),
         lambda x: (True, x))
add_case(MISC, "scratch_registers", "{\n.reg .b32 t;\nadd.u32 t, %a0, 1;\nmov.b32 %d0, t;\n}", ("b32",), ("b32",),
         lambda x: x + 1)
add_case(MISC, "guarded", "setp.ne.s32 %q1, %a1, 0;\n@%q1 add.s32 %d0, %a0, 1;\n@!%q1 mul.lo.s32 %d0, %a0, 3;\n"
         "@%q1 add.f32 %d1, %a2, 0f3F800000;\n@!%q1 mov.f32 %d1, %a2;",
         ("s32", "s32", "f32"), ("s32", "f32"),
         lambda x, c, f: (x + 1 if c else 3 * x, np.float32(f) + np.float32(1) if c else f), regs=".reg .pred %q1;")
add_case(MISC, "nops", "membar.gl;\nfence.acq_rel.gpu;\nmembar.cta;\nprefetch.global.L2 [%ad1];\nprefetchu.L1 [%ad1];\n"
         "pmevent 1;\nadd.u32 %d0, %a0, 2;", ("u32",), ("u32",), lambda x: x + 2)
MISC_PTX = Ptx("misc", [c.entry for c in MISC] + [
    Entry("lanes", "mov.u32 %d0, %laneid;\nmov.u32 %d1, %lanemask_lt;\nmov.u32 %d2, %lanemask_le;\n"
          "mov.u32 %d3, %lanemask_eq;\nmov.u32 %d4, %lanemask_ge;\nmov.u32 %d5, %lanemask_gt;\nmov.u32 %d6, %ntid.x;",
          (), ("u32",) * 7),
    Entry("clocks", "mov.u32 %d0, %clock;\nmov.u32 %d1, %clock;\nmov.u64 %d2, %clock64;\nmov.u64 %d3, %globaltimer;",
          (), ("u32", "u32", "u64", "u64"))])


@pytest.mark.parametrize("c", MISC, ids=[c.entry.name for c in MISC])
@PROPS
@given(data=st.data())
def test_moves_immediates_scratch_registers_and_guards(c, data):
    """Packing and unpacking, float immediates, inline-asm registers without %, guarded (partial
    mask) instructions and no-op instructions, against their references."""
    check(MISC_PTX, c, c.warp_columns(data.draw(c.warp())))


def test_special_registers_lane_masks():
    lane, lt, le, eq, ge, gt, ntid = MISC_PTX.run("lanes")
    i = np.arange(32) % 32
    assert lane.tolist() == i.tolist() and ntid.tolist() == [32] * 32
    assert lt.tolist() == [(1 << k) - 1 for k in i] and le.tolist() == [(2 << k) - 1 for k in i]
    assert eq.tolist() == [1 << k for k in i] and ge.tolist() == [0xFFFFFFFF & ~((1 << k) - 1) for k in i]
    assert gt.tolist() == [0xFFFFFFFF & ~((2 << k) - 1) for k in i]


def test_clocks_move_forward():
    c0, c1, c64, gt = MISC_PTX.run("clocks")
    assert ((c1.astype(np.int64) - c0) % 2 ** 32 > 0).all() and (c64 > 0).all() and (gt > 0).all()


# -- refused: what cudasim does not model stops with UnsupportedInstruction ------------------------------
REFUSED = [  # (name, body, inputs, outputs, the text the error must quote)
    ("mul_rp_f64", "mul.rp.f64 %d0, %a0, %a0;", ("f64",), ("f64",), "mul.rp.f64"),
    ("div_rz_f32", "div.rz.f32 %d0, %a0, %a0;", ("f32",), ("f32",), "div.rz.f32"),
    ("sqrt_rm_f32", "sqrt.rm.f32 %d0, %a0;", ("f32",), ("f32",), "sqrt.rm.f32"),
    ("rcp_rp_f64", "rcp.rp.f64 %d0, %a0;", ("f64",), ("f64",), "rcp.rp.f64"),
    ("fma_rn_f16", "fma.rn.f16 %d0, %a0, %a0, %a0;", ("f16",), ("f16",), "fma.rn.f16"),
    ("ex2_bf16", "ex2.approx.ftz.bf16 %d0, %a0;", ("bf16",), ("bf16",), "ex2.approx.ftz.bf16"),
    ("cvt_rz_f32_s32", "cvt.rz.f32.s32 %d0, %a0;", ("s32",), ("f32",), "cvt.rz.f32.s32"),
    ("cvt_rm_f32_f64", "cvt.rm.f32.f64 %d0, %a0;", ("f64",), ("f32",), "cvt.rm.f32.f64"),
    ("cvt_rz_tf32_f32", "cvt.rz.tf32.f32 %d0, %a0;", ("f32",), ("b32",), "cvt.rz.tf32.f32"),
    ("cvt_rn_bf16_f32", "cvt.rn.bf16.f32 %d0, %a0;", ("f32",), ("bf16",), "cvt.rn.bf16.f32"),
    ("cvt_rn_f16x2_f32", "cvt.rn.f16x2.f32 %d0, %a0, %a0;", ("f32",), ("b32",), "cvt.rn.f16x2.f32"),
    ("add_cc_u32", "add.cc.u32 %d0, %a0, %a0;", ("u32",), ("u32",), "add.cc.u32"),
    ("addc_u32", "addc.u32 %d0, %a0, %a0;", ("u32",), ("u32",), "addc.u32"),
    ("mad_lo_cc_u32", "mad.lo.cc.u32 %d0, %a0, %a0, %a0;", ("u32",), ("u32",), "mad.lo.cc.u32"),
    ("mad24_lo_s32", "mad24.lo.s32 %d0, %a0, %a0, %a0;", ("s32",), ("s32",), "mad24.lo.s32"),
    ("set_lt_u32_s32", "set.lt.u32.s32 %d0, %a0, 3;", ("s32",), ("u32",), "set.lt.u32.s32"),
    ("dp4a", "dp4a.s32.s32 %d0, %a0, %a0, %a0;", ("s32",), ("s32",), "dp4a.s32.s32"),
    ("min_nan_f32", "min.NaN.f32 %d0, %a0, %a0;", ("f32",), ("f32",), "min.NaN.f32"),
    ("max_xorsign", "max.xorsign.abs.f32 %d0, %a0, %a0;", ("f32",), ("f32",), "max.xorsign.abs.f32"),
    ("min_relu_s32", "min.relu.s32 %d0, %a0, %a0;", ("s32",), ("s32",), "min.relu.s32"),
    ("min_u16x2", "min.u16x2 %d0, %a0, %a0;", ("b32",), ("b32",), "min.u16x2"),
    ("prmt_f4e", "prmt.b32.f4e %d0, %a0, %a0, %a0;", ("b32",), ("b32",), "prmt.b32.f4e"),
    ("nanosleep", "nanosleep.u32 10;\nmov.u32 %d0, %a0;", ("u32",), ("u32",), "nanosleep.u32"),
    ("elect_sync", "elect.sync %dp0|%d0, 0xffffffff;", (), ("pred",), "elect.sync"),
    ("bar_sync_1", "bar.sync 1;\nmov.u32 %d0, %a0;", ("u32",), ("u32",), "bar.sync 1"),
    ("bar_sync_count", "bar.sync 0, 64;\nmov.u32 %d0, %a0;", ("u32",), ("u32",), "bar.sync 0, 64"),
    ("bar_arrive", "bar.arrive 0, 64;\nmov.u32 %d0, %a0;", ("u32",), ("u32",), "bar.arrive 0, 64"),
    ("trap", "trap;\nmov.u32 %d0, %a0;", ("u32",), ("u32",), "trap"),
    ("brkpt", "brkpt;\nmov.u32 %d0, %a0;", ("u32",), ("u32",), "brkpt"),
    ("ld_b128", ".reg .b128 %q;\nld.global.b128 %q, [%ad1];\nmov.b128 {%d0, _}, %q;", ("b64",), ("b64",),
     "ld.global.b128"),
    ("st_b128", ".reg .b128 %q;\nst.global.b128 [%ad1], %q;\nmov.u32 %d0, %a0;", ("u32",), ("u32",),
     "st.global.b128"),
    ("atom_exch_b128", ".reg .b128 %q;\natom.global.exch.b128 %q, [%ad1], %q;\nmov.u32 %d0, %a0;", ("u32",),
     ("u32",), "atom.global.exch.b128"),
    ("cp_async_mbarrier", "cp.async.mbarrier.arrive.b64 [%ad1];\nmov.u32 %d0, %a0;", ("u32",), ("u32",),
     "cp.async.mbarrier.arrive.b64"),
    ("wmma_f16", ".reg .b32 %w<8>;\nwmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%w0, %w1, %w2, %w3, %w4, %w5, "
     "%w6, %w7}, [%ad1];\nmov.u32 %d0, %w0;", ("u32",), ("u32",), "wmma.load.a.sync.aligned.row.m16n16k16"),
]
REFUSE = Ptx("refused", [Entry(n, body, ins, outs) for n, body, ins, outs, _ in REFUSED])
CALLS = RawPtx("calls", """
.func (.param .b32 twice_ret) twice(.param .b32 twice_x)
{
    .reg .b32 %x;
    ld.param.b32 %x, [twice_x];
    add.u32 %x, %x, %x;
    st.param.b32 [twice_ret], %x;
    ret;
}
""" + kernel("calls", ["out"], """{
    .param .b32 param0;
    st.param.b32 [param0], %g;
    .param .b32 retval0;
    call.uni (retval0), twice, (param0);
    ld.param.b32 %t, [retval0];
    }
    mul.wide.u32 %rd1, %g, 4;
    add.s64 %rd2, %rp0, %rd1;
    st.global.u32 [%rd2], %t;""") + kernel("pointer", ["out"], """
    mov.u64 %rd1, twice;
    {
    .param .b32 param0;
    st.param.b32 [param0], %g;
    .param .b32 retval0;
    proto: .callprototype (.param .b32 _) _ (.param .b32 _);
    call (retval0), %rd1, (param0), proto;
    ld.param.b32 %t, [retval0];
    }
    st.global.u32 [%rp0], %t;"""))


def test_a_call_runs_the_function_and_returns_its_value():
    out = np.zeros(64, np.uint32)
    CALLS("calls")(Out(out), block=(32, 1, 1), grid=(2, 1))
    assert (out == 2 * np.arange(64)).all()


def test_an_indirect_call_is_refused_by_name():
    with pytest.raises(UnsupportedInstruction, match=r"mov.u64 %rd1, twice.*function pointer"):
        CALLS("pointer")(Out(np.zeros(1, np.uint32)), block=(32, 1, 1), grid=(1, 1))


@pytest.mark.skipif(not HAVE_PTXAS, reason="ptxas is not installed")
@pytest.mark.parametrize("title", ["memory", "atomics", "warp", "sync", "misc", "refused", "calls", "memory_bugs",
                                   "negated_predicate", "b128"])
def test_the_hand_written_ptx_assembles_with_ptxas(title):
    """The refused forms too: refusing valid PTX is the point, refusing invalid PTX proves nothing."""
    assert ptxas_errors(MODULES[title]) == ""


# -- disagreements with the ISA ------------------------------------------------------------------
BUGS = Ptx("memory_bugs", [Entry("cvt_pack", "cvt.pack.sat.u16.s32 %d0, %a0, %a1;", ("s32", "s32"), ("b32",))])
NEGATED = Ptx("negated_predicate", [Entry("vote_negated", "vote.sync.any.pred %d0, !%a0, 0xffffffff;", ("pred",),
                                          ("pred",))])
B128 = RawPtx("b128", kernel("b128_mov", ["out", "inp"], """
    ld.global.v2.u64 {%rd1, %rd2}, [%rp1];
    mov.b128 %x, {%rd1, %rd2};
    mov.b128 {%rd3, %rd4}, %x;
    st.global.v2.u64 [%rp0], {%rd3, %rd4};""", regs=".reg .b128 %x;") + kernel("b128_st", ["out", "inp"], """
    ld.global.v2.u64 {%rd1, %rd2}, [%rp1];
    mov.b128 %x, {%rd1, %rd2};
    st.global.b128 [%rp0], %x;""", regs=".reg .b128 %x;"))


@pytest.mark.parametrize("name", ["b128_mov", "b128_st"])
def test_b128_values_are_refused_by_name(name):
    """PTX ISA 8.3 (sm_70+): mov.b128 packs and unpacks two 64-bit halves; st.b128 stores 16 bytes.
    cudasim's registers hold at most 64 bits, so it refuses .b128 by name rather than truncate."""
    a = np.array([0x0123456789ABCDEF, 0xFEDCBA9876543210], np.uint64)
    out = np.zeros(2, np.uint64)
    with pytest.raises(UnsupportedInstruction, match=re.escape("mov.b128 %x, {%rd1, %rd2}")):
        B128(name)(Out(out), In(a), block=(1, 1, 1), grid=(1, 1))


def test_cvt_pack_packs_both_saturated_operands():
    """ISA: cvt.pack.sat.u16.s32 d, a, b: d = clamp(a) << 16 | clamp(b), clamped to 0..65535."""
    (d,) = BUGS.run("cvt_pack", np.int32([70000, -5]), np.int32([7, 70000]))
    assert d.tolist() == [0xFFFF0007, 0x0000FFFF], [hex(v) for v in d.tolist()]


def test_negated_predicate_operand_is_modelled_or_refused_by_name():
    """`!%p` as a source (vote, setp's c, ...) is valid PTX: run it, or refuse with UnsupportedInstruction."""
    try:
        (d,) = NEGATED.run("vote_negated", np.array([1] * 31 + [0], np.uint8))
    except UnsupportedInstruction as e:
        assert "vote.sync.any.pred" in str(e)
    else:
        assert d.tolist() == [1] * 32


def test_match_any_and_match_all_give_the_lanes_that_hold_the_same_value():
    """__match_any_sync: the mask of the lanes holding this lane's value; __match_all_sync: every active lane's
    mask where they all hold one value (and the predicate), else 0."""
    from cudasim import Out, SourceModule
    src = r'''
    extern "C" __global__ void m(const int *v, unsigned *any, unsigned *all, int *pred) {
        int t = threadIdx.x, p;
        any[t] = __match_any_sync(0xffffffff, v[t]);
        all[t] = __match_all_sync(0xffffffff, v[t] / 100, &p);
        pred[t] = p;
    }'''
    v = (np.arange(64) % 3).astype(np.int32)
    v[40:] = 500
    a, al, p = np.zeros(64, np.uint32), np.zeros(64, np.uint32), np.zeros(64, np.int32)
    SourceModule(src, no_extern_c=True).get_function("m")(v, Out(a), Out(al), Out(p), grid=(1, 1), block=(64, 1, 1))
    want = [sum(1 << j for j in range(32) if v[w * 32 + j] == v[w * 32 + i]) for w in range(2) for i in range(32)]
    assert a.tolist() == want
    assert al[:32].tolist() == [0xFFFFFFFF] * 32 and p[:32].tolist() == [1] * 32  # warp 0: every v / 100 is 0
    assert al[32:].tolist() == [0] * 32 and p[32:].tolist() == [0] * 32  # warp 1: 0 and 5
