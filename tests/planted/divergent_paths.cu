// Planted bug: the two halves of the block wait at two different __syncthreads() calls (one in
// each branch): each barrier is reached by part of the block only.
extern "C" __global__ void divergent_paths(float* out, const float* in) {
    __shared__ float s[128];
    int t = threadIdx.x;
    if (t < 64) {
        s[t] = in[t] * 2.0f;
        __syncthreads();  // BUG divergent-barrier
        out[t] = s[t];
    } else {
        s[t] = in[t] + 1.0f;
        __syncthreads();
        out[t] = s[t];
    }
}
