// A kernel kept in a header, as tutorials keep them; the .cu that includes it is a whole program.
#pragma once

__global__ void saxpy(float* y, const float* x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
