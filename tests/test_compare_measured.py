"""analysis.compare on a measurements file as the GPU machine writes it (issue 16 item 7).

On the H100/H200 machine (Python 3.12, CUDA 13.0 toolkit, the project from the working tree),
`analysis.compare --measured <fresh ncu.json>` failed with `KeyError: '<kernel>'` for exactly the six
catalog kernels compiled with -D defines from a file already compiled without them (vector_add.cu,
sgemm.cu, dgemm.cu): their PTX is the same, and that machine's NVRTC 13.0.88, asked in one process for a
PTX it had compiled before, returned an empty log (checked there: `-DVEC=4` after a plain compile of
vector_add.cu gave a 1-byte log), so ptxas's report, hence `resources[kernel]`, was missing while every
compile ran in the calling process. Compiles now run in a process each (cudasim.nvrtc_worker); a result
without the report is not cached and is compiled again (cudasim.compile.reports_every_entry). And the GPU
runner now names the file as the analysis does, so the two compiles are one (a bare 'sgemm.cu' gave
sgemm_warptiling 114 registers where the models read 112).
"""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

import cudasim.compile as cc
from analysis import collect_ncu, pipeline
from analysis.args import TargetError
from cudasim import console
from kernels import catalog
from needs import need_nvrtc

ROOT = Path(__file__).resolve().parent.parent
COMMITTED = json.loads((ROOT / "analysis" / "results" / "ncu_h100.json").read_text())
# each file compiled plain first, then with defines that leave its PTX unchanged: the order that failed
KERNELS = ["vector_add_single", "vector_add_grid_stride", "sgemm_smem", "sgemm_1d_blocktiling"]


def ncu_csv(records: list[tuple[str, dict, str, str]]) -> str:
    """What `ncu --csv --page raw --print-units base` prints for these launches (name, metrics, grid, block):
    its own lines first, a header, a units row, then one row a launch, numbers with thousands separators."""
    metrics = collect_ncu.METRICS
    head = ["ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context", "Stream", "Block Size",
            "Grid Size", "Device", "CC", *metrics]
    lines = ["==PROF== Connected to process 4242 (/opt/torch/.venv/bin/python3.12)",
             ",".join(f'"{h}"' for h in head), ",".join('""' for _ in head[:11]) + "," +
             ",".join('"' + ("register/thread" if "registers" in m else "") + '"' for m in metrics)]
    for i, (name, values, grid, block) in enumerate(records):
        cells = [str(i), "4242", "python3.12", "127.0.0.1", name, "1", "7", block, grid, "0", "9.0"]
        for m in metrics:
            v = values.get(m)
            cells.append("n/a" if v is None else f"{v:,}" if isinstance(v, int) else f"{v:,.2f}")
        lines.append(",".join(f'"{c}"' for c in cells))
    return "\n".join(lines + ["==PROF== Disconnected from process 4242"]) + "\n"


def measured_file(tmp_path: Path, names: list[str]) -> Path:
    """The file collect_ncu writes for `names`: each kernel's ncu output parsed as it parses it (parse_csv)
    and kept as it keeps it (kernel_row), from the H100 counters committed for them."""
    out = {"tool": "NVIDIA (R) Nsight Compute Command Line Profiler 2025.3.1.0", "metrics": collect_ncu.METRICS,
           "kernels": {}, "probes": [], "device": "NVIDIA H200, 580.159.04"}
    for name in names:
        k, row = catalog.get(name), COMMITTED["kernels"][name]
        text = ncu_csv([(k.entry, row["metrics"], row["grid"], row["block"])])
        out["kernels"][name] = collect_ncu.kernel_row(k.sim_size, k.entry, 4.2, collect_ncu.parse_csv(text), text)
    path = tmp_path / "ncu.json"
    path.write_text(json.dumps(out, indent=1))
    return path


