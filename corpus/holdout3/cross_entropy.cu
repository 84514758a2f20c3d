// Cross-entropy loss forward, one warp per row of logits: a single pass with the online softmax
// normalizer (Milakov & Gimelshein, 2018), each lane keeping a running max and a sum of exps
// rescaled whenever the max grows, the lanes' (max, sum) pairs merged by butterfly shuffles; the
// loss is logsumexp - logit[target] with int64 targets, as PyTorch passes them.
#define NEG_FLT_MAX -3.402823466e+38f

extern "C" __global__ void cross_entropy_online(const float* __restrict__ logits, const long long* __restrict__ targets,
                                                float* __restrict__ loss, int rows, int classes)
{
    int row = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* x = logits + (size_t)row * classes;
    float m = NEG_FLT_MAX, s = 0.0f;
    for (int j = lane; j < classes; j += 32) {
        float v = x[j];
        float m_new = fmaxf(m, v);
        s = s * expf(m - m_new) + expf(v - m_new);
        m = m_new;
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        float m_o = __shfl_xor_sync(0xffffffff, m, offset);
        float s_o = __shfl_xor_sync(0xffffffff, s, offset);
        float m_new = fmaxf(m, m_o);
        s = s * expf(m - m_new) + s_o * expf(m_o - m_new);
        m = m_new;
    }
    if (lane == 0) loss[row] = logf(s) + m - x[targets[row]];
}
