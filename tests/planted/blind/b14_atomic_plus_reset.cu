// Counting positive elements with atomicAdd, but block 0 thread 0 "initializes" the counter
// in the same kernel with a plain store: other blocks' atomics may already have landed.
extern "C" __global__ void count_pos(const float* x, unsigned* count, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) *count = 0u;  // BUG race
    if (i < n && x[i] > 0.5f) atomicAdd(count, 1u);
}
