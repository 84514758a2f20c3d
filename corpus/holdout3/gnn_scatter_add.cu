// Sum aggregation of a graph neural network layer over an unsorted COO edge list (the
// scatter_add of PyTorch Geometric's message passing): one thread per (edge, feature), the
// source node's feature gathered and atomically added to the destination node's row, so a warp
// reads and adds 32 consecutive features of one row. The host zeroes out.
extern "C" __global__ void gnn_scatter_add(const float* __restrict__ x, const int* __restrict__ src,
                                           const int* __restrict__ dst, float* out, int num_edges, int features)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)num_edges * features) return;
    int e = (int)(i / features);
    int f = (int)(i - (long long)e * features);
    atomicAdd(&out[(long long)dst[e] * features + f], x[(long long)src[e] * features + f]);
}
