"""kernels.halfdiff, the GPU differential of the 16-bit float, dp4a/dp2a and directed-rounding forms:
its PTX assembles, its cudasim half runs here, and cudasim writes on its inputs the very bytes an
H100 wrote (SHA-256 digests of every output, recorded by `python -m kernels.halfdiff compare
... --out kernels/results/differential_halfs_h100.json` from the H100's outputs)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from kernels import halfdiff
from ptxkit import HAVE_PTXAS, ptxas_errors

RECORDED = Path(halfdiff.__file__).parent / "results" / "differential_halfs_h100.json"


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    folder = tmp_path_factory.mktemp("halfdiff")
    halfdiff.export(folder)
    return folder


@pytest.mark.skipif(not HAVE_PTXAS, reason="ptxas is not installed")
def test_the_forms_assemble_with_ptxas(exported):
    assert ptxas_errors((exported / "forms.ptx").read_text()) == ""


def test_every_form_is_a_distinct_entry():
    names = [f.name for f in halfdiff.forms()]
    assert len(names) == len(set(names))


def test_cudasim_writes_what_the_h100_wrote(exported):
    """Every exact launch whose PTX and inputs are the recorded run's: output bytes identical to the
    GPU's (the approximate ex2 and tanh agree within 2 ulp, checked by the differential itself)."""
    recorded = json.loads(RECORDED.read_text())
    assert recorded["summary"]["mismatched_elements"] == 0
    rec = recorded["gpu_digests"]
    now = halfdiff.digests(exported, halfdiff.run_sim(exported))
    same = [e for e, r in rec["launches"].items() if e in now["launches"] and not r["ulps"]
            and rec["ptx"][r["module"]] == now["ptx"][r["module"]] and r["inputs"] == now["launches"][e]["inputs"]]
    if not same:
        pytest.skip("no launch has the recorded PTX and inputs (another numpy or NVRTC): run the differential on a GPU")
    differ = [e for e in same if now["launches"][e]["outputs"] != rec["launches"][e]["outputs"]]
    assert not differ, f"cudasim differs from the H100 on {differ}"
