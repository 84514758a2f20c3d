// Compensated dot product in double: Ogita, Rump & Oishi's Dot2 (Accurate sum and dot product, SIAM J.
// Sci. Comput. 26(6), 2005, Algorithm 5.3), as accurate-BLAS and reproducible-summation codes write it
// for the GPU: each product split exactly by TwoProduct (p = a*b, its error by __fma_rn(a, b, -p)),
// added by Knuth's TwoSum, the errors gathered in a second accumulator. The explicit __dmul_rn /
// __dadd_rn / __dsub_rn keep nvcc from contracting a product into the next addition, which would
// break the error-free transformations. Grid-stride loop; the threads' (sum, error) pairs are combined
// by TwoSum through a warp butterfly and shared memory, and each block writes its pair; the host
// finishes the sum of the 2 x gridDim partials (Sum2).
#define DOT2_THREADS 256

__device__ __forceinline__ void two_sum(double a, double b, double& s, double& e)
{
    s = __dadd_rn(a, b);
    const double z = __dsub_rn(s, a);
    e = __dadd_rn(__dsub_rn(a, __dsub_rn(s, z)), __dsub_rn(b, z));
}

__device__ __forceinline__ void two_prod(double a, double b, double& p, double& e)
{
    p = __dmul_rn(a, b);
    e = __fma_rn(a, b, -p);
}

__device__ __forceinline__ void warp_two_sum(double& s, double& c)
{
    for (int offset = 16; offset > 0; offset >>= 1) {
        const double so = __shfl_xor_sync(0xffffffff, s, offset);
        const double co = __shfl_xor_sync(0xffffffff, c, offset);
        double q;
        two_sum(s, so, s, q);
        c = __dadd_rn(c, __dadd_rn(co, q));
    }
}

extern "C" __global__ void dot2_partials(const double* __restrict__ x, const double* __restrict__ y,
                                         double2* __restrict__ partial, long long n)
{
    __shared__ double s_sum[DOT2_THREADS / 32];
    __shared__ double s_err[DOT2_THREADS / 32];

    double s = 0.0, c = 0.0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        double h, r, q;
        two_prod(x[i], y[i], h, r);
        two_sum(s, h, s, q);
        c = __dadd_rn(c, __dadd_rn(q, r));
    }

    warp_two_sum(s, c);
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {
        s_sum[warp] = s;
        s_err[warp] = c;
    }
    __syncthreads();
    if (warp == 0) {
        s = lane < (blockDim.x >> 5) ? s_sum[lane] : 0.0;
        c = lane < (blockDim.x >> 5) ? s_err[lane] : 0.0;
        warp_two_sum(s, c);
        if (lane == 0) partial[blockIdx.x] = make_double2(s, c);
    }
}
