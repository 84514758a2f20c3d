"""cudasim.check: every planted bug found with its kind, line and threads; nothing on correct kernels
(those a naive checker flags) nor on the catalog; the command's output, JSON and exit codes; the
plain simulator unchanged by it."""
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cudasim import Out, SourceModule
from cudasim.check import KINDS
from cudasim.memory import GlobalMemory
from needs import need_nvrtc

sys.path.insert(0, str(Path(__file__).parent / "planted"))
import planted_suite  # noqa: E402

SUITE = planted_suite.load()
BUGS = [e for e in SUITE if e["expect"]]
CORRECT = [e for e in SUITE if not e["expect"]]
ROOT = Path(__file__).resolve().parent.parent


def function(src: str, name: str, filename: str = "kernel.cu"):
    need_nvrtc()
    return SourceModule(src, no_extern_c=True, filename=filename, memory=GlobalMemory()).get_function(name)


def check(e: dict, source: str | None = None):
    """Launch a suite kernel with check="full" (buffers the host leaves unwritten passed as Out)."""
    f = function(source or e["source"], e["kernel"], e["path"])
    args = [Out(v) if a.get("init") == "none" else v for a, v in planted_suite.arguments(e)]
    return f(*args, grid=tuple(e["grid"]), block=tuple(e["block"]), check="full")


def test_the_suite_has_a_planted_bug_for_every_kind_and_the_correct_kernels_the_issue_names():
    assert {k for e in BUGS for k in e["expect"]} == set(KINDS)
    assert all(e["line"] for e in BUGS)
    assert {e["name"] for e in CORRECT} == {"ok_double_buffer", "ok_warp_syncwarp", "ok_shared_atomics",
                                            "ok_fence_flag", "ok_grid_stride", "ok_spin_lock",
                                            "ok_flag_chain"}


@pytest.mark.parametrize("e", BUGS, ids=lambda e: e["name"])
def test_every_planted_bug_is_found_with_its_kind_line_and_threads(e):
    findings = check(e).findings
    assert sorted({f.kind for f in findings}) == sorted(e["expect"]), [str(f) for f in findings]
    at = [f for f in findings if f.line == e["line"] and f.kind in e["expect"]]
    assert at, f"nothing at line {e['line']}: {[str(f) for f in findings]}"
    for f in findings:
        assert f.file.endswith(e["file"]) and f.instruction and f.count > 0
        assert f.this.thread_count > 0 and f.this.threads
        assert all(len(b) == 3 and len(t) == 3 for b, t in f.this.threads)
        d = json.loads(json.dumps(f.to_dict(), default=str))
        assert d["kind"] == f.kind and d["file"] == f.file and d["line"] == f.line
        if f.kind == "race":  # both sides: lines, threads, read or write
            assert f.other is not None and f.other.line and f.other.threads and f.pairs
            assert {f.this.access, f.other.access} & {"write", "atomic"}
            assert f.relation in ("lanes of one warp", "warps of one block", "different blocks")


def test_what_each_planted_bug_is_found_as():
    got = {e["name"]: check(e).findings for e in BUGS}
    race = got["race_shared"][0]
    assert (race.this.access, race.other.access, race.other.line, race.relation) == (
        "read", "write", 6, "warps of one block") and race.this.thread_count == 256
    assert race.pairs[0][0] == ((0, 0, 0), (0, 0, 0)) and race.pairs[0][1] == ((0, 0, 0), (127, 0, 0))
    assert {f.relation for f in got["race_warp"]} == {"lanes of one warp"}
    glob = got["race_global"]
    assert len(glob) == 1 and glob[0].relation == "different blocks" and glob[0].other.line == 13
    assert glob[0].this.threads == [((0, 0, 0), (0, 0, 0))] and glob[0].other.thread_count == 7
    oob = {f.this.access: f for f in got["oob_global"]}
    assert set(oob) == {"read", "write"}  # the run went on past the first bad access
    w = oob["write"]
    assert w.allocation["name"].startswith("argument 0") and w.allocation["size"] == 4000 and w.offset == 4000
    assert w.this.threads == [((3, 0, 0), (232, 0, 0))] and w.this.thread_count == 1
    assert "4 bytes past the end" in w.message
    sh = got["oob_shared"][0]
    assert sh.space == "shared" and sh.offset == 512 and sh.this.thread_count == 2
    assert got["oob_local"][0].space == "local"
    assert got["misaligned"][0].size == 8 and got["misaligned"][0].this.thread_count == 128
    div = got["divergent_barrier"][0]
    assert "reached by 64 of the 128 threads" in div.message
    assert len(got["divergent_paths"]) == 2  # each branch's barrier
    assert "56 had exited" in got["early_exit_barrier"][0].message
    assert got["early_exit_barrier"][0].this.threads[0][0] == (1, 0, 0)
    un = got["uninit_shared"][0]
    assert un.space == "shared" and un.this.thread_count == 128
    ug = got["uninit_global"][0]
    assert ug.allocation["name"].startswith("argument 1") and ug.this.thread_count == 256
    assert "lanes 16-31" in got["warp_sync_inactive"][0].message
    assert "outside its mask" in got["warp_sync_source"][0].message


