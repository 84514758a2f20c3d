// Sparse x dense matrix product C = A B (A in CSR, B and C row-major with 64 columns), the
// aggregation of a graph convolution, as GE-SpMM (Huang et al., SC'20) writes it: one warp per row
// of A; the row's column indices and values staged 32 at a time in shared memory by one coalesced
// load per lane (coalesced row caching), then every lane walks the staged nonzeros gathering two
// columns of the selected row of B (lane and lane + 32: coarsening by 2), so each gather of a B row
// is two coalesced 128-byte loads.
#define WARPS_PER_BLOCK 8
#define FEAT 64

extern "C" __global__ void spmm_csr_crc(int m, const int* __restrict__ rowptr, const int* __restrict__ colind,
                                        const float* __restrict__ val, const float* __restrict__ B,
                                        float* __restrict__ C)
{
    __shared__ int sh_col[WARPS_PER_BLOCK * 32];
    __shared__ float sh_val[WARPS_PER_BLOCK * 32];
    int w = threadIdx.x >> 5;
    int lane = threadIdx.x & 31;
    int row = blockIdx.x * WARPS_PER_BLOCK + w;
    if (row >= m) return;
    int sm_offset = w * 32;
    int start = rowptr[row], end = rowptr[row + 1];
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int ptr = start; ptr < end; ptr += 32) {
        if (ptr + lane < end) {
            sh_col[sm_offset + lane] = colind[ptr + lane];
            sh_val[sm_offset + lane] = val[ptr + lane];
        }
        __syncwarp();
        int cnt = min(32, end - ptr);
        for (int kk = 0; kk < cnt; kk++) {
            int c = sh_col[sm_offset + kk] * FEAT;
            float v = sh_val[sm_offset + kk];
            acc0 += v * B[c + lane];
            acc1 += v * B[c + lane + 32];
        }
        __syncwarp();
    }
    C[(size_t)row * FEAT + lane] = acc0;
    C[(size_t)row * FEAT + lane + 32] = acc1;
}
