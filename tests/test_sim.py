"""The execution model: divergence and reconvergence, barriers, memory, warp ops, errors."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cudasim import (BarrierDivergence, In, InOut, LaunchError, MemoryFault, Out, SourceModule,
                     UnsupportedInstruction)
import cudasim.driver as drv

SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def kernel(src: str, name: str, **kw):
    return SourceModule(src, no_extern_c=True, **kw).get_function(name)


def s32(x: int) -> int:
    x &= 0xFFFFFFFF
    return x - (1 << 32) if x >> 31 else x


# -- divergence and reconvergence ---------------------------------------------------------
NESTED = r'''
extern "C" __global__ void nested(int* out, unsigned* masks, const int* a, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int x = a[t], acc = 0;
    for (int i = 0; i < (x & 15); ++i) {          // lane-dependent trip count
        if ((x >> i) & 1) {
            acc += i;
            if (i & 2) acc ^= x; else continue;
        } else {
            acc -= 1;
            if (acc < -3) break;
        }
        acc *= 3;
    }
    out[t] = acc;
    masks[t] = __activemask();                      // after reconvergence: every live lane
}
'''


def nested_model(x: int) -> int:
    acc = 0
    for i in range(x & 15):
        if (x >> i) & 1:
            acc = s32(acc + i)
            if i & 2:
                acc ^= x
            else:
                continue
        else:
            acc = s32(acc - 1)
            if acc < -3:
                break
        acc = s32(acc * 3)
    return acc


@SLOW
@given(st.lists(st.integers(-2 ** 31, 2 ** 31 - 1), min_size=1, max_size=100), st.sampled_from([32, 64, 96]))
def test_nested_divergence_and_lane_dependent_loops_reconverge(values, block):
    f = kernel(NESTED, "nested")
    a = np.array(values, np.int32)
    n = len(a)
    out = np.zeros(n, np.int32)
    masks = np.zeros(n, np.uint32)
    grid = (n + block - 1) // block
    f(Out(out), Out(masks), In(a), np.int32(n), block=(block, 1, 1), grid=(grid, 1))
    assert out.tolist() == [nested_model(int(v)) for v in a]
    # the lanes that reach the store are exactly the warp's live threads (t < n)
    for t in range(n):
        w0 = t // 32 * 32
        live = min(n, w0 + 32) - w0
        assert masks[t] == (1 << live) - 1 if live < 32 else masks[t] == 0xFFFFFFFF


def test_active_mask_inside_a_branch_holds_only_that_side():
    src = r'''
    extern "C" __global__ void sides(unsigned* out) {
        unsigned m;
        if (threadIdx.x % 3 == 0) m = __activemask(); else m = ~__activemask();
        out[threadIdx.x] = m;
    }'''
    out = np.zeros(64, np.uint32)
    kernel(src, "sides")(Out(out), block=(64, 1, 1), grid=(1, 1))
    for t in range(64):
        w = t // 32
        taken = sum(1 << l for l in range(32) if (32 * w + l) % 3 == 0)  # this warp's lanes on the if side
        # the if side sees its own lanes; the else side sees the rest, whose complement is the if side
        assert out[t] == taken


# -- barriers and shared memory -------------------------------------------------------------
REVERSE = r'''
extern "C" __global__ void reverse(float* out, const float* a) {
    __shared__ float s[256];
    int t = threadIdx.x;
    s[t] = a[blockIdx.x * blockDim.x + t];
    SYNC
    out[blockIdx.x * blockDim.x + t] = s[blockDim.x - 1 - t];
}'''


@SLOW
@given(st.integers(1, 5), st.sampled_from([64, 128, 256]))
def test_barrier_makes_every_write_visible_to_the_whole_block(blocks, threads):
    f = kernel(REVERSE.replace("SYNC", "__syncthreads();"), "reverse")
    a = np.random.default_rng(blocks).random(blocks * threads).astype(np.float32)
    out = np.zeros_like(a)
    launch = f(Out(out), In(a), block=(threads, 1, 1), grid=(blocks, 1))
    assert np.array_equal(out, a.reshape(blocks, threads)[:, ::-1].ravel())
    assert launch.findings == []


def test_missing_barrier_is_reported_as_a_race_with_its_line():
    f = kernel(REVERSE.replace("SYNC", ""), "reverse", filename="reverse.cu")
    a = np.arange(128, dtype=np.float32)
    launch = f(np.zeros_like(a), a, block=(128, 1, 1), grid=(1, 1))
    races = [x for x in launch.findings if x.kind == "shared-memory race"]
    assert races and "read-after-write" in races[0].message and races[0].line == 7


def test_barrier_in_divergent_code_stops_with_the_thread_counts():
    f = kernel(REVERSE.replace("SYNC", "if (t < 16) __syncthreads();"), "reverse")
    a = np.arange(64, dtype=np.float32)
    with pytest.raises(BarrierDivergence, match="reached by 16 of the 64 live threads"):
        f(np.zeros_like(a), a, block=(64, 1, 1), grid=(1, 1))


def test_uninitialized_shared_read_is_reported():
    src = r'''
    extern "C" __global__ void uninit(float* out) {
        __shared__ float s[64];
        if (threadIdx.x < 32) s[threadIdx.x] = 1.0f;
        __syncthreads();
        out[threadIdx.x] = s[threadIdx.x];
    }'''
    launch = kernel(src, "uninit")(np.zeros(64, np.float32), block=(64, 1, 1), grid=(1, 1))
    kinds = {f.kind: f for f in launch.findings}
    assert "uninitialized shared read" in kinds and kinds["uninitialized shared read"].count == 32


def test_dynamic_shared_memory_and_early_exit_before_the_barrier():
    src = r'''
    extern "C" __global__ void dyn(float* out, const float* a, int n) {
        extern __shared__ float s[];
        int t = threadIdx.x;
        if (t >= n) return;                 // exited threads do not hold the barrier up
        s[t] = a[t] * 2.0f;
        __syncthreads();
        out[t] = s[n - 1 - t];
    }'''
    a = np.arange(100, dtype=np.float32)
    out = np.zeros(128, np.float32)
    kernel(src, "dyn")(Out(out), In(a), np.int32(100), block=(128, 1, 1), grid=(1, 1), shared=128 * 4)
    assert np.array_equal(out[:100], (a * 2)[::-1]) and not out[100:].any()


# -- integers wrap as the hardware's ----------------------------------------------------------
INTOPS = r'''
extern "C" __global__ void intops(unsigned* out, const unsigned* a, const unsigned* b) {
    int t = threadIdx.x;
    unsigned x = a[t], y = b[t], r;
    int k = 0;
    out[t * 8 + k++] = __umulhi(x, y);
    out[t * 8 + k++] = (unsigned)(((unsigned long long)x * y) >> 7);
    asm("shl.b32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y & 63u));  out[t * 8 + k++] = r;   // clamps at 32
    asm("shr.s32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y & 63u));  out[t * 8 + k++] = r;
    asm("div.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y & 3u));   out[t * 8 + k++] = r;   // by zero: all ones
    asm("rem.u32 %0, %1, %2;" : "=r"(r) : "r"(x), "r"(y & 3u));   out[t * 8 + k++] = r;   // by zero: x
    out[t * 8 + k++] = (unsigned)((int)x / (int)((y & 0xff) | 1u));
    out[t * 8 + k++] = (unsigned)(__mul64hi((long long)(int)x << 20, (long long)(int)y << 30));
}'''


def intops_model(x: int, y: int) -> list[int]:
    m = 0xFFFFFFFF
    sh = y & 63
    sx = s32(x)
    d = (y & 0xFF) | 1
    q = abs(sx) // d * (1 if sx >= 0 else -1)
    hi = ((sx << 20) * (s32(y) << 30)) >> 64
    return [(x * y) >> 32, ((x * y) >> 7) & m, (x << sh) & m if sh < 32 else 0,
            (sx >> min(sh, 31)) & m, x // (y & 3) if y & 3 else m, x % (y & 3) if y & 3 else x, q & m, hi & m]


@SLOW
@given(st.lists(st.tuples(st.integers(0, 2 ** 32 - 1), st.integers(0, 2 ** 32 - 1)), min_size=32, max_size=32))
def test_integer_arithmetic_wraps_and_clamps_as_ptx_says(pairs):
    a = np.array([p[0] for p in pairs], np.uint32)
    b = np.array([p[1] for p in pairs], np.uint32)
    out = np.zeros(32 * 8, np.uint32)
    kernel(INTOPS, "intops")(Out(out), In(a), In(b), block=(32, 1, 1), grid=(1, 1))
    for t in range(32):
        assert out[t * 8:(t + 1) * 8].tolist() == intops_model(int(a[t]), int(b[t])), t


# -- atomics, warp operations, vectors, local memory, templates ------------------------------
def test_atomics_on_global_and_shared_count_exactly():
    src = r'''
    extern "C" __global__ void hist(unsigned* global_bins, unsigned* tickets, const unsigned* v, int n) {
        __shared__ unsigned bins[16];
        if (threadIdx.x < 16) bins[threadIdx.x] = 0;
        __syncthreads();
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) {
            atomicAdd(&bins[v[i] & 15], 1u);
            tickets[i] = atomicInc(&global_bins[16], 0xffffffffu);
        }
        __syncthreads();
        if (threadIdx.x < 16) atomicAdd(&global_bins[threadIdx.x], bins[threadIdx.x]);
    }'''
    v = np.random.default_rng(3).integers(0, 1000, 1000).astype(np.uint32)
    bins = np.zeros(17, np.uint32)
    tickets = np.zeros(1000, np.uint32)
    kernel(src, "hist")(InOut(bins), Out(tickets), In(v), np.int32(1000), block=(128, 1, 1), grid=(8, 1))
    assert bins[:16].tolist() == np.bincount(v & 15, minlength=16).tolist()
    assert bins[16] == 1000 and sorted(tickets.tolist()) == list(range(1000))


def test_warp_shuffle_reduction_and_ballot():
    src = r'''
    extern "C" __global__ void warpsum(float* sums, unsigned* ballots, const float* a) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        float v = a[i];
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        unsigned b = __ballot_sync(0xffffffffu, a[i] > 0.5f);
        if ((threadIdx.x & 31) == 0) { sums[i / 32] = v; ballots[i / 32] = b; }
    }'''
    a = np.random.default_rng(4).random(256).astype(np.float32)
    sums = np.zeros(8, np.float32)
    ballots = np.zeros(8, np.uint32)
    kernel(src, "warpsum")(Out(sums), Out(ballots), In(a), block=(128, 1, 1), grid=(2, 1))
    np.testing.assert_allclose(sums, a.reshape(8, 32).sum(1), rtol=1e-5)
    want = [(sum(1 << l for l in range(32) if w[l] > 0.5)) for w in a.reshape(8, 32)]
    assert ballots.tolist() == want


def test_votes_reductions_and_matches_combine_each_lanes_own_members():
    """Tiles of a warp run one vote with masks of their own (the sweep's F4: every lane had the whole warp's
    answer): each lane combines the lanes of its member mask, as the PTX ISA and cooperative groups say."""
    src = r'''
    #include <cooperative_groups.h>
    #include <cooperative_groups/reduce.h>
    namespace cg = cooperative_groups;
    extern "C" __global__ void tiles(const int* in, unsigned* out) {
        int v = in[threadIdx.x];
        unsigned lane = threadIdx.x & 31;
        unsigned half = lane < 16 ? 0x0000ffffu : 0xffff0000u;
        auto t8 = cg::tiled_partition<8>(cg::this_thread_block());
        auto t16 = cg::tiled_partition<16>(cg::this_thread_block());
        unsigned *o = out + threadIdx.x * 8;
        o[0] = __ballot_sync(half, v > 10);
        o[1] = __any_sync(half, v > 20);
        o[2] = __all_sync(half, v > 5);
        o[3] = __match_any_sync(half, v & 1);
        o[4] = __reduce_add_sync(half, v);
        o[5] = t8.any(v > 12);
        o[6] = t8.ballot(v % 3 == 0);
        o[7] = cg::reduce(t16, v, cg::plus<int>());
    }'''
    v = np.random.default_rng(9).integers(0, 32, 64).astype(np.int32)
    out = np.zeros((64, 8), np.uint32)
    SourceModule(src, no_extern_c=True).get_function("tiles")(In(v), Out(out), block=(64, 1, 1), grid=(1, 1))
    for i in range(64):
        w = i // 32 * 32
        half = range(w, w + 16) if i % 32 < 16 else range(w + 16, w + 32)
        t8 = range(i // 8 * 8, i // 8 * 8 + 8)
        t16 = range(i // 16 * 16, i // 16 * 16 + 16)
        want = [sum(1 << (j % 32) for j in half if v[j] > 10), any(v[j] > 20 for j in half),
                all(v[j] > 5 for j in half), sum(1 << (j % 32) for j in half if v[j] % 2 == v[i] % 2),
                sum(int(v[j]) for j in half), any(v[j] > 12 for j in t8),
                sum(1 << (j - t8[0]) for j in t8 if v[j] % 3 == 0), sum(int(v[j]) for j in t16)]
        assert out[i].tolist() == [int(x) for x in want], (i, out[i].tolist(), want)


def test_float4_vector_access_local_array_and_template_by_name_expression():
    src = r'''
    template <int K>
    __global__ void poly(float4* out, const float4* in, int pick) {
        float c[K];                                  // indexed at run time: lives in local memory
        for (int k = 0; k < K; ++k) c[k] = k + 0.5f;
        float4 v = in[threadIdx.x];
        float s = c[pick % K];
        out[threadIdx.x] = make_float4(v.x * s, v.y + s, v.z - s, v.w);
    }'''
    f = SourceModule(src, no_extern_c=True, name_expressions=["poly<7>"]).get_function("poly<7>")
    a = np.random.default_rng(5).random((64, 4)).astype(np.float32)
    out = np.zeros_like(a)
    launch = f(Out(out), In(a), np.int32(10), block=(64, 1, 1), grid=(1, 1))
    s = np.float32(3.5)
    np.testing.assert_array_equal(out, np.stack([a[:, 0] * s, a[:, 1] + s, a[:, 2] - s, a[:, 3]], 1))
    sizes = {(e.space, e.op): e.size for e in launch.trace.events}
    assert sizes[("global", "ld")] == 16 and sizes[("global", "st")] == 16


def test_trace_records_every_warp_once_per_memory_instruction_with_source_lines():
    src = r'''extern "C" __global__ void scale(float* out, const float* a, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) out[i] = 2.0f * a[i];
    }'''
    a = np.arange(300, dtype=np.float32)
    out = np.zeros_like(a)
    launch = kernel(src, "scale", filename="scale.cu")(out, a, np.int32(300), block=(128, 1, 1), grid=(3, 1))
    assert np.array_equal(out, 2 * a)
    (ld,) = launch.trace.select("global", "ld")
    assert len(ld) == 10 and ld.line == 3 and ld.file.endswith("scale.cu")  # ceil(300/32) warps
    assert bin(int(ld.masks[-1])).count("1") == 300 - 9 * 32
    # thread i loads a[i]: each active lane's address is 4 bytes per global thread index past a,
    # and every live thread appears exactly once across the warps' rows
    lanes = ld.lane_active()
    tid = ld.blocks[:, None] * 128 + ld.warps[:, None].astype(np.int64) * 32 + np.arange(32)
    addrs = ld.addrs.astype(np.int64)
    assert (addrs[lanes] - addrs[lanes].min() == 4 * tid[lanes]).all()
    assert sorted(tid[lanes].tolist()) == list(range(300))


def test_run_blocks_runs_only_those_and_trace_blocks_samples():
    src = r'''extern "C" __global__ void ids(int* out) {
        out[blockIdx.y * gridDim.x * blockDim.x + blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x + 10 * blockIdx.y;
    }'''
    out = np.full(4 * 3 * 32, -1, np.int32)
    launch = kernel(src, "ids")(out, block=(32, 1, 1), grid=(4, 3), run_blocks=[0, 5, 11], trace_blocks=[5])
    ran = sorted(set(out[out >= 0].tolist()))
    assert ran == [0, 11, 23] and launch.stats["blocks_run"] == 3
    assert set(launch.trace.events[0].blocks.tolist()) == {5} and launch.trace.traced_blocks == [5]


# -- errors: one clear line ----------------------------------------------------------------------
def test_out_of_bounds_global_write_names_the_allocation_and_distance():
    src = r'''extern "C" __global__ void oob(float* out, int n) { out[threadIdx.x + n] = 1.0f; }'''
    with pytest.raises(MemoryFault, match=r"bytes past the end of argument 0"):
        kernel(src, "oob")(np.zeros(32, np.float32), np.int32(8), block=(32, 1, 1), grid=(1, 1))


def test_an_overrun_into_the_next_array_is_out_of_bounds_with_a_positive_distance():
    """issue 16: a[i + 64] over two adjacent 64-element arrays read b's values with no word; the arrays now stand
    apart (guard zones, as compute-sanitizer pads them), and the message names a and how far past its end."""
    src = r'''extern "C" __global__ void over(float* out, const float* a, const float* b) {
        out[threadIdx.x] = a[threadIdx.x + 64] + b[threadIdx.x];
    }'''
    f = kernel(src, "over")
    with pytest.raises(MemoryFault, match=r"reaches 4 bytes past the end of argument 1 of over \(float32\[64\]\).*"
                                          r"starts at byte 256 of its 256"):
        f(np.zeros(64, np.float32), np.ones(64, np.float32), np.ones(64, np.float32), block=(64, 1, 1), grid=(1, 1))


def test_unsupported_instruction_is_named_with_its_source_line():
    src = r'''extern "C" __global__ void odd(int* out) {
        int r;
        asm("mul24.lo.s32 %0, %1, %2;" : "=r"(r) : "r"((int)threadIdx.x), "r"(3));
        out[threadIdx.x] = r;
    }'''
    with pytest.raises(UnsupportedInstruction, match=r"mul24.lo.s32 .* at .*kernel.cu:3"):
        kernel(src, "odd")(np.zeros(32, np.int32), block=(32, 1, 1), grid=(1, 1))


def test_launches_the_driver_would_refuse_say_which_limit():
    f = kernel(REVERSE.replace("SYNC", "__syncthreads();"), "reverse")
    a = np.zeros(2048, np.float32)
    with pytest.raises(LaunchError, match="at most 1024"):
        f(a, a, block=(2048, 1, 1), grid=(1, 1))
    with pytest.raises(LaunchError, match="shared memory.*limit is 49152"):
        f(a, a, block=(256, 1, 1), grid=(1, 1), shared=60000)


def test_python_scalars_and_unknown_names_get_a_hint():
    mod = SourceModule(REVERSE.replace("SYNC", ""), no_extern_c=True)
    with pytest.raises(LaunchError, match="did you mean reverse"):
        mod.get_function("revers")
    f = kernel(r'''extern "C" __global__ void k(float* o, int n) { o[0] = n; }''', "k")
    with pytest.raises(TypeError, match=r"np.int32\(3\)"):
        f(np.zeros(1, np.float32), 3, block=(1, 1, 1), grid=(1, 1))


def test_driver_allocations_work_like_pycuda():
    src = r'''extern "C" __global__ void inc(int* p) { p[threadIdx.x] += 1; }'''
    a = np.arange(32, dtype=np.int32)
    d = drv.to_device(a)
    kernel(src, "inc")(d, block=(32, 1, 1), grid=(1, 1))
    assert np.array_equal(drv.from_device(d, (32,), np.int32), a + 1)
    d.free()


# -- what the analysis asks of a launch ------------------------------------------------------------
FOLLOW = r'''
__constant__ float scale[64];
extern "C" __global__ void follow(float* out, const float* a, int m) {
    int t = threadIdx.x;
    float v = a[blockIdx.x * blockDim.x + t] * scale[t];
    if (t >= 32)                                   // the second warp alone runs the loop
        for (int i = 0; i < m; ++i) v = v * 1.5f + 1.0f;
    out[blockIdx.x * blockDim.x + t] = v;
}
'''


def test_followed_blocks_record_the_path_of_each_warp():
    mod = SourceModule(FOLLOW, no_extern_c=True)
    f = mod.get_function("follow")
    addr, _ = mod.get_global("scale")
    mod.memory.write(addr, np.arange(64, dtype=np.float32))
    a, out = np.ones(192, np.float32), np.zeros(192, np.float32)
    launch = f(Out(out), In(a), np.int32(5), block=(64, 1, 1), grid=(3, 1), follow_blocks=[1])
    assert set(launch.stats["followed"]) == {1}
    path = launch.stats["followed"][1]
    masks = [bits for _, bits in path]
    assert set(masks) == {0b10, 0b11}  # both warps, and the loop's runs: the second warp only
    assert sum(1 for bits in masks if bits == 0b10) >= 5
    v = np.arange(64, dtype=np.float64)
    assert np.allclose(out[64:128], np.where(np.arange(64) >= 32, v * 1.5 ** 5 + 2 * (1.5 ** 5 - 1), v))
    assert sorted(n for _, n in launch.stats["buffers"]) == [768, 768]
    spaces = {(ev.space, ev.op) for ev in launch.trace.events}
    assert ("const", "ld") in spaces and ("global", "ld") in spaces  # __constant__ reads are not global loads


# -- bounded runs -------------------------------------------------------------------------
SPIN = r'''
extern "C" __global__ void spin(int* out, const int* flag) {
    int x = threadIdx.x;
    while (flag[0] == 0) x = x * 3 + 1;          // waits for a flag nothing sets
    out[threadIdx.x] = x;
}'''


def test_an_endless_loop_stops_at_the_step_limit_naming_where_its_threads_are():
    import time

    from cudasim import Runaway
    f = kernel(SPIN, "spin", filename="spin.cu")
    t = time.perf_counter()
    with pytest.raises(Runaway, match=r"limit of 2,000,000 warp instructions.*2,048 threads were at \S*spin\.cu:4 .*"
                                      r"first thread \(0,0,0\) of block \(0,0,0\)"):
        f(Out(np.zeros(256, np.int32)), In(np.zeros(1, np.int32)), block=(256, 1, 1), grid=(8, 1), max_steps=2_000_000)
    assert time.perf_counter() - t < 30
    out = np.zeros(256, np.int32)
    f(Out(out), In(np.ones(1, np.int32)), block=(256, 1, 1), grid=(1, 1), max_steps=2_000_000)  # a set flag: done
    assert (out == np.arange(256)).all()


SHADOW = r'''
extern "C" __global__ void shadow(unsigned* out, const unsigned* a) {
    unsigned x = a[threadIdx.x], lo, hi;
    asm("{ .reg .b16 f, g;\n mov.b32 {f, g}, %1;\n add.u16 f, f, g;\n cvt.u32.u16 %0, f; }" : "=r"(lo) : "r"(x));
    asm("{ .reg .b32 f;\n mov.b32 f, %1;\n shr.b32 f, f, 3;\n mov.b32 %0, f; }" : "=r"(hi) : "r"(x));
    asm("{ .reg .b32 %%r1;\n mov.b32 %%r1, 7;\n add.u32 %0, %0, %%r1; }" : "+r"(hi));  // shadows NVVM's own %r1
    out[threadIdx.x] = lo + 3 * hi + x;
}'''


def test_registers_declared_in_a_nested_scope_are_that_scopes():
    """Inline asm (the math library's, cuda_fp16.h's) declares registers in `{ }` scopes, reusing names -- `f` as
    b16 in one block and b32 in the next, %r1 over the function's own: each scope's are its own."""
    x = np.random.default_rng(5).integers(0, 1 << 32, 64, dtype=np.uint64).astype(np.uint32)
    out = np.zeros(64, np.uint32)
    kernel(SHADOW, "shadow")(Out(out), In(x), block=(64, 1, 1), grid=(1, 1))
    lo = ((x & 0xFFFF) + (x >> 16)) & 0xFFFF
    assert (out == (lo + 3 * ((x >> 3) + 7) + x).astype(np.uint32)).all()


def test_a_half2_shuffle_reads_ptx_warp_size_constant():
    """cuda_fp16.hpp's __shfl_xor_sync on a __half2 writes the warp size as PTX's constant WARP_SZ."""
    src = r'''#include <cuda_fp16.h>
extern "C" __global__ void swap16(unsigned* out, const unsigned* in) {
    __half2 v = *reinterpret_cast<const __half2*>(in + threadIdx.x);
    __half2 w = __shfl_xor_sync(0xffffffffu, v, 16);
    out[threadIdx.x] = *reinterpret_cast<unsigned*>(&w);
}'''
    x = np.arange(32, dtype=np.uint32) * 0x10001
    out = np.zeros(32, np.uint32)
    kernel(src, "swap16")(Out(out), In(x), block=(32, 1, 1), grid=(1, 1))
    assert (out == x[np.arange(32) ^ 16]).all()


def test_a_trace_past_a_third_of_the_free_memory_stops_in_one_line(monkeypatch):
    """The trace grows with the accesses simulated, not with the memory they touch (the sweep's F3: 15.7 GB and
    rising for a 48 MB problem): past a third of the memory free at launch it stops, as a MemoryError the
    commands turn into one line; a launch that keeps no trace runs on."""
    import cudasim.trace as tr
    monkeypatch.setattr(tr, "host_free_bytes", lambda: 3 * 200_000)
    src = r'''extern "C" __global__ void many(float* a, int n) {
        for (int k = 0; k < n; k++) a[k * blockDim.x + threadIdx.x] = k;   // 200 stores a warp: 435 KB of rows
    }'''
    f = kernel(src, "many")
    a = np.zeros(200 * 256, np.float32)
    with pytest.raises(MemoryError, match="trace of the warps' memory accesses passed"):
        f(InOut(a), np.int32(200), block=(256, 1, 1), grid=(1, 1))
    f(InOut(a), np.int32(200), block=(256, 1, 1), grid=(1, 1), trace=False)
    assert (a.reshape(200, 256) == np.arange(200)[:, None]).all()


def test_an_access_made_from_one_array_that_lands_past_another_names_the_first():
    """The sweep's s05: in[i] read 346 KB past the end of `in`, past `hist` too, was blamed on `hist` (the array
    laid out before the address). The address is made from `in`: the message names it, and how far past."""
    src = r'''extern "C" __global__ void far_read(const unsigned char *in, unsigned *hist, int n) {
        int i = blockIdx.x * blockDim.x + threadIdx.x;
        if (i < n) atomicAdd(&hist[in[i] & 7], 1u);
    }'''
    f = kernel(src, "far_read")
    with pytest.raises(MemoryFault) as e:
        f(In(np.zeros(2000, np.uint8)), InOut(np.zeros(4096, np.uint32)), np.int32(1 << 20), block=(128, 1, 1),
          grid=(8192, 1), run_blocks=[200])  # a sampled block: every lane of it past both arrays
    assert "past the end of argument 0 of far_read (uint8[2000])" in str(e.value)
    assert "the array its address is made from" in str(e.value) and e.value.argument == 0


def test_a_clock_read_is_said_once_per_kernel_through_the_python_api():
    """The PyCUDA-shaped API runs a kernel that times itself: the values are a counter, not the GPU's
    clock, and the launch says so (Launch.notes, and a warning at the first launch of the kernel)."""
    import warnings

    f = SourceModule("__global__ void t(long long* out) { long long a = clock64(); "
                     "out[threadIdx.x] = clock64() - a; }").get_function("t")
    out = np.zeros(32, np.int64)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = f(out, block=(32, 1, 1), grid=(1, 1))
        again = f(out, block=(32, 1, 1), grid=(1, 1))
    said = [str(w.message) for w in caught if "%clock64" in str(w.message)]
    assert len(said) == 1 and "not with the GPU's time" in said[0]
    assert any("%clock64" in n for n in first.notes) and again.notes == first.notes
