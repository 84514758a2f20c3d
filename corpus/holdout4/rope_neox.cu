// Rotary position embedding (RoPE), NeoX layout, as llama.cpp's rope_neox kernel applies it to the
// query of a batch of tokens: one block per (token, head) row of 256 threads along y, a thread per
// pair (i, i + n_dims/2) of the head's dimensions (threads past the head return), the angle
// pos * theta_scale^(i/2) from powf, YaRN's ramp when ext_factor is nonzero, cosf and sinf.
typedef int int32_t;

static __device__ float rope_yarn_ramp(const float low, const float high, const int i0)
{
    const float y = (i0 / 2 - low) / max(0.001f, high - low);
    return 1.0f - min(1.0f, max(0.0f, y));
}

// YaRN algorithm based on LlamaYaRNScaledRotaryEmbedding.py from https://github.com/jquesnelle/yarn
// MIT licensed. Copyright (c) 2023 Jeffrey Quesnelle and Bowen Peng.
static __device__ void rope_yarn(const float theta_extrap, const float freq_scale, const float corr_low,
                                 const float corr_high, const int i0, const float ext_factor, float mscale,
                                 float* cos_theta, float* sin_theta)
{
    // Get n-d rotational scaling corrected for extrapolation
    float theta_interp = freq_scale * theta_extrap;
    float theta = theta_interp;
    if (ext_factor != 0.0f) {
        float ramp_mix = rope_yarn_ramp(corr_low, corr_high, i0) * ext_factor;
        theta = theta_interp * (1 - ramp_mix) + theta_extrap * ramp_mix;

        // Get n-d magnitude scaling corrected for interpolation
        mscale *= 1.0f + 0.1f * logf(1.0f / freq_scale);
    }
    *cos_theta = cosf(theta) * mscale;
    *sin_theta = sinf(theta) * mscale;
}

extern "C" __global__ void rope_neox_f32(const float* x, float* dst, const int ne0, const int ne1, const int s1,
                                         const int s2, const int n_dims, const int32_t* pos, const float freq_scale,
                                         const float ext_factor, const float attn_factor, const float corr_low,
                                         const float corr_high, const float theta_scale)
{
    const int i0 = 2 * (blockDim.y * blockIdx.y + threadIdx.y);

    if (i0 >= ne0) {
        return;
    }

    const int row_dst = blockDim.x * blockIdx.x + threadIdx.x;

    if (i0 >= n_dims) {
        const int i = row_dst * ne0 + i0;
        dst[i + 0] = x[i + 0];
        dst[i + 1] = x[i + 1];
        return;
    }

    const int row_x = row_dst % ne1;
    const int channel_x = row_dst / ne1;

    const int idst = row_dst * ne0 + i0 / 2;
    const int ix = channel_x * s2 + row_x * s1 + i0 / 2;

    const float theta_base = pos[channel_x] * powf(theta_scale, i0 / 2.0f);

    float cos_theta;
    float sin_theta;

    rope_yarn(theta_base, freq_scale, corr_low, corr_high, i0, ext_factor, attn_factor, &cos_theta, &sin_theta);

    const float x0 = x[ix + 0];
    const float x1 = x[ix + n_dims / 2];

    dst[idst + 0] = x0 * cos_theta - x1 * sin_theta;
    dst[idst + n_dims / 2] = x0 * sin_theta + x1 * cos_theta;
}
