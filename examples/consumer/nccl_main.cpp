// Uses the installed radix::nccl (find_package(radix) where radix was built
// with NCCL): sorts a million keys in host memory over every visible GPU and
// checks the order. Without a GPU it says so and succeeds: the point on a
// machine without one is that the package links.
#include <cuda_runtime.h>
#include <radix/nccl.hpp>
#include <radix/radix.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

int main() {
  setenv("CUDA_MODULE_LOADING", "EAGER", 0);  // one process, several GPUs: radix/nccl.hpp; before CUDA starts
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) {
    std::puts("consumer nccl: no GPU visible, nothing sorted (the package links)");
    return 0;
  }
  std::mt19937_64 rng(7);
  std::vector<std::uint32_t> keys(1000003);
  for (auto& k : keys) k = std::uint32_t(rng());
  std::vector<std::uint32_t> want = keys;
  std::sort(want.begin(), want.end());
  radix::sort_request req;
  req.op = radix::operation::keys;
  req.key = radix::key_desc_of<std::uint32_t>();
  req.n = keys.size();
  req.keys = keys.data();
  radix::nccl::gpu_group group;  // every visible GPU
  radix::nccl::sort_host(group, req);
  if (keys != want) {
    std::puts("consumer nccl: wrong order");
    return 1;
  }
  std::printf("consumer nccl: %zu keys sorted over %d GPU(s)\n", keys.size(), group.size());
  return 0;
}
