// A segmented inclusive sum with head flags, one 2048-item tile per block, written the CUB way:
// the shape of cub/examples/block/example_block_scan.cu (BlockPrefixSumKernel: a tile per block,
// BLOCK_LOAD_WARP_TRANSPOSE, BLOCK_SCAN_WARP_SCANS, BLOCK_STORE_WARP_TRANSPOSE) hand-expanded, with
// the (flag, value) pair operator of cub::ReduceBySegmentOp / thrust's head-flag segmented scan.
// Each warp loads its 512 items warp-striped (coalesced), transposes them through padded shared
// memory (cub::BlockExchange's one word per 32) to 16 consecutive items per thread, reduces them
// serially, scans the thread totals with __shfl_up_sync, combines the earlier warps' aggregates
// from shared memory, rescans its items with that prefix and stores back through the exchange.
// Segments also restart at every tile (tiles are independent, as in the example).
#define WARP_THREADS 32
#define PAD(i) ((i) + ((i) >> 5))  // cub::BlockExchange INSERT_PADDING: one word every 32

struct FlagValue {
    int flag;
    float value;
};

// the segmented-sum operator on (head flag, value) pairs: associative, (0, 0) its identity
__device__ __forceinline__ FlagValue SegmentedSum(const FlagValue& a, const FlagValue& b)
{
    FlagValue r;
    r.flag = a.flag | b.flag;
    r.value = b.flag ? b.value : a.value + b.value;
    return r;
}

template <int BLOCK_THREADS, int ITEMS_PER_THREAD>
__global__ void __launch_bounds__(BLOCK_THREADS)
    BlockSegmentedScanKernel(const float* d_in, const int* d_flags, float* d_out, int num_items)
{
    enum {
        TILE_ITEMS = BLOCK_THREADS * ITEMS_PER_THREAD,
        WARPS = BLOCK_THREADS / WARP_THREADS,
        WARP_ITEMS = WARP_THREADS * ITEMS_PER_THREAD,
    };

    __shared__ float s_values[PAD(TILE_ITEMS)];
    __shared__ int s_flags[PAD(TILE_ITEMS)];
    __shared__ FlagValue s_warp_aggregates[WARPS];

    const int lane = threadIdx.x % WARP_THREADS;
    const int warp = threadIdx.x / WARP_THREADS;
    const int tile_offset = blockIdx.x * TILE_ITEMS;
    const int warp_offset = warp * WARP_ITEMS;

    // BlockLoad, warp-striped: guarded for the last tile (out-of-range items start a segment of zeros)
    float values[ITEMS_PER_THREAD];
    int flags[ITEMS_PER_THREAD];
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; i++) {
        int idx = tile_offset + warp_offset + i * WARP_THREADS + lane;
        values[i] = (idx < num_items) ? d_in[idx] : 0.0f;
        flags[i] = (idx < num_items) ? d_flags[idx] : 1;
    }

    // WarpStripedToBlocked
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; i++) {
        s_values[PAD(warp_offset + i * WARP_THREADS + lane)] = values[i];
        s_flags[PAD(warp_offset + i * WARP_THREADS + lane)] = flags[i];
    }
    __syncwarp();
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; i++) {
        values[i] = s_values[PAD(warp_offset + lane * ITEMS_PER_THREAD + i)];
        flags[i] = s_flags[PAD(warp_offset + lane * ITEMS_PER_THREAD + i)];
    }

    // thread reduction
    FlagValue partial = {flags[0], values[0]};
#pragma unroll
    for (int i = 1; i < ITEMS_PER_THREAD; i++) {
        FlagValue item = {flags[i], values[i]};
        partial = SegmentedSum(partial, item);
    }

    // WarpScanShfl: inclusive Kogge-Stone scan of the thread partials
    FlagValue inclusive = partial;
#pragma unroll
    for (int offset = 1; offset < WARP_THREADS; offset <<= 1) {
        FlagValue up;
        up.flag = __shfl_up_sync(0xffffffff, inclusive.flag, offset);
        up.value = __shfl_up_sync(0xffffffff, inclusive.value, offset);
        if (lane >= offset)
            inclusive = SegmentedSum(up, inclusive);
    }
    FlagValue exclusive;
    exclusive.flag = __shfl_up_sync(0xffffffff, inclusive.flag, 1);
    exclusive.value = __shfl_up_sync(0xffffffff, inclusive.value, 1);

    // the warp aggregates, and each warp's prefix from the warps before it (ApplyWarpAggregates)
    if (lane == WARP_THREADS - 1)
        s_warp_aggregates[warp] = inclusive;
    __syncthreads();

    FlagValue warp_prefix = {0, 0.0f};
#pragma unroll
    for (int w = 0; w < WARPS - 1; w++) {
        if (w < warp)
            warp_prefix = SegmentedSum(warp_prefix, s_warp_aggregates[w]);
    }
    FlagValue running = (lane == 0) ? warp_prefix : SegmentedSum(warp_prefix, exclusive);

    // thread rescan with the prefix
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; i++) {
        FlagValue item = {flags[i], values[i]};
        running = SegmentedSum(running, item);
        values[i] = running.value;
    }

    // BlockStore: BlockedToWarpStriped, then coalesced guarded stores
    __syncwarp();
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; i++)
        s_values[PAD(warp_offset + lane * ITEMS_PER_THREAD + i)] = values[i];
    __syncwarp();
#pragma unroll
    for (int i = 0; i < ITEMS_PER_THREAD; i++) {
        int idx = tile_offset + warp_offset + i * WARP_THREADS + lane;
        if (idx < num_items)
            d_out[idx] = s_values[PAD(warp_offset + i * WARP_THREADS + lane)];
    }
}
