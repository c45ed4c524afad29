// CUB's instantiations for radix_bench_matrix, keys of 8 bytes and floats (the
// other half, peers_cub_matrix_narrow.cu, compiles in parallel).
#include "peers_cub_impl.cuh"

PEERS_CUB_MATRIX_KEY(std::uint64_t)
PEERS_CUB_MATRIX_KEY(float)
PEERS_CUB_MATRIX_KEY(double)
