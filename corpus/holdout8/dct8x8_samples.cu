// The CUDA samples' dct8x8 (CUDAkernel2DCT in dct8x8_kernel2.cuh): forward 8x8 DCT-II of a float
// image, orthonormal, one 8-point butterfly per thread. A block of 8 x 4 x 2 threads owns a 32 x 16
// macroblock (eight 8x8 blocks) staged in shared memory with a row stride of 33; each thread loads
// a column of 8, transforms one row of its 8x8 block in place, then (after a barrier) one column,
// through the same __device__ subroutine with a stride of 1 and of 33, and writes its column back.
// Re-typed; only extern "C" added for NVRTC (FMUL is __mul24, as the sample defines it).
#define BLOCK_SIZE 8
#define BLOCK_SIZE_LOG2 3
#define KER2_BLOCK_WIDTH 32
#define KER2_BLOCK_HEIGHT 16
#define KER2_BW8 4
#define KER2_BH8 2
#define KER2_SMEMBLOCK_STRIDE (KER2_BLOCK_WIDTH + 1)
#define FMUL(x, y) (__mul24(x, y))

#define C_a 1.387039845322148f  //!< a = (2^0.5) * cos(    pi / 16);  Used in forward and inverse DCT.
#define C_b 1.306562964876377f  //!< b = (2^0.5) * cos(    pi /  8);  Used in forward and inverse DCT.
#define C_c 1.175875602419359f  //!< c = (2^0.5) * cos(3 * pi / 16);  Used in forward and inverse DCT.
#define C_d 0.785694958387102f  //!< d = (2^0.5) * cos(5 * pi / 16);  Used in forward and inverse DCT.
#define C_e 0.541196100146197f  //!< e = (2^0.5) * cos(3 * pi /  8);  Used in forward and inverse DCT.
#define C_f 0.275899379282943f  //!< f = (2^0.5) * cos(7 * pi / 16);  Used in forward and inverse DCT.
#define C_norm 0.3535533905932737f  // 1 / (8^0.5)

__device__ void CUDAsubroutineInplaceDCTvector(float *Vect0, int Step)
{
    float *Vect1 = Vect0 + Step;
    float *Vect2 = Vect1 + Step;
    float *Vect3 = Vect2 + Step;
    float *Vect4 = Vect3 + Step;
    float *Vect5 = Vect4 + Step;
    float *Vect6 = Vect5 + Step;
    float *Vect7 = Vect6 + Step;

    float X07P = (*Vect0) + (*Vect7);
    float X16P = (*Vect1) + (*Vect6);
    float X25P = (*Vect2) + (*Vect5);
    float X34P = (*Vect3) + (*Vect4);

    float X07M = (*Vect0) - (*Vect7);
    float X61M = (*Vect6) - (*Vect1);
    float X25M = (*Vect2) - (*Vect5);
    float X43M = (*Vect4) - (*Vect3);

    float X07P34PP = X07P + X34P;
    float X07P34PM = X07P - X34P;
    float X16P25PP = X16P + X25P;
    float X16P25PM = X16P - X25P;

    (*Vect0) = C_norm * (X07P34PP + X16P25PP);
    (*Vect2) = C_norm * (C_b * X07P34PM + C_e * X16P25PM);
    (*Vect4) = C_norm * (X07P34PP - X16P25PP);
    (*Vect6) = C_norm * (C_e * X07P34PM - C_b * X16P25PM);

    (*Vect1) = C_norm * (C_a * X07M - C_c * X61M + C_d * X25M - C_f * X43M);
    (*Vect3) = C_norm * (C_c * X07M + C_f * X61M - C_a * X25M + C_d * X43M);
    (*Vect5) = C_norm * (C_d * X07M + C_a * X61M + C_f * X25M - C_c * X43M);
    (*Vect7) = C_norm * (C_f * X07M + C_d * X61M + C_c * X25M + C_a * X43M);
}

extern "C" __global__ void CUDAkernel2DCT(float *dst, float *src, int ImgStride)
{
    __shared__ float block[KER2_BLOCK_HEIGHT * KER2_SMEMBLOCK_STRIDE];

    int OffsThreadInRow = threadIdx.y * BLOCK_SIZE + threadIdx.x;
    int OffsThreadInCol = threadIdx.z * BLOCK_SIZE;
    src += FMUL(blockIdx.y * KER2_BLOCK_HEIGHT + OffsThreadInCol, ImgStride) + blockIdx.x * KER2_BLOCK_WIDTH +
           OffsThreadInRow;
    dst += FMUL(blockIdx.y * KER2_BLOCK_HEIGHT + OffsThreadInCol, ImgStride) + blockIdx.x * KER2_BLOCK_WIDTH +
           OffsThreadInRow;
    float *bl_ptr = block + OffsThreadInCol * KER2_SMEMBLOCK_STRIDE + OffsThreadInRow;

#pragma unroll
    for (unsigned int i = 0; i < BLOCK_SIZE; i++) bl_ptr[i * KER2_SMEMBLOCK_STRIDE] = src[i * ImgStride];

    __syncthreads();
    // process rows
    CUDAsubroutineInplaceDCTvector(block + (OffsThreadInCol + threadIdx.x) * KER2_SMEMBLOCK_STRIDE +
                                       OffsThreadInRow - threadIdx.x,
                                   1);

    __syncthreads();
    // process columns
    CUDAsubroutineInplaceDCTvector(bl_ptr, KER2_SMEMBLOCK_STRIDE);

    __syncthreads();

    for (unsigned int i = 0; i < BLOCK_SIZE; i++) dst[i * ImgStride] = bl_ptr[i * KER2_SMEMBLOCK_STRIDE];
}
