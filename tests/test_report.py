"""The report and the transfer lesson: the page builds from the committed results alone and
stands on its own (no script, no external file), every kernel row says which numbers were
measured and which predicted; the streams schedule keeps the properties any schedule of
those operations on those engines must have."""
import re
import subprocess
import sys
from pathlib import Path

import pytest

from analysis import report, transfers

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    out = tmp_path_factory.mktemp("report") / "report.html"
    assert report.main(["--out", str(out), "--budget", "0"]) == 0
    return out.read_text(), out.with_suffix(".md").read_text()


def test_the_page_is_self_contained(built):
    page, _ = built
    assert page.startswith("<!DOCTYPE html>") and "<svg" in page
    assert "<script" not in page.lower()
    assert not re.search(r"""(href|src)\s*=\s*["']?(https?:|//|file:)""", page, re.I)
    assert "<link" not in page.lower() and "@import" not in page


def test_every_kernel_row_says_what_is_measured_and_what_predicted(built):
    page, md = built
    rows = re.findall(r"<tr class=kernel-row data-kernel='([^']+)'>(.*?)</tr>", page)
    assert len(rows) == 22  # every catalog kernel but the three host pipelines
    for name, row in rows:
        assert 'class="p m">measured<' in row, name
        assert re.search(r'class="p s">(sampled\+scaled|simulated)<', row), name
        assert f"id='k-{name}'" in page  # and its card
    assert "median |error|" in md and "vector_add_streams" in md


def test_kernels_beyond_the_catalog_are_shown_with_their_sets_figures(built):
    """The corpus comparison's kernels appear with predicted and measured times, and its summary."""
    import json
    page, md = built
    d = json.loads((ROOT / "corpus/results/corpus_compare_h100.json").read_text())
    assert "Beyond the catalog" in md and f"{d['time_summary']['median_abs_error_pct']:.1f}%" in md
    for t in d["times"]:
        assert f"<td class=l>{t['kernel']}</td>" in page
    assert "Every kernel: predicted vs measured time" in page


def test_sources_carry_device_and_date(built):
    page, _ = built
    assert "NVIDIA H100 80GB HBM3" in page and "1980 MHz" in page
    assert "measured 2026-" in page  # the microbench's own date


def test_measure_without_a_gpu_exits_2_with_one_line(tmp_path):
    pytest.importorskip("numpy")
    try:
        from kernels import gpu
        gpu.init()
        pytest.skip("a GPU is here: --measure would measure")
    except Exception:  # noqa: BLE001 - no pycuda or no device: what this test is about
        pass
    r = subprocess.run([sys.executable, "-m", "analysis.report", "--measure", "--out", str(tmp_path / "r.html")],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and r.stdout == "", (r.stdout, r.stderr)
    assert not (tmp_path / "r.html").exists()


# ---- the transfer schedule -------------------------------------------------------------------

def _check(p: dict) -> None:
    ops = p["ops"]
    total = p["total_ms"]
    assert total >= max(p["busy_ms"].values()) - 1e-9  # no engine does two things at once
    assert total <= sum(op["end_ms"] - op["start_ms"] for op in ops) + 1e-9  # never slower than one after another
    for s in {op["stream"] for op in ops}:  # a stream's ops in order
        mine = [op for op in ops if op["stream"] == s]
        assert all(a["end_ms"] <= b["start_ms"] + 1e-12 for a, b in zip(mine, mine[1:]))
    for e in transfers.ENGINES:  # one op at a time per engine, in issue order
        mine = [op for op in ops if op["engine"] == e]
        assert all(a["end_ms"] <= b["start_ms"] + 1e-12 for a, b in zip(mine, mine[1:]))


@pytest.mark.parametrize("chunks", [1, 2, 3, 8, 13])
@pytest.mark.parametrize("size", [1 << 20, 1000003 * 4])
def test_schedule_properties(chunks, size):
    p = transfers.predict("vector_add_streams", size, chunks)
    _check(p)
    if chunks > 1:
        assert p["total_ms"] < p["serial_ms"]
        if "bidir_bound_ms" in p:  # a shared link slows the overlap, never below the engines-only schedule
            assert p["total_ms"] - 1e-9 <= p["bidir_bound_ms"] <= p["serial_ms"] + 1e-9


def test_one_chunk_is_the_serial_pipeline():
    p = transfers.predict("vector_add_streams", chunks=1)
    assert p["total_ms"] == pytest.approx(p["serial_ms"], rel=1e-12)
    assert p["bidir_bound_ms"] == pytest.approx(p["serial_ms"], rel=1e-9)
    pinned = transfers.predict("vector_add_pinned")
    assert pinned["total_ms"] == pytest.approx(p["total_ms"], rel=1e-12)


def test_the_dag_has_stream_and_engine_edges():
    g, ops = transfers.build(1 << 20, 4, 0.01)
    assert len(ops) == 16 and all(d["why"] in ("stream", "engine") for _, _, d in g.edges(data=True))
    import networkx as nx
    assert nx.is_directed_acyclic_graph(g)


def test_pageable_is_slower_than_pinned_and_compared_with_the_bench():
    a, b = transfers.predict("vector_add_pageable"), transfers.predict("vector_add_pinned")
    assert a["total_ms"] > 3 * b["total_ms"]
    rows = transfers.comparison(b, transfers.measured("vector_add_pinned"))
    assert rows and all(r["measured_ms"] for r in rows)


def test_transfers_cli_prints_the_timeline_and_the_comparison():
    r = subprocess.run([sys.executable, "-m", "analysis.transfers", "vector_add_streams"], cwd=ROOT,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "predicted timeline" in r.stdout and "8 streams" in r.stdout and " ms" in r.stdout


def test_compare_shows_the_time_with_its_error():
    from analysis import compare
    c = compare.compare({"kernels": {}}, names=["copy"])
    assert [t["kernel"] for t in c["time"]] == ["copy"]
    md, text = compare.render_markdown(c), compare.render_text(c)
    assert "| copy | 8192 |" in md and "%" in md.split("Kernel time")[1]
    assert re.search(r"copy\s+time us\s+[\d,.]+\s+[\d,.]+\s+[+-]\d", text)


def test_a_new_ncu_file_is_compared_afresh(tmp_path):
    """Counters measured anew are predicted anew (analysis.compare), not read from the committed table."""
    import json
    d = json.loads((ROOT / "analysis/results/ncu_h100.json").read_text())
    d["kernels"] = {"copy": d["kernels"]["copy"]}
    ncu = tmp_path / "ncu.json"
    ncu.write_text(json.dumps(d))
    out = tmp_path / "r.html"
    assert report.main(["--measured", str(ncu), "--out", str(out), "--budget", "120"]) == 0
    page = out.read_text()
    assert "computed now by analysis.compare" in page and page.count("Counters at size") == 1
    assert re.search(r"<b>Counters</b>: (\d+) of \1 judged", page)
