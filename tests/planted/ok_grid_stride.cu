// Correct: a grid-stride loop over more elements than threads (and not a multiple of them):
// every element is read and written by one thread only.
extern "C" __global__ void ok_grid_stride(float* y, const float* x, float a, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}
