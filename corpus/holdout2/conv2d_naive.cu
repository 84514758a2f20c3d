// 3x3 2D convolution of a float image straight from global memory, one thread per output pixel on
// 16x16 blocks, the filter an ordinary kernel argument (a 9-float array in global memory) and
// zero padding at the edges: the "naive" first version before the constant-memory and tiled ones
// (Kirk & Hwu, "Programming Massively Parallel Processors", chapter 7).
#define FILTER_RADIUS 1

extern "C" __global__ void conv2d_naive_3x3(const float* __restrict__ in, const float* __restrict__ filter,
                                            float* __restrict__ out, int width, int height)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (col >= width || row >= height) return;

    float sum = 0.0f;
    for (int fr = 0; fr < 2 * FILTER_RADIUS + 1; fr++) {
        for (int fc = 0; fc < 2 * FILTER_RADIUS + 1; fc++) {
            int in_row = row - FILTER_RADIUS + fr;
            int in_col = col - FILTER_RADIUS + fc;
            if (in_row >= 0 && in_row < height && in_col >= 0 && in_col < width)
                sum += filter[fr * (2 * FILTER_RADIUS + 1) + fc] * in[in_row * width + in_col];
        }
    }
    out[row * width + col] = sum;
}
