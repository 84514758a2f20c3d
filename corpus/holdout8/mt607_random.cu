// The CUDA samples' MersenneTwister (RandomGPU, SDK 4.x / 5.x): 4096 independent Mersenne Twisters
// of period 2^607 - 1 (MT_NN = 19 words of state, MT_MM = 9), one per thread, their parameters
// (matrix_a, the tempering masks, the seed) found by Matsumoto and Nishimura's dynamic creator and
// copied into a __device__ array before the launch. Each thread seeds its 19-word state, then
// walks the recurrence nPerRng times (the state array indexed by a wrapping counter, so it lives
// in local memory), tempers each word and writes it as a float in (0, 1], generator-major: the
// iRng-th generator's outputs are MT_RNG_COUNT floats apart. The sample's launch: 32 blocks of
// 128 threads. Re-typed; only extern "C" added for NVRTC.
#define MT_RNG_COUNT 4096
#define MT_MM 9
#define MT_NN 19
#define MT_WMASK 0xFFFFFFFFU
#define MT_UMASK 0xFFFFFFFEU
#define MT_LMASK 0x1U
#define MT_SHIFT0 12
#define MT_SHIFTB 7
#define MT_SHIFTC 15
#define MT_SHIFT1 18

typedef struct {
    unsigned int matrix_a;
    unsigned int mask_b;
    unsigned int mask_c;
    unsigned int seed;
} mt_struct_stripped;

__device__ static mt_struct_stripped ds_MT[MT_RNG_COUNT];

////////////////////////////////////////////////////////////////////////////////
// Write MT_RNG_COUNT vertical lanes of nPerRng random numbers to *d_Random.
// For coalesced global writes MT_RNG_COUNT should be a multiple of warp size.
// Initial states for each generator are the same, since the states are
// initialized from the global seed. In order to improve distribution properties
// on small NPerRng supply dedicated (local) seed to each twister.
////////////////////////////////////////////////////////////////////////////////
extern "C" __global__ void RandomGPU(float *d_Random, int nPerRng)
{
    const int tid = blockDim.x * blockIdx.x + threadIdx.x;
    const int THREAD_N = blockDim.x * gridDim.x;

    int iState, iState1, iStateM, iOut;
    unsigned int mti, mti1, mtiM, x;
    unsigned int mt[MT_NN], matrix_a, mask_b, mask_c;

    for (int iRng = tid; iRng < MT_RNG_COUNT; iRng += THREAD_N) {
        // Load bit-vector Mersenne Twister parameters
        matrix_a = ds_MT[iRng].matrix_a;
        mask_b = ds_MT[iRng].mask_b;
        mask_c = ds_MT[iRng].mask_c;

        // Initialize current state
        mt[0] = ds_MT[iRng].seed;
        for (iState = 1; iState < MT_NN; iState++)
            mt[iState] = (1812433253U * (mt[iState - 1] ^ (mt[iState - 1] >> 30)) + iState) & MT_WMASK;

        iState = 0;
        mti1 = mt[0];
        for (iOut = 0; iOut < nPerRng; iOut++) {
            iState1 = iState + 1;
            iStateM = iState + MT_MM;
            if (iState1 >= MT_NN) iState1 -= MT_NN;
            if (iStateM >= MT_NN) iStateM -= MT_NN;
            mti = mti1;
            mti1 = mt[iState1];
            mtiM = mt[iStateM];

            // MT recurrence
            x = (mti & MT_UMASK) | (mti1 & MT_LMASK);
            x = mtiM ^ (x >> 1) ^ ((x & 1) ? matrix_a : 0);

            mt[iState] = x;
            iState = iState1;

            // Tempering transformation
            x ^= (x >> MT_SHIFT0);
            x ^= (x << MT_SHIFTB) & mask_b;
            x ^= (x << MT_SHIFTC) & mask_c;
            x ^= (x >> MT_SHIFT1);

            // Convert to (0, 1] float and write to global memory
            d_Random[iRng + iOut * MT_RNG_COUNT] = ((float)x + 1.0f) / 4294967296.0f;
        }
    }
}
