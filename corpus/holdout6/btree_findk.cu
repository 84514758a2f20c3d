// Rodinia's b+tree, findK: one block per query, one thread per key slot of an order-256 node;
// level by level, the thread whose key interval [keys[t], keys[t + 1]) holds the query moves the
// block's offset to its child, and thread 0 makes it the current node; at the leaf the thread
// holding the key reads its record. Node and record layouts as Rodinia's (a knode is 2068 bytes:
// location, 257 indices, 257 keys, is_leaf, num_keys).
#define DEFAULT_ORDER 256

typedef struct record {
    int value;
} record;

typedef struct knode {
    int location;
    int indices[DEFAULT_ORDER + 1];
    int keys[DEFAULT_ORDER + 1];
    bool is_leaf;
    int num_keys;
} knode;

extern "C" __global__ void findK(long height, knode* knodesD, long knodes_elem, record* recordsD, long* currKnodeD,
                                 long* offsetD, int* keysD, record* ansD)
{
    // private thread IDs
    int thid = threadIdx.x;
    int bid = blockIdx.x;

    // processtree levels
    int i;
    for (i = 0; i < height; i++) {

        // if value is between the two keys
        if ((knodesD[currKnodeD[bid]].keys[thid]) <= keysD[bid]
            && (knodesD[currKnodeD[bid]].keys[thid + 1] > keysD[bid])) {
            // this conditional statement is inserted to avoid crush due to but in original code
            // "offset[bid]" calculated below that addresses knodes[] in the next iteration goes outside of its bounds
            // cause segmentation fault
            // more specifically, values saved into knodes->indices in the main function are out of bounds of knodes
            // that they address
            if (knodesD[offsetD[bid]].indices[thid] < knodes_elem) {
                offsetD[bid] = knodesD[offsetD[bid]].indices[thid];
            }
        }
        __syncthreads();

        // set for next tree level
        if (thid == 0) {
            currKnodeD[bid] = offsetD[bid];
        }
        __syncthreads();
    }

    // At this point, we have a candidate leaf node which may contain
    // the target record.  Check each key to hind the matching record
    if (knodesD[currKnodeD[bid]].keys[thid] == keysD[bid]) {
        ansD[bid].value = recordsD[knodesD[currKnodeD[bid]].indices[thid]].value;
    }
}
