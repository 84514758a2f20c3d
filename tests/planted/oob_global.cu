// Planted bug: an off-by-one bounds guard (<= for <): the thread with i == n reads and
// writes one element past the end of both arrays.
extern "C" __global__ void oob_global(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i <= n) out[i] = 2.0f * in[i];  // BUG out-of-bounds
}
