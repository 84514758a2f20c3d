// MurmurHash3_x86_32 of fixed 16-byte keys, one key per thread (the hashing step of a GPU hash
// table build or a hash join): 32-bit multiplies, rotates and xors, the fmix32 finalizer.
__device__ __forceinline__ unsigned int rotl32(unsigned int x, int r)
{
    return (x << r) | (x >> (32 - r));
}

__device__ __forceinline__ unsigned int fmix32(unsigned int h)
{
    h ^= h >> 16;
    h *= 0x85ebca6b;
    h ^= h >> 13;
    h *= 0xc2b2ae35;
    h ^= h >> 16;
    return h;
}

extern "C" __global__ void murmur3_32(const uint4* __restrict__ keys, unsigned int* __restrict__ hashes, int n,
                                      unsigned int seed)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned int c1 = 0xcc9e2d51;
    const unsigned int c2 = 0x1b873593;
    uint4 key = keys[i];
    unsigned int blocks[4] = {key.x, key.y, key.z, key.w};
    unsigned int h = seed;
    for (int b = 0; b < 4; b++) {
        unsigned int k = blocks[b];
        k *= c1;
        k = rotl32(k, 15);
        k *= c2;
        h ^= k;
        h = rotl32(h, 13);
        h = h * 5 + 0xe6546b64;
    }
    h ^= 16;  // the key length in bytes
    hashes[i] = fmix32(h);
}
