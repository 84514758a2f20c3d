// Everyday math as users write it: <cmath>, <cfloat>, INFINITY, FLT_MAX, std:: functions.
#include <cmath>
#include <cfloat>

// One warp per row: the row's maximum (from -INFINITY), then exp(x - max) / sum, clamped to FLT_MAX.
extern "C" __global__ void row_softmax(float* out, const float* in, int rows, int cols)
{
    int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    int lane = threadIdx.x % 32;
    if (row >= rows) return;
    const float* x = in + row * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, x[c]);
    for (int off = 16; off > 0; off /= 2) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) s += __expf(x[c] - m);
    for (int off = 16; off > 0; off /= 2) s += __shfl_xor_sync(0xffffffffu, s, off);
    float inv = std::fmin(1.0f / s, FLT_MAX);
    for (int c = lane; c < cols; c += 32) out[row * cols + c] = std::fabs(__expf(x[c] - m) * inv) + std::sqrt(0.0f);
}
