// llama.cpp's dequantize_mul_mat_vec for Q4_0 weights (ggml-cuda, before the dp4a kernels took
// over): y = W x with W stored in blocks of 32 weights, a half scale d and 16 bytes of 4-bit quants
// (an 18-byte struct, so only 2-byte aligned); one warp per row (GGML_CUDA_DMMV_X = 32,
// GGML_CUDA_MMV_Y = 1), each lane dequantizing one byte, two weights (v - 8) * d, per step and
// multiplying them with x, a __shfl_xor_sync butterfly at the end. The template instance for
// qk = 32, qr = 2 written out.
#include <cuda_fp16.h>

#define QK4_0 32
#define QR4_0 2
#define WARP_SIZE 32
#define GGML_CUDA_DMMV_X 32

typedef float dfloat;
typedef struct {
    dfloat x;
    dfloat y;
} dfloat2;

typedef struct {
    half d;                       // delta
    unsigned char qs[QK4_0 / 2];  // nibbles / quants
} block_q4_0;

static __device__ __forceinline__ void dequantize_q4_0(const void* vx, const int ib, const int iqs, dfloat2& v)
{
    const block_q4_0* x = (const block_q4_0*)vx;

    const dfloat d = x[ib].d;

    const int vui = x[ib].qs[iqs];

    v.x = vui & 0xF;
    v.y = vui >> 4;

    v.x = (v.x - 8.0f) * d;
    v.y = (v.y - 8.0f) * d;
}

extern "C" __global__ void dequantize_mul_mat_vec_q4_0(const void* __restrict__ vx, const dfloat* __restrict__ y,
                                                       float* __restrict__ dst, const int ncols, const int nrows)
{
    const int qk = QK4_0, qr = QR4_0;
    // qk = quantized weights per x block
    // qr = number of quantized weights per data value in x block
    const int row = blockIdx.y * blockDim.y + threadIdx.y;

    if (row >= nrows) {
        return;
    }

    const int tid = threadIdx.x;

    const int iter_stride = 2 * GGML_CUDA_DMMV_X;
    const int vals_per_iter = iter_stride / WARP_SIZE;  // num quantized vals per thread and i iter
    const int y_offset = qr == 1 ? 1 : qk / 2;

    float tmp = 0.0f;

    for (int i = 0; i < ncols; i += iter_stride) {
        const int col = i + vals_per_iter * tid;
        const int ib = (row * ncols + col) / qk;  // x block index
        const int iqs = (col % qk) / qr;          // x quant index
        const int iybs = col - col % qk;          // y block start index

        // processing >2 values per i iter is faster for fast GPUs
#pragma unroll
        for (int j = 0; j < vals_per_iter; j += 2) {
            // process 2 vals per j iter

            // dequantize
            dfloat2 v;
            dequantize_q4_0(vx, ib, iqs + j / qr, v);

            // matrix multiplication
            tmp += v.x * y[iybs + iqs + j / qr + 0];
            tmp += v.y * y[iybs + iqs + j / qr + y_offset];
        }
    }

    // sum up partial sums and write back result
#pragma unroll
    for (int mask = 16; mask > 0; mask >>= 1) {
        tmp += __shfl_xor_sync(0xffffffff, tmp, mask, 32);
    }

    if (tid == 0) {
        dst[row] = tmp;
    }
}
