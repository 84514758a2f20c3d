// ChaCha20 stream encryption (RFC 7539's block function, written with the macros of D. J.
// Bernstein's chacha-ref.c), one thread per 64-byte block: the 16-word state (constants, 256-bit
// key, block counter, 96-bit nonce), 20 rounds of quarter-rounds (add, xor, rotate: integer ALU
// work only, no memory in the loop), the input words added back, and the keystream XORed into
// 64 bytes of plaintext read and written as four uint4s.
typedef unsigned int u32;

#define ROTATE(v, c) (((v) << (c)) | ((v) >> (32 - (c))))
#define XOR(v, w) ((v) ^ (w))
#define PLUS(v, w) ((v) + (w))

#define QUARTERROUND(a, b, c, d)                                                                                      \
    x[a] = PLUS(x[a], x[b]);                                                                                          \
    x[d] = ROTATE(XOR(x[d], x[a]), 16);                                                                               \
    x[c] = PLUS(x[c], x[d]);                                                                                          \
    x[b] = ROTATE(XOR(x[b], x[c]), 12);                                                                               \
    x[a] = PLUS(x[a], x[b]);                                                                                          \
    x[d] = ROTATE(XOR(x[d], x[a]), 8);                                                                                \
    x[c] = PLUS(x[c], x[d]);                                                                                          \
    x[b] = ROTATE(XOR(x[b], x[c]), 7);

extern "C" __global__ void chacha20_xor(const uint4* __restrict__ in, uint4* __restrict__ out,
                                        const u32* __restrict__ key, const u32* __restrict__ nonce, u32 counter,
                                        int nblocks)
{
    const int blk = blockIdx.x * blockDim.x + threadIdx.x;
    if (blk >= nblocks)
        return;

    u32 input[16];
    input[0] = 0x61707865;  // "expand 32-byte k"
    input[1] = 0x3320646e;
    input[2] = 0x79622d32;
    input[3] = 0x6b206574;
#pragma unroll
    for (int i = 0; i < 8; ++i)
        input[4 + i] = key[i];
    input[12] = counter + blk;
    input[13] = nonce[0];
    input[14] = nonce[1];
    input[15] = nonce[2];

    u32 x[16];
#pragma unroll
    for (int i = 0; i < 16; ++i)
        x[i] = input[i];
#pragma unroll
    for (int i = 20; i > 0; i -= 2) {
        QUARTERROUND(0, 4, 8, 12)
        QUARTERROUND(1, 5, 9, 13)
        QUARTERROUND(2, 6, 10, 14)
        QUARTERROUND(3, 7, 11, 15)
        QUARTERROUND(0, 5, 10, 15)
        QUARTERROUND(1, 6, 11, 12)
        QUARTERROUND(2, 7, 8, 13)
        QUARTERROUND(3, 4, 9, 14)
    }
#pragma unroll
    for (int i = 0; i < 16; ++i)
        x[i] = PLUS(x[i], input[i]);

#pragma unroll
    for (int q = 0; q < 4; ++q) {
        uint4 m = in[4 * blk + q];
        out[4 * blk + q] = make_uint4(m.x ^ x[4 * q], m.y ^ x[4 * q + 1], m.z ^ x[4 * q + 2], m.w ^ x[4 * q + 3]);
    }
}
