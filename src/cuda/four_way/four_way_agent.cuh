// Ha, Krüger and Silva's 4-way radix sort (2009, "Fast 4-way parallel radix
// sorting on GPUs"), one LSD pass of 2-bit
// digits (Ways = 4), or 3-bit digits with Ways = 8: "the entire algorithm as
// a template with the parallelization factor as the template parameter" (§5).
//
//   local    (local_agent, Algorithm 2) one block per tile: each thread
//            counts its keys' digits in one packed word (16-bit fields, one
//            per digit), and ONE block scan of the packed words counts all
//            four digits at once (Algorithms 5 and 6 as a scan of a 64-bit
//            vector). A key's field of its thread's prefix is its local
//            prefix: its rank among the tile's keys of its digit ("one local
//            prefix array", §4.4). Coalesced = true shuffles the tile in
//            shared memory so each digit forms a cluster (the in-block
//            shuffle, §4.6) and writes it back; false writes the local
//            prefixes instead, for the element-wise mapping.
//   scan     matrix_scan over the digit-major block-sum matrix
//   mapping  coalesced (mapping_agent, Algorithm 4): per digit, the block
//            writes its cluster from the first warp-aligned output position
//            on, thread i to aligned position + i. Element-wise
//            (elementwise_agent, the §4.6 baseline): every key goes straight
//            from its input position to block start + local prefix.
// The order check (order_check.cuh) runs before each pass.
#pragma once
#include <type_traits>

#include "../common/multipass_params.cuh"
#include "../common/tile_io.cuh"

namespace radix::cuda_detail {

/// Ways counters of 16 bits packed into Ways / 4 64-bit words.
template <int Ways>
struct packed_counts {
  static_assert(Ways == 4 || Ways == 8, "4-way or 8-way");
  static constexpr int words = Ways / 4;
  unsigned long long w[words];
  __device__ __forceinline__ void clear() {
#pragma unroll
    for (int k = 0; k < words; ++k) w[k] = 0;
  }
  // (selects instead of w[d / 4]: a run-time index would put w in local memory)
  __device__ __forceinline__ void add(unsigned d) {
    const unsigned long long inc = 1ull << (16 * (d & 3));
    if constexpr (words == 1) {
      w[0] += inc;
    } else {
      const bool hi = d >= 4;
      w[0] += hi ? 0ull : inc;
      w[1] += hi ? inc : 0ull;
    }
  }
  __device__ __forceinline__ unsigned get(unsigned d) const {
    const unsigned long long x = words == 1 ? w[0] : (d >= 4 ? w[words - 1] : w[0]);
    return unsigned(x >> (16 * (d & 3))) & 0xFFFFu;
  }
};

/// Block-wide exclusive scan of packed counters (all digits in one pass).
template <int Threads, int Ways>
struct packed_scan {
  using P = packed_counts<Ways>;
  static constexpr int warps = Threads / 32;
  struct storage {
    unsigned long long warp_total[warps][P::words];
  };
  __device__ __forceinline__ static P exclusive(const P& v, storage& s, P& total) {
    const unsigned lane = lane_id(), warp = threadIdx.x / 32;
    P inc = v;
#pragma unroll
    for (int k = 0; k < P::words; ++k) {
#pragma unroll
      for (int o = 1; o < 32; o <<= 1) {
        const unsigned long long y = __shfl_up_sync(0xFFFFFFFFu, inc.w[k], o);
        if (int(lane) >= o) inc.w[k] += y;
      }
      if (lane == 31) s.warp_total[warp][k] = inc.w[k];
    }
    __syncthreads();
    P before;
    before.clear();
    total.clear();
#pragma unroll
    for (int w = 0; w < warps; ++w)
#pragma unroll
      for (int k = 0; k < P::words; ++k) {
        const unsigned long long t = s.warp_total[w][k];
        if (w < int(warp)) before.w[k] += t;
        total.w[k] += t;
      }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < P::words; ++k) before.w[k] += inc.w[k] - v.w[k];
    return before;
  }
};