def test_compare_predicts_every_kernel_of_a_file_collect_ncu_writes(tmp_path, capsys):
    need_nvrtc()
    path = measured_file(tmp_path, KERNELS)
    d = json.loads(path.read_text())
    assert list(d["kernels"]) == KERNELS and all(d["kernels"][n]["kernel_name"] == catalog.get(n).entry for n in KERNELS)
    pipeline._compile.cache_clear()  # one process compiling each file plain, then with its defines
    from analysis.compare import main
    with pytest.raises(SystemExit) as ended:
        console.run(main, ["--measured", str(path), "--json"])
    c = json.loads(capsys.readouterr().out)
    assert ended.value.code == 0
    assert c["verdict"]["not_predicted"] == []
    for name in KERNELS:
        rows = [r for r in c["rows"] if r["kernel"] == name]
        assert rows and all("metric" in r for r in rows), rows[:1]
        regs = next(r for r in rows if r["metric"] == "launch__registers_per_thread")
        assert regs["predicted"] == regs["measured"]  # the code the models read is the code measured


def _empty_log_once(monkeypatch) -> list[int]:
    """NVRTC as the GPU machine's behaved for a PTX it had compiled before in its process: the compile succeeds
    and the log is empty. The first compile here gets that; the calls are counted."""
    real, calls = cc._nvrtc, []

    def nvrtc(*args, **kw):
        out = real(*args, **kw)
        calls.append(1)
        return {**out, "log": ""} if len(calls) == 1 else out
    monkeypatch.setattr(cc, "_nvrtc", nvrtc)
    return calls


def test_a_compile_without_ptxas_report_is_compiled_again_and_never_cached(tmp_path, monkeypatch):
    need_nvrtc()
    monkeypatch.setenv("CUDASIM_CACHE", str(tmp_path / "cache"))
    calls = _empty_log_once(monkeypatch)
    pipeline._compile.cache_clear()
    launch = pipeline.resolve_catalog("vector_add_grid_stride")
    compiled = pipeline.compile_launch(launch)
    assert compiled.resources.registers > 0 and len(calls) == 2  # compiled again, in a fresh worker
    bad = cc.compile_cuda(launch.source, options=list(launch.options), arch=launch.gpu.arch,
                          filename=launch.filename, cache=False)
    assert cc.reports_every_entry(bad)
    for f in (tmp_path / "cache").glob("*.json"):  # no result without the report was kept
        assert cc.reports_every_entry(cc.CompileResult(**{**json.loads(f.read_text()), "cubin": b""}))
    pipeline._compile.cache_clear()


def test_a_compiler_that_never_reports_is_one_line(tmp_path, monkeypatch):
    need_nvrtc()
    monkeypatch.setenv("CUDASIM_CACHE", str(tmp_path / "cache"))
    real = cc._nvrtc
    monkeypatch.setattr(cc, "_nvrtc", lambda *a, **kw: {**real(*a, **kw), "log": ""})
    pipeline._compile.cache_clear()
    with pytest.raises(TargetError, match="reported no registers or shared memory for transpose_tiled"):
        pipeline.compile_launch(pipeline.resolve_catalog("transpose_tiled"))
    pipeline._compile.cache_clear()


class _FakeCuda:
    """PyCUDA's driver as far as kernels.gpu.module uses it."""

    @staticmethod
    def module_from_buffer(cubin):
        return type("Module", (), {"get_function": staticmethod(lambda name: name)})()


def test_the_gpu_runners_compile_is_the_one_the_models_read(monkeypatch):
    """kernels.run (catalog) and corpus.measure (corpus) ask cudasim.compile for exactly the source, options,
    architecture and file name that analysis.pipeline and corpus.compare compile: one compile, one binary."""
    from corpus import compare as corpus_compare
    from corpus import manifest, measure
    from kernels import gpu

    asked = []
    monkeypatch.setattr(gpu, "init", lambda: (_FakeCuda, {"cc": (9, 0), "name": "H100", "sms": 132}))
    monkeypatch.setattr(gpu, "_modules", {})
    monkeypatch.setattr(cc, "compile_cubin", lambda source, name_expressions=(), options=(), arch="", filename="":
                        asked.append((source, list(name_expressions), list(options), arch, filename)) or (b"", {}))
    for k in catalog.KERNELS:
        if k.kind != "kernel":
            continue
        gpu._modules.clear()  # loaded once per source and options: ask afresh for each
        gpu.function(k)
        launch = pipeline.resolve_catalog(k.name)
        assert asked[-1] == (launch.source, [], list(launch.options), launch.gpu.arch, launch.filename), k.name
    for k in manifest.CORPUS:
        measure.load(k)
        launch = corpus_compare.resolve(k)
        exprs = [launch.kernel] if "<" in launch.kernel else []
        assert asked[-1] == (launch.source, exprs, list(launch.options), launch.gpu.arch, launch.filename), k.name


