// CPU LSD sort, in-place route of sorter<U, V>: keys alone whose equal keys
// are equal bits (the plan's keys_in_place), sorted with no key scratch.
//
// The MSD pass distributes the keys by their top digit within their own
// memory, in blocks (after Axtmann, Witt, Ferizovic & Sanders, "Engineering
// In-place (Shared-memory) Sorting Algorithms", 2022: IPS4o / IPS2Ra's block
// permutation):
//   classify  each thread reads its stripe and gathers each bucket's keys in
//             a block buffer of its own; a full buffer is written back into
//             the stripe, behind the reading position (so the stripe becomes
//             full blocks, each of one bucket, then free space);
//   permute   every full block moves to the next free block slot of its
//             bucket's region (the bucket's start rounded up to a block),
//             taking along the block it finds there (the threads follow
//             these chains from the slots they claim);
//   clean up  each bucket's ends: the partial blocks left in the buffers and
//             the tail of its last block that overhangs the next bucket go to
//             the slack at its head and tail.
// Each bucket, now in place, is sorted in the cache by one thread (the
// hybrid's bucket sort, ping-ponging with a buffer of the bucket's size), or,
// larger than the cache share, distributed again by its next digit. Keys
// keep their bits; the order of equal keys changes, which nobody can see.
#pragma once
#include "lsd_sorter.hpp"

