// Top-8 of every row (the candidates of top-k sampling over a vocabulary of logits), one warp per
// row, as warp-select kernels do it in their simplest form: each lane walks its strided share of the
// row keeping its own 8 best values, sorted, in registers; a value beats the lane's 8th only rarely
// once the list has filled, and then an unrolled compare-and-shift inserts it (the branch is data
// dependent and diverges within the warp). The warp then merges its 32 lists: 8 rounds of a
// __shfl_xor_sync arg-max over the lanes' heads, the winning lane popping its head.
#define K 8
#define FULL_MASK 0xffffffff

extern "C" __global__ void topk_rows_warp(const float* __restrict__ x, float* __restrict__ vals,
                                          int* __restrict__ idx, int rows, int cols)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (warp >= rows) return;
    const float* row = x + (size_t)warp * cols;

    float v[K];
    int id[K];
#pragma unroll
    for (int k = 0; k < K; k++) {
        v[k] = -__int_as_float(0x7f800000);
        id[k] = -1;
    }

    for (int c = lane; c < cols; c += 32) {
        float e = row[c];
        if (e > v[K - 1]) {
#pragma unroll
            for (int k = K - 1; k > 0; k--) {
                if (e > v[k]) {
                    bool up = e > v[k - 1];
                    v[k] = up ? v[k - 1] : e;
                    id[k] = up ? id[k - 1] : c;
                }
            }
            if (e > v[0]) {
                v[0] = e;
                id[0] = c;
            }
        }
    }

    for (int k = 0; k < K; k++) {
        float m = v[0];
        int src = lane;
#pragma unroll
        for (int off = 16; off > 0; off >>= 1) {
            float om = __shfl_xor_sync(FULL_MASK, m, off);
            int os = __shfl_xor_sync(FULL_MASK, src, off);
            if (om > m || (om == m && os < src)) {
                m = om;
                src = os;
            }
        }
        int mid = __shfl_sync(FULL_MASK, id[0], src);
        if (lane == src) {
#pragma unroll
            for (int j = 0; j < K - 1; j++) {
                v[j] = v[j + 1];
                id[j] = id[j + 1];
            }
            v[K - 1] = -__int_as_float(0x7f800000);
        }
        if (lane == 0) {
            vals[(size_t)warp * K + k] = m;
            idx[(size_t)warp * K + k] = mid;
        }
    }
}
