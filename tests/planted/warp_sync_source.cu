// Planted bug: lanes 0-15 shuffle among themselves (mask 0x0000ffff) but read lanes 16-31,
// which are outside the mask: the values they get are undefined.
extern "C" __global__ void warp_sync_source(float* out, const float* in) {
    int t = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    float v = in[t];
    if (lane < 16) v = __shfl_sync(0x0000ffffu, v, lane + 16);  // BUG warp-sync
    out[t] = v;
}
