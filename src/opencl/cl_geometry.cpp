// The shapes of one OpenCL sort, decided before any buffer is made: the
// codec's masks for the kernels, and the geometry (work-items, keys per item,
// digit width) of Helluy's path, the local-sort path and the chunked path,
// each sized to the device's local memory (Helluy 2011, "A portable
// implementation of the radix sort algorithm in OpenCL", §3.2.1).
#include <algorithm>

#include "cl_internal.hpp"
#include "radix/core/ordered_bits.hpp"
#include "radix/error.hpp"

namespace radix::opencl::detail {

codec_args codec_for(key_desc key, order dir, float_order floats) {
  codec_args a;
  auto fill = [&](auto c) {
    a.pos_xor = c.pos_xor;
    a.neg_xor = c.neg_xor;
    a.flip = c.flip;
    a.nan_above = c.nan_above;
    a.canon = c.canon ? 1 : 0;
  };
  switch (key.bytes) {
    case 1: fill(core::make_codec<std::uint8_t>(key, dir, floats)); break;
    case 2: fill(core::make_codec<std::uint16_t>(key, dir, floats)); break;
    case 4: fill(core::make_codec<std::uint32_t>(key, dir, floats)); break;
    case 8: fill(core::make_codec<std::uint64_t>(key, dir, floats)); break;
    default: throw invalid_argument("radix: the opencl engine has no keys of " + std::to_string(key.bytes) + " bytes");
  }
  return a;
}

std::uint64_t local_sort_bytes(int digit_bits, unsigned items, unsigned per_item, std::size_t key_bytes,
                               std::size_t val_bytes, bool wide) {
  const std::uint64_t R = std::uint64_t(1) << digit_bits, pos = wide ? 8 : 4;
  // The kernel's local arguments: counters (rows of items + 2 ushorts),
  // off (pos_t), dbase (ushort) per digit; part (uint) per item; the tile's
  // keys and values. 128 bytes of alignment slack per argument.
  return R * (items + 2) * 2 + R * pos + R * 2 + std::uint64_t(items) * 4 +
         std::uint64_t(items) * per_item * (key_bytes + std::max<std::size_t>(val_bytes, 1)) + 6 * 128;
}

std::uint64_t chunked_local_bytes(unsigned items, unsigned per_item, std::size_t key_bytes, std::size_t val_bytes,
                                  bool wide, bool at_local) {
  // rx_cs_reorder's __local arrays: the tile's keys and values (one spare
  // slot per 16), the scan's uint8 vectors (one spare per 16, 1/16 for the
  // segment sums, one for the digit bases), run offsets and the digit runs'
  // bounds for 256 digits, the sorted tile's digits, and some slack; with
  // RX_CS_AT_LOCAL, 16 ushort sub-digit starts per item
  const std::uint64_t tile = std::uint64_t(items) * per_item, pad = tile + tile / 16;
  return pad * (key_bytes + val_bytes) + tile + (items + items / 16 + items / 16 + 1) * 32 +
         256 * ((wide ? 8 : 4) + 4) + 256 + (at_local ? std::uint64_t(items) * 32 : 0);
}

namespace {

/// The chunked geometry: digits of at most 8 bits (two sub-digits of 4), the
/// most keys per item (up to cs_keys, at most 15) whose tile fits in local
/// memory, and cs_groups groups per compute unit each walking a contiguous
/// chunk of whole tiles.
geometry chunked_geometry(const queue_facts& f, const core::sort_plan& r) {
  geometry g;
  const policy& p = f.pol;
  const std::uint64_t n = std::max<std::uint64_t>(r.n, 1);
  g.chunked = true;
  g.slots = n;
  g.wide = n >= four_g;
  const std::size_t kb = r.key_bytes, vb = r.payload_bytes;
  const std::uint64_t room = f.info.local_mem;
  const unsigned I = p.cs_items;
  // At most 15 keys an item: its counters are 4-bit lanes (rx_cs_reorder).
  unsigned k = std::clamp(p.cs_keys, 1u, 15u);
  const bool at_local = p.cs_at_local != 0;
  while (k > 1 && chunked_local_bytes(I, k, kb, vb, g.wide, at_local) > room) --k;
  if (chunked_local_bytes(I, k, kb, vb, g.wide, at_local) > room)
    throw device_error("radix: the OpenCL device's local memory (" + std::to_string(f.info.local_mem) +
                       " bytes) is too small for the chunked local-sort path with cs_items=" + std::to_string(I) +
                       "; set local_sort=0 or fewer cs_items in RADIX_OPENCL_POLICY");
  int bits = r.digit_bits > 0 ? r.digit_bits : p.digit_bits;
  g.digit_bits = std::clamp(bits, 1, 8);
  g.per_item = k;
  const std::uint64_t tile = std::uint64_t(I) * k, tiles = ceil_div(n, tile);
  const std::uint64_t groups = std::clamp<std::uint64_t>(std::uint64_t(f.info.compute_units) * p.cs_groups, 1, tiles);
  g.chunk = ceil_div(tiles, groups) * tile;
  g.items = ceil_div(n, g.chunk);
  return g;
}

/// The local-sort geometry: the widest digit (up to the asked one) and then
/// the most keys per item (up to ls_keys) that fit in local memory.
geometry local_sort_geometry(const queue_facts& f, const core::sort_plan& r) {
  geometry g;
  const policy& p = f.pol;
  const std::uint64_t n = std::max<std::uint64_t>(r.n, 1);
  g.local_sort = true;
  g.slots = n;
  g.wide = n >= four_g;
  const std::size_t kb = r.key_bytes, vb = r.payload_bytes;
  const std::uint64_t room = f.info.local_mem > 2048 ? f.info.local_mem - 1024 : f.info.local_mem;
  const unsigned I = std::max(1u, p.ls_items);
  // A tile's slots are ushort counters: T = I x K < 2^16.
  const unsigned kmax = std::max(1u, std::min<unsigned>(p.ls_keys, 65535u / I));
  int bits = r.digit_bits > 0 ? r.digit_bits : p.digit_bits;
  bits = std::clamp(bits, 1, 8);  // 2^r x I ushort counters: wider digits do not fit anywhere useful
  unsigned k = 0;
  for (;; --bits) {
    const std::uint64_t fixed = local_sort_bytes(bits, I, 0, kb, vb, g.wide);
    const std::uint64_t per = std::uint64_t(I) * (kb + std::max<std::size_t>(vb, 1));
    k = fixed < room ? unsigned(std::min<std::uint64_t>(kmax, (room - fixed) / per)) : 0;
    // Prefer a narrower digit to a tile of fewer than 8 keys per item.
    if (bits == 1 || k >= std::min(8u, kmax)) break;
  }
  if (k == 0)
    throw device_error("radix: the OpenCL device's local memory (" + std::to_string(f.info.local_mem) +
                       " bytes) is too small for the local-sort path with ls_items=" + std::to_string(I) +
                       "; set local_sort=0 or fewer ls_items in RADIX_OPENCL_POLICY");
  g.digit_bits = bits;
  g.per_item = k;
  g.chunk = std::uint64_t(I) * k;
  g.items = ceil_div(n, g.chunk);
  return g;
}

}  // namespace

geometry geometry_for(const queue_facts& f, const core::sort_plan& r) {
  if (f.pol.local_sort == 2) return chunked_geometry(f, r);
  if (f.pol.local_sort) return local_sort_geometry(f, r);
  geometry g;
  const policy& p = f.pol;
  const std::uint64_t n = std::max<std::uint64_t>(r.n, 1);
  // Fewer groups for small inputs: the histogram has 2^r x G x I entries to
  // scan whatever n is, so give each item at least a few hundred keys.
  const std::uint64_t groups =
      std::clamp<std::uint64_t>(ceil_div(n, std::uint64_t(p.items) * 256), 1, std::max(1u, p.groups));
  g.items = groups * p.items;
  g.chunk = ceil_div(n, g.items);
  g.slots = g.items * g.chunk;
  g.wide = g.slots >= four_g;
  const std::uint64_t pos = g.wide ? 8 : 4;
  int bits = r.digit_bits > 0 ? r.digit_bits : p.digit_bits;
  bits = std::clamp(bits, 1, 16);
  // Helluy's S = 2^r x I x sizeof(counter) < local memory (§3.2.1), with
  // room left for the compiler's own use.
  const std::uint64_t room = f.info.local_mem > 2048 ? f.info.local_mem - 1024 : f.info.local_mem;
  while (bits > 1 && (std::uint64_t(1) << bits) * p.items * pos > room) --bits;
  g.digit_bits = bits;
  return g;
}

}  // namespace radix::opencl::detail
