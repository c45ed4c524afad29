// CPU LSD sort, hybrid route, per bucket: sorter<U, V>::bucket_worker, one
// thread's in-cache LSD sort of a bucket (split once more when too big, a
// sorting network or insertion when tiny) and its write to the final place.
#pragma once
#include "lsd_sorter.hpp"
#include "sorting_network.hpp"

namespace radix::cpu {
namespace lsd_detail {

/// Sorts bucket [off, off + m) of the scratch arrays by bits [lo, hi) and
/// writes it to its final place.
template <class U, class V>
inline void sorter<U, V>::bucket_worker::sort(std::uint64_t off, std::uint64_t m, int lo, int hi, U varying) {
  const lsd_job<U, V>& j = s.job_;
  // Buffers: A holds the bucket; F is its final place; P a partner region
  // of the same size outside the cache (F itself, or spare scratch for an
  // argsort's keys).
  U* ka = j.key_scratch[0] + off;
  U* kf = j.keys_readonly ? nullptr : j.keys + off;
  V* va = nullptr;
  V* vf = nullptr;
  if constexpr (has_value) {
    va = j.value_scratch + off;
    vf = j.values + off;
  }
  U* kp = j.keys_readonly ? j.key_scratch[1] + off : kf;
  take_codec(ka, m, hi);
  sort_range(ka, va, kf, vf, kp, vf, m, lo, hi, varying, 0);
}

/// Keys that share every bit from `hi` up share the sign when the sort sees
/// the top bit: floats' sign-dependent transform is then one XOR for the
/// whole bucket, the form integer keys take (the same ordered bits, fewer
/// instructions a key in every pass over the bucket).
template <class U, class V>
inline void sorter<U, V>::bucket_worker::take_codec(const U* keys, std::uint64_t m, int hi) {
  codec = s.job_.codec;
  if (m == 0 || codec.canon || codec.linear() || hi >= codec_t::bits || s.job_.end_bit != codec_t::bits) return;
  codec = codec.same_sign_as(keys[0]);
}

/// Elements [off, off + m) of the job copied to the same places in scratch,
/// where the bucket sort reads them: the keys, and the values or (argsort)
/// the positions from 0.
template <class U, class V>
inline void sorter<U, V>::stage_in_scratch(std::uint64_t off, std::uint64_t m) {
  std::memcpy(job_.key_scratch[0] + off, job_.keys + off, std::size_t(m) * sizeof(U));
  if constexpr (has_value) {
    V* va = job_.value_scratch + off;
    if (job_.pay == payload::values) std::memcpy(va, job_.values + off, std::size_t(m) * sizeof(V));
    else
      for (std::uint64_t i = 0; i < m; ++i) va[i] = V(i);
  }
}

/// Asks for bucket [off, off + m) of the scratch arrays in the cache (its
/// first `cap` elements: a larger bucket is split first), so that it comes
/// from memory while the bucket before it is sorted.
template <class U, class V>
inline void sorter<U, V>::bucket_worker::prefetch(std::uint64_t off, std::uint64_t m) const {
  const std::uint64_t k = std::min(m, cap);
  prefetch_block(s.job_.key_scratch[0] + off, std::size_t(k) * sizeof(U));
  if constexpr (has_value) prefetch_block(s.job_.value_scratch + off, std::size_t(k) * sizeof(V));
}

template <class U, class V>
inline void sorter<U, V>::bucket_worker::sort_range(U* ka, V* va, U* kf, V* vf, U* kp, V* vp, std::uint64_t m, int lo,
                                                    int hi, U varying, int depth) {
  // A bucket too big for the cache (skewed top bits: floats, clustered
  // keys) is split once more by its own MSD pass, into P.
  if (m > cap && depth == 0 && hi - lo > s.policy_.bucket_digit_bits) return split(ka, va, kf, vf, kp, vp, m, lo, hi, varying);
  const bool big = m > cap;
  U* kb;
  V* vb = nullptr;
  if (big) {  // no room in the cache buffers: ping-pong with P
    kb = kp;
    vb = vp;
  } else {
    if (ktmp.size() < m) ktmp.resize(std::max<std::uint64_t>(m, std::min(cap, 2 * m)));
    kb = ktmp.data();
    if constexpr (has_value) {
      if (vtmp.size() < m) vtmp.resize(ktmp.size());
      vb = vtmp.data();
    }
  }
  if (m <= s.policy_.tiny_bucket) return tiny(ka, va, kf, vf, m);

  // LSD passes ping-pong between A and B (both in cache for ordinary
  // buckets); a digit that is the same for the whole bucket is skipped.
  // The result is then copied to F in one sequential sweep, which is far
  // cheaper than scattering into memory that is not in the cache.
  const int dd = std::min<int>(s.policy_.bucket_digit_bits, std::max(4, int(std::bit_width(m)) - 3));
  const core::pass_plan plan = core::plan_passes(lo, hi, dd);
  std::vector<core::pass> passes;
  for (int i = 0; i < plan.count; ++i)
    if (!core::pass_is_trivial<U>(varying, plan[i])) passes.push_back(plan[i]);
  // 32-bit counters keep the histograms small (L1) for every ordinary bucket.
  if (m <= 0xFFFFFFFFull) run_passes(passes, h32, h32n, ka, kb, kf, va, vb, vf, m);
  else run_passes(passes, h64, h64n, ka, kb, kf, va, vb, vf, m);
}

/// One MSD pass over the top digit of [lo, hi) from A into P (write-
/// combined), then each part sorted on the bits below, in place in P, with
/// A as its out-of-cache partner.
template <class U, class V>
inline void sorter<U, V>::bucket_worker::split(U* ka, V* va, U* kf, V* vf, U* kp, V* vp, std::uint64_t m, int lo,
                                               int hi, U varying) {
  const std::uint64_t elem = sizeof(U) + (has_value ? sizeof(V) : 0);
  const std::uint64_t target = std::max<std::uint64_t>(1024, s.policy_.bucket_bytes / elem);
  int d = std::max(1, int(std::bit_width((m - 1) / target)));
  d = std::min({d, s.policy_.max_msd_bits, hi - lo - 1});
  const core::pass ps{hi - d, d};
  const unsigned R = 1u << d;
  std::vector<std::uint64_t> h(R + 1, 0);
  count_in_cache(ka, m, ps, h);
  for (unsigned b = 0; b < R; ++b)
    if (h[b] == m) return sort_range(ka, va, kf, vf, kp, vp, m, lo, hi - d, varying, 0);  // digit shared by all
  std::vector<std::uint64_t> start(R + 1, 0);
  for (unsigned b = 0; b < R; ++b) start[b + 1] = start[b] + h[b];
  with_form(codec, [&]<core::key_form F>() { scatter_one<F>(ka, va, kp, vp, m, ps, start); });
  stream_fence();
  for (unsigned b = 0; b < R; ++b) {
    const std::uint64_t o = start[b], c = start[b + 1] - o;
    if (c == 0) continue;
    V* vpo = nullptr;
    V* vao = nullptr;
    V* vfo = nullptr;
    if constexpr (has_value) vpo = vp + o, vao = va + o, vfo = vf + o;
    sort_range(kp + o, vpo, kf ? kf + o : nullptr, vfo, ka + o, vao, c, lo, hi - d, varying, 1);
  }
}

/// Single-thread write-combined scatter of m keys (and values) by one digit.
template <class U, class V>
template <core::key_form F>
inline void sorter<U, V>::bucket_worker::scatter_one(const U* ks, const V* vs, U* kd, V* vd, std::uint64_t m,
                                                     core::pass ps, const std::vector<std::uint64_t>& start) {
  const unsigned R = 1u << ps.bits;
  constexpr unsigned KL = unsigned(wc_span_bytes / sizeof(U));
  constexpr unsigned VL = has_value ? unsigned(wc_span_bytes / sizeof(V)) : 1u;
  std::vector<std::uint64_t> pos(start.begin(), start.begin() + R);
  std::vector<U> kl(std::size_t(R) * KL + KL);
  std::vector<V> vl(has_value ? std::size_t(R) * VL + VL : 0);
  auto align64 = [](auto* p) {
    return reinterpret_cast<decltype(p)>((reinterpret_cast<std::uintptr_t>(p) + 63) & ~std::uintptr_t(63));
  };
  U* kbuf = align64(kl.data());
  V* vbuf = has_value ? align64(vl.data()) : nullptr;
  const bool kwc = wc_usable(kd);
  const unsigned kskew = unsigned((reinterpret_cast<std::uintptr_t>(kd) % 64) / sizeof(U));
  bool vwc = false;
  unsigned vskew = 0;
  if constexpr (has_value) {
    vwc = wc_usable(vd);
    vskew = unsigned((reinterpret_cast<std::uintptr_t>(vd) % 64) / sizeof(V));
  }
  const codec_t c = codec;
  for (std::uint64_t i = 0; i < m; ++i) {
    const U k = ks[i];
    const unsigned b = core::digit_of<U>(xform<F>(c, k), ps.shift, ps.bits);
    const std::uint64_t p = pos[b]++;
    if (kwc) wc_put<U, KL>(kbuf + std::size_t(b) * KL, kd, kskew, p, start.data() + b, k);
    else kd[p] = k;
    if constexpr (has_value) {
      if (vwc) wc_put<V, VL>(vbuf + std::size_t(b) * VL, vd, vskew, p, start.data() + b, vs[i]);
      else vd[p] = vs[i];
    }
  }
  for (unsigned b = 0; b < R; ++b) {
    if (kwc) wc_drain<U, KL>(kbuf + std::size_t(b) * KL, kd, kskew, pos[b], start[b]);
    if constexpr (has_value)
      if (vwc) wc_drain<V, VL>(vbuf + std::size_t(b) * VL, vd, vskew, pos[b], start[b]);
  }
}

template <class U, class V>
template <class C>
inline void sorter<U, V>::bucket_worker::run_passes(const std::vector<core::pass>& passes, std::vector<C>& hist,
                                                    std::vector<C>& hist_next, U* ka, U* kb, U* kf, V* va, V* vb,
                                                    V* vf, std::uint64_t m) {
  U* kc = ka;
  U* ko = kb;
  V* vc = va;
  V* vo = vb;
  bool counted = false;  // hist holds the counts of passes[q]
  for (std::size_t q = 0; q < passes.size(); ++q) {
    const core::pass ps = passes[q];
    if (!counted) count_in_cache(kc, m, ps, hist);
    // A digit the whole bucket shares moves nothing.
    bool trivial = false;
    for (unsigned b = 0, R = 1u << ps.bits; b < R; ++b) trivial |= hist[b] == m;
    counted = false;
    if (trivial) continue;
    const core::pass* next = q + 1 < passes.size() ? &passes[q + 1] : nullptr;
    with_form(codec,
              [&]<core::key_form F>() { pass_in_cache<F>(kc, ko, vc, vo, m, ps, next, hist, hist_next); });
    counted = next != nullptr;
    hist.swap(hist_next);
    std::swap(kc, ko);
    if constexpr (has_value) std::swap(vc, vo);
  }
  if (kf && kc != kf) stream_copy(kf, kc, std::size_t(m) * sizeof(U));
  if constexpr (has_value)
    if (vc != vf) stream_copy(vf, vc, std::size_t(m) * sizeof(V));
}

template <class U, class V>
template <class C>
inline void sorter<U, V>::bucket_worker::count_in_cache(const U* ks, std::uint64_t m, core::pass ps,
                                                        std::vector<C>& h) {
  h.assign(std::size_t(1) << ps.bits, 0);
  const codec_t c = codec;
  with_form(c, [&]<core::key_form F>() {
    for (std::uint64_t i = 0; i < m; ++i) ++h[core::digit_of<U>(xform<F>(c, ks[i]), ps.shift, ps.bits)];
  });
}

/// One counting-sort pass of a bucket from (ks, vs) to (kd, vd) with the
/// counts in `hist`; counts the next pass's digits on the way.
template <class U, class V>
template <core::key_form F, class C>
inline void sorter<U, V>::bucket_worker::pass_in_cache(const U* ks, U* kd, const V* vs, V* vd, std::uint64_t m,
                                                       core::pass ps, const core::pass* next, std::vector<C>& hist,
                                                       std::vector<C>& hist_next) {
  const unsigned Rp = 1u << ps.bits;
  const codec_t c = codec;
  C* h = hist.data();
  C run = 0;
  for (unsigned b = 0; b < Rp; ++b) {
    const C n = h[b];
    h[b] = run;
    run += n;
  }
  if (next) {
    hist_next.assign(std::size_t(1) << next->bits, 0);
    C* hn = hist_next.data();
    const core::pass nx = *next;
    for (std::uint64_t i = 0; i < m; ++i) {
      const U k = ks[i];
      const U o = xform<F>(c, k);
      const C p = h[core::digit_of<U>(o, ps.shift, ps.bits)]++;
      ++hn[core::digit_of<U>(o, nx.shift, nx.bits)];
      kd[p] = k;
      if constexpr (has_value) vd[p] = vs[i];
    }
  } else {
    for (std::uint64_t i = 0; i < m; ++i) {
      const U k = ks[i];
      const C p = h[core::digit_of<U>(xform<F>(c, k), ps.shift, ps.bits)]++;
      kd[p] = k;
      if constexpr (has_value) vd[p] = vs[i];
    }
  }
}

/// Stable sort of a tiny bucket (tiny_bucket's bound; segments: up to
/// segment_constants::tiny_max) from A into F (F may be A): keys of up to 4
/// bytes by a sorting network (up to 64 keys; up to 512, its runs merged),
/// wider ones (up to 64) by insertion.
template <class U, class V>
inline void sorter<U, V>::bucket_worker::tiny(const U* ka, const V* va, U* kf, V* vf, std::uint64_t m) {
  const codec_t c = codec;
  const U mask = s.range_mask_;
  if constexpr (sizeof(U) <= 4) {
    constexpr unsigned most = network::merged_most;
    U kk[most];
    V vv[most];
    std::uint64_t w[most], t[most];
    for (unsigned i = 0; i < unsigned(m); ++i) {
      kk[i] = ka[i];
      w[i] = network::pack(U(c(kk[i]) & mask), i);
      if constexpr (has_value) vv[i] = va[i];
    }
    const std::uint64_t* sorted = network::sort_packed_merged(w, t, unsigned(m));
    for (unsigned i = 0; i < unsigned(m); ++i) {
      const unsigned from = network::position_of(sorted[i]);
      if (kf) kf[i] = kk[from];
      if constexpr (has_value) vf[i] = vv[from];
    }
  } else {
    U kk[64];
    V vv[64];
    U oo[64];
    for (std::uint64_t i = 0; i < m; ++i) {
      const U k = ka[i];
      const U o = U(c(k) & mask);
      V v{};
      if constexpr (has_value) v = va[i];
      std::uint64_t j = i;
      while (j > 0 && oo[j - 1] > o) {
        kk[j] = kk[j - 1];
        oo[j] = oo[j - 1];
        if constexpr (has_value) vv[j] = vv[j - 1];
        --j;
      }
      kk[j] = k;
      oo[j] = o;
      if constexpr (has_value) vv[j] = v;
    }
    if (kf) std::memcpy(kf, kk, std::size_t(m) * sizeof(U));
    if constexpr (has_value) std::memcpy(vf, vv, std::size_t(m) * sizeof(V));
  }
}

}  // namespace lsd_detail
}  // namespace radix::cpu