@pytest.mark.parametrize("e", CORRECT, ids=lambda e: e["name"])
def test_correct_kernels_a_naive_checker_flags_give_no_finding(e):
    launch = check(e)
    assert launch.findings == [], [str(f) for f in launch.findings]


@pytest.mark.parametrize("name, edit", [
    ("ok_fence_flag", ("__threadfence();", "")),  # the fence is what makes the handoff safe
    ("ok_warp_syncwarp", ("__syncwarp();", "")),
    ("ok_double_buffer", ("        __syncthreads();\n    }", "    }")),  # the one barrier per step
    ("ok_shared_atomics", ("atomicAdd(&h[(unsigned)(in[i] * 1000.0f) & 15u], 1u)",
                           "h[(unsigned)(in[i] * 1000.0f) & 15u] += 1u")),
])
def test_the_correct_kernels_race_once_what_makes_them_correct_is_taken_away(name, edit):
    e = next(x for x in CORRECT if x["name"] == name)
    src = e["source"].replace(*edit)
    assert src != e["source"]
    kinds = {f.kind for f in check(e, src).findings}
    assert kinds == {"race"}, kinds


def test_legal_divergent_syncwarps_and_a_mask_of_the_lanes_taking_a_branch_give_no_finding():
    src = r'''extern "C" __global__ void k(float* out, const float* in) {
        __shared__ float s[64];
        int t = threadIdx.x, lane = t & 31;
        s[t] = in[t];
        if (lane < 16) { s[t] += 1.0f; __syncwarp(); } else { s[t] -= 1.0f; __syncwarp(); }
        float v = s[t ^ 16];
        unsigned m = __ballot_sync(0xffffffffu, lane < 8);
        if (lane < 8) v += __shfl_xor_sync(m, v, 1);
        out[t] = v;
    }'''
    f = function(src, "k")
    a = np.arange(64, dtype=np.float32)
    launch = f(np.zeros(64, np.float32), a, block=(64, 1, 1), grid=(1, 1), check="full")
    assert launch.findings == [], [str(x) for x in launch.findings]


def test_byte_stores_collide_only_on_the_same_byte():
    """Four lanes storing the four bytes of one word do not race (an 8-bit image); two storing one byte do."""
    f = function('extern "C" __global__ void k(unsigned char* out, const float* in) {'
                 ' int i = blockIdx.x * blockDim.x + threadIdx.x; out[i] = (unsigned char)(in[i] * 255.0f); }', "k")
    launch = f(np.zeros(256, np.uint8), np.random.default_rng(0).random(256).astype(np.float32),
               block=(128, 1, 1), grid=(2, 1), check="full")
    assert launch.findings == []
    g = function('extern "C" __global__ void k(unsigned char* out) { out[threadIdx.x / 2] = threadIdx.x; }', "k")
    launch = g(np.zeros(64, np.uint8), block=(32, 1, 1), grid=(1, 1), check="full")
    assert [x.kind for x in launch.findings] == ["race"] and "one instruction" in launch.findings[0].message


