// PyTorch's EmbeddingBag forward for mode sum/mean (aten/src/ATen/native/cuda/EmbeddingBag.cu,
// EmbeddingBag_updateOutputKernel_sum_mean), as recommender models (DLRM, TorchRec's weighted
// features) call it: each (bag, feature) pair is one thread, walking the bag's indices and adding the
// table's rows, scaled by the per-sample weights. PyTorch's device-side asserts are left in as PyTorch
// builds them (CUDA_KERNEL_ASSERT is assert()): the bag's range and every index checked against the
// table. Adapted only as a file outside ATen must be: acc_type, ceil_div and the mode enum written
// out; instantiated for float weights and int64 indices, reached by its name expression.
#include <cassert>
#include <cstdint>

#define CUDA_KERNEL_ASSERT(cond) assert(cond)

enum EmbeddingBagMode { MODE_SUM = 0, MODE_MEAN = 1, MODE_MAX = 2 };

template <typename T> struct AccumulateType { using type = T; };
template <> struct AccumulateType<double> { using type = double; };
template <typename T, bool is_cuda> using acc_type = typename AccumulateType<T>::type;

template <typename T> __host__ __device__ inline T ceil_div(T a, T b) { return (a + b - 1) / b; }

// This kernel assumes that all input tensors are contiguous.
template <typename scalar_t, typename index_t>
__global__ void EmbeddingBag_updateOutputKernel_sum_mean(
    const index_t *input, const index_t *offsets, const scalar_t *weight, scalar_t *output,
    index_t *offset2bag, int64_t numIndices, int64_t numBags,
    int64_t featureSize, int64_t weight_stride0, int64_t weight_stride1,
    int mode, index_t *bag_size,
    const scalar_t* per_sample_weights, int64_t per_sample_weights_stride,
    index_t padding_idx, int64_t numRows) {

  // the strategy here is that each bag x feature is handled by a single thread

  using accscalar_t = acc_type<scalar_t, true>;
  int64_t chunksPerBag = ceil_div(featureSize, (int64_t)blockDim.x);
  int64_t numChunks = numBags * chunksPerBag;
  int64_t chunkOffset = blockIdx.x * blockDim.y + threadIdx.y;
  int64_t chunkStride = gridDim.x * blockDim.y;

  for (int64_t chunk = chunkOffset; chunk < numChunks; chunk += chunkStride) {
    int64_t featureDim = (chunk % chunksPerBag) * blockDim.x + threadIdx.x;
    if (featureDim < featureSize) {
      int64_t bag = chunk / chunksPerBag;
      const scalar_t *weightFeat = weight + featureDim * weight_stride1;
      int64_t begin = bag == 0 ? 0 : offsets[bag]; // forces first offset to be 0 instead of asserting on it
      int64_t end = (bag < numBags - 1) ? (offsets[bag + 1]) : numIndices;
      CUDA_KERNEL_ASSERT(end >= begin);
      accscalar_t weightFeatSum = 0;
      int64_t bag_size_ = 0;
      for (int64_t emb = begin; emb < end; emb++) {
        bool pad = (input[emb] == padding_idx);
        CUDA_KERNEL_ASSERT(input[emb] < numRows);
        const int64_t weightRow = input[emb] * weight_stride0;
        scalar_t weightValue = weightFeat[weightRow];
        weightValue = pad ? static_cast<scalar_t>(0) : weightValue;
        if (per_sample_weights) {
          accscalar_t scaleWeightBy = static_cast<accscalar_t>(
              per_sample_weights[emb * per_sample_weights_stride]);
          weightFeatSum += scaleWeightBy * static_cast<accscalar_t>(weightValue);
        } else {
          weightFeatSum += static_cast<accscalar_t>(weightValue);
        }
        bag_size_ += pad ? 0 : 1;

        if (featureDim == 0) {
          offset2bag[emb] = bag;
        }
      }
      if (mode == MODE_MEAN) {
        if (bag_size_ != 0) {
          weightFeatSum = weightFeatSum / static_cast<accscalar_t>(bag_size_);
        }
      }
      bag_size[bag] = bag_size_;
      output[bag * featureSize + featureDim] = static_cast<scalar_t>(weightFeatSum);
    }
  }
}

template __global__ void EmbeddingBag_updateOutputKernel_sum_mean<float, int64_t>(
    const int64_t *, const int64_t *, const float *, float *, int64_t *, int64_t, int64_t, int64_t, int64_t, int64_t,
    int, int64_t *, const float *, int64_t, int64_t, int64_t);
