// Direct Coulomb summation of an electrostatic potential map slice, as VMD's cionize / Kirk & Hwu's
// molecular-visualization case study (cenergy) write it: the atoms (x, y, dz^2, q) of a chunk in
// __constant__ memory, a 2-D grid of 16 x 16 blocks, each thread computing 4 grid points spaced a
// block width apart (UNROLLX) so that one atom's dy and dz^2 serve four rsqrtf terms, and adding
// its sums to the map the previous chunks left.
#define MAXATOMS 4000
#define BLOCKSIZEX 16
#define BLOCKSIZEY 16
#define UNROLLX 4

__constant__ float4 atominfo[MAXATOMS];

extern "C" __global__ void cenergy(int numatoms, float gridspacing, float* energygrid)
{
    unsigned int xindex = __umul24(blockIdx.x, blockDim.x) * UNROLLX + threadIdx.x;
    unsigned int yindex = __umul24(blockIdx.y, blockDim.y) + threadIdx.y;
    unsigned int outaddr = (__umul24(gridDim.x, blockDim.x) * UNROLLX) * yindex + xindex;

    float coory = gridspacing * yindex;
    float coorx = gridspacing * xindex;

    float energyvalx1 = 0.0f;
    float energyvalx2 = 0.0f;
    float energyvalx3 = 0.0f;
    float energyvalx4 = 0.0f;

    float gridspacing_u = gridspacing * BLOCKSIZEX;

    int atomid;
    for (atomid = 0; atomid < numatoms; atomid++) {
        float dy = coory - atominfo[atomid].y;
        float dyz2 = (dy * dy) + atominfo[atomid].z;

        float dx1 = coorx - atominfo[atomid].x;
        float dx2 = dx1 + gridspacing_u;
        float dx3 = dx2 + gridspacing_u;
        float dx4 = dx3 + gridspacing_u;

        energyvalx1 += atominfo[atomid].w * rsqrtf(dx1 * dx1 + dyz2);
        energyvalx2 += atominfo[atomid].w * rsqrtf(dx2 * dx2 + dyz2);
        energyvalx3 += atominfo[atomid].w * rsqrtf(dx3 * dx3 + dyz2);
        energyvalx4 += atominfo[atomid].w * rsqrtf(dx4 * dx4 + dyz2);
    }

    energygrid[outaddr] += energyvalx1;
    energygrid[outaddr + 1 * BLOCKSIZEX] += energyvalx2;
    energygrid[outaddr + 2 * BLOCKSIZEX] += energyvalx3;
    energygrid[outaddr + 3 * BLOCKSIZEX] += energyvalx4;
}
