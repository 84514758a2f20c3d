// BatchNorm training statistics of an NCHW tensor: one block per channel, every thread running
// Welford's online mean / M2 over its share of the channel's N x HW values (a division per value),
// the partial (count, mean, M2) merged across the warp with shuffles (Chan et al.'s pairwise
// formula), then across the warps through shared memory. Writes (mean, 1 / sqrt(var + eps)) per
// channel, the biased variance, as PyTorch's batch_norm_collect_statistics does.
#define BLOCK 512

__device__ __forceinline__ void welford_merge(float& n, float& mean, float& m2, float n_b, float mean_b, float m2_b)
{
    float nt = n + n_b;
    float delta = mean_b - mean;
    float w = nt == 0.0f ? 0.0f : n_b / nt;
    mean += delta * w;
    m2 += m2_b + delta * delta * n * w;
    n = nt;
}

extern "C" __global__ void batchnorm_stats_welford(const float* __restrict__ input, float2* __restrict__ stats,
                                                   int N, int C, int HW, float eps)
{
    __shared__ float s_n[BLOCK / 32], s_mean[BLOCK / 32], s_m2[BLOCK / 32];
    int c = blockIdx.x;
    float n = 0.0f, mean = 0.0f, m2 = 0.0f;
    for (int b = 0; b < N; b++) {
        const float* plane = input + ((size_t)b * C + c) * HW;
        for (int i = threadIdx.x; i < HW; i += blockDim.x) {
            float x = plane[i];
            n += 1.0f;
            float delta = x - mean;
            mean += delta / n;
            m2 += delta * (x - mean);
        }
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        float n_b = __shfl_xor_sync(0xffffffff, n, offset);
        float mean_b = __shfl_xor_sync(0xffffffff, mean, offset);
        float m2_b = __shfl_xor_sync(0xffffffff, m2, offset);
        welford_merge(n, mean, m2, n_b, mean_b, m2_b);
    }
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    if (lane == 0) {
        s_n[warp] = n;
        s_mean[warp] = mean;
        s_m2[warp] = m2;
    }
    __syncthreads();
    if (warp == 0) {
        if (lane < BLOCK / 32) {
            n = s_n[lane];
            mean = s_mean[lane];
            m2 = s_m2[lane];
        } else {
            n = mean = m2 = 0.0f;
        }
        for (int offset = 16; offset > 0; offset >>= 1) {
            float n_b = __shfl_xor_sync(0xffffffff, n, offset);
            float mean_b = __shfl_xor_sync(0xffffffff, mean, offset);
            float m2_b = __shfl_xor_sync(0xffffffff, m2, offset);
            welford_merge(n, mean, m2, n_b, mean_b, m2_b);
        }
        if (lane == 0) stats[c] = make_float2(mean, rsqrtf(m2 / n + eps));
    }
}
