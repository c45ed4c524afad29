// Record sorting (Ha, Krüger & Silva 2009, "Fast 4-way parallel radix sorting on GPUs", §4.7): extract the key of every record, argsort
// the keys on the chosen engine, then gather the records by the permutation.
#include <cstring>
#include <string>

#include "../cpu/thread_pool.hpp"
#include "engine/engine.hpp"

namespace radix {

namespace {
void byteswap(std::byte* p, std::size_t n) {
  for (std::size_t i = 0; i < n / 2; ++i) std::swap(p[i], p[n - 1 - i]);
}
}  // namespace

void sort_records(void* data, std::size_t record_bytes, std::uint64_t count, const record_key& key,
                  const options& o) {
  const std::size_t kb = key.type.bytes;
  const bool byte_string = key.type.kind == key_kind::bytes;
  // 16-byte integers (uint128 / int128) go the numeric way below: extracted
  // (byte-swapped when big-endian), then run() sorts them as wide keys.
  const bool wide_int = kb == 16 && (key.type.kind == key_kind::unsigned_int || key.type.kind == key_kind::signed_int);
  if (!byte_string && !wide_int && kb != 1 && kb != 2 && kb != 4 && kb != 8)
    throw invalid_argument("radix: record key of " + std::to_string(kb) + " bytes is not a supported key type");
  if (record_bytes == 0) throw invalid_argument("radix: record size 0");
  // (written so that no offset, however large, wraps the sum around)
  if (key.offset > record_bytes || kb > record_bytes - key.offset)
    throw invalid_argument("radix: key at offset " + std::to_string(key.offset) + " of " + std::to_string(kb) +
                           " bytes does not fit in a record of " + std::to_string(record_bytes) + " bytes");
  if (count > 0 && data == nullptr) throw invalid_argument("radix: records is null but count = " + std::to_string(count));
  {
    // The options and the engine are checked even with nothing to sort, as
    // every other entry point checks them.
    sort_request check;
    check.op = operation::argsort;
    check.key = key.type;
    check.n = count;
    check.index_bytes = count <= 0xFFFFFFFFull ? 4 : 8;
    check.opts = o;
    detail::validate_request(check, false);
    (void)detail::pick_engine(o.use);
  }
  if (count < 2) return;
  // An engine that sorts records whole (the CUDA engine: sort and gather on
  // the device) takes them; the others argsort here and permute on the CPU.
  if (detail::pick_engine(o.use).run_records(data, record_bytes, count, key, o)) return;

  const std::uint8_t ib = count <= 0xFFFFFFFFull ? 4 : 8;
  if (byte_string) {
    // Chunks are read straight from the records (memcmp order: byte order
    // is the order, big_endian has no meaning here).
    detail::scratch perm(count * ib);
    sort_request req;
    req.op = operation::argsort;
    req.key = key.type;
    req.n = count;
    req.keys = data;
    req.indices = perm.data();
    req.index_bytes = ib;
    req.opts = o;
    detail::validate_request(req, true);
    detail::run_byte_keys(req, data, record_bytes, key.offset);
    detail::permute(data, record_bytes, count, perm.data(), ib, o.threads);
    return;
  }
  detail::scratch keys(count * kb), perm(count * ib);
  auto* rec = static_cast<const std::byte*>(data);
  const unsigned t = cpu::threads_for(count, o.threads, 1 << 15);
  cpu::thread_pool::instance().run(t, [&](unsigned i) {
    const std::uint64_t b0 = count * i / t, b1 = count * (i + 1) / t;
    for (std::uint64_t r = b0; r < b1; ++r) {
      std::byte* k = keys.data() + r * kb;
      std::memcpy(k, rec + r * record_bytes + key.offset, kb);
      if (key.big_endian) byteswap(k, kb);
    }
  });
  sort_request req;
  req.op = operation::argsort;
  req.key = key.type;
  req.n = count;
  req.keys = keys.data();
  req.indices = perm.data();
  req.index_bytes = ib;
  req.opts = o;
  run(req);
  detail::permute(data, record_bytes, count, perm.data(), ib, o.threads);
}

}  // namespace radix
