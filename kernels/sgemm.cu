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
#define B1_BM 64
#define B1_BN 64
#define B1_BK 8
#define B1_TM 8
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

// Rungs 7 and 8: warp tiling. A block tile (BM x BN) is split into warp tiles (WM x WN); each
// warp computes its tile as WMITER x WNITER sub-tiles of (TM x TN) per thread, so a warp's
// shared reads are contiguous float4s and registers are reused across sub-tiles.
// 128 threads = 4 warps; BM = BN = 128, BK = 16, WM = WN = 64, TM = 8, TN = 4.
namespace wt {
constexpr int BM = 128, BN = 128, BK = 16, WM = 64, WN = 64, WNITER = 4, TM = 8, TN = 4, THREADS = 128;
constexpr int WMITER = (WM * WN) / (32 * TM * TN * WNITER);  // 2
constexpr int WSUBM = WM / WMITER, WSUBN = WN / WNITER;      // 32 x 16

// Copy one BK-wide panel of A (transposed into As[k][m]) and of B into shared memory.
__device__ __forceinline__ void load_tiles(int N, int K, const float* A, const float* B, float* As, float* Bs)
{
    const int ar = threadIdx.x / (BK / 4), ac = threadIdx.x % (BK / 4);
    constexpr int strideA = (THREADS * 4) / BK;
    for (int o = 0; o + strideA <= BM; o += strideA) {
        const float4 t = reinterpret_cast<const float4*>(&A[(ar + o) * K + ac * 4])[0];
        As[(ac * 4 + 0) * BM + ar + o] = t.x;
        As[(ac * 4 + 1) * BM + ar + o] = t.y;
        As[(ac * 4 + 2) * BM + ar + o] = t.z;
        As[(ac * 4 + 3) * BM + ar + o] = t.w;
    }
    const int br = threadIdx.x / (BN / 4), bc = threadIdx.x % (BN / 4);
    constexpr int strideB = THREADS / (BN / 4);
    for (int o = 0; o + strideB <= BK; o += strideB)
        reinterpret_cast<float4*>(&Bs[(br + o) * BN + bc * 4])[0] =
            reinterpret_cast<const float4*>(&B[(br + o) * N + bc * 4])[0];
}

// The warp's outer products over one shared panel.
__device__ __forceinline__ void compute(const float* As, const float* Bs, float* acc, int wrow, int wcol, int trow,
                                        int tcol)
{
    float rm[WMITER * TM], rn[WNITER * TN];
    for (int k = 0; k < BK; ++k) {
        for (int wm = 0; wm < WMITER; ++wm)
            for (int i = 0; i < TM; ++i) rm[wm * TM + i] = As[k * BM + wrow * WM + wm * WSUBM + trow * TM + i];
        for (int wn = 0; wn < WNITER; ++wn)
            for (int j = 0; j < TN; ++j) rn[wn * TN + j] = Bs[k * BN + wcol * WN + wn * WSUBN + tcol * TN + j];
        for (int wm = 0; wm < WMITER; ++wm)
            for (int wn = 0; wn < WNITER; ++wn)
                for (int i = 0; i < TM; ++i)
                    for (int j = 0; j < TN; ++j)
                        acc[(wm * TM + i) * (WNITER * TN) + wn * TN + j] += rm[wm * TM + i] * rn[wn * TN + j];
    }
}

__device__ __forceinline__ void store(int N, float alpha, float beta, float* C, const float* acc, int wrow, int wcol,
                                      int trow, int tcol)
{
    for (int wm = 0; wm < WMITER; ++wm)
        for (int wn = 0; wn < WNITER; ++wn) {
            float* c = C + (wrow * WM + wm * WSUBM) * N + wcol * WN + wn * WSUBN;
            for (int i = 0; i < TM; ++i) {
                float4* p = reinterpret_cast<float4*>(&c[(trow * TM + i) * N + tcol * TN]);
                float4 v = *p;
                const float* a = &acc[(wm * TM + i) * (WNITER * TN) + wn * TN];
                v.x = alpha * a[0] + beta * v.x;
                v.y = alpha * a[1] + beta * v.y;
                v.z = alpha * a[2] + beta * v.z;
                v.w = alpha * a[3] + beta * v.w;
                *p = v;
            }
        }
}
}  // namespace wt

extern "C" __global__ void __launch_bounds__(128) sgemm_warptiling(int M, int N, int K, float alpha, const float* A,
                                                                    const float* B, float beta, float* C)
{
    using namespace wt;
    __shared__ float As[BM * BK];
    __shared__ float Bs[BK * BN];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wrow = warp / (BN / WN), wcol = warp % (BN / WN);
    const int trow = lane / (WSUBN / TN), tcol = lane % (WSUBN / TN);
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    float acc[WMITER * TM * WNITER * TN] = {0.0f};
    for (int k0 = 0; k0 < K; k0 += BK) {
        load_tiles(N, K, A, B, As, Bs);
        __syncthreads();
        compute(As, Bs, acc, wrow, wcol, trow, tcol);
        A += BK;
        B += BK * N;
        __syncthreads();
    }
    store(N, alpha, beta, C, acc, wrow, wcol, trow, tcol);
}

