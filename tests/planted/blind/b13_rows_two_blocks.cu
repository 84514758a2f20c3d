// Row sums of a rows x cols matrix; the columns were split over gridDim.y = 2 blocks per row for
// more parallelism, but each block still writes the row's sum with a plain store (was: atomicAdd).
extern "C" __global__ void row_sum(const float* M, float* rowsum, int cols) {
    __shared__ float s[64];
    int row = blockIdx.x, t = threadIdx.x;
    int half = cols / gridDim.y;
    float v = 0.0f;
    for (int c = blockIdx.y * half + t; c < (blockIdx.y + 1) * half; c += blockDim.x)
        v += M[row * cols + c];
    s[t] = v;
    __syncthreads();
    for (int st = 32; st > 0; st >>= 1) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0) rowsum[row] = s[0];  // BUG race
}
