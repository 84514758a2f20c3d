// The block-local pass of the CUDA SDK's radixSort (Satish, Harris and Garland, "Designing
// efficient sorting algorithms for manycore GPUs"): each 256-thread block sorts its 1024 keys
// (a uint4 per thread) and their values by nbits = 4 bits, one bit at a time, with a 1-bit split:
// the predicates are ranked by a block scan (scan4: four keys per thread, then warp scans in
// shared memory), and keys and values are scattered to their ranks in shared memory, strided
// across four 256-word regions so the reads back are free of bank conflicts. The warp scans
// are the SDK's with __syncwarp() between the shared-memory steps (CUDA 9's fix for
// warp-synchronous code). A later kernel finds the digit offsets and scatters globally.
typedef unsigned int uint;

#define WARP_SIZE 32
#define SORT_CTA_SIZE 256
#define LOG2_WARP_SIZE 5

template <class T, int maxlevel>
__device__ T scanwarp(T val, volatile T* sData)
{
    // The following is the same as 2 * WARP_SIZE * warpId + threadInWarp =
    // 64*(threadIdx.x >> 5) + (threadIdx.x & (WARP_SIZE - 1))
    int idx = 2 * threadIdx.x - (threadIdx.x & (WARP_SIZE - 1));
    sData[idx] = 0;
    idx += WARP_SIZE;
    T t = sData[idx] = val;
    __syncwarp();

    T s;
    if (0 <= maxlevel) { s = sData[idx - 1];  __syncwarp(); sData[idx] = t = t + s; __syncwarp(); }
    if (1 <= maxlevel) { s = sData[idx - 2];  __syncwarp(); sData[idx] = t = t + s; __syncwarp(); }
    if (2 <= maxlevel) { s = sData[idx - 4];  __syncwarp(); sData[idx] = t = t + s; __syncwarp(); }
    if (3 <= maxlevel) { s = sData[idx - 8];  __syncwarp(); sData[idx] = t = t + s; __syncwarp(); }
    if (4 <= maxlevel) { s = sData[idx - 16]; __syncwarp(); sData[idx] = t = t + s; __syncwarp(); }

    return sData[idx] - val;  // convert inclusive -> exclusive
}

__device__ uint4 scan4(uint4 idata)
{
    extern __shared__ uint ptr[];

    uint idx = threadIdx.x;

    uint4 val4 = idata;
    uint sum[3];
    sum[0] = val4.x;
    sum[1] = val4.y + sum[0];
    sum[2] = val4.z + sum[1];

    uint val = val4.w + sum[2];

    val = scanwarp<uint, 4>(val, ptr);
    __syncthreads();

    if ((idx & (WARP_SIZE - 1)) == WARP_SIZE - 1) {
        ptr[idx >> LOG2_WARP_SIZE] = val + val4.w + sum[2];
    }
    __syncthreads();

    if (idx < WARP_SIZE) {
        ptr[idx] = scanwarp<uint, 2>(ptr[idx], ptr);
    }
    __syncthreads();

    val += ptr[idx >> LOG2_WARP_SIZE];

    val4.x = val;
    val4.y = val + sum[0];
    val4.z = val + sum[1];
    val4.w = val + sum[2];

    return val4;
}

template <int ctasize>
__device__ uint4 rank4(uint4 preds)
{
    uint4 address = scan4(preds);

    __shared__ uint numtrue;
    if (threadIdx.x == ctasize - 1) {
        numtrue = address.w + preds.w;
    }
    __syncthreads();

    uint4 rank;
    uint idx = threadIdx.x << 2;
    rank.x = (preds.x) ? address.x : numtrue + idx - address.x;
    rank.y = (preds.y) ? address.y : numtrue + idx + 1 - address.y;
    rank.z = (preds.z) ? address.z : numtrue + idx + 2 - address.z;
    rank.w = (preds.w) ? address.w : numtrue + idx + 3 - address.w;

    return rank;
}

template <uint nbits, uint startbit>
__device__ void radixSortBlock(uint4& key, uint4& value)
{
    extern __shared__ uint sMem1[];
    for (uint shift = startbit; shift < (startbit + nbits); ++shift) {
        uint4 lsb;
        lsb.x = !((key.x >> shift) & 0x1);
        lsb.y = !((key.y >> shift) & 0x1);
        lsb.z = !((key.z >> shift) & 0x1);
        lsb.w = !((key.w >> shift) & 0x1);

        uint4 r = rank4<SORT_CTA_SIZE>(lsb);

        // This arithmetic strides the ranks across 4 SORT_CTA_SIZE regions
        sMem1[(r.x & 3) * SORT_CTA_SIZE + (r.x >> 2)] = key.x;
        sMem1[(r.y & 3) * SORT_CTA_SIZE + (r.y >> 2)] = key.y;
        sMem1[(r.z & 3) * SORT_CTA_SIZE + (r.z >> 2)] = key.z;
        sMem1[(r.w & 3) * SORT_CTA_SIZE + (r.w >> 2)] = key.w;
        __syncthreads();

        // The above allows us to read without 4-way bank conflicts:
        key.x = sMem1[threadIdx.x];
        key.y = sMem1[threadIdx.x + SORT_CTA_SIZE];
        key.z = sMem1[threadIdx.x + 2 * SORT_CTA_SIZE];
        key.w = sMem1[threadIdx.x + 3 * SORT_CTA_SIZE];

        __syncthreads();

        sMem1[(r.x & 3) * SORT_CTA_SIZE + (r.x >> 2)] = value.x;
        sMem1[(r.y & 3) * SORT_CTA_SIZE + (r.y >> 2)] = value.y;
        sMem1[(r.z & 3) * SORT_CTA_SIZE + (r.z >> 2)] = value.z;
        sMem1[(r.w & 3) * SORT_CTA_SIZE + (r.w >> 2)] = value.w;
        __syncthreads();

        value.x = sMem1[threadIdx.x];
        value.y = sMem1[threadIdx.x + SORT_CTA_SIZE];
        value.z = sMem1[threadIdx.x + 2 * SORT_CTA_SIZE];
        value.w = sMem1[threadIdx.x + 3 * SORT_CTA_SIZE];

        __syncthreads();
    }
}

template <uint nbits, uint startbit>
__global__ void radixSortBlocks(uint4* keysOut, uint4* valuesOut, uint4* keysIn, uint4* valuesIn, uint numElements,
                                uint startBlock)
{
    uint4 key, value;

    const uint blockId = blockIdx.x + startBlock;
    const uint i = blockId * blockDim.x + threadIdx.x;

    key = keysIn[i];
    value = valuesIn[i];

    __syncthreads();

    radixSortBlock<nbits, startbit>(key, value);

    keysOut[i] = key;
    valuesOut[i] = value;
}
