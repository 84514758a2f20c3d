// DGEMM, row-major: C = alpha * A @ B + beta * C in double precision (the FP64 lab).
// Tiled kernels need M, N, K to be multiples of their tiles (the catalog checks).
#include <mma.h>

// Register blocking with packed operands: each thread owns a 4x4 block of C and streams
// A and B from global memory two doubles at a time (double2: 16 bytes per lane), keeping
// 16 accumulators and 8 operands in registers. No shared memory: the L1 cache does the reuse.
extern "C" __global__ void __launch_bounds__(256) dgemm_packed(int M, int N, int K, double alpha, const double* A,
                                                                const double* B, double beta, double* C)
{
    const int col0 = (blockIdx.x * 16 + threadIdx.x % 16) * 4;
    const int row0 = (blockIdx.y * 16 + threadIdx.x / 16) * 4;
    double acc[4][4] = {};
    for (int k = 0; k < K; k += 2) {
        double2 a[4], b[2][2];
        for (int i = 0; i < 4; ++i) a[i] = *reinterpret_cast<const double2*>(&A[(row0 + i) * K + k]);
        for (int kk = 0; kk < 2; ++kk)
            for (int j = 0; j < 2; ++j) b[kk][j] = *reinterpret_cast<const double2*>(&B[(k + kk) * N + col0 + 2 * j]);
        for (int i = 0; i < 4; ++i) {
            acc[i][0] += a[i].x * b[0][0].x + a[i].y * b[1][0].x;
            acc[i][1] += a[i].x * b[0][0].y + a[i].y * b[1][0].y;
            acc[i][2] += a[i].x * b[0][1].x + a[i].y * b[1][1].x;
            acc[i][3] += a[i].x * b[0][1].y + a[i].y * b[1][1].y;
        }
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            double* c = &C[(row0 + i) * N + col0 + j];
            *c = alpha * acc[i][j] + beta * *c;
        }
}

