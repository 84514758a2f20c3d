// Correct: the modern form of the last-warp unroll. Each step reads into a register, then
// __syncwarp(), then writes, then __syncwarp(): every lane's write is ordered with the reads.
#define BS 128
extern "C" __global__ void reduce_sw(const float* in, float* out, int n) {
    __shared__ float s[BS];
    int t = threadIdx.x, i = blockIdx.x * BS + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int st = BS / 2; st > 32; st >>= 1) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t < 32) {
        float v = s[t] + s[t + 32];
        __syncwarp();
        s[t] = v;
        __syncwarp();
        for (int off = 16; off > 0; off >>= 1) {
            v += s[t + off];
            __syncwarp();
            s[t] = v;
            __syncwarp();
        }
        if (t == 0) out[blockIdx.x] = v;
    }
}