template <class U, class V, int Threads, int Items, int Ways, bool Coalesced>
struct four_way_local_agent {
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  static constexpr int tile = Threads * Items;
  static_assert(tile < 65536, "16-bit packed counters");
  using scan_t = packed_scan<Threads, Ways>;
  using P = packed_counts<Ways>;
  struct storage {
    typename scan_t::storage scan;
    unsigned digit_start[Ways];
  };
  // Dynamic shared memory: storage, then (Coalesced) the shuffled keys and
  // values, or (element-wise) the local prefixes in input order.
  static constexpr std::size_t data_offset = (sizeof(storage) + 15) / 16 * 16;
  static constexpr std::size_t values_offset = data_offset + (sizeof(U) * smem_slots<U>(tile) + 15) / 16 * 16;
  static constexpr std::size_t smem_bytes =
      Coalesced ? values_offset + (has_values ? sizeof(V) * smem_slots<V>(tile) : 0)
                : data_offset + sizeof(std::uint32_t) * smem_slots<std::uint32_t>(tile);

  const multipass_params<U, V> p;  // a copy: a reference to a kernel parameter would live in local memory
  unsigned char* smem;

  __device__ __forceinline__ void process(int e, int shift, int bits) {
    if (p.ctl->unsorted[e] == 0) return;
    const auto buf = multipass_buffers<U, V>::pick(p, e);
    storage& s = *reinterpret_cast<storage*>(smem);
    const std::uint64_t base = std::uint64_t(blockIdx.x) * tile;
    const int valid = p.n - base < std::uint64_t(tile) ? int(p.n - base) : tile;
    const int first = int(threadIdx.x) * Items;

    U keys[Items];
    load_blocked(buf.ksrc + base, valid, keys);
    unsigned dig[Items];
    P mine;
    mine.clear();
#pragma unroll
    for (int i = 0; i < Items; ++i) {
      dig[i] = first + i < valid ? multipass_digit(p.codec, keys[i], shift, bits) : unsigned(Ways);
      if (dig[i] < unsigned(Ways)) mine.add(dig[i]);
    }
    P total;
    P prefix = scan_t::exclusive(mine, s.scan, total);
    if (threadIdx.x == 0) {
      unsigned run = 0;
#pragma unroll
      for (int d = 0; d < Ways; ++d) {
        s.digit_start[d] = run;
        run += total.get(unsigned(d));
      }
    }
    __syncthreads();

    if constexpr (Coalesced) {
      // in-block shuffle: each key (and value) to its place in the digit-sorted tile
      U* sk = reinterpret_cast<U*>(smem + data_offset);
      V* sv = reinterpret_cast<V*>(smem + values_offset);
      V vals[Items];
      if constexpr (has_values) {
        if (buf.vsrc) {
          load_blocked(buf.vsrc + base, valid, vals);
        } else {
#pragma unroll
          for (int i = 0; i < Items; ++i) vals[i] = index_value<V>(base + first + i);
        }
      }
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        if (dig[i] < unsigned(Ways)) {
          const unsigned pos = s.digit_start[dig[i]] + prefix.get(dig[i]);
          prefix.add(dig[i]);
          sk[smem_slot<U>(int(pos))] = keys[i];
          if constexpr (has_values) sv[smem_slot<V>(int(pos))] = vals[i];
        }
      }
      __syncthreads();
      for (int j = threadIdx.x; j < valid; j += Threads) {
        buf.kt[base + j] = sk[smem_slot<U>(j)];
        if constexpr (has_values) buf.vt[base + j] = sv[smem_slot<V>(j)];
      }
    } else {
      // the local prefix array, in input order (staged for coalesced writes)
      std::uint32_t* sp = reinterpret_cast<std::uint32_t*>(smem + data_offset);
#pragma unroll
      for (int i = 0; i < Items; ++i) {
        if (dig[i] < unsigned(Ways)) {
          sp[smem_slot<std::uint32_t>(first + i)] = prefix.get(dig[i]);
          prefix.add(dig[i]);
        }
      }
      __syncthreads();
      for (int j = threadIdx.x; j < valid; j += Threads) p.prefix[base + j] = sp[smem_slot<std::uint32_t>(j)];
    }
    // the block sums: counts[d][tile]
    if (threadIdx.x < (1u << bits)) p.counts[std::uint64_t(threadIdx.x) * p.num_tiles + blockIdx.x] = total.get(threadIdx.x);
  }
};

/// Algorithm 4: coalesced cluster-wise mapping of a shuffled tile.
template <class U, class V, int Threads, int Items, int Ways>
struct four_way_mapping_agent {
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  static constexpr int tile = Threads * Items;
  struct storage {
    unsigned start[Ways], end[Ways], global[Ways];
  };
  static constexpr std::size_t keys_offset = (sizeof(storage) + 15) / 16 * 16;
  static constexpr std::size_t values_offset = keys_offset + (sizeof(U) * tile + 15) / 16 * 16;
  static constexpr std::size_t digits_offset = (values_offset + (has_values ? sizeof(V) * tile : 0) + 15) / 16 * 16;
  static constexpr std::size_t smem_bytes = digits_offset + tile;

