// The CPU engine's sorting network for tiny segments (src/cpu/sorting_network.hpp),
// against its readable twin, std::stable_sort of the positions by key: every
// length 0..64, keys of 8, 16 and 32 bits, random, few unique, all equal,
// sorted and reversed, from a printed seed; lengths up to 512, the network's
// runs merged, either side of each run and merge boundary. The network is
// also checked as a plain sort of words (sort_words against std::sort) for
// each padded size.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <vector>

#include "cpu/sorting_network.hpp"
#include "radix_test.hpp"

namespace {

using rt::case_seed;
using rt::hex;
using rt::rng;

/// The twin: positions 0..m stably sorted by key.
template <class O>
std::vector<unsigned> twin(const std::vector<O>& keys) {
  std::vector<unsigned> p(keys.size());
  std::iota(p.begin(), p.end(), 0u);
  std::stable_sort(p.begin(), p.end(), [&](unsigned a, unsigned b) { return keys[a] < keys[b]; });
  return p;
}

/// m keys of one of five shapes: random, few unique, all equal, sorted, reversed.
template <class O>
std::vector<O> keys_of_shape(rng& r, unsigned m, int shape) {
  std::vector<O> keys(m);
  for (unsigned i = 0; i < m; ++i) {
    const O x = O(r());
    keys[i] = shape == 0 ? x : shape == 1 ? O(x % 3) : shape == 2 ? O(7) : shape == 3 ? O(i) : O(m - i);
  }
  return keys;
}

template <class O>
void check_all_lengths(const char* type) {
  const std::uint64_t seed = case_seed(std::string("sorting network ") + type);
  rng r(seed);
  for (unsigned m = 0; m <= radix::cpu::network::most_keys; ++m)
    for (int shape = 0; shape < 5; ++shape)
      for (int rep = 0; rep < 20; ++rep) {
        const std::vector<O> keys = keys_of_shape<O>(r, m, shape);
        std::uint64_t w[radix::cpu::network::most_keys];
        for (unsigned i = 0; i < radix::cpu::network::most_keys; ++i)
          w[i] = i < m ? radix::cpu::network::pack(keys[i], i) : r();  // junk past m
        radix::cpu::network::sort_packed(w, m);
        const std::vector<unsigned> want = twin(keys);
        for (unsigned i = 0; i < m; ++i)
          ASSERT_EQ(radix::cpu::network::position_of(w[i]), want[i])
              << type << " m=" << m << " shape=" << shape << " rep=" << rep << " at " << i << " seed=" << hex(seed);
      }
}

/// Runs of the network merged: lengths either side of each run and merge boundary.
template <class O>
void check_merged_lengths(const char* type) {
  namespace nw = radix::cpu::network;
  const std::uint64_t seed = case_seed(std::string("merged network ") + type);
  rng r(seed);
  for (unsigned m : {0u, 1u, 63u, 64u, 65u, 100u, 127u, 128u, 129u, 191u, 192u, 193u, 255u, 256u, 257u, 300u, 383u, 384u,
                     385u, 449u, 511u, 512u})
    for (int shape = 0; shape < 5; ++shape)
      for (int rep = 0; rep < 4; ++rep) {
        const std::vector<O> keys = keys_of_shape<O>(r, m, shape);
        std::uint64_t w[nw::merged_most], t[nw::merged_most];
        for (unsigned i = 0; i < nw::merged_most; ++i) {
          w[i] = i < m ? nw::pack(keys[i], i) : r();  // junk past m
          t[i] = r();
        }
        const std::uint64_t* sorted = nw::sort_packed_merged(w, t, m);
        const std::vector<unsigned> want = twin(keys);
        for (unsigned i = 0; i < m; ++i)
          ASSERT_EQ(nw::position_of(sorted[i]), want[i])
              << type << " m=" << m << " shape=" << shape << " rep=" << rep << " at " << i << " seed=" << hex(seed);
      }
}

TEST(sorting_network, merged_u8) { check_merged_lengths<std::uint8_t>("u8"); }
TEST(sorting_network, merged_u16) { check_merged_lengths<std::uint16_t>("u16"); }
TEST(sorting_network, merged_u32) { check_merged_lengths<std::uint32_t>("u32"); }

TEST(sorting_network, stable_u8) { check_all_lengths<std::uint8_t>("u8"); }
TEST(sorting_network, stable_u16) { check_all_lengths<std::uint16_t>("u16"); }
TEST(sorting_network, stable_u32) { check_all_lengths<std::uint32_t>("u32"); }

template <int N>
void check_words(rng& r, std::uint64_t seed) {
  for (int rep = 0; rep < 200; ++rep) {
    std::uint64_t w[N];
    for (auto& x : w) x = rep % 2 ? r() : r() % 5;
    std::vector<std::uint64_t> want(w, w + N);
    std::sort(want.begin(), want.end());
    radix::cpu::network::sort_words<N>(w);
    for (int i = 0; i < N; ++i) ASSERT_EQ(w[i], want[i]) << "N=" << N << " rep=" << rep << " seed=" << hex(seed);
  }
}

TEST(sorting_network, sort_words) {
  const std::uint64_t seed = case_seed("sorting network words");
  rng r(seed);
  check_words<8>(r, seed);
  check_words<16>(r, seed);
  check_words<32>(r, seed);
  check_words<64>(r, seed);
}

}  // namespace
