// Parboil's SpMV in the JDS (jagged diagonal) format: rows sorted by length (longest first, perm
// maps back), the k-th nonzeros of all rows stored together as diagonal k, each diagonal padded
// to whole warps; one thread per sorted row, looping over as many diagonals as the longest row
// of its warp's 32 (sh_zcnt_int, padding zeros beyond a row's length), the diagonal starts in
// __constant__ memory, x gathered by column, the sum stored through perm.
__constant__ int jds_ptr_int[5000];

extern "C" __global__ void spmv_jds(float* dst_vector, const float* d_data, const int* d_index, const int* d_perm,
                                    const float* x_vec, const int dim, const int* sh_zcnt_int)
{
    int ix = blockIdx.x * blockDim.x + threadIdx.x;

    if (ix < dim) {
        float sum = 0.0f;
        int bound = sh_zcnt_int[ix / 32];
        for (int k = 0; k < bound; k++) {
            int j = jds_ptr_int[k] + ix;
            int in = d_index[j];

            float d = d_data[j];
            float t = x_vec[in];

            sum += d * t;
        }
        dst_vector[d_perm[ix]] = sum;
    }
}
