// Batched Cholesky factorization of many small SPD matrices (32 x 32, double, column-major, lower),
// in the style of MAGMA's small-size batched dpotrf: one warp per matrix, four matrices per block,
// the matrix read into shared memory a column at a time (coalesced), then the right-looking
// factorization in shared memory, lane = row: the pivot's square root, the column scaled by it,
// and the trailing lower triangle updated column by column, the lanes above the diagonal idle,
// __syncwarp between the steps. The factor is written to its own array (MAGMA factors in place;
// out of place here so that repeated launches factor the same matrices), the strict upper
// triangle copied unchanged.
#define N 32
#define NTCOL 4

extern "C" __global__ void dpotrf_batched_smem(const double* __restrict__ dA_array, double* __restrict__ dL_array,
                                                int batch)
{
    __shared__ double sA[NTCOL][N][N];  // [matrix][column][row]
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int batchid = blockIdx.x * blockDim.y + ty;
    if (batchid >= batch) return;

    const double* dA = dA_array + (size_t)batchid * N * N;
    double* dL = dL_array + (size_t)batchid * N * N;
    double (*s)[N] = sA[ty];

#pragma unroll 4
    for (int j = 0; j < N; j++) s[j][tx] = dA[j * N + tx];
    __syncwarp();

    for (int k = 0; k < N; k++) {
        double rkk = sqrt(s[k][k]);
        __syncwarp();
        if (tx == k) s[k][k] = rkk;
        else if (tx > k) s[k][tx] /= rkk;
        __syncwarp();
        for (int j = k + 1; j < N; j++) {
            if (tx >= j) s[j][tx] -= s[k][tx] * s[k][j];
        }
        __syncwarp();
    }

#pragma unroll 4
    for (int j = 0; j < N; j++) dL[j * N + tx] = s[j][tx];
}
