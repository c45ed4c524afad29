// A minimal fork-join loop for the apps' host code (the library's thread pool
// is internal: apps use the public headers only). Threads are started per
// call; at the apps' sizes (millions of elements per call) that costs well
// under 1% of the loop.
#pragma once
#include <algorithm>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace radix_apps {

inline unsigned hardware_threads() { return std::max(1u, std::thread::hardware_concurrency()); }

/// Splits [0, n) into `threads` contiguous chunks (fewer when n is small) and
/// calls f(begin, end, chunk_index) for each, chunk 0 on the calling thread.
/// Returns the number of chunks used. Rethrows the first exception of a chunk.
template <class F>
unsigned parallel_for(std::uint64_t n, unsigned threads, F&& f) {
  if (threads == 0) threads = hardware_threads();
  const unsigned chunks = unsigned(std::max<std::uint64_t>(1, std::min<std::uint64_t>(threads, n)));
  auto bounds = [&](unsigned c) { return n * c / chunks; };
  std::vector<std::exception_ptr> errors(chunks);
  {
    std::vector<std::jthread> pool;
    pool.reserve(chunks - 1);
    for (unsigned c = 1; c < chunks; ++c)
      pool.emplace_back([&, c] {
        try {
          f(bounds(c), bounds(c + 1), c);
        } catch (...) {
          errors[c] = std::current_exception();
        }
      });
    try {
      f(bounds(0), bounds(1), 0u);
    } catch (...) {
      errors[0] = std::current_exception();
    }
  }
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
  return chunks;
}

}  // namespace radix_apps
