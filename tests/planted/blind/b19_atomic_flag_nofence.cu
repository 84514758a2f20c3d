// Producer/consumer between blocks using an atomic flag, but the producer forgets __threadfence()
// before raising it: the relaxed atomicExch does not order the earlier plain stores of `buf`.
extern "C" __global__ void handoff_atomic(float* buf, unsigned* flag, float* out, const float* in) {
    int t = threadIdx.x;
    if (blockIdx.x == 0) {
        buf[t] = in[t] + 1.0f;  // BUG race
        __syncthreads();
        if (t == 0) atomicExch(flag, 1u);
    } else {
        if (t == 0) while (atomicAdd(flag, 0u) == 0u) { }
        __syncthreads();
        out[t] = buf[t];  // BUG race
    }
}
