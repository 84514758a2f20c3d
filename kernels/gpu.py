"""The GPU backend: NVRTC's cubin for the device's own architecture, loaded by PyCUDA; verify, time.

Timing: CUDA events around each launch, warm-up launches first, the median of the repeats.
When a kernel's working set fits in L2, the repeats rotate over several copies of the
inputs so the figure is DRAM bandwidth, not L2 hits.
"""
from __future__ import annotations

import numpy as np

from . import catalog


class GpuUnavailable(RuntimeError):
    """No PyCUDA or no CUDA device here."""


_ctx = {}


def init():
    """(pycuda.driver, device attributes); raises GpuUnavailable with one line."""
    if "cuda" in _ctx:
        return _ctx["cuda"], _ctx["dev"]
    try:
        import pycuda.autoprimaryctx  # noqa: F401  (the primary context: the one CuPy's cuBLAS uses too)
        import pycuda.driver as cuda
    except ImportError:
        raise GpuUnavailable("PyCUDA is not installed: pip install -e '.[gpu]' on a machine with a CUDA GPU") from None
    except Exception as e:  # noqa: BLE001 - the driver's own error, in one line
        raise GpuUnavailable(f"no usable CUDA GPU: {str(e).splitlines()[0]}") from None
    dev = pycuda.autoprimaryctx.device
    a = cuda.device_attribute
    info = {"name": dev.name(), "cc": dev.compute_capability(), "sms": dev.get_attribute(a.MULTIPROCESSOR_COUNT),
            "l2_bytes": dev.get_attribute(a.L2_CACHE_SIZE)}
    _ctx.update(cuda=cuda, dev=info)
    return cuda, info


_modules: dict = {}


def module(source: str, options: list[str] | tuple[str, ...] = (), filename: str = "kernel.cu"):
    """A PyCUDA module loaded from the cubin NVRTC makes of `source` for this device's architecture
    (cudasim.compile), loaded once per source and options."""
    cuda, dev = init()
    from cudasim.compile import compile_cubin

    key = (source, tuple(options), filename)
    if key not in _modules:
        cubin, _ = compile_cubin(source, options=list(options), arch="sm_%d%d" % dev["cc"], filename=filename)
        _modules[key] = cuda.module_from_buffer(cubin)
    return _modules[key]


def function(k: catalog.Kernel):
    """The kernel loaded from the cubin NVRTC makes (cudasim.compile): the machine code of the very
    PTX the simulator runs and the models read, so that measured and predicted describe one binary. The
    file is named by its full path, as analysis.pipeline names it: the name and the folder it puts on the
    include path are compiler inputs (a bare 'sgemm.cu' gave sgemm_warptiling 114 registers on the H200
    machine where the analysis's compile gives 112)."""
    return module(catalog.source(k), catalog.options(k), str(k.path)).get_function(k.entry)


def _events_ms(launch, repeats: int, warmup: int, min_seconds: float = 0.25, max_repeats: int = 500) -> float:
    """Median of CUDA-event timings: `warmup` untimed launches, then at least `repeats` timed
    ones, more for short kernels (until about `min_seconds` of GPU time, at most `max_repeats`)."""
    cuda, _ = init()
    for i in range(warmup):
        launch(i)
    times = []
    i = 0
    while i < repeats or (sum(times) < 1e3 * min_seconds and i < max_repeats):
        i += 1
        s, e = cuda.Event(), cuda.Event()
        s.record()
        launch(warmup + i - 1)
        e.record()
        e.synchronize()
        times.append(e.time_since(s))
    return float(np.median(times))


