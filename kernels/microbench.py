"""Microbenchmarks: the device's own rates (memory, caches, pipes, latency, atomics, launch, host link).

    python -m kernels.microbench [--quick] [--only GROUP ...] [--out FILE]

The kernels are in kernels/microbench.cu (each commented: what it measures, why it saturates
it). They run through the project's runner (kernels/gpu.py): NVRTC's cubin for the device's
architecture, loaded by PyCUDA, timed with CUDA events around each launch, warm-up launches
first, the median of the repeats; at the device's default clocks (nothing is locked).
Per-clock figures use the SM clock the kernel itself ran at: thread 0 of every block reads
clock64 and %globaltimer at its start and end, and cycles / ns is the clock (median over
blocks). Every figure has a unit and its method; the JSON also records the device, the
driver, nvidia-smi's clocks before and after, and the date.

SASS that the figures count (NVRTC 13.0, for the H100, read with nvdisasm): fp32_ffma 256 FFMA per
loop iteration; fp64_dfma 128 DFMA; int_imad 128 IMAD; int_lop3 128 LOP3.LUT; sfu_rsqrt 128
MUFU.RSQ; sfu_exp 128 FMUL + 128 MUFU.EX2; wmma_tf32 four HMMA.1684.F32.TF32 per mma_sync;
wmma_fp64 one DMMA.8x8x4 per mma_sync; mma_tf32_m16n8k8 one HMMA.1688.F32.TF32 per mma;
mma_fp64_m16n8k16 one DMMA.16x8x16; smem_read32_* 16 LDS (+16 IADD) per iteration, inside
the loop; smem_read128 4 LDS.128; chase_* one LDG.E.64 (.STRONG.GPU for .cg) or LDS per step;
atomic_global_* REDG.E.ADD.STRONG.GPU; atomic_shared_*_add ATOMS.ADD; atomic_shared_*_one
ATOMS.POPC.INC.32 (the compiler's form of atomicAdd(p, 1) on shared memory).
Timed loops, exactly (each also holds the loop's UIADD3, ISETP.LE.AND and BRA, nothing else):
deplat_{ffma,fadd,dfma,imad,iadd3,lop3,mufu_ex2,mufu_rsq,shfl,atoms} 256 FFMA / FADD / DFMA / IMAD /
IADD3 / LOP3.LUT / MUFU.EX2 (operand -x) / MUFU.RSQ / SHFL.BFLY / ATOMS.ADD, each reading the register
the one before wrote; deplat_hmma_tf32 128 HMMA.1684.F32.TF32 (32 mma_sync: two interleaved chains,
each HMMA reading the one two before); deplat_dmma_fp64 32 DMMA.8x8x4 in one chain + 30 NOP (ptxas's,
between dependent DMMAs); deplat_bar 32 BAR.SYNC.DEFER_BLOCKING; inflight_uU U LDG.E.128.STRONG.GPU,
all issued before the first of 4U FADD (plus per load a LOP3 mask, IMAD.WIDE.U32 address, IADD3 or
LEA; 19, 25, 29, 46 registers for U = 1, 2, 4, 8); atoms_fixed 16 ATOMS.POPC.INC.32 on one address;
atoms_random 8 x (IMAD + SHF.R.U32.HI + LEA + ATOMS.POPC.INC.32) + 1 IMAD.MOV.U32; barrier_ffma
BAR.SYNC.DEFER_BLOCKING + 8 FFMA, barrier_ffma_nobar the 8 FFMA.
deplat2 (deplat's harness, 256 steps per loop iteration): deplat_s2r 256 x (ISETP.NE.U32.AND P0, R0, -0x1 + @P0 S2R
R0, SR_VIRTUALSMID), deplat_isetp 256 x (ISETP.NE.U32.AND + @P0 IMAD.IADD R0, R0, 0x1, R5); deplat_ldc 256 LDC R,
c[0x3][R]; deplat_uldc 256 ULDC UR5, c[0x3][UR5]; deplat_uiadd3 256 UIADD3 UR5, UR6, UR5, UR7 (257 UIADD3 with the
counter's); deplat_uimad 256 UIMAD UR5, UR5, UR7, UR6; deplat_imad_wide 256 IMAD.WIDE.U32 R4, R5, UR6, R4;
deplat_ld_smem and deplat_ld_l1 256 LD.E.64 R, [R.64]; deplat_lds 256 LDS R, [R]; deplat_ldg_l1 256 LDG.E.64;
deplat_ldsm 256 LDSM.16.M88 R, [R]; each step reads the register (or predicate) the one before wrote.
deplat_cvt (the same harness): deplat_cvt_f64_s64 256 x (F2I.S64.F64.TRUNC + I2F.F64.S64), deplat_cvt_f64_s32 256 x
(F2I.F64.TRUNC + I2F.F64), deplat_cvt_f32_s32 256 x (F2I.TRUNC.NTZ + I2FP.F32.S32), deplat_cvt_f64_f32 256 x
(F2F.F32.F64 + F2F.F64.F32), deplat_frnd_f64 256 FRND.F64, deplat_frnd_f32 256 FRND, deplat_rcp64h 256 MUFU.RCP64H
(+ 2 IMAD.MOV.U32, the low word's zero).
l2_store_full, _sector 8 STG.E, l2_store_vec 8 STG.E.128, each with a LOP3.LUT (the wrap) and an IMAD.WIDE.U32 (the
address), plus 8 VIADD/IADD3 (_sector: 5 LEA + 3 IMAD) stepping the index, and in _vec 21 MOV/IMAD.MOV copying the
float4 between in-flight stores; l1_hit_line, _broadcast 16 LDG.E from one address register (offsets 1 KiB apart in
the immediate), all before 8 LOP3.LUT fold them, plus 4 (_broadcast: 5, uniform) forming the iteration's address;
l2_random 8 x (IMAD, the LCG; IMAD.HI.U32, the index; IMAD.WIDE.U32; LDG.E.STRONG.GPU), all before 8 FADD, and a MOV.
l1p_hit/_miss/_st (l1_patterns) 16 LDG.E (LDG.E.128, STG.E, STG.E.128) from one address register, the step in the
immediate, folded by LOP3.LUT (at least 13 of the 4-byte loads in flight before the first fold), plus 4 (_miss: 6)
forming the iteration's window.
blocks_empty and blocks_smem8k run the same LDC, ULDC, ISETP, @!P0 EXIT (8192 bytes of static shared memory in the
second); eo_args<N> spin on CS2R SR_GLOBALTIMERLO; write_once one STG.E.128 per thread between the block stamps.
"""
from __future__ import annotations

import datetime
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from cudasim.console import Parser, fail

SOURCE = Path(__file__).with_name("microbench.cu")
CHASE_BYTES = {"l1": 32 << 10, "l2": 8 << 20, "dram": 256 << 20}  # pointer-chase regions per level
GROUPS = ["clock", "dram", "l2", "smem", "compute", "tensor", "latency", "atomics", "launch", "hostlink",
          "deplat", "inflight", "smem_atomics", "barrier", "deplat2", "blocks", "event_overhead", "l2_rates",
          "atomic_patterns", "grid2d", "deplat_cvt", "l1_patterns", "residency", "l1_capacity", "imad_forms",
          "atomic_tail"]
FFMA_ARGS = (np.float32(0.9999), np.float32(1e-4))  # b < 1, c > 0: fp32_ffma's x stays positive
PROTOCOL = ("CUDA events around each launch (kernels.gpu._events_ms): warm-up launches, then repeats, "
            "median; default clocks, nothing locked; kernels from NVRTC's cubin for the device (kernels.gpu.module)")


