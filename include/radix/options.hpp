// radix — the one options struct every engine and every operation takes.
// Defaults need no thought: ascending, whole key, best engine, all threads.
#pragma once
#include <cstdint>
#include <iosfwd>

namespace radix {

enum class order : std::uint8_t { ascending, descending };

/// How floating-point keys compare.
enum class float_order : std::uint8_t {
  /// -0.0 == +0.0; NaNs after every number (ascending) or before (descending),
  /// in input order. Matches std::stable_sort with operator< on NaN-free data.
  numeric,
  /// IEEE 754 totalOrder: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.
  total,
};

enum class engine : std::uint8_t {
  automatic,  ///< the fastest available: CUDA if built and a GPU is present, else CPU
  cpu,
  cuda,
  opencl,
};

/// Algorithm within an engine (the CUDA engine offers several; the CPU engine
/// has one and ignores this).
enum class algorithm : std::uint8_t { automatic, onesweep, reduce_then_scan, four_way, split };

/// How much memory beside the data a sort may take (the CPU engine; the
/// others ignore it).
enum class memory_use : std::uint8_t {
  /// Scratch as large as the data: the fastest. Keys alone larger than a
  /// quarter of the machine's memory are sorted as by in_place, where they can be.
  automatic,
  /// Keys alone of 4 or 8 bytes whose equal keys are equal bits (integers,
  /// or floats in total order; the whole key, the engine's own digits) are
  /// sorted in their own memory: beside them, each thread's block buffers and
  /// bucket buffer (a few MiB) and 11 bytes per 512 bytes of keys, instead of
  /// a copy of the keys. About 1.3x the time of automatic. Unstable, which
  /// keys equal in every bit cannot show. Other requests sort as by automatic.
  in_place,
};

struct options {
  order direction = order::ascending;
  float_order floats = float_order::numeric;
  /// Sort by bits [begin_bit, end_bit) of the *ordered* key (the transform of
  /// key_traits.hpp: for unsigned integers the key itself). end_bit = -1
  /// means the key's full width. Bits outside the range are ignored, stably.
  int begin_bit = 0;
  int end_bit = -1;
  /// Digit width in bits, 1..16, for plain LSD passes; 0 lets the engine
  /// choose (the CPU engine then picks 8 or 11 bits, or its hybrid route: one
  /// MSD pass and in-cache passes; see src/cpu/lsd.hpp). A tuning choice,
  /// never a change of result: the CUDA engine caps it at 8 and sorts 1025 to
  /// 8192 keys in one block with digits of its own (6 bits).
  int digit_bits = 0;
  engine use = engine::automatic;
  /// Worker threads for the CPU engine; 0 = all hardware threads.
  unsigned threads = 0;
  algorithm algo = algorithm::automatic;
  memory_use memory = memory_use::automatic;
};

std::ostream& operator<<(std::ostream&, order);
std::ostream& operator<<(std::ostream&, float_order);
std::ostream& operator<<(std::ostream&, engine);
std::ostream& operator<<(std::ostream&, algorithm);
std::ostream& operator<<(std::ostream&, memory_use);
std::ostream& operator<<(std::ostream&, const options&);

}  // namespace radix