// Shared tiles of 32x32 doubles, B stored transposed (Bt[n][k]) so the inner loop reads
// Bt[threadIdx.x][k]: a column walk with a pitch of 32 doubles = 64 words. Every lane of a
// half-warp lands in the same two banks: a 16-way conflict on each 8-byte read.
#define DT 32
template <int PAD>  // padding doubles per row of Bt
__device__ void dgemm_tiles(int M, int N, int K, double alpha, const double* A, const double* B, double beta,
                            double* C)
{
    __shared__ double As[DT][DT];
    __shared__ double Bt[DT][DT + PAD];
    const int tx = threadIdx.x, ty = threadIdx.y;  // block 32 x 8: each thread 4 rows
    const int col = blockIdx.x * DT + tx;
    double acc[4] = {};
    for (int k0 = 0; k0 < K; k0 += DT) {
        for (int r = ty; r < DT; r += 8) {
            As[r][tx] = A[(blockIdx.y * DT + r) * K + k0 + tx];
            Bt[tx][r] = B[(k0 + r) * N + col];
        }
        __syncthreads();
        for (int k = 0; k < DT; ++k) {
            const double b = Bt[tx][k];
            for (int i = 0; i < 4; ++i) acc[i] += As[ty + 8 * i][k] * b;
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i) {
        double* c = &C[(blockIdx.y * DT + ty + 8 * i) * N + col];
        *c = alpha * acc[i] + beta * *c;
    }
}

extern "C" __global__ void dgemm_smem(int M, int N, int K, double alpha, const double* A, const double* B,
                                      double beta, double* C)
{
    dgemm_tiles<0>(M, N, K, alpha, A, B, beta, C);
}

// The same kernel with one padding double per row of Bt (pitch 33 doubles = 66 words): lane l
// of a half-warp starts at bank 2l mod 32, so the 16 lanes cover all 32 banks once.
extern "C" __global__ void dgemm_smem_conflict_free(int M, int N, int K, double alpha, const double* A,
                                                    const double* B, double beta, double* C)
{
    dgemm_tiles<1>(M, N, K, alpha, A, B, beta, C);
}

// FP64 tensor cores (DMMA, 8x8x4) through wmma: 2 warps per 64x64 block tile, each 32 x 64 as
// 4 x 8 fragments of 8x8 (measured on the H100 against 64x64/4 warps and 128x128/8 warps: best),
// k advancing 4 at a time, FP64 all the way (results as exact as FFMA's). Pipelined like the
// SGEMM ladder's last rungs: the next panel goes global -> registers while this one feeds
// the tensor cores, then into the second shared buffer; one barrier per panel. Shared
// pitches of BK + 4 and BN + 4 doubles keep each half-warp's 8-byte fragment reads on
// distinct banks. Needs M % BM == N % BN == K % BK == 0.
#ifndef DC_BM
#define DC_BM 64
#endif
#ifndef DC_BN
#define DC_BN 64
#endif
#ifndef DC_BK
#define DC_BK 16
#endif
#ifndef DC_WM
#define DC_WM 32
#endif
#ifndef DC_WN
#define DC_WN 64
#endif
#ifndef DC_THREADS
#define DC_THREADS 64
#endif
#ifndef DC_MINBLOCKS
#define DC_MINBLOCKS 4
#endif
extern "C" __global__ void __launch_bounds__(DC_THREADS, DC_MINBLOCKS)
dgemm_wmma(int M, int N, int K, double alpha, const double* A, const double* B, double beta, double* C)
{
    using namespace nvcuda;
    constexpr int AP = DC_BK + 4, BP = DC_BN + 4;
    constexpr int A_SMEM = DC_BM * AP, B_SMEM = DC_BK * BP;
    constexpr int FM = DC_WM / 8, FN = DC_WN / 8;
    constexpr int A_LOADS = DC_BM * DC_BK / 2 / DC_THREADS, B_LOADS = DC_BK * DC_BN / 2 / DC_THREADS;
    static_assert((DC_BM / DC_WM) * (DC_BN / DC_WN) * 32 == DC_THREADS, "one warp per warp tile");
    static_assert(A_LOADS >= 1 && B_LOADS >= 1, "panels must split evenly into double2s over the threads");
    __shared__ __align__(32) double As[2 * A_SMEM];
    __shared__ __align__(32) double Bs[2 * B_SMEM];
    const int warp = threadIdx.x / 32;
    const int wr = warp / (DC_BN / DC_WN), wc = warp % (DC_BN / DC_WN);
    A += blockIdx.y * DC_BM * K;
    B += blockIdx.x * DC_BN;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc[FM][FN];
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
        for (int j = 0; j < FN; ++j) wmma::fill_fragment(acc[i][j], 0.0);
    double2 ra[A_LOADS], rb[B_LOADS];
    auto load = [&](int k0) {
#pragma unroll
        for (int i = 0; i < A_LOADS; ++i) {
            const int e = threadIdx.x + i * DC_THREADS, r = e / (DC_BK / 2), c = e % (DC_BK / 2);
            ra[i] = *reinterpret_cast<const double2*>(&A[r * K + k0 + c * 2]);
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; ++i) {
            const int e = threadIdx.x + i * DC_THREADS, r = e / (DC_BN / 2), c = e % (DC_BN / 2);
            rb[i] = *reinterpret_cast<const double2*>(&B[(k0 + r) * N + c * 2]);
        }
    };
    auto store = [&](double* as, double* bs) {
#pragma unroll
        for (int i = 0; i < A_LOADS; ++i) {
            const int e = threadIdx.x + i * DC_THREADS, r = e / (DC_BK / 2), c = e % (DC_BK / 2);
            *reinterpret_cast<double2*>(&as[r * AP + c * 2]) = ra[i];
        }
#pragma unroll
        for (int i = 0; i < B_LOADS; ++i) {
            const int e = threadIdx.x + i * DC_THREADS, r = e / (DC_BN / 2), c = e % (DC_BN / 2);
            *reinterpret_cast<double2*>(&bs[r * BP + c * 2]) = rb[i];
        }
    };
    load(0);
    store(As, Bs);
    __syncthreads();
    int cur = 0;
    for (int k0 = 0; k0 < K; k0 += DC_BK) {
        const bool more = k0 + DC_BK < K;
        if (more) load(k0 + DC_BK);
        const double* as = As + cur * A_SMEM + wr * DC_WM * AP;
        const double* bs = Bs + cur * B_SMEM + wc * DC_WN;
#pragma unroll
        for (int kk = 0; kk < DC_BK; kk += 4) {
            wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> a[FM];
            wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> b[FN];
#pragma unroll
            for (int i = 0; i < FM; ++i) wmma::load_matrix_sync(a[i], as + i * 8 * AP + kk, AP);
#pragma unroll
            for (int j = 0; j < FN; ++j) wmma::load_matrix_sync(b[j], bs + kk * BP + j * 8, BP);
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
            double* c = &C[(blockIdx.y * DC_BM + wr * DC_WM + i * 8) * N + blockIdx.x * DC_BN + wc * DC_WN + j * 8];
            wmma::fragment<wmma::accumulator, 8, 8, 4, double> old;
            wmma::load_matrix_sync(old, c, N, wmma::mem_row_major);
#pragma unroll
            for (int t = 0; t < old.num_elements; ++t) old.x[t] = alpha * acc[i][j].x[t] + beta * old.x[t];
            wmma::store_matrix_sync(c, old, N, wmma::mem_row_major);
        }
}
