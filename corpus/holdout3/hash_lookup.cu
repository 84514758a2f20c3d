// Lookups in an open-addressing hash table with linear probing, as in D. Farrell's "A Simple GPU
// Hash Table" (2020): 32-bit keys and values in 8-byte slots, the MurmurHash3 finalizer as the
// hash, one thread per query probing slot after slot until it meets its key or an empty slot.
// The value found (or kEmpty) is written back into the query's pair.
typedef unsigned int uint32_t;

struct KeyValue {
    uint32_t key;
    uint32_t value;
};

const uint32_t kEmpty = 0xffffffff;

__device__ uint32_t hash(uint32_t k, uint32_t capacity)
{
    k ^= k >> 16;
    k *= 0x85ebca6b;
    k ^= k >> 13;
    k *= 0xc2b2ae35;
    k ^= k >> 16;
    return k & (capacity - 1);
}

extern "C" __global__ void hashtable_lookup(const KeyValue* __restrict__ hashtable, KeyValue* kvs, unsigned int numkvs,
                                            uint32_t capacity)
{
    unsigned int threadid = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadid < numkvs) {
        uint32_t key = kvs[threadid].key;
        uint32_t slot = hash(key, capacity);
        while (true) {
            if (hashtable[slot].key == key) {
                kvs[threadid].value = hashtable[slot].value;
                return;
            }
            if (hashtable[slot].key == kEmpty) {
                kvs[threadid].value = kEmpty;
                return;
            }
            slot = (slot + 1) & (capacity - 1);
        }
    }
}
