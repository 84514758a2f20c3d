// Nearest-neighbour queries on a kd-tree by recursive descent, as point-cloud codes write them on the
// GPU (ICP registration, k-NN graphs; the recursive search of Friedman, Bentley & Finkel's kd-tree
// moved from the CPU into a __device__ function): the tree is implicit in the point array (the median
// of each range in its middle, the split axis cycling x, y, z with the depth), built on the host; one
// thread per query walks down the near side first and visits the far side only when the splitting
// plane is closer than the best distance so far; ranges of at most KD_LEAF points are scanned. Each
// level of the recursion takes a 72-byte frame (ptxas), so the tree is kept shallow enough for the
// default 1 KB stack: 2^16 - 1 points split ten times into leaves of 63. The debugging its author left
// in: an assert on the recursion depth and on the result, and a printf of the first queries behind a
// debug flag the caller passes as 0.
#include <cstdio>
#include <cassert>
#include <cfloat>

#define KD_LEAF 64       // ranges of at most this many points are scanned
#define KD_MAX_DEPTH 12  // frames the default stack holds (1 KB at 72 bytes a level, with the kernel's)

struct KdQuery {
    float3 q;   // the query point
    float d2;   // the best squared distance so far
    int idx;    // and the tree position it was found at
};

__device__ void kd_nearest(const float4* __restrict__ pts, int lo, int hi, int depth, KdQuery& Q)
{
    assert(depth < KD_MAX_DEPTH);
    if (hi - lo <= KD_LEAF) {
        for (int i = lo; i < hi; ++i) {
            const float4 p = pts[i];
            const float dx = p.x - Q.q.x, dy = p.y - Q.q.y, dz = p.z - Q.q.z;
            const float d2 = dx * dx + dy * dy + dz * dz;
            if (d2 < Q.d2) {
                Q.d2 = d2;
                Q.idx = i;
            }
        }
        return;
    }
    const int mid = (lo + hi) >> 1;
    const float4 p = pts[mid];
    const float dx = p.x - Q.q.x, dy = p.y - Q.q.y, dz = p.z - Q.q.z;
    const float d2 = dx * dx + dy * dy + dz * dz;
    if (d2 < Q.d2) {
        Q.d2 = d2;
        Q.idx = mid;
    }
    const int axis = depth % 3;
    const float diff = axis == 0 ? -dx : (axis == 1 ? -dy : -dz);  // the query's side of the splitting plane
    if (diff < 0.0f) {
        kd_nearest(pts, lo, mid, depth + 1, Q);
        if (diff * diff < Q.d2) kd_nearest(pts, mid + 1, hi, depth + 1, Q);
    } else {
        kd_nearest(pts, mid + 1, hi, depth + 1, Q);
        if (diff * diff < Q.d2) kd_nearest(pts, lo, mid, depth + 1, Q);
    }
}

extern "C" __global__ void kdtree_nearest(const float4* __restrict__ tree, int npts, const float4* __restrict__ queries,
                                          int nqueries, float* __restrict__ nn_dist2, int* __restrict__ nn_id, int debug)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= nqueries) return;
    const float4 q4 = queries[i];
    KdQuery Q = {make_float3(q4.x, q4.y, q4.z), FLT_MAX, -1};
    kd_nearest(tree, 0, npts, 0, Q);
    assert(Q.idx >= 0 && Q.idx < npts);
    const int id = (int)tree[Q.idx].w;  // the point's index in the original cloud
    nn_dist2[i] = Q.d2;
    nn_id[i] = id;
    if (debug && i < 4)
        printf("query %d (%.4f, %.4f, %.4f): point %d at distance^2 %.3e\n", i, Q.q.x, Q.q.y, Q.q.z, id, Q.d2);
}
