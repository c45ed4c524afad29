// Above one block's reach and up to 16 x 4096 keys: one thread block
// cluster (sm_90) sorts them in its distributed shared memory, in one launch
// and with no workspace. Only the first read and the last write touch global
// memory; between them each pass moves every key once, from one block's
// shared memory into another's.
//
// Each block holds a contiguous chunk of the current order and ranks it as
// block_sort_agent does (thread-private counters, Merrill & Grimshaw 2011,
// §4), in digits of up to 6 or 7 bits (the host's choice: 7 take a pass
// off 32-bit keys for a longer counter scan in two of the five); the blocks
// then read each other's digit starts, so that every key's place in the
// whole order is known, and send
// each key to the block that holds that place. The order of a digit's keys
// is block, then thread, then a thread's own order: the sort stays stable.
//
// A pass's story, in every block of the cluster:
//   read     this thread's run of the chunk
//   count    each thread its own counters (block_sort_agent::count_keys)
//   scan     the block's counters: local places and the block's digit starts
//   publish  the digit starts                                  [cluster barrier]
//   offsets  each digit's start in the whole order, and this block's share
//   stage    keys (and their origins) at their local places
//   send     in local order, so that neighbouring threads write neighbouring
//            places: into the block holding the place, or, in the last
//            pass, to global memory (values gathered by origin)
//                                                              [cluster barrier]
// Values stay where they were loaded; keys carry their 32-bit origin, in
// shared memory only (two buffers, a pass reads one while the other blocks
// write the next pass's into the other).
#pragma once
#include <cstdint>
#include <type_traits>

#include "block_sort_agent.cuh"

namespace radix::cuda_detail {

template <class U, class V>
struct cluster_sort_agent : block_sort_agent<U, V, 7> {
  using base = block_sort_agent<U, V, 7>;
  using slot_t = typename base::slot_t;
  using base::has_values;
  using base::items;
  using base::pad;
  /// sm_90's largest cluster (non-portable; 8 is the portable size).
  static constexpr int max_blocks = 16;
  static constexpr int max_threads = base::max_threads;  ///< 256 (a block's counters of 128 digits); every block has them
  /// A key's place in the whole input: more than 16 bits.
  using origin_t = std::uint32_t;
  static constexpr int digits = 1 << base::max_digit_bits;

  /// What a block publishes to the others (same offset in every block).
  struct exchange_header {
    unsigned starts[digits + 1];  ///< this pass: digit d's first local place; [digits] = this block's keys
    unsigned offset[digits];      ///< this pass: a key of digit d at local place j goes to offset[d] + j
    unsigned long long varying;   ///< the survey: bits this block's keys differ in (from the first key's)
    unsigned unsorted, canon;     ///< the survey: some key out of order, some key changed by the canonical form
  };

  /// Shared memory for `threads` threads holding `chunk` keys: [header | counters, or the staged
  /// keys and origins | received keys | received origins, two buffers |
  /// values | exchange header]. The staging reuses the counters' room (every
  /// counter is read before it); the received chunk cannot, other blocks
  /// write it while this one still counts.
  struct layout {
    std::size_t keys_bytes, origins_bytes, region_a, recv_keys, recv_origins, values, exchange, total;
    __host__ __device__ constexpr layout(int threads, int chunk)
        : keys_bytes(base::align16(sizeof(slot_t) * std::size_t(pad(chunk)))),
          origins_bytes(has_values ? base::align16(sizeof(origin_t) * std::size_t(pad(chunk))) : 0),
          region_a(base::align16(sizeof(unsigned) * std::size_t(base::counter_total_words(threads))) >
                           keys_bytes + origins_bytes
                       ? base::align16(sizeof(unsigned) * std::size_t(base::counter_total_words(threads)))
                       : keys_bytes + origins_bytes),
          recv_keys(base::align16(sizeof(typename base::header)) + region_a),
          recv_origins(recv_keys + keys_bytes),
          values(recv_origins + 2 * origins_bytes),
          exchange(values + (has_values ? base::align16(sizeof(V) * std::size_t(chunk)) : 0)),
          total(exchange + base::align16(sizeof(exchange_header))) {}
  };
  /// A block of `threads` holds at most `items` keys a thread (block_sort_agent's counters).
  static constexpr std::size_t smem_bytes(int threads, int chunk) { return layout(threads, chunk).total; }

