// AES-128 encryption (ECB) with T-tables, the round structure of OpenSSL's aes_core.c
// (AES_encrypt, the rolled loop: two rounds per iteration, the last round by masked table
// entries), as GPU ports of it run: one thread per 16-byte block, the four 1 KB tables Te0..Te3
// copied into shared memory by the block behind a barrier (every lookup a data-dependent shared
// load: bank conflicts), the 44 round-key words in __constant__ memory. The block is read and
// written as a uint4 and byte-swapped for OpenSSL's big-endian GETU32/PUTU32.
typedef unsigned int u32;

#define GETU32(x) __byte_perm((x), 0, 0x0123)
#define PUTU32(x) __byte_perm((x), 0, 0x0123)

__constant__ u32 c_rk[44];

extern "C" __global__ void aes128_encrypt_ecb(const uint4* __restrict__ in, uint4* __restrict__ out,
                                              const u32* __restrict__ Te, int nblocks)
{
    __shared__ u32 Te0[256], Te1[256], Te2[256], Te3[256];
    for (int k = threadIdx.x; k < 256; k += blockDim.x) {
        Te0[k] = Te[k];
        Te1[k] = Te[256 + k];
        Te2[k] = Te[512 + k];
        Te3[k] = Te[768 + k];
    }
    __syncthreads();

    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nblocks)
        return;

    const u32* rk = c_rk;
    u32 s0, s1, s2, s3, t0, t1, t2, t3;
    int r;

    /*
     * map byte array block to cipher state
     * and add initial round key:
     */
    uint4 pt = in[i];
    s0 = GETU32(pt.x) ^ rk[0];
    s1 = GETU32(pt.y) ^ rk[1];
    s2 = GETU32(pt.z) ^ rk[2];
    s3 = GETU32(pt.w) ^ rk[3];

    /*
     * Nr - 1 full rounds:
     */
    r = 10 >> 1;
    for (;;) {
        t0 = Te0[(s0 >> 24)] ^ Te1[(s1 >> 16) & 0xff] ^ Te2[(s2 >> 8) & 0xff] ^ Te3[(s3) & 0xff] ^ rk[4];
        t1 = Te0[(s1 >> 24)] ^ Te1[(s2 >> 16) & 0xff] ^ Te2[(s3 >> 8) & 0xff] ^ Te3[(s0) & 0xff] ^ rk[5];
        t2 = Te0[(s2 >> 24)] ^ Te1[(s3 >> 16) & 0xff] ^ Te2[(s0 >> 8) & 0xff] ^ Te3[(s1) & 0xff] ^ rk[6];
        t3 = Te0[(s3 >> 24)] ^ Te1[(s0 >> 16) & 0xff] ^ Te2[(s1 >> 8) & 0xff] ^ Te3[(s2) & 0xff] ^ rk[7];

        rk += 8;
        if (--r == 0) {
            break;
        }

        s0 = Te0[(t0 >> 24)] ^ Te1[(t1 >> 16) & 0xff] ^ Te2[(t2 >> 8) & 0xff] ^ Te3[(t3) & 0xff] ^ rk[0];
        s1 = Te0[(t1 >> 24)] ^ Te1[(t2 >> 16) & 0xff] ^ Te2[(t3 >> 8) & 0xff] ^ Te3[(t0) & 0xff] ^ rk[1];
        s2 = Te0[(t2 >> 24)] ^ Te1[(t3 >> 16) & 0xff] ^ Te2[(t0 >> 8) & 0xff] ^ Te3[(t1) & 0xff] ^ rk[2];
        s3 = Te0[(t3 >> 24)] ^ Te1[(t0 >> 16) & 0xff] ^ Te2[(t1 >> 8) & 0xff] ^ Te3[(t2) & 0xff] ^ rk[3];
    }

    /*
     * apply last round and
     * map cipher state to byte array block:
     */
    s0 = (Te2[(t0 >> 24)] & 0xff000000) ^ (Te3[(t1 >> 16) & 0xff] & 0x00ff0000) ^ (Te0[(t2 >> 8) & 0xff] & 0x0000ff00)
        ^ (Te1[(t3) & 0xff] & 0x000000ff) ^ rk[0];
    s1 = (Te2[(t1 >> 24)] & 0xff000000) ^ (Te3[(t2 >> 16) & 0xff] & 0x00ff0000) ^ (Te0[(t3 >> 8) & 0xff] & 0x0000ff00)
        ^ (Te1[(t0) & 0xff] & 0x000000ff) ^ rk[1];
    s2 = (Te2[(t2 >> 24)] & 0xff000000) ^ (Te3[(t3 >> 16) & 0xff] & 0x00ff0000) ^ (Te0[(t0 >> 8) & 0xff] & 0x0000ff00)
        ^ (Te1[(t1) & 0xff] & 0x000000ff) ^ rk[2];
    s3 = (Te2[(t3 >> 24)] & 0xff000000) ^ (Te3[(t0 >> 16) & 0xff] & 0x00ff0000) ^ (Te0[(t1 >> 8) & 0xff] & 0x0000ff00)
        ^ (Te1[(t2) & 0xff] & 0x000000ff) ^ rk[3];
    out[i] = make_uint4(PUTU32(s0), PUTU32(s1), PUTU32(s2), PUTU32(s3));
}
