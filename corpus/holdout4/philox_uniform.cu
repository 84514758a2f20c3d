// Uniform random floats from the Philox4x32-10 counter-based generator (Salmon et al., SC 2011), as
// PyTorch's uniform_ fills a tensor: each thread seeds its own subsequence (its global index) with
// the seed as key, and each pass of its grid-stride loop draws one 128-bit block (ten rounds of two
// 32x32 -> 64-bit multiplies, the key bumped by the Weyl constants) and stores it as a float4 of
// uniforms in (0, 1] (curand's x * 2^-32 + 2^-33).
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

#define PHILOX_W32_0 0x9E3779B9u
#define PHILOX_W32_1 0xBB67AE85u
#define PHILOX_M4x32_0 0xD2511F53u
#define PHILOX_M4x32_1 0xCD9E8D57u
#define CURAND_2POW32_INV (2.3283064e-10f)

__device__ __forceinline__ uint4 philox_round(uint4 ctr, uint2 key)
{
    uint32_t hi0 = __umulhi(PHILOX_M4x32_0, ctr.x);
    uint32_t lo0 = PHILOX_M4x32_0 * ctr.x;
    uint32_t hi1 = __umulhi(PHILOX_M4x32_1, ctr.z);
    uint32_t lo1 = PHILOX_M4x32_1 * ctr.z;
    uint4 ret = {hi1 ^ ctr.y ^ key.x, lo1, hi0 ^ ctr.w ^ key.y, lo0};
    return ret;
}

__device__ __forceinline__ uint4 philox4x32_10(uint4 c, uint2 k)
{
#pragma unroll
    for (int r = 0; r < 9; r++) {
        c = philox_round(c, k);
        k.x += PHILOX_W32_0;
        k.y += PHILOX_W32_1;
    }
    return philox_round(c, k);
}

__device__ __forceinline__ float _curand_uniform(uint32_t x)
{
    return x * CURAND_2POW32_INV + (CURAND_2POW32_INV / 2.0f);
}

extern "C" __global__ void philox_uniform4(float4* __restrict__ out, int n4, uint64_t seed, uint64_t offset)
{
    const int idx = blockIdx.x * blockDim.x + threadIdx.x;
    const uint2 key = {(uint32_t)seed, (uint32_t)(seed >> 32)};
    uint64_t counter = offset;
    for (int i = idx; i < n4; i += blockDim.x * gridDim.x) {
        uint4 ctr = {(uint32_t)counter, (uint32_t)(counter >> 32), (uint32_t)idx, 0u};
        uint4 r = philox4x32_10(ctr, key);
        out[i] = make_float4(_curand_uniform(r.x), _curand_uniform(r.y), _curand_uniform(r.z), _curand_uniform(r.w));
        counter++;
    }
}
