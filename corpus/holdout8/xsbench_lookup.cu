// XSBench's event-based macroscopic cross-section lookup (CUDA version, Simulation.cu:
// xs_lookup_kernel_baseline, Tramm et al., ANL), nuclide-grid search mode. Each thread is one
// lookup: it fast-forwards the 63-bit LCG to its own stream (2 draws per lookup), samples a neutron
// energy and a material (pick_mat's cumulative loop, including its well-known skip of dist[0]),
// then for each of the material's nuclides binary-searches that nuclide's energy grid (global
// memory, dependent loads), interpolates five double cross sections between the bracketing grid
// points and accumulates them weighted by the concentration; the index of the largest macroscopic
// cross section (+1) goes to the verification array. Double precision, 64-bit integer math.
// Re-typed: the Inputs and SimulationData structs (which hold device pointers) are flattened into
// the arguments the nuclide-grid path reads; the unionized and hash grid branches are left out.
#include <stdint.h>

#define STARTING_SEED 1070

typedef struct {
    double energy;
    double total_xs;
    double elastic_xs;
    double absorbtion_xs;
    double fission_xs;
    double nu_fission_xs;
} NuclideGridPoint;

__device__ double LCG_random_double(uint64_t* seed)
{
    // LCG parameters
    const uint64_t m = 9223372036854775808ULL;  // 2^63
    const uint64_t a = 2806196910506780709ULL;
    const uint64_t c = 1ULL;
    *seed = (a * (*seed) + c) % m;
    return (double)(*seed) / (double)m;
}

__device__ uint64_t fast_forward_LCG(uint64_t seed, uint64_t n)
{
    // LCG parameters
    const uint64_t m = 9223372036854775808ULL;  // 2^63
    uint64_t a = 2806196910506780709ULL;
    uint64_t c = 1ULL;

    n = n % m;

    uint64_t a_new = 1;
    uint64_t c_new = 0;

    while (n > 0) {
        if (n & 1) {
            a_new *= a;
            c_new = c_new * a + c;
        }
        c *= (a + 1);
        a *= a;

        n >>= 1;
    }

    return (a_new * seed + c_new) % m;
}

// picks a material based on a probabilistic distribution
__device__ int pick_mat(uint64_t* seed)
{
    // I have a nice spreadsheet supporting these numbers. They are
    // the fractions (by volume) of material in the core. Not a
    // *perfect* approximation of where XS lookups are going to occur,
    // but this will do a good job of biasing the system nonetheless.

    double dist[12];
    dist[0] = 0.140;   // fuel
    dist[1] = 0.052;   // cladding
    dist[2] = 0.275;   // cold, borated water
    dist[3] = 0.134;   // hot, borated water
    dist[4] = 0.154;   // RPV
    dist[5] = 0.064;   // Lower, radial reflector
    dist[6] = 0.066;   // Upper reflector / top plate
    dist[7] = 0.055;   // bottom plate
    dist[8] = 0.008;   // bottom nozzle
    dist[9] = 0.015;   // top nozzle
    dist[10] = 0.025;  // top of fuel assemblies
    dist[11] = 0.013;  // bottom of fuel assemblies

    double roll = LCG_random_double(seed);

    // makes a pick based on the distro
    for (int i = 0; i < 12; i++) {
        double running = 0;
        for (int j = i; j > 0; j--)
            running += dist[j];
        if (roll < running)
            return i;
    }

    return 0;
}

// binary search for the lower bracketing index of quarry in one nuclide's energy grid
__device__ long grid_search_nuclide(long n, double quarry, NuclideGridPoint* A, long low, long high)
{
    long lowerLimit = low;
    long upperLimit = high;
    long examinationPoint;
    long length = upperLimit - lowerLimit;

    while (length > 1) {
        examinationPoint = lowerLimit + (length / 2);

        if (A[examinationPoint].energy > quarry)
            upperLimit = examinationPoint;
        else
            lowerLimit = examinationPoint;

        length = upperLimit - lowerLimit;
    }

    return lowerLimit;
}

