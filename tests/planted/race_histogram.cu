// Planted bug: a histogram in global memory counted with a plain increment: threads of the
// block (and of other blocks) read, add and write the same bin with nothing ordering them.
extern "C" __global__ void race_histogram(unsigned* bins, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) bins[i % 8] += 1u;  // BUG race
}