def test_an_overrun_into_the_next_array_is_out_of_bounds_not_a_valid_access():
    """Arrays of 4096 bytes sit back to back at 256-byte alignment: a checked launch puts guard zones between them."""
    f = function('extern "C" __global__ void k(float* out, const float* in, int n) {'
                 ' int i = blockIdx.x * blockDim.x + threadIdx.x; if (i <= n) out[i] = in[i]; }', "k")
    launch = f(np.zeros(1024, np.float32), np.ones(1024, np.float32), np.int32(1024), block=(256, 1, 1), grid=(5, 1),
               check="full")
    got = {(x.kind, x.this.access, x.allocation["name"].split(" ")[1]) for x in launch.findings}
    assert got == {("out-of-bounds", "read", "1"), ("out-of-bounds", "write", "0")}
    assert all(x.offset == 4096 and x.this.threads == [((4, 0, 0), (0, 0, 0))] for x in launch.findings)


def test_a_local_array_read_one_past_its_end_is_out_of_bounds_though_the_stack_is_padded():
    """float win[5] takes 20 bytes and the thread's local memory is padded to 32: win[5] lands in the
    padding, which is no array's; the arrays are named by the source's parameter names when given."""
    f = function('extern "C" __global__ void k(float* out, const float* in, int w) { float win[5];'
                 ' int t = threadIdx.x; for (int j = 0; j <= w; j++) win[j] = in[(t + j) & 63];'
                 ' float s = 0; for (int j = 0; j < 5; j++) s += win[j]; out[t] = s; }', "k")
    for w, found in ((4, False), (5, True)):
        launch = f(np.zeros(64, np.float32), np.ones(64, np.float32), np.int32(w), block=(64, 1, 1), grid=(1, 1),
                   check="full")
        assert [x.kind for x in launch.findings] == (["out-of-bounds"] if found else [])
        assert all(x.space == "local" and x.offset == 20 for x in launch.findings)
    launch = f(np.zeros(32, np.float32), np.ones(64, np.float32), np.int32(4), block=(64, 1, 1), grid=(1, 1),
               check="full", arg_names=["out", "in", "w"])
    assert [x.allocation["name"].split(" ")[0] for x in launch.findings] == ["out"]


def test_a_null_pointer_and_a_negative_shared_index_are_out_of_bounds():
    f = function('extern "C" __global__ void k(float* out, const float* p) { out[threadIdx.x] = p[threadIdx.x]; }', "k")
    launch = f(np.zeros(32, np.float32), np.uint64(0), block=(32, 1, 1), grid=(1, 1), check="full")
    assert [x.kind for x in launch.findings] == ["out-of-bounds"] and "null" in launch.findings[0].message
    g = function('extern "C" __global__ void k(float* out, const float* in) { __shared__ float s[64];'
                 ' int t = threadIdx.x; s[t] = in[t]; __syncthreads(); out[t] = s[t - 1]; }', "k")
    launch = g(np.zeros(64, np.float32), np.ones(64, np.float32), block=(64, 1, 1), grid=(1, 1), check="full")
    assert [(x.kind, x.offset) for x in launch.findings] == [("out-of-bounds", -4)]


def test_reads_of_memory_the_checker_was_not_told_about_are_noted_not_reported():
    need_nvrtc()
    import cudasim.driver as drv
    src = 'extern "C" __global__ void k(float* out, const float* d) { out[threadIdx.x] = d[threadIdx.x]; }'
    f = SourceModule(src, no_extern_c=True).get_function("k")  # the process-wide memory, as PyCUDA's
    d = drv.DeviceAllocation(128)  # written by no one the checker knows of: perhaps by an earlier kernel
    try:
        launch = f(Out(np.zeros(32, np.float32)), d, block=(32, 1, 1), grid=(1, 1), check="full")
    finally:
        d.free()
    assert launch.findings == []
    assert any("taken as initialized" in n for n in f.checked_program.checker.notes)


