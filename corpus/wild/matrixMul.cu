// The CUDA samples' matrixMul (Samples/0_Introduction/matrixMul/matrixMul.cu), kept as a user keeps the
// tutorial program: the whole file, host code and all. The sample's helper_cuda.h / helper_functions.h
// are replaced by what people paste instead (an error-checking macro, <vector> for the host arrays,
// a command line read with sscanf); the kernel is the sample's, shared-memory tiles of BLOCK_SIZE x
// BLOCK_SIZE, one output element per thread, instantiated for 16 and 32 as the sample does. It needs
// wA, wB and hA to be multiples of the block size, as the sample says.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cmath>
#include <vector>
#include <cuda_runtime.h>

#define CHECK_CUDA(call)                                                                        \
    do {                                                                                        \
        cudaError_t err_ = (call);                                                              \
        if (err_ != cudaSuccess) {                                                              \
            fprintf(stderr, "CUDA error at %s:%d code=%d (%s) \"%s\"\n", __FILE__, __LINE__,    \
                    static_cast<int>(err_), cudaGetErrorString(err_), #call);                   \
            exit(EXIT_FAILURE);                                                                 \
        }                                                                                       \
    } while (0)

/**
 * Matrix multiplication (CUDA Kernel) on the device: C = A * B
 * wA is A's width and wB is B's width
 */
template <int BLOCK_SIZE> __global__ void MatrixMulCUDA(float *C, float *A, float *B, int wA, int wB)
{
    // Block index
    int bx = blockIdx.x;
    int by = blockIdx.y;

    // Thread index
    int tx = threadIdx.x;
    int ty = threadIdx.y;

    // Index of the first sub-matrix of A processed by the block
    int aBegin = wA * BLOCK_SIZE * by;

    // Index of the last sub-matrix of A processed by the block
    int aEnd = aBegin + wA - 1;

    // Step size used to iterate through the sub-matrices of A
    int aStep = BLOCK_SIZE;

    // Index of the first sub-matrix of B processed by the block
    int bBegin = BLOCK_SIZE * bx;

    // Step size used to iterate through the sub-matrices of B
    int bStep = BLOCK_SIZE * wB;

    // Csub is used to store the element of the block sub-matrix
    // that is computed by the thread
    float Csub = 0;

    // Loop over all the sub-matrices of A and B
    // required to compute the block sub-matrix
    for (int a = aBegin, b = bBegin; a <= aEnd; a += aStep, b += bStep) {
        // Declaration of the shared memory array As used to
        // store the sub-matrix of A
        __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];

        // Declaration of the shared memory array Bs used to
        // store the sub-matrix of B
        __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];

        // Load the matrices from device memory
        // to shared memory; each thread loads
        // one element of each matrix
        As[ty][tx] = A[a + wA * ty + tx];
        Bs[ty][tx] = B[b + wB * ty + tx];

        // Synchronize to make sure the matrices are loaded
        __syncthreads();

        // Multiply the two matrices together;
        // each thread computes one element
        // of the block sub-matrix
#pragma unroll
        for (int k = 0; k < BLOCK_SIZE; ++k) {
            Csub += As[ty][k] * Bs[k][tx];
        }

        // Synchronize to make sure that the preceding
        // computation is done before loading two new
        // sub-matrices of A and B in the next iteration
        __syncthreads();
    }

    // Write the block sub-matrix to device memory;
    // each thread writes one element
    int c = wB * BLOCK_SIZE * by + BLOCK_SIZE * bx;
    C[c + wB * ty + tx] = Csub;
}

static void ConstantInit(std::vector<float> &data, float val)
{
    for (size_t i = 0; i < data.size(); ++i) {
        data[i] = val;
    }
}

/**
 * Run a simple test of matrix multiplication using CUDA
 */
