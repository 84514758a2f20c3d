// Hillis-Steele inclusive scan of one block. The loads into shared memory are not followed by
// a barrier: the first step already reads neighbours' slots, which other warps may not have written.
#define BS 128
extern "C" __global__ void scan_block(const float* in, float* out) {
    __shared__ float buf[2][BS];
    int t = threadIdx.x;
    int pout = 0, pin = 1;
    buf[pout][t] = in[blockIdx.x * BS + t];
    // missing __syncthreads()
    for (int off = 1; off < BS; off <<= 1) {
        pout = 1 - pout; pin = 1 - pout;
        if (t >= off) buf[pout][t] = buf[pin][t] + buf[pin][t - off];  // BUG race
        else buf[pout][t] = buf[pin][t];
        __syncthreads();
    }
    out[blockIdx.x * BS + t] = buf[pout][t];
}
