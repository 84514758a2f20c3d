// k-means assignment step as in Rodinia's kmeans (kmeansPoint): the points stored feature-major
// (feature f of point i at features[f * npoints + i], so a warp's loads coalesce), the centroids
// in __constant__ memory, one thread per point finding the nearest centroid by squared Euclidean
// distance and writing its index to membership.
#define NFEATURES 8
#define NCLUSTERS 32

__constant__ float c_clusters[NCLUSTERS * NFEATURES];

extern "C" __global__ void kmeans_assign(const float* __restrict__ features, int* __restrict__ membership, int npoints)
{
    int point_id = blockIdx.x * blockDim.x + threadIdx.x;
    if (point_id >= npoints) return;

    int index = 0;
    float min_dist = 3.402823466e+38f;  // FLT_MAX
    for (int c = 0; c < NCLUSTERS; c++) {
        float dist = 0.0f;
        for (int f = 0; f < NFEATURES; f++) {
            float diff = features[f * npoints + point_id] - c_clusters[c * NFEATURES + f];
            dist += diff * diff;
        }
        if (dist < min_dist) {
            min_dist = dist;
            index = c;
        }
    }
    membership[point_id] = index;
}
