// Byte-string keys wider than an engine's native key (key_kind::bytes: the
// sort benchmarks' 10-byte keys, 128-bit ids): LSD radix sort where each
// "digit" is a 64-bit chunk of the key, sorted by a stable argsort on the
// chosen engine (seed 000 §4.7: sort (key, index), then gather). Chunks
// outside [begin_bit, end_bit) are skipped, and each chunk's argsort skips
// its own trivial digits, so a 10-byte key costs one 64-bit and one 16-bit
// argsort.
#include <algorithm>
#include <cstring>
#include <string>

#include "../cpu/thread_pool.hpp"
#include "engine/engine.hpp"

namespace radix::detail {
namespace {

/// A permutation stored with 4- or 8-byte entries.
struct perm_buf {
  scratch mem;
  std::uint8_t ib;
  perm_buf(std::uint64_t n, std::uint8_t index_bytes) : mem(std::max<std::uint64_t>(n, 1) * index_bytes), ib(index_bytes) {}
  std::uint64_t get(std::uint64_t i) const {
    if (ib == 4) return reinterpret_cast<const std::uint32_t*>(mem.data())[i];
    return reinterpret_cast<const std::uint64_t*>(mem.data())[i];
  }
  void set(std::uint64_t i, std::uint64_t v) {
    if (ib == 4)
      reinterpret_cast<std::uint32_t*>(mem.data())[i] = std::uint32_t(v);
    else
      reinterpret_cast<std::uint64_t*>(mem.data())[i] = v;
  }
};

int pow2_bytes(int b) { return b <= 1 ? 1 : b <= 2 ? 2 : b <= 4 ? 4 : 8; }

void store_uint(std::byte* dst, int bytes, std::uint64_t v) {
  switch (bytes) {
    case 1: { auto x = std::uint8_t(v); std::memcpy(dst, &x, 1); break; }
    case 2: { auto x = std::uint16_t(v); std::memcpy(dst, &x, 2); break; }
    case 4: { auto x = std::uint32_t(v); std::memcpy(dst, &x, 4); break; }
    default: std::memcpy(dst, &v, 8); break;
  }
}

}  // namespace

void run_byte_keys(const sort_request& req, const void* keys_base, std::size_t stride, std::size_t offset) {
  const std::uint64_t n = req.n;
  const int L = req.key.bytes;
  const options& o = req.opts;
  const int begin = o.begin_bit, end = o.end_bit < 0 ? 8 * L : o.end_bit;
  if (n == 0) return;
  if (n == 1) {
    if (req.op == operation::argsort) store_uint(static_cast<std::byte*>(req.indices), req.index_bytes, 0);
    return;
  }
  const std::uint8_t ib = n <= 0xFFFFFFFFull ? 4 : 8;
  const unsigned threads = cpu::threads_for(n, o.threads, 1 << 15);
  auto& pool = cpu::thread_pool::instance();
  const auto* base = static_cast<const std::byte*>(keys_base) + offset;

  perm_buf perm(n, ib), next(n, ib);
  scratch chunk(n * 8);
  bool have_perm = false;  // false: the current order is the input order
  const int chunks = (L + 7) / 8;
  for (int c = 0; c < chunks; ++c) {  // least significant chunk first
    const int lo = 64 * c, cb = std::min(8, L - 8 * c);
    const int rb = std::max(begin, lo), re = std::min(end, lo + 8 * cb);
    if (rb >= re) continue;  // outside the bit range: no pass
    const int kw = pow2_bytes(cb);
    const std::size_t first_byte = std::size_t(L - 8 * c - cb);
    // The chunk of every element, in the current order, as a kw-byte uint.
    pool.run(threads, [&](unsigned t) {
      const std::uint64_t b0 = n * t / threads, b1 = n * (t + 1) / threads;
      for (std::uint64_t i = b0; i < b1; ++i) {
        const std::uint64_t src = have_perm ? perm.get(i) : i;
        const std::byte* k = base + src * stride + first_byte;
        std::uint64_t v = 0;
        for (int j = 0; j < cb; ++j) v = (v << 8) | std::uint64_t(std::to_integer<unsigned>(k[j]));
        store_uint(chunk.data() + i * kw, kw, v);
      }
    });
    sort_request sub;
    sub.op = operation::argsort;
    sub.key = key_desc{key_kind::unsigned_int, std::uint8_t(kw), 0};
    sub.n = n;
    sub.keys = chunk.data();
    sub.indices = next.mem.data();
    sub.index_bytes = ib;
    sub.opts = o;
    sub.opts.begin_bit = rb - lo;
    sub.opts.end_bit = re - lo;
    sub.opts.digit_bits = 0;
    run(sub);
    if (have_perm) {
      // Compose: the element now at i is the one that was at next[i].
      pool.run(threads, [&](unsigned t) {
        const std::uint64_t b0 = n * t / threads, b1 = n * (t + 1) / threads;
        for (std::uint64_t i = b0; i < b1; ++i) next.set(i, perm.get(next.get(i)));
      });
    }
    std::swap(perm, next);
    have_perm = true;
  }
  if (!have_perm)  // empty bit range: nothing moves
    pool.run(threads, [&](unsigned t) {
      for (std::uint64_t i = n * t / threads; i < n * (t + 1) / threads; ++i) perm.set(i, i);
    });

  switch (req.op) {
    case operation::argsort: {
      auto* out = static_cast<std::byte*>(req.indices);
      pool.run(threads, [&](unsigned t) {
        for (std::uint64_t i = n * t / threads; i < n * (t + 1) / threads; ++i)
          store_uint(out + i * req.index_bytes, req.index_bytes, perm.get(i));
      });
      break;
    }
    case operation::pairs:
      permute(req.values, req.value_bytes, n, perm.mem.data(), ib, o.threads);
      [[fallthrough]];
    case operation::keys: permute(req.keys, std::size_t(L), n, perm.mem.data(), ib, o.threads); break;
  }
}

}  // namespace radix::detail