  unsigned rank = 0, blocks = 0, log2_chunk = 0, first = 0;  ///< this block, the cluster, its chunk
  int digit_bits = 0;  ///< the widest digit a pass takes (6 or 7)

  __device__ __forceinline__ slot_t* stage_keys() const { return reinterpret_cast<slot_t*>(this->region_a()); }
  __device__ __forceinline__ origin_t* stage_origins() const {
    return reinterpret_cast<origin_t*>(this->region_a() + layout(this->threads, 1 << log2_chunk).keys_bytes);
  }
  __device__ __forceinline__ slot_t* recv_keys() const {
    return reinterpret_cast<slot_t*>(this->smem + layout(this->threads, 1 << log2_chunk).recv_keys);
  }
  /// The origins of the received keys of pass `ps` (its keys are those the pass before sent).
  __device__ __forceinline__ origin_t* recv_origins(int ps) const {
    const layout l(this->threads, 1 << log2_chunk);
    return reinterpret_cast<origin_t*>(this->smem + l.recv_origins + (ps & 1) * l.origins_bytes);
  }
  __device__ __forceinline__ V* values() const { return reinterpret_cast<V*>(this->smem + layout(this->threads, 1 << log2_chunk).values); }
  __device__ __forceinline__ exchange_header& xh() const {
    return *reinterpret_cast<exchange_header*>(this->smem + layout(this->threads, 1 << log2_chunk).exchange);
  }

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  /// Every block's shared-memory writes so far are seen by every block after it.
  __device__ __forceinline__ static void cluster_sync() {
    __cluster_barrier_arrive();  // release
    __cluster_barrier_wait();    // acquire
  }
  /// `p` (in this block's shared memory) as block `b` of the cluster holds it.
  template <class T>
  __device__ __forceinline__ static T* in_block(T* p, unsigned b) {
    return static_cast<T*>(__cluster_map_shared_rank(p, b));
  }

  __device__ void process(unsigned chunk_log2, int widest_digit) {
    rank = __clusterRelativeBlockRank();
    blocks = __clusterSizeInBlocks();
    log2_chunk = chunk_log2;
    digit_bits = widest_digit;
    first = rank << chunk_log2;
    this->threads = int(blockDim.x);
    this->tid = int(threadIdx.x);
    const unsigned total = unsigned(this->io.n), chunk = 1u << chunk_log2;
    this->n = int(total - first < chunk ? total - first : chunk);  // the host launches ceil(total / chunk) blocks
    this->per = (this->n + this->threads - 1) / this->threads;
    stage_input();
    __syncthreads();
    typename base::run r;
    read_run(r);
    bool canon_needed = false;
    if (!survey(r, canon_needed)) {
      write_sorted_input();
      cluster_sync();  // no block leaves while another reads its survey
      return;
    }
    if constexpr (sizeof(U) == 1) {
      sort<core::key_form::linear>(r);
    } else {
      if (this->p.codec.linear()) sort<core::key_form::linear>(r);
      else if (canon_needed) sort<core::key_form::canonical>(r);
      else sort<core::key_form::biased>(r);
    }
  }

  /// This block's chunk of keys (and values) into shared memory, input order.
  __device__ __forceinline__ void stage_input() const {
    slot_t* rk = recv_keys();
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int j = i * this->threads + this->tid;
      if (j < this->n) rk[pad(j)] = slot_t(ld_nc(this->io.kin + first + j));
    }
    if constexpr (has_values) {
      if (this->io.vin) {
        V* v = values();
#pragma unroll
        for (int i = 0; i < items; ++i) {
          const int j = i * this->threads + this->tid;
          if (j < this->n) v[j] = ld_nc(this->io.vin + first + j);
        }
      }
    }
  }

  /// This thread's run of the received chunk (the origins stay in shared memory).
  __device__ __forceinline__ void read_run(typename base::run& r) const {
    const slot_t* rk = recv_keys();
#pragma unroll
    for (int i = 0; i < items; ++i) {
      const int j = this->tid * this->per + i;
      r.keys[i] = this->valid(i) ? U(rk[pad(j)]) : U(0);
    }
  }

