// Block-wide inclusive scan with warp shuffles (Kogge-Stone within each warp): every warp scans
// its 32 values with __shfl_up_sync, the last lane of each warp writes the warp total to shared
// memory, warp 0 scans those totals, and every warp adds the total of the warps before it.
// One 1024-thread block scans each 1024-element segment.
extern "C" __global__ void scan_warp_shuffle(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float warp_sums[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    int wid = threadIdx.x >> 5;
    float v = (i < n) ? in[i] : 0.0f;

    for (int offset = 1; offset < 32; offset <<= 1) {
        float t = __shfl_up_sync(0xffffffff, v, offset);
        if (lane >= offset) v += t;
    }
    if (lane == 31) warp_sums[wid] = v;
    __syncthreads();

    if (wid == 0) {
        float s = (lane < blockDim.x / 32) ? warp_sums[lane] : 0.0f;
        for (int offset = 1; offset < 32; offset <<= 1) {
            float t = __shfl_up_sync(0xffffffff, s, offset);
            if (lane >= offset) s += t;
        }
        warp_sums[lane] = s;
    }
    __syncthreads();

    if (wid > 0) v += warp_sums[wid - 1];
    if (i < n) out[i] = v;
}
