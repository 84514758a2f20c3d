// The 3x3 median filter as the widely copied CUDA tutorial kernel writes it (medianFilterKernel,
// 16 x 16 blocks, one thread per pixel of an 8-bit image): the nine window bytes gathered into a
// local array, sorted by the exchange sort's 36 compare-and-swaps (branches on the pixel values),
// the fifth one stored; the one-pixel frame is set to 0.
#define TILE_SIZE 16
#define WINDOW_SIZE 3

extern "C" __global__ void medianFilterKernel(unsigned char* inputImageKernel, unsigned char* outputImagekernel,
                                              int imageWidth, int imageHeight)
{
    // Set row and colum for thread.
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned char filterVector[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};  // Take fiter window
    if ((row == 0) || (col == 0) || (row == imageHeight - 1) || (col == imageWidth - 1))
        outputImagekernel[row * imageWidth + col] = 0;  // Deal with boundry conditions
    else {
        for (int x = 0; x < WINDOW_SIZE; x++) {
            for (int y = 0; y < WINDOW_SIZE; y++) {
                filterVector[x * WINDOW_SIZE + y] = inputImageKernel[(row + x - 1) * imageWidth + (col + y - 1)];  // setup the filterign window.
            }
        }
        for (int i = 0; i < 9; i++) {
            for (int j = i + 1; j < 9; j++) {
                if (filterVector[i] > filterVector[j]) {
                    // Swap the variables.
                    char tmp = filterVector[i];
                    filterVector[i] = filterVector[j];
                    filterVector[j] = tmp;
                }
            }
        }
        outputImagekernel[row * imageWidth + col] = filterVector[4];  // Set the output variables.
    }
}
