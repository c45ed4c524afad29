// Classic reduce-then-scan LSD pass (the course slides "CUDA LSD Radix Sort":
// "Build Histograms", "Build Local and Global Offsets", "Scatter"; Helluy
// 2011, "A portable implementation of the radix sort algorithm in OpenCL", §2:
// histogram, scan, reorder), with digits of R = 1, 2, 4 or 8 bits chosen at
// run time. Per pass:
//   count    (count_agent) one block per tile counts its digits and writes
//            the counts to the digit-major matrix
//   scan     matrix_scan: every (digit, tile) gets its global start
//   scatter  (scatter_agent) the block reads its tile again, sorts it by digit
//            in shared memory (stable ranks from the warp-level multi-split
//            shared with Onesweep), and writes each digit's run to its global
//            start: d = i - L[b][key] + G[b][key] of the slides, coalesced
//            because a run's keys are consecutive in shared memory.
// Two reads and one write of the keys per pass (Onesweep: one and one).
#pragma once
#include <type_traits>

#include "../block/block_load.cuh"
#include "../block/block_rank.cuh"
#include "../common/multipass_params.cuh"

namespace radix::cuda_detail {

template <class U, class V, int Threads, int Items>
struct rts_count_agent {
  static constexpr int tile = Threads * Items, warps = Threads / 32;
  struct storage {
    unsigned hist[warps][radix_size];
  };
  const multipass_params<U, V> p;  // a copy: a reference to a kernel parameter would live in local memory
  storage& s;

  __device__ __forceinline__ void process(int e, int shift, int bits) {
    if (p.ctl->unsorted[e] == 0) return;
    const U* keys = multipass_buffers<U, V>::pick(p, e).ksrc;
    const int digits = 1 << bits;
    const unsigned warp = threadIdx.x / 32, lane = lane_id();
    for (int i = threadIdx.x; i < warps * radix_size; i += Threads) (&s.hist[0][0])[i] = 0;
    __syncthreads();
    const std::uint64_t base = std::uint64_t(blockIdx.x) * tile;
    const int valid = p.n - base < std::uint64_t(tile) ? int(p.n - base) : tile;
    if (bits <= 4) {
      // Few digits: shared atomics would serialise on them. One ballot per
      // digit value counts the warp's keys of that value; the warp owns its row.
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const int j = i * Threads + int(threadIdx.x);
        const unsigned d = j < valid ? multipass_digit(p.codec, ld_nc(keys + base + j), shift, bits) : radix_size;
        for (int v = 0; v < digits; ++v) {
          const unsigned c = __popc(__ballot_sync(0xFFFFFFFFu, d == unsigned(v)));
          if (lane == 0) s.hist[warp][v] += c;
        }
      }
    } else {
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        const int j = i * Threads + int(threadIdx.x);
        if (j < valid) atomicAdd(&s.hist[warp][multipass_digit(p.codec, ld_nc(keys + base + j), shift, bits)], 1u);
      }
    }
    __syncthreads();
    for (int d = threadIdx.x; d < digits; d += Threads) {
      unsigned c = 0;
#pragma unroll
      for (int w = 0; w < warps; ++w) c += s.hist[w][d];
      p.counts[std::uint64_t(d) * p.num_tiles + blockIdx.x] = c;
    }
  }
};

template <class U, class V, int Threads, int Items>
struct rts_scatter_agent {
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  static constexpr int tile = Threads * Items, warp_tile = 32 * Items;
  using rank_t = block_rank<Threads, Items>;
  using load_t = warp_load<U, Items>;
  struct storage {
    typename rank_t::storage rank;
    unsigned shift[radix_size];  ///< global start - local start, per digit (mod 2^32: n < 2^32)
  };
  /// Dynamic shared memory: storage, tile keys, tile values, each staged key's digit.
  static constexpr std::size_t keys_offset = (sizeof(storage) + 15) / 16 * 16;
  static constexpr std::size_t values_offset = keys_offset + (sizeof(U) * tile + 15) / 16 * 16;
  static constexpr std::size_t digits_offset = (values_offset + (has_values ? sizeof(V) * tile : 0) + 15) / 16 * 16;
  static constexpr std::size_t smem_bytes = digits_offset + tile;

  const multipass_params<U, V> p;  // a copy: a reference to a kernel parameter would live in local memory
  unsigned char* smem;
  __device__ __forceinline__ storage& st() const { return *reinterpret_cast<storage*>(smem); }
  __device__ __forceinline__ U* tile_keys() const { return reinterpret_cast<U*>(smem + keys_offset); }
  __device__ __forceinline__ V* tile_values() const { return reinterpret_cast<V*>(smem + values_offset); }
  __device__ __forceinline__ unsigned char* tile_digits() const { return smem + digits_offset; }

  __device__ __forceinline__ void process(int e, int shift, int bits) {
    if (p.ctl->unsorted[e] == 0) return;
    const auto buf = multipass_buffers<U, V>::pick(p, e);
    storage& s = st();
    const int digits = 1 << bits;
    rank_t::clear(s.rank, digits);
    const std::uint64_t base = std::uint64_t(blockIdx.x) * tile;
    const int valid = p.n - base < std::uint64_t(tile) ? int(p.n - base) : tile;

    // load (warp-striped, the order the ranking keeps stable)
    const unsigned warp = threadIdx.x / 32, lane = lane_id();
    const int warp_base = int(warp) * warp_tile;
    U keys[Items];
    load_t::striped(buf.ksrc + base + warp_base, valid - warp_base, keys, tile_keys() + warp_base, U(0));
    // Values too, now: their loads are in flight while the keys are ranked
    // (loaded at staging time they stalled the pass: pairs ran 0.57x CUB).
    V vals[Items];
    if constexpr (has_values) load_values_striped(buf.vsrc, base, warp_base, valid, vals);
    __syncthreads();  // counters cleared; the load's scratch is free again

    // rank: position of each key in the tile sorted by digit
    unsigned dig[Items], rank[Items];
#pragma unroll
    for (int i = 0; i < Items; ++i)
      dig[i] = warp_base + i * 32 + int(lane) < valid ? multipass_digit(p.codec, keys[i], shift, bits) : rank_t::no_digit;
    rank_t::rank_warp(dig, rank, s.rank, bits, valid < tile);
    __syncthreads();
    rank_t::scan_digits(s.rank, digits, [](unsigned) {});

    // local sort: stage keys, digits and values in digit order
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      if (dig[i] != rank_t::no_digit) {
        const unsigned pos = rank_t::local_position(s.rank, dig[i], rank[i]);
        tile_keys()[pos] = keys[i];
        tile_digits()[pos] = static_cast<unsigned char>(dig[i]);
        if constexpr (has_values) tile_values()[pos] = vals[i];
      }
    }
    // the scanned matrix holds G[digit][tile]; the ranking's digit_start is L
    for (int d = threadIdx.x; d < digits; d += Threads)
      s.shift[d] = p.counts[std::uint64_t(d) * p.num_tiles + blockIdx.x] - s.rank.digit_start[d];
    __syncthreads();

    // scatter: consecutive threads write consecutive addresses of a digit's run
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      const int j = i * Threads + int(threadIdx.x);
      if (j < valid) {
        const std::uint32_t dst = s.shift[tile_digits()[j]] + unsigned(j);
        if (buf.kdst) buf.kdst[dst] = tile_keys()[j];
        if constexpr (has_values) buf.vdst[dst] = tile_values()[j];
      }
    }
  }
};

}  // namespace radix::cuda_detail
