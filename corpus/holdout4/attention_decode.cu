// Multi-head attention for one decoding step (batch 1, a KV cache of pos + 1 timesteps), as llama2.c's
// CUDA port runs it: one block of 1024 threads per head; first a thread per past timestep computing
// q . k / sqrt(head_size) (each thread reading its own key row: a warp's loads fall in 32 rows
// kv_dim floats apart), the scores kept in a global buffer; then the softmax over them by block
// max and sum reductions; then a thread per output dimension summing att[t] * v[t][i] over the
// timesteps (only head_size threads of the block working).
#define NUM_THREADS 1024
#define NEG_FLT_MAX -3.402823466e+38f

__device__ float block_reduce_max(float val)
{
    __shared__ float warp_vals[NUM_THREADS / 32];
    __shared__ float result;
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset >>= 1) val = fmaxf(val, __shfl_xor_sync(0xffffffff, val, offset));
    if (lane == 0) warp_vals[warp] = val;
    __syncthreads();
    if (warp == 0) {
        val = lane < blockDim.x / 32 ? warp_vals[lane] : NEG_FLT_MAX;
        for (int offset = 16; offset > 0; offset >>= 1) val = fmaxf(val, __shfl_xor_sync(0xffffffff, val, offset));
        if (lane == 0) result = val;
    }
    __syncthreads();
    return result;
}

__device__ float block_reduce_sum(float val)
{
    __shared__ float warp_vals[NUM_THREADS / 32];
    __shared__ float result;
    int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    for (int offset = 16; offset > 0; offset >>= 1) val += __shfl_xor_sync(0xffffffff, val, offset);
    if (lane == 0) warp_vals[warp] = val;
    __syncthreads();
    if (warp == 0) {
        val = lane < blockDim.x / 32 ? warp_vals[lane] : 0.0f;
        for (int offset = 16; offset > 0; offset >>= 1) val += __shfl_xor_sync(0xffffffff, val, offset);
        if (lane == 0) result = val;
    }
    __syncthreads();
    return result;
}

__device__ void softmax_gpu(float* __restrict__ x, int size)
{
    int tid = threadIdx.x;
    int step = blockDim.x;

    // find max value (for numerical stability)
    float max_val = tid < size ? x[tid] : NEG_FLT_MAX;
    for (int i = tid + step; i < size; i += step) {
        if (x[i] > max_val) {
            max_val = x[i];
        }
    }
    max_val = block_reduce_max(max_val);

    // exp and sum
    float sum = 0.0f;
    for (int i = tid; i < size; i += step) {
        x[i] = expf(x[i] - max_val);
        sum += x[i];
    }
    sum = block_reduce_sum(sum);

    // normalize
    for (int i = tid; i < size; i += step) {
        x[i] /= sum;
    }
}

extern "C" __global__ void multi_head_attention_kernel(int pos, int seq_len, float* sq, float* satt, float* sxb,
                                                       float* key_cache, float* value_cache, int kv_dim, int kv_mul,
                                                       int head_size, int loff)
{
    int h = blockIdx.x;
    // get the query vector for this head
    float* q = sq + h * head_size;
    // attention scores for this head
    float* att = satt + h * seq_len;
    // iterate over all timesteps, including the current one
    // In CUDA, each thread does a small portion of the calc
    for (int t = threadIdx.x; t <= pos; t += blockDim.x) {
        // get the key vector for this head and at this timestep
        float* k = key_cache + loff + t * kv_dim + (h / kv_mul) * head_size;
        // calculate the attention score as the dot product of q and k
        float score = 0.0f;
        for (int i = 0; i < head_size; i++) {
            score += q[i] * k[i];
        }
        score /= sqrtf(head_size);
        // save the score to the attention buffer
        att[t] = score;
    }
    // above was this threads portion of the iteration. wait for all threads to finish
    __syncthreads();

    // softmax the scores to get attention weights, from 0..pos inclusively
    softmax_gpu(att, pos + 1);
    __syncthreads();

    // weighted sum of the values, store back into xb
    float* xb = sxb + h * head_size;
    for (int i = threadIdx.x; i < head_size; i += blockDim.x) {
        float val = 0.0f;
        for (int t = 0; t <= pos; t++) {
            // get the value vector for this head and at this timestep
            float* v = value_cache + loff + t * kv_dim + (h / kv_mul) * head_size;
            // get the attention weight for this timestep
            float a = att[t];
            val += a * v[i];
        }
        xb[i] = val;
    }
}
