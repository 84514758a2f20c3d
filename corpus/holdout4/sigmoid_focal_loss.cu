// Sigmoid focal loss forward (Lin et al., RetinaNet), elementwise over anchors x classes as mmcv's
// sigmoid_focal_loss_forward_cuda_kernel computes it: a grid-stride loop (mmcv's CUDA_1D_KERNEL_LOOP,
// at most 4096 blocks of 512), the anchor's int64 label compared with the class, p = sigmoid(x) by
// expf, and both terms (1 - p)^gamma log(p) and p^gamma log(1 - p) by powf and logf. mmcv's
// optional per-class weights (NULL unless given) are left out.
typedef long long int64_t;
#define FLT_MIN 1.175494351e-38F

#define CUDA_1D_KERNEL_LOOP(i, n) \
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < (n); i += blockDim.x * gridDim.x)

template <typename T>
__device__ void sigmoid_focal_loss_forward(const int nthreads, const T* input, const int64_t* target, T* output,
                                           const T gamma, const T alpha, const int num_classes)
{
    CUDA_1D_KERNEL_LOOP(index, nthreads)
    {
        int n = index / num_classes;
        int c = index % num_classes;

        int64_t t = target[n];
        T flag_p = (t == c);
        T flag_n = (t != c);

        // p = sigmoid(x) = 1. / 1. + expf(-x)
        T p = (T)1. / ((T)1. + expf(-input[index]));

        // (1 - p)**gamma * log(p)
        T term_p = pow(((T)1. - p), gamma) * log(max(p, (T)FLT_MIN));
        // p**gamma * log(1 - p)
        T term_n = pow(p, gamma) * log(max((T)1. - p, (T)FLT_MIN));

        output[index] = (T)0.;
        output[index] += -flag_p * alpha * term_p;
        output[index] += -flag_n * ((T)1. - alpha) * term_n;
    }
}

extern "C" __global__ void sigmoid_focal_loss_forward_cuda_kernel(const int nthreads, const float* input,
                                                                  const int64_t* target, float* output,
                                                                  const float gamma, const float alpha,
                                                                  const int num_classes)
{
    sigmoid_focal_loss_forward<float>(nthreads, input, target, output, gamma, alpha, num_classes);
}
