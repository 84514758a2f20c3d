// One Jacobi sweep for the Poisson equation -lap(u) = f on a uniform grid with the compact 9-point
// ("Mehrstellen") stencil, in double, as a textbook finite-difference code writes it: one thread per
// interior point on a 16 x 16 block, the 8 neighbours read straight from global memory (the cache
// catches the reuse), the new value divided by 20. The boundary rows and columns hold u = 0
// (Dirichlet) and are not written.
extern "C" __global__ void jacobi9_f64(const double* __restrict__ u, const double* __restrict__ f,
                                       double* __restrict__ unew, int nx, int ny, double h2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < 1 || j < 1 || i >= nx - 1 || j >= ny - 1) return;
    size_t c = (size_t)j * nx + i;
    unew[c] = (4.0 * (u[c - 1] + u[c + 1] + u[c - nx] + u[c + nx])
               + u[c - nx - 1] + u[c - nx + 1] + u[c + nx - 1] + u[c + nx + 1]
               + 6.0 * h2 * f[c]) / 20.0;
}
