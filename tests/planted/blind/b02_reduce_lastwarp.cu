// Classic "reduction #6" with the last warp unrolled, but neither volatile nor __syncwarp():
// the lanes of the last warp read their neighbours' partial sums without any ordering.
#define BS 128
__device__ void warpReduce(float* sdata, int tid) {
    sdata[tid] += sdata[tid + 32];  // BUG race
    sdata[tid] += sdata[tid + 16];  // BUG race
    sdata[tid] += sdata[tid + 8];  // BUG race
    sdata[tid] += sdata[tid + 4];  // BUG race
    sdata[tid] += sdata[tid + 2];  // BUG race
    sdata[tid] += sdata[tid + 1];  // BUG race
}
extern "C" __global__ void reduce6(const float* in, float* out, int n) {
    __shared__ float sdata[BS];
    int tid = threadIdx.x;
    int i = blockIdx.x * BS * 2 + tid;
    float v = 0.0f;
    if (i < n) v = in[i];
    if (i + BS < n) v += in[i + BS];
    sdata[tid] = v;
    __syncthreads();
    for (int s = BS / 2; s > 32; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid < 32) warpReduce(sdata, tid);
    if (tid == 0) out[blockIdx.x] = sdata[0];
}
