// Correct: each block sums its part in shared memory, then its thread 0 takes a lock between
// blocks (atomicCAS spin), adds the block's sum to the total, fences, and lets the lock go.
// The waiters spin until the holder, another block, releases it: on a GPU, and in cudasim.
extern "C" __global__ void ok_spin_lock(int* lock, float* total, const float* in, int n) {
    __shared__ float s[128];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (int off = 64; off > 0; off >>= 1) {
        if (t < off) s[t] += s[t + off];
        __syncthreads();
    }
    if (t == 0) {
        while (atomicCAS(lock, 0, 1) != 0) { }
        *total += s[0];
        __threadfence();
        atomicExch(lock, 0);
    }
}
