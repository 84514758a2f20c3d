// Rodinia's CFD solver (euler3d_double.cu, Corrigan et al., AIAA-2009-4001): the flux of an
// unstructured-grid finite-volume Euler solver, in double precision. One thread per element (SoA
// variables: density, momentum x/y/z, density-energy); for each of its NNB = 4 faces the thread
// reads the neighbour's index and the face normal, and by the neighbour's kind (a legitimate
// element, -1 a wing boundary, -2 the far field: a branch on the data) gathers the neighbour's
// state and adds the artificial viscosity and the central flux, or the wall pressure, or the flux
// against the far-field state held in __constant__ memory.
#define GAMMA 1.4
#define block_length 128

#define NDIM 3
#define NNB 4

#define VAR_DENSITY 0
#define VAR_MOMENTUM 1
#define VAR_DENSITY_ENERGY (VAR_MOMENTUM + NDIM)
#define NVAR (VAR_DENSITY_ENERGY + 1)

__constant__ double ff_variable[NVAR];
__constant__ double3 ff_flux_contribution_momentum_x[1];
__constant__ double3 ff_flux_contribution_momentum_y[1];
__constant__ double3 ff_flux_contribution_momentum_z[1];
__constant__ double3 ff_flux_contribution_density_energy[1];

__device__ __host__ inline void compute_flux_contribution(double& density, double3& momentum, double& density_energy,
                                                          double& pressure, double3& velocity, double3& fc_momentum_x,
                                                          double3& fc_momentum_y, double3& fc_momentum_z,
                                                          double3& fc_density_energy)
{
    fc_momentum_x.x = velocity.x * momentum.x + pressure;
    fc_momentum_x.y = velocity.x * momentum.y;
    fc_momentum_x.z = velocity.x * momentum.z;

    fc_momentum_y.x = fc_momentum_x.y;
    fc_momentum_y.y = velocity.y * momentum.y + pressure;
    fc_momentum_y.z = velocity.y * momentum.z;

    fc_momentum_z.x = fc_momentum_x.z;
    fc_momentum_z.y = fc_momentum_y.z;
    fc_momentum_z.z = velocity.z * momentum.z + pressure;

    double de_p = density_energy + pressure;
    fc_density_energy.x = velocity.x * de_p;
    fc_density_energy.y = velocity.y * de_p;
    fc_density_energy.z = velocity.z * de_p;
}

__device__ inline void compute_velocity(double& density, double3& momentum, double3& velocity)
{
    velocity.x = momentum.x / density;
    velocity.y = momentum.y / density;
    velocity.z = momentum.z / density;
}

__device__ inline double compute_speed_sqd(double3& velocity)
{
    return velocity.x * velocity.x + velocity.y * velocity.y + velocity.z * velocity.z;
}

__device__ inline double compute_pressure(double& density, double& density_energy, double& speed_sqd)
{
    return (double(GAMMA) - double(1.0)) * (density_energy - double(0.5) * density * speed_sqd);
}

__device__ inline double compute_speed_of_sound(double& density, double& pressure)
{
    return sqrt(double(GAMMA) * pressure / density);
}

