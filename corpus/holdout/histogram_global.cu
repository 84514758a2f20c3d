// 256-bin histogram of an 8-bit grayscale image, the first version everyone writes: one thread
// per pixel, one atomicAdd on the global histogram each (no privatization), so all threads
// contend on 256 addresses. The host zeroes hist.
extern "C" __global__ void histogram_global_atomic(const unsigned char* __restrict__ img, unsigned int* hist, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[img[i]], 1);
}
