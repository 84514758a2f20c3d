// One fused Adam step over a flat parameter tensor, as apex's FusedAdam wrote it (adam_cuda_kernel):
// one thread per parameter in a grid-stride loop, the gradient unscaled, both moments updated in
// place, the update m / (sqrt(v) + eps) plus weight decay applied to the parameter with the
// bias-corrected step size the host computed. Four float streams in, three out.
typedef enum {
    ADAM_MODE_0 = 0,  // eps under the square root
    ADAM_MODE_1 = 1   // eps outside the square root
} adamMode_t;

extern "C" __global__ void adam_cuda_kernel(float* __restrict__ p, float* __restrict__ m, float* __restrict__ v,
                                            const float* __restrict__ g, const float b1, const float b2,
                                            const float eps, const float grad_scale, const float step_size,
                                            const size_t tsize, int mode, const float decay)
{
    // Assuming 2D grids and 2D blocks
    const int blockId = gridDim.x * blockIdx.y + blockIdx.x;
    const int threadsPerBlock = blockDim.x * blockDim.y;
    const int tid = threadsPerBlock * blockId + threadIdx.x + threadIdx.y * blockDim.x;
    const int totThreads = gridDim.x * gridDim.y * threadsPerBlock;

    for (int j = tid; j < tsize; j += totThreads) {
        float scaled_grad = g[j] / grad_scale;
        m[j] = b1 * m[j] + (1 - b1) * scaled_grad;
        v[j] = b2 * v[j] + (1 - b2) * scaled_grad * scaled_grad;
        float denom;
        if (mode == ADAM_MODE_0)
            denom = sqrtf(v[j] + eps);
        else  // Mode 1
            denom = sqrtf(v[j]) + eps;
        float update = (m[j] / denom) + (decay * p[j]);
        p[j] = p[j] - (step_size * update);
    }
}
