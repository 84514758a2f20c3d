// Embedding lookup, the forward of torch.nn.Embedding: output row r is row idx[r] of the weight
// table (int64 indices, as PyTorch passes them). A 32x8 block copies 8 rows, one warp per row
// striding over the embedding dimension.
extern "C" __global__ void embedding_forward(const long long* __restrict__ idx, const float* __restrict__ weight,
                                             float* __restrict__ out, int num_indices, int dim)
{
    int row = blockIdx.x * blockDim.y + threadIdx.y;
    if (row >= num_indices) return;
    long long src = idx[row];
    for (int d = threadIdx.x; d < dim; d += blockDim.x)
        out[(long long)row * dim + d] = weight[src * dim + d];
}
