"""List the kernel catalog, or compile every kernel for the default GPU's architecture as a check (no GPU needed).

    python -m kernels [--json] [--check]
"""
from __future__ import annotations

import json

from cudasim.console import Parser
from cudasim.gpus import get_gpu

from . import catalog


def main(argv: list[str] | None = None) -> int:
    p = Parser(prog="python -m kernels", description=__doc__)
    p.add_argument("--json", action="store_true", help="the catalog (or, with --check, the compiles) as JSON")
    p.add_argument("--check", action="store_true",
                   help=f"compile every kernel to PTX for {get_gpu().arch} (the default GPU row) with NVRTC")
    a = p.parse_args(argv)
    if a.check:
        return check(a.json)
    rows = []
    sms = get_gpu().sms  # the default row (H100-SXM), which the JSON key below names
    for k in catalog.KERNELS:
        grid, block, shared = k.launch(k.default_size, sms)
        rows.append({"name": k.name, "family": k.family, "kind": k.kind, "source": k.source, "entry": k.entry,
                     "defines": dict(k.defines), "params": k.params, "constraint": k.constraint,
                     "size_multiple": k.multiple, "bench_size": k.default_size, "sim_size": k.sim_size,
                     "rtol": k.rtol, "launch_at_bench_size_h100": {"grid": grid, "block": block, "shared": shared},
                     "teaches": k.teaches})
    if a.json:
        print(json.dumps(rows, indent=1))
        return 0
    seen = []
    for r in rows:
        if r["family"] not in seen:
            seen.append(r["family"])
    for fam in seen:
        print(f"{fam}:")
        for r in rows:
            if r["family"] == fam:
                tag = " (host pipeline)" if r["kind"] == "pipeline" else ""
                print(f"  {r['name']:28s} {r['teaches']}{tag}")
                print(f"  {'':28s}   {r['params']}; sizes: {r['constraint']}; bench {r['bench_size']}, "
                      f"simulator {r['sim_size']}")
    return 0


def check(as_json: bool = False) -> int:
    from cudasim import CompileError, compile_cuda

    arch = get_gpu().arch
    rows = []
    for k in catalog.KERNELS:
        try:
            res = compile_cuda(catalog.source(k), options=catalog.options(k), arch=arch, filename=str(k.path))
            r = res.resources[res.entry(k.entry)]
            rows.append({"name": k.name, "arch": arch, "ok": True, "registers": r.registers,
                         "static_shared_bytes": r.shared_bytes, "spill_store_bytes": r.spill_stores})
        except (CompileError, KeyError) as e:
            rows.append({"name": k.name, "arch": arch, "ok": False, "error": str(e).splitlines()[0]})
    if as_json:
        print(json.dumps(rows, indent=1))
    for r in rows if not as_json else ():
        print(f"{r['name']:28s} {arch}  {r['registers']:4d} registers/thread  {r['static_shared_bytes']:6d} B static "
              f"shared  {r['spill_store_bytes']} B spilled" if r["ok"] else f"{r['name']:28s} FAILED: {r['error']}")
    return 0 if all(r["ok"] for r in rows) else 1


if __name__ == "__main__":
    from cudasim.console import run

    run(main)
