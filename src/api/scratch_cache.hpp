// The process-wide scratch cache behind detail::scratch (scratch.cpp): what
// the tests and the environment module reach.
#pragma once
#include <chrono>
#include <cstddef>

namespace radix::detail {

/// A RADIX_SCRATCH_CACHE value: bytes, with an optional K, M or G (2^10,
/// 2^20, 2^30); 0 turns the cache off. Throws radix::invalid_argument.
std::size_t parse_scratch_cache_limit(const char* text);
/// Sets the cache's byte limit and how long a buffer may stay unused (tests).
void scratch_cache_configure(std::size_t limit_bytes, std::chrono::milliseconds idle);
/// Bytes the cache holds now, and its limit.
std::size_t scratch_cache_held();
std::size_t scratch_cache_limit();

}  // namespace radix::detail
