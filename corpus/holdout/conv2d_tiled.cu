// 2D convolution with a 5x5 mask in constant memory, tiled in shared memory the textbook way
// (Kirk & Hwu, "Programming Massively Parallel Processors", strategy 1): a 16x16 block loads a
// 16x16 input tile (output tile + halo, zero outside the image) and its inner 12x12 threads each
// compute one output pixel.
#define MASK_WIDTH 5
#define MASK_RADIUS (MASK_WIDTH / 2)
#define O_TILE_WIDTH 12
#define BLOCK_WIDTH (O_TILE_WIDTH + MASK_WIDTH - 1)

__constant__ float c_mask[MASK_WIDTH * MASK_WIDTH];

extern "C" __global__ void conv2d_tiled(const float* __restrict__ in, float* __restrict__ out, int width, int height)
{
    __shared__ float tile[BLOCK_WIDTH][BLOCK_WIDTH];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row_o = blockIdx.y * O_TILE_WIDTH + ty;
    int col_o = blockIdx.x * O_TILE_WIDTH + tx;
    int row_i = row_o - MASK_RADIUS;
    int col_i = col_o - MASK_RADIUS;

    if (row_i >= 0 && row_i < height && col_i >= 0 && col_i < width)
        tile[ty][tx] = in[row_i * width + col_i];
    else
        tile[ty][tx] = 0.0f;
    __syncthreads();

    if (ty < O_TILE_WIDTH && tx < O_TILE_WIDTH) {
        float acc = 0.0f;
        for (int i = 0; i < MASK_WIDTH; i++)
            for (int j = 0; j < MASK_WIDTH; j++)
                acc += c_mask[i * MASK_WIDTH + j] * tile[ty + i][tx + j];
        if (row_o < height && col_o < width)
            out[row_o * width + col_o] = acc;
    }
}
