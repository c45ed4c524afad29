// CUB's instantiations for radix_bench_matrix, keys of 1, 2 and 4 bytes (the
// other half, peers_cub_matrix_wide.cu, compiles in parallel).
#include "peers_cub_impl.cuh"

PEERS_CUB_MATRIX_KEY(std::uint8_t)
PEERS_CUB_MATRIX_KEY(std::uint16_t)
PEERS_CUB_MATRIX_KEY(std::uint32_t)
