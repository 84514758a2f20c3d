// Device helpers of llm.c (llmc/cuda_common.h and llmc/cuda_utils.cuh, Karpathy et al.) that the
// kernels in this folder use: the activation type floatX (bf16 unless built otherwise), WARP_SIZE,
// and the warp-shuffle sum. Only the device half is kept here; llm.c's host half (cudaCheck, the
// NVTX ranges, the launchers) lives with the program that includes these headers.
#ifndef CUDA_UTILS_CUH
#define CUDA_UTILS_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>

// ----------------------------------------------------------------------------
// Global defines and settings

// WarpSize is not a compile time constant
// Defining here like this possibly allows the compiler to optimize better
#define WARP_SIZE 32U

// Specific configurations based on the enabled precision
#if defined(ENABLE_FP32)
typedef float floatX;
#define PRECISION_MODE PRECISION_FP32
// use fp16 (note: this may require gradient scaler, currently not implemented!)
#elif defined(ENABLE_FP16)
typedef half floatX;
#define PRECISION_MODE PRECISION_FP16
#else // Default to bfloat16
typedef __nv_bfloat16 floatX;
#define PRECISION_MODE PRECISION_BF16
#endif

// ----------------------------------------------------------------------------
// warp-level reduction for summing values

__device__ inline float warpReduceSum(float val) {
    for (int offset = 16; offset > 0; offset /= 2) {
        val += __shfl_xor_sync(0xFFFFFFFF, val, offset);
    }
    return val;
}

#endif // CUDA_UTILS_CUH