def device_copies(inputs: dict, skip: tuple[str, ...] = (), most: int = 8) -> list[dict]:
    """The inputs on the device, in as many copies as it takes for timed launches that rotate
    through them to find none in L2 (inputs over twice the L2 need one): how kernels are timed
    "with inputs not resident in L2". Arrays become device buffers; scalars and `skip` stay out."""
    cuda, dev = init()
    ws = sum(v.nbytes for n, v in inputs.items() if isinstance(v, np.ndarray) and n not in skip)
    copies = 1 if ws > 2 * dev["l2_bytes"] else min(most, -(-3 * dev["l2_bytes"] // max(ws, 1)))
    sets = []
    for _ in range(copies):
        d = {}
        for key, v in inputs.items():
            if key in skip:
                continue
            if isinstance(v, np.ndarray):
                d[key] = cuda.mem_alloc(v.nbytes)
                cuda.memcpy_htod(d[key], v)
            else:
                d[key] = v
        sets.append(d)
    return sets


def run_kernel(k: catalog.Kernel, size: int, repeats: int = 20, warmup: int = 3, seed: int = 0) -> dict:
    """Compile, run once and verify against numpy, then time. Returns a result row."""
    cuda, dev = init()
    f = function(k)
    inputs = k.make_inputs(size, seed)
    grid, block, shared = k.launch(size, dev["sms"])
    sets = device_copies(inputs)
    copies = len(sets)
    fn_args = [k.args(d, size) for d in sets]
    f(*fn_args[0], block=block, grid=grid, shared=shared)
    got = np.empty_like(inputs[k.output])
    cuda.memcpy_dtoh(got, sets[0][k.output])
    ok, err = catalog.verify(k, got, inputs)
    reps = repeats if k.name != "vector_add_single" else 3
    ms = _events_ms(lambda i: f(*fn_args[i % copies], block=block, grid=grid, shared=shared), reps, 1 if reps == 3
                    else warmup)
    for d in sets:
        for v in d.values():
            if hasattr(v, "free"):
                v.free()
    return {"kernel": k.name, "family": k.family, "size": size, "ok": ok, "max_rel_err": err, "ms": ms,
            "gflops": k.flops(size) / ms / 1e6 if k.flops(size) else None,
            "gbs": k.min_bytes(size) / ms / 1e6, "registers": f.num_regs, "shared_bytes": f.shared_size_bytes,
            "grid": list(grid), "block": list(block), "copies": copies, "device": dev["name"]}


def run_pipeline(k: catalog.Kernel, size: int, chunks: int = 8, repeats: int = 5) -> dict:
    """Host -> device -> kernel -> host. Pageable and pinned: each stage timed with events.
    Streams: the same stages one after the other (pinned), then `chunks` chunks on as many
    streams; the overlap achieved is how much of the serial time the streams saved, as a
    share of what perfect overlap (the longest stage alone) would save."""
    cuda, dev = init()
    f = function(k)
    inputs = k.make_inputs(size)
    grid, block, _ = k.launch(size, dev["sms"])
    nb = size * 4
    if k.pipeline == "pageable":
        host = {n: inputs[n] for n in ("a", "b")}
        out = np.full(size, np.nan, np.float32)
    else:
        host = {n: cuda.pagelocked_empty(size, np.float32) for n in ("a", "b")}
        for n in host:
            host[n][:] = inputs[n]
        out = cuda.pagelocked_empty(size, np.float32)
        out[:] = np.nan
    dev_buf = {n: cuda.mem_alloc(nb) for n in ("a", "b", "c")}
    ev = [cuda.Event() for _ in range(4)]
    stage = {"h2d": [], "kernel": [], "d2h": [], "total": []}
    for _ in range(repeats):
        ev[0].record()
        cuda.memcpy_htod(dev_buf["a"], host["a"])
        cuda.memcpy_htod(dev_buf["b"], host["b"])
        ev[1].record()
        f(dev_buf["a"], dev_buf["b"], dev_buf["c"], np.int32(size), block=block, grid=grid)
        ev[2].record()
        cuda.memcpy_dtoh(out, dev_buf["c"])
        ev[3].record()
        ev[3].synchronize()
        stage["h2d"].append(ev[1].time_since(ev[0]))
        stage["kernel"].append(ev[2].time_since(ev[1]))
        stage["d2h"].append(ev[3].time_since(ev[2]))
        stage["total"].append(ev[3].time_since(ev[0]))
    med = {key: float(np.median(v)) for key, v in stage.items()}
    ok, err = catalog.verify(k, out, inputs)
    total = med["total"]
    extra = {}
    if k.pipeline == "streams":
        out[:] = np.nan
        streams = [cuda.Stream() for _ in range(chunks)]
        per = -(-size // chunks)
        per += (-per) % 4  # keep every chunk 16-byte aligned for the float4 loads
        times = []
        for _ in range(repeats):
            ev[0].record()
            for i, s in enumerate(streams):
                lo = i * per
                n = max(0, min(per, size - lo))
                if n == 0:
                    continue
                off = lo * 4
                cuda.memcpy_htod_async(int(dev_buf["a"]) + off, host["a"][lo:lo + n], s)
                cuda.memcpy_htod_async(int(dev_buf["b"]) + off, host["b"][lo:lo + n], s)
                g = (max(1, min(grid[0], -(-n // 1024))), 1, 1)
                f(np.intp(int(dev_buf["a"]) + off), np.intp(int(dev_buf["b"]) + off),
                  np.intp(int(dev_buf["c"]) + off), np.int32(n), block=block, grid=g, stream=s)
                cuda.memcpy_dtoh_async(out[lo:lo + n], int(dev_buf["c"]) + off, s)
            ev[3].record()
            ev[3].synchronize()
            times.append(ev[3].time_since(ev[0]))
        total = float(np.median(times))
        ok2, err2 = catalog.verify(k, out, inputs)
        ok, err = ok and ok2, max(err, err2)
        serial, ideal = med["total"], max(med["h2d"], med["kernel"], med["d2h"])
        extra = {"serial_ms": serial, "streams_ms": total, "chunks": chunks,
                 "overlap_pct": 100 * (serial - total) / (serial - ideal) if serial > ideal else 0.0}
        med = {**med, "total": total}
    row = {"kernel": k.name, "family": k.family, "size": size, "ok": ok, "max_rel_err": err, "ms": total,
           "gflops": None, "gbs": k.min_bytes(size) / total / 1e6, "device": dev["name"],
           "registers": f.num_regs, "shared_bytes": f.shared_size_bytes, "stages_ms": med, **extra}
    for b in dev_buf.values():
        b.free()
    return row


def copy_bandwidth(nbytes: int = 1 << 30, repeats: int = 10) -> float:
    """Measured device-to-device copy, GB/s counting the read and the write."""
    cuda, _ = init()
    src, dst = cuda.mem_alloc(nbytes), cuda.mem_alloc(nbytes)
    ms = _events_ms(lambda i: cuda.memcpy_dtod(dst, src, nbytes), repeats, 2)
    src.free()
    dst.free()
    return 2 * nbytes / ms / 1e6


def cublas_ms(dtype, n: int, repeats: int = 10) -> float | None:
    """cuBLAS GEMM through CuPy (same events, same median), or None without CuPy."""
    try:
        import cupy as cp
    except ImportError:
        return None
    a = cp.random.random((n, n)).astype(dtype)
    b = cp.random.random((n, n)).astype(dtype)
    c = cp.empty((n, n), dtype)
    for _ in range(3):
        cp.matmul(a, b, out=c)
    times = []
    for _ in range(repeats):
        s, e = cp.cuda.Event(), cp.cuda.Event()
        s.record()
        cp.matmul(a, b, out=c)
        e.record()
        e.synchronize()
        times.append(cp.cuda.get_elapsed_time(s, e))
    return float(np.median(times))
