// One step of Conway's Game of Life on a byte grid (1 alive, 0 dead) with wrap-around (toroidal)
// edges, one thread per cell on 16x16 blocks, the eight neighbours read straight from global
// memory: the first CUDA version of the classic in course assignments and tutorials.
extern "C" __global__ void game_of_life_step(const unsigned char* __restrict__ in, unsigned char* __restrict__ out,
                                             int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= width || y >= height) return;

    int xl = (x + width - 1) % width, xr = (x + 1) % width;
    int yu = (y + height - 1) % height, yd = (y + 1) % height;
    int alive = in[yu * width + xl] + in[yu * width + x] + in[yu * width + xr]
              + in[y * width + xl]                       + in[y * width + xr]
              + in[yd * width + xl] + in[yd * width + x] + in[yd * width + xr];
    unsigned char cell = in[y * width + x];
    out[y * width + x] = (alive == 3 || (alive == 2 && cell)) ? 1 : 0;
}
