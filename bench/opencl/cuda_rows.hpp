// The CUDA rows of the OpenCL benchmark (Helluy 2011's tables next to the
// CUDA engine and CUB, same input, same process). Built only with CUDA on.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

struct cuda_rows {
  bool ran = false;        ///< a CUDA device was there
  std::string device;      ///< its name
  double cub_s = -1;       ///< cub::DeviceRadixSort::SortKeys (DoubleBuffer), median seconds
  double radix_s = -1;     ///< radix::cuda::sort_keys with a workspace, median seconds
  bool cub_ok = false, radix_ok = false;  ///< results equal `sorted`
};

/// Times both on `input` (restored before every run; CUDA events around the
/// sort alone; one warm-up, then `repeat` runs) and checks them against `sorted`.
cuda_rows time_cuda_rows(const std::uint32_t* input, const std::uint32_t* sorted, std::size_t n, int repeat);
