// Smith-Waterman local alignment scores for a database search (the inter-task scheme of CUDASW++):
// one thread per database sequence, all against one 32-base query held in __constant__; the
// sequences are stored interleaved (base j of every sequence together) so a warp's byte loads
// coalesce. Affine gaps (Gotoh): the thread keeps the whole query column of H and E in registers
// (the loop over the query fully unrolled), walks its sequence base by base, and keeps the best H.
// DNA scoring: match +2, mismatch -3, gap open 5, gap extend 2 (BLASTN's). Integer only.
#define QLEN 32

__constant__ unsigned char c_query[QLEN];

extern "C" __global__ void sw_db_search(const unsigned char* __restrict__ db, int* __restrict__ scores,
                                        int num_seqs, int seq_len, int match, int mismatch, int gap_open,
                                        int gap_extend)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid >= num_seqs) return;

    int H[QLEN], E[QLEN];
#pragma unroll
    for (int i = 0; i < QLEN; i++) {
        H[i] = 0;
        E[i] = 0;
    }
    int best = 0;
    for (int j = 0; j < seq_len; j++) {
        unsigned char b = db[(size_t)j * num_seqs + tid];
        int diag = 0;  // H[i-1][j-1]
        int up = 0;    // H[i-1][j]
        int F = 0;
#pragma unroll
        for (int i = 0; i < QLEN; i++) {
            int e = max(E[i] - gap_extend, H[i] - gap_open);  // gap along the database sequence
            F = max(F - gap_extend, up - gap_open);           // gap along the query
            int h = diag + (c_query[i] == b ? match : -mismatch);
            h = max(max(h, 0), max(e, F));
            diag = H[i];
            H[i] = h;
            E[i] = e;
            up = h;
            best = max(best, h);
        }
    }
    scores[tid] = best;
}
