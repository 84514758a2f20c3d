// cuDF's valid_if_kernel (cpp/include/cudf/detail/valid_if.cuh) as cudf::nans_to_nulls launches it
// on a FLOAT32 column: a null mask (one bit per row, 32-bit words) from a predicate, here "not
// NaN". Each warp ballots its 32 predicates and its lane 0 writes the word and counts its bits;
// single_lane_block_sum_reduce (cudf/detail/utilities/cuda.cuh) sums the warps' counts through
// shared memory and the block adds its total to the valid count with one atomicAdd. Indices are
// 64-bit (grid_1d::global_thread_id / grid_stride); one thread per row (grid_1d{size, 256}).
// Re-typed: CUDF_KERNEL (__global__ static) is __global__, cub::WarpReduce<int>::Sum written out as
// the shuffle-down reduction it is.
#include <stdint.h>

using bitmask_type = uint32_t;
using size_type = int32_t;
using thread_index_type = int64_t;

constexpr int warp_size = 32;
constexpr size_type leader_lane{0};

__device__ constexpr size_type word_index(size_type bit_index) { return bit_index / (sizeof(bitmask_type) * 8); }

struct grid_1d {
    template <int num_threads_per_block>
    static __device__ thread_index_type global_thread_id()
    {
        return threadIdx.x + static_cast<thread_index_type>(blockIdx.x) * num_threads_per_block;
    }

    template <int num_threads_per_block>
    static __device__ thread_index_type grid_stride()
    {
        return static_cast<thread_index_type>(num_threads_per_block) * gridDim.x;
    }
};

template <int32_t block_size, int32_t leader_lane = 0, typename T>
__device__ T single_lane_block_sum_reduce(T lane_value)
{
    static_assert(block_size <= 1024, "Invalid block size.");
    constexpr auto warps_per_block{block_size / warp_size};
    auto const lane_id{threadIdx.x % warp_size};
    auto const warp_id{threadIdx.x / warp_size};
    __shared__ T lane_values[warp_size];

    // Load each lane's value into a shared memory array
    if (lane_id == leader_lane) { lane_values[warp_id] = lane_value; }
    __syncthreads();

    // Use a single warp to do the reduction, result is only defined in
    // threadId.x == 0
    T result{0};
    if (warp_id == 0) {
        lane_value = (lane_id < warps_per_block) ? lane_values[lane_id] : T{0};
        // cub::WarpReduce<T>(temp).Sum(lane_value)
        for (int offset = warp_size / 2; offset > 0; offset /= 2)
            lane_value += __shfl_down_sync(0xFFFF'FFFFu, lane_value, offset);
        result = lane_value;
    }
    // Shared memory has block scope, so sync here to ensure no data
    // is being read by subsequent calls to this function
    __syncthreads();
    return result;
}

// the predicate cudf::nans_to_nulls gives valid_if
struct not_nan {
    __device__ bool operator()(float value) const { return not isnan(value); }
};

template <size_type block_size, typename InputIterator, typename Predicate>
__global__ void valid_if_kernel(
    bitmask_type* output, InputIterator begin, size_type size, Predicate p, size_type* valid_count)
{
    auto const lane_id{threadIdx.x % warp_size};
    auto i = grid_1d::global_thread_id<block_size>();
    auto const stride = grid_1d::grid_stride<block_size>();
    size_type warp_valid_count{0};

    auto active_mask = __ballot_sync(0xFFFF'FFFFu, i < size);
    while (i < size) {
        bitmask_type ballot = __ballot_sync(active_mask, p(*(begin + i)));
        if (lane_id == leader_lane) {
            output[word_index(i)] = ballot;
            warp_valid_count += __popc(ballot);
        }
        i += stride;
        active_mask = __ballot_sync(active_mask, i < size);
    }

    size_type block_count = single_lane_block_sum_reduce<block_size, leader_lane>(warp_valid_count);
    if (threadIdx.x == 0) { atomicAdd(valid_count, block_count); }
}
