// Correct: block-to-block handoff with __threadfence() between the data stores and the flag,
// consumer spins on a volatile flag then fences before reading.
extern "C" __global__ void handoff_ok(float* buf, volatile unsigned* flag, float* out, const float* in) {
    int t = threadIdx.x;
    if (blockIdx.x == 0) {
        buf[t] = in[t] * 2.0f;
        __threadfence();
        __syncthreads();
        if (t == 0) *flag = 1u;
    } else {
        if (t == 0) { while (*flag == 0u) { } __threadfence(); }
        __syncthreads();
        out[t] = buf[t];
    }
}
