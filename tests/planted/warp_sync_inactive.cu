// Planted bug: a full-warp mask (0xffffffff) on a shuffle that only lanes 0-15 execute: the
// mask names lanes 16-31, which never reach it.
extern "C" __global__ void warp_sync_inactive(float* out, const float* in) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float v = in[t];
    if ((threadIdx.x & 31) < 16)
        v += __shfl_down_sync(0xffffffffu, v, 1);  // BUG warp-sync
    out[t] = v;
}
