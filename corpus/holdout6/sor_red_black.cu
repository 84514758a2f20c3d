// One colour of a red-black successive over-relaxation sweep for the 2-D Poisson equation
// -lap(u) = f in FP64, written the way course and mini-app codes first write it: a thread per grid
// point over the whole grid, the threads of the other colour and the boundary returning at once;
// a point of this colour reads its four neighbours (all of the other colour) and relaxes in place.
extern "C" __global__ void sor_red_black(double* u, const double* __restrict__ f, int nx, int ny, double h2,
                                         double omega, int color)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;

    if (i < 1 || i >= nx - 1 || j < 1 || j >= ny - 1) return;
    if ((i + j) % 2 != color) return;

    size_t idx = (size_t)j * nx + i;
    double gs = 0.25 * (u[idx - 1] + u[idx + 1] + u[idx - nx] + u[idx + nx] + h2 * f[idx]);
    u[idx] += omega * (gs - u[idx]);
}
