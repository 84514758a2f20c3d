// Row-wise argmax (greedy decoding over the vocabulary), written as llama.cpp's argmax_f32: one
// block per row of up to 1024 threads striding the row and keeping (max, index), the pairs
// reduced by xor shuffles within each warp, then the warps' pairs through shared memory by the
// first warp; int32 indices out.
#define WARP_SIZE 32
#define FLT_MAX 3.402823466e+38f

extern "C" __global__ void argmax_f32(const float* __restrict__ x, int* __restrict__ dst, const long long ncols)
{
    const long long row = blockIdx.x;
    float maxval = -FLT_MAX;
    int argmax = -1;
    const float* rowx = x + row * ncols;

    for (int col = threadIdx.x; col < ncols; col += blockDim.x) {
        const float val = rowx[col];
        if (val > maxval) {
            maxval = val;
            argmax = col;
        }
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        const float val = __shfl_xor_sync(0xFFFFFFFF, maxval, offset, WARP_SIZE);
        const int col = __shfl_xor_sync(0xFFFFFFFF, argmax, offset, WARP_SIZE);
        if (val > maxval) {
            maxval = val;
            argmax = col;
        }
    }
    const int n_warps = blockDim.x / WARP_SIZE;
    const int lane_id = threadIdx.x % WARP_SIZE;
    const int warp_id = threadIdx.x / WARP_SIZE;
    if (n_warps > 1) {
        constexpr int max_warps = 1024 / WARP_SIZE;
        __shared__ float shared_maxval[max_warps];
        __shared__ int shared_argmax[max_warps];
        if (lane_id == 0) {
            shared_maxval[warp_id] = maxval;
            shared_argmax[warp_id] = argmax;
        }
        __syncthreads();
        if (warp_id == 0) {
            if (lane_id < n_warps) {
                maxval = shared_maxval[lane_id];
                argmax = shared_argmax[lane_id];
            }
#pragma unroll
            for (int offset = 16; offset > 0; offset >>= 1) {
                const float val = __shfl_xor_sync(0xFFFFFFFF, maxval, offset, WARP_SIZE);
                const int col = __shfl_xor_sync(0xFFFFFFFF, argmax, offset, WARP_SIZE);
                if (val > maxval) {
                    maxval = val;
                    argmax = col;
                }
            }
        }
    }
    if (warp_id == 0 && lane_id == 0) dst[row] = argmax;
}
