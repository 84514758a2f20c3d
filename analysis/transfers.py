"""The transfer lesson, predicted: host -> device copies, the kernel, device -> host, with and
without streams, as a schedule over the GPU's engines, with no GPU.

    python -m analysis.transfers vector_add_streams [--chunks 8] [--size N] [--measured FILE] [--json]

Why a schedule: with streams, the time is not a sum of stages but how the copies and kernels
of the chunks overlap on the engines that run them. Each operation is a node of a DAG
(networkx) with two kinds of edges: a stream's operations run in order (copy in, kernel, copy
out), and each engine (one H2D copy engine, the SMs, one D2H copy engine: one per direction)
runs its operations one at a time in the order the host issued them. Walking the DAG in
topological order gives every operation its start (the latest finish among its predecessors)
and so the predicted timeline.

Durations: copies are bytes / the host link's measured bandwidth (pageable or pinned, the
GPU row's `host_link`, from kernels.microbench); the kernel is the timing model's committed
prediction for vector_add_grid_stride at the pipeline's size (analysis/results/timing_h100.json)
with its work scaled by the chunk's elements and the launch overhead kept whole. The
engines-only schedule assumes each direction keeps its full rate while the other copies; the
measured two-direction rate (bidir) gives a second, slower bound, printed beside it.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import networkx as nx

from cudasim.console import Parser, fail
from cudasim.gpus import GPU, get_gpu
from kernels import catalog

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "kernels" / "results" / "bench_h100.json"
TIMING = ROOT / "analysis" / "results" / "timing_h100.json"
ENGINES = ("H2D", "compute", "D2H")
PIPELINES = ("vector_add_pageable", "vector_add_pinned", "vector_add_streams")
KERNEL = "vector_add_grid_stride"  # the kernel every host pipeline launches (kernels.gpu.run_pipeline)


@dataclass
class Op:
    """One operation of the timeline: what it is, which stream and engine, when (ms)."""

    name: str
    stream: int
    engine: str
    work: float  # bytes for copies, ms for kernels
    start_ms: float = 0.0
    end_ms: float = 0.0

    @property
    def ms(self) -> float:
        return self.end_ms - self.start_ms


def link_rates(gpu: GPU, pinned: bool) -> tuple[float, float]:
    """(H2D, D2H) bytes per ms from the GPU row's measured host link; ValueError without them."""
    h = gpu.host_link
    kind = "pinned" if pinned else "pageable"
    try:
        return h[f"h2d_{kind}_gbs"]["value"] * 1e6, h[f"d2h_{kind}_gbs"]["value"] * 1e6
    except KeyError:
        raise ValueError(f"no host link rates for {gpu.key} in cudasim/gpus.json (host_link); "
                         f"measure them with python -m kernels.microbench") from None


MAX_CHUNKS = 1024


def kernel_ms(elements: int, timing_file: Path = TIMING) -> tuple[float, str]:
    """The kernel's predicted time (ms) for a chunk of `elements`, and where it comes from:
    the committed prediction at its size, its work scaled by elements, launch overhead whole."""
    rows = {r["kernel"]: r for r in json.loads(timing_file.read_text())["rows"]}
    r = rows[KERNEL]
    launch_us = get_gpu().timing["launch_us"]["value"]
    work_us = max(r["predicted_us"] - launch_us, 0.0) * elements / r["size"]
    us = launch_us + work_us
    return us / 1e3, (f"timing model ({timing_file.name}): {KERNEL} at {r['size']:,} elements "
                      f"{r['predicted_us']:,.1f} us, work scaled to {elements:,} elements + {launch_us:.2f} us launch")


