// The 8th-order 3-D finite-difference stencil (25 points: 8 neighbours along each axis and the
// centre) as Micikevicius's "3D Finite Difference Computation on GPUs using CUDA" (2009) writes it:
// a 16 x 16 block owns a column of the volume and marches along z; the xy-plane of the current
// slice sits in shared memory with a 4-point halo on each side (loaded by the threads at the tile's
// edges), the 4 values in front and the 4 behind each thread stay in registers and shift by one at
// every step, so each input value is read from global memory about once. The volume carries a
// 4-point frame in x and y (dimx = nx + 8, dimy = ny + 8); the output's frame and first and last 4
// planes are not written.
#define RADIUS 4
#define BDIMX 16
#define BDIMY 16

__constant__ float c_coeff[RADIUS + 1];

extern "C" __global__ void fwd_3D_16x16_order8(float* g_output, const float* g_input, int dimx, int dimy, int dimz)
{
    __shared__ float s_data[BDIMY + 2 * RADIUS][BDIMX + 2 * RADIUS];

    int ix = blockIdx.x * blockDim.x + threadIdx.x + RADIUS;
    int iy = blockIdx.y * blockDim.y + threadIdx.y + RADIUS;
    int in_idx = iy * dimx + ix;  // index for reading input
    int out_idx = 0;              // index for writing output
    int stride = dimx * dimy;     // distance between 2D slices (in elements)

    float infront1, infront2, infront3, infront4;  // variables for input "in front of" the current slice
    float behind1, behind2, behind3, behind4;      // variables for input "behind" the current slice
    float current;

    int tx = threadIdx.x + RADIUS;  // thread's x-index into corresponding shared memory tile
    int ty = threadIdx.y + RADIUS;  // thread's y-index into corresponding shared memory tile

    // fill the "in-front" and "behind" data
    behind3 = g_input[in_idx]; in_idx += stride;
    behind2 = g_input[in_idx]; in_idx += stride;
    behind1 = g_input[in_idx]; in_idx += stride;
    current = g_input[in_idx]; out_idx = in_idx; in_idx += stride;
    infront1 = g_input[in_idx]; in_idx += stride;
    infront2 = g_input[in_idx]; in_idx += stride;
    infront3 = g_input[in_idx]; in_idx += stride;
    infront4 = g_input[in_idx]; in_idx += stride;

    for (int i = RADIUS; i < dimz - RADIUS; i++) {
        // advance the slice (move the thread-front)
        behind4 = behind3;
        behind3 = behind2;
        behind2 = behind1;
        behind1 = current;
        current = infront1;
        infront1 = infront2;
        infront2 = infront3;
        infront3 = infront4;
        infront4 = g_input[in_idx];
        in_idx += stride;
        out_idx += stride;
        __syncthreads();

        // update the data slice in smem
        if (threadIdx.y < RADIUS) {  // halo above/below
            s_data[threadIdx.y][tx] = g_input[out_idx - RADIUS * dimx];
            s_data[threadIdx.y + BDIMY + RADIUS][tx] = g_input[out_idx + BDIMY * dimx];
        }
        if (threadIdx.x < RADIUS) {  // halo left/right
            s_data[ty][threadIdx.x] = g_input[out_idx - RADIUS];
            s_data[ty][threadIdx.x + BDIMX + RADIUS] = g_input[out_idx + BDIMX];
        }
        // update the slice in smem
        s_data[ty][tx] = current;
        __syncthreads();

        // compute the output value
        float value = c_coeff[0] * current;
        value += c_coeff[1] * (infront1 + behind1 + s_data[ty - 1][tx] + s_data[ty + 1][tx]
                                 + s_data[ty][tx - 1] + s_data[ty][tx + 1]);
        value += c_coeff[2] * (infront2 + behind2 + s_data[ty - 2][tx] + s_data[ty + 2][tx]
                                 + s_data[ty][tx - 2] + s_data[ty][tx + 2]);
        value += c_coeff[3] * (infront3 + behind3 + s_data[ty - 3][tx] + s_data[ty + 3][tx]
                                 + s_data[ty][tx - 3] + s_data[ty][tx + 3]);
        value += c_coeff[4] * (infront4 + behind4 + s_data[ty - 4][tx] + s_data[ty + 4][tx]
                                 + s_data[ty][tx - 4] + s_data[ty][tx + 4]);
        g_output[out_idx] = value;
    }
}