def test_measurements_of_another_gpu_are_predicted_for_that_gpu(capsys):
    """A file measured on the H200 (the lent machine since session 22) is never judged by the default H100
    row's predictions: without --gpu the comparison predicts for the measured device's row; a device the
    table has no row for, or a --gpu that names another GPU, is one line."""
    from analysis.compare import same_gpu
    assert same_gpu(None, {"name": "NVIDIA H200"}, "f.json") == "H200"
    assert same_gpu(None, "NVIDIA H100 80GB HBM3, 580.159.04", "f.json") == "H100-SXM"
    assert same_gpu(None, "?", "f.json") is None and same_gpu(None, None, "f.json") is None
    assert same_gpu("H200", "NVIDIA H200, 580.159.04", "f.json") == "H200"
    for gpu, device, says in ((None, "NVIDIA GeForce GTX 280", "no row for"),
                              ("H100-SXM", {"name": "NVIDIA H200"}, "judged by another GPU's counters")):
        with pytest.raises(SystemExit) as e:
            same_gpu(gpu, device, "f.json")
        assert e.value.code == 2 and says in capsys.readouterr().err


def test_a_measuring_tool_never_writes_another_gpus_measurements_into_the_committed_file(tmp_path, capsys):
    """corpus.measure, collect_ncu and collect_profile write the committed *_h100.json by default only on the
    H100; elsewhere they stop in one line, before measuring, naming a file of the GPU's own."""
    from analysis.measured import own_results
    default = tmp_path / "holdout7_h100.json"
    assert own_results(None, default, "NVIDIA H100 80GB HBM3, 580.159.04") == default
    assert own_results(str(tmp_path / "mine.json"), default, "NVIDIA H200") == tmp_path / "mine.json"
    for device in ("NVIDIA H200, 580.159.04", "?", "NVIDIA GeForce GTX 280"):
        with pytest.raises(SystemExit) as e:
            own_results(None, default, device)
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.count("\n") == 1 and "--out" in err, err
    with pytest.raises(SystemExit):
        own_results(None, default, "NVIDIA H200")
    assert "holdout7_h200.json" in capsys.readouterr().err


def test_a_run_line_says_when_the_code_is_not_its_commits(tmp_path):
    """A working tree copied to another machine keeps an older HEAD: a results file made there must not name
    that commit as the code that ran."""
    import shutil
    import subprocess

    from analysis.measured import run_line
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t",
           "PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    (tmp_path / "analysis").mkdir()
    (tmp_path / "analysis" / "m.py").write_text("x = 1\n")
    for cmd in (["init", "-q"], ["add", "."], ["commit", "-qm", "m"]):
        subprocess.run(["git", *cmd], cwd=tmp_path, env=env, check=True)
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tmp_path, capture_output=True, text=True).stdout.strip()
    assert run_line(tmp_path).startswith(f"git {rev}, ")
    (tmp_path / "analysis" / "results").mkdir()
    (tmp_path / "analysis" / "results" / "t.json").write_text("{}")
    (tmp_path / "analysis" / "notes.md").write_text("# notes\n")
    for cmd in (["add", "."], ["commit", "-qm", "results"]):
        subprocess.run(["git", *cmd], cwd=tmp_path, env=env, check=True)
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tmp_path, capture_output=True, text=True).stdout.strip()
    (tmp_path / "analysis" / "results" / "t.json").write_text('{"a": 1}')  # results and notes are not the code
    (tmp_path / "analysis" / "notes.md").write_text("# more notes\n")
    assert run_line(tmp_path).startswith(f"git {rev}, ")
    (tmp_path / "analysis" / "m.py").write_text("x = 2\n")
    assert run_line(tmp_path).startswith(f"git {rev} with uncommitted changes to the code, ")
