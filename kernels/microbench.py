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
"""
from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

SOURCE = Path(__file__).with_name("microbench.cu")
CHASE_BYTES = {"l1": 32 << 10, "l2": 8 << 20, "dram": 256 << 20}  # pointer-chase regions per level
GROUPS = ["clock", "dram", "l2", "smem", "compute", "tensor", "latency", "atomics", "launch", "hostlink"]
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

    def throughput(self, name: str, args, per_iter: int, blocks: int, threads: int, n0: int) -> dict:
        """Calibrate, time and return ms, ops (per-thread loop ops x threads), the clock it ran at."""
        cuda = self.cuda
        fn = self.f(name)
        grid, block = (blocks, 1), (threads, 1, 1)

        def run(n):
            fn(np.int32(n), *args, self.sink, self.stamps, block=block, grid=grid)

        n = self.calibrate(run, n0, hi=(1 << 31) - 1)
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
    r = b.throughput("fp32_ffma", (np.float32(0.9999), np.float32(1e-4)), 256, b.sms * 8, 256, 256)
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
    ev0, ev1 = cuda.Event(), cuda.Event()
    queued = []
    for _ in range(20 if not b.quick else 5):
        spin.prepared_call(g, blk, np.uint64(2_000_000))  # 2 ms: the events and the launch queue behind it
        ev0.record()
        empty.prepared_call(g, blk)
        ev1.record()
        ev1.synchronize()
        queued.append(ev1.time_since(ev0) * 1e3)
    b.fig("launch_empty_event_queued", float(np.median(queued)), "us",
          "CUDA-event time of one empty kernel queued behind a 2 ms spin kernel, so that the events and the launch "
          "reach the GPU together (no host latency inside the interval), median of 20")
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


MEASURES = {"clock": m_clock, "dram": m_dram, "l2": m_l2, "smem": m_smem, "compute": m_compute, "tensor": m_tensor,
            "latency": m_latency, "atomics": m_atomics, "launch": m_launch, "hostlink": m_hostlink}


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
    p = argparse.ArgumentParser(prog="python -m kernels.microbench", description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="smaller buffers, shorter kernels, fewer repeats (a sanity pass)")
    p.add_argument("--only", nargs="*", choices=GROUPS, help="only these groups")
    p.add_argument("--out", help="write the figures and the run's context as JSON here")
    a = p.parse_args(argv)
    from . import gpu
    try:
        b = Bench(a.quick)
    except gpu.GpuUnavailable as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
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
    sys.exit(main())
