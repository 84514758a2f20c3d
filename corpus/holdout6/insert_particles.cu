// Fluids v3's insertParticles (Hoetzlein, "Fast fixed-radius nearest neighbors", GTC 2014): the
// first pass of a counting sort of SPH particles into a uniform grid. One thread per particle
// computes its cell from its float3 position and takes its rank within the cell with
// atomicAdd on the cell's count (the counts are scanned and the particles scattered by later
// kernels); particles outside the scanned interior get GRID_UNDEF. The sample's constant-memory
// parameter struct passed as scalars, and a plain multiply for its __mul24. The host zeroes the
// counts.
typedef unsigned int uint;
#define GRID_UNDEF 0xffffffff

extern "C" __global__ void insertParticles(const float3* __restrict__ mpos, uint* mgcell, uint* mgndx, int* mgridcnt,
                                           int pnum, float gridMin_x, float gridMin_y, float gridMin_z,
                                           float gridDelta_x, float gridDelta_y, float gridDelta_z, int gridRes_x,
                                           int gridRes_y, int gridRes_z, int gridScan_x, int gridScan_y,
                                           int gridScan_z)
{
    uint i = blockIdx.x * blockDim.x + threadIdx.x;  // particle index
    if (i >= pnum) return;

    float3 gridMin = make_float3(gridMin_x, gridMin_y, gridMin_z);
    float3 gridDelta = make_float3(gridDelta_x, gridDelta_y, gridDelta_z);
    int3 gridRes = make_int3(gridRes_x, gridRes_y, gridRes_z);
    int3 gridScan = make_int3(gridScan_x, gridScan_y, gridScan_z);

    float3 p = mpos[i];
    float3 gcf = make_float3((p.x - gridMin.x) * gridDelta.x, (p.y - gridMin.y) * gridDelta.y,
                             (p.z - gridMin.z) * gridDelta.z);
    int3 gc = make_int3(int(gcf.x), int(gcf.y), int(gcf.z));
    int gs = (gc.y * gridRes.z + gc.z) * gridRes.x + gc.x;

    if (gc.x >= 1 && gc.x <= gridScan.x && gc.y >= 1 && gc.y <= gridScan.y && gc.z >= 1 && gc.z <= gridScan.z) {
        mgcell[i] = gs;                              // Grid cell insert.
        mgndx[i] = atomicAdd(&mgridcnt[gs], 1);      // Grid counts.
    } else {
        mgcell[i] = GRID_UNDEF;
    }
}
