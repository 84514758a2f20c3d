// Verified matrix-vector product in interval arithmetic, midpoint-radius form (Rump, Fast and parallel
// interval arithmetic, BIT 39(3), 1999; INTLAB's mtimes for a point matrix and an interval vector): for
// x in <xm, xr> (midpoint, radius), A x lies in [fl_down(A xm) - r, fl_up(A xm) + r] with
// r = fl_up(|A| xr), every operation rounded outward. The rounding modes are the CUDA intrinsics a
// verification library uses for it (__fma_rd, __fma_ru, __dadd_rd, __dadd_ru, __dsub_rd): one warp
// per row of a row-major A (lanes striding the columns), the three sums reduced by a shuffle butterfly
// that keeps their directions; lane 0 writes the row's enclosure (inf, sup).
extern "C" __global__ void interval_gemv_midrad(const double* __restrict__ A, const double* __restrict__ xm,
                                                const double* __restrict__ xr, double2* __restrict__ y,
                                                int rows, int cols)
{
    const int lane = threadIdx.x & 31;
    const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    if (row >= rows) return;

    const double* a = A + (size_t)row * cols;
    double lo = 0.0, hi = 0.0, rad = 0.0;
    for (int j = lane; j < cols; j += 32) {
        const double aj = a[j], xj = xm[j];
        lo = __fma_rd(aj, xj, lo);
        hi = __fma_ru(aj, xj, hi);
        rad = __fma_ru(fabs(aj), xr[j], rad);
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        lo = __dadd_rd(lo, __shfl_xor_sync(0xffffffff, lo, offset));
        hi = __dadd_ru(hi, __shfl_xor_sync(0xffffffff, hi, offset));
        rad = __dadd_ru(rad, __shfl_xor_sync(0xffffffff, rad, offset));
    }
    if (lane == 0) y[row] = make_double2(__dsub_rd(lo, rad), __dadd_ru(hi, rad));
}