  /// As block_sort_agent::survey, over the whole cluster: the bits keys
  /// differ in (against the input's first key), whether any key is out of
  /// order (a block's first key against the previous chunk's last), and
  /// whether the canonical form changes any key. Returns whether to sort.
  __device__ __forceinline__ bool survey(const typename base::run& r, bool& canon_needed) {
    const auto& p = this->p;
    const U ref = U(p.codec(ld_nc(this->io.kin)) & p.range_mask);
    const int at = this->tid * this->per;
    U prev = 0;
    bool has_prev = false;
    if (at < this->n) {
      if (at > 0) prev = U(p.codec(U(recv_keys()[pad(at - 1)])) & p.range_mask), has_prev = true;
      else if (rank > 0) prev = U(p.codec(ld_nc(this->io.kin + first - 1)) & p.range_mask), has_prev = true;
    }
    U vary = 0;
    bool unsorted = false, canon = false;
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (!this->valid(i)) continue;
      const U o = U(p.codec(r.keys[i]) & p.range_mask);
      vary |= U(o ^ ref);
      if (has_prev || i > 0) unsorted |= o < prev;
      prev = o;
      if (p.codec.canon) canon |= p.codec.canonical(r.keys[i]) != p.codec.biased(r.keys[i]);
    }
    unsigned long long v = vary;
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v |= __shfl_xor_sync(0xFFFFFFFFu, v, o);
    exchange_header& x = xh();
    if (this->tid == 0) x.varying = 0;
    __syncthreads();  // x.varying cleared
    if (lane_id() == 0 && v) atomicOr(&x.varying, v);
    const int c = __syncthreads_or(canon);
    const int u = __syncthreads_or(unsorted);  // (also: x.varying is complete)
    if (this->tid == 0) x.canon = unsigned(c != 0), x.unsorted = unsigned(u != 0);
    cluster_sync();  // every block's survey is published
    // warp 0 combines the blocks' (at most 32) surveys
    if (this->tid < 32) {
      unsigned long long bv = 0;
      unsigned bu = 0, bc = 0;
      if (unsigned(this->tid) < blocks) {
        const exchange_header& o = *in_block(&x, unsigned(this->tid));
        bv = o.varying, bu = o.unsorted, bc = o.canon;
      }
#pragma unroll
      for (int s = 16; s > 0; s >>= 1) {
        bv |= __shfl_xor_sync(0xFFFFFFFFu, bv, s);
        bu |= __shfl_xor_sync(0xFFFFFFFFu, bu, s);
        bc |= __shfl_xor_sync(0xFFFFFFFFu, bc, s);
      }
      if (this->tid == 0) this->hdr().varying = bv, this->hdr().warp_sums[0] = bu | (bc << 1);
    }
    __syncthreads();
    const unsigned flags = this->hdr().warp_sums[0];
    canon_needed = (flags & 2u) != 0;
    return (flags & 1u) != 0;
  }

  /// In order already: copied where it does not lie (keys out of place, an
  /// argsort's keys), an argsort's indices are the identity.
  __device__ __forceinline__ void write_sorted_input() const {
    const block_sort_io<U, V>& io = this->io;
    if (io.kout && io.kout != io.kin)
      for (int j = this->tid; j < this->n; j += this->threads) io.kout[first + j] = U(recv_keys()[pad(j)]);
    if constexpr (has_values) {
      if (!io.vin || io.vwide || io.vout != io.vin)
        for (int j = this->tid; j < this->n; j += this->threads)
          io.put_value(first + j, io.vin ? values()[j] : index_value<V>(first + j));
    }
  }

  /// LSD over the bits that vary, least significant first; the last pass writes the output.
  template <core::key_form F>
  __device__ __forceinline__ void sort(typename base::run& r) {
    const unsigned long long v = this->hdr().varying;  // non-zero: the input is out of order
    const int lo = __ffsll(static_cast<long long>(v)) - 1, hi = 64 - __clzll(static_cast<long long>(v));
    const core::even_passes plan(lo, hi, digit_bits);
    for (int ps = 0; ps < plan.count; ++ps) {
      if (ps > 0) read_run(r);
      pass<F>(r, ps, plan[ps].shift, plan[ps].bits, ps + 1 == plan.count);
    }
  }

  /// One pass: count, scan, publish, offsets, stage, send.
  template <core::key_form F>
  __device__ __forceinline__ void pass(const typename base::run& r, int ps, int shift, int bits, bool last) {
    // (the counters' room: the last pass's staged keys were all read before its closing cluster barrier)
    this->clear_counters(bits);
    __syncthreads();
    unsigned at2[items / 2], rank2[items / 2];
    this->template count_keys<F>(r, shift, bits, at2, rank2);
    __syncthreads();
    this->scan_counters(bits);
    __syncthreads();
    publish_starts(bits);
    cluster_sync();  // every block's digit starts are published
    find_offsets(bits);
    this->place_keys(at2, rank2);
    __syncthreads();  // offsets found, every counter read: the room holds the staging now
    stage(r, ps, rank2);
    __syncthreads();
    send<F>(ps, shift, bits, last);
    cluster_sync();  // every key is in its block (and, after the last pass, no block still reads another's values)
  }

  /// Digit d's first local place: thread 0's scanned counter of d (counter_of).
  __device__ __forceinline__ void publish_starts(int bits) const {
    const int d = this->tid, ds = 1 << bits;
    if (d > ds) return;
    const std::uint16_t* c16 = reinterpret_cast<const std::uint16_t*>(this->counters());
    xh().starts[d] = d < ds ? unsigned(c16[this->counter_of(unsigned(d), unsigned(base::words_for(bits)))]) : unsigned(this->n);
  }

  /// offset[d]: the keys of smaller digits in every block, and of digit d in
  /// the blocks before this one, less this block's own start of d.
  __device__ __forceinline__ void find_offsets(int bits) const {
    const int d = this->tid;
    if (d >= 1 << bits) return;
    exchange_header& x = xh();
    unsigned before = 0, ahead = 0;
    // unrolled over the largest cluster: every block's two loads in flight at once
#pragma unroll
    for (unsigned b = 0; b < unsigned(max_blocks); ++b) {
      const unsigned* s = in_block(x.starts, b < blocks ? b : 0u);
      const unsigned a = s[d], e = s[d + 1];
      if (b < blocks) before += a;
      if (b < rank) ahead += e - a;
    }
    x.offset[d] = before + ahead - x.starts[d];
  }

  /// Keys (and origins) to their local places in the staging; in the first
  /// pass a key's origin is its place in the input.
  __device__ __forceinline__ void stage(const typename base::run& r, int ps, const unsigned (&place2)[items / 2]) const {
    slot_t* sk = stage_keys();
#pragma unroll
    for (int i = 0; i < items; ++i) {
      if (!this->valid(i)) continue;
      const int at = pad(int((i & 1) ? place2[i / 2] >> 16 : place2[i / 2] & 0xFFFFu));
      sk[at] = slot_t(r.keys[i]);
      if constexpr (has_values) {
        const int j = this->tid * this->per + i;
        stage_origins()[at] = ps == 0 ? first + unsigned(j) : recv_origins(ps)[pad(j)];
      }
    }
  }

  /// The staged keys in local order, each to its place in the whole order:
  /// the block that holds that place, or the output after the last pass.
  template <core::key_form F>
  __device__ __forceinline__ void send(int ps, int shift, int bits, bool last) const {
    const slot_t* sk = stage_keys();
    const unsigned mask = (1u << log2_chunk) - 1;
#pragma unroll 4
    for (int i = 0; i < items; ++i) {
      const int j = i * this->threads + this->tid;
      if (j >= this->n) break;
      const slot_t k = sk[pad(j)];
      const unsigned dest = xh().offset[this->template digit<F>(U(k), shift, bits)] + unsigned(j);
      if (!last) {
        const unsigned b = dest >> log2_chunk, at = unsigned(pad(int(dest & mask)));
        *in_block(recv_keys() + at, b) = k;
        if constexpr (has_values) *in_block(recv_origins(ps + 1) + at, b) = stage_origins()[pad(j)];
      } else {
        const block_sort_io<U, V>& io = this->io;
        if (io.kout) io.kout[dest] = U(k);
        if constexpr (has_values) {
          const origin_t o = stage_origins()[pad(j)];
          io.put_value(dest, io.vin ? *in_block(values() + (o & mask), o >> log2_chunk) : index_value<V>(o));
        }
      }
    }
  }
#endif
};

}  // namespace radix::cuda_detail
