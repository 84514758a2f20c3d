// Radial-velocity curves of Keplerian orbits, one thread per (orbit sample, observation time) on a
// 2-D grid, as MCMC fitting codes evaluate a chain's samples against an observing run: the mean
// anomaly from the period and time of periastron, Kepler's equation M = E - e sin E solved by
// Newton-Raphson from Danby's E0 = M + 0.85 e sign(sin M) until the step falls below a tolerance
// (the count of iterations depends on e and M, so a warp's lanes diverge), the true anomaly by
// atan2f, and v = K (cos(f + w) + e cos w).
#define TWO_PI 6.28318530717958647692f
#define KEPLER_TOL 1e-6f
#define KEPLER_MAX_ITER 20

__device__ float solve_kepler(float M, float e)
{
    float E = M + copysignf(0.85f * e, sinf(M));  // Danby's starting value
    for (int it = 0; it < KEPLER_MAX_ITER; it++) {
        float s, c;
        sincosf(E, &s, &c);
        float dE = (E - e * s - M) / (1.0f - e * c);
        E -= dE;
        if (fabsf(dE) < KEPLER_TOL) break;
    }
    return E;
}

extern "C" __global__ void kepler_rv(const float* __restrict__ t, const float* __restrict__ period,
                                     const float* __restrict__ tp, const float* __restrict__ ecc,
                                     const float* __restrict__ omega, const float* __restrict__ K,
                                     float* __restrict__ rv, int n_times, int n_orbits)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;  // observation
    int j = blockIdx.y;                             // orbit sample
    if (i >= n_times || j >= n_orbits) return;
    float P = period[j], e = ecc[j], w = omega[j];
    float phase = (t[i] - tp[j]) / P;
    float M = TWO_PI * (phase - floorf(phase));  // mean anomaly in [0, 2 pi)
    float E = solve_kepler(M, e);
    float f = 2.0f * atan2f(sqrtf(1.0f + e) * sinf(0.5f * E), sqrtf(1.0f - e) * cosf(0.5f * E));
    rv[(size_t)j * n_times + i] = K[j] * (cosf(f + w) + e * cosf(w));
}
