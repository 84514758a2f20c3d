// Reed-Solomon erasure-code encoding over GF(2^8) (RS(14, 10), HDFS's and many object stores'
// layout), as GPU erasure-coding libraries write the table-driven kernel: the log and exp tables
// (the exp table doubled, 510 entries, so no mod 255) staged in shared memory, the 4 x 10 encoding
// matrix in __constant__; one thread per 32-bit word of the stripe, each of the 10 data words
// read once and split into bytes, every nonzero byte multiplied by each parity row's coefficient
// through log/exp lookups and XORed into that parity word.
#define K_DATA 10
#define M_PARITY 4

__constant__ unsigned char c_matrix[M_PARITY * K_DATA];

extern "C" __global__ void rs_encode_gf256(const unsigned int* __restrict__ data, unsigned int* __restrict__ parity,
                                           const unsigned char* __restrict__ gf_log,
                                           const unsigned char* __restrict__ gf_exp, int words)
{
    __shared__ unsigned char s_log[256];
    __shared__ unsigned char s_exp[512];

    for (int t = threadIdx.x; t < 256; t += blockDim.x) s_log[t] = gf_log[t];
    for (int t = threadIdx.x; t < 510; t += blockDim.x) s_exp[t] = gf_exp[t];
    __syncthreads();

    int w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= words) return;

    unsigned int acc[M_PARITY];
#pragma unroll
    for (int p = 0; p < M_PARITY; p++) acc[p] = 0;

    for (int j = 0; j < K_DATA; j++) {
        unsigned int word = data[(size_t)j * words + w];
#pragma unroll
        for (int b = 0; b < 4; b++) {
            unsigned int byte = (word >> (8 * b)) & 0xff;
            if (byte == 0) continue;
            int lb = s_log[byte];
#pragma unroll
            for (int p = 0; p < M_PARITY; p++) {
                int lc = s_log[c_matrix[p * K_DATA + j]];
                acc[p] ^= (unsigned int)s_exp[lb + lc] << (8 * b);
            }
        }
    }

#pragma unroll
    for (int p = 0; p < M_PARITY; p++) parity[(size_t)p * words + w] = acc[p];
}
