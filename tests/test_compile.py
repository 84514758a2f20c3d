from cudasim.compile import compile_cuda, parse_ptxas_log, CompileError
import pytest

SRC = r'''
template <int T>
__global__ void scale(float* out, const float* __restrict__ in, int n) {
    __shared__ float tile[T][T + 1];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.y][threadIdx.x] = in[i];
    __syncthreads();
    if (i < n) out[i] = 2.0f * tile[threadIdx.x][threadIdx.y];
}
'''


def test_template_by_name_expression_gives_ptx_with_lines_and_resources():
    r = compile_cuda(SRC, ["scale<32>"], cache=False)
    mangled = r.lowered["scale<32>"]
    assert f".entry {mangled}(" in r.ptx
    assert ".loc" in r.ptx and ".target sm_90" in r.ptx
    res = r.resources[mangled]
    assert res.shared_bytes == 32 * 33 * 4
    assert 4 <= res.registers <= 64
    assert r.entry("scale<32>") == mangled


def test_defines_reach_the_source():
    src = "extern \"C\" __global__ void k(int* o) { o[0] = VALUE; }"
    r = compile_cuda(src, options=["-DVALUE=1234567"], cache=False)
    assert "1234567" in r.ptx
    with pytest.raises(CompileError, match="VALUE"):
        compile_cuda(src, cache=False)


def test_ptxas_log_parsing():
    log = """ptxas info    : Compiling entry function 'k' for 'sm_90'
ptxas info    : Function properties for k
ptxas         .     16 bytes stack frame, 8 bytes spill stores, 4 bytes spill loads
ptxas info    : Used 40 registers, used 1 barriers, 8192 bytes smem, 368 bytes cmem[0]"""
    r = parse_ptxas_log(log)["k"]
    assert (r.registers, r.shared_bytes, r.stack_bytes, r.spill_stores, r.spill_loads, r.barriers) == (40, 8192, 16, 8, 4, 1)


def test_cooperative_groups_within_a_block_compile_and_run():
    """cooperative_groups.h includes cuda/std (nvidia-cuda-cccl): the blind set's block reduction by
    tiled_partition<32> shuffles and block.sync(), as users write it, gives the sums."""
    from pathlib import Path

    import numpy as np
    from cudasim import In, Out, SourceModule
    src = (Path(__file__).parent / "planted" / "blind" / "c09_coop_groups_ok.cu").read_text()
    x = np.arange(250, dtype=np.float32)
    out = np.zeros(2, np.float32)
    f = SourceModule(src, no_extern_c=True).get_function("cg_reduce")
    f(In(x), Out(out), np.int32(250), block=(128, 1, 1), grid=(2, 1))
    assert out.tolist() == [x[:128].sum(), x[128:].sum()]
