// Rodinia's backprop, the forward pass of the input layer: 16 x 16 blocks, each the weights of 16
// inputs (rows) into the 16 hidden units (columns); the inputs and weights staged in shared memory,
// the products summed down the columns by a log2(16)-step tree whose strides come from __powf, the
// partial sums written per block (the host adds them). The weights keep the products in place,
// as Rodinia's kernel leaves them. The (in + 1) x (hid + 1) weight matrix skips row and column 0
// (the bias).
#define WIDTH 16   // shared memory width
#define HEIGHT 16  // shared memory height

extern "C" __global__ void bpnn_layerforward_CUDA(float* input_cuda, float* output_hidden_cuda,
                                                  float* input_hidden_cuda, float* hidden_partial_sum, int in,
                                                  int hid)
{
    int by = blockIdx.y;

    int tx = threadIdx.x;
    int ty = threadIdx.y;

    int index = (hid + 1) * HEIGHT * by + (hid + 1) * ty + tx + 1 + (hid + 1);

    int index_in = HEIGHT * by + ty + 1;

    __shared__ float input_node[HEIGHT];
    __shared__ float weight_matrix[HEIGHT][WIDTH];

    if (tx == 0)
        input_node[ty] = input_cuda[index_in];

    __syncthreads();

    weight_matrix[ty][tx] = input_hidden_cuda[index];

    __syncthreads();

    weight_matrix[ty][tx] = weight_matrix[ty][tx] * input_node[ty];

    __syncthreads();

    for (int i = 1; i <= __log2f(HEIGHT); i++) {
        int power_two = __powf(2, i);

        if (ty % power_two == 0)
            weight_matrix[ty][tx] = weight_matrix[ty][tx] + weight_matrix[ty + power_two / 2][tx];

        __syncthreads();
    }

    input_hidden_cuda[index] = weight_matrix[ty][tx];

    __syncthreads();

    if (tx == 0) {
        hidden_partial_sum[by * hid + ty] = weight_matrix[tx][ty];
    }
}
