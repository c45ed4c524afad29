// CPU LSD sort, plain route: the out-of-cache LSD passes of sorter<U, V>.
// Every thread scatters its chunk through write-combining spans and counts
// the next digit on the way; copy_back ends an odd pass count.
#pragma once
#include "lsd_sorter.hpp"

namespace radix::cpu {
namespace lsd_detail {

template <class U, class V>
inline void sorter<U, V>::sort_passes(const std::vector<core::pass>& passes) {
  const std::size_t P = passes.size();
  // Key buffers: sorting in place ping-pongs user <-> scratch[0]; an argsort
  // reads the user's keys once, then ping-pongs scratch[0] <-> scratch[1]
  // and skips writing keys in its last pass.
  const U* ksrc = job_.keys;
  auto key_dst = [&](std::size_t p) -> U* {
    if (job_.keys_readonly) return p + 1 == P ? nullptr : job_.key_scratch[p % 2];
    return p % 2 == 0 ? job_.key_scratch[0] : job_.keys;
  };
  // Payload buffers: the last pass must land in job_.values.
  const V* vsrc = nullptr;
  if constexpr (has_value) vsrc = job_.pay == payload::values ? job_.values : nullptr;
  auto val_dst = [&](std::size_t p) -> V* {
    if constexpr (!has_value) return nullptr;
    else {
      if (job_.pay == payload::values)  // read user first: same parity rule as keys
        return p % 2 == 0 ? job_.value_scratch : job_.values;
      return (P - 1 - p) % 2 == 0 ? job_.values : job_.value_scratch;
    }
  };

  std::vector<std::uint64_t> hist;
  if (!msd_from_scan(passes[0], hist)) count(ksrc, passes[0], hist);
  for (std::size_t p = 0; p < P; ++p) {
    const core::pass* next = p + 1 < P ? &passes[p + 1] : nullptr;
    U* kd = key_dst(p);
    V* vd = val_dst(p);
    const bool gen = job_.pay == payload::index && p == 0;
    std::vector<std::uint64_t> next_hist;
    scatter(ksrc, kd, vsrc, vd, gen, passes[p], next, hist, next_hist);
    hist.swap(next_hist);
    ksrc = kd;
    vsrc = vd;
  }
  // In-place sorts with an odd pass count end in scratch: copy back.
  if (!job_.keys_readonly && P % 2 == 1) {
    copy_back(job_.key_scratch[0], job_.keys);
    if constexpr (has_value)
      if (job_.pay == payload::values) copy_back(job_.value_scratch, job_.values);
  }
}

/// One thread, an input that fits its cache: into scratch, then the hybrid's
/// in-cache bucket sort of the whole input, which writes it back in order.
template <class U, class V>
inline void sorter<U, V>::in_cache(int lo, int hi, U varying) {
  stage_in_scratch(0, job_.n);
  bucket_worker(*this, job_.n).sort(0, job_.n, lo, hi, varying);
}

template <class U, class V>
template <class T>
inline void sorter<U, V>::copy_back(const T* from, T* to) {
  thread_pool::instance().run(threads_, [&](unsigned t) {
    const std::size_t bytes = std::size_t(bounds_[t + 1] - bounds_[t]) * sizeof(T);
    if (stream_) stream_copy(to + bounds_[t], from + bounds_[t], bytes), stream_fence();
    else std::memcpy(to + bounds_[t], from + bounds_[t], bytes);
  });
}

/// One pass: every thread moves its chunk [bound[t], bound[t+1]) of src to
/// the offsets the histograms give, and, when there is a next pass, counts
/// the next digit of each key by the chunk its destination falls in.
/// With a `lut` (hybrid_fine), a key's bucket is lut[digit of ps] and there
/// are `lut_buckets` of them; there is no next pass then. `lut_reads` says
/// whether the table takes the digit of the ordered bits or of the raw key.
template <class U, class V>
inline void sorter<U, V>::scatter(const U* ks, U* kd, const V* vs, V* vd, bool gen, const core::pass& ps,
                                  const core::pass* next, const std::vector<std::uint64_t>& hist,
                                  std::vector<std::uint64_t>& next_hist, const std::uint16_t* lut,
                                  unsigned lut_buckets, bucket_source lut_reads) {
  const unsigned R = lut ? lut_buckets : 1u << ps.bits;
  const unsigned T = threads_;
  // Exclusive offsets: digit-major, then thread (stability).
  std::vector<std::uint64_t> offs(std::size_t(T) * R);
  std::uint64_t run = 0;
  for (unsigned b = 0; b < R; ++b)
    for (unsigned t = 0; t < T; ++t) {
      offs[std::size_t(t) * R + b] = run;
      run += hist[std::size_t(t) * R + b];
    }
  const unsigned Rn = next ? 1u << next->bits : 0;
  std::vector<std::vector<std::uint64_t>> partial(T);
  thread_pool::instance().run(T, [&](unsigned t) {
    std::vector<std::uint64_t>& nh = partial[t];
    nh.assign(std::size_t(T) * Rn, 0);
    const std::uint64_t* off = offs.data() + std::size_t(t) * R;
    const core::pass nx = next ? *next : ps;
    // The loop specialised for what this pass moves and counts (scatter_shape),
    // then for the run-time choices every shape has: the key transform, and
    // for a last pass whether a table maps digits to buckets.
    auto run = [&]<scatter_shape S>() { scatter_chunk<S>(t, ks, kd, vs, vd, ps, nx, R, lut, off, nh.data()); };
    auto with_transform = [&]<scatter_shape S>() {
      with_form(job_.codec, [&]<core::key_form F>() {
        constexpr scatter_shape formed{S.count_next, S.move_keys, S.values, F, S.buckets};
        run.template operator()<formed>();
      });
    };
    auto go = [&]<scatter_shape S>() {
      if constexpr (!S.count_next) {
        constexpr scatter_shape tabled{S.count_next, S.move_keys, S.values, S.transform, bucket_source::table};
        constexpr scatter_shape raw{S.count_next, S.move_keys, S.values, core::key_form::linear,
                                    bucket_source::raw_table};
        if (lut && lut_reads == bucket_source::raw_table) return run.template operator()<raw>();
        if (lut) return with_transform.template operator()<tabled>();
      }
      with_transform.template operator()<S>();
    };
    if constexpr (has_value) {
      const bool keys_out = kd != nullptr;  // an argsort's last pass writes indices only
      if (next) {
        if (gen) go.template operator()<scatter_shape{.count_next = true, .values = value_flow::generated}>();
        else go.template operator()<scatter_shape{.count_next = true, .values = value_flow::moved}>();
      } else if (!keys_out) {
        if (gen) go.template operator()<scatter_shape{.move_keys = false, .values = value_flow::generated}>();
        else go.template operator()<scatter_shape{.move_keys = false, .values = value_flow::moved}>();
      } else {
        if (gen) go.template operator()<scatter_shape{.values = value_flow::generated}>();
        else go.template operator()<scatter_shape{.values = value_flow::moved}>();
      }
    } else {
      if (next) go.template operator()<scatter_shape{.count_next = true}>();
      else go.template operator()<scatter_shape{}>();
    }
  });
  if (next) {
    next_hist.assign(std::size_t(T) * Rn, 0);
    for (unsigned t = 0; t < T; ++t)
      for (std::size_t i = 0; i < next_hist.size(); ++i) next_hist[i] += partial[t][i];
  }
}

template <class U, class V>
template <scatter_shape S>
inline void sorter<U, V>::scatter_chunk(unsigned t, const U* ks, U* kd, const V* vs, V* vd, const core::pass ps,
                                        const core::pass nx, unsigned R, const std::uint16_t* lut,
                                        const std::uint64_t* off, std::uint64_t* nh) {
  constexpr bool CountNext = S.count_next, MoveKeys = S.move_keys, MoveVals = S.values != value_flow::none,
                 Gen = S.values == value_flow::generated, Lut = S.buckets != bucket_source::digit,
                 Raw = S.buckets == bucket_source::raw_table;
  static_assert(!(CountNext && Lut), "a table's buckets end the passes: no next digit to count");
  const std::uint64_t b0 = bounds_[t], b1 = bounds_[t + 1];
  if (b0 == b1) return;
  const codec_t codec = job_.codec;
  const unsigned Rn = CountNext ? 1u << nx.bits : 0;
  const std::uint64_t* bounds = bounds_.data();

  // Per-bucket state as separate arrays: every key touches pos[b]; start[b]
  // is read only when a write-combining span fills; lim/chunk only when
  // counting the next digit by destination chunk.
  std::vector<std::uint64_t> pos_v(off, off + R), start_v(off, off + R), lim_v, chunk_v;
  std::uint64_t* pos = pos_v.data();
  const std::uint64_t* start = start_v.data();
  if constexpr (CountNext) {
    lim_v.resize(R);
    chunk_v.resize(R);
    for (unsigned b = 0; b < R; ++b) {
      unsigned c = 0;
      while (bounds[c + 1] <= off[b] && c + 1 < threads_) ++c;
      chunk_v[b] = std::uint64_t(c) * Rn;
      lim_v[b] = bounds[c + 1];
    }
  }
  std::uint64_t* lim = lim_v.data();
  std::uint64_t* chunk = chunk_v.data();
  // Write-combining spans for keys and values; plain stores where the
  // destination is not aligned to its element size.
  constexpr unsigned KL = unsigned(wc_span_bytes / sizeof(U));
  constexpr unsigned VL = has_value ? unsigned(wc_span_bytes / sizeof(V)) : 1u;
  const bool kwc = MoveKeys && stream_ && wc_usable(kd);
  bool vwc = false;
  if constexpr (MoveVals) vwc = stream_ && wc_usable(vd);
  std::vector<U> kbuf_store(kwc ? std::size_t(R) * KL + KL : 0);
  std::vector<V> vbuf_store(vwc ? std::size_t(R) * VL + VL : 0);
  auto align64 = [](auto* p) {
    return reinterpret_cast<decltype(p)>((reinterpret_cast<std::uintptr_t>(p) + 63) & ~std::uintptr_t(63));
  };
  U* kbuf = kwc ? align64(kbuf_store.data()) : nullptr;
  V* vbuf = vwc ? align64(vbuf_store.data()) : nullptr;
  const unsigned kskew = MoveKeys ? unsigned((reinterpret_cast<std::uintptr_t>(kd) % 64) / sizeof(U)) : 0;
  unsigned vskew = 0;
  if constexpr (MoveVals) vskew = unsigned((reinterpret_cast<std::uintptr_t>(vd) % 64) / sizeof(V));

  for (std::uint64_t i = b0; i < b1; ++i) {
    const U k = ks[i];
    const U o = Raw ? k : xform<S.transform>(codec, k);
    unsigned b = core::digit_of<U>(o, ps.shift, ps.bits);
    if constexpr (Lut) b = lut[b];
    const std::uint64_t p = pos[b]++;
    if constexpr (CountNext) {
      if (p >= lim[b]) [[unlikely]] {
        unsigned c = unsigned(chunk[b] / Rn);
        while (bounds[c + 1] <= p) ++c;
        chunk[b] = std::uint64_t(c) * Rn;
        lim[b] = bounds[c + 1];
      }
      ++nh[chunk[b] + core::digit_of<U>(o, nx.shift, nx.bits)];
    }
    if constexpr (MoveKeys) {
      if (kwc) wc_put<U, KL>(kbuf + std::size_t(b) * KL, kd, kskew, p, start + b, k);
      else kd[p] = k;
    }
    if constexpr (MoveVals) {
      const V v = Gen ? V(i) : vs[i];
      if (vwc) wc_put<V, VL>(vbuf + std::size_t(b) * VL, vd, vskew, p, start + b, v);
      else vd[p] = v;
    }
  }
  for (unsigned b = 0; b < R; ++b) {
    if constexpr (MoveKeys)
      if (kwc) wc_drain<U, KL>(kbuf + std::size_t(b) * KL, kd, kskew, pos[b], start[b]);
    if constexpr (MoveVals)
      if (vwc) wc_drain<V, VL>(vbuf + std::size_t(b) * VL, vd, vskew, pos[b], start[b]);
  }
  stream_fence();
}

}  // namespace lsd_detail
}  // namespace radix::cpu