__device__ void calculate_micro_xs(double p_energy, int nuc, long n_isotopes, long n_gridpoints,
                                   NuclideGridPoint* nuclide_grids, long idx, double* xs_vector)
{
    // Variables
    double f;
    NuclideGridPoint *low, *high;

    // If using only the nuclide grid, we must perform a binary search
    // to find the energy location in this particular nuclide's grid.
    idx = grid_search_nuclide(n_gridpoints, p_energy, &nuclide_grids[nuc * n_gridpoints], 0, n_gridpoints - 1);

    // pull ptr from nuclide grid and check to ensure that
    // we're not reading off the end of the nuclide's grid
    if (idx == n_gridpoints - 1)
        low = &nuclide_grids[nuc * n_gridpoints + idx - 1];
    else
        low = &nuclide_grids[nuc * n_gridpoints + idx];

    high = low + 1;

    // calculate the re-useable interpolation factor
    f = (high->energy - p_energy) / (high->energy - low->energy);

    // Total XS
    xs_vector[0] = high->total_xs - f * (high->total_xs - low->total_xs);

    // Elastic XS
    xs_vector[1] = high->elastic_xs - f * (high->elastic_xs - low->elastic_xs);

    // Absorbtion XS
    xs_vector[2] = high->absorbtion_xs - f * (high->absorbtion_xs - low->absorbtion_xs);

    // Fission XS
    xs_vector[3] = high->fission_xs - f * (high->fission_xs - low->fission_xs);

    // Nu Fission XS
    xs_vector[4] = high->nu_fission_xs - f * (high->nu_fission_xs - low->nu_fission_xs);
}

__device__ void calculate_macro_xs(double p_energy, int mat, long n_isotopes, long n_gridpoints, int* num_nucs,
                                   double* concs, NuclideGridPoint* nuclide_grids, int* mats,
                                   double* macro_xs_vector, int max_num_nucs)
{
    int p_nuc;  // the nuclide we are looking up
    long idx = -1;
    double conc;  // the concentration of the nuclide in the material

    // cleans out macro_xs_vector
    for (int k = 0; k < 5; k++)
        macro_xs_vector[k] = 0;

    // for nuclide in mat
    for (int j = 0; j < num_nucs[mat]; j++) {
        double xs_vector[5];
        p_nuc = mats[mat * max_num_nucs + j];
        conc = concs[mat * max_num_nucs + j];
        calculate_micro_xs(p_energy, p_nuc, n_isotopes, n_gridpoints, nuclide_grids, idx, xs_vector);
        for (int k = 0; k < 5; k++)
            macro_xs_vector[k] += xs_vector[k] * conc;
    }
}

extern "C" __global__ void xs_lookup_kernel_baseline(int lookups, int n_isotopes, int n_gridpoints, int* num_nucs,
                                                     double* concs, NuclideGridPoint* nuclide_grid, int* mats,
                                                     int max_num_nucs, unsigned long* verification)
{
    // The lookup ID. Used to set the seed, and to store the verification value
    const int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i >= lookups)
        return;

    // Set the initial seed value
    uint64_t seed = STARTING_SEED;

    // Forward seed to lookup index (we need 2 samples per lookup)
    seed = fast_forward_LCG(seed, 2 * i);

    // Randomly pick an energy and material for the particle
    double p_energy = LCG_random_double(&seed);
    int mat = pick_mat(&seed);

    double macro_xs_vector[5] = {0};

    // Perform macroscopic Cross Section Lookup
    calculate_macro_xs(p_energy, mat, n_isotopes, n_gridpoints, num_nucs, concs, nuclide_grid, mats,
                       macro_xs_vector, max_num_nucs);

    // For verification, and to prevent the compiler from optimizing
    // all work out, we interrogate the returned macro_xs_vector array
    // to find its maximum value index, then increment the verification
    // value by that index. In this implementation, we have each thread
    // write to its thread_id index in an array, which we will reduce
    // with a thrust reduction kernel after the main simulation kernel.
    double max = -1.0;
    int max_idx = 0;
    for (int j = 0; j < 5; j++) {
        if (macro_xs_vector[j] > max) {
            max = macro_xs_vector[j];
            max_idx = j;
        }
    }
    verification[i] = max_idx + 1;
}
