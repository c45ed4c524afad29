// Gathering fixed-size records by a permutation: the second half of record
// sorting (Ha, Krüger & Silva 2009, §4.7: sort key + index, then gather the records).
#include <cstring>

#include "../cpu/thread_pool.hpp"
#include "engine/engine.hpp"
#include "radix/core/segments.hpp"
#include "radix/sort.hpp"

namespace radix::detail {
namespace {

template <class I, std::size_t B>
void gather_fixed(std::byte* out, const std::byte* in, const I* perm, std::uint64_t b0, std::uint64_t b1) {
  for (std::uint64_t i = b0; i < b1; ++i) std::memcpy(out + i * B, in + std::uint64_t(perm[i]) * B, B);
}

template <class I>
void gather(std::byte* out, const std::byte* in, std::size_t rb, const I* perm, std::uint64_t b0, std::uint64_t b1) {
  switch (rb) {
    case 1: return gather_fixed<I, 1>(out, in, perm, b0, b1);
    case 2: return gather_fixed<I, 2>(out, in, perm, b0, b1);
    case 4: return gather_fixed<I, 4>(out, in, perm, b0, b1);
    case 8: return gather_fixed<I, 8>(out, in, perm, b0, b1);
    case 16: return gather_fixed<I, 16>(out, in, perm, b0, b1);
    default:
      for (std::uint64_t i = b0; i < b1; ++i) std::memcpy(out + i * rb, in + std::uint64_t(perm[i]) * rb, rb);
  }
}

}  // namespace

void permute(void* records, std::size_t rb, std::uint64_t n, const void* perm, std::uint8_t ib, unsigned threads,
             std::byte* given) {
  if (n < 2) return;
  scratch own;
  if (!given) own = scratch(n * rb);
  std::byte* const copy = given ? given : own.data();
  auto* data = static_cast<std::byte*>(records);
  const unsigned t = cpu::threads_for(n, threads, 1 << 15);
  auto& pool = cpu::thread_pool::instance();
  pool.run(t, [&](unsigned i) {
    const std::uint64_t b0 = n * i / t, b1 = n * (i + 1) / t;
    std::memcpy(copy + b0 * rb, data + b0 * rb, (b1 - b0) * rb);
  });
  pool.run(t, [&](unsigned i) {
    const std::uint64_t b0 = n * i / t, b1 = n * (i + 1) / t;
    if (ib == 4) gather(data, copy, rb, static_cast<const std::uint32_t*>(perm), b0, b1);
    else gather(data, copy, rb, static_cast<const std::uint64_t*>(perm), b0, b1);
  });
}

void gather_sorted_keys(const sort_request& req) {
  const std::uint64_t n = req.n;
  const std::size_t kb = req.key.bytes;
  auto* out = static_cast<std::byte*>(req.sorted_keys);
  const auto* in = static_cast<const std::byte*>(req.keys);
  if (n == 0) return;
  auto& pool = cpu::thread_pool::instance();
  if (!req.segs.segmented()) {
    const unsigned t = cpu::threads_for(n, req.opts.threads, 1 << 15);
    pool.run(t, [&](unsigned i) {
      const std::uint64_t b0 = n * i / t, b1 = n * (i + 1) / t;
      if (req.index_bytes == 4) gather(out, in, kb, static_cast<const std::uint32_t*>(req.indices), b0, b1);
      else gather(out, in, kb, static_cast<const std::uint64_t*>(req.indices), b0, b1);
    });
    return;
  }
  // segmented: the indices count from the start of each segment
  const core::segment_view v(req.segs, n);
  v.for_each([&](std::uint64_t, std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t i = b; i < e; ++i) {
      const std::uint64_t local = req.index_bytes == 4 ? static_cast<const std::uint32_t*>(req.indices)[i]
                                                       : static_cast<const std::uint64_t*>(req.indices)[i];
      std::memcpy(out + i * kb, in + (b + local) * kb, kb);
    }
  });
}

}  // namespace radix::detail
