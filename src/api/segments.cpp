// Segmented requests on engines without a segmented sort of their own (and
// for keys wider than an engine's native 64 bits): two stable whole-array
// sorts. Sorting by key first and then, stably, by segment leaves every
// segment's elements in key order (the LSD argument: the later sort's ties
// keep the earlier order), so one permutation does the whole batch.
#include <bit>
#include <cstring>
#include <vector>

#include "engine/engine.hpp"
#include "radix/core/segments.hpp"

namespace radix::detail {
namespace {

template <class I, class S>
void by_sorts(const sort_request& req) {
  const std::uint64_t n = req.n;
  const core::segment_view v(req.segs, n);

  // 1. The stable order of all keys, as the request asks (direction, floats, bits).
  std::vector<I> perm(n);
  sort_request a = req;
  a.segs = {};
  a.op = operation::argsort;
  a.values = nullptr;
  a.value_bytes = 0;
  a.indices = perm.data();
  a.index_bytes = sizeof(I);
  run(a);

  // 2. Stably by segment: owner[i] is the segment of element i.
  std::vector<S> owner(n), seg(n);
  v.for_each([&](std::uint64_t s, std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t i = b; i < e; ++i) owner[i] = S(s);
  });
  if (v.count() > 1) {
    for (std::uint64_t i = 0; i < n; ++i) seg[i] = owner[perm[i]];
    sort_request b;
    b.op = operation::pairs;
    b.key = key_desc_of<S>();
    b.n = n;
    b.keys = seg.data();
    b.values = perm.data();
    b.value_bytes = sizeof(I);
    b.opts.use = req.opts.use;
    b.opts.threads = req.opts.threads;
    b.opts.end_bit = std::bit_width(std::uint64_t(v.count() - 1));
    run(b);
  }

  // 3. Apply the permutation: perm[i] is the element that goes to place i.
  const unsigned threads = req.opts.threads;
  switch (req.op) {
    case operation::keys: permute(req.keys, req.key.bytes, n, perm.data(), sizeof(I), threads); break;
    case operation::pairs:
      permute(req.keys, req.key.bytes, n, perm.data(), sizeof(I), threads);
      permute(req.values, req.value_bytes, n, perm.data(), sizeof(I), threads);
      break;
    case operation::argsort:
      // positions inside the segment: place i lies in segment owner[i], and so does perm[i]
      for (std::uint64_t i = 0; i < n; ++i) {
        const std::uint64_t local = std::uint64_t(perm[i]) - v.begin(owner[i]);
        if (req.index_bytes == 4) static_cast<std::uint32_t*>(req.indices)[i] = std::uint32_t(local);
        else static_cast<std::uint64_t*>(req.indices)[i] = local;
      }
      break;
  }
}

}  // namespace

void run_segments_by_sorts(const sort_request& req) {
  if (req.n == 0) return;
  const bool wide_index = req.n > 0xFFFFFFFFull;
  const bool wide_seg = req.segs.layout != segment_layout::none && req.segs.count > 0xFFFFFFFFull;
  if (!wide_index && !wide_seg) return by_sorts<std::uint32_t, std::uint32_t>(req);
  if (!wide_seg) return by_sorts<std::uint64_t, std::uint32_t>(req);
  return by_sorts<std::uint64_t, std::uint64_t>(req);
}

}  // namespace radix::detail
