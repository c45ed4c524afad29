// One block sorts a small input of 1-byte keys by counting them (Knuth
// vol. 3 §5.2, "distribution counting"). Keys alone: the sorted keys are
// the histogram written out. Pairs: a stable counting sort. One launch, no
// workspace, in place or out of place, where the multi-block counting sort
// needs a histogram kernel and a launch to write, and comparison counting in
// place a copy home.
#pragma once
#include <cstdint>

#include "../common/common.cuh"
#include "block_sort_agent.cuh"  // block_sort_io
#include "params.cuh"

namespace radix::cuda_detail {

template <class U>
struct counting_block_agent {
  static_assert(sizeof(U) == 1, "one byte a key: the digit is the whole key");
  static constexpr int max_threads = 1024;
  static constexpr int max_warps = max_threads / 32;
  static constexpr int vector = 16;  ///< bytes a thread loads or stores at once

  /// A thread a 16-byte vector, in whole warps, at least 256 threads (a
  /// thread a digit in the scan) and at most 1024: fewer warps' histograms to clear and sum
  /// where the input is small.
  static constexpr int threads_for(std::uint64_t n) {
    const std::uint64_t t = (n + vector - 1) / vector;
    return t <= 256 ? 256 : t >= std::uint64_t(max_threads) ? max_threads : int((t + 31) / 32 * 32);
  }

  /// One histogram a warp, so that warps never contend for a counter; the
  /// sums' exclusive scan (start of each key's run, and n past the last).
  struct storage {
    unsigned counts[max_warps][radix_size];
    unsigned start[radix_size + 1];
  };

  const onesweep_params<U, no_value>& p;
  storage& s;

  __device__ __forceinline__ void process() {
    clear();
    __syncthreads();
    count();
    __syncthreads();  // every key is read before any is written (in place)
    place();
    __syncthreads();
    write();
  }

  __device__ __forceinline__ void clear() {
    for (int i = threadIdx.x; i < int(blockDim.x / 32) * radix_size; i += blockDim.x) (&s.counts[0][0])[i] = 0;
  }

  /// Counts each key's ordered digit (the key XOR the codec's constant) in
  /// the warp's histogram. The bytes before the first 16-byte boundary and
  /// after the last one are counted one by one.
  __device__ __forceinline__ void count() {
    const std::uint8_t* in = reinterpret_cast<const std::uint8_t*>(p.keys);
    unsigned* mine = s.counts[threadIdx.x / 32];
    const unsigned x = p.codec.linear_xor();
    const std::uint64_t n = p.n;
    const std::uint64_t head = head_bytes(in, n);
    const std::uint64_t vectors = (n - head) / vector;
    for (std::uint64_t i = threadIdx.x; i < head; i += blockDim.x) atomicAdd(&mine[in[i] ^ x], 1u);
    for (std::uint64_t i = head + vectors * vector + threadIdx.x; i < n; i += blockDim.x) atomicAdd(&mine[in[i] ^ x], 1u);
    const uint4* body = reinterpret_cast<const uint4*>(in + head);
#pragma unroll 4
    for (std::uint64_t v = threadIdx.x; v < vectors; v += blockDim.x) {
      const uint4 q = body[v];
      count_word(mine, q.x, x), count_word(mine, q.y, x), count_word(mine, q.z, x), count_word(mine, q.w, x);
    }
  }

  /// Four keys: one count of 4 where they are equal (sorted, few distinct
  /// or equal keys would otherwise make many lanes add to one counter).
  __device__ __forceinline__ static void count_word(unsigned* mine, unsigned w, unsigned x) {
    const unsigned b = w & 0xFFu;
    if (w == b * 0x01010101u) {
      atomicAdd(&mine[b ^ x], 4u);
      return;
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) atomicAdd(&mine[((w >> (8 * j)) & 0xFFu) ^ x], 1u);
  }

  /// start[d] = how many keys have a smaller ordered digit: the warps'
  /// histograms summed, then an exclusive scan by the first eight warps
  /// (one digit a thread) and the scan of their totals.
  __device__ __forceinline__ void place() {
    __shared__ unsigned warp_total[radix_size / 32];
    const int d = threadIdx.x;
    unsigned total = 0, incl = 0;
    if (d < radix_size) {
      for (int w = 0; w < int(blockDim.x / 32); ++w) total += s.counts[w][d];
      incl = total;
#pragma unroll
      for (int o = 1; o < 32; o *= 2) {
        const unsigned y = __shfl_up_sync(0xFFFFFFFFu, incl, o);
        if (d % 32 >= o) incl += y;
      }
      if (d % 32 == 31) warp_total[d / 32] = incl;
    }
    __syncthreads();
    if (d < radix_size) {
      unsigned before = 0;
      for (int w = 0; w < d / 32; ++w) before += warp_total[w];
      s.start[d] = before + incl - total;
    }
    if (d == 0) s.start[radix_size] = unsigned(p.n);
  }