def test_full_check_leaves_outputs_counters_and_trace_as_the_plain_run_gives_them():
    need_nvrtc()
    from kernels import catalog, sim
    for name in ("transpose_tiled", "sgemm_smem", "sgemm_tf32_wmma"):
        k = catalog.get(name)
        runs = []
        for check_mode in (True, "full"):
            f = SourceModule(catalog.source(k), options=catalog.options(k), no_extern_c=True, filename=str(k.path),
                             memory=GlobalMemory()).get_function(k.entry)  # fresh memory: the same addresses
            inputs = k.make_inputs(k.sim_size)
            grid, block, shared = k.launch(k.sim_size, sim.SIM_SMS)
            launch = f(*k.args(inputs, k.sim_size), grid=grid, block=block, shared=shared, check=check_mode)
            runs.append((launch, inputs[k.output]))
        (plain, out1), (full, out2) = runs
        assert np.array_equal(out1, out2)
        for key in ("thread_instructions", "warp_instructions", "blocks_run"):
            assert plain.stats[key] == full.stats[key]
        assert np.array_equal(plain.stats["pc_warp_instructions"], full.stats["pc_warp_instructions"])
        assert [(e.pc, e.space, e.op, len(e)) for e in plain.trace.events] == \
               [(e.pc, e.space, e.op, len(e)) for e in full.trace.events]
        for a, b in zip(plain.trace.events, full.trace.events):  # global addresses as (array, offset):
            assert np.array_equal(a.masks, b.masks)                # a checked launch puts guard zones between
            if a.space == "global":
                assert np.array_equal(_in_buffers(a, plain), _in_buffers(b, full))
            else:
                assert np.array_equal(a.addrs, b.addrs)


def _in_buffers(ev, launch) -> np.ndarray:
    """Each active lane's global address as (argument array, byte offset in it)."""
    act = ev.lane_active()
    addr = ev.addrs[act].astype(np.int64)
    out = np.full((len(addr), 2), -1, np.int64)
    for i, (ptr, n) in enumerate(launch.stats["buffers"]):
        inside = (addr >= ptr) & (addr < ptr + n)
        out[inside] = np.stack([np.full(inside.sum(), i), addr[inside] - ptr], 1)
    assert (out[:, 0] >= 0).all()
    return out


def test_no_finding_on_any_catalog_kernel():
    need_nvrtc()
    from kernels import catalog, sim
    for k in catalog.KERNELS:
        if k.kind != "kernel":
            continue
        launch, out, inputs = sim.run(k.name, check="full")
        assert launch.findings == [], (k.name, [str(f) for f in launch.findings])
        assert catalog.verify(k, out[k.output], inputs)[0], k.name


def test_a_catalog_kernel_without_its_barrier_is_reported():
    from kernels import catalog
    k = catalog.get("transpose_tiled")
    src = catalog.source(k)
    assert "__syncthreads();" in src
    f = function(src.replace("__syncthreads();", ""), k.entry, str(k.path))
    n = 64
    launch = f(np.zeros(n * n, np.float32), np.arange(n * n, dtype=np.float32), np.int32(n), np.int32(n),
               block=(32, 8, 1), grid=(2, 2), check="full")
    assert {x.kind for x in launch.findings} == {"race"}


def test_the_check_is_deterministic():
    e = next(x for x in BUGS if x["name"] == "race_histogram")
    a = [json.dumps(f.to_dict(), default=str) for f in check(e).findings]
    b = [json.dumps(f.to_dict(), default=str) for f in check(e).findings]
    assert a == b and a


# -- the command ---------------------------------------------------------------------------------------
def cli(argv, capsys):
    need_nvrtc()
    import analysis.checktarget as resolver
    from cudasim.check.cli import main
    try:
        code = main(argv, resolve=resolver)
    except SystemExit as e:
        code = e.code
    out = capsys.readouterr()
    return code, out.out, out.err


def file_target(e: dict, uninit: bool = True) -> list[str]:
    argv = [f"{e['path']}::{e['kernel']}", "--grid", ",".join(map(str, e["grid"])),
            "--block", ",".join(map(str, e["block"]))]
    for a in e["args"]:
        argv += ["--arg", f"{a['name']}={a['dtype']}[{a['count']}]" if "count" in a else f"{a['name']}={a['value']}"]
        if a.get("init") == "none" and uninit:
            argv += ["--uninit", a["name"]]
    return argv


def test_the_command_reads_like_compute_sanitizer_and_exits_1_on_a_finding(capsys):
    e = next(x for x in BUGS if x["name"] == "oob_global")
    code, out, err = cli(file_target(e), capsys)
    assert code == 1, err
    lines = out.splitlines()
    assert all(line.startswith("=========") for line in lines)
    assert "Invalid __global__ write of size 4 bytes (out of bounds)" in out
    assert "by thread (232,0,0) in block (3,0,0)" in out
    assert "4 bytes past the end of out (argument 0 of oob_global)" in out  # named as the source names it
    assert lines[-1] == "========= ERROR SUMMARY: 2 errors (2 out-of-bounds)"


