// Discrete Fourier transform by its definition, in double precision: one thread per output
// frequency k summing x[t] e^{-2 pi i k t / n} over all n inputs (O(n^2) work), the twiddle
// computed per term with sincospi; every thread of a warp reads the same x[t] at once.
extern "C" __global__ void dft_naive_f64(const double2* __restrict__ x, double2* __restrict__ X, int n)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    double re = 0.0, im = 0.0;
    for (int t = 0; t < n; t++) {
        double s, c;
        sincospi(-2.0 * k * t / n, &s, &c);
        double2 v = x[t];
        re += v.x * c - v.y * s;
        im += v.x * s + v.y * c;
    }
    X[k] = make_double2(re, im);
}
