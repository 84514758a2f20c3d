// Planted bug: a kernel that asserts its launch covers exactly n elements, launched with more
// threads than elements (n not a multiple of the block): the GPU aborts the launch at the first
// thread past n (cudaErrorAssert), before any of them writes past the arrays.
extern "C" __global__ void assert_fail(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    assert(i < n);  // BUG assert
    out[i] = 2.0f * in[i];
}
