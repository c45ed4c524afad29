// The exclusive scan over a pass's count matrix (the course slides "CUDA LSD
// Radix Sort": "Build Local and Global Offsets"; Helluy 2011, "A portable
// implementation of the radix sort algorithm in OpenCL", §2.2 "Scanning").
// The matrix is stored digit-major (counts[d * tiles + t]), so its flat
// exclusive prefix is, for every (digit, tile), the global position of the
// tile's first key of that digit: the slides' transpose is folded into the
// layout. Three launches: chunk sums, one block scanning the sums, chunks
// scanned with their base, in place.
// Every kernel returns at once when the order check skipped the pass.
#pragma once
#include <cstdint>

#include "../common/multipass_params.cuh"

namespace radix::cuda_detail {

struct matrix_scan {
  static constexpr int threads = 256, items = 16, chunk = threads * items;
  static std::uint64_t chunks(std::uint64_t m) { return (m + chunk - 1) / chunk; }
  /// Enqueues the scan of counts[0, m) (chunk sums in partials[0, chunks(m))).
  static void run(std::uint32_t* counts, std::uint32_t* partials, std::uint64_t m, const multipass_control* ctl, int e,
                  cudaStream_t s);
};

}  // namespace radix::cuda_detail
