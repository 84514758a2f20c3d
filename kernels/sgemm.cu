// SGEMM, row-major: C (M x N) = alpha * A (M x K) @ B (K x N) + beta * C.
// The optimization ladder, one lesson per rung. Tiled kernels need M, N, K to be multiples
// of their tile sizes (the catalog checks); the first three take any size.
#include <mma.h>

// Rung 0: threadIdx.x walks rows. Neighbouring lanes read A and write C a whole row apart
// (stride K and N floats): every lane touches its own 32-byte sector.
extern "C" __global__ void sgemm_uncoalesced(int M, int N, int K, float alpha, const float* A, const float* B,
                                             float beta, float* C)
{
    const int row = blockIdx.x * 32 + threadIdx.x;
    const int col = blockIdx.y * 32 + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = alpha * acc + beta * C[row * N + col];
    }
}

// Rung 1: swap the roles: threadIdx.x walks columns, so a warp reads 32 consecutive floats
// of B and writes 32 consecutive floats of C (4 sectors each), and A is one broadcast.
extern "C" __global__ void sgemm_naive(int M, int N, int K, float alpha, const float* A, const float* B,
                                       float beta, float* C)
{
    const int col = blockIdx.x * 32 + threadIdx.x;
    const int row = blockIdx.y * 32 + threadIdx.y;
    if (row < M && col < N) {
        float acc = 0.0f;
        for (int k = 0; k < K; ++k) acc += A[row * K + k] * B[k * N + col];
        C[row * N + col] = alpha * acc + beta * C[row * N + col];
    }
}

