// Keys wider than an engine's native key: byte strings (key_kind::bytes: the
// sort benchmarks' 10-byte keys, 128-bit ids) and 16-byte integers
// (radix::uint128 / int128). LSD radix sort where each "digit" is a 64-bit
// chunk of the key, sorted by a stable argsort on the chosen engine (Ha, Krüger & Silva 2009,
// §4.7: sort (key, index), then gather). Chunks outside [begin_bit, end_bit)
// are skipped, and each chunk's argsort skips its own trivial digits, so a
// 10-byte key costs one 64-bit and one 16-bit argsort.
#include <algorithm>
#include <bit>
#include <cstring>
#include <string>
#include <vector>

#include "../cpu/thread_pool.hpp"
#include "engine/engine.hpp"
#include "radix/core/wide_chunks.hpp"

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

void store_uint(std::byte* dst, int bytes, std::uint64_t v) {
  switch (bytes) {
    case 1: { auto x = std::uint8_t(v); std::memcpy(dst, &x, 1); break; }
    case 2: { auto x = std::uint16_t(v); std::memcpy(dst, &x, 2); break; }
    case 4: { auto x = std::uint32_t(v); std::memcpy(dst, &x, 4); break; }
    default: std::memcpy(dst, &v, 8); break;
  }
}

std::uint64_t load_uint(const std::byte* src, int bytes) {
  switch (bytes) {
    case 1: { std::uint8_t x; std::memcpy(&x, src, 1); return x; }
    case 2: { std::uint16_t x; std::memcpy(&x, src, 2); return x; }
    case 4: { std::uint32_t x; std::memcpy(&x, src, 4); return x; }
    default: { std::uint64_t x; std::memcpy(&x, src, 8); return x; }
  }
}

/// Chunk `w` of the key at `key` as one number. Where it lies and its byte
/// order come from the shared planner (core/wide_chunks.hpp: byte strings
/// big-endian, chunk 0 their last bytes; integers in host order, chunk 0 the
/// low word), so the host path and device engines agree on every layout.
std::uint64_t read_chunk(const std::byte* key, const core::wide_chunk& w) {
  const std::byte* k = key + w.first_byte;
  std::uint64_t v = 0;
  if (!w.big_endian && w.bytes == 8 && std::endian::native == std::endian::little) {
    std::memcpy(&v, k, 8);  // the common case: one host-order word
    return v;
  }
  if (w.big_endian)
    for (int j = 0; j < w.bytes; ++j) v = (v << 8) | std::uint64_t(std::to_integer<unsigned>(k[j]));
  else
    for (int j = w.bytes; j-- > 0;) v = (v << 8) | std::uint64_t(std::to_integer<unsigned>(k[j]));
  return v;
}

/// Bits [begin_bit, end_bit) of a chunk's value.
std::uint64_t range_mask(const core::wide_chunk& w) {
  const std::uint64_t hi = w.end_bit >= 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << w.end_bit) - 1;
  return hi & ~((std::uint64_t(1) << w.begin_bit) - 1);
}

}  // namespace

