// Block-to-block handoff: block 0 produces, raises a flag; block 1 spins on the flag and
// consumes. No __threadfence() between the data stores and the flag store.
extern "C" __global__ void handoff(float* buf, volatile unsigned* flag, float* out, const float* in) {
    int t = threadIdx.x;
    if (blockIdx.x == 0) {
        buf[t] = in[t] * 2.0f;  // BUG race
        __syncthreads();
        if (t == 0) *flag = 1u;
    } else {
        if (t == 0) while (*flag == 0u) { }
        __syncthreads();
        out[t] = buf[t];  // BUG race
    }
}
