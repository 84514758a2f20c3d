// Weighted histogram of float values into 1024 equal bins over [minvalue, maxvalue]: one thread
// per element, one atomicAdd(float) of its weight on the global histogram (no privatization). The
// bin as torch.histc computes it (the top edge goes to the last bin); values outside are dropped.
// The host zeroes hist.
#define NBINS 1024

extern "C" __global__ void weighted_histogram(const float* __restrict__ x, const float* __restrict__ w,
                                              float* hist, int n, float minvalue, float maxvalue)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        if (v >= minvalue && v <= maxvalue) {
            int bin = (int)((v - minvalue) * NBINS / (maxvalue - minvalue));
            if (bin == NBINS) bin -= 1;
            atomicAdd(&hist[bin], w[i]);
        }
    }
}
