"""Differential check of the 16-bit float, dot-product and directed-rounding forms: every form as a
one-instruction PTX kernel, and CUDA kernels built from cuda_fp16.h / cuda_bf16.h intrinsics, run
on the GPU and in cudasim on the same inputs (edge values, ties, subnormals, infinities, NaNs and
random bits), compared bit for bit (NaN payloads included); the approximate ex2 and tanh are held
to the ulp the ISA allows.

    python -m kernels.differential --halfs     # a GPU machine with PyCUDA and this project
    python -m kernels.halfdiff export DIR      # here: the PTX and the inputs, into DIR
    python -m kernels.halfdiff gpu DIR         # there: needs only numpy and PyCUDA (or CuPy)
    python -m kernels.halfdiff compare DIR     # here: cudasim on the same inputs, against DIR/gpu.npz
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from cudasim.console import Parser, fail

from .halfforms import BLOCK, CUDA, CUDA_KERNELS, N, STORE, column, forms, inputs, module_ptx, out_dtype

# -- running and comparing ------------------------------------------------------------------------
def export(folder: Path, seed: int = 0) -> dict:
    """The PTX (the forms' module and NVRTC's PTX of the CUDA kernels) and every input, into `folder`."""
    from cudasim import compile_cuda
    from cudasim.gpus import get_gpu

    folder.mkdir(parents=True, exist_ok=True)
    fs = forms()
    arch = get_gpu().arch  # the table's default GPU (the H100): its architecture, for both modules
    (folder / "forms.ptx").write_text(module_ptx(fs, arch))
    (folder / "cuda.ptx").write_text(compile_cuda(CUDA, arch=arch).ptx)
    rng = np.random.default_rng(seed)
    arrays, plan = {}, []
    for f in fs:
        with np.errstate(all="ignore"):  # the inputs are bit patterns: overflow and NaN while making them are intended
            cols = inputs(f, rng)
        for i, c in enumerate(cols):
            arrays[f"{f.name}:in{i}"] = c
        plan.append({"module": "forms.ptx", "entry": f.name, "ins": len(cols),
                     "outs": [out_dtype(t).__name__ for t in f.outs],
                     "lanes": N, "ulps": f.ulps, "halves": [t for t in f.outs]})
    for k in CUDA_KERNELS:
        with np.errstate(all="ignore"):
            cols = [column(t, rng, N) for t in k.ins]
        for c, t in list(zip(cols, k.ins))[1:]:  # one NaN operand at most: with two, which one a DADD or
            if t in ("f32", "f64"):              # DFMA returns follows ptxas's operand order, not the PTX's
                f = c.view(np.float32 if t == "f32" else np.float64)
                f[np.isnan(f)] = 1.5
        for i, c in enumerate(cols):
            arrays[f"{k.name}:in{i}"] = c
        plan.append({"module": "cuda.ptx", "entry": k.name, "ins": len(cols),
                     "outs": [STORE[d].__name__ for d, _ in k.outs], "per_lane": [c for _, c in k.outs],
                     "lanes": N, "ulps": 0, "halves": [d for d, _ in k.outs]})
    np.savez_compressed(folder / "inputs.npz", **arrays)
    (folder / "plan.json").write_text(json.dumps(plan, indent=0))
    return {"forms": len(fs), "cuda_kernels": len(CUDA_KERNELS)}


def _launch_all(folder: Path, run) -> dict[str, np.ndarray]:
    """Outputs of every planned launch, `run(module_text, entry, outs, ins, n)` filling `outs`."""
    plan = json.loads((folder / "plan.json").read_text())
    data = np.load(folder / "inputs.npz")
    texts = {m: (folder / m).read_text() for m in ("forms.ptx", "cuda.ptx")}
    results = {}
    for p in plan:
        n = p["lanes"]
        ins = [data[f"{p['entry']}:in{i}"] for i in range(p["ins"])]
        outs = [np.zeros(n * k, np.dtype(d)) for d, k in zip(p["outs"], p.get("per_lane", [1] * len(p["outs"])))]
        run(texts[p["module"]], p["entry"], outs, ins, n)
        for j, o in enumerate(outs):
            results[f"{p['entry']}:out{j}"] = o
    return results


def run_gpu(folder: Path) -> Path:
    """Every launch on the GPU (PyCUDA, else CuPy), outputs to folder/gpu.npz."""
    try:
        import pycuda.autoprimaryctx  # noqa: F401
        import pycuda.driver as cuda

        mods: dict = {}
        device = cuda.Context.get_device().name()

        def run(text, entry, outs, ins, n):
            if text not in mods:
                mods[text] = cuda.module_from_buffer(text.encode())
            mods[text].get_function(entry)(*[cuda.Out(o) for o in outs], *[cuda.In(a) for a in ins], np.uint32(n),
                                    block=(BLOCK, 1, 1), grid=(-(-n // BLOCK), 1))
    except ImportError:
        import cupy as cp

        cmods: dict = {}
        name = cp.cuda.runtime.getDeviceProperties(0)["name"]
        device = name.decode() if isinstance(name, bytes) else name

        def run(text, entry, outs, ins, n):
            if text not in cmods:
                path = folder / f"_{len(cmods)}.ptx"
                path.write_text(text)
                cmods[text] = cp.RawModule(path=str(path))
            d_outs = [cp.zeros(o.shape, o.dtype) for o in outs]
            cmods[text].get_function(entry)((-(-n // BLOCK),), (BLOCK,), (*d_outs, *[cp.asarray(a) for a in ins],
                                                                           np.uint32(n)))
            for o, d in zip(outs, d_outs):
                o[...] = cp.asnumpy(d)
    out = folder / "gpu.npz"
    np.savez_compressed(out, **_launch_all(folder, run))
    import datetime

    (folder / "gpu.json").write_text(json.dumps({"device": device, "date": datetime.date.today().isoformat()}))
    return out


def run_sim(folder: Path) -> dict[str, np.ndarray]:
    """Every launch in cudasim."""
    from cudasim import In, Out, SourceModule

    mods: dict = {}

    def run(text, entry, outs, ins, n):
        if text not in mods:
            mods[text] = SourceModule.from_ptx(text)
        mods[text].get_function(entry)(*[Out(o) for o in outs], *[In(a) for a in ins], np.uint32(n),
                                       block=(BLOCK, 1, 1), grid=(-(-n // BLOCK), 1), trace=False, check=False)
    return _launch_all(folder, run)


def _ordinal16(u: np.ndarray) -> np.ndarray:
    u = u.astype(np.int64)
    return np.where(u & 0x8000, -(u & 0x7FFF), u)


def compare(folder: Path, sim: dict[str, np.ndarray], gpu: dict[str, np.ndarray]) -> list[dict]:
    """Per output: lanes, lanes whose bits differ (beyond the form's ulp for approximate forms),
    and the first few differences (inputs, GPU and cudasim bits in hex)."""
    plan = json.loads((folder / "plan.json").read_text())
    data = np.load(folder / "inputs.npz")
    rows = []
    for p in plan:
        for j, kind in enumerate(p["halves"]):
            key = f"{p['entry']}:out{j}"
            g, s = gpu[key], sim[key]
            if p["ulps"]:  # per 16-bit half: within the ulp the ISA allows; NaN bits exact
                parts = [(g, s)] if g.dtype == np.uint16 else [(g & 0xFFFF, s & 0xFFFF), (g >> 16, s >> 16)]
                bad = np.zeros(g.shape, bool)
                for gh, sh in parts:
                    gh, sh = gh.astype(np.uint16), sh.astype(np.uint16)
                    nan = ((gh & 0x7FFF) > 0x7C00) | ((sh & 0x7FFF) > 0x7C00) if "f16" in kind and "bf" not in kind \
                        else ((gh & 0x7FFF) > 0x7F80) | ((sh & 0x7FFF) > 0x7F80)
                    bad |= np.where(nan, gh != sh, np.abs(_ordinal16(gh) - _ordinal16(sh)) > p["ulps"])
            else:
                bad = g != s
            lanes = np.flatnonzero(bad)
            n = p["lanes"]
            ins = [data[f"{p['entry']}:in{i}"] for i in range(p["ins"])]
            examples = [{"lane": int(i), "inputs": [hex(int(a[i % n])) for a in ins], "gpu": hex(int(g[i])),
                         "sim": hex(int(s[i]))} for i in lanes[:4]]
            rows.append({"entry": p["entry"], "output": j, "elements": int(g.size), "mismatched": int(lanes.size),
                         "approximate_ulps": p["ulps"], "examples": examples})
    return rows


def digests(folder: Path, outputs: dict[str, np.ndarray]) -> dict:
    """SHA-256 of each module's PTX, and per launch of its inputs and of each output's bytes, so that
    a machine without a GPU can check cudasim against recorded GPU outputs (tests/test_halfdiff.py;
    approximate forms, `ulps` > 0, agree within their ulp, not byte for byte)."""
    import hashlib

    plan = json.loads((folder / "plan.json").read_text())
    data = np.load(folder / "inputs.npz")
    sha = lambda b: hashlib.sha256(b).hexdigest()  # noqa: E731
    launches = {p["entry"]: {"module": p["module"], "ulps": p["ulps"],
                             "inputs": sha(b"".join(data[f"{p['entry']}:in{i}"].tobytes() for i in range(p["ins"]))),
                             "outputs": [sha(outputs[f"{p['entry']}:out{j}"].tobytes()) for j in range(len(p["outs"]))]}
                for p in plan}
    return {"ptx": {m: sha((folder / m).read_bytes()) for m in ("forms.ptx", "cuda.ptx")}, "launches": launches}


def summary(rows: list[dict]) -> dict:
    bad = [r for r in rows if r["mismatched"]]
    return {"forms_and_kernels": len({r["entry"] for r in rows}), "outputs": len(rows),
            "elements": sum(r["elements"] for r in rows), "mismatched_elements": sum(r["mismatched"] for r in rows),
            "outputs_differing": [r["entry"] + (f"[{r['output']}]" if r["output"] else "") for r in bad]}


def run_here(seed: int = 0) -> tuple[dict, list[dict]]:
    """On a GPU machine with PyCUDA and this project: export, run on both sides, compare."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        export(folder, seed)
        gpu = dict(np.load(run_gpu(folder)))
        rows = compare(folder, run_sim(folder), gpu)
    return summary(rows), rows


def main(argv: list[str] | None = None) -> int:
    ap = Parser(prog="python -m kernels.halfdiff", description=__doc__)
    ap.add_argument("step", choices=["export", "gpu", "compare"],
                    help="export the forms and operands (any machine), run them on the GPU, or compare the results")
    ap.add_argument("folder", type=Path, help="the folder the steps share")
    ap.add_argument("--gpu-npz", type=Path, help="the GPU's outputs (default FOLDER/gpu.npz)")
    ap.add_argument("--out", type=Path, help="compare: write the summary, the rows and the GPU's digests as JSON here")
    ap.add_argument("--seed", type=int, default=0, help="seed of the random operands (default 0)")
    args = ap.parse_args(argv)
    if args.step != "export" and not (args.folder / "forms.ptx").exists():
        fail(f"{args.folder}: no exported forms there; run `python -m kernels.halfdiff export {args.folder}` first")
    if args.step == "export":
        print(json.dumps(export(args.folder, args.seed)))
        return 0
    if args.step == "gpu":
        print(run_gpu(args.folder))
        return 0
    npz = args.gpu_npz or args.folder / "gpu.npz"
    if not npz.exists():
        fail(f"{npz}: no GPU outputs; run `python -m kernels.halfdiff gpu {args.folder}` on the GPU machine first "
             "(or give them with --gpu-npz)")
    gpu = dict(np.load(npz))
    rows = compare(args.folder, run_sim(args.folder), gpu)
    s = summary(rows)
    meta = npz.with_suffix(".json")
    if meta.exists():  # where and when the GPU ran
        s["measured"] = json.loads(meta.read_text())
    print(json.dumps(s, indent=1))
    for r in rows:
        if r["mismatched"]:
            print(r["entry"], r["output"], r["mismatched"], json.dumps(r["examples"][:2]))
    if args.out:
        args.out.write_text(json.dumps({"summary": s, "rows": [r for r in rows if r["mismatched"]],
                                        "gpu_digests": digests(args.folder, gpu)}, indent=1) + "\n")
    return 0 if not s["mismatched_elements"] else 1


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
