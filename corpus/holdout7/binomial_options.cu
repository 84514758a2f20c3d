// The CUDA samples' binomialOptions (binomialOptionsKernel), DOUBLE_PRECISION build: European
// call prices by a 2048-step Cox-Ross-Rubinstein binomial tree, one option per block of 128
// threads. Each thread holds 16 tree nodes in registers; every time step the block exchanges
// edge values through shared memory between two barriers (4096 barriers per block) and each
// thread folds its nodes one level back (puByDf * up + pdByDf * down) until its nodes leave the
// shrinking tree. The preprocessed option data sit in __constant__ memory. Adapted only as the
// harness needs: the kernel is extern "C" and writes through a d_CallValue argument instead of a
// __device__ array read back by cudaMemcpyFromSymbol; cg::sync(cta) is __syncthreads().
#define DOUBLE_PRECISION
typedef double real;

// Number of time steps
#define NUM_STEPS 2048
// Max option batch size
#define MAX_OPTIONS 1024

// Preprocessed input option data
typedef struct {
    real S;
    real X;
    real vDt;
    real puByDf;
    real pdByDf;
} __TOptionData;
__constant__ __TOptionData d_OptionData[MAX_OPTIONS];

////////////////////////////////////////////////////////////////////////////////
// Overloaded shortcut functions for different precision modes
////////////////////////////////////////////////////////////////////////////////
#ifndef DOUBLE_PRECISION
__device__ inline float expiryCallValue(float S, float X, float vDt, int i)
{
    float d = S * __expf(vDt * (2.0f * i - NUM_STEPS)) - X;
    return (d > 0.0F) ? d : 0.0F;
}
#else
__device__ inline double expiryCallValue(double S, double X, double vDt, int i)
{
    double d = S * exp(vDt * (2.0 * i - NUM_STEPS)) - X;
    return (d > 0.0) ? d : 0.0;
}
#endif

////////////////////////////////////////////////////////////////////////////////
// GPU kernel
////////////////////////////////////////////////////////////////////////////////
#define THREADBLOCK_SIZE 128
#define ELEMS_PER_THREAD (NUM_STEPS / THREADBLOCK_SIZE)
#if NUM_STEPS % THREADBLOCK_SIZE
#error Bad constants
#endif

extern "C" __global__ void binomialOptionsKernel(real* d_CallValue)
{
    __shared__ real call_exchange[THREADBLOCK_SIZE + 1];

    const int tid = threadIdx.x;
    const real S = d_OptionData[blockIdx.x].S;
    const real X = d_OptionData[blockIdx.x].X;
    const real vDt = d_OptionData[blockIdx.x].vDt;
    const real puByDf = d_OptionData[blockIdx.x].puByDf;
    const real pdByDf = d_OptionData[blockIdx.x].pdByDf;

    real call[ELEMS_PER_THREAD + 1];
#pragma unroll
    for (int i = 0; i < ELEMS_PER_THREAD; ++i)
        call[i] = expiryCallValue(S, X, vDt, tid * ELEMS_PER_THREAD + i);

    if (tid == 0)
        call_exchange[THREADBLOCK_SIZE] = expiryCallValue(S, X, vDt, NUM_STEPS);

    int final_it = max(0, tid * ELEMS_PER_THREAD - 1);

#pragma unroll 16
    for (int i = NUM_STEPS; i > 0; --i) {
        call_exchange[tid] = call[0];
        __syncthreads();
        call[ELEMS_PER_THREAD] = call_exchange[tid + 1];
        __syncthreads();

        if (i > final_it) {
#pragma unroll
            for (int j = 0; j < ELEMS_PER_THREAD; ++j)
                call[j] = puByDf * call[j + 1] + pdByDf * call[j];
        }
    }

    if (tid == 0) {
        d_CallValue[blockIdx.x] = call[0];
    }
}
