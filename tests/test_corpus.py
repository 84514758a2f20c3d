"""The out-of-sample corpus (corpus/): every kernel compiles with NVRTC, its manifest entry is
complete and consistent with its source, it computes its reference in cudasim at a small size,
and the committed results give a unit and a protocol for every figure."""
import json
from pathlib import Path

import numpy as np
import pytest

from analysis import registry
from analysis.args import parse_signature
from corpus import manifest
from kernels import catalog
from needs import need_nvrtc

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "corpus" / "results"
NAMES = [k.name for k in manifest.CORPUS]

# sizes small enough for a whole-grid simulation; the matrix multiplies have a fixed shape
SMALL = {"stencil1d": 5000, "jacobi2d": 40, "reduce_tree": 5120, "reduce_warp_atomic": 7000, "scan_blelloch": 2048,
         "softmax_rows": 4, "softmax_rows_fast": 4, "histogram256": 20000, "gather": 3000, "gemv_warp_per_row": 20,
         "conv1d_const": 3000, "saxpy_grid_stride": 10000, "rmsnorm_256": 3, "strided_scale": 3000}


def test_corpus_is_large_enough_and_names_are_unique():
    assert len(NAMES) >= 12
    assert len(set(NAMES)) == len(NAMES)
    assert len({k.pattern for k in manifest.CORPUS}) == len(NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_manifest_entry_is_complete(name):
    k = manifest.get(name)
    assert k.path.exists() and k.pattern and k.inputs_desc and k.size > 0
    grid, block, shared = k.launch(k.size, manifest.SMS)
    assert len(grid) == 3 and len(block) == 3 and all(int(v) >= 1 for v in (*grid, *block)) and shared >= 0
    assert k.flops(k.size) >= 0 and k.min_bytes(k.size) > 0
    params = [p.name for p in parse_signature(k.path.read_text(), k.entry)]
    n = SMALL.get(name, k.size)
    inputs = k.make_inputs(n, 0)
    assert [key for key in inputs if key not in k.constants] == params  # the inputs are the signature, in order
    assert k.output in params
    want = k.reference(inputs)
    assert want.shape == inputs[k.output].shape


@pytest.mark.parametrize("name", NAMES)
def test_compiles_with_nvrtc(name):
    need_nvrtc()
    from cudasim.compile import compile_cuda
    k = manifest.get(name)
    res = compile_cuda(k.path.read_text(), [k.entry] if "<" in k.entry else [], arch="sm_90", filename=k.source)
    r = res.resources[res.entry(k.entry)]
    assert r.registers > 0


@pytest.mark.parametrize("name", [n for n in NAMES if n in SMALL])
def test_computes_its_reference_in_cudasim(name):
    need_nvrtc()
    from cudasim import InOut, SourceModule
    from cudasim.errors import UnsupportedInstruction
    k = manifest.get(name)
    exprs = [k.entry] if "<" in k.entry else []
    mod = SourceModule(k.path.read_text(), no_extern_c=True, name_expressions=exprs, filename=k.source)
    f = mod.get_function(k.entry)
    inputs = k.make_inputs(SMALL[name], 1)
    orig = {a: (v.copy() if isinstance(v, np.ndarray) else v) for a, v in inputs.items()}
    for c in k.constants:
        addr, _ = mod.get_global(c)
        mod.memory.write(addr, inputs[c])
    grid, block, shared = k.launch(SMALL[name], 4)
    args = [InOut(v) if isinstance(v, np.ndarray) else v for v in k.args(inputs)]
    if name == "softmax_rows":  # expf's directed-rounding fma: cudasim refuses it (recorded in the comparison)
        with pytest.raises(UnsupportedInstruction, match="directed rounding"):
            f(*args, block=block, grid=grid, shared=shared)
        return
    f(*args, block=block, grid=grid, shared=shared)
    ok, err = catalog.verify(k, inputs[k.output], orig)
    assert ok, err


def test_launch_bounds_signature():
    """A kernel declared with launch bounds, reached by its template name expression."""
    k = manifest.get("rmsnorm_256")
    assert [p.name for p in parse_signature(k.path.read_text(), k.entry)] == ["x", "w", "y", "cols", "eps"]
    nested = "template <int T> __global__ void __launch_bounds__(T * (2), (T > 64 ? 2 : 1)) f(int n, float* a) {}"
    assert [(p.name, p.pointer) for p in parse_signature(nested, "f<128>")] == [("n", False), ("a", True)]


def test_measured_results_have_units_and_protocols():
    d = json.loads((RESULTS / "corpus_h100.json").read_text())
    assert "H100" in d["device"]["name"] and d["date"] and d["device"]["smi"]
    assert {"event_ms", "event_ms_repeat", "ncu"} <= set(d["protocols"])
    assert set(d["kernels"]) == set(NAMES)
    for name, r in d["kernels"].items():
        assert r["ok"], name  # every timed kernel was verified against numpy first
        assert r["event_ms"] > 0 and r["event_ms_repeat"] > 0
        assert 0.02 <= r["event_ms"] <= 5.0, name  # sized for 20 us - 5 ms
        for metric in r["ncu"]["metrics"]:
            assert registry.metric(metric).unit, metric  # every counter's unit is declared by its model


def test_comparison_has_units_and_protocols():
    c = json.loads((RESULTS / "corpus_compare_h100.json").read_text())
    assert c["protocols"] and {t["kernel"] for t in c["times"]} == set(NAMES)
    assert all(r["unit"] for r in c["rows"])
    for t in c["times"]:
        assert all(key.endswith(("_us", "_pct")) for key in t if isinstance(t[key], float))
        assert "error_pct" in t or "timing" in t["refusals"]
    s = c["time_summary"]
    assert s["median_abs_error_pct"] is not None and s["kernels_timed"] >= 12
    text = (RESULTS / "corpus_compare_h100.md").read_text()
    assert "default clocks" in text and "locked to base" in text
