// Correct: block-stride loop over tiles with barriers inside; the trip count depends only on
// blockIdx (uniform over the block), and the tail tile is guarded per element, not by exiting.
// A block-uniform `if (blockIdx.x == 0)` around a barrier is also fine.
#define BS 128
extern "C" __global__ void tile_shift(const float* in, float* out, int n) {
    __shared__ float s[BS + 1];
    int t = threadIdx.x;
    for (int base = blockIdx.x * BS; base < n; base += BS * gridDim.x) {
        int g = base + t;
        s[t] = g < n ? in[g] : 0.0f;
        if (t == 0) s[BS] = base + BS < n ? in[base + BS] : 0.0f;
        __syncthreads();
        if (g < n) out[g] = s[t + 1] - s[t];
        __syncthreads();
    }
    if (blockIdx.x == 0) {
        s[t] = 1.0f;
        __syncthreads();
        if (t == 0) out[0] += s[BS - 1];
    }
}