static int MatrixMultiply(int block_size, const dim3 &dimsA, const dim3 &dimsB)
{
    // Allocate host memory for matrices A and B
    std::vector<float> h_A(dimsA.x * dimsA.y), h_B(dimsB.x * dimsB.y);

    // Initialize host memory
    const float valB = 0.01f;
    ConstantInit(h_A, 1.0f);
    ConstantInit(h_B, valB);

    // Allocate device memory
    float *d_A, *d_B, *d_C;

    // Allocate host matrix C
    dim3 dimsC(dimsB.x, dimsA.y, 1);
    std::vector<float> h_C(dimsC.x * dimsC.y);

    CHECK_CUDA(cudaMalloc(reinterpret_cast<void **>(&d_A), h_A.size() * sizeof(float)));
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void **>(&d_B), h_B.size() * sizeof(float)));
    CHECK_CUDA(cudaMalloc(reinterpret_cast<void **>(&d_C), h_C.size() * sizeof(float)));

    // Allocate CUDA events that we'll use for timing
    cudaEvent_t start, stop;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));

    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));

    // copy host memory to device
    CHECK_CUDA(cudaMemcpyAsync(d_A, h_A.data(), h_A.size() * sizeof(float), cudaMemcpyHostToDevice, stream));
    CHECK_CUDA(cudaMemcpyAsync(d_B, h_B.data(), h_B.size() * sizeof(float), cudaMemcpyHostToDevice, stream));

    // Setup execution parameters
    dim3 threads(block_size, block_size);
    dim3 grid(dimsB.x / threads.x, dimsA.y / threads.y);

    // Create and start timer
    printf("Computing result using CUDA Kernel...\n");

    // Performs warmup operation using matrixMul CUDA kernel
    if (block_size == 16) {
        MatrixMulCUDA<16><<<grid, threads, 0, stream>>>(d_C, d_A, d_B, dimsA.x, dimsB.x);
    } else {
        MatrixMulCUDA<32><<<grid, threads, 0, stream>>>(d_C, d_A, d_B, dimsA.x, dimsB.x);
    }
    CHECK_CUDA(cudaGetLastError());

    printf("done\n");
    CHECK_CUDA(cudaStreamSynchronize(stream));

    // Record the start event
    CHECK_CUDA(cudaEventRecord(start, stream));

    // Execute the kernel
    int nIter = 300;

    for (int j = 0; j < nIter; j++) {
        if (block_size == 16) {
            MatrixMulCUDA<16><<<grid, threads, 0, stream>>>(d_C, d_A, d_B, dimsA.x, dimsB.x);
        } else {
            MatrixMulCUDA<32><<<grid, threads, 0, stream>>>(d_C, d_A, d_B, dimsA.x, dimsB.x);
        }
    }
    CHECK_CUDA(cudaGetLastError());

    // Record the stop event
    CHECK_CUDA(cudaEventRecord(stop, stream));

    // Wait for the stop event to complete
    CHECK_CUDA(cudaEventSynchronize(stop));

    float msecTotal = 0.0f;
    CHECK_CUDA(cudaEventElapsedTime(&msecTotal, start, stop));

    // Compute and print the performance
    float msecPerMatrixMul = msecTotal / nIter;
    double flopsPerMatrixMul = 2.0 * static_cast<double>(dimsA.x) * static_cast<double>(dimsA.y) *
                               static_cast<double>(dimsB.x);
    double gigaFlops = (flopsPerMatrixMul * 1.0e-9f) / (msecPerMatrixMul / 1000.0f);
    printf("Performance= %.2f GFlop/s, Time= %.3f msec, Size= %.0f Ops, WorkgroupSize= %u threads/block\n",
           gigaFlops, msecPerMatrixMul, flopsPerMatrixMul, threads.x * threads.y);

    // Copy result from device to host
    CHECK_CUDA(cudaMemcpyAsync(h_C.data(), d_C, h_C.size() * sizeof(float), cudaMemcpyDeviceToHost, stream));
    CHECK_CUDA(cudaStreamSynchronize(stream));

    printf("Checking computed result for correctness: ");
    bool correct = true;

    // test relative error by the formula
    //     |<x, y>_cpu - <x,y>_gpu|/<|x|, |y|>  < eps
    double eps = 1.e-6;  // machine zero

    for (size_t i = 0; i < h_C.size(); i++) {
        double abs_err = fabs(h_C[i] - (dimsA.x * valB));
        double dot_length = dimsA.x;
        double abs_val = fabs(h_C[i]);
        double rel_err = abs_err / abs_val / dot_length;

        if (rel_err > eps) {
            printf("Error! Matrix[%05zu]=%.8f, ref=%.8f error term is > %E\n", i, h_C[i], dimsA.x * valB, eps);
            correct = false;
        }
    }

    printf("%s\n", correct ? "Result = PASS" : "Result = FAIL");

    // Clean up memory
    CHECK_CUDA(cudaFree(d_A));
    CHECK_CUDA(cudaFree(d_B));
    CHECK_CUDA(cudaFree(d_C));
    CHECK_CUDA(cudaEventDestroy(start));
    CHECK_CUDA(cudaEventDestroy(stop));
    CHECK_CUDA(cudaStreamDestroy(stream));

    return correct ? EXIT_SUCCESS : EXIT_FAILURE;
}

static int ArgInt(int argc, char **argv, const char *name, int fallback)
{
    size_t len = strlen(name);
    for (int i = 1; i < argc; ++i) {
        if (argv[i][0] == '-' && strncmp(argv[i] + 1, name, len) == 0 && argv[i][1 + len] == '=') {
            int v = fallback;
            sscanf(argv[i] + 2 + len, "%d", &v);
            return v;
        }
    }
    return fallback;
}

/**
 * Program main
 */
int main(int argc, char **argv)
{
    printf("[Matrix Multiply Using CUDA] - Starting...\n");

    int dev = ArgInt(argc, argv, "device", 0);
    CHECK_CUDA(cudaSetDevice(dev));

    // Use a larger block size for Fermi and above
    int block_size = 32;

    dim3 dimsA(5 * 2 * block_size, 5 * 2 * block_size, 1);
    dim3 dimsB(5 * 4 * block_size, 5 * 2 * block_size, 1);

    // width of Matrix A, height of Matrix A, width of Matrix B, height of Matrix B
    dimsA.x = ArgInt(argc, argv, "wA", dimsA.x);
    dimsA.y = ArgInt(argc, argv, "hA", dimsA.y);
    dimsB.x = ArgInt(argc, argv, "wB", dimsB.x);
    dimsB.y = ArgInt(argc, argv, "hB", dimsB.y);

    if (dimsA.x != dimsB.y) {
        printf("Error: outer matrix dimensions must be equal. (%d != %d)\n", dimsA.x, dimsB.y);
        exit(EXIT_FAILURE);
    }

    printf("MatrixA(%d,%d), MatrixB(%d,%d)\n", dimsA.x, dimsA.y, dimsB.x, dimsB.y);

    int matrix_result = MatrixMultiply(block_size, dimsA, dimsB);

    exit(matrix_result);
}
