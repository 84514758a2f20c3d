// Evaluating a truncated Chebyshev series sum c_k T_k(t) at many points, in double precision, by
// Clenshaw's recurrence as Numerical Recipes' chebev writes it: x in [a, b] mapped to t in [-1, 1],
// then m - 1 steps d <- 2t d - dd + c[j] from the highest coefficient down (an FMA and an add, the
// coefficients in __constant__, read by every thread at once), and t d - dd + c[0] / 2. Float points
// in, float values out.
#define MAX_COEFFS 128

__constant__ double c_cheb[MAX_COEFFS];

extern "C" __global__ void chebev_f64(const float* __restrict__ x, float* __restrict__ y, int n, int m, double a,
                                      double b)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double d = 0.0, dd = 0.0, sv, t, t2;
    t2 = 2.0 * (t = (2.0 * x[i] - a - b) / (b - a));
    for (int j = m - 1; j >= 1; j--) {
        sv = d;
        d = t2 * d - dd + c_cheb[j];
        dd = sv;
    }
    y[i] = (float)(t * d - dd + 0.5 * c_cheb[0]);
}
