// Matrix transpose, out (width x height) = in (height x width)^T, row-major floats.
// What it teaches: global coalescing (read rows, write rows) through a shared-memory tile,
// and the bank conflicts that reading the tile back column-wise creates, fixed two ways.
// Every kernel is bounds-checked, so any width and height work. Block: TILE x BLOCK_ROWS
// threads, each thread moves TILE / BLOCK_ROWS elements; grid: ceil(width/TILE) x ceil(height/TILE).

#ifndef TILE
#define TILE 32
#endif
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif

// The bandwidth reference: the same tiles and index math as the transposes, but out = in.
// Reads and writes are both coalesced; no transpose can beat it.
extern "C" __global__ void copy(float* __restrict__ out, const float* __restrict__ in, int width, int height)
{
    const int x = blockIdx.x * TILE + threadIdx.x;
    const int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (x < width && y + j < height) out[(y + j) * width + x] = in[(y + j) * width + x];
}

// Reads coalesced, writes strided by `height` floats: each warp's store touches 32 sectors.
extern "C" __global__ void transpose_naive(float* __restrict__ out, const float* __restrict__ in, int width, int height)
{
    const int x = blockIdx.x * TILE + threadIdx.x;
    const int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (x < width && y + j < height) out[x * height + (y + j)] = in[(y + j) * width + x];
}

// The tutorial's 32x32 tile: rows in, columns out, both global sides coalesced. Reading the
// tile back column-wise walks a pitch of 32 words: all 32 lanes hit one bank (32-way conflict).
extern "C" __global__ void transpose_tiled(float* __restrict__ out, const float* __restrict__ in, int width, int height)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;  // swap the block's coordinates
    y = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// One padding word per row (pitch 33): a column walk now lands in 32 different banks.
extern "C" __global__ void transpose_padded(float* __restrict__ out, const float* __restrict__ in, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (x < width && y + j < height) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * width + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS)
        if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][threadIdx.y + j];
}

// No padding: element (r, c) of the tile is stored at column c ^ r. A row write is still a
// permutation of one row (conflict-free), and a column read (fixed c, r = lane) touches
// columns c ^ lane: 32 distinct banks. Needs TILE to be a power of two (32 here).
extern "C" __global__ void transpose_swizzled(float* __restrict__ out, const float* __restrict__ in, int width, int height)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        const int r = threadIdx.y + j;
        if (x < width && y + j < height) tile[r][threadIdx.x ^ r] = in[(y + j) * width + x];
    }
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x;
    y = blockIdx.x * TILE + threadIdx.y;
#pragma unroll
    for (int j = 0; j < TILE; j += BLOCK_ROWS) {
        const int c = threadIdx.y + j;  // the tile column this output row came from
        if (x < height && y + j < width) out[(y + j) * height + x] = tile[threadIdx.x][c ^ threadIdx.x];
    }
}
