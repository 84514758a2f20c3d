// The update half of a k-means (Lloyd) iteration as the straightforward CUDA ports write it: the
// assignment kernel has labelled every point with its nearest centroid, and this kernel adds each
// point into its cluster's running sums, one float atomicAdd per (point, dimension), and bumps the
// cluster's member count with an integer atomicAdd; a tiny kernel divides afterwards. The points
// are row-major (n x dims), so a warp's loads at one d stride by a row, and its 32 atomics fall on
// the few cluster rows the lanes were assigned to: a small, hot table in L2. The host zeroes
// sums and counts.
extern "C" __global__ void kmeans_accumulate(const float* __restrict__ points, const int* __restrict__ assignments,
                                             float* sums, int* counts, int n, int dims)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int c = assignments[i];
    for (int d = 0; d < dims; d++)
        atomicAdd(&sums[c * dims + d], points[(size_t)i * dims + d]);
    atomicAdd(&counts[c], 1);
}