  /// Each position gets the key whose run holds it: 16-byte stores between
  /// the output's 16-byte boundaries, single bytes outside them.
  __device__ __forceinline__ void write() {
    U* out = p.key_out();
    std::uint8_t* o = reinterpret_cast<std::uint8_t*>(out);
    const std::uint64_t n = p.n;
    const std::uint64_t head = head_bytes(o, n);
    const std::uint64_t vectors = (n - head) / vector;
    const unsigned x = p.codec.linear_xor();
    for (std::uint64_t i = threadIdx.x; i < head; i += blockDim.x) o[i] = std::uint8_t(digit_at(unsigned(i)) ^ x);
    for (std::uint64_t i = head + vectors * vector + threadIdx.x; i < n; i += blockDim.x)
      o[i] = std::uint8_t(digit_at(unsigned(i)) ^ x);
    uint4* body = reinterpret_cast<uint4*>(o + head);
    for (std::uint64_t v = threadIdx.x; v < vectors; v += blockDim.x) {
      const unsigned i0 = unsigned(head + v * vector);
      unsigned d = digit_at(i0);
      union {
        std::uint8_t k[vector];
        uint4 q;
      } run;
#pragma unroll
      for (int j = 0; j < vector; ++j) {
        while (s.start[d + 1] <= i0 + j) ++d;  // the next non-empty run (start[256] = n ends it)
        run.k[j] = std::uint8_t(d ^ x);
      }
      body[v] = run.q;
    }
  }

  /// The digit whose run holds position i: the last d with start[d] <= i.
  __device__ __forceinline__ unsigned digit_at(unsigned i) const {
    unsigned d = 0;
#pragma unroll
    for (unsigned step = radix_size / 2; step > 0; step /= 2)
      if (s.start[d + step] <= i) d += step;
    return d;
  }

  /// Bytes before the first 16-byte boundary at or after a (all of them when fewer).
  __device__ __forceinline__ static std::uint64_t head_bytes(const void* a, std::uint64_t n) {
    const std::uint64_t h = (vector - (reinterpret_cast<std::uintptr_t>(a) % vector)) % vector;
    return h < n ? h : n;
  }
};

/// Pairs of 1-byte keys, a small input: one block, one launch, a stable
/// counting sort (it can generate argsort's indices too; the dispatch keeps
/// argsort on comparison counting, which was faster). Warp w owns a
/// contiguous segment of the input and holds it in registers (so that an
/// in-place sort reads everything before it writes). Each warp counts its
/// segment's digits; a digit's run is then split among the warps in input
/// order, and each warp places its keys round by round, equal digits of a
/// round in lane order (peers_of), into shared memory, from where the block
/// writes them out in order (whole lines; measured as fast as storing each
/// key to its place directly).
template <class U, class V>
struct counting_pairs_agent {
  static_assert(sizeof(U) == 1, "one byte a key: 256 digits");
  static constexpr int max_threads = 1024;
  static constexpr int max_warps = max_threads / 32;
  static constexpr int rounds = 4;  ///< keys a lane holds: 32 x 4 keys a warp
  static constexpr int capacity = max_threads * rounds;
  static constexpr unsigned none = 0xFFFFu;  ///< the digit of a lane past the end (never counted)

  /// A warp per 32 x rounds keys, at least 8 warps (a thread a digit in the scan).
  static constexpr int threads_for(std::uint64_t n) {
    const std::uint64_t w = (n + 32 * rounds - 1) / (32 * rounds);
    return w <= 8 ? 256 : int(w * 32);
  }

  struct storage {
    unsigned offsets[max_warps][radix_size];  ///< a warp's count of each digit, then where its next key of it goes
    unsigned warp_total[radix_size / 32];
  };
  /// Dynamic shared memory: the sorted keys (padded to 16 bytes), then the values.
  static constexpr std::size_t keys_bytes(std::uint64_t n) { return (n * sizeof(U) + 15) / 16 * 16; }
  static constexpr std::size_t staging_bytes(std::uint64_t n) { return keys_bytes(n) + n * sizeof(V); }

  const onesweep_params<U, V>& p;
  storage& s;
  unsigned char* staging;
  block_sort_io<U, V> io;
  U keys[rounds];
  V values[rounds];
  unsigned digits[rounds];

  __device__ __forceinline__ void process() {
    clear();
    load();
    __syncthreads();  // every key and value is held before any is written (in place)
    count();
    __syncthreads();
    place();
    __syncthreads();
    scatter();
    __syncthreads();
    write();
  }