  const multipass_params<U, V> p;
  unsigned char* smem;

  __device__ __forceinline__ void process(int e, int shift, int bits) {
    if (p.ctl->unsorted[e] == 0) return;
    const auto buf = multipass_buffers<U, V>::pick(p, e);
    storage& s = *reinterpret_cast<storage*>(smem);
    U* sk = reinterpret_cast<U*>(smem + keys_offset);
    V* sv = reinterpret_cast<V*>(smem + values_offset);
    unsigned char* sd = smem + digits_offset;
    const std::uint64_t base = std::uint64_t(blockIdx.x) * tile;
    const int valid = p.n - base < std::uint64_t(tile) ? int(p.n - base) : tile;
    const int digits = 1 << bits;
    if (threadIdx.x < unsigned(Ways)) {
      s.start[threadIdx.x] = s.end[threadIdx.x] = 0;
      s.global[threadIdx.x] = int(threadIdx.x) < digits ? p.counts[std::uint64_t(threadIdx.x) * p.num_tiles + blockIdx.x] : 0;
    }
    // (1) the block-sorted data to shared memory
    for (int j = threadIdx.x; j < valid; j += Threads) {
      const U k = ld_nc(buf.kt + base + j);
      sk[j] = k;
      sd[j] = static_cast<unsigned char>(multipass_digit(p.codec, k, shift, bits));
      if constexpr (has_values) sv[j] = ld_nc(buf.vt + base + j);
    }
    __syncthreads();
    // (2) where each cluster starts and ends in the tile
    for (int j = threadIdx.x; j < valid; j += Threads) {
      const unsigned d = sd[j];
      if (j == 0 || sd[j - 1] != d) s.start[d] = unsigned(j);
      if (j == valid - 1 || sd[j + 1] != d) s.end[d] = unsigned(j) + 1;
    }
    __syncthreads();
    // (3) per digit: thread i writes output position aligned + i (aligned = the
    // cluster's global start rounded down to a warp's worth of elements)
    for (int d = 0; d < digits; ++d) {
      const unsigned start = s.start[d], count = s.end[d] - start, g = s.global[d];
      if (count == 0) continue;
      const unsigned aligned = g & ~31u;
      for (unsigned out = aligned + threadIdx.x; out < g + count; out += Threads) {
        if (out >= g) {
          const unsigned m = start + (out - g);
          if (buf.kdst) buf.kdst[out] = sk[m];
          if constexpr (has_values) buf.vdst[out] = sv[m];
        }
      }
    }
  }
};

/// The element-wise mapping (the §4.6 baseline): no shuffle, each key from
/// its input position straight to its block start + local prefix.
template <class U, class V, int Threads, int Items, int Ways>
struct four_way_elementwise_agent {
  static constexpr bool has_values = !std::is_same_v<V, no_value>;
  static constexpr int tile = Threads * Items;
  struct storage {
    unsigned global[Ways];
  };
  static constexpr std::size_t smem_bytes = sizeof(storage);

  const multipass_params<U, V> p;
  unsigned char* smem;

  __device__ __forceinline__ void process(int e, int shift, int bits) {
    if (p.ctl->unsorted[e] == 0) return;
    const auto buf = multipass_buffers<U, V>::pick(p, e);
    storage& s = *reinterpret_cast<storage*>(smem);
    const std::uint64_t base = std::uint64_t(blockIdx.x) * tile;
    const int valid = p.n - base < std::uint64_t(tile) ? int(p.n - base) : tile;
    if (threadIdx.x < unsigned(1 << bits)) s.global[threadIdx.x] = p.counts[std::uint64_t(threadIdx.x) * p.num_tiles + blockIdx.x];
    __syncthreads();
    for (int j = threadIdx.x; j < valid; j += Threads) {
      const U k = ld_nc(buf.ksrc + base + j);
      const unsigned dst = s.global[multipass_digit(p.codec, k, shift, bits)] + p.prefix[base + j];
      if (buf.kdst) buf.kdst[dst] = k;
      if constexpr (has_values) buf.vdst[dst] = buf.vsrc ? ld_nc(buf.vsrc + base + j) : index_value<V>(base + j);
    }
  }
};

}  // namespace radix::cuda_detail