class Bench:
    """The device, the loaded module, the settings, and the figures gathered so far."""

    def __init__(self, quick: bool):
        from . import gpu

        self.gpu = gpu
        self.cuda, self.dev = gpu.init()
        self.mod = gpu.module(SOURCE.read_text(), filename=SOURCE.name)
        self.sms = self.dev["sms"]
        self.quick = quick
        self.target_ms = 4.0 if quick else 15.0  # one launch of a throughput kernel
        self.repeats = 3 if quick else 10
        self.figures: dict[str, dict] = {}
        self.sink = self.cuda.mem_alloc(1 << 16)
        self.stamps = self.cuda.mem_alloc(4 * 8 * self.sms * 64)  # [c0, c1, g0, g1] per block
        self.cuda.memset_d32(self.sink, 0, (1 << 16) // 4)
        self._mhz = None

    def f(self, name):
        return self.mod.get_function(name)

    def fig(self, name: str, value: float, unit: str, method: str, **extra) -> None:
        self.figures[name] = {"value": float(value), "unit": unit, "method": method, **extra}

    def time(self, launch, repeats: int | None = None, warmup: int = 2) -> float:
        """Median event time (ms) of launch(i)."""
        r = repeats or self.repeats
        return self.gpu._events_ms(launch, r, warmup, min_seconds=0.0, max_repeats=r)

    def samples(self, launch, repeats: int, warmup: int = 1) -> list[float]:
        """Every repeat's event time (ms), the protocol of kernels.gpu._events_ms, for figures that report
        their spread as well as the median."""
        for i in range(warmup):
            launch(i)
        out = []
        for i in range(repeats):
            s, e = self.cuda.Event(), self.cuda.Event()
            s.record()
            launch(warmup + i)
            e.record()
            e.synchronize()
            out.append(e.time_since(s))
        return out

    def once_ms(self, launch) -> float:
        return self.gpu._events_ms(launch, 1, 0, min_seconds=0.0, max_repeats=1)

    def calibrate(self, run, n: int, target_ms: float | None = None, lo: int = 1, hi: int = 1 << 30) -> int:
        """The loop count n for which one launch of run(n) takes about target_ms (two rounds)."""
        target = target_ms or self.target_ms
        clamp = lambda x: int(min(hi, max(lo, x)))  # noqa: E731
        run(n)  # loads the function; first-launch costs stay out
        ms = self.once_ms(lambda i: run(n))
        for _ in range(3):
            if ms >= 0.5 * target or n >= hi:
                break
            n = clamp(n * min(64.0, target / max(ms, 1e-3)))
            ms = self.once_ms(lambda i: run(n))
        return clamp(n * target / max(ms, 1e-3))

    def clock(self, blocks: int) -> dict:
        """The SM clock the last launch ran at, from its blocks' stamps: median of cycles / ns."""
        st = np.empty((blocks, 4), np.int64)
        self.cuda.memcpy_dtoh(st, self.stamps)
        cyc = (st[:, 1] - st[:, 0]).astype(np.float64)
        ns = (st[:, 3] - st[:, 2]).astype(np.float64)
        ok = ns > 0
        ghz = cyc[ok] / ns[ok] if ok.any() else np.array([np.nan])
        return {"clock_mhz": float(1e3 * np.median(ghz)), "clock_mhz_min": float(1e3 * ghz.min()),
                "clock_mhz_max": float(1e3 * ghz.max()), "block_cycles_median": float(np.median(cyc)),
                "block_ns_median": float(np.median(ns)), "span_ms": float(st[:, 3].max() - st[:, 2].min()) / 1e6}

    def sm_mhz(self) -> tuple[float, str]:
        """The SM clock for kernels that carry no block stamps, and where it comes from: the 'clock' group's figure
        if it ran, else a short full-chip FFMA kernel's block stamps (measured once)."""
        if "sm_clock" in self.figures:
            return self.figures["sm_clock"]["value"], "the sm_clock figure"
        if self._mhz is None:
            self._mhz = self.throughput("fp32_ffma", FFMA_ARGS, 256, self.sms * 8, 256, 256,
                                        target_ms=self.target_ms / 3)["clock_mhz"]
        return self._mhz, "block stamps of a full-chip FFMA kernel run for it"

    def queued_us(self, launch, runs: int) -> list[float]:
        """CUDA-event time (us) of launch() queued behind a 2 ms spin kernel, so that the events and the launch
        reach the GPU together (no host latency inside the interval), `runs` times."""
        spin = self.f("spin_ns")
        ev0, ev1 = self.cuda.Event(), self.cuda.Event()
        got = []
        for _ in range(runs):
            spin(np.uint64(2_000_000), block=(1, 1, 1), grid=(1, 1))
            ev0.record()
            launch()
            ev1.record()
            ev1.synchronize()
            got.append(ev1.time_since(ev0) * 1e3)
        return got

    def smi_during(self, run, launches: int = 40) -> dict:
        """nvidia-smi's SM clock, power and clock-event reasons read while `launches` launches of run()
        (each about target_ms long) are queued and running."""
        for _ in range(launches):
            run()
        q = "clocks.sm,clocks.mem,power.draw,temperature.gpu"
        got = nvidia_smi(q + ",clocks_event_reasons.active")
        if "error" in got:
            got = nvidia_smi(q)
        self.cuda.Context.synchronize()
        return got

    def throughput(self, name: str, args, per_iter: int, blocks: int, threads: int, n0: int,
                   target_ms: float | None = None) -> dict:
        """Calibrate (one launch about target_ms, default self.target_ms), time and return ms, ops (per-thread
        loop ops x threads), the clock it ran at."""
        cuda = self.cuda
        fn = self.f(name)
        grid, block = (blocks, 1), (threads, 1, 1)

        def run(n):
            fn(np.int32(n), *args, self.sink, self.stamps, block=block, grid=grid)

        n = self.calibrate(run, n0, target_ms, hi=(1 << 31) - 1)
        ms = self.time(lambda i: run(n))
        clk = self.clock(blocks)
        ops = float(blocks) * threads * n * per_iter
        cuda.Context.synchronize()
        return {"ms": ms, "ops": ops, "iters": n, "grid": blocks, "block": threads,
                "registers": fn.num_regs, "run": lambda: run(n), **clk}


# ------------------------------------------------------------------------------------------------
def per_clk_sm(b: Bench, ops: float, r: dict) -> float:
    return ops / (r["ms"] * 1e-3 * r["clock_mhz"] * 1e6 * b.sms)


def m_clock(b: Bench) -> None:
    """The clock under a long full-chip FFMA kernel (the 'compute' group re-measures it per kernel)."""
    r = b.throughput("fp32_ffma", FFMA_ARGS, 256, b.sms * 8, 256, 256)
    b.fig("sm_clock", r["clock_mhz"], "MHz",
          "clock64 cycles / %globaltimer ns of each block of a full-chip FFMA kernel "
          f"({r['ms']:.1f} ms, {b.sms * 8} blocks x 256 threads), median over blocks",
          min_mhz=r["clock_mhz_min"], max_mhz=r["clock_mhz_max"], kernel_ms=r["ms"], blocks_span_ms=r["span_ms"],
          nvidia_smi_during=b.smi_during(r["run"], 20 if b.quick else 60))
    # Does the GPU's timer (CUDA events, %globaltimer) run at the host's rate? 20 launches back to back,
    # timed by events and by the host's monotonic clock from the first event's record to the last's completion.
    cuda = b.cuda
    ev0, ev1 = cuda.Event(), cuda.Event()
    cuda.Context.synchronize()
    ev0.record()
    t0 = time.perf_counter()
    for _ in range(20):
        r["run"]()
    ev1.record()
    ev1.synchronize()
    host_ms = (time.perf_counter() - t0) * 1e3
    b.fig("gpu_timer_rate", host_ms / ev1.time_since(ev0), "x",
          f"host time.perf_counter / CUDA-event time over 20 back-to-back FFMA launches ({host_ms:.0f} ms): 1.0 = "
          "the GPU's timer (events, %globaltimer) runs at the host clock's rate, so the MHz figures are true MHz",
          host_ms=host_ms)


def m_dram(b: Bench) -> None:
    cuda = b.cuda
    nbytes = (256 if b.quick else 2048) << 20
    n4 = nbytes // 16
    a, c = cuda.mem_alloc(nbytes), cuda.mem_alloc(nbytes)
    cuda.memset_d32(a, 0x3F800000, nbytes // 4)  # 1.0f
    cuda.memset_d32(c, 0, nbytes // 4)
    grid, block = (b.sms * 8, 1), (256, 1, 1)
    rd, wr, cp = b.f("mem_read"), b.f("mem_write"), b.f("mem_copy")
    what = f"{nbytes >> 20} MiB (L2 is {b.dev['l2_bytes'] >> 20} MiB)"
    grid_text = f"{b.sms * 8} blocks x 256 threads, float4 grid-stride loop, 4 accesses in flight per thread"
    ms = b.time(lambda i: rd(a, np.uint64(n4), np.int32(1), b.sink, block=block, grid=grid), b.repeats * 2)
    b.fig("dram_read", nbytes / ms / 1e6, "GB/s", f"mem_read over {what}, ld.global.cg, {grid_text}; "
          "bytes read / event time", ms=ms, bytes=nbytes)
    ms = b.time(lambda i: wr(c, np.uint64(n4), np.float32(2.0), block=block, grid=grid), b.repeats * 2)
    b.fig("dram_write", nbytes / ms / 1e6, "GB/s", f"mem_write over {what}, {grid_text}; bytes written / event "
          "time", ms=ms, bytes=nbytes)
    ms = b.time(lambda i: cp(a, c, np.uint64(n4), block=block, grid=grid), b.repeats * 2)
    b.fig("dram_copy", 2 * nbytes / ms / 1e6, "GB/s", f"mem_copy {what} to another buffer, {grid_text}; "
          "(bytes read + bytes written) / event time", ms=ms, bytes=2 * nbytes)
    ms = b.time(lambda i: cuda.memcpy_dtod(c, a, nbytes), b.repeats * 2)
    b.fig("dram_copy_dtod", 2 * nbytes / ms / 1e6, "GB/s", f"cuMemcpyDtoD of {what}; (read + written) / event "
          "time (the driver's copy, for reference)", ms=ms, bytes=2 * nbytes)
    a.free()
    c.free()


def m_l2(b: Bench) -> None:
    cuda = b.cuda
    sizes = [8, 24] if b.quick else [2, 4, 8, 16, 24, 32, 48, 64]
    buf = cuda.mem_alloc(max(sizes) << 20)
    cuda.memset_d32(buf, 0x3F800000, (max(sizes) << 20) // 4)
    rd = b.f("mem_read")
    grid, block = (b.sms * 8, 1), (256, 1, 1)
    curve = {}
    for mb in sizes:
        nbytes = mb << 20

        def run(p, nbytes=nbytes):
            rd(buf, np.uint64(nbytes // 16), np.int32(p), b.sink, block=block, grid=grid)

        passes = b.calibrate(run, 8, target_ms=b.target_ms / 3)
        ms = b.time(lambda i: run(passes))
        gbs = nbytes * passes / ms / 1e6
        curve[mb] = gbs
        b.fig(f"l2_read_{mb}mb", gbs, "GB/s", f"mem_read re-reading a {mb} MiB buffer {passes} times "
              f"(ld.global.cg: L2, not L1), {b.sms * 8} blocks x 256 threads; bytes read / event time",
              ms=ms, passes=passes, bytes=nbytes * passes)
    best = max((mb for mb in curve if mb <= 16), key=lambda mb: curve[mb])
    b.fig("l2_read", curve[best], "GB/s", f"the highest of l2_read_*mb at working sets <= 16 MiB (at {best} MiB), "
          "all L2 hits", working_set_mb=best)
    buf.free()


def m_smem(b: Bench) -> None:
    blocks, threads = b.sms * 2, 1024
    base = None
    for k in (1, 2, 4, 8, 16, 32):
        r = b.throughput(f"smem_read32_stride{k}", (), 16, blocks, threads, 64)
        instr = r["ops"] / 32  # warp-level LDS instructions
        cyc_per_instr = r["ms"] * 1e-3 * r["clock_mhz"] * 1e6 * b.sms / instr
        if k == 1:
            base = r
            bpc = r["ops"] * 4 / (r["ms"] * 1e-3 * r["clock_mhz"] * 1e6 * b.sms)
            b.fig("smem_read32_per_sm", bpc, "B/clk/SM",
                  f"smem_read32_stride1: {blocks} blocks x 1024 threads, each lane reads word lane + 32j "
                  "(conflict-free LDS, 128 B per warp instruction), 16 per loop; bytes / (event time x clock x SMs)",
                  clock_mhz=r["clock_mhz"], ms=r["ms"], iters=r["iters"])
            b.fig("smem_read32_chip", r["ops"] * 4 / r["ms"] / 1e6, "GB/s",
                  "smem_read32_stride1 as above, bytes / event time, whole chip")
            b.fig("smem_cycles_per_lds32", cyc_per_instr, "clk/warp-instr/SM",
                  "smem_read32_stride1: SM cycles per conflict-free 4-byte warp load (1 wavefront)")
        else:
            b.fig(f"smem_conflict_{k}way", cyc_per_instr, "clk/warp-instr/SM",
                  f"smem_read32_stride{k}: lane reads word {k}*lane + 32j, a {k}-way bank conflict; SM cycles per "
                  "warp load (event time x clock x SMs / warp loads); conflict-free is smem_cycles_per_lds32",
                  clock_mhz=r["clock_mhz"], ms=r["ms"], iters=r["iters"],
                  vs_conflict_free=cyc_per_instr / (base["ms"] * 1e-3 * base["clock_mhz"] * 1e6 * b.sms
                                                    / (base["ops"] / 32)))
    r = b.throughput("smem_read128", (), 4, blocks, threads, 64)
    bpc = r["ops"] * 16 / (r["ms"] * 1e-3 * r["clock_mhz"] * 1e6 * b.sms)
    b.fig("smem_read128_per_sm", bpc, "B/clk/SM",
          f"smem_read128: {blocks} blocks x 1024 threads, lane reads float4 lane + 32j (LDS.128, 512 B per warp "
          "instruction in 4 conflict-free quarter-warp wavefronts); bytes / (event time x clock x SMs)",
          clock_mhz=r["clock_mhz"], ms=r["ms"], iters=r["iters"])
    b.fig("smem_read128_chip", r["ops"] * 16 / r["ms"] / 1e6, "GB/s", "smem_read128 as above, bytes / event time")


def m_compute(b: Bench) -> None:
    blocks, threads = b.sms * 8, 256
    full = f"{blocks} blocks x 256 threads (2048 per SM, one wave), 8 independent chains per thread"
    cases = [
        ("fp32_ffma", "ffma", (np.float32(0.9999), np.float32(1e-4)), 256, 2, "FFMA", "TFLOP/s", 128),
        ("fp64_dfma", "dfma", (np.float64(0.9999), np.float64(1e-4)), 128, 2, "DFMA", "TFLOP/s", 64),
        ("int_imad", "imad", (np.uint32(1664525), np.uint32(1013904223)), 128, 1, "IMAD", "Tops/s", 64),
        ("int_lop3", "lop3", (np.uint32(0x5bd1e995), np.uint32(0x1b873593)), 128, 1, "LOP3", "Tops/s", 64),
        ("sfu_rsqrt", "mufu_rsqrt", (), 128, 1, "MUFU.RSQ", "Tops/s", 16),
        ("sfu_exp", "mufu_ex2", (np.float32(-1.4426950408889634),), 128, 1, "MUFU.EX2", "Tops/s", 16),
    ]
    for kernel, name, args, per_iter, flop, instr, unit, spec in cases:
        r = b.throughput(kernel, args, per_iter, blocks, threads, 64)
        b.fig(name, r["ops"] * flop / r["ms"] / 1e9, unit,
              f"{kernel}: {full}, {per_iter} {instr} per loop iteration (SASS); "
              f"{instr} x {flop} / event time" if flop > 1 else
              f"{kernel}: {full}, {per_iter} {instr} per loop iteration (SASS); thread-level {instr} / event time",
              ms=r["ms"], iters=r["iters"], clock_mhz=r["clock_mhz"], registers=r["registers"])
        b.fig(f"{name}_per_clk_sm", per_clk_sm(b, r["ops"], r), f"{instr}/clk/SM",
              f"{kernel} as {name}: thread-level {instr} / (event time x measured clock x SMs); "
              f"the programming guide's table says {spec}", clock_mhz=r["clock_mhz"])


def m_imad_forms(b: Bench) -> None:
    """IMAD's 64-bit-result forms against plain IMAD, in one run: whether IMAD.WIDE / IMAD.HI take the
    FMA-heavy datapath longer than IMAD (address arithmetic and carry chains are made of them)."""
    blocks, threads = b.sms * 8, 256
    args = (np.uint32(1664525), np.uint32(1013904223))
    chains = f"{blocks} blocks x 256 threads, 8 independent chains per thread"
    groups = (  # (kernel, figure, instruction) of each, how a step is made, whose rate the others are set beside
        ((("int_imad", "imad_forms", "IMAD"), ("int_imad_wide", "imad_wide_forms", "IMAD.WIDE.U32"),
          ("int_imad_hi", "imad_hi_forms", "IMAD.HI.U32")),
         lambda instr: f"128 {instr} per loop iteration (SASS)", "IMAD's"),
        # each step one LOP3 and one multiply with no addend: nothing else in the loop (SASS)
        ((("int_xor_imad", "xor_imad", "IMAD"), ("int_xor_imad_wide_u32", "xor_imad_wide_u32", "IMAD.WIDE.U32"),
          ("int_xor_imad_wide", "xor_imad_wide", "IMAD.WIDE")),
         lambda instr: f"each step one LOP3.LUT and one {instr} (128 of each per loop iteration, SASS)",
         "the LOP3 + IMAD loop's"))
    for rows, step, versus in groups:
        plain = None
        for kernel, name, instr in rows:
            r = b.throughput(kernel, args, 128, blocks, threads, 64)
            rate = per_clk_sm(b, r["ops"], r)
            plain = plain or rate
            b.fig(f"{name}_per_clk_sm", rate, f"{instr}/clk/SM",
                  f"{kernel}: {chains}, {step(instr)}; thread-level {instr} / (event time x measured clock x SMs); "
                  f"{rate / plain:.2f} x {versus} in the same run", ms=r["ms"], iters=r["iters"],
                  clock_mhz=r["clock_mhz"], registers=r["registers"])


ATOMIC_TAIL_WORDS = (0, 1, 4096)


def m_atomic_tail(b: Bench) -> None:
    """One global atomic per block from its thread 0 at the block's end (block_tail_atomic), over a grid of many
    short blocks: the time per block with none, with all on one word, with each block's on one of 4,096 lines.
    The one-word time per block is what a grid-wide count costs when the atomics come from every SM in turn rather
    than from one warp's loop (atomic_global_same)."""
    cuda = b.cuda
    blocks = 1 << (15 if b.quick else 19)
    counts = cuda.mem_alloc(4 * 32 * max(ATOMIC_TAIL_WORDS))
    fn = b.f("block_tail_atomic")
    for threads in (256, 32):
        for words in ATOMIC_TAIL_WORDS:
            def run(i, words=words, threads=threads):
                fn(counts, np.uint32(words), block=(threads, 1, 1), grid=(blocks, 1))

            cuda.memset_d32(counts, 0, 32 * max(ATOMIC_TAIL_WORDS))
            run(0)
            got = np.empty(32 * max(ATOMIC_TAIL_WORDS), np.uint32)
            cuda.memcpy_dtoh(got, counts)
            ok = int(got.sum(dtype=np.uint64)) == (blocks if words else 0)
            ms = b.time(run)
            what = ("no atomic" if not words else "every block's atomic on one word" if words == 1 else
                    f"each block's atomic on one of {words:,} words, a 128-B line each")
            b.fig(f"atomic_tail_{threads}_{words}", ms * 1e6 / blocks, "ns/block",
                  f"block_tail_atomic: {blocks:,} blocks of {threads} threads, thread 0 of each atomicAdd(count, 1) "
                  f"(REDG.E.ADD), {what}; event time / blocks (the whole GPU); checked (the counts' sum)",
                  ms=ms, blocks=blocks, threads=threads, words=words, verified=ok)
    counts.free()


def m_tensor(b: Bench) -> None:
    cuda = b.cuda
    rng = np.random.default_rng(0)
    ab32 = cuda.to_device(rng.random(256, np.float32) * 1e-3)
    ab64 = cuda.to_device(rng.random(64) * 1e-3)
    out = cuda.mem_alloc(1 << 16)
    cases = (  # kernel, figure, blocks per SM, MMAs per warp per loop iteration, FLOP per MMA, what
        ("wmma_tf32", "tf32_wmma", 4, 4, 2 * 16 * 16 * 8,
         "nvcuda::wmma m16n16k8 TF32 (four HMMA.1684.F32.TF32), as sgemm_tf32_wmma uses it"),
        ("wmma_fp64", "fp64_wmma", 4, 8, 2 * 8 * 8 * 4, "nvcuda::wmma m8n8k4 FP64 (DMMA.8x8x4), as dgemm_wmma uses it"),
        ("mma_tf32_m16n8k8", "tf32_mma_m16n8k8", 4, 8, 2 * 16 * 8 * 8,
         "PTX mma.sync m16n8k8 TF32 (HMMA.1688.F32.TF32), operands in registers"),
        ("mma_fp64_m16n8k16", "fp64_mma_m16n8k16", 2, 4, 2 * 16 * 8 * 16,
         "PTX mma.sync m16n8k16 FP64 (DMMA.16x8x16, Hopper's FP64 shape), operands in registers"))
    for kernel, name, per_sm, accs, flop_mma, shape in cases:
        fn = b.f(kernel)
        blocks = b.sms * per_sm
        if kernel.startswith("wmma"):
            ab = ab32 if "tf32" in kernel else ab64

            def run(n, fn=fn, ab=ab, blocks=blocks):
                fn(ab, out, np.int32(n), np.int32(0), b.stamps, block=(256, 1, 1), grid=(blocks, 1))
        else:
            def run(n, fn=fn, blocks=blocks):
                fn(np.int32(n), b.sink, b.stamps, block=(256, 1, 1), grid=(blocks, 1))

        n = b.calibrate(run, 64)
        ms = b.time(lambda i: run(n))
        clk = b.clock(blocks)
        flops = float(blocks) * 8 * n * accs * flop_mma
        smi = b.smi_during(lambda: run(n), 20 if b.quick else 60) if kernel.startswith("mma") else None
        b.fig(name, flops / ms / 1e9, "TFLOP/s",
              f"{kernel}: {shape}; {blocks} blocks x 8 warps, each warp {accs} independent accumulators, MMAs in "
              f"a loop with no memory traffic; {flop_mma} FLOP per MMA / event time",
              ms=ms, iters=n, clock_mhz=clk["clock_mhz"], registers=fn.num_regs,
              **({"nvidia_smi_during": smi} if smi else {}))
        b.fig(f"{name}_per_clk_sm", flops / (ms * 1e-3 * clk["clock_mhz"] * 1e6 * b.sms), "FLOP/clk/SM",
              f"{kernel} as {name}: FLOP / (event time x measured clock x SMs)", clock_mhz=clk["clock_mhz"])
    for x in (ab32, ab64, out):
        x.free()


def _chain(region: int, base: int, rng) -> tuple[np.ndarray, int]:
    """A random cycle over the 128-byte lines of `region` bytes at device address `base`: the first
    8 bytes of each line hold the address of the next line. Returns (host image, start address)."""
    lines = region // 128
    order = rng.permutation(lines)
    img = np.zeros(region // 8, np.uint64)
    img[order * 16] = (base + 128 * np.roll(order, -1)).astype(np.uint64)
    return img, base + 128 * int(order[0])


def m_latency(b: Bench) -> None:
    cuda = b.cuda
    rng = np.random.default_rng(1)
    out = cuda.mem_alloc(64)
    res = np.zeros(3, np.int64)
    f_ca, f_cg = b.f("chase_ca"), b.f("chase_cg")
    flush_bytes = 1 << 30
    flush = cuda.mem_alloc(flush_bytes)
    wr = b.f("mem_write")
    q = 4 if b.quick else 1

    def chase(fn, start, warm, steps):
        fn(np.uint64(start), np.int32(warm), np.int32(steps), out, block=(1, 1, 1), grid=(1, 1))
        cuda.memcpy_dtoh(res, out)
        return res[0] / steps, res[1] / steps, int(res[2])

    for level, region, fn, warm_all, steps, runs, note in (
            ("l1", CHASE_BYTES["l1"], f_ca, True, 65536 // q, 3, "ld.global (cached in L1), 32 KiB region, after a warm pass"),
            ("l2", CHASE_BYTES["l2"], f_cg, True, 32768 // q, 3, "ld.global.cg (L1 bypassed), 8 MiB region, after a warm pass"),
            ("dram", CHASE_BYTES["dram"], f_cg, False, 16384 // q, 3,
             "ld.global.cg, 256 MiB region, cold: each run after a 1 GiB write has flushed L2")):
        buf = cuda.mem_alloc(region)
        img, start = _chain(region, int(buf), rng)
        cuda.memcpy_htod(buf, img)
        cyc, ns = [], []
        p = start
        for _ in range(runs):
            if level == "dram":
                wr(flush, np.uint64(flush_bytes // 16), np.float32(0), block=(256, 1, 1), grid=(b.sms * 8, 1))
            c, t, p = chase(fn, p, (region // 128) if warm_all else 0, steps)
            cyc.append(c)
            ns.append(t)
        b.fig(f"latency_{level}", float(np.median(cyc)), "cycles",
              f"pointer chase, 1 thread, random cycle over 128-B lines: {note}; {steps} dependent loads timed with "
              f"clock64, median of {runs} runs", ns=float(np.median(ns)), steps=steps)
        b.fig(f"latency_{level}_ns", float(np.median(ns)), "ns",
              f"as latency_{level}, timed with %globaltimer", steps=steps)
        buf.free()
        del img
    fs = b.f("chase_shared")
    steps = 65536 // q
    cyc, ns = [], []
    for _ in range(3):
        fs(np.int32(steps), out, block=(32, 1, 1), grid=(1, 1))
        cuda.memcpy_dtoh(res, out)
        cyc.append(res[0] / steps)
        ns.append(res[1] / steps)
    b.fig("latency_smem", float(np.median(cyc)), "cycles",
          f"pointer chase through shared memory (LDS on the loaded address), 1 thread, {steps} steps timed with "
          "clock64, median of 3 runs", ns=float(np.median(ns)))
    b.fig("latency_smem_ns", float(np.median(ns)), "ns", "as latency_smem, timed with %globaltimer")
    flush.free()
    out.free()


def m_atomics(b: Bench) -> None:
    cuda = b.cuda
    blocks, threads = b.sms * 8, 256
    nthr = blocks * threads
    a = cuda.mem_alloc(4 * nthr)
    for kernel, name, what in (("atomic_global_distinct", "atomic_global_distinct",
                                "each thread adds to its own word (a warp covers one 128-B line)"),
                               ("atomic_global_same", "atomic_global_same", "every thread adds to one word")):
        fn = b.f(kernel)

        def run(n, fn=fn):
            fn(a, np.int32(n), np.uint32(1), block=(threads, 1, 1), grid=(blocks, 1))

        cuda.memset_d32(a, 0, nthr)
        run(3)
        got = np.empty(nthr, np.uint32)
        cuda.memcpy_dtoh(got, a)
        ok = bool((got == 3).all()) if kernel.endswith("distinct") else bool(got[0] == 3 * nthr)
        n = b.calibrate(run, 4, target_ms=b.target_ms / 3)
        ms = b.time(lambda i: run(n))
        ops = float(nthr) * n
        b.fig(name, ops / ms / 1e6, "Gatomic/s",
              f"{kernel}: atomicAdd(p, inc), result unused (REDG.E.ADD), {what}; {blocks} blocks x {threads} "
              f"threads, {n} per thread; thread-level atomics / event time; checked", ms=ms, iters=n, verified=ok)
    a.free()
    blocks, threads = b.sms * 2, 1024
    out = cuda.mem_alloc(4 * blocks * threads)
    for kernel, what in (("atomic_shared_distinct_add", "own word, run-time increment (ATOMS.ADD)"),
                         ("atomic_shared_same_add", "one word per block, run-time increment (ATOMS.ADD)"),
                         ("atomic_shared_distinct_one", "own word, atomicAdd(p, 1) (ATOMS.POPC.INC)"),
                         ("atomic_shared_same_one", "one word per block, atomicAdd(p, 1) (ATOMS.POPC.INC)")):
        fn = b.f(kernel)

        def run(n, fn=fn):
            fn(out, np.int32(n), np.uint32(1), block=(threads, 1, 1), grid=(blocks, 1))

        run(5)
        got = np.empty((blocks, threads), np.uint32)
        cuda.memcpy_dtoh(got, out)
        if "distinct" in kernel:
            ok = bool((got == 5).all())
        else:
            ok = bool((got[:, 0] == 5 * threads).all() and (got[:, 1:] == 0).all())
        n = b.calibrate(run, 16, target_ms=b.target_ms / 3)
        ms = b.time(lambda i: run(n))
        ops = float(blocks) * threads * n
        b.fig(kernel, ops / ms / 1e6, "Gatomic/s",
              f"{kernel}: shared-memory atomicAdd, {what}; {blocks} blocks x 1024 threads, {n} per thread; "
              "thread-level atomics / event time; checked", ms=ms, iters=n, verified=ok)
    out.free()


def m_launch(b: Bench) -> None:
    cuda = b.cuda
    empty, spin = b.f("empty_kernel"), b.f("spin_ns")
    empty.prepare("")
    spin.prepare("Q")
    g, blk = (1, 1), (1, 1, 1)
    ms = b.gpu._events_ms(lambda i: empty.prepared_call(g, blk), 200, 20, min_seconds=0.0, max_repeats=200)
    b.fig("launch_empty_event", ms * 1e3, "us",
          "CUDA-event time of one empty kernel (1 block x 1 thread), events recorded right before and after the "
          "launch from Python on an idle GPU, as kernels.bench times a kernel: includes the host's time to submit "
          "the launch after the first event, median of 200")
    queued = b.queued_us(lambda: empty.prepared_call(g, blk), 20 if not b.quick else 5)
    b.fig("launch_empty_event_queued", float(np.median(queued)), "us",
          "CUDA-event time of one empty kernel queued behind a 2 ms spin kernel, so that the events and the launch "
          "reach the GPU together (no host latency inside the interval), median of 20")
    ev0, ev1 = cuda.Event(), cuda.Event()
    n_host = 2000 if not b.quick else 500
    for _ in range(50):
        empty.prepared_call(g, blk)
    cuda.Context.synchronize()
    t0 = time.perf_counter()
    for _ in range(n_host):
        empty.prepared_call(g, blk)
    cuda.Context.synchronize()
    host_us = (time.perf_counter() - t0) / n_host * 1e6
    b.fig("launch_host", host_us, "us",
          f"wall time per launch of {n_host} back-to-back empty kernels issued from Python (PyCUDA prepared_call), "
          "until the last finished: the host-side launch cost when the GPU keeps up")
    per = {}
    for n in (100, 400):
        runs = []
        for _ in range(5 if not b.quick else 2):
            spin.prepared_call(g, blk, np.uint64(30_000_000))  # 30 ms: the host queues behind it
            ev0.record()
            t0 = time.perf_counter()
            for _ in range(n):
                empty.prepared_call(g, blk)
            host_ms = (time.perf_counter() - t0) * 1e3
            ev1.record()
            ev1.synchronize()
            if host_ms < 25:
                runs.append(ev1.time_since(ev0) * 1e3 / n)
        per[n] = float(np.median(runs)) if runs else float("nan")
    b.fig("launch_gpu", per[400], "us",
          "GPU time per empty kernel when back-to-back launches are already queued: a 30 ms spin kernel blocks the "
          "stream while the host queues 400 empty launches; (event after them - event after the spin) / 400, "
          "median of 5", per_launch_us_at_100=per[100])


def m_hostlink(b: Bench) -> None:
    cuda = b.cuda
    nbytes = (64 if b.quick else 256) << 20
    d1, d2 = cuda.mem_alloc(nbytes), cuda.mem_alloc(nbytes)
    page = np.full(nbytes, 1, np.uint8)
    page_out = np.empty(nbytes, np.uint8)
    pin1 = cuda.pagelocked_empty(nbytes, np.uint8)
    pin2 = cuda.pagelocked_empty(nbytes, np.uint8)
    pin1[:] = 1
    r = 10 if not b.quick else 2
    mb = nbytes >> 20
    t = {}
    runs = {"h2d_pageable": lambda i: cuda.memcpy_htod(d1, page), "h2d_pinned": lambda i: cuda.memcpy_htod(d1, pin1),
            "d2h_pageable": lambda i: cuda.memcpy_dtoh(page_out, d2), "d2h_pinned": lambda i: cuda.memcpy_dtoh(pin2, d2)}
    for k, launch in runs.items():
        ts = b.samples(launch, r)
        t[k] = ms = float(np.median(ts))
        direction = "host to device" if k.startswith("h2d") else "device to host"
        kind = "numpy (pageable) memory" if k.endswith("pageable") else "page-locked memory (cuMemHostAlloc)"
        b.fig(k, nbytes / ms / 1e6, "GB/s", f"cuMemcpy{'HtoD' if k.startswith('h2d') else 'DtoH'} of {mb} MiB, "
              f"{direction}, {kind}; bytes / event time, median of {r}", ms=ms,
              min_gbs=nbytes / max(ts) / 1e6, max_gbs=nbytes / min(ts) / 1e6)
    s1, s2 = cuda.Stream(), cuda.Stream()

    def both(i):
        cuda.memcpy_htod_async(d1, pin1, s1)
        cuda.memcpy_dtoh_async(pin2, d2, s2)

    ts = b.samples(both, r)  # events on the legacy default stream wait for both streams
    ms = float(np.median(ts))
    b.fig("bidir_pinned", 2 * nbytes / ms / 1e6, "GB/s",
          f"{mb} MiB host to device on one stream and {mb} MiB device to host on another at once (pinned); "
          f"bytes both ways / event time, median of {r}", ms=ms, min_gbs=2 * nbytes / max(ts) / 1e6,
          max_gbs=2 * nbytes / min(ts) / 1e6)
    b.fig("bidir_overlap", (t["h2d_pinned"] + t["d2h_pinned"]) / ms, "x",
          "(time of the pinned H2D alone + D2H alone) / time of both at once: 2.0 = the two directions fully "
          "overlap (two copy engines, full-duplex link), 1.0 = none")
    for x in (d1, d2):
        x.free()
    del pin1, pin2


# ------------------------------------------------------------------------------------------------
# Dependent-issue latency, bandwidth against bytes in flight, shared atomics by address pattern,
# barrier cost: the figures the timing model reads for latency-bound and synchronising code.

DEPLAT_CHAINS = (  # figure suffix, (a, b) arguments, SASS of each step, the chain
    ("ffma", (np.float32(0.9999), np.float32(1e-4)), "FFMA", "x = fmaf(x, a, b)"),
    ("fadd", (np.float32(1e-4), np.float32(0)), "FADD", "x = x + a"),
    ("dfma", (np.float64(0.9999), np.float64(1e-4)), "DFMA", "x = fma(x, a, b), double"),
    ("imad", (np.uint32(1664525), np.uint32(1013904223)), "IMAD", "mad.lo.u32 x, x, a, b"),
    ("iadd3", (np.uint32(3), np.uint32(5)), "IADD3", "x = x + a + b (two PTX adds, one IADD3)"),
    ("lop3", (np.uint32(0x5bd1e995), np.uint32(0x1b873593)), "LOP3.LUT", "lop3.b32 x, x, a, b, 0x96 (x ^ a ^ b)"),
    ("mufu_ex2", (np.float32(0.5), np.float32(0)), "MUFU.EX2", "x = ex2.approx.ftz(-x) (the negation is an operand "
     "modifier)"),
    ("mufu_rsq", (np.float32(1.0), np.float32(0)), "MUFU.RSQ", "x = rsqrt.approx.ftz(x)"),
    ("shfl", (np.uint32(1), np.uint32(0)), "SHFL.BFLY", "x = __shfl_xor_sync(full mask, x, m), m = 1, 2, 4, 8, 16 in "
     "turn"),
    ("atoms", (np.uint32(1), np.uint32(0)), "ATOMS.ADD", "x = atomicAdd(&s[lane], x) on shared memory: the value "
     "returned is the next increment, each lane on its own bank"),
)
DEPLAT_MMA = (  # figure suffix, operand dtype, SASS of each mma_sync
    ("hmma_tf32", np.float32, "wmma::mma_sync m16n16k8 TF32, one accumulator chained: four HMMA.1684.F32.TF32 in two "
     "independent chains (the two n8 halves) of two dependent k4 steps, so about two HMMA latencies per mma_sync"),
    ("dmma_fp64", np.float64, "wmma::mma_sync m8n8k4 FP64, one accumulator chained: one DMMA.8x8x4 each (ptxas "
     "puts a NOP between dependent DMMAs, 30 per 32)"))


def loop_cycles(b: Bench, launch, out, blocks: int, n: int, per_iter: int) -> dict:
    """Cycles per step of a kernel's timed loop, from the clock64 cycles its blocks' thread 0 write to `out`:
    launches of n and of 2n loop iterations, each the median over blocks and then over launches; the
    difference / (n x per_iter) leaves out what runs once per launch (the first pass through a cold instruction
    cache, loads that ptxas places inside the timed region, the clock reads)."""
    cyc = np.empty(blocks, np.int64)
    launches = 3 if b.quick else 7
    med = []
    for iters in (n, 2 * n):
        runs = []
        for _ in range(launches):
            launch(iters)
            b.cuda.memcpy_dtoh(cyc, out)
            runs.append(float(np.median(cyc)))
        med.append(float(np.median(runs)))
    return {"clk": (med[1] - med[0]) / (n * per_iter), "cycles": med, "iters": [n, 2 * n], "launches": launches,
            "clk_including_fixed": med[1] / (2 * n * per_iter)}


DEPLAT_ALONE = "one warp alone on the GPU (1 block x 32 threads, lane 0 times)"


def deplat_warp(b: Bench, kernel: str, args, out, n: int, per_iter: int) -> dict:
    """loop_cycles of a deplat-style kernel (iters, *args, sink, out) run by one warp alone."""
    fn = b.f(kernel)
    return loop_cycles(b, lambda k: fn(np.int32(k), *args, b.sink, out, block=(32, 1, 1), grid=(1, 1)), out, 1, n,
                       per_iter)


def deplat_fig(b: Bench, name: str, r: dict, what: str, **extra) -> None:
    n1, n2 = r["iters"]
    b.fig(f"deplat_{name}", r["clk"], "clk",
          f"{what}; clock64 around the loop; (cycles at {n2} iterations - cycles at {n1}) / ({n1} x steps per "
          f"iteration), each the median of {r['launches']} launches; plus the loop's UIADD3, ISETP and BRA once "
          "per iteration",
          cycles=r["cycles"], iters=r["iters"], clk_including_fixed=r["clk_including_fixed"], **extra)


def m_deplat(b: Bench) -> None:
    """One warp alone, one dependent chain: the latency of each instruction class as code waiting on it sees it."""
    cuda = b.cuda
    n = 32 if b.quick else 128
    out = cuda.mem_alloc(8 * b.sms)
    for name, args, sass, chain in DEPLAT_CHAINS:
        r = deplat_warp(b, f"deplat_{name}", args, out, n, 256)
        deplat_fig(b, name, r, f"{DEPLAT_ALONE}, a dependent chain {chain}: 256 {sass} per loop iteration, each "
                   "taking the previous one's result; cycles per instruction", sass=sass)
    rng = np.random.default_rng(0)
    for name, dtype, what in DEPLAT_MMA:
        ab = cuda.to_device((rng.random(256 if dtype == np.float32 else 64) * 1e-3).astype(dtype))
        r = deplat_warp(b, f"deplat_{name}", (ab,), out, n, 32)
        deplat_fig(b, name, r, f"{DEPLAT_ALONE}, {what}; 32 mma_sync per loop iteration; cycles per mma_sync")
        ab.free()
    fn = b.f("deplat_bar")
    for threads in (32, 256, 1024):
        r = loop_cycles(b, lambda k, t=threads: fn(np.int32(k), out, block=(t, 1, 1), grid=(b.sms, 1)),
                        out, b.sms, n, 32)
        deplat_fig(b, f"bar_{threads}", r, f"__syncthreads() and nothing else, 32 BAR.SYNC.DEFER_BLOCKING per loop "
                   f"iteration, blocks of {threads} threads, {b.sms} blocks (as many as SMs), thread 0 of each times, "
                   "median over blocks; cycles per barrier")
    out.free()


INFLIGHT_WARPS = (1, 2, 4, 8, 16, 32, 64)  # warps per SM
INFLIGHT_LOADS = (1, 2, 4, 8)  # independent 16-byte loads per thread; 8 needs 64 registers: at most 32 warps per SM


def _inflight_point(b: Bench, buf, nbytes: int, sm_of, warps: int, loads: int) -> dict:
    """One (warps per SM, loads per thread) point: bandwidth, and the latency Little's law implies from it."""
    per_sm = max(1, warps // 32)  # blocks per SM: one of 32 x warps threads, two of 1024 for 64 warps
    threads, blocks = 32 * warps // per_sm, b.sms * per_sm
    r = b.throughput(f"inflight_u{loads}", (buf, np.uint32(nbytes // 16 - 1), sm_of), loads, blocks, threads, 16,
                     target_ms=b.target_ms / 3)
    ids = np.empty(blocks, np.int32)
    b.cuda.memcpy_dtoh(ids, sm_of)
    on_sm = np.bincount(ids, minlength=b.sms)
    gbs = r["ops"] * 16 / r["ms"] / 1e6
    in_flight = warps * 32 * 16 * loads
    ns = in_flight * b.sms / gbs  # bytes / (GB/s) = ns
    return {"warps_per_sm": warps, "loads_per_thread": loads, "bytes_in_flight_per_sm": in_flight, "gbs": gbs,
            "latency_ns": ns, "latency_clk": ns * r["clock_mhz"] / 1e3, "clock_mhz": r["clock_mhz"], "ms": r["ms"],
            "blocks_per_sm": [int(on_sm.min()), int(on_sm.max())], "registers": r["registers"]}


def m_inflight(b: Bench) -> None:
    """Bandwidth as a function of the bytes each SM keeps in flight, for DRAM and for L2 (Little's law)."""
    cuda = b.cuda
    sm_of = cuda.mem_alloc(4 * 2 * b.sms)
    dram = (256 if b.quick else 1024) << 20
    for level, nbytes, where in (
            ("dram", dram, f"a {dram >> 20} MiB buffer (L2 is {b.dev['l2_bytes'] >> 20} MiB) streamed through"),
            ("l2", 4 << 20, "a 4 MiB buffer re-read over and over (L2 hits)")):
        buf = cuda.mem_alloc(nbytes)
        cuda.memset_d32(buf, 0x3F800000, nbytes // 4)  # 1.0f
        rows = [_inflight_point(b, buf, nbytes, sm_of, w, u) for w in INFLIGHT_WARPS for u in INFLIGHT_LOADS
                if u < 8 or w <= 32]
        best = max(rows, key=lambda row: row["gbs"])
        warps = ", ".join(map(str, INFLIGHT_WARPS))
        b.fig(f"inflight_{level}", best["gbs"], "GB/s",
              "inflight_u<U>: each thread issues U independent 16-byte ld.global.cg loads (LDG.E.128.STRONG.GPU), "
              "then sums them, in a loop that is not unrolled (at most U outstanding per thread), addresses "
              f"grid-strided over {where}; warps per SM W = {warps} ({b.sms} blocks of 32W threads, 2 blocks of "
              "1024 per SM for 64; blocks_per_sm is the [min, max] over SMs read from %smid), U = 1, 2, 4, 8 (8 only "
              "up to 32 warps: it takes 64 registers per thread); value: the highest GB/s; table: per point GB/s = "
              "bytes / event time, bytes in flight per SM = W x 32 x 16 x U (the most the loads can have "
              f"outstanding), latency = bytes in flight x {b.sms} SMs / bandwidth (Little's law: the mean latency if "
              "every load were always outstanding, an upper bound), in ns and in SM cycles at the clock the kernel "
              "ran at (block stamps)",
              table=rows, bytes=nbytes,
              peak_at={"warps_per_sm": best["warps_per_sm"], "loads_per_thread": best["loads_per_thread"]})
        buf.free()
    sm_of.free()


ATOMS_FIXED = (  # pattern, mul, shift (lane's word = (lane * mul) >> shift), what
    ("lane", 1, 0, "lane l on word l: every lane its own bank"),
    *((f"stride{k}", k, 0, f"lane l on word {k}l: a {k}-way bank conflict over distinct words")
      for k in (2, 4, 8, 16, 32)),
    ("one_word", 0, 0, "all 32 lanes on word 0"),
    *((f"group{g}", 1, g.bit_length() - 1, f"lanes in groups of {g} on one word (word l/{g}, distinct banks)")
      for g in (2, 4, 8, 16)),
)
ATOMS_RANDOM_BINS = (32, 256, 1024)
ATOMS_SEED = 12345


def _fmix32(h: np.ndarray) -> np.ndarray:
    """murmur3's 32-bit finalizer, as fmix32 in kernels/microbench.cu."""
    h = h ^ (h >> np.uint32(16))
    h = h * np.uint32(0x85EBCA6B)
    h = h ^ (h >> np.uint32(13))
    h = h * np.uint32(0xC2B2AE35)
    return h ^ (h >> np.uint32(16))


def atoms_fixed_words(mul: int, shift: int, steps: int) -> np.ndarray:
    """The words atoms_fixed's block hits in its threads' first `steps` atomics: every warp the same row, lane l on
    word (l * mul) >> shift; (steps x 32 warps, 32) as atoms_random_words."""
    lanes = np.arange(32, dtype=np.uint32)
    return np.tile(((lanes * np.uint32(mul)) >> np.uint32(shift)) & np.uint32(1023), (32 * steps, 1))


def atoms_random_words(bins: int, threads: int, steps: int, seed: int = ATOMS_SEED) -> np.ndarray:
    """The words atoms_random's first `threads` threads (in grid order) hit in their first `steps` atomics, replayed:
    one row of 32 lanes per warp instruction, (steps x threads / 32, 32)."""
    x = _fmix32(np.arange(threads, dtype=np.uint32) + np.uint32(seed))
    shift = np.uint32(32 - (bins.bit_length() - 1))
    rows = []
    for _ in range(steps):
        x = x * np.uint32(1664525) + np.uint32(1013904223)
        rows.append((x >> shift).reshape(-1, 32))
    return np.concatenate(rows)


def bank_stats(words: np.ndarray) -> dict:
    """For warp-level shared accesses (rows of 32 lanes' word indices): the mean over rows of the bank-conflict
    degree (the most distinct words any one bank is asked for) and of the most lanes on one word."""
    same = words[:, :, None] == words[:, None, :]
    first = ~np.tril(same, -1).any(2)  # no lower lane asks for this word
    bank = words % 32
    distinct_in_bank = ((bank[:, :, None] == bank[:, None, :]) & first[:, None, :]).sum(2)
    return {"conflict_degree": float(distinct_in_bank.max(1).mean()),
            "lanes_per_word": float(same.sum(2).max(1).mean())}


def _atoms_checked(b: Bench, kernel: str, args, per_iter: int, out, blocks: int, words) -> bool:
    """A short launch (3 loop iterations): block 0's bins hold the counts of the words it was meant to hit, and every
    block counted 1024 threads x its atomics."""
    iters = 3
    b.f(kernel)(np.int32(iters), *args, out, b.sink, b.stamps, block=(1024, 1, 1), grid=(blocks, 1))
    got = np.empty((blocks, 1024), np.uint32)
    b.cuda.memcpy_dtoh(got, out)
    want = np.bincount(words(iters * per_iter).ravel(), minlength=1024)
    return bool((got[0] == want).all() and (got.sum(1, dtype=np.int64) == 1024 * iters * per_iter).all())


def m_smem_atomics(b: Bench) -> None:
    """Histogram-style shared atomics, atomicAdd(&bins[x], 1) (ATOMS.POPC.INC.32), by address pattern: SM cycles per
    warp instruction, beside the bank-conflict degree and the lanes per word of the pattern."""
    blocks = b.sms * 2
    out = b.cuda.mem_alloc(4 * 1024 * blocks)
    grid = f"{blocks} blocks x 1024 threads (2 per SM), one 1024-word bin array per block shared by its 32 warps"
    # each case: pattern, kernel, arguments, atomics per loop iteration, what, and words(steps): block 0's words in
    # its first `steps` atomics per thread, one row of 32 lanes per warp instruction (for the check and the stats)
    cases = [(pattern, "atoms_fixed", (np.uint32(mul), np.uint32(shift)), 16, what,
              lambda steps, mul=mul, shift=shift: atoms_fixed_words(mul, shift, steps))
             for pattern, mul, shift, what in ATOMS_FIXED]
    cases += [(f"random{bins}", "atoms_random", (np.uint32(32 - (bins.bit_length() - 1)), np.uint32(ATOMS_SEED)), 8,
               f"each atomic's word is pseudo-random among {bins} (a per-thread LCG's top bits, new every atomic, like "
               "a histogram of random bytes); conflict_degree and lanes_per_word are means over block 0's 32 warps x "
               "64 atomics, replayed on the host", lambda steps, bins=bins: atoms_random_words(bins, 1024, steps))
              for bins in ATOMS_RANDOM_BINS]
    for pattern, kernel, args, per_iter, what, words in cases:
        ok = _atoms_checked(b, kernel, args, per_iter, out, blocks, words)
        r = b.throughput(kernel, (*args, out), per_iter, blocks, 1024, 64)
        b.fig(f"atoms_{pattern}", 32 / per_clk_sm(b, r["ops"], r), "clk/warp-instr/SM",
              f"{kernel}: shared-memory atomicAdd(&bins[word], 1), result unused (ATOMS.POPC.INC.32), {what}; "
              f"{per_iter} per loop iteration; {grid}; SM cycles per warp-level atomic (event time x clock x SMs / "
              "warp atomics); counts checked after a short launch", **bank_stats(words(64)), verified=ok,
              clock_mhz=r["clock_mhz"], ms=r["ms"], iters=r["iters"])
    out.free()


def m_barrier(b: Bench) -> None:
    """What __syncthreads() costs a full SM: a loop of 8 FFMA + barrier against the same loop without the barrier."""
    ffma = (np.float32(0.9999), np.float32(1e-4))
    for threads, per_sm in ((256, 8), (1024, 2)):
        name = f"barrier_{threads}x{per_sm}"
        grid = f"{b.sms * per_sm} blocks x {threads} threads ({per_sm} per SM, 2048 threads)"
        cyc = {}
        for kernel, fig, what in (("barrier_ffma_nobar", f"{name}_nobar", "8 independent FFMA, no barrier"),
                                  ("barrier_ffma", name, "8 independent FFMA then __syncthreads()")):
            r = b.throughput(kernel, ffma, 1, b.sms * per_sm, threads, 256)
            cyc[fig] = threads / per_clk_sm(b, r["ops"], r)  # SM cycles per block-iteration
            extra = {"minus_nobar": cyc[fig] - cyc[f"{name}_nobar"]} if fig == name else {}
            b.fig(fig, cyc[fig], "clk/block-iter/SM",
                  f"{kernel}: a loop of {what} (SASS: 8 FFMA{' + BAR.SYNC' if fig == name else ''} + UIADD3, ISETP, "
                  f"BRA per iteration, not unrolled); {grid}; SM cycles per loop iteration of one block (event time "
                  f"x clock x SMs / block-iterations); block_cycles_per_iter = x {per_sm}, the cycles a block sees "
                  "per iteration" + ("; minus_nobar = the barrier's cost" if extra else ""),
                  block_cycles_per_iter=cyc[fig] * per_sm, clock_mhz=r["clock_mhz"], ms=r["ms"], iters=r["iters"],
                  **extra)


# ------------------------------------------------------------------------------------------------
# More dependent latencies, block start cost, what the bench protocol adds, L2 store and random-read rates and
# L1 hit throughput.

DEPLAT2_CHAINS = (  # figure suffix, (a, b) arguments (None: the L1 chain's start), SASS of each step, the chain
    ("s2r", (np.uint32(1), np.uint32(0)), ("ISETP.NE.U32.AND", "S2R"),
     "x = %smid read under the predicate x != -1 (always true): ISETP.NE.U32 P0 on the previous x, then @P0 S2R x, "
     "SR_VIRTUALSMID; an S2R has no register operand and ptxas hoists unguarded ones, so a step is S2R + ISETP "
     "(S2R alone ~ deplat_s2r - (deplat_isetp - deplat_imad): s2r_alone_estimate)"),
    ("isetp", (np.uint32(1), np.uint32(0)), ("ISETP.NE.U32.AND", "IMAD.IADD"),
     "x = x + a under the predicate x != -1: ISETP.NE.U32 P0, then @P0 IMAD.IADD, deplat_s2r's chain with the S2R "
     "replaced (ISETP alone ~ deplat_isetp - deplat_imad: isetp_alone_estimate)"),
    ("ldc", (np.uint32(0), np.uint32(0)), ("LDC",),
     "x = a __constant__ word at byte offset x (LDC R, c[0x3][R]; the table holds zeros: every step hits c[0x3][0] "
     "in the constant cache)"),
    ("uldc", (np.uint32(0), np.uint32(0)), ("ULDC",),
     "the same chain started from a kernel argument alone, which ptxas keeps uniform (ULDC UR, c[0x3][UR])"),
    ("uiadd3", (np.uint32(3), np.uint32(5)), ("UIADD3",),
     "x = x + a + b on kernel arguments only: the uniform datapath (UIADD3 UR, UR, UR, UR)"),
    ("uimad", (np.uint32(1664525), np.uint32(1013904223)), ("UIMAD",),
     "x = x * a + b on kernel arguments only: the uniform datapath (UIMAD UR, UR, UR, UR)"),
    ("imad_wide", (np.uint64(3), np.uint64(0)), ("IMAD.WIDE.U32",),
     "x = hi(x) * a + x, 64 bits (IMAD.WIDE.U32 R4, R5, UR, R4: reads the pair the previous one wrote)"),
    ("ld_smem", (np.uint64(0), np.uint64(0)), ("LD.E.64",),
     "x = *x through generic 8-byte pointers to shared memory (LD.E.64: the address comes from memory, so ptxas "
     "cannot tell the state space), all lanes on one address, a cycle over 1024 pointers built by the block"),
    ("lds", (np.uint64(0), np.uint64(0)), ("LDS",),
     "the same chain through shared-window addresses with ld.shared (LDS), for comparison with deplat_ld_smem"),
    ("ld_l1", (None, np.uint64(0)), ("LD.E.64",),
     "x = *x through generic 8-byte pointers to global memory, all lanes on one address, a random cycle over the "
     "256 128-byte lines of 32 KiB (latency_l1's), so each loop iteration walks it once and every pass after the "
     "first hits L1 (LD.E.64)"),
    ("ldg_l1", (None, np.uint64(0)), ("LDG.E.64",),
     "the same chain with ld.global (LDG.E.64), for comparison with deplat_ld_l1 and latency_l1"),
    ("ldsm", (np.uint32(0), np.uint32(0)), ("LDSM.16.M88",),
     "ldmatrix .m8n8.x1.b16 whose address is the word it loaded (LDSM.16.M88 R, [R]): lane t supplies and gets "
     "row t % 8's address, the 8 rows are distinct 16-byte pieces of one 128-byte line (conflict-free)"),
)


def deplat_chains(b: Bench, chains: tuple, out, n: int, start: int | None = None) -> None:
    """One figure per chain (suffix, (a, b) arguments (None: `start`), SASS per step, what it is) in deplat's
    harness: 256 steps per loop iteration."""
    for name, args, sass, what in chains:
        args = tuple(np.uint64(start) if a is None else a for a in args)
        r = deplat_warp(b, f"deplat_{name}", args, out, n, 256)
        deplat_fig(b, name, r, f"{DEPLAT_ALONE}, a dependent chain: {what}; 256 steps per loop iteration, SASS per "
                   f"step {' + '.join(sass)}; cycles per step", sass=" + ".join(sass))


def m_deplat2(b: Bench) -> None:
    """More of deplat's chains: special-register reads, constant loads (vector and uniform), the uniform datapath,
    64-bit IMAD, generic loads beside the explicit LDS/LDG, ldmatrix."""
    cuda = b.cuda
    n = 32 if b.quick else 128
    out = cuda.mem_alloc(8 * b.sms)
    chain = cuda.mem_alloc(CHASE_BYTES["l1"])
    img, start = _chain(CHASE_BYTES["l1"], int(chain), np.random.default_rng(2))
    cuda.memcpy_htod(chain, img)
    deplat_chains(b, DEPLAT2_CHAINS, out, n, start)
    f = b.figures
    if "deplat_imad" in f:  # the ISETP's share of the S2R step, with IMAD.IADD taken as IMAD's latency
        isetp = f["deplat_isetp"]["value"] - f["deplat_imad"]["value"]
        f["deplat_isetp"]["isetp_alone_estimate"] = isetp
        f["deplat_s2r"]["s2r_alone_estimate"] = f["deplat_s2r"]["value"] - isetp
    chain.free()
    out.free()


BLOCKS_THREADS = (32, 256, 1024)


def m_blocks(b: Bench) -> None:
    """How fast the SMs take and retire blocks that do nothing (with and without 8 KiB of shared memory each), and an
    empty kernel's GPU time by grid size when it is already queued: the per-kernel cost against the per-block one."""
    mhz, source = b.sm_mhz()
    target = 2.0 if b.quick else 5.0
    for kernel, label, smem in (("blocks_empty", "empty", "no shared memory"),
                                ("blocks_smem8k", "smem8k", "8 KiB of static shared memory per block")):
        fn = b.f(kernel)
        for t in BLOCKS_THREADS:
            def run(k, fn=fn, t=t):
                fn(np.int32(0), b.sink, block=(t, 1, 1), grid=(b.sms * k, 1))

            k = b.calibrate(run, 64, target_ms=target, hi=((1 << 31) - 1) // b.sms)
            ms = b.time(lambda i: run(k))
            b.fig(f"blocks_{label}_{t}", ms * 1e-3 * mhz * 1e6 / k, "clk/block/SM",
                  f"{kernel}: blocks of {t} threads that return at once (a parameter is 0: ULDC, ISETP, EXIT), {smem}; "
                  f"one launch of {b.sms} x {k} blocks, event time {ms:.2f} ms (median of {b.repeats}, about "
                  f"{target:g} ms by calibration); SM cycles per block per SM = event time x clock / {k} blocks per "
                  f"SM, at {mhz:.0f} MHz ({source}); includes the launch's fixed cost once (blocks_queued_1)",
                  ms=ms, blocks=b.sms * k, blocks_per_sm=k, clock_mhz=mhz, ns_per_block_chip=ms * 1e6 / (b.sms * k),
                  shared_bytes=fn.shared_size_bytes)
    fn = b.f("blocks_empty")
    runs = 5 if b.quick else 20
    us = {}
    for label, blocks in (("1", 1), ("1_per_sm", b.sms), ("8_per_sm", 8 * b.sms)):
        got = b.queued_us(lambda: fn(np.int32(0), b.sink, block=(256, 1, 1), grid=(blocks, 1)), runs)
        us[label] = float(np.median(got))
        extra = {"minus_1_block_us": us[label] - us["1"]} if blocks > 1 else {}
        if label == "8_per_sm":
            extra["ns_per_added_block"] = (us[label] - us["1_per_sm"]) * 1e3 / (7 * b.sms)
        b.fig(f"blocks_queued_{label}", us[label], "us",
              f"CUDA-event time of one blocks_empty launch of {blocks} block(s) of 256 threads queued behind a 2 ms "
              f"spin kernel (events and launch reach the GPU together, as launch_empty_event_queued), median of "
              f"{runs}; minus_1_block_us = the cost of the added blocks over the 1-block kernel"
              + ("; ns_per_added_block = (this - blocks_queued_1_per_sm) / its 7 more blocks per SM, whole GPU"
                 if label == "8_per_sm" else ""),
              blocks=blocks, min_us=min(got), max_us=max(got), **extra)


EO_ARGS = (0, 3, 6, 9)
EO_SPIN_US = (20, 200)


def _stamps(b: Bench, launch, dest: np.ndarray, src, runs: int = 5) -> np.ndarray:
    """What `runs` separate launches each wrote to src (dest's shape), one launch and copy at a time."""
    got = []
    for _ in range(runs):
        launch(0)
        b.cuda.memcpy_dtoh(dest, src)  # synchronous: after the launch
        got.append(dest.copy())
    return np.array(got)


def m_event_overhead(b: Bench) -> None:
    """What the bench protocol (kernels.gpu._events_ms: events recorded from Python right before and after each launch,
    a synchronize after each) adds to a kernel's own GPU time, by the number of kernel arguments."""
    cuda = b.cuda
    min_s = 0.05 if b.quick else 0.25
    protocol = (f"kernels.gpu.run_kernel's: kernels.gpu._events_ms(launch, 20, 3, "
                f"min_seconds={min_s:g}) (3 warm-up launches, then an event recorded from Python right before and "
                f"one right after each PyCUDA launch, synchronized after each, at least 20 and until {min_s:g} s of "
                "event time or 500, median)" + (" (--quick: 0.05 s, not the bench's 0.25 s)" if b.quick else ""))
    ns_ptr, _ = b.mod.get_global("eo_ns")
    st_ptr, _ = b.mod.get_global("eo_stamp")
    stamp = np.zeros(4, np.int64)
    for spin_us in EO_SPIN_US:
        cuda.memcpy_htod(ns_ptr, np.array([spin_us * 1000], np.uint64))
        for n in EO_ARGS:
            fn = b.f(f"eo_args{n}")
            args = tuple(b.sink if k % 2 == 0 else np.int32(k) for k in range(n))  # pointers and ints in turn

            def launch(i, fn=fn, args=args):
                fn(*args, block=(1, 1, 1), grid=(1, 1))

            ms = b.gpu._events_ms(launch, 20, 3, min_seconds=min_s)
            st = _stamps(b, launch, stamp, st_ptr)
            own_us = float(np.median(st[:, 3] - st[:, 2])) / 1e3
            b.fig(f"event_overhead_{n}args_{spin_us}us", ms * 1e3 - own_us, "us",
                  f"eo_args{n} ({n} parameters{', pointers and ints in turn, unused' if n else ''}; 1 block x 1 "
                  f"thread) spins on %globaltimer for {spin_us} us; median event time minus the spin's own duration "
                  "(its %globaltimer at start and at exit, written to a __device__ array, median of 5 separate "
                  f"launches); the event time is {protocol}", event_us=ms * 1e3, spin_us=own_us,
                  spin_cycles=float(np.median(st[:, 1] - st[:, 0])), args=n)
    nbytes = 64 << 20
    blocks = nbytes // 16 // 256
    buf, st_buf = cuda.mem_alloc(nbytes), cuda.mem_alloc(32 * blocks)
    fn = b.f("write_once")

    def launch(i):
        fn(buf, np.float32(1), st_buf, block=(256, 1, 1), grid=(blocks, 1))

    ms = b.gpu._events_ms(launch, 20, 3, min_seconds=min_s)
    st = _stamps(b, launch, np.empty((blocks, 4), np.int64), st_buf)
    own_us = float(np.median(st[:, :, 3].max(1) - st[:, :, 2].min(1))) / 1e3
    b.fig("event_overhead_write64mb", ms * 1e3 - own_us, "us",
          f"write_once: one float4 store per thread over 64 MiB ({blocks} blocks x 256 threads); median event time "
          "minus the kernel's own duration, from the first block's start to the last block's end (each block's "
          "thread 0 reads %globaltimer at its start and after __syncthreads at its end; median of 5 separate "
          f"launches; stores still draining after the last stamp count as overhead); the event time is {protocol}",
          event_us=ms * 1e3, kernel_us=own_us, gbs_by_event=nbytes / ms / 1e6, gbs_by_stamps=nbytes / own_us / 1e3)
    buf.free()
    st_buf.free()


L2_STORES = (  # kernel suffix, bytes per lane, lanes per 128-byte line, what
    ("full", 4, 32, "a float per lane at consecutive words: a warp's store is one whole 128-byte line"),
    ("sector", 4, 1, "a float per lane at word 32 x index: lane l writes 4 bytes of its own line, so a warp's store "
     "is one sector (4 of its bytes) in each of 32 lines"),
    ("vec", 16, 8, "a float4 per lane at consecutive float4s: a warp's store is 4 whole lines"),
    ("q4", 4, 4, "a float per lane at word 8 x index: 4 bytes in each sector of 8 lines per warp store"),
    ("q2", 4, 2, "a float per lane at word 16 x index: 4 bytes in 2 sectors of each of 16 lines per warp store"),
    ("h16", 2, 4, "an unsigned short per lane at halfword 16 x index (32 bytes apart): 2 bytes in each sector of 8 "
     "lines per warp store"),
    ("half", 4, 16, "a float per lane at word 2 x index: 16 bytes of each sector of 2 lines per warp store"),
    ("q4x2", 4, 4, "_q4's stores, each followed at once by one to the next word: the same 32 sectors of 8 lines "
     "written twice in a row by a warp (a struct's fields)"),
    ("q4x8", 4, 4, "_q4's stores, each followed at once by seven to the next words: each lane writes its own "
     "sector in 8 stores in a row, whole at the end (a run-length decode's runs)"))
L2_STORES_STREAMED = ("full", "q4", "q4x8")  # again over 1 GiB: lines the L2 does not hold, written back to DRAM
L2_RANDOM_MB = (8, 24, 40, 48, 64, 96, 192)


def m_l2_rates(b: Bench) -> None:
    """L2 store rates by line coverage, L1 hit throughput of global loads, random 4-byte reads by footprint."""
    cuda = b.cuda
    blocks, threads = b.sms * 8, 256
    full = f"{blocks} blocks x 256 threads (2048 per SM)"
    nbytes = 4 << 20
    buf = cuda.mem_alloc(nbytes)
    cuda.memset_d32(buf, 0, nbytes // 4)
    for kind, size, lanes_per_line, what in L2_STORES:
        r = b.throughput(f"l2_store_{kind}", (buf, np.uint32(nbytes // size - 1), np.float32(1)), 8, blocks, threads,
                         64, target_ms=b.target_ms / 3)
        s = r["ms"] * 1e-3
        lines = r["ops"] / lanes_per_line
        b.fig(f"l2_store_{kind}", r["ops"] * size / s / 1e9, "GB/s",
              f"l2_store_{kind}: {what}; 8 stores per thread per loop iteration, indices grid-strided and wrapped "
              f"over a 4 MiB buffer (L2-resident, rewritten over and over); {full}; bytes written / event time; "
              "glines_per_s = 128-byte lines written into (whole or in part) per second, lines_per_clk the same per "
              "SM clock cycle (block stamps), whole chip",
              glines_per_s=lines / s / 1e9, lines_per_clk=lines / (s * r["clock_mhz"] * 1e6),
              clock_mhz=r["clock_mhz"], ms=r["ms"], iters=r["iters"])
    buf.free()
    big_bytes = 1 << 30
    buf = cuda.mem_alloc(big_bytes)
    cuda.memset_d32(buf, 0, big_bytes // 4)
    for kind in L2_STORES_STREAMED:
        size, lanes_per_line, what = next((z, l, w) for k, z, l, w in L2_STORES if k == kind)
        r = b.throughput(f"l2_store_{kind}", (buf, np.uint32(big_bytes // size - 1), np.float32(1)), 8, blocks,
                         threads, 64, target_ms=b.target_ms / 3)
        s = r["ms"] * 1e-3
        lines = r["ops"] / lanes_per_line
        b.fig(f"l2_store_{kind}_1g", r["ops"] * size / s / 1e9, "GB/s",
              f"l2_store_{kind} over a 1 GiB buffer (each pass writes lines the L2 no longer holds; DRAM takes the "
              f"write-backs): {what}; otherwise as l2_store_{kind}",
              glines_per_s=lines / s / 1e9, lines_per_clk=lines / (s * r["clock_mhz"] * 1e6),
              clock_mhz=r["clock_mhz"], ms=r["ms"], iters=r["iters"])
    buf.free()
    l1 = cuda.mem_alloc(16 << 10)
    cuda.memset_d32(l1, 0, (16 << 10) // 4)
    for kind, what in (("line", "lane l reads word l of the line: one 128-byte line per warp request"),
                       ("broadcast", "every lane reads the same word: one sector per warp request")):
        r = b.throughput(f"l1_hit_{kind}", (l1, np.uint32(0)), 16, b.sms * 2, 1024, 64, target_ms=b.target_ms / 3)
        b.fig(f"l1_hit_{kind}", 32 / per_clk_sm(b, r["ops"], r), "clk/warp-request/SM",
              f"l1_hit_{kind}: 4-byte ld.global loads (LDG.E, cached in L1) from a 16 KiB buffer that stays in L1, "
              f"{what}; 16 independent loads per thread per loop iteration (16 lines 1 KiB apart), all issued before "
              f"the first use; {b.sms * 2} blocks x 1024 threads (2048 per SM); SM cycles per warp-level load "
              "(event time x clock x SMs / warp loads)",
              clock_mhz=r["clock_mhz"], ms=r["ms"], iters=r["iters"])
    l1.free()
    sizes = (8, 64) if b.quick else L2_RANDOM_MB
    big = cuda.mem_alloc(max(sizes) << 20)
    cuda.memset_d32(big, 0x3F800000, (max(sizes) << 20) // 4)  # 1.0f
    l2 = b.dev["l2_bytes"]
    first = None
    for mb in sizes:
        r = b.throughput("l2_random", (big, np.uint32((mb << 20) // 4), np.uint32(ATOMS_SEED)), 8, blocks, threads, 16,
                         target_ms=b.target_ms / 3)
        s = r["ms"] * 1e-3
        first = first or r["ops"] / s
        b.fig(f"l2_random_{mb}mb", r["ops"] * 4 / s / 1e9, "GB/s",
              f"l2_random: 4-byte ld.global.cg loads (LDG.E.STRONG.GPU: L2, not L1) at random words of a {mb} MiB "
              f"footprint (each lane its own index: a per-thread LCG's top bits scaled to the footprint), read over "
              f"and over; 8 independent loads in flight per thread (issued before the first use, the loop not "
              f"unrolled: 16384 per SM), {full}; useful bytes (4 per load) / event time. gsectors_per_s: loads (one "
              "32-byte sector each) per second; l2_share = L2 size / footprint (capped at 1): the hit rate if L2 "
              "held a random part of the footprint; vs_smallest: this rate / the smallest footprint's (all hits)",
              gsectors_per_s=r["ops"] / s / 1e9, sector_gbs=r["ops"] * 32 / s / 1e9, l2_share=min(1.0, l2 / (mb << 20)),
              vs_smallest=r["ops"] / s / first, loads=r["ops"], clock_mhz=r["clock_mhz"], ms=r["ms"], iters=r["iters"])
    big.free()


def _l1_random(seed: int, window: int):
    """Lane -> a random 4-byte word of a `window`-byte window (a fixed seed: the same pattern every run)."""
    return lambda lanes: 4 * np.random.default_rng(seed).integers(0, window // 4, len(lanes))


L1_PATTERNS = (  # name, bytes per lane, lane -> byte offset, step between a thread's 16 accesses, what
    ("line", 4, lambda l: 4 * l, 8192, "lane l word l of one line"),
    ("broadcast", 4, lambda l: 0 * l, 8192, "every lane the same word"),
    ("l2", 4, lambda l: 128 * (l // 16) + 4 * (l % 16), 8192, "2 lines, sectors 0-1 of each"),
    ("l4_s0", 4, lambda l: 128 * (l % 4) + 4 * (l // 4), 8192, "4 lines, sector 0 of each (8 words)"),
    ("l8_s0", 4, lambda l: 128 * (l % 8) + 4 * (l // 8), 8192, "8 lines, sector 0 of each (4 words)"),
    ("l8_full", 4, lambda l: 128 * (l // 4) + 32 * (l % 4), 8192, "8 lines, word 0 of all 4 sectors of each"),
    ("l8_full_banks", 4, lambda l: 128 * (l // 4) + 32 * (l % 4) + 4 * (l // 4), 8192,
     "8 lines, one word of all 4 sectors of each, every lane its own bank"),
    ("l16_s0", 4, lambda l: 128 * (l % 16) + 4 * (l // 16), 8192, "16 lines, sector 0 of each (2 words)"),
    ("l16_s01", 4, lambda l: 128 * (l // 2) + 32 * (l % 2), 8192, "16 lines, sectors 0 and 1 of each"),
    ("l16_spread", 4, lambda l: 128 * (l // 2) + 32 * (l % 2 + 2 * (l // 2 % 2)), 8192,
     "16 lines, two sectors of each: 0-1 in even lines, 2-3 in odd (8 sectors at each position)"),
    ("l32_s0", 4, lambda l: 128 * l, 8192, "32 consecutive lines, word 0 of each"),
    ("l32_spread", 4, lambda l: 128 * l + 32 * (l % 4), 8192, "32 consecutive lines, sector l mod 4 of line l"),
    ("l32_banks", 4, lambda l: 128 * l + 4 * l, 8192, "32 consecutive lines, word l of line l (every lane its own bank)"),
    ("l32_s0_b8", 4, lambda l: 128 * l + 4 * (l % 8), 8192, "32 consecutive lines, sector 0, word l mod 8"),
    ("l32_1k", 4, lambda l: 1024 * l, 128, "32 lines 1 KiB apart, word 0 of each"),
    ("l32_4k", 4, lambda l: 4096 * l, 128, "32 lines 4 KiB apart, word 0 of each"),
    ("random", 4, _l1_random(ATOMS_SEED, 8192), 8192, "a random word of an 8 KiB window per lane (28 lines)"),
    ("l4_full", 4, lambda l: 128 * (l // 8) + 16 * (l % 8), 8192, "4 lines, 2 words of each of their 4 sectors"),
    ("v_line", 16, lambda l: 16 * l, 8192, "16 bytes per lane: 4 whole lines"),
    ("v_l32", 16, lambda l: 128 * l, 8192, "16 bytes per lane: 32 consecutive lines, the first 16 bytes of each"),
    *((f"l8_stride{1 << k}", 4, lambda l, k=k: 128 * (l % 8 << k) + 4 * (4 * (l % 8) + l // 8), 128,
       f"8 lines {1 << k} lines apart, 4 words of each, every lane its own bank: which line bits spread lines "
       "over the tag stage")
      for k in range(9)),
    ("random_b", 4, _l1_random(ATOMS_SEED + 1, 8192), 8192, "as random, another seed"),
    ("random_c", 4, _l1_random(ATOMS_SEED + 2, 8192), 8192, "as random, a third seed"),
    ("random_wide", 4, _l1_random(ATOMS_SEED, 65536), 8192, "a random word of a 64 KiB window per lane"))
L1_MODES = (("hit", "loads (ld.global, cached in L1) of the same lines every iteration: L1 hits after the first"),
            ("miss", "loads (ld.global) of a new 256 KiB window of a 1 GiB buffer per warp every iteration: L1 misses"),
            ("st", "stores (st.global) to the hit loads' addresses"))


def l1_pattern_shape(offs: np.ndarray, size: int) -> dict:
    """What a warp access at byte offsets `offs` (`size` bytes per lane) touches: lines, sectors, the most sectors
    at one position of their lines (0-3), and the most distinct 4-byte words in one of the 32 banks."""
    words = np.unique(np.concatenate([offs // 4 + k for k in range(max(size // 4, 1))]))
    sectors = np.unique(words // 8)
    banks = np.bincount(words % 32, minlength=32)
    return {"lines": int(len(np.unique(sectors // 4))), "sectors": int(len(sectors)),
            "sectors_per_position_max": int(np.bincount(sectors % 4, minlength=4).max()),
            "words_per_bank_max": int(banks.max())}


def m_l1_patterns(b: Bench) -> None:
    """L1's cycles per warp-level global access by lane pattern (lines, sectors, banks), hits, misses and stores (l1p_*):
    the tag stage's and the data stage's wavefronts apart."""
    cuda = b.cuda
    nbytes = 1 << 30
    buf = cuda.mem_alloc(nbytes)
    cuda.memset_d32(buf, 0, nbytes // 4)
    offs_dev = cuda.mem_alloc(4 * 32)
    lanes = np.arange(32)
    blocks = b.sms * 2
    for k, (name, size, offsets, step, what) in enumerate(L1_PATTERNS):
        offs = np.asarray(offsets(lanes), np.uint32)
        cuda.memcpy_htod(offs_dev, offs)
        shape = l1_pattern_shape(offs.astype(np.int64), size)
        for mode, how in L1_MODES:
            mask = nbytes - 1 if mode == "miss" else 0
            kernel = f"l1p_{mode}{size}_{k}"
            r = b.throughput(kernel, (buf, offs_dev, np.uint32(mask)), 16, blocks, 1024, 16,
                             target_ms=b.target_ms / 3)
            b.fig(f"l1p_{mode}_{name}", 32 / per_clk_sm(b, r["ops"], r), "clk/warp-request/SM",
                  f"{kernel}: {how}; lanes: {what} ({size} bytes each); 16 independent accesses per thread per loop "
                  f"iteration, {step} bytes apart; {blocks} blocks x 1024 threads (2048 per SM); SM cycles per "
                  "warp-level access (event time x clock x SMs / warp accesses)",
                  kernel=kernel, offsets=offs.tolist(), bytes=size, **shape, clock_mhz=r["clock_mhz"], ms=r["ms"],
                  iters=r["iters"])
    offs_dev.free()
    buf.free()


ATOMIC_WORDS = (32, 256, 1024, 8192, 1 << 16, 1 << 22)  # table sizes of atomic_global_pattern (16 MiB at most: L2)
ATOMIC_MODES = ((0, "lane", "each lane its own random word"), (1, "warp", "one random word per warp, all lanes on it"),
                (2, "line", "one random line per warp, lane l on its word l"))


def m_atomic_patterns(b: Bench) -> None:
    """Global atomics (REDG.E.ADD) by how many words and lines a warp's lanes hit and how many words the grid shares."""
    cuda = b.cuda
    blocks, threads = b.sms * 8, 256
    nthr = blocks * threads
    fn = b.f("atomic_global_pattern")
    t = cuda.mem_alloc(4 * max(ATOMIC_WORDS))
    for mode, kind, what in ATOMIC_MODES:
        for words in ATOMIC_WORDS[:2] if b.quick else ATOMIC_WORDS:
            def run(n, words=words, mode=mode):
                fn(t, np.int32(n), np.uint32(words - 1), np.int32(mode), block=(threads, 1, 1), grid=(blocks, 1))

            cuda.memset_d32(t, 0, words)
            run(2)
            got = np.empty(words, np.uint32)
            cuda.memcpy_dtoh(got, t)
            ok = int(got.sum(dtype=np.uint64)) == 2 * nthr
            n = b.calibrate(run, 2, target_ms=b.target_ms / 3)
            ms = b.time(lambda i: run(n))
            ops = float(nthr) * n
            b.fig(f"atomic_{kind}_{words}", ops / ms / 1e6, "Gatomic/s",
                  f"atomic_global_pattern mode {mode}: atomicAdd(t + word, 1), result unused (REDG.E.ADD), {what}, over "
                  f"a table of {words} words (the whole grid shares it; L2-resident); {blocks} blocks x {threads} "
                  f"threads, {n} per thread; thread-level atomics / event time; warp_requests_per_s: the same per "
                  "warp instruction; checked (the table's sum)",
                  warp_requests_per_s=ops / 32 / (ms * 1e-3), words=words, mode=mode, ms=ms, iters=n, verified=ok)
    t.free()


GRID2D_X = (1, 2, 4, 8, 16, 32)  # threads of a block along the rows: a warp covers X rows x 32 / X floats


def m_grid2d(b: Bench) -> None:
    """DRAM rates when each warp touches 128 / X bytes of each of X rows (grid2d_*: a 2D grid, threadIdx.x on rows)."""
    cuda = b.cuda
    rows = cols = 4096 if b.quick else 8192
    nbytes = rows * cols * 4
    bufs = [cuda.mem_alloc(nbytes) for _ in range(3)]
    for m in bufs:
        cuda.memset_d32(m, 0, rows * cols)
    rd, wr, add = b.f("grid2d_read"), b.f("grid2d_write"), b.f("grid2d_add")
    for x in GRID2D_X:
        block = (x, 256 // x, 1)
        grid = (rows // x, cols // (256 // x))
        for name, launch, moved in (
                ("read", lambda i: rd(bufs[i % 3], b.sink, np.int32(rows), np.int32(cols), block=block, grid=grid), 1),
                ("write", lambda i: wr(bufs[i % 3], np.int32(rows), np.int32(cols), np.float32(0), block=block,
                                       grid=grid), 1),
                ("add", lambda i: add(bufs[i % 3], bufs[(i + 1) % 3], bufs[(i + 2) % 3], np.int32(rows),
                                      np.int32(cols), block=block, grid=grid), 3)):
            ms = b.time(launch)
            b.fig(f"grid2d_{name}_x{x}", moved * nbytes / ms / 1e6, "GB/s",
                  f"grid2d_{name}: a {rows} x {cols} float matrix ({nbytes >> 20} MiB per array, buffers rotated so no "
                  f"launch finds its data in L2), blocks of ({x}, {256 // x}) threads with threadIdx.x on the rows: a "
                  f"warp touches {128 // x} bytes in each of {x} rows; {grid[0]} x {grid[1]} blocks; bytes moved "
                  "(each array once) / event time", ms=ms, block=list(block), grid=list(grid), x=x)
    for m in bufs:
        m.free()


DEPLAT_CVT_CHAINS = (  # figure suffix, (a, b) arguments, SASS of each step, the chain
    ("cvt_f64_s64", (np.float64(1.0), np.float64(0.0)), ("F2I.S64.F64.TRUNC", "I2F.F64.S64"),
     "double -> s64 -> double (cvt.rzi.s64.f64, cvt.rn.f64.s64)"),
    ("cvt_f64_s32", (np.float64(1.0), np.float64(0.0)), ("F2I.F64.TRUNC", "I2F.F64"),
     "double -> s32 -> double (cvt.rzi.s32.f64, cvt.rn.f64.s32)"),
    ("cvt_f32_s32", (np.float32(1.0), np.float32(0.0)), ("F2I.TRUNC.NTZ", "I2FP.F32.S32"),
     "float -> s32 -> float (cvt.rzi.s32.f32, cvt.rn.f32.s32)"),
    ("cvt_f64_f32", (np.float64(1.0), np.float64(0.0)), ("F2F.F32.F64", "F2F.F64.F32"),
     "double -> float -> double (cvt.rn.f32.f64, cvt.f64.f32)"),
    ("frnd_f64", (np.float64(1.0), np.float64(0.0)), ("FRND.F64",), "x = rint(x), double (cvt.rni.f64.f64)"),
    ("frnd_f32", (np.float32(1.0), np.float32(0.0)), ("FRND",), "x = rint(x), float (cvt.rni.f32.f32)"),
    ("rcp64h", (np.float64(1.5), np.float64(0.0)), ("MUFU.RCP64H",),
     "x = 1/x, double, approximate (rcp.approx.ftz.f64: MUFU.RCP64H on the high word)"),
)


def m_deplat_cvt(b: Bench) -> None:
    """Conversions and 64-bit special functions in deplat's harness: F2I/I2F/F2F there and back, FRND, MUFU.RCP64H
    (what a double DFT's sincospi and division issue between its DFMAs)."""
    n = 32 if b.quick else 128
    out = b.cuda.mem_alloc(8 * b.sms)
    deplat_chains(b, DEPLAT_CVT_CHAINS, out, n)
    out.free()


RES_NS = 20_000  # how long each staying warp spins
RES_BLOCKS_PER_SM = 48
# (figure, kernel, threads per block, warps that stay): each kernel's limit alone (every warp stays), then with
# one warp staying; warp slots, registers and shared memory each bind one of the kernels when every warp stays
RESIDENCY = (("res_warps_all", "res_probe", 1024, 32), ("res_warps_1", "res_probe", 1024, 1),
             ("res_512_1", "res_probe", 512, 1), ("res_256_all", "res_probe", 256, 8), ("res_256_1", "res_probe", 256, 1),
             ("res_256_2", "res_probe", 256, 2), ("res_128_1", "res_probe", 128, 1),
             ("res_regs_all", "res_regs", 256, 8), ("res_regs_1", "res_regs", 256, 1),
             ("res_smem_all", "res_smem", 256, 8), ("res_smem_1", "res_smem", 256, 1))


def overlap_peak(start: np.ndarray, end: np.ndarray) -> int:
    """The most of the intervals [start, end) that overlap at once (an end before a start at the same time)."""
    ev = sorted([(int(t), 1) for t in start] + [(int(t), -1) for t in end])
    return int(max(np.cumsum([d for _, d in ev]), default=0))


def m_residency(b: Bench) -> None:
    """The most blocks an SM holds at once when all but `keep` warps of each block exit at once (res_*): whether an SM
    takes a new block as warps exit, by what bounds the kernel's blocks (warp slots, registers, shared memory)."""
    cuda = b.cuda
    blocks = b.sms * RES_BLOCKS_PER_SM
    out = cuda.mem_alloc(8 * 3 * blocks)
    for name, kernel, threads, keep in RESIDENCY:
        fn = b.f(kernel)

        def run(i, fn=fn, threads=threads, keep=keep):
            fn(np.uint64(RES_NS), np.int32(keep), out, b.sink, block=(threads, 1, 1), grid=(blocks, 1))

        run(0)  # loads the function
        ms = b.once_ms(run)
        rec = np.empty((blocks, 3), np.int64)
        cuda.memcpy_dtoh(rec, out)
        peaks = np.array([overlap_peak(rec[rec[:, 0] == sm, 1], rec[rec[:, 0] == sm, 2]) for sm in np.unique(rec[:, 0])])
        b.fig(name, float(np.median(peaks)), "blocks/SM",
              f"{kernel}: {blocks} blocks of {threads} threads; warps {keep} and up of each block return at once, the "
              f"others spin {RES_NS / 1e3:g} us on %globaltimer, and thread 0 writes its SM and its start and end; the "
              "figure is the median over SMs of the most blocks whose [start, end) overlap on one SM",
              kernel=kernel, threads=threads, warps_staying=keep, warps=threads // 32, registers=fn.num_regs,
              shared_bytes=fn.shared_size_bytes, max=int(peaks.max()), min=int(peaks.min()), ms=ms)
    out.free()

L1CAP_LINES = {0: (16, 32, 48, 56, 60, 64, 72, 96, 128), 1: (32, 64, 96, 128, 160, 192, 224, 256, 320, 512)}
L1CAP_REPS = 8


def m_l1_capacity(b: Bench) -> None:
    """How much L1 keeps (l1cap_m{mode}_{lines}): each warp of a 1024-thread block per SM re-reads a region of its own
    `lines` 128-byte lines; whole lines (mode 0) against one word of each line (mode 1, a quarter of the sectors).
    The time per request, and under ncu the L1 sector hit rate, show where the footprint outgrows
    L1, in lines or in sectors."""
    cuda = b.cuda
    fn = b.f("l1cap")
    most = max(max(v) for v in L1CAP_LINES.values())
    buf = cuda.mem_alloc(b.sms * 32 * most * 128)
    cuda.memset_d32(buf, 0, b.sms * 32 * most * 32)
    mhz, source = b.sm_mhz()
    for mode, sizes in L1CAP_LINES.items():
        for lines in sizes:
            def run(i, lines=lines, mode=mode):
                fn(buf, np.int32(lines), np.int32(L1CAP_REPS), np.int32(mode), b.sink, block=(1024, 1, 1),
                   grid=(b.sms, 1))

            run(0)
            ms = b.time(run)
            requests = L1CAP_REPS * (lines if mode == 0 else lines // 32)  # per warp
            b.fig(f"l1cap_m{mode}_{lines}", ms * 1e-3 * mhz * 1e6 / (32 * requests), "clk/warp-request/SM",
                  f"l1cap mode {mode} ({'a whole line' if mode == 0 else 'one word of each of 32 lines'} per request): "
                  f"{b.sms} blocks x 1024 threads, each warp re-reading {lines} lines of its own {L1CAP_REPS} times "
                  f"(the SM's footprint {32 * lines} lines, {32 * lines * (128 if mode == 0 else 32) // 1024} KiB of "
                  f"sectors); SM cycles per warp request = event time x clock / requests per SM, at {mhz:.0f} MHz "
                  f"({source})", mode=mode, lines_per_warp=lines, footprint_lines=32 * lines,
                  footprint_sector_bytes=32 * lines * (128 if mode == 0 else 32), ms=ms, reps=L1CAP_REPS,
                  shared_bytes=fn.shared_size_bytes)
    buf.free()


MEASURES = {"clock": m_clock, "dram": m_dram, "l2": m_l2, "smem": m_smem, "compute": m_compute, "tensor": m_tensor,
            "latency": m_latency, "atomics": m_atomics, "launch": m_launch, "hostlink": m_hostlink,
            "deplat": m_deplat, "inflight": m_inflight, "smem_atomics": m_smem_atomics, "barrier": m_barrier,
            "deplat2": m_deplat2, "blocks": m_blocks, "event_overhead": m_event_overhead, "l2_rates": m_l2_rates,
            "atomic_patterns": m_atomic_patterns, "grid2d": m_grid2d, "deplat_cvt": m_deplat_cvt,
            "l1_patterns": m_l1_patterns, "residency": m_residency, "l1_capacity": m_l1_capacity,
            "imad_forms": m_imad_forms, "atomic_tail": m_atomic_tail}


# ------------------------------------------------------------------------------------------------
SMI_FIELDS = ("name,driver_version,pstate,clocks.sm,clocks.max.sm,clocks.mem,clocks.max.mem,power.draw,power.limit,"
              "temperature.gpu,pcie.link.gen.current,pcie.link.gen.max,pcie.link.width.current")


def nvidia_smi(q: str = SMI_FIELDS) -> dict:
    """nvidia-smi's view of the GPU now (clocks, power, PCIe link), or {'error': ...}."""
    try:
        p = subprocess.run(["nvidia-smi", f"--query-gpu={q}", "--format=csv"], capture_output=True, text=True,
                           timeout=30)
    except (OSError, subprocess.SubprocessError) as e:
        return {"error": str(e)}
    lines = [l for l in p.stdout.splitlines() if l.strip()]
    if p.returncode or len(lines) < 2:
        return {"error": (p.stderr or p.stdout).strip()[:300]}
    return {k.strip(): v.strip() for k, v in zip(lines[0].split(","), lines[1].split(","))}


def table(figures: dict) -> None:
    print(f"\n{'figure':28s} {'value':>12s}  {'unit':20s} method")
    for name, f in figures.items():
        v = f["value"]
        text = f"{v:12.4g}" if abs(v) < 1e4 else f"{v:12.0f}"
        m = f["method"]
        print(f"{name:28s} {text}  {f['unit']:20s} {m if len(m) <= 100 else m[:97] + '...'}")


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m kernels.microbench", description=__doc__)
    p.add_argument("--quick", action="store_true", help="smaller buffers, shorter kernels, fewer repeats (a sanity pass)")
    p.add_argument("--only", nargs="*", choices=GROUPS, help="only these groups")
    p.add_argument("--out", help="write the figures and the run's context as JSON here")
    a = p.parse_args(argv)
    from . import gpu
    try:
        b = Bench(a.quick)
    except gpu.GpuUnavailable as e:
        fail(str(e))
    from cudasim.compile import nvrtc_version

    before = nvidia_smi()
    started = datetime.datetime.now(datetime.timezone.utc)
    print(f"{b.dev['name']}: {b.sms} SMs, {b.dev['l2_bytes'] / 2**20:.0f} MiB L2, driver {before.get('driver_version')}, "
          f"clocks now: SM {before.get('clocks.current.sm [MHz]')} (max {before.get('clocks.max.sm [MHz]')}), "
          f"memory {before.get('clocks.current.memory [MHz]')}", flush=True)
    errors = {}
    for g in a.only or GROUPS:
        t0 = time.perf_counter()
        n0 = len(b.figures)
        try:
            MEASURES[g](b)
        except Exception as e:  # noqa: BLE001 - one group's failure must not lose the others' figures
            import traceback

            errors[g] = traceback.format_exc(limit=4)
            print(f"[{g}] FAILED: {e!r}", flush=True)
        for name in list(b.figures)[n0:]:
            f = b.figures[name]
            print(f"[{g}] {name:28s} {f['value']:12.4g} {f['unit']}", flush=True)
        print(f"[{g}] {time.perf_counter() - t0:.1f} s", flush=True)
    after = nvidia_smi()
    table(b.figures)
    result = {
        "device": {**b.dev, "driver": before.get("driver_version"),
                   "cuda_driver_api": b.cuda.get_driver_version()},
        "date": started.isoformat(timespec="seconds"),
        "command": "python -m kernels.microbench" + (" --quick" if a.quick else "") +
                   (" --only " + " ".join(a.only) if a.only else ""),
        "quick": a.quick,
        "protocol": PROTOCOL,
        "compiler": nvrtc_version(),
        "clocks": {"before": before, "after": after},
        "figures": b.figures,
        "errors": errors,
    }
    if a.out:
        with open(a.out, "w") as fh:
            json.dump(result, fh, indent=1)
        print(f"wrote {a.out}")
    return 1 if errors else 0


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
