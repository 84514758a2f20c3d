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
extern "C" __global__ void dgemm_smem(int M, int N, int K, double alpha, const double* A, const double* B,
                                      double beta, double* C)
{
    __shared__ double As[DT][DT];
    __shared__ double Bt[DT][DT];
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

// The same kernel with one padding double per row of Bt (pitch 33 doubles = 66 words): lane l
// of a half-warp starts at bank 2l mod 32, so the 16 lanes cover all 32 banks once.
extern "C" __global__ void dgemm_smem_conflict_free(int M, int N, int K, double alpha, const double* A,
                                                    const double* B, double beta, double* C)
{
    __shared__ double As[DT][DT];
    __shared__ double Bt[DT][DT + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
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

// FP64 tensor cores (DMMA, 8x8x4): 4 warps (2 x 2) each own 32x32 of a 64x64 block tile as
// 4x4 fragments of 8x8; shared tiles padded by 4 doubles against bank conflicts.
extern "C" __global__ void __launch_bounds__(128) dgemm_wmma(int M, int N, int K, double alpha, const double* A,
                                                             const double* B, double beta, double* C)
{
    using namespace nvcuda;
    constexpr int BM = 64, BN = 64, BK = 16, PAD = 4;
    __shared__ double As[BM][BK + PAD];
    __shared__ double Bs[BK][BN + PAD];
    const int warp = threadIdx.x / 32;
    const int wm = warp / 2, wn = warp % 2;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc[4][4];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) wmma::fill_fragment(acc[i][j], 0.0);
    for (int k0 = 0; k0 < K; k0 += BK) {
        for (int e = threadIdx.x; e < BM * BK / 2; e += 128) {
            const int r = e / (BK / 2), c = e % (BK / 2);
            *reinterpret_cast<double2*>(&As[r][c * 2]) =
                *reinterpret_cast<const double2*>(&A[(blockIdx.y * BM + r) * K + k0 + c * 2]);
        }
        for (int e = threadIdx.x; e < BK * BN / 2; e += 128) {
            const int r = e / (BN / 2), c = e % (BN / 2);
            *reinterpret_cast<double2*>(&Bs[r][c * 2]) =
                *reinterpret_cast<const double2*>(&B[(k0 + r) * N + blockIdx.x * BN + c * 2]);
        }
        __syncthreads();
        for (int kk = 0; kk < BK; kk += 4) {
            wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> a[4];
            wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::row_major> b[4];
            for (int i = 0; i < 4; ++i) wmma::load_matrix_sync(a[i], &As[wm * 32 + i * 8][kk], BK + PAD);
            for (int j = 0; j < 4; ++j) wmma::load_matrix_sync(b[j], &Bs[kk][wn * 32 + j * 8], BN + PAD);
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 4; ++j) wmma::mma_sync(acc[i][j], a[i], b[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            double* c = &C[(blockIdx.y * BM + wm * 32 + i * 8) * N + blockIdx.x * BN + wn * 32 + j * 8];
            wmma::fragment<wmma::accumulator, 8, 8, 4, double> old;
            wmma::load_matrix_sync(old, c, N, wmma::mem_row_major);
            for (int t = 0; t < old.num_elements; ++t) old.x[t] = alpha * acc[i][j].x[t] + beta * old.x[t];
            wmma::store_matrix_sync(c, old, N, wmma::mem_row_major);
        }
}
