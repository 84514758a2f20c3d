// Correct: single-pass sum. Each block writes its partial sum, __threadfence(), then takes a
// ticket with atomicAdd; the last block reduces all partials in parallel (shared tree) and
// resets the counter for the next launch.
#define BS 64
extern "C" __global__ void sum_single_pass(const float* x, float* partial, unsigned* done, float* result, int n) {
    __shared__ float s[BS];
    __shared__ int amLast;
    int t = threadIdx.x;
    float v = 0.0f;
    for (int i = blockIdx.x * BS + t; i < n; i += BS * gridDim.x) v += x[i];
    s[t] = v;
    __syncthreads();
    for (int st = BS / 2; st > 0; st >>= 1) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0) {
        partial[blockIdx.x] = s[0];
        __threadfence();
        unsigned prev = atomicAdd(done, 1u);
        amLast = (prev == gridDim.x - 1);
    }
    __syncthreads();
    if (amLast) {
        __threadfence();
        float w = 0.0f;
        for (int b = t; b < gridDim.x; b += BS) w += partial[b];
        s[t] = w;
        __syncthreads();
        for (int st = BS / 2; st > 0; st >>= 1) {
            if (t < st) s[t] += s[t + st];
            __syncthreads();
        }
        if (t == 0) { *result = s[0]; *done = 0u; }
    }
}
