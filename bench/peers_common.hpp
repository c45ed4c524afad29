// radix_cpu_bench — helpers shared by the peer translation units. Everything
// here has internal linkage, so each TU keeps the copy built with its own
// flags (the AVX2 peers and the default-flag ones never share an instance).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>

#include "peers.hpp"

namespace radix_bench {
namespace {

/// Argsort through a u64 sort: pack (key << 32 | index), sort, unpack the
/// low halves. Stable by construction (ties broken by index). The pack, the
/// buffer allocation and the unpack are part of the timed work.
template <class SortU64>
inline void argsort_packed(const std::uint32_t* keys, std::uint32_t* idx, std::size_t n, SortU64 sort_u64) {
  std::unique_ptr<std::uint64_t[]> buf(new std::uint64_t[n]);
  std::uint64_t* b = buf.get();
  for (std::size_t i = 0; i < n; ++i) b[i] = (std::uint64_t(keys[i]) << 32) | std::uint64_t(i);
  sort_u64(b, n);
  for (std::size_t i = 0; i < n; ++i) idx[i] = std::uint32_t(b[i]);
}

struct kv_key_less {
  bool operator()(const kv32& a, const kv32& b) const { return a.key < b.key; }
};

}  // namespace
}  // namespace radix_bench