namespace radix::cpu {
namespace lsd_detail {

/// Bytes of a block of the in-place distribution: a few cache lines, so that
/// moving one is a streaming copy, and small enough that a thread's buffers
/// (one block a bucket) stay in its L2 at 2^12 buckets.
inline constexpr std::size_t in_place_block_bytes = 512;

template <class U, class V>
inline void sorter<U, V>::in_place_route(int lo, int hi, U varying) {
  const std::uint64_t n = job_.n;
  const std::uint64_t target = std::max<std::uint64_t>(1024, policy_.bucket_bytes / sizeof(U));
  const int bits = hi - lo;
  // The MSD digit as the hybrid route takes it; where the bits that vary fit
  // one in-cache digit, all of them: the distribution alone sorts.
  int d1 = bits <= policy_.bucket_digit_bits ? bits : msd_digit_bits(n, bits, target);
  d1 = std::clamp(d1, 1, std::min(bits, 16));  // (policies that ask for 0 or more than 16 bits)
  const core::pass msd{hi - d1, d1};
  const std::vector<std::uint64_t> start = distribute_in_place(job_.keys, n, msd, threads_);
  trace_.mark("clean up");
  if (d1 == bits) {
    trace_.print("in-place", n, d1);
    return;
  }
  const unsigned R = 1u << d1;
  const std::uint64_t cap = 4 * target;
  std::atomic<unsigned> next{0};
  thread_pool::instance().run(threads_, [&](unsigned) {
    bucket_worker w(*this, cap);
    // (the next bucket's keys are asked for while this one is sorted)
    for (unsigned b = next.fetch_add(1, std::memory_order_relaxed); b < R;) {
      const unsigned after = next.fetch_add(1, std::memory_order_relaxed);
      if (after < R) prefetch_block(job_.keys + start[after], std::min(start[after + 1] - start[after], cap) * sizeof(U));
      if (start[b + 1] - start[b] > 1) w.sort_in_place(job_.keys + start[b], start[b + 1] - start[b], lo, hi - d1, varying);
      b = after;
    }
    stream_fence();
  });
  trace_.mark("buckets");
  trace_.print("in-place", n, d1);
}

/// Distributes a[0, m) by the digit `ps` in place, on `threads` threads (1:
/// on the calling thread, which may be a pool worker). Returns where each of
/// the 2^ps.bits buckets begins (and m at the end).
template <class U, class V>
std::vector<std::uint64_t> sorter<U, V>::distribute_in_place(U* a, std::uint64_t m, core::pass ps, unsigned threads) {
  constexpr std::uint64_t B = in_place_block_bytes / sizeof(U);
  if (ps.bits < 1 || ps.bits > 16) throw std::logic_error("radix: internal: an in-place digit of more than 16 bits");
  const unsigned R = 1u << ps.bits;
  const codec_t c = job_.codec;
  auto bucket_of = [&](U k) { return core::digit_of<U>(xform<core::key_form::biased>(c, k), ps.shift, ps.bits); };
  const std::uint64_t full_slots = m / B;  // block slots wholly inside a[0, m)
  threads = unsigned(std::max<std::uint64_t>(1, std::min<std::uint64_t>(threads, full_slots)));

  // 1. Classify: stripes of whole blocks (the last one takes the rest).
  struct stripe {
    std::uint64_t begin = 0, end = 0, written = 0;
    std::vector<U> buffer;              // a block a bucket
    std::vector<std::uint32_t> filled;   // keys in each bucket's block
    std::vector<std::uint64_t> flushed;  // full blocks of each bucket written back
  };
  std::vector<stripe> st(threads);
  std::vector<std::uint16_t> block_bucket(full_slots);  // the bucket of each block written back (R <= 2^16)
  for (unsigned t = 0; t < threads; ++t) {
    st[t].begin = full_slots * t / threads * B;
    st[t].end = t + 1 == threads ? m : full_slots * (t + 1) / threads * B;
  }
  auto classify = [&](unsigned t) {
    stripe& s = st[t];
    s.buffer.resize(std::size_t(R) * B);
    s.filled.assign(R, 0);
    s.flushed.assign(R, 0);
    U* buf = s.buffer.data();
    std::uint32_t* filled = s.filled.data();
    std::uint64_t w = s.begin;
    for (std::uint64_t i = s.begin; i < s.end; ++i) {
      const U k = a[i];
      const unsigned b = bucket_of(k);
      U* blk = buf + std::size_t(b) * B;
      const std::uint32_t f = filled[b];
      blk[f] = k;
      filled[b] = f + 1;
      if (f + 1 == B) [[unlikely]] {  // behind the reading position: w <= i + 1 - B
        std::memcpy(a + w, blk, B * sizeof(U));
        block_bucket[w / B] = std::uint16_t(b);
        w += B;
        filled[b] = 0;
        ++s.flushed[b];
      }
    }
    s.written = w;
  };
  if (threads == 1) classify(0);
  else thread_pool::instance().run(threads, classify);
  const bool top = a == job_.keys && m == job_.n;  // (traced: the first distribution only)
  if (top) trace_.mark("classify");

  // Where the buckets begin, and their block slots: bucket b's full blocks
  // go to the slots from its start rounded up to a block.
  std::vector<std::uint64_t> start(std::size_t(R) + 1, 0), full(R, 0), slot(R, 0);
  for (unsigned b = 0; b < R; ++b) {
    for (const stripe& s : st) full[b] += s.flushed[b], start[b + 1] += s.flushed[b] * B + s.filled[b];
    start[b + 1] += start[b];
  }
  for (unsigned b = 0; b < R; ++b) slot[b] = (start[b] + B - 1) / B;

  // 2. Permute. Every classified block's destination first (the next free
  // slot of its bucket), then the moves: a thread claims a slot, takes its
  // block in hand and carries it to its destination, taking along the block
  // it finds there (whose slot it claims in turn), until it reaches a slot
  // whose block is gone or that held none. A slot is claimed once; a writer
  // waits until the claimant has read the block out (`taken`).
  enum : std::uint8_t { no_block, unread, claimed, taken };
  std::vector<std::atomic<std::uint8_t>> state(full_slots);
  for (auto& x : state) x.store(no_block, std::memory_order_relaxed);
  std::vector<std::uint64_t> dest(full_slots, 0);
  for (const stripe& s : st)
    for (std::uint64_t k = s.begin / B; k < s.written / B; ++k) {
      state[k].store(unread, std::memory_order_relaxed);
      dest[k] = slot[block_bucket[k]]++;
    }
  std::vector<U> overflow(B);  // the slot that crosses m, if a block goes there
  std::atomic<bool> overflowed{false};
  auto carry = [&](std::uint64_t k, U* hand, U* other) {
    std::uint8_t was = unread;
    if (!state[k].compare_exchange_strong(was, claimed, std::memory_order_acq_rel)) return;
    if (dest[k] == k) {  // already in place
      state[k].store(taken, std::memory_order_release);
      return;
    }
    std::memcpy(hand, a + k * B, B * sizeof(U));
    state[k].store(taken, std::memory_order_release);
    for (std::uint64_t from = k;;) {
      const std::uint64_t to = dest[from];
      // (a chain jumps across memory: ask for the block after this one now)
      if (to < full_slots && dest[to] < full_slots) prefetch_block(a + dest[to] * B, B * sizeof(U));
      if (to >= full_slots) {  // (its part inside a[0, m) goes home after the moves)
        std::memcpy(overflow.data(), hand, B * sizeof(U));
        overflowed.store(true, std::memory_order_relaxed);
        return;
      }
      std::uint8_t seen = unread;
      if (state[to].compare_exchange_strong(seen, claimed, std::memory_order_acq_rel)) {
        std::memcpy(other, a + to * B, B * sizeof(U));  // take the block there along
        state[to].store(taken, std::memory_order_release);
        std::memcpy(a + to * B, hand, B * sizeof(U));
        std::swap(hand, other);
        from = to;
        continue;
      }
      while (seen == claimed) {  // being read out (one block's copy)
        std::this_thread::yield();
        seen = state[to].load(std::memory_order_acquire);
      }
      std::memcpy(a + to * B, hand, B * sizeof(U));
      return;
    }
  };
  auto permute = [&](unsigned t) {
    std::vector<U> hand(B), other(B);
    for (std::uint64_t k = full_slots * t / threads, e = full_slots * (t + 1) / threads; k < e; ++k)
      if (state[k].load(std::memory_order_relaxed) == unread) carry(k, hand.data(), other.data());
  };
  if (threads == 1) permute(0);
  else thread_pool::instance().run(threads, permute);
  const bool overflow_used = overflowed.load();
  if (top) trace_.mark("permute");
  const std::uint64_t cross = full_slots * B;  // where the slot that crosses m begins
  if (overflow_used) std::memcpy(a + cross, overflow.data(), std::size_t(m - cross) * sizeof(U));
  auto at = [&](std::uint64_t pos) { return pos < m ? a[pos] : overflow[pos - cross]; };

  // 3. Clean up, bucket by bucket upward: bucket b's full blocks lie at
  // [first, blocks_end); its last block may overhang the next bucket's head,
  // whose keys are placed in the next step. The keys left over (that
  // overhang, the partial buffers) fill its head [start, first) and tail
  // [blocks_end, next start).
  std::vector<U> left;
  for (unsigned b = 0; b < R; ++b) {
    const std::uint64_t s0 = start[b], s1 = start[b + 1];
    const std::uint64_t first = (s0 + B - 1) / B * B, blocks_end = first + full[b] * B;
    left.clear();
    if (full[b] > 0)
      for (std::uint64_t pos = s1; pos < blocks_end; ++pos) left.push_back(at(pos));
    for (const stripe& s : st)
      left.insert(left.end(), s.buffer.begin() + std::size_t(b) * B, s.buffer.begin() + std::size_t(b) * B + s.filled[b]);
    const std::uint64_t head_end = std::min(first, s1), tail_begin = blocks_end;
    if (left.size() != (head_end - s0) + (s1 > tail_begin ? s1 - tail_begin : 0))
      throw std::logic_error("radix: internal: the in-place distribution lost keys");
    std::size_t i = 0;
    for (std::uint64_t pos = s0; pos < head_end; ++pos) a[pos] = left[i++];
    for (std::uint64_t pos = tail_begin; pos < s1; ++pos) a[pos] = left[i++];
  }
  return start;
}

/// Sorts bucket a[0, m) on bits [lo, hi) in place: in the cache when it fits
/// the thread's share, else distributed in place once more by its top digit.
template <class U, class V>
inline void sorter<U, V>::bucket_worker::sort_in_place(U* a, std::uint64_t m, int lo, int hi, U varying) {
  // (bits below hi that no key varies in would only be distributed for nothing)
  const U below = hi >= int(sizeof(U)) * 8 ? U(~U(0)) : U((U(1) << hi) - 1);
  hi = std::min(hi, int(std::bit_width(U(varying & below))));
  if (hi <= lo) return;  // no bit left that varies: equal keys
  if (m <= cap) {
    take_codec(a, m, hi);
    return sort_range(a, nullptr, a, nullptr, nullptr, nullptr, m, lo, hi, varying, 1);
  }
  const std::uint64_t target = std::max<std::uint64_t>(1024, s.policy_.bucket_bytes / sizeof(U));
  int d = std::max(1, int(std::bit_width((m - 1) / target)));
  d = std::clamp(std::min(d, s.policy_.max_msd_bits), 1, std::min(hi - lo, 16));
  const std::vector<std::uint64_t> start = s.distribute_in_place(a, m, core::pass{hi - d, d}, 1);
  if (d == hi - lo) return;  // every bit that varies: sorted
  for (unsigned b = 0, R = 1u << d; b < R; ++b)
    if (start[b + 1] - start[b] > 1) sort_in_place(a + start[b], start[b + 1] - start[b], lo, hi - d, varying);
}

}  // namespace lsd_detail
}  // namespace radix::cpu
