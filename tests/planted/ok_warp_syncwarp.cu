// Correct: the warp-synchronous reduction written for Volta and later: __syncwarp() between
// every write and the reads of other lanes (a checker that treats lanes of a warp as
// unordered without knowing __syncwarp reports a false race).
extern "C" __global__ void ok_warp_syncwarp(float* out, const float* in) {
    __shared__ float s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        float v = s[t] + s[t + 32];
        for (int off = 16; off > 0; off >>= 1) {
            __syncwarp();
            s[t] = v;
            __syncwarp();
            v += s[t + off];
        }
        if (t == 0) out[blockIdx.x] = v;
    }
}
