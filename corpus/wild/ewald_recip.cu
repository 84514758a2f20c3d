// The reciprocal-space half of an Ewald sum in double precision, as the textbooks write it (Allen &
// Tildesley, Computer Simulation of Liquids, 2nd ed., section 6.2 and its ewald_module; Frenkel & Smit,
// section 12.1) and a GPU port parallelizes it: one block per wave vector k = 2 pi n / L of the half
// space (n and -n give conjugate sums), the block's threads striding over the atoms, each adding
// q_j (cos k.r_j, sin k.r_j) with sincos() in double; the two sums meet in a shared-memory tree, and
// thread 0 writes the structure factor S(k) and the k term of the energy,
// (4 pi / V) exp(-k^2 / (4 alpha^2)) / k^2 |S(k)|^2 (Gaussian units, e^2 per length; the half
// space counted twice).
#define EWALD_THREADS 256

extern "C" __global__ void ewald_structure_factor(const double4* __restrict__ xyzq, const int4* __restrict__ kvec,
                                                  double2* __restrict__ rho_k, double* __restrict__ energy_k,
                                                  int natoms, double box, double alpha)
{
    __shared__ double s_re[EWALD_THREADS];
    __shared__ double s_im[EWALD_THREADS];

    const int k = blockIdx.x;
    const int tid = threadIdx.x;
    const int4 n = kvec[k];
    const double twopi_over_box = 2.0 * M_PI / box;
    const double kx = twopi_over_box * n.x;
    const double ky = twopi_over_box * n.y;
    const double kz = twopi_over_box * n.z;

    double re = 0.0, im = 0.0;
    for (int j = tid; j < natoms; j += blockDim.x) {
        const double4 a = xyzq[j];
        double s, c;
        sincos(kx * a.x + ky * a.y + kz * a.z, &s, &c);
        re += a.w * c;
        im += a.w * s;
    }
    s_re[tid] = re;
    s_im[tid] = im;
    __syncthreads();

    for (int stride = blockDim.x / 2; stride > 0; stride >>= 1) {
        if (tid < stride) {
            s_re[tid] += s_re[tid + stride];
            s_im[tid] += s_im[tid + stride];
        }
        __syncthreads();
    }

    if (tid == 0) {
        re = s_re[0];
        im = s_im[0];
        rho_k[k] = make_double2(re, im);
        const double k2 = kx * kx + ky * ky + kz * kz;
        const double volume = box * box * box;
        energy_k[k] = 4.0 * M_PI / volume * exp(-k2 / (4.0 * alpha * alpha)) / k2 * (re * re + im * im);
    }
}
