// What the three seed algorithms share (reduce_then_scan: the course slides
// "CUDA LSD Radix Sort" and Helluy 2011, "A portable implementation of the
// radix sort algorithm in OpenCL"; four_way: Ha, Krüger & Silva 2009, "Fast
// 4-way parallel radix sorting on GPUs"; split: García, Alvizo, Olivares &
// Ramos 2014, "Fast Data Parallel Radix Sort Implementation in DirectX 11
// Compute Shader to Accelerate Ray Tracing Algorithms"): one
// LSD pass is "per tile, digit counts (and for four_way and split a locally
// sorted tile); an exclusive scan over the digit-major tile x digit count
// matrix, which gives every (digit, tile) its global start; a scatter".
// Unlike Onesweep these keep O(n) scratch and a count matrix, and read the
// keys more than once per pass: they are here because the papers are, and
// because calibration may still prefer one of them on some device and size.
#pragma once
#include <cstdint>

#include "common.cuh"
#include "radix/core/ordered_bits.hpp"
#include "radix/core/pass_plan.hpp"

namespace radix::cuda_detail {

constexpr int multipass_max_passes = 64;

/// Head of the workspace (zeroed before each sort).
struct multipass_control {
  /// unsorted[e]: 0 = the keys were found sorted before pass e (four_way's
  /// order check, Ha, Krüger & Silva 2009, §4.2): pass e and every later one
  /// do nothing.
  /// Algorithms without the check set every entry to 1 up front.
  unsigned unsorted[multipass_max_passes];
};

template <class U, class V>
struct multipass_params {
  U* keys = nullptr;       ///< user keys: input, and output unless argsort
  U* key_alt[2] = {};      ///< [1] only for argsort
  V* values = nullptr;     ///< user values (pairs) or indices (argsort)
  V* value_alt = nullptr;
  std::uint32_t* prefix = nullptr;  ///< four_way element-wise mapping: each key's rank within its digit and tile
  std::uint32_t* counts = nullptr;  ///< digit-major matrix: counts[d * num_tiles + t], scanned in place to global starts
  std::uint32_t* partials = nullptr;  ///< the matrix scan's chunk sums
  multipass_control* ctl = nullptr;
  std::uint32_t n = 0;     ///< < 2^32: offsets are 32-bit
  std::uint32_t num_tiles = 0;
  int passes = 0;          ///< passes planned (k)
  sort_mode mode = sort_mode::keys;
  core::ordered_codec<U> codec{};
  U range_mask = 0;
};

/// Where pass e of k reads and writes. keys/pairs ping-pong user <-> alt (a
/// final copy when the number of passes run is odd). The two-kernel
/// algorithms sort each tile in place first (kt/vt: a block reads and
/// writes only its own tile), except argsort's first pass, which must not
/// write the user's keys: it sorts the tiles into key_alt[1] and the index
/// buffer that pass 0 does not scatter into. argsort's last pass writes no keys.
template <class U, class V>
struct multipass_buffers {
  const U* ksrc;
  U* kt;    ///< the locally sorted tiles
  U* kdst;  ///< nullptr: keys not written (argsort's last pass)
  const V* vsrc;  ///< nullptr: generate indices (argsort's first pass)
  V* vt;
  V* vdst;

  __host__ __device__ static V* index_buffer(const multipass_params<U, V>& p, int e, int k) {
    return ((k - 1 - e) & 1) == 0 ? p.values : p.value_alt;  // the last pass lands in the user's
  }

  __host__ __device__ static multipass_buffers pick(const multipass_params<U, V>& p, int e) {
    multipass_buffers b{};
    const int k = p.passes;
    if (p.mode != sort_mode::argsort) {
      const bool even = (e & 1) == 0;
      b.ksrc = even ? p.keys : p.key_alt[0];
      b.kdst = even ? p.key_alt[0] : p.keys;
      b.kt = const_cast<U*>(b.ksrc);
      b.vsrc = even ? p.values : p.value_alt;
      b.vdst = even ? p.value_alt : p.values;
      b.vt = const_cast<V*>(b.vsrc);
    } else {
      b.ksrc = e == 0 ? p.keys : (((e - 1) & 1) ? p.key_alt[1] : p.key_alt[0]);
      b.kt = e == 0 ? p.key_alt[1] : const_cast<U*>(b.ksrc);
      b.kdst = e == k - 1 ? nullptr : ((e & 1) ? p.key_alt[1] : p.key_alt[0]);
      b.vdst = index_buffer(p, e, k);
      b.vsrc = e == 0 ? nullptr : index_buffer(p, e - 1, k);
      b.vt = e == 0 ? (b.vdst == p.values ? p.value_alt : p.values) : const_cast<V*>(b.vsrc);
    }
    return b;
  }
};

/// The ordered key restricted to the bit range (what the order check compares).
template <class U>
__device__ __forceinline__ U ranged_key(const core::ordered_codec<U>& c, U mask, U key) {
  return U(c(key) & mask);
}

template <class U>
__device__ __forceinline__ unsigned multipass_digit(const core::ordered_codec<U>& c, U key, int shift, int bits) {
  return core::digit_of<U>(c(key), shift, bits);
}

}  // namespace radix::cuda_detail