// Rung 8: two shared buffers. While the warps compute on one panel, the next panel is already
// being written into the other, so one barrier per k step suffices and loads overlap math.
extern "C" __global__ void __launch_bounds__(128) sgemm_double_buffered(int M, int N, int K, float alpha,
                                                                         const float* A, const float* B, float beta,
                                                                         float* C)
{
    using namespace wt;
    __shared__ float As[2][BM * BK];
    __shared__ float Bs[2][BK * BN];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int wrow = warp / (BN / WN), wcol = warp % (BN / WN);
    const int trow = lane / (WSUBN / TN), tcol = lane % (WSUBN / TN);
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    C += blockIdx.y * BM * N + blockIdx.x * BN;
    float acc[WMITER * TM * WNITER * TN] = {0.0f};
    load_tiles(N, K, A, B, As[0], Bs[0]);
    __syncthreads();
    int cur = 0;
    for (int k0 = 0; k0 < K; k0 += BK) {
        if (k0 + BK < K) load_tiles(N, K, A + BK, B + BK * N, As[cur ^ 1], Bs[cur ^ 1]);
        compute(As[cur], Bs[cur], acc, wrow, wcol, trow, tcol);
        A += BK;
        B += BK * N;
        cur ^= 1;
        __syncthreads();
    }
    store(N, alpha, beta, C, acc, wrow, wcol, trow, tcol);
}

// Tensor cores: 8 warps (2 x 4), each owning a 64x32 piece of a 128x128 block tile as 4x2
// fragments of 16x16; k advances 8 at a time (TF32 m16n16k8), FP32 accumulate. Inputs are
// rounded to TF32 (10-bit mantissa), so expect ~1e-3 relative error against FP64.
extern "C" __global__ void __launch_bounds__(256) sgemm_tf32_wmma(int M, int N, int K, float alpha, const float* A,
                                                                   const float* B, float beta, float* C)
{
    using namespace nvcuda;
    constexpr int BM = 128, BN = 128, BK = 16, PAD = 8;
    __shared__ float As[BM][BK + PAD];
    __shared__ float Bs[BK][BN + PAD];
    const int warp = threadIdx.x / 32;
    const int wm = warp / 4, wn = warp % 4;  // warp tile: rows wm*64.., cols wn*32..
    A += blockIdx.y * BM * K;
    B += blockIdx.x * BN;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> acc[4][2];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j) wmma::fill_fragment(acc[i][j], 0.0f);
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = threadIdx.x; e < BM * BK / 4; e += 256) {  // 128 x 16 floats of A as float4
            const int r = e / (BK / 4), c = e % (BK / 4);
            *reinterpret_cast<float4*>(&As[r][c * 4]) = *reinterpret_cast<const float4*>(&A[r * K + k0 + c * 4]);
        }
        for (int e = threadIdx.x; e < BK * BN / 4; e += 256) {
            const int r = e / (BN / 4), c = e % (BN / 4);
            *reinterpret_cast<float4*>(&Bs[r][c * 4]) = *reinterpret_cast<const float4*>(&B[(k0 + r) * N + c * 4]);
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 8) {
            wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> a[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> b[2];
            for (int i = 0; i < 4; ++i) {
                wmma::load_matrix_sync(a[i], &As[wm * 64 + i * 16][kk], BK + PAD);
                for (int t = 0; t < a[i].num_elements; ++t) a[i].x[t] = wmma::__float_to_tf32(a[i].x[t]);
            }
            for (int j = 0; j < 2; ++j) {
                wmma::load_matrix_sync(b[j], &Bs[kk][wn * 32 + j * 16], BN + PAD);
                for (int t = 0; t < b[j].num_elements; ++t) b[j].x[t] = wmma::__float_to_tf32(b[j].x[t]);
            }
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 2; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j) {
            float* c = &C[(blockIdx.y * BM + wm * 64 + i * 16) * N + blockIdx.x * BN + wn * 32 + j * 16];
            wmma::fragment<wmma::accumulator, 16, 16, 8, float> old;
            wmma::load_matrix_sync(old, c, N, wmma::mem_row_major);
            for (int t = 0; t < old.num_elements; ++t) old.x[t] = alpha * acc[i][j].x[t] + beta * old.x[t];
            wmma::store_matrix_sync(c, old, N, wmma::mem_row_major);
        }
}
