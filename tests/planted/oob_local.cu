// Planted bug: a per-thread array indexed by a run-time value one past its end (k == 8): the
// array lives in local memory, and the read leaves it.
extern "C" __global__ void oob_local(float* out, const float* in, int k) {
    float acc[8];
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    for (int j = 0; j < 8; j++) acc[j] = in[t * 8 + j];
    out[t] = acc[k];  // BUG out-of-bounds
}
