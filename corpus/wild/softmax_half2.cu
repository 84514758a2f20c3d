// Attention-score softmax in half2 arithmetic, as the "fast fp16 softmax" posts and inference-engine
// plugins write it when the whole row fits a warp's registers: one warp per row of COLS halves, each
// lane holding COLS/64 half2 pairs (strided by the warp so every load and store is a full 128-byte
// line per warp); the scale by __hmul2, the row max by __hmax2 and a half2 shuffle butterfly, the
// exponentials by h2exp of the difference (__hsub2), each lane's partial sum by __hadd2 (at most
// COLS/64 terms in (0, 1], safe in half), the cross-lane sum in float, and the normalization by
// __hmul2 with the reciprocal. A template over the row length, instantiated for 1024 keys.
#include <cuda_fp16.h>

template <int COLS>
__global__ void softmax_half2_warp(const __half* __restrict__ in, __half* __restrict__ out, int rows, float scale)
{
    constexpr int PAIRS = COLS / 2 / 32;  // half2 per lane
    static_assert(COLS % 64 == 0, "a row must split into whole half2 per lane");

    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) return;

    const __half2* x = reinterpret_cast<const __half2*>(in + (size_t)row * COLS);
    __half2* y = reinterpret_cast<__half2*>(out + (size_t)row * COLS);

    const __half2 s2 = __float2half2_rn(scale);
    __half2 v[PAIRS];
    __half2 m2 = __float2half2_rn(-65504.0f);
#pragma unroll
    for (int i = 0; i < PAIRS; ++i) {
        v[i] = __hmul2(x[lane + 32 * i], s2);
        m2 = __hmax2(m2, v[i]);
    }
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        m2 = __hmax2(m2, __shfl_xor_sync(0xffffffff, m2, offset));
    const __half2 mx = __half2half2(__hmax(__low2half(m2), __high2half(m2)));

    __half2 s = __float2half2_rn(0.0f);
#pragma unroll
    for (int i = 0; i < PAIRS; ++i) {
        v[i] = h2exp(__hsub2(v[i], mx));
        s = __hadd2(s, v[i]);
    }
    float sum = __low2float(s) + __high2float(s);
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1)
        sum += __shfl_xor_sync(0xffffffff, sum, offset);

    const __half2 r = __float2half2_rn(1.0f / sum);
#pragma unroll
    for (int i = 0; i < PAIRS; ++i)
        y[lane + 32 * i] = __hmul2(v[i], r);
}

template __global__ void softmax_half2_warp<1024>(const __half*, __half*, int, float);