extern "C" __global__ void cuda_compute_flux(int nelr, int* elements_surrounding_elements, double* normals,
                                             double* variables, double* fluxes)
{
    const double smoothing_coefficient = double(0.2f);
    const int i = (blockDim.x * blockIdx.x + threadIdx.x);

    int j, nb;
    double3 normal;
    double normal_len;
    double factor;

    double density_i = variables[i + VAR_DENSITY * nelr];
    double3 momentum_i;
    momentum_i.x = variables[i + (VAR_MOMENTUM + 0) * nelr];
    momentum_i.y = variables[i + (VAR_MOMENTUM + 1) * nelr];
    momentum_i.z = variables[i + (VAR_MOMENTUM + 2) * nelr];

    double density_energy_i = variables[i + VAR_DENSITY_ENERGY * nelr];

    double3 velocity_i;
    compute_velocity(density_i, momentum_i, velocity_i);
    double speed_sqd_i = compute_speed_sqd(velocity_i);
    double speed_i = sqrt(speed_sqd_i);
    double pressure_i = compute_pressure(density_i, density_energy_i, speed_sqd_i);
    double speed_of_sound_i = compute_speed_of_sound(density_i, pressure_i);
    double3 flux_contribution_i_momentum_x, flux_contribution_i_momentum_y, flux_contribution_i_momentum_z;
    double3 flux_contribution_i_density_energy;
    compute_flux_contribution(density_i, momentum_i, density_energy_i, pressure_i, velocity_i,
                              flux_contribution_i_momentum_x, flux_contribution_i_momentum_y,
                              flux_contribution_i_momentum_z, flux_contribution_i_density_energy);

    double flux_i_density = double(0.0);
    double3 flux_i_momentum;
    flux_i_momentum.x = double(0.0);
    flux_i_momentum.y = double(0.0);
    flux_i_momentum.z = double(0.0);
    double flux_i_density_energy = double(0.0);

    double3 velocity_nb;
    double density_nb, density_energy_nb;
    double3 momentum_nb;
    double3 flux_contribution_nb_momentum_x, flux_contribution_nb_momentum_y, flux_contribution_nb_momentum_z;
    double3 flux_contribution_nb_density_energy;
    double speed_sqd_nb, speed_of_sound_nb, pressure_nb;

#pragma unroll
    for (j = 0; j < NNB; j++) {
        nb = elements_surrounding_elements[i + j * nelr];
        normal.x = normals[i + (j + 0 * NNB) * nelr];
        normal.y = normals[i + (j + 1 * NNB) * nelr];
        normal.z = normals[i + (j + 2 * NNB) * nelr];
        normal_len = sqrt(normal.x * normal.x + normal.y * normal.y + normal.z * normal.z);

        if (nb >= 0)  // a legitimate neighbor
        {
            density_nb = variables[nb + VAR_DENSITY * nelr];
            momentum_nb.x = variables[nb + (VAR_MOMENTUM + 0) * nelr];
            momentum_nb.y = variables[nb + (VAR_MOMENTUM + 1) * nelr];
            momentum_nb.z = variables[nb + (VAR_MOMENTUM + 2) * nelr];
            density_energy_nb = variables[nb + VAR_DENSITY_ENERGY * nelr];
            compute_velocity(density_nb, momentum_nb, velocity_nb);
            speed_sqd_nb = compute_speed_sqd(velocity_nb);
            pressure_nb = compute_pressure(density_nb, density_energy_nb, speed_sqd_nb);
            speed_of_sound_nb = compute_speed_of_sound(density_nb, pressure_nb);
            compute_flux_contribution(density_nb, momentum_nb, density_energy_nb, pressure_nb, velocity_nb,
                                      flux_contribution_nb_momentum_x, flux_contribution_nb_momentum_y,
                                      flux_contribution_nb_momentum_z, flux_contribution_nb_density_energy);

            // artificial viscosity
            factor = -normal_len * smoothing_coefficient * double(0.5)
                * (speed_i + sqrt(speed_sqd_nb) + speed_of_sound_i + speed_of_sound_nb);
            flux_i_density += factor * (density_i - density_nb);
            flux_i_density_energy += factor * (density_energy_i - density_energy_nb);
            flux_i_momentum.x += factor * (momentum_i.x - momentum_nb.x);
            flux_i_momentum.y += factor * (momentum_i.y - momentum_nb.y);
            flux_i_momentum.z += factor * (momentum_i.z - momentum_nb.z);

            // accumulate cell-centered fluxes
            factor = double(0.5) * normal.x;
            flux_i_density += factor * (momentum_nb.x + momentum_i.x);
            flux_i_density_energy += factor * (flux_contribution_nb_density_energy.x + flux_contribution_i_density_energy.x);
            flux_i_momentum.x += factor * (flux_contribution_nb_momentum_x.x + flux_contribution_i_momentum_x.x);
            flux_i_momentum.y += factor * (flux_contribution_nb_momentum_y.x + flux_contribution_i_momentum_y.x);
            flux_i_momentum.z += factor * (flux_contribution_nb_momentum_z.x + flux_contribution_i_momentum_z.x);

            factor = double(0.5) * normal.y;
            flux_i_density += factor * (momentum_nb.y + momentum_i.y);
            flux_i_density_energy += factor * (flux_contribution_nb_density_energy.y + flux_contribution_i_density_energy.y);
            flux_i_momentum.x += factor * (flux_contribution_nb_momentum_x.y + flux_contribution_i_momentum_x.y);
            flux_i_momentum.y += factor * (flux_contribution_nb_momentum_y.y + flux_contribution_i_momentum_y.y);
            flux_i_momentum.z += factor * (flux_contribution_nb_momentum_z.y + flux_contribution_i_momentum_z.y);

            factor = double(0.5) * normal.z;
            flux_i_density += factor * (momentum_nb.z + momentum_i.z);
            flux_i_density_energy += factor * (flux_contribution_nb_density_energy.z + flux_contribution_i_density_energy.z);
            flux_i_momentum.x += factor * (flux_contribution_nb_momentum_x.z + flux_contribution_i_momentum_x.z);
            flux_i_momentum.y += factor * (flux_contribution_nb_momentum_y.z + flux_contribution_i_momentum_y.z);
            flux_i_momentum.z += factor * (flux_contribution_nb_momentum_z.z + flux_contribution_i_momentum_z.z);
        } else if (nb == -1)  // a wing boundary
        {
            flux_i_momentum.x += normal.x * pressure_i;
            flux_i_momentum.y += normal.y * pressure_i;
            flux_i_momentum.z += normal.z * pressure_i;
        } else if (nb == -2)  // a far field boundary
        {
            factor = double(0.5) * normal.x;
            flux_i_density += factor * (ff_variable[VAR_MOMENTUM + 0] + momentum_i.x);
            flux_i_density_energy += factor * (ff_flux_contribution_density_energy[0].x + flux_contribution_i_density_energy.x);
            flux_i_momentum.x += factor * (ff_flux_contribution_momentum_x[0].x + flux_contribution_i_momentum_x.x);
            flux_i_momentum.y += factor * (ff_flux_contribution_momentum_y[0].x + flux_contribution_i_momentum_y.x);
            flux_i_momentum.z += factor * (ff_flux_contribution_momentum_z[0].x + flux_contribution_i_momentum_z.x);

            factor = double(0.5) * normal.y;
            flux_i_density += factor * (ff_variable[VAR_MOMENTUM + 1] + momentum_i.y);
            flux_i_density_energy += factor * (ff_flux_contribution_density_energy[0].y + flux_contribution_i_density_energy.y);
            flux_i_momentum.x += factor * (ff_flux_contribution_momentum_x[0].y + flux_contribution_i_momentum_x.y);
            flux_i_momentum.y += factor * (ff_flux_contribution_momentum_y[0].y + flux_contribution_i_momentum_y.y);
            flux_i_momentum.z += factor * (ff_flux_contribution_momentum_z[0].y + flux_contribution_i_momentum_z.y);

            factor = double(0.5) * normal.z;
            flux_i_density += factor * (ff_variable[VAR_MOMENTUM + 2] + momentum_i.z);
            flux_i_density_energy += factor * (ff_flux_contribution_density_energy[0].z + flux_contribution_i_density_energy.z);
            flux_i_momentum.x += factor * (ff_flux_contribution_momentum_x[0].z + flux_contribution_i_momentum_x.z);
            flux_i_momentum.y += factor * (ff_flux_contribution_momentum_y[0].z + flux_contribution_i_momentum_y.z);
            flux_i_momentum.z += factor * (ff_flux_contribution_momentum_z[0].z + flux_contribution_i_momentum_z.z);
        }
    }

    fluxes[i + VAR_DENSITY * nelr] = flux_i_density;
    fluxes[i + (VAR_MOMENTUM + 0) * nelr] = flux_i_momentum.x;
    fluxes[i + (VAR_MOMENTUM + 1) * nelr] = flux_i_momentum.y;
    fluxes[i + (VAR_MOMENTUM + 2) * nelr] = flux_i_momentum.z;
    fluxes[i + VAR_DENSITY_ENERGY * nelr] = flux_i_density_energy;
}