def test_the_command_gives_json_and_exits_0_when_clean(capsys):
    e = next(x for x in BUGS if x["name"] == "uninit_global")
    code, out, _ = cli(file_target(e) + ["--json"], capsys)
    d = json.loads(out)
    assert code == 1 and [f["kind"] for f in d["findings"]] == ["uninitialized"]
    f = d["findings"][0]
    assert {"kind", "file", "line", "instruction", "threads", "thread_count"} <= set(f) and f["line"] == e["line"]
    code, out, _ = cli(file_target(e, uninit=False) + ["--json"], capsys)  # the host wrote it: clean
    assert code == 0 and json.loads(out)["findings"] == []
    code, out, _ = cli(["transpose_tiled", "--json"], capsys)
    assert code == 0 and json.loads(out)["summary"]["errors"] == 0


def test_the_command_and_the_api_give_the_same_findings_on_the_whole_suite(capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    for e in SUITE:
        code, out, err = cli(file_target(e) + ["--json"], capsys)
        got = sorted((f["kind"], f["line"], f["thread_count"]) for f in json.loads(out)["findings"])
        api = sorted((f.kind, f.line, f.this.thread_count) for f in check(e).findings)
        assert code == (1 if e["expect"] else 0), (e["name"], err)
        assert got == api, e["name"]


@pytest.mark.parametrize("argv, says", [
    (["no_such_kernel"], "unknown kernel"),
    (["tests/planted/race_shared.cu::race_shared"], "--grid"),
    (["tests/planted/race_shared.cu::race_shared", "--grid", "2", "--block", "128", "--uninit", "nope"], "--uninit nope"),
    (["transpose_tiled", "--limit", "0"], "--limit"),
    (["transpose_tiled", "--bogus"], "unrecognized arguments"),
])
def test_usage_errors_exit_2_with_one_line_naming_the_problem(argv, says, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    code, out, err = cli(argv, capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and says in err, err


def test_limit_per_kind_counts_what_it_does_not_keep(capsys):
    e = next(x for x in BUGS if x["name"] == "race_warp")
    code, out, _ = cli(file_target(e) + ["--limit", "2", "--json"], capsys)
    d = json.loads(out)
    assert code == 1 and len(d["findings"]) == 2
    assert any("more race finding(s) not kept" in n for n in d["notes"])


def test_python_m_cudasim_check_finds_the_registered_resolver():
    """`pip install -e .` registers analysis.checktarget under the cudasim.targets entry point."""
    need_nvrtc()
    r = subprocess.run([sys.executable, "-m", "cudasim.check", "vector_add_block_stride", "--size", "512"],
                       capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stderr + "\n(the entry point missing? run `pip install -e .` again)"
    assert "ERROR SUMMARY: 0 errors" in r.stdout


# -- the blind set: bugs and correct kernels written by someone who had not read the checker ----------------
BLIND = Path(__file__).resolve().parent / "planted" / "blind"
BLIND_CASES = json.loads((BLIND / "cases.json").read_text())["kernels"]


@pytest.mark.parametrize("e", BLIND_CASES, ids=[c["file"].split("_")[0] for c in BLIND_CASES])
def test_the_blind_set_gives_each_kind_at_a_marked_line_and_nothing_on_the_correct_kernels(e, capsys):
    argv = [f"{BLIND / e['file']}::{e['kernel']}", "--grid", e["grid"], "--block", e["block"], "--json"]
    argv += [x for a in e["args"] for x in ("--arg", a)] + (["--uninit", e["uninit"]] if "uninit" in e else [])
    code, out, err = cli(argv, capsys)
    found = json.loads(out)["findings"]
    assert code == (1 if e["expect"] else 0), err
    assert set(e["expect"]) <= {f["kind"] for f in found}
    marked = {i + 1 for i, s in enumerate((BLIND / e["file"]).read_text().splitlines()) if "// BUG" in s}
    for kind in e["expect"]:  # one finding of the kind at a marked line (a later barrier the exited skip counts too)
        lines = {x for f in found if f["kind"] == kind for x in (f["line"], (f.get("other") or {}).get("line"))}
        # b09: NVRTC puts the float4 load on the store's line
        assert not marked or lines & marked or e["file"].startswith("b09"), (kind, lines, marked)


CAS_MAX = r'''__device__ float atomic_max(float* addr, float val) {
    int* ai = (int*)addr;
    int old = *ai, assumed;
    do { assumed = old; old = atomicCAS(ai, assumed, __float_as_int(fmaxf(val, __int_as_float(assumed)))); }
    while (assumed != old);
    return __int_as_float(old);
}
extern "C" __global__ void k(const float* in, float* out, int* count) {
    atomic_max(out, in[blockIdx.x * blockDim.x + threadIdx.x]);
    atomicAdd(count, 1);
    if (threadIdx.x == 0 && *count > 0) out[1] = 1.0f;   // a plain read of what other blocks' atomics write
}'''


def test_a_cas_loops_first_read_is_no_race_but_a_plain_read_of_atomics_is():
    """The Programming Guide's atomicMax for floats reads *addr plainly, then lets atomicCAS decide: whatever the
    read saw, the CAS writes only where it still holds, so the pair is not reported. A plain read of a counter
    other blocks add to atomically, checked by nothing, still is."""
    f = function(CAS_MAX, "k")
    launch = f(np.arange(256, dtype=np.float32), np.zeros(2, np.float32), np.zeros(1, np.int32),
               block=(64, 1, 1), grid=(4, 1), check="full")
    lines = {f.this.line for f in launch.findings}
    assert all(f.kind == "race" for f in launch.findings) and lines == {11}, [str(f) for f in launch.findings]


def test_a_verdict_that_made_up_data_decides_says_so(capsys, tmp_path):
    """An assert on a buffer given no --data: the check runs it over zeros and finds nothing, and says that what
    it finds on that line is what zeros do; given data that fails it, it finds the assert."""
    cu = tmp_path / "asserts.cu"
    cu.write_text("#include <cassert>\n__global__ void positive(const int *x, int n) {\n"
                  "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) assert(x[i] >= 0);\n}\n")
    argv = [f"{cu}::positive", "--grid", "2", "--block", "64", "--arg", "n=128"]
    code, out, err = cli(argv, capsys)
    assert code == 0, err
    assert ("made-up data: x holds zeros (no --data), and they may decide whether asserts.cu:4 runs" in out and
            "what the check finds on those lines is what zeros do" in out), out
    data = tmp_path / "x.npy"
    np.save(data, -np.ones(128, np.int32))
    code, out, err = cli([*argv, "--data", f"x={data}"], capsys)
    assert code == 1 and "Device-side assertion failed" in out and "made-up data: x" not in out


def test_device_heap_blocks_are_allocations_of_their_own(capsys, tmp_path):
    """malloc's blocks are checked as compute-sanitizer checks the device heap: a write one int past a block of 4
    bytes, and a read of a freed block, are out of bounds (the heap as one allocation let both pass)."""
    cu = tmp_path / "heap.cu"
    cu.write_text("__global__ void past(int *out) {\n    int *p = (int *)malloc(4);\n    p[1] = 7;\n"
                  "    out[threadIdx.x] = p[0];\n    free(p);\n}\n"
                  "__global__ void after(int *out) {\n    int *p = (int *)malloc(16);\n    p[0] = 5;\n    free(p);\n"
                  "    out[threadIdx.x] = p[0];\n}\n")
    code, out, err = cli([f"{cu}::past", "--grid", "1", "--block", "32", "--uninit", "out"], capsys)
    assert code == 1, err
    assert "Invalid __global__ write of size 4 bytes" in out and "heap.cu:3" in out
    assert "4 bytes past its end: a block malloc(4) returned at" in out
    code, out, err = cli([f"{cu}::after", "--grid", "1", "--block", "32", "--uninit", "out"], capsys)
    assert code == 1, err
    assert "Invalid __global__ read of size 4 bytes" in out and "heap.cu:11" in out
    assert "a block freed before, of 16 at" in out


def test_threads_that_overrun_their_malloc_blocks_into_the_next_are_told_so(capsys, tmp_path):
    """Each thread writes 64 ints into its own block of 4: it writes its neighbours' blocks, a race between lanes
    whose fix is the index, not a __syncwarp(); past the last block, out of bounds."""
    cu = tmp_path / "over.cu"
    cu.write_text("__global__ void over(int *out) {\n    int *p = (int *)malloc(4 * sizeof(int));\n"
                  "    for (int k = 0; k < 64; ++k) p[k] = threadIdx.x;\n    out[threadIdx.x] = p[3];\n    free(p);\n}\n")
    code, out, err = cli([f"{cu}::over", "--grid", "1", "--block", "32", "--uninit", "out"], capsys)
    assert code == 1, err
    assert "fix: the words are in blocks malloc returned" in out and "put __syncwarp()" not in out
    assert "Invalid __global__ write of size 4 bytes" in out


def test_an_access_across_the_device_heaps_end_is_out_of_bounds(capsys, tmp_path):
    """Four bytes read two before the heap's end, from the first block malloc returns (the heap's start): out of
    bounds, named as the heap's (it had gone to the sink unreported)."""
    from cudasim.calls import HEAP_BYTES
    cu = tmp_path / "edge.cu"
    cu.write_text("__global__ void edge(int *out, long long off) {\n    char *p = (char *)malloc(16);\n"
                  "    out[threadIdx.x] = *(int *)(p + off);\n    free(p);\n}\n")
    code, out, err = cli([f"{cu}::edge", "--grid", "1", "--block", "1", "--arg", f"off={HEAP_BYTES - 2}",
                          "--uninit", "out"], capsys)
    assert code == 1, err
    assert "Invalid __global__ read of size 4 bytes" in out and "edge.cu:3" in out
    assert "in the device heap, in no block malloc handed out" in out


def test_what_the_check_found_before_a_runaway_loop_stopped_it_is_reported(capsys, tmp_path):
    """A race in every block, and an endless loop in the last (the sweep's F12): the step limit stops the check,
    and the race it had found is printed with a note that says where it stopped, status 1; the stop line goes
    to stderr. Nothing found before the stop: one line, status 2, as before."""
    src = tmp_path / "lost.cu"
    src.write_text('extern "C" __global__ void race_then_loop(int *out, int spin) {\n'
                   '    __shared__ int s[64];\n'
                   '    s[threadIdx.x] = threadIdx.x;\n'
                   '    out[threadIdx.x] = s[(threadIdx.x + 32) & 63];\n'
                   '    if (blockIdx.x == gridDim.x - 1) { int i = 0; while (spin) { i += out[100]; if (i < -5) '
                   'break; } out[64] = i; }\n}\n')
    argv = [f"{src}::race_then_loop", "--grid", "4", "--block", "64", "--arg", "out=int32[128]", "--max-steps",
            "100000"]
    code, out, err = cli(argv + ["--arg", "spin=1"], capsys)
    assert code == 1, err
    assert "Race (read-after-write) on __shared__ memory between warps of one block" in out
    assert "note: the check stopped before the launch ended (the launch passed its limit" in out
    unsized = argv[:5] + argv[7:]  # out given no size: the run that sizes it stops first, and the check goes on
    code, out, err = cli(unsized + ["--arg", "spin=1"], capsys)
    assert code == 1 and "Race (read-after-write) on __shared__ memory" in out, err
    assert "out (given no size) grew only as far as a plain run reached before it stopped" in out
    assert err.startswith("error: the launch passed its limit of 100,000 warp instructions") and err.count("\n") == 1
    src.write_text(src.read_text().replace("out[threadIdx.x] = s[(threadIdx.x + 32) & 63];",
                                           "out[threadIdx.x] = s[threadIdx.x];"))
    code, out, err = cli(argv + ["--arg", "spin=1"], capsys)
    assert code == 2 and out == "" and err.startswith("error: the launch passed its limit")


def test_extern_shared_arrays_the_launch_gave_no_bytes_are_told_to_take_shared(capsys, tmp_path):
    """An extern __shared__ kernel checked without --shared: its accesses are past the block's 0 dynamic bytes, and
    the fix is the launch's size, not a bounds guard (the sweep's n022)."""
    src = tmp_path / "dyn.cu"
    src.write_text('extern "C" __global__ void rev(float *a) {\n    extern __shared__ float s[];\n'
                   '    s[threadIdx.x] = a[threadIdx.x];\n    __syncthreads();\n'
                   '    a[threadIdx.x] = s[blockDim.x - 1 - threadIdx.x];\n}\n')
    code, out, err = cli([f"{src}::rev", "--grid", "1", "--block", "32", "--arg", "a=float32[32]"], capsys)
    assert code == 1, err
    assert "fix: give the launch its dynamic shared memory, --shared BYTES" in out
    code, out, err = cli([f"{src}::rev", "--grid", "1", "--block", "32", "--arg", "a=float32[32]", "--shared", "128"],
                         capsys)
    assert code == 0, out


HANDOFF_CU = r'''
extern "C" __global__ void handoff(const float *in, float *out) {
    __shared__ float data[32];
    __shared__ int flag;
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (warp == 1) {                                  // the consumer warp
        while (atomicAdd(&flag, 0) == 0) { }
        __threadfence_block();
        out[blockIdx.x * 32 + lane] = data[lane] * 2.0f;
    } else if (warp == 0) {                           // the producer warp
        data[lane] = in[blockIdx.x * 32 + lane] + 1.0f;
        __threadfence_block();
        SYNC
        if (lane == 0) atomicExch(&flag, 1);
    }
}
'''


def test_a_handoff_between_warps_through_a_shared_atomic_flag_is_ordered(capsys, tmp_path):
    """A producer warp fences and sets an atomic flag its block's consumer warp waits on (the sweep's F6): the
    data is ordered, no race; without the producer's __syncwarp, lanes 1-31's writes are not, and that is the
    race. The fix a race between warps gives names this handoff where only some warps run the code."""
    argv = ["--grid", "4", "--block", "64", "--arg", "in=float32[128]", "--arg", "out=float32[128]"]
    for sync, want in (("__syncwarp();", 0), ("", 1)):
        src = tmp_path / f"handoff{want}.cu"
        src.write_text(HANDOFF_CU.replace("SYNC", sync))
        code, out, err = cli([f"{src}::handoff", *argv], capsys)
        assert code == want, out
        if want:
            assert "Race (read-after-write) on __shared__ memory between warps of one block" in out
            assert "then a flag set with an atomic, which the reader waits on" in out


def test_a_warp_sync_whose_mask_names_lanes_that_returned_is_reported(capsys, tmp_path):
    """Lanes 16-31 return before a __syncwarp(0xffffffff) the others call (the sweep's e23): they can never
    arrive, which CUDA leaves undefined; named lanes that are live but elsewhere were already reported."""
    src = tmp_path / "sw.cu"
    src.write_text('extern "C" __global__ void half_gone(int *out) {\n    __shared__ int s[32];\n'
                   '    int lane = threadIdx.x & 31;\n    if (lane >= 16) { out[lane] = -lane; return; }\n'
                   '    s[lane] = lane;\n    __syncwarp(0xffffffff);\n    out[lane] = s[15 - lane];\n}\n')
    code, out, err = cli([f"{src}::half_gone", "--grid", "1", "--block", "32", "--arg", "out=int32[32]"], capsys)
    assert code == 1, err
    assert "names lanes 16-31 of the warp, which have exited (returned)" in out
    src.write_text(src.read_text().replace("__syncwarp(0xffffffff)", "__syncwarp(0x0000ffff)"))
    code, out, err = cli([f"{src}::half_gone", "--grid", "1", "--block", "32", "--arg", "out=int32[32]"], capsys)
    assert code == 0, out


def test_a_read_past_a_constant_array_is_named_as_constant_memory(capsys, tmp_path):
    src = tmp_path / "c.cu"
    src.write_text("__constant__ float coef[16];\n"
                   'extern "C" __global__ void k(float* out, int n) {\n'
                   "    int i = threadIdx.x;\n"
                   "    if (i < n) out[i] = coef[i];\n"
                   "}\n")
    code, out, _ = cli([f"{src}::k", "--grid", "1", "--block", "32", "--arg", "n=32", "--arg", "out=float32[32]"], capsys)
    assert code == 1
    assert "Invalid __constant__ read of size 4 bytes (out of bounds)" in out
    assert "4 bytes past the end of __constant__ variable coef" in out and "__global__" not in out