  __device__ __forceinline__ void clear() {
    for (int i = threadIdx.x; i < int(blockDim.x / 32) * radix_size; i += blockDim.x) (&s.offsets[0][0])[i] = 0;
  }

  __device__ __forceinline__ U* sorted_keys() const { return reinterpret_cast<U*>(staging); }
  __device__ __forceinline__ V* sorted_values() const { return reinterpret_cast<V*>(staging + keys_bytes(unsigned(io.n))); }

  /// Round r of warp w holds input w x 32 x rounds + 32 r + lane.
  __device__ __forceinline__ unsigned position(int r) const {
    return (threadIdx.x / 32) * 32 * rounds + 32 * r + threadIdx.x % 32;
  }

  __device__ __forceinline__ void load() {
    const unsigned x = p.codec.linear_xor(), mask = unsigned(p.range_mask);
#pragma unroll
    for (int r = 0; r < rounds; ++r) {
      const unsigned i = position(r);
      digits[r] = none;
      if (i < unsigned(io.n)) {
        keys[r] = io.kin[i];
        digits[r] = (unsigned(keys[r]) ^ x) & mask;
        values[r] = io.vin ? io.vin[i] : index_value<V>(i);
      }
    }
  }

  /// The lanes whose digit equals this lane's, by one ballot a bit (nine: a
  /// lane past the end, `none`, matches only such lanes). With
  /// __match_any_sync instead, 4096 random keys took longer than comparison
  /// counting, sorted ones did not (bench/results/cuda-h100-2026-11-27-small-tiles.md).
  __device__ __forceinline__ static unsigned peers_of(unsigned d) {
    unsigned m = 0xFFFFFFFFu;
#pragma unroll
    for (int b = 0; b < 9; ++b) {
      const unsigned set = __ballot_sync(0xFFFFFFFFu, (d >> b) & 1u);
      m &= (d >> b) & 1u ? set : ~set;
    }
    return m;
  }

  /// The warp's count of each digit: one add a digit and round, by the
  /// lowest lane holding it.
  __device__ __forceinline__ void count() {
    unsigned* mine = s.offsets[threadIdx.x / 32];
#pragma unroll
    for (int r = 0; r < rounds; ++r) {
      const unsigned peers = peers_of(digits[r]);
      if (digits[r] != none && (peers & lanemask_lt()) == 0) mine[digits[r]] += __popc(peers);
      __syncwarp();
    }
  }

  /// offsets[w][d] = keys of smaller digits + keys of digit d in warps
  /// before w: the digits' totals scanned by the first eight warps (a thread
  /// a digit), then each digit's run walked warp by warp.
  __device__ __forceinline__ void place() {
    const int d = threadIdx.x, warps = int(blockDim.x / 32);
    unsigned total = 0, incl = 0;
    if (d < radix_size) {
      for (int w = 0; w < warps; ++w) total += s.offsets[w][d];
      incl = total;
#pragma unroll
      for (int o = 1; o < 32; o *= 2) {
        const unsigned y = __shfl_up_sync(0xFFFFFFFFu, incl, o);
        if (d % 32 >= o) incl += y;
      }
      if (d % 32 == 31) s.warp_total[d / 32] = incl;
    }
    __syncthreads();
    if (d < radix_size) {
      unsigned at = incl - total;
      for (int w = 0; w < d / 32; ++w) at += s.warp_total[w];
      for (int w = 0; w < warps; ++w) {
        const unsigned c = s.offsets[w][d];
        s.offsets[w][d] = at;
        at += c;
      }
    }
  }

  /// Round by round, in input order: a key goes to its warp's next place for
  /// its digit plus the lanes before it with the same digit; the lowest such
  /// lane then advances that place past the round's keys of the digit.
  __device__ __forceinline__ void scatter() {
    unsigned* next = s.offsets[threadIdx.x / 32];
    U* ks = sorted_keys();
    V* vs = sorted_values();
#pragma unroll
    for (int r = 0; r < rounds; ++r) {
      const unsigned d = digits[r];
      const unsigned peers = peers_of(d);
      if (d != none) {
        const unsigned j = next[d] + __popc(peers & lanemask_lt());
        ks[j] = keys[r];
        vs[j] = values[r];
      }
      __syncwarp();
      if (d != none && (peers & lanemask_lt()) == 0) next[d] += __popc(peers);
      __syncwarp();
    }
  }

  /// The sorted keys and values, in order, from shared memory.
  __device__ __forceinline__ void write() {
    const U* ks = sorted_keys();
    const V* vs = sorted_values();
    for (int j = threadIdx.x; j < io.n; j += blockDim.x) {
      if (io.kout) io.kout[j] = ks[j];
      io.put_value(j, vs[j]);
    }
  }
};

}  // namespace radix::cuda_detail
