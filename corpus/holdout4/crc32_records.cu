// CRC-32 (IEEE 802.3, the zlib/gzip polynomial, reflected) of fixed-size records, one thread per
// record, with Sarwate's byte-at-a-time table: the 256-entry table staged into shared memory by each
// block, each thread walking its record a 32-bit word at a time and folding the word's four bytes
// through four dependent table lookups. A warp's loads fall in 32 different records.
typedef unsigned int uint32_t;

extern "C" __global__ void crc32_records(const uint32_t* __restrict__ data, const uint32_t* __restrict__ table,
                                         uint32_t* __restrict__ crc_out, int num_records, int words_per_record)
{
    __shared__ uint32_t s_table[256];
    for (int i = threadIdx.x; i < 256; i += blockDim.x) s_table[i] = table[i];
    __syncthreads();

    int rec = blockIdx.x * blockDim.x + threadIdx.x;
    if (rec >= num_records) return;
    const uint32_t* p = data + (size_t)rec * words_per_record;
    uint32_t crc = 0xFFFFFFFFu;
    for (int i = 0; i < words_per_record; i++) {
        uint32_t w = p[i];
        crc = s_table[(crc ^ w) & 0xFF] ^ (crc >> 8);
        crc = s_table[(crc ^ (w >> 8)) & 0xFF] ^ (crc >> 8);
        crc = s_table[(crc ^ (w >> 16)) & 0xFF] ^ (crc >> 8);
        crc = s_table[(crc ^ (w >> 24)) & 0xFF] ^ (crc >> 8);
    }
    crc_out[rec] = crc ^ 0xFFFFFFFFu;
}