def build(size: int, chunks: int, kernel_chunk_ms: float) -> tuple[nx.DiGraph, list[Op]]:
    """The DAG: per chunk (one stream each) copy a, copy b, kernel, copy c out, issued stream
    by stream as kernels.gpu.run_pipeline issues them; edges for stream order and engine order."""
    per = -(-size // chunks)
    per += (-per) % 4  # as run_pipeline: chunks stay 16-byte aligned
    ops: list[Op] = []
    for s in range(chunks):
        n = max(0, min(per, size - s * per))
        if n == 0:
            continue
        ops += [Op(f"a{s} in", s, "H2D", 4.0 * n), Op(f"b{s} in", s, "H2D", 4.0 * n),
                Op(f"kernel {s}", s, "compute", kernel_chunk_ms * n / per), Op(f"c{s} out", s, "D2H", 4.0 * n)]
    g = nx.DiGraph()
    g.add_nodes_from(range(len(ops)))
    last: dict = {}
    for i, op in enumerate(ops):
        for key in (("stream", op.stream), ("engine", op.engine)):
            if key in last:
                g.add_edge(last[key], i, why=key[0])
            last[key] = i
    return g, ops


def schedule(g: nx.DiGraph, ops: list[Op], rates: tuple[float, float]) -> list[Op]:
    """Start every op at the latest finish of its predecessors (topological order): the
    earliest-start schedule of the DAG, which the engine edges make one op per engine at a time."""
    h2d, d2h = rates
    for i in nx.topological_sort(g):
        op = ops[i]
        op.start_ms = max((ops[p].end_ms for p in g.predecessors(i)), default=0.0)
        dur = op.work / h2d if op.engine == "H2D" else op.work / d2h if op.engine == "D2H" else op.work
        op.end_ms = op.start_ms + dur
    return ops


def predict(name: str = "vector_add_streams", size: int | None = None, chunks: int | None = None,
            gpu: GPU | None = None, timing_file: Path = TIMING) -> dict:
    """The predicted timeline and stage times of one host pipeline (catalog name)."""
    k = catalog.get(name)
    if k.kind != "pipeline":
        raise ValueError(f"{name} is not a host pipeline (one of {', '.join(PIPELINES)})")
    gpu = gpu or get_gpu()
    size = size or k.default_size
    k.check_size(size)
    k.check_fits(size, gpu.memory_bytes, f"the {gpu.name}")
    streams = k.pipeline == "streams"
    chunks = chunks if chunks is not None else (8 if streams else 1)
    pinned = k.pipeline != "pageable"
    rates = link_rates(gpu, pinned)
    per = -(-size // max(chunks, 1))
    per += (-per) % 4
    if -(-size // per) < chunks:
        raise ValueError(f"--chunks {chunks} with --size {size:,}: a chunk is a whole multiple of 4 floats (16-byte "
                         f"aligned for float4), so {size:,} float(s) make {-(-size // per)} chunk(s); fewer chunks or "
                         f"a larger --size")
    kms, ksrc = kernel_ms(per, timing_file)
    full_kms, _ = kernel_ms(size, timing_file)
    g, ops = build(size, chunks, kms)
    ops = schedule(g, ops, rates)
    total = max(op.end_ms for op in ops)
    busy = {e: sum(op.ms for op in ops if op.engine == e) for e in ENGINES}
    serial = {"h2d": 8.0 * size / rates[0], "kernel": full_kms, "d2h": 4.0 * size / rates[1]}
    out = {"pipeline": name, "size": size, "chunks": chunks, "pinned": pinned, "gpu": gpu.key,
           "total_ms": total, "busy_ms": busy, "serial_stages_ms": serial, "serial_ms": sum(serial.values()),
           "ops": [asdict(op) for op in ops], "kernel_source": ksrc,
           "rates_gbs": {"h2d": rates[0] / 1e6, "d2h": rates[1] / 1e6},
           "rates_source": {d: gpu.host_link[f"{d}_{'pinned' if pinned else 'pageable'}_gbs"]["source"]
                            for d in ("h2d", "d2h")},
           "provenance": "predicted (no GPU): host link rates measured by kernels.microbench, kernel time "
                         "from the timing model (simulated), schedule from the DAG"}
    if streams and "bidir_pinned_gbs" in gpu.host_link:  # the slower bound: both directions share the link
        f = gpu.host_link["bidir_pinned_gbs"]["value"] * 1e6 / (rates[0] + rates[1])
        g2, ops2 = build(size, chunks, kms)
        slowed = _contended(g2, ops2, rates, f)
        out["bidir_bound_ms"] = slowed
        out["bidir_factor"] = f
    ideal = max(serial.values())
    out["overlap_pct"] = 100 * (out["serial_ms"] - total) / (out["serial_ms"] - ideal) if chunks > 1 else 0.0
    return out


def _contended(g: nx.DiGraph, ops: list[Op], rates: tuple[float, float], factor: float) -> float:
    """Total ms when a copy runs at `factor` of its rate while the other direction copies too
    (event by event: the set of running ops changes only when one finishes)."""
    left = {i: op.work for i, op in enumerate(ops)}
    done: set[int] = set()
    running: set[int] = set()
    t = 0.0
    while len(done) < len(ops):
        for i in g.nodes:
            if i not in done and i not in running and all(p in done for p in g.predecessors(i)):
                running.add(i)
        copying = {ops[i].engine for i in running} & {"H2D", "D2H"}
        f = factor if len(copying) == 2 else 1.0
        speed = {i: (rates[0] * f if ops[i].engine == "H2D" else rates[1] * f if ops[i].engine == "D2H" else 1.0)
                 for i in running}
        dt = min(left[i] / speed[i] for i in running)
        t += dt
        for i in list(running):
            left[i] -= speed[i] * dt
            if left[i] <= 1e-9 * max(ops[i].work, 1.0):
                running.discard(i)
                done.add(i)
    return t


def measured(name: str, bench_file: Path = BENCH) -> dict | None:
    """The pipeline's row of kernels.bench's results (stages_ms, serial_ms, streams_ms), or None."""
    if not bench_file.exists():
        return None
    d = json.loads(bench_file.read_text())
    if not isinstance(d, dict) or not isinstance(d.get("rows"), list):
        raise ValueError("no \"rows\" table")
    row = next((r for r in d["rows"] if r["kernel"] == name), None)
    return {**row, "device_name": d.get("device", {}).get("name", "?")} if row else None


def comparison(p: dict, m: dict | None) -> list[dict]:
    """Rows of (what, predicted ms, measured ms, error %): the stages, the total, the overlap."""
    if not m:
        return []
    st = m.get("stages_ms", {})
    rows = [("H2D copies (a, b)", p["serial_stages_ms"]["h2d"], st.get("h2d")),
            ("kernel", p["serial_stages_ms"]["kernel"], st.get("kernel")),
            ("D2H copy (c)", p["serial_stages_ms"]["d2h"], st.get("d2h"))]
    if p["chunks"] > 1:
        rows += [("one stream, stages in a row", p["serial_ms"], m.get("serial_ms")),
                 (f"{p['chunks']} streams", p["total_ms"], m.get("streams_ms"))]
    else:
        rows.append(("total", p["total_ms"], st.get("total")))
    out = [{"what": w, "predicted_ms": a, "measured_ms": b,
            "error_pct": None if not b else 100 * (a - b) / b} for w, a, b in rows]
    if p["chunks"] > 1 and m.get("overlap_pct") is not None:
        out.append({"what": "overlap achieved (% of the ideal saving)", "predicted_pct": p["overlap_pct"],
                    "measured_pct": m["overlap_pct"]})
    return out


def render(p: dict, m: dict | None) -> str:
    """The predicted timeline and the comparison, as text."""
    out = [f"{p['pipeline']}: {p['size']:,} floats, {p['chunks']} chunk(s), "
           f"{'pinned' if p['pinned'] else 'pageable'} host memory, on {p['gpu']}  [{p['provenance']}]",
           f"  host link: H2D {p['rates_gbs']['h2d']:.2f} GB/s, D2H {p['rates_gbs']['d2h']:.2f} GB/s (measured: "
           f"{p['rates_source']['h2d'].split(' (')[0]}, {p['rates_source']['d2h'].split(' (')[0]})",
           f"  kernel: {p['kernel_source']}", "",
           f"  predicted timeline (ms):  {'op':12s} {'engine':8s} {'start':>9} {'end':>9} {'ms':>8}"]
    for op in p["ops"]:
        out.append(f"  {'':25s} {op['name']:12s} {op['engine']:8s} {op['start_ms']:9.3f} {op['end_ms']:9.3f} "
                   f"{op['end_ms'] - op['start_ms']:8.3f}")
    busy = ", ".join(f"{e} {v:.3f} ms" for e, v in p["busy_ms"].items())
    out += ["", f"  predicted total {p['total_ms']:.3f} ms; engines busy: {busy}; stages in a row {p['serial_ms']:.3f} ms"]
    if "bidir_bound_ms" in p:
        out.append(f"  if each direction slows to {100 * p['bidir_factor']:.0f}% of its rate while the other copies "
                   f"(measured two-direction rate, bidir_pinned): {p['bidir_bound_ms']:.3f} ms")
    rows = comparison(p, m)
    if rows:
        out += ["", f"  predicted vs measured (kernels.bench, CUDA events, {m['device_name']}):"]
        for r in rows:
            if "predicted_pct" in r:
                out.append(f"    {r['what']:42s} {r['predicted_pct']:9.1f} % {r['measured_pct']:9.1f} %")
            else:
                err = "" if r["error_pct"] is None else f"{r['error_pct']:+7.1f}%"
                meas = "-" if r["measured_ms"] is None else f"{r['measured_ms']:9.3f}"
                out.append(f"    {r['what']:42s} {r['predicted_ms']:9.3f} ms {meas} ms {err}")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m analysis.transfers", description=__doc__)
    p.add_argument("pipeline", nargs="?", default="vector_add_streams", choices=PIPELINES,
                   help="the catalog's host pipeline (default: %(default)s)")
    p.add_argument("--size", type=int, help="floats per array (default: the bench size)")
    p.add_argument("--chunks", type=int, help="chunks, one stream each (default: 8 for streams, else 1)")
    p.add_argument("--measured", help=f"kernels.bench results to compare with (default: {BENCH})")
    p.add_argument("--json", action="store_true", help="print the prediction and comparison as JSON")
    a = p.parse_args(argv)
    if a.chunks is not None and not 1 <= a.chunks <= MAX_CHUNKS:
        fail(f"--chunks {a.chunks}: 1 to {MAX_CHUNKS:,} (one stream each; the schedule of copies that share the "
             f"link takes time as the square of the chunks)")
    if a.size is not None and a.size < 1:
        fail(f"--size {a.size}: a number of floats, at least 1")
    if a.measured and not Path(a.measured).is_file():
        fail(f"--measured {a.measured}: no such file (kernels.bench --out FILE writes one)")
    try:
        pred = predict(a.pipeline, a.size, a.chunks)
    except ValueError as e:
        fail(str(e))
    try:
        m = measured(a.pipeline, Path(a.measured) if a.measured else BENCH)
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        fail(f"--measured {a.measured or BENCH}: not kernels.bench's results ({type(e).__name__}: "
             f"{str(e).splitlines()[0][:120]})")
    if m and (m["size"] != pred["size"] or (pred["chunks"] > 1 and m.get("chunks") != pred["chunks"])):
        m = None  # another size or chunking: nothing to compare with
    if a.json:
        print(json.dumps({"predicted": pred, "comparison": comparison(pred, m)}, indent=1))
    else:
        print(render(pred, m))
    return 0


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
