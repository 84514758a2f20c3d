// A lattice-Boltzmann D2Q9 step in FP64, fused stream and collide in the "pull" form most GPU LBM
// codes start from: one thread per node, the nine populations in structure-of-arrays planes
// (f[q * nx * ny + node]), each pulled from the upstream neighbour (periodic wrap), the density
// and velocity moments, then BGK relaxation towards the second-order equilibrium, written to the
// other buffer. Directions: 0 rest, 1-4 east/north/west/south, 5-8 the diagonals NE, NW, SW, SE.
extern "C" __global__ void lbm_d2q9_pull_bgk(const double* __restrict__ f_in, double* __restrict__ f_out, int nx,
                                             int ny, double omega)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= nx || y >= ny) return;

    const size_t plane = (size_t)nx * ny;
    const int xm = (x == 0) ? nx - 1 : x - 1;  // west neighbour
    const int xp = (x == nx - 1) ? 0 : x + 1;  // east neighbour
    const int ym = (y == 0) ? ny - 1 : y - 1;  // south neighbour
    const int yp = (y == ny - 1) ? 0 : y + 1;  // north neighbour

    // stream: pull each population from the node it leaves
    const double f0 = f_in[0 * plane + (size_t)y * nx + x];
    const double f1 = f_in[1 * plane + (size_t)y * nx + xm];
    const double f2 = f_in[2 * plane + (size_t)ym * nx + x];
    const double f3 = f_in[3 * plane + (size_t)y * nx + xp];
    const double f4 = f_in[4 * plane + (size_t)yp * nx + x];
    const double f5 = f_in[5 * plane + (size_t)ym * nx + xm];
    const double f6 = f_in[6 * plane + (size_t)ym * nx + xp];
    const double f7 = f_in[7 * plane + (size_t)yp * nx + xp];
    const double f8 = f_in[8 * plane + (size_t)yp * nx + xm];

    // moments
    const double rho = f0 + f1 + f2 + f3 + f4 + f5 + f6 + f7 + f8;
    const double irho = 1.0 / rho;
    const double ux = (f1 - f3 + f5 - f6 - f7 + f8) * irho;
    const double uy = (f2 - f4 + f5 + f6 - f7 - f8) * irho;

    // collide (BGK)
    const double usq = 1.5 * (ux * ux + uy * uy);
    const double w0 = 4.0 / 9.0 * rho, ws = 1.0 / 9.0 * rho, wd = 1.0 / 36.0 * rho;
    const double cu1 = 3.0 * ux, cu2 = 3.0 * uy;
    const double cu5 = 3.0 * (ux + uy), cu6 = 3.0 * (-ux + uy);

    const size_t i = (size_t)y * nx + x;
    f_out[0 * plane + i] = f0 - omega * (f0 - w0 * (1.0 - usq));
    f_out[1 * plane + i] = f1 - omega * (f1 - ws * (1.0 + cu1 + 0.5 * cu1 * cu1 - usq));
    f_out[2 * plane + i] = f2 - omega * (f2 - ws * (1.0 + cu2 + 0.5 * cu2 * cu2 - usq));
    f_out[3 * plane + i] = f3 - omega * (f3 - ws * (1.0 - cu1 + 0.5 * cu1 * cu1 - usq));
    f_out[4 * plane + i] = f4 - omega * (f4 - ws * (1.0 - cu2 + 0.5 * cu2 * cu2 - usq));
    f_out[5 * plane + i] = f5 - omega * (f5 - wd * (1.0 + cu5 + 0.5 * cu5 * cu5 - usq));
    f_out[6 * plane + i] = f6 - omega * (f6 - wd * (1.0 + cu6 + 0.5 * cu6 * cu6 - usq));
    f_out[7 * plane + i] = f7 - omega * (f7 - wd * (1.0 - cu5 + 0.5 * cu5 * cu5 - usq));
    f_out[8 * plane + i] = f8 - omega * (f8 - wd * (1.0 - cu6 + 0.5 * cu6 * cu6 - usq));
}
