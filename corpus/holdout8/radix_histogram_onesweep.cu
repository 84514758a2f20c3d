// The upfront digit-histogram pass of CUB's onesweep radix sort (DeviceRadixSortHistogramKernel /
// AgentRadixSortHistogram, cub/agent/agent_radix_sort_histogram.cuh, Adinets and Merrill 2022) for
// 32-bit unsigned keys and 8-bit digits, hand-expanded with its sm_90 policy for 4-byte keys
// (128 threads, 16 keys a thread, one part): each block zeroes one shared histogram per digit
// pass, walks 2048-key tiles in a grid-stride loop (keys loaded striped, coalesced), bumps the
// four digits of every key with shared-memory atomicAdd, then adds its non-zero bins to the global
// histograms (4 x 256 counters) with one atomicAdd each. The grid is a full-occupancy wave.
#define RADIX_BITS 8
#define RADIX_DIGITS (1 << RADIX_BITS)
#define NUM_PASSES 4  // 32-bit keys
#define NUM_PARTS 1   // NOMINAL_4B_NUM_PARTS for 4-byte keys

__device__ __forceinline__ unsigned int LaneId()
{
    unsigned int ret;
    asm("mov.u32 %0, %%laneid;" : "=r"(ret));
    return ret;
}

// cub::BFE: num_bits bits of source from bit_start
__device__ __forceinline__ unsigned int BFE(unsigned int source, unsigned int bit_start, unsigned int num_bits)
{
    unsigned int bits;
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(bits) : "r"(source), "r"(bit_start), "r"(num_bits));
    return bits;
}

template <int BLOCK_THREADS, int ITEMS_PER_THREAD>
__global__ void __launch_bounds__(BLOCK_THREADS)
    DeviceRadixSortHistogramKernel(unsigned int* d_bins_out, const unsigned int* d_keys_in, int num_items,
                                   int begin_bit, int end_bit)
{
    enum { TILE_ITEMS = BLOCK_THREADS * ITEMS_PER_THREAD };

    __shared__ unsigned int bins[NUM_PASSES][RADIX_DIGITS][NUM_PARTS];

    // Init: zero the shared histograms
    for (int bin = threadIdx.x; bin < RADIX_DIGITS; bin += BLOCK_THREADS) {
#pragma unroll
        for (int pass = 0; pass < NUM_PASSES; ++pass) {
#pragma unroll
            for (int part = 0; part < NUM_PARTS; ++part) {
                bins[pass][bin][part] = 0;
            }
        }
    }
    __syncthreads();

    const int part = LaneId() % NUM_PARTS;
    for (int tile_offset = blockIdx.x * TILE_ITEMS; tile_offset < num_items; tile_offset += TILE_ITEMS * gridDim.x) {
        // LoadTileKeys: striped, guarded on a partial tile
        unsigned int keys[ITEMS_PER_THREAD];
        const bool full_tile = tile_offset + TILE_ITEMS <= num_items;
        const int valid_items = num_items - tile_offset;
#pragma unroll
        for (int u = 0; u < ITEMS_PER_THREAD; ++u) {
            int idx = u * BLOCK_THREADS + threadIdx.x;
            keys[u] = (full_tile || idx < valid_items) ? d_keys_in[tile_offset + idx] : 0xFFFFFFFFu;
        }

        // AccumulateSharedHistograms
#pragma unroll
        for (int current_bit = begin_bit, pass = 0; current_bit < end_bit; current_bit += RADIX_BITS, ++pass) {
            const int num_bits = min(RADIX_BITS, end_bit - current_bit);
#pragma unroll
            for (int u = 0; u < ITEMS_PER_THREAD; ++u) {
                if (full_tile || u * BLOCK_THREADS + (int)threadIdx.x < valid_items) {
                    unsigned int bin = BFE(keys[u], current_bit, num_bits);
                    // Using cuda::atomic<> results in lower performance on GP100,
                    // so atomicAdd() is used instead.
                    atomicAdd(&bins[pass][bin][part], 1);
                }
            }
        }
    }
    __syncthreads();

    // AccumulateGlobalHistograms
    for (int bin = threadIdx.x; bin < RADIX_DIGITS; bin += BLOCK_THREADS) {
#pragma unroll
        for (int pass = 0; pass < NUM_PASSES; ++pass) {
            unsigned int count = 0;
#pragma unroll
            for (int p = 0; p < NUM_PARTS; ++p)
                count += bins[pass][bin][p];
            if (count > 0) {
                atomicAdd(&d_bins_out[pass * RADIX_DIGITS + bin], count);
            }
        }
    }
}
