// Planted bug: only half of a shared tile is written, and every thread reads a mirrored
// element of it: half of the reads find shared memory no thread wrote.
extern "C" __global__ void uninit_shared(float* out, const float* in) {
    __shared__ float s[128];
    int t = threadIdx.x;
    if (t < 64) s[t] = in[blockIdx.x * 128 + t];
    __syncthreads();
    out[blockIdx.x * 128 + t] = s[127 - t];  // BUG uninitialized
}