// Rung 2: 32x32 tiles of A and B staged in shared memory; each global element is read
// once per block instead of once per thread. Still one FMA per two shared loads.
extern "C" __global__ void sgemm_smem(int M, int N, int K, float alpha, const float* A, const float* B,
                                      float beta, float* C)
{
    __shared__ float As[32][32];
    __shared__ float Bs[32][32];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.y * 32 + ty, col = blockIdx.x * 32 + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        As[ty][tx] = (row < M && k0 + tx < K) ? A[row * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = (k0 + ty < K && col < N) ? B[(k0 + ty) * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < 32; ++k) acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

// Rung 3: each thread computes a column of TM results, reusing one B value from a register
// TM times. Block tile 64x64, BK = 8, 512 threads.
#ifndef B1_BM
#define B1_BM 64
#endif
#ifndef B1_BN
#define B1_BN 64
#endif
#ifndef B1_BK
#define B1_BK 8
#endif
#ifndef B1_TM
#define B1_TM 8
#endif
extern "C" __global__ void sgemm_1d_blocktiling(int M, int N, int K, float alpha, const float* A, const float* B,
                                                float beta, float* C)
{
    __shared__ float As[B1_BM * B1_BK];
    __shared__ float Bs[B1_BK * B1_BN];
    const int tcol = threadIdx.x % B1_BN, trow = threadIdx.x / B1_BN;
    A += blockIdx.y * B1_BM * K;
    B += blockIdx.x * B1_BN;
    C += blockIdx.y * B1_BM * N + blockIdx.x * B1_BN;
    const int ar = threadIdx.x / B1_BK, ac = threadIdx.x % B1_BK;
    const int br = threadIdx.x / B1_BN, bc = threadIdx.x % B1_BN;
    float acc[B1_TM] = {0.0f};
    for (int k0 = 0; k0 < K; k0 += B1_BK) {
        As[ar * B1_BK + ac] = A[ar * K + ac];
        Bs[br * B1_BN + bc] = B[br * N + bc];
        __syncthreads();
        A += B1_BK;
        B += B1_BK * N;
        for (int k = 0; k < B1_BK; ++k) {
            const float b = Bs[k * B1_BN + tcol];
            for (int i = 0; i < B1_TM; ++i) acc[i] += As[(trow * B1_TM + i) * B1_BK + k] * b;
        }
        __syncthreads();
    }
    for (int i = 0; i < B1_TM; ++i) {
        float* c = &C[(trow * B1_TM + i) * N + tcol];
        *c = alpha * acc[i] + beta * *c;
    }
}

// Rungs 4 and 5: each thread computes a TM x TN block of C from TM + TN register values per
// k step (an outer product). Threads per block = (BM / TM) * (BN / TN).
template <int BM, int BN, int BK, int TM, int TN>
__device__ void sgemm_2d(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C)
{
    constexpr int THREADS = (BM / TM) * (BN / TN);
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int tcol = threadIdx.x % (BN / TN), trow = threadIdx.x / (BN / TN);
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    const int ar = threadIdx.x / BK, ac = threadIdx.x % BK;
    const int br = threadIdx.x / BN, bc = threadIdx.x % BN;
    constexpr int strideA = THREADS / BK, strideB = THREADS / BN;
    float acc[TM * TN] = {0.0f};
    float rm[TM], rn[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int o = 0; o < BM; o += strideA) As[(ar + o) * BK + ac] = A[(ar + o) * K + ac];
        for (int o = 0; o < BK; o += strideB) Bs[(br + o) * BN + bc] = B[(br + o) * N + bc];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int k = 0; k < BK; ++k) {
            for (int i = 0; i < TM; ++i) rm[i] = As[(trow * TM + i) * BK + k];
            for (int j = 0; j < TN; ++j) rn[j] = Bs[k * BN + tcol * TN + j];
            for (int i = 0; i < TM; ++i)
                for (int j = 0; j < TN; ++j) acc[i * TN + j] += rm[i] * rn[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; ++j) {
            float* c = &C[(trow * TM + i) * N + tcol * TN + j];
            *c = alpha * acc[i * TN + j] + beta * *c;
        }
}

extern "C" __global__ void __launch_bounds__(256) sgemm_2d_blocktiling(int M, int N, int K, float alpha,
                                                                        const float* A, const float* B, float beta,
                                                                        float* C)
{
    sgemm_2d<128, 128, 8, 8, 8>(M, N, K, alpha, A, B, beta, C);
}

// A 64x64 tile with 4x4 per thread: less reuse per register, but 4x the blocks (more waves,
// a smaller tail on 132 SMs) and fewer registers per thread (more resident warps).
extern "C" __global__ void __launch_bounds__(256) sgemm_2d_blocktiling_small(int M, int N, int K, float alpha,
                                                                              const float* A, const float* B,
                                                                              float beta, float* C)
{
    sgemm_2d<64, 64, 8, 4, 4>(M, N, K, alpha, A, B, beta, C);
}

// Rung 6: float4 global loads (one 16-byte request per lane), A stored transposed in shared
// memory so the per-thread column of A is a float4 read too. BM = BN = 128, BK = 8, 8x8.
extern "C" __global__ void __launch_bounds__(256) sgemm_vectorized(int M, int N, int K, float alpha,
                                                                    const float* A, const float* B, float beta,
                                                                    float* C)
{
    constexpr int BM = 128, BN = 128, BK = 8, TM = 8, TN = 8;
    __shared__ float As[BK * BM];  // transposed: As[k][m]
    __shared__ float Bs[BK * BN];
    const int tcol = threadIdx.x % (BN / TN), trow = threadIdx.x / (BN / TN);
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    const int ar = threadIdx.x / (BK / 4), ac = threadIdx.x % (BK / 4);
    const int br = threadIdx.x / (BN / 4), bc = threadIdx.x % (BN / 4);
    float acc[TM * TN] = {0.0f};
    float rm[TM], rn[TN];
    for (int k0 = 0; k0 < K; k0 += BK) {
        const float4 a = reinterpret_cast<const float4*>(&A[ar * K + ac * 4])[0];
        As[(ac * 4 + 0) * BM + ar] = a.x;
        As[(ac * 4 + 1) * BM + ar] = a.y;
        As[(ac * 4 + 2) * BM + ar] = a.z;
        As[(ac * 4 + 3) * BM + ar] = a.w;
        reinterpret_cast<float4*>(&Bs[br * BN + bc * 4])[0] = reinterpret_cast<const float4*>(&B[br * N + bc * 4])[0];
        __syncthreads();
        A += BK;
        B += BK * N;
        for (int k = 0; k < BK; ++k) {
            for (int i = 0; i < TM; i += 4)
                *reinterpret_cast<float4*>(&rm[i]) = *reinterpret_cast<const float4*>(&As[k * BM + trow * TM + i]);
            for (int j = 0; j < TN; j += 4)
                *reinterpret_cast<float4*>(&rn[j]) = *reinterpret_cast<const float4*>(&Bs[k * BN + tcol * TN + j]);
            for (int i = 0; i < TM; ++i)
                for (int j = 0; j < TN; ++j) acc[i * TN + j] += rm[i] * rn[j];
        }
        __syncthreads();
    }
    for (int i = 0; i < TM; ++i)
        for (int j = 0; j < TN; j += 4) {
            float4* c = reinterpret_cast<float4*>(&C[(trow * TM + i) * N + tcol * TN + j]);
            float4 v = *c;
            v.x = alpha * acc[i * TN + j + 0] + beta * v.x;
            v.y = alpha * acc[i * TN + j + 1] + beta * v.y;
            v.z = alpha * acc[i * TN + j + 2] + beta * v.z;
            v.w = alpha * acc[i * TN + j + 3] + beta * v.w;
            *c = v;
        }
}

// Rungs 7 and 8: warp tiling. The block tile (BM x BN) is split into warp tiles (WM x WN);
// a warp walks its tile as WMITER x WNITER sub-tiles, and in each sub-tile lane l owns a 4x4
// piece (the lanes form a (WSUBM/4) x (WSUBN/4) grid). Per k step a thread reads WMITER
// float4s of A and WNITER float4s of B from shared memory and does 16*WMITER*WNITER FMAs.
// Lanes next to each other read neighbouring float4s of B (one wavefront per quarter warp)
// and the same float4 of A (a broadcast). A is stored transposed (As[k][m]) with a pitch of
// BM + 4 floats so the transposing stores of a warp land in distinct banks.
// Needs M % BM == N % BN == K % BK == 0.
template <int BM, int BN, int BK, int WM, int WN, int WMITER, int WNITER, int THREADS>
struct WarpTiling {
    static constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER;
    static constexpr int LCOLS = WSUBN / 4;                        // lanes across a sub-tile
    static constexpr int APITCH = BM + 4;                          // As row pitch (floats)
    static constexpr int A_LOADS = BM * BK / 4 / THREADS;          // float4 loads per thread per panel
    static constexpr int B_LOADS = BK * BN / 4 / THREADS;
    static constexpr int A_SMEM = BK * APITCH, B_SMEM = BK * BN;   // floats per panel
    static_assert((WSUBM / 4) * (WSUBN / 4) == 32, "a sub-tile must be 32 lanes of 4x4");
    static_assert((BM / WM) * (BN / WN) * 32 == THREADS, "one warp per warp tile");
    static_assert(A_LOADS >= 1 && B_LOADS >= 1 && BM * BK % (4 * THREADS) == 0 && BK * BN % (4 * THREADS) == 0,
                  "panels must split evenly into float4s over the threads");

    // Global -> registers: the next panel of A (BM x BK) and B (BK x BN), as float4s.
    static __device__ __forceinline__ void load(int N, int K, const float* A, const float* B, float4* ra, float4* rb)
    {
#pragma unroll
        for (int i = 0; i < A_LOADS; ++i) {
            const int e = threadIdx.x + i * THREADS, r = e / (BK / 4), c = e % (BK / 4);
            ra[i] = *reinterpret_cast<const float4*>(&A[r * K + c * 4]);
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; ++i) {
            const int e = threadIdx.x + i * THREADS, r = e / (BN / 4), c = e % (BN / 4);
            rb[i] = *reinterpret_cast<const float4*>(&B[r * N + c * 4]);
        }
    }

    // Registers -> shared memory: A transposed into As[k][m], B as it is.
    static __device__ __forceinline__ void store(const float4* ra, const float4* rb, float* As, float* Bs)
    {
#pragma unroll
        for (int i = 0; i < A_LOADS; ++i) {
            const int e = threadIdx.x + i * THREADS, r = e / (BK / 4), c = e % (BK / 4);
            As[(c * 4 + 0) * APITCH + r] = ra[i].x;
            As[(c * 4 + 1) * APITCH + r] = ra[i].y;
            As[(c * 4 + 2) * APITCH + r] = ra[i].z;
            As[(c * 4 + 3) * APITCH + r] = ra[i].w;
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; ++i) {
            const int e = threadIdx.x + i * THREADS, r = e / (BN / 4), c = e % (BN / 4);
            *reinterpret_cast<float4*>(&Bs[r * BN + c * 4]) = rb[i];
        }
    }

    // One panel's outer products. `a0` and `b0` point at this thread's first float4 in
    // row k = 0 of As and Bs.
    static __device__ __forceinline__ void compute(const float* As, const float* Bs, float (*acc)[WNITER * 4])
    {
        const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
        const int wr = warp / (BN / WN), wc = warp % (BN / WN);
        const float* a0 = As + wr * WM + (lane / LCOLS) * 4;
        const float* b0 = Bs + wc * WN + (lane % LCOLS) * 4;
#pragma unroll
        for (int k = 0; k < BK; ++k) {
            float4 ra[WMITER], rb[WNITER];
#pragma unroll
            for (int m = 0; m < WMITER; ++m) ra[m] = *reinterpret_cast<const float4*>(&a0[k * APITCH + m * WSUBM]);
#pragma unroll
            for (int n = 0; n < WNITER; ++n) rb[n] = *reinterpret_cast<const float4*>(&b0[k * BN + n * WSUBN]);
#pragma unroll
            for (int m = 0; m < WMITER; ++m) {
                const float a[4] = {ra[m].x, ra[m].y, ra[m].z, ra[m].w};
#pragma unroll
                for (int n = 0; n < WNITER; ++n) {
                    const float b[4] = {rb[n].x, rb[n].y, rb[n].z, rb[n].w};
#pragma unroll
                    for (int i = 0; i < 4; ++i)
#pragma unroll
                        for (int j = 0; j < 4; ++j) acc[m * 4 + i][n * 4 + j] += a[i] * b[j];
                }
            }
        }
    }

    // C = alpha * acc + beta * C, a float4 of C per (sub-tile, row).
    static __device__ __forceinline__ void epilogue(int N, float alpha, float beta, float* C,
                                                    const float (*acc)[WNITER * 4])
    {
        const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
        const int wr = warp / (BN / WN), wc = warp % (BN / WN);
        float* c0 = C + (wr * WM + (lane / LCOLS) * 4) * N + wc * WN + (lane % LCOLS) * 4;
#pragma unroll
        for (int m = 0; m < WMITER; ++m)
#pragma unroll
            for (int i = 0; i < 4; ++i)
#pragma unroll
                for (int n = 0; n < WNITER; ++n) {
                    float4* p = reinterpret_cast<float4*>(&c0[(m * WSUBM + i) * N + n * WSUBN]);
                    float4 v = *p;
                    v.x = alpha * acc[m * 4 + i][n * 4 + 0] + beta * v.x;
                    v.y = alpha * acc[m * 4 + i][n * 4 + 1] + beta * v.y;
                    v.z = alpha * acc[m * 4 + i][n * 4 + 2] + beta * v.z;
                    v.w = alpha * acc[m * 4 + i][n * 4 + 3] + beta * v.w;
                    *p = v;
                }
    }
};

// Rung 7: warp tiling with one shared buffer: load a panel, barrier, compute, barrier.
// Defaults: 128 x 128 block tile, BK = 8, 8 warps of 32 x 64 (2 x 2 sub-tiles of 16 x 32),
// 8 x 8 results per thread.
#ifndef WT_BM
#define WT_BM 128
#endif
#ifndef WT_BN
#define WT_BN 128
#endif
#ifndef WT_BK
#define WT_BK 8
#endif
#ifndef WT_WM
#define WT_WM 32
#endif
#ifndef WT_WN
#define WT_WN 64
#endif
#ifndef WT_WMITER
#define WT_WMITER 2
#endif
#ifndef WT_WNITER
#define WT_WNITER 2
#endif
#ifndef WT_THREADS
#define WT_THREADS 256
#endif
#ifndef WT_MINBLOCKS
#define WT_MINBLOCKS 2
#endif
extern "C" __global__ void __launch_bounds__(WT_THREADS, WT_MINBLOCKS)
sgemm_warptiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C)
{
    using T = WarpTiling<WT_BM, WT_BN, WT_BK, WT_WM, WT_WN, WT_WMITER, WT_WNITER, WT_THREADS>;
    __shared__ __align__(16) float As[T::A_SMEM];
    __shared__ __align__(16) float Bs[T::B_SMEM];
    A += blockIdx.y * WT_BM * K;
    B += blockIdx.x * WT_BN;
    C += blockIdx.y * WT_BM * N + blockIdx.x * WT_BN;
    float acc[WT_WMITER * 4][WT_WNITER * 4] = {};
    float4 ra[T::A_LOADS], rb[T::B_LOADS];
    for (int k0 = 0; k0 < K; k0 += WT_BK) {
        T::load(N, K, A + k0, B + k0 * N, ra, rb);
        T::store(ra, rb, As, Bs);
        __syncthreads();
        T::compute(As, Bs, acc);
        __syncthreads();
    }
    T::epilogue(N, alpha, beta, C, acc);
}

// Rung 8: the same warp tiles, software-pipelined. The next panel is fetched from global
// memory into registers before this panel's math starts, and written to the second shared
// buffer after it: global latency hides behind the FMAs, and one barrier per panel suffices
// (a buffer is only rewritten after the barrier that ends the last reads of it).
#ifndef DB_BM
#define DB_BM 128
#endif
#ifndef DB_BN
#define DB_BN 128
#endif
#ifndef DB_BK
#define DB_BK 8
#endif
#ifndef DB_WM
#define DB_WM 32
#endif
#ifndef DB_WN
#define DB_WN 64
#endif
#ifndef DB_WMITER
#define DB_WMITER 2
#endif
#ifndef DB_WNITER
#define DB_WNITER 2
#endif
#ifndef DB_THREADS
#define DB_THREADS 256
#endif
#ifndef DB_MINBLOCKS
#define DB_MINBLOCKS 2
#endif
extern "C" __global__ void __launch_bounds__(DB_THREADS, DB_MINBLOCKS)
sgemm_double_buffered(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C)
{
    using T = WarpTiling<DB_BM, DB_BN, DB_BK, DB_WM, DB_WN, DB_WMITER, DB_WNITER, DB_THREADS>;
    __shared__ __align__(16) float As[2 * T::A_SMEM];
    __shared__ __align__(16) float Bs[2 * T::B_SMEM];
    A += blockIdx.y * DB_BM * K;
    B += blockIdx.x * DB_BN;
    C += blockIdx.y * DB_BM * N + blockIdx.x * DB_BN;
    float acc[DB_WMITER * 4][DB_WNITER * 4] = {};
    float4 ra[T::A_LOADS], rb[T::B_LOADS];
    T::load(N, K, A, B, ra, rb);
    T::store(ra, rb, As, Bs);
    __syncthreads();
    int cur = 0;
    for (int k0 = 0; k0 < K; k0 += DB_BK) {
        const bool more = k0 + DB_BK < K;
        if (more) T::load(N, K, A + k0 + DB_BK, B + (k0 + DB_BK) * N, ra, rb);
        T::compute(As + cur * T::A_SMEM, Bs + cur * T::B_SMEM, acc);
        if (more) T::store(ra, rb, As + (cur ^ 1) * T::A_SMEM, Bs + (cur ^ 1) * T::B_SMEM);
        __syncthreads();
        cur ^= 1;
    }
    T::epilogue(N, alpha, beta, C, acc);
}

// Rung 9, tensor cores: 4 warps, each TC_WM x TC_WN = 64 x 64 as 4 x 4 fragments of 16x16, k advancing 8 at a
// time (TF32 m16n16k8), FP32 accumulate. Operands are rounded to TF32 (10-bit mantissa) once,
// when they are written to shared memory, so expect ~1e-3 relative error against FP64.
// Pipelined like rung 8 (registers, then the other of two shared buffers). Shared pitches:
// BK + 4 for A and BN + 8 for B put the rows of each 8-row fragment piece on distinct banks.
#ifndef TC_BM
#define TC_BM 128
#endif
#ifndef TC_BN
#define TC_BN 128
#endif
#ifndef TC_BK
#define TC_BK 16
#endif
#ifndef TC_WM
#define TC_WM 64
#endif
#ifndef TC_WN
#define TC_WN 64
#endif
#ifndef TC_THREADS
#define TC_THREADS 128
#endif
#ifndef TC_MINBLOCKS
#define TC_MINBLOCKS 2
#endif
extern "C" __global__ void __launch_bounds__(TC_THREADS, TC_MINBLOCKS)
sgemm_tf32_wmma(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C)
{
    using namespace nvcuda;
    constexpr int AP = TC_BK + 4, BP = TC_BN + 8;
    constexpr int A_SMEM = TC_BM * AP, B_SMEM = TC_BK * BP;
    constexpr int FM = TC_WM / 16, FN = TC_WN / 16;
    constexpr int A_LOADS = TC_BM * TC_BK / 4 / TC_THREADS, B_LOADS = TC_BK * TC_BN / 4 / TC_THREADS;
    static_assert((TC_BM / TC_WM) * (TC_BN / TC_WN) * 32 == TC_THREADS, "one warp per warp tile");
    static_assert(A_LOADS >= 1 && B_LOADS >= 1, "panels must split evenly into float4s over the threads");
    __shared__ __align__(32) float As[2 * A_SMEM];
    __shared__ __align__(32) float Bs[2 * B_SMEM];
    const int warp = threadIdx.x / 32;
    const int wr = warp / (TC_BN / TC_WN), wc = warp % (TC_BN / TC_WN);
    A += blockIdx.y * TC_BM * K;
    B += blockIdx.x * TC_BN;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    float4 ra[A_LOADS], rb[B_LOADS];
    auto load = [&](int k0) {
#pragma unroll
        for (int i = 0; i < A_LOADS; ++i) {
            const int e = threadIdx.x + i * TC_THREADS, r = e / (TC_BK / 4), c = e % (TC_BK / 4);
            ra[i] = *reinterpret_cast<const float4*>(&A[r * K + k0 + c * 4]);
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; ++i) {
            const int e = threadIdx.x + i * TC_THREADS, r = e / (TC_BN / 4), c = e % (TC_BN / 4);
            rb[i] = *reinterpret_cast<const float4*>(&B[(k0 + r) * N + c * 4]);
        }
    };
    auto store = [&](float* as, float* bs) {
#pragma unroll
        for (int i = 0; i < A_LOADS; ++i) {
            const int e = threadIdx.x + i * TC_THREADS, r = e / (TC_BK / 4), c = e % (TC_BK / 4);
            *reinterpret_cast<float4*>(&as[r * AP + c * 4]) =
                make_float4(wmma::__float_to_tf32(ra[i].x), wmma::__float_to_tf32(ra[i].y),
                            wmma::__float_to_tf32(ra[i].z), wmma::__float_to_tf32(ra[i].w));
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; ++i) {
            const int e = threadIdx.x + i * TC_THREADS, r = e / (TC_BN / 4), c = e % (TC_BN / 4);
            *reinterpret_cast<float4*>(&bs[r * BP + c * 4]) =
                make_float4(wmma::__float_to_tf32(rb[i].x), wmma::__float_to_tf32(rb[i].y),
                            wmma::__float_to_tf32(rb[i].z), wmma::__float_to_tf32(rb[i].w));
        }
    };
    load(0);
    store(As, Bs);
    __syncthreads();
    int cur = 0;
    for (int k0 = 0; k0 < K; k0 += TC_BK) {
        const bool more = k0 + TC_BK < K;
        if (more) load(k0 + TC_BK);
        const float* as = As + cur * A_SMEM + wr * TC_WM * AP;
        const float* bs = Bs + cur * B_SMEM + wc * TC_WN;
#pragma unroll
        for (int kk = 0; kk < TC_BK; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a[FM];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b[FN];
#pragma unroll
            for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(a[i], as + i * 16 * AP + kk, AP);
#pragma unroll
            for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(b[j], bs + kk * BP + j * 16, BP);
#pragma unroll
            for (int i = 0; i < FM; ++i)
#pragma unroll
                for (int j = 0; j < FN; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        if (more) store(As + (cur ^ 1) * A_SMEM, Bs + (cur ^ 1) * B_SMEM);
        __syncthreads();
        cur ^= 1;
    }
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) {
            float* c = &C[(blockIdx.y * TC_BM + wr * TC_WM + i * 16) * N + blockIdx.x * TC_BN + wc * TC_WN + j * 16];
            wmma::fragment<wmma::accumulator, 16, 16, 8, float> old;
            wmma::load_matrix_sync(old, c, N, wmma::mem_row_major);
#pragma unroll
            for (int t = 0; t < old.num_elements; ++t) old.x[t] = alpha * acc[i][j].x[t] + beta * old.x[t];
            wmma::store_matrix_sync(c, old, N, wmma::mem_row_major);
        }
}
