// llm.c's layernorm_backward_kernel2 (train_gpt2_fp32.cu, Karpathy): the LayerNorm backward pass
// of GPT-2, fp32. One warp per (b, t) row of C channels: two warp reductions (mean of dnorm and of
// dnorm * norm), then per channel the input gradient accumulated into dinp (+=) and the bias and
// weight gradients accumulated by atomicAdd into the block's shared copies (2 * C floats of
// dynamic shared memory, zeroed behind a barrier); after a second barrier the block adds its
// shared dbias and dweight to the global ones with atomicAdd. Adapted only as NVRTC needs:
// extern "C"; cooperative groups' tile size and ranks are written out, cg::reduce is a
// __shfl_xor_sync butterfly (every lane gets the sum, as cg::reduce gives it).
__device__ inline float warp_reduce_sum(float val)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        val += __shfl_xor_sync(0xffffffff, val, offset);
    return val;
}

// uses shared memory instead for the reduces
extern "C" __global__ void layernorm_backward_kernel2(float* dinp, float* dweight, float* dbias, const float* dout,
                                                      const float* inp, const float* weight, const float* mean,
                                                      const float* rstd, int B, int T, int C)
{
    extern __shared__ float shared[];  // size = 2 * C

    // warp = cg::tiled_partition<32>(cg::this_thread_block())
    const int warp_size = 32;
    const int warp_thread_rank = threadIdx.x % 32;
    const int warp_meta_group_rank = threadIdx.x / 32;
    const int warp_meta_group_size = blockDim.x / 32;
    int idx = blockIdx.x * warp_meta_group_size + warp_meta_group_rank;
    int N = B * T;
    if (idx >= N) {
        return;
    }  // thread guards

    int b = idx / T;
    int t = idx % T;

    const float* dout_bt = dout + b * T * C + t * C;
    const float* inp_bt = inp + b * T * C + t * C;
    float* dinp_bt = dinp + b * T * C + t * C;
    const float mean_bt = mean[b * T + t];
    const float rstd_bt = rstd[b * T + t];

    // the first half of shared memory is bias, second is weight
    float* dbias_shared = shared;
    float* dweight_shared = shared + C;

    // init shared memory to zero
#pragma unroll
    for (int i = threadIdx.x; i < C; i += blockDim.x) {
        dbias_shared[i] = 0.0f;
        dweight_shared[i] = 0.0f;
    }
    __syncthreads();

    // first: two reduce operations
    float dnorm_mean = 0.0f;
    float dnorm_norm_mean = 0.0f;
    for (int i = warp_thread_rank; i < C; i += warp_size) {
        float norm_bti = (inp_bt[i] - mean_bt) * rstd_bt;
        float dnorm_i = weight[i] * dout_bt[i];
        dnorm_mean += dnorm_i;
        dnorm_norm_mean += dnorm_i * norm_bti;
    }
    dnorm_mean = warp_reduce_sum(dnorm_mean);
    dnorm_norm_mean = warp_reduce_sum(dnorm_norm_mean);
    dnorm_mean = dnorm_mean / C;
    dnorm_norm_mean = dnorm_norm_mean / C;

    // now iterate again and accumulate all the gradients
    for (int i = warp_thread_rank; i < C; i += warp_size) {
        float norm_bti = (inp_bt[i] - mean_bt) * rstd_bt;
        float dnorm_i = weight[i] * dout_bt[i];
        // gradient contribution to bias
        atomicAdd(&dbias_shared[i], dout_bt[i]);
        // gradient contribution to weight
        atomicAdd(&dweight_shared[i], norm_bti * dout_bt[i]);
        // gradient contribution to input
        float dval = 0.0f;
        dval += dnorm_i;  // term 1
        dval -= dnorm_mean;  // term 2
        dval -= norm_bti * dnorm_norm_mean;  // term 3
        dval *= rstd_bt;  // final scale
        dinp_bt[i] += dval;
    }
    __syncthreads();

    // write to global memory
    for (int i = threadIdx.x; i < C; i += blockDim.x) {
        atomicAdd(&dbias[i], dbias_shared[i]);
        atomicAdd(&dweight[i], dweight_shared[i]);
    }
}
