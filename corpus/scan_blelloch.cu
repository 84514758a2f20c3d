// Block-level exclusive scan (Blelloch, work-efficient, as in GPU Gems 3 ch. 39 without the
// bank-conflict padding): each block of BLOCK threads scans its own 2*BLOCK elements.
#define BLOCK 256

extern "C" __global__ void scan_blelloch(const float* __restrict__ in, float* __restrict__ out)
{
    __shared__ float temp[2 * BLOCK];
    int tid = threadIdx.x;
    int base = blockIdx.x * 2 * BLOCK;
    temp[2 * tid] = in[base + 2 * tid];
    temp[2 * tid + 1] = in[base + 2 * tid + 1];
    int offset = 1;
    for (int d = BLOCK; d > 0; d >>= 1) {   // up-sweep
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            temp[bi] += temp[ai];
        }
        offset *= 2;
    }
    if (tid == 0) temp[2 * BLOCK - 1] = 0.0f;
    for (int d = 1; d < 2 * BLOCK; d *= 2) {  // down-sweep
        offset >>= 1;
        __syncthreads();
        if (tid < d) {
            int ai = offset * (2 * tid + 1) - 1;
            int bi = offset * (2 * tid + 2) - 1;
            float t = temp[ai];
            temp[ai] = temp[bi];
            temp[bi] += t;
        }
    }
    __syncthreads();
    out[base + 2 * tid] = temp[2 * tid];
    out[base + 2 * tid + 1] = temp[2 * tid + 1];
}
