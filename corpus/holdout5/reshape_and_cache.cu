// vLLM's reshape_and_cache: the keys and values of the new tokens copied into the paged KV cache,
// one block per token, its slot (block number * block_size + position in the block) looked up in
// slot_mapping (negative for padding tokens, skipped). The key cache is laid out
// [num_blocks, num_heads, head_size / x, block_size, x] with x = 8 halves (16 bytes), the value
// cache [num_blocks, num_heads, head_size, block_size]: a token's value elements land block_size
// elements apart, one 2-byte store per 32-byte sector. fp16 data moved as uint16_t, as vLLM's
// dispatch does.
typedef unsigned short uint16_t;
typedef long long int64_t;

extern "C" __global__ void reshape_and_cache_kernel(
    const uint16_t* __restrict__ key,          // [num_tokens, num_heads, head_size]
    const uint16_t* __restrict__ value,        // [num_tokens, num_heads, head_size]
    uint16_t* __restrict__ key_cache,          // [num_blocks, num_heads, head_size/x, block_size, x]
    uint16_t* __restrict__ value_cache,        // [num_blocks, num_heads, head_size, block_size]
    const int64_t* __restrict__ slot_mapping,  // [num_tokens]
    const int key_stride, const int value_stride, const int num_heads, const int head_size, const int block_size,
    const int x)
{
    const int64_t token_idx = blockIdx.x;
    const int64_t slot_idx = slot_mapping[token_idx];
    if (slot_idx < 0) {
        // Padding token that should be ignored.
        return;
    }

    const int64_t block_idx = slot_idx / block_size;
    const int64_t block_offset = slot_idx % block_size;

    const int n = num_heads * head_size;
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        const int64_t src_key_idx = token_idx * key_stride + i;
        const int64_t src_value_idx = token_idx * value_stride + i;

        const int head_idx = i / head_size;
        const int head_offset = i % head_size;
        const int x_idx = head_offset / x;
        const int x_offset = head_offset % x;

        const int64_t tgt_key_idx = block_idx * num_heads * (head_size / x) * block_size * x
                                    + head_idx * (head_size / x) * block_size * x
                                    + x_idx * block_size * x
                                    + block_offset * x
                                    + x_offset;
        const int64_t tgt_value_idx = block_idx * num_heads * head_size * block_size
                                      + head_idx * head_size * block_size
                                      + head_offset * block_size
                                      + block_offset;
        key_cache[tgt_key_idx] = key[src_key_idx];
        value_cache[tgt_value_idx] = value[src_value_idx];
    }
}
