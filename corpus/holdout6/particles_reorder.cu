// The CUDA sample "particles" (Green's particle simulation), reorderDataAndFindCellStartD: after
// the particles are sorted by grid-cell hash, one thread per particle compares its hash with its
// predecessor's (staged in shared memory, blockSize + 1 words) to write where each cell's run
// starts and ends, and gathers its position and velocity into sorted order (float4 loads through
// the sorted index). The host fills cellStart with 0xffffffff. Indices by a plain multiply
// where the sample writes __umul24 (which sm_90 has no fast path for); __syncthreads for the
// cooperative-groups block sync.
typedef unsigned int uint;

#define FETCH(t, i) t[i]

extern "C" __global__ void reorderDataAndFindCellStartD(uint* cellStart,          // output: cell start index
                                                        uint* cellEnd,            // output: cell end index
                                                        float4* sortedPos,        // output: sorted positions
                                                        float4* sortedVel,        // output: sorted velocities
                                                        uint* gridParticleHash,   // input: sorted grid hashes
                                                        uint* gridParticleIndex,  // input: sorted particle indices
                                                        float4* oldPos,           // input: position array
                                                        float4* oldVel,           // input: velocity array
                                                        uint numParticles)
{
    extern __shared__ uint sharedHash[];  // blockSize + 1 elements
    uint index = blockIdx.x * blockDim.x + threadIdx.x;

    uint hash;

    // handle case when no. of particles not multiple of block size
    if (index < numParticles) {
        hash = gridParticleHash[index];

        // Load hash data into shared memory so that we can look
        // at neighboring particle's hash value without loading
        // two hash values per thread
        sharedHash[threadIdx.x + 1] = hash;

        if (index > 0 && threadIdx.x == 0) {
            // first thread in block must load neighbor particle hash
            sharedHash[0] = gridParticleHash[index - 1];
        }
    }

    __syncthreads();

    if (index < numParticles) {
        // If this particle has a different cell index to the previous
        // particle then it must be the first particle in the cell,
        // so store the index of this particle in the cell.
        // As it isn't the first particle, it must also be the cell end of
        // the previous particle's cell

        if (index == 0 || hash != sharedHash[threadIdx.x]) {
            cellStart[hash] = index;

            if (index > 0)
                cellEnd[sharedHash[threadIdx.x]] = index;
        }

        if (index == numParticles - 1) {
            cellEnd[hash] = index + 1;
        }

        // Now use the sorted index to reorder the pos and vel data
        uint sortedIndex = gridParticleIndex[index];
        float4 pos = FETCH(oldPos, sortedIndex);  // macro does either global read or texture fetch
        float4 vel = FETCH(oldVel, sortedIndex);  // see particles_kernel.cuh

        sortedPos[index] = pos;
        sortedVel[index] = vel;
    }
}