void run_byte_keys(const sort_request& req, const void* keys_base, std::size_t stride, std::size_t offset) {
  const std::uint64_t n = req.n;
  const int L = req.key.bytes;
  const options& o = req.opts;
  const int begin = o.begin_bit;
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
  // The chunks that overlap the bit range, least significant first; an
  // integer's top chunk sorts as signed, which with the engines' sign-bit
  // flip gives the integers' order.
  const bool is_bytes = req.key.kind == key_kind::bytes;
  core::wide_chunk plan[core::max_wide_chunks];
  const int chunks = core::plan_wide_chunks(L, is_bytes, req.key.kind == key_kind::signed_int,
                                            std::endian::native == std::endian::big, begin, o.end_bit, plan);
  // One sequential read finds the chunks whose ranged bits are the same in
  // every key (128-bit keys that fit in 64 bits, common prefixes): a stable
  // sort by them moves nothing, so they cost no gather, argsort or compose.
  // Each thread stops reading once every chunk has varied (at once for
  // random keys).
  std::uint64_t mask[core::max_wide_chunks];
  for (int c = 0; c < chunks; ++c) mask[c] = range_mask(plan[c]);
  std::vector<std::uint64_t> varies(std::size_t(threads) * chunks, 0);
  pool.run(threads, [&](unsigned t) {
    std::uint64_t first[core::max_wide_chunks], acc[core::max_wide_chunks] = {};
    for (int c = 0; c < chunks; ++c) first[c] = read_chunk(base, plan[c]);
    const std::uint64_t b0 = n * t / threads, b1 = n * (t + 1) / threads;
    for (std::uint64_t i0 = b0; i0 < b1; i0 += 256) {
      for (std::uint64_t i = i0, e = std::min(b1, i0 + 256); i < e; ++i)
        for (int c = 0; c < chunks; ++c) acc[c] |= read_chunk(base + i * stride, plan[c]) ^ first[c];
      bool all = true;
      for (int c = 0; c < chunks; ++c) all &= (acc[c] & mask[c]) != 0;
      if (all) break;
    }
    for (int c = 0; c < chunks; ++c) varies[std::size_t(t) * chunks + c] = acc[c] & mask[c];
  });
  bool chunk_varies[core::max_wide_chunks] = {};
  int top = -1, varying_chunks = 0;  // the most significant chunk that varies
  for (int c = 0; c < chunks; ++c) {
    for (unsigned t = 0; t < threads; ++t) chunk_varies[c] |= varies[std::size_t(t) * chunks + c] != 0;
    if (chunk_varies[c]) top = c, ++varying_chunks;
  }
  // A sort of the extracted chunk buffer by chunk w's bits (the caller adds
  // the values or indices).
  auto chunk_request = [&](const core::wide_chunk& w, operation op) {
    sort_request sub;
    sub.op = op;
    sub.key = key_desc{w.is_signed ? key_kind::signed_int : key_kind::unsigned_int, std::uint8_t(w.key_bytes), 0};
    sub.n = n;
    sub.keys = chunk.data();
    sub.opts = o;
    sub.opts.begin_bit = w.begin_bit;
    sub.opts.end_bit = w.end_bit;
    sub.opts.digit_bits = 0;
    return sub;
  };
  // The chunk of every element, in the current order, as a kw-byte uint.
  auto extract = [&](const core::wide_chunk& w) {
    const int kw = w.key_bytes;
    pool.run(threads, [&](unsigned t) {
      const std::uint64_t b0 = n * t / threads, b1 = n * (t + 1) / threads;
      for (std::uint64_t i = b0; i < b1; ++i) {
        const std::uint64_t src = have_perm ? perm.get(i) : i;
        store_uint(chunk.data() + i * kw, kw, read_chunk(base + src * stride, w));
      }
    });
  };

  // Prefix first (the CUDA engine does the same, src/cuda/wide_keys.cu): the
  // most significant varying chunk alone, sorted as (chunk, index) pairs. If
  // no two keys tie on it, that order is the final one and the lower chunks
  // are never read (random keys, ids); with ties, the LSD below runs from the
  // input order and this sort was the price.
  bool done = false;
  if (varying_chunks >= 2) {
    const core::wide_chunk& w = plan[top];
    const int kw = w.key_bytes;
    extract(w);
    pool.run(threads, [&](unsigned t) {
      for (std::uint64_t i = n * t / threads; i < n * (t + 1) / threads; ++i) perm.set(i, i);
    });
    sort_request sub = chunk_request(w, operation::pairs);
    sub.values = perm.mem.data();
    sub.value_bytes = ib;
    run(sub);
    const std::uint64_t m = range_mask(w);
    std::vector<std::uint8_t> tie(threads, 0);
    pool.run(threads, [&](unsigned t) {
      const std::uint64_t b0 = std::max<std::uint64_t>(1, n * t / threads), b1 = n * (t + 1) / threads;
      for (std::uint64_t i = b0; i < b1 && !tie[t]; ++i)
        tie[t] = ((load_uint(chunk.data() + i * kw, kw) ^ load_uint(chunk.data() + (i - 1) * kw, kw)) & m) == 0;
    });
    done = std::none_of(tie.begin(), tie.end(), [](std::uint8_t x) { return x != 0; });
    have_perm = done;
  }

  for (int c = 0; c < chunks && !done; ++c) {  // least significant chunk first
    const core::wide_chunk& w = plan[c];
    if (!chunk_varies[c]) continue;  // the same in every key: no pass
    extract(w);
    sort_request sub = chunk_request(w, operation::argsort);
    sub.indices = next.mem.data();
    sub.index_bytes = ib;
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
