// Stream compaction (filtering) with one global counter: every element above the threshold takes
// the next output slot with an atomicAdd on the counter and is stored there, so the kept elements
// come out in whatever order the atomics happened. The store is guarded by the output's capacity,
// as append kernels with a fixed-size output are (OpenCV's CUDA corner detector appends its corners
// this way). The host zeroes count.
extern "C" __global__ void stream_compact_atomic(const float* __restrict__ in, float* __restrict__ out,
                                                 unsigned int* count, int n, float threshold, unsigned int capacity)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = in[i];
        if (v > threshold) {
            unsigned int pos = atomicAdd(count, 1);
            if (pos < capacity)
                out[pos] = v;
        }
    }
}
