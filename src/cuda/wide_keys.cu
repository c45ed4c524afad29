// Permutations for keys in records and keys wider than 64 bits (see
// wide_keys.cuh). The sorting itself is the engine's Onesweep, called through
// the type-erased device API (radix::cuda::sort) on extracted key arrays.
#include <algorithm>
#include <string>

#include "common/common.cuh"
#include "engine/engine.hpp"
#include "gather.cuh"
#include "radix/core/wide_chunks.hpp"
#include "radix/cuda.hpp"
#include "wide_keys.cuh"

namespace radix::cuda_detail {
namespace {

constexpr int extract_threads = 256;

__device__ __forceinline__ std::uint64_t bswap64(std::uint64_t x) {
  const unsigned lo = __byte_perm(unsigned(x), 0, 0x0123), hi = __byte_perm(unsigned(x >> 32), 0, 0x0123);
  return (std::uint64_t(lo) << 32) | hi;
}

/// The cb (1..8) bytes at p as one number: big-endian (memcmp order) or
/// little-endian (native integers). Reads the aligned 32-bit words that
/// cover them where those lie inside [.., end), bytes otherwise.
__device__ __forceinline__ std::uint64_t load_chunk(const unsigned char* p, int cb, bool big_endian,
                                                    const unsigned char* end) {
  std::uint64_t raw = 0;  // byte j of the chunk at bits 8j
  const unsigned mis = unsigned(reinterpret_cast<std::uintptr_t>(p) & 3u);
  const unsigned char* w = p - mis;
  const int nw = int(mis + unsigned(cb) + 3u) / 4;
  if (w + 4 * nw <= end) {
    const auto* q = reinterpret_cast<const unsigned*>(w);
    const unsigned x0 = __ldg(q), x1 = nw > 1 ? __ldg(q + 1) : 0u, x2 = nw > 2 ? __ldg(q + 2) : 0u;
    const std::uint64_t lo = x0 | (std::uint64_t(x1) << 32);
    raw = mis ? (lo >> (8 * mis)) | (std::uint64_t(x2) << (64 - 8 * mis)) : lo;
  } else {
    for (int j = 0; j < cb; ++j) raw |= std::uint64_t(__ldg(p + j)) << (8 * j);
  }
  if (cb < 8) raw &= (std::uint64_t(1) << (8 * cb)) - 1;
  return big_endian ? bswap64(raw) >> (64 - 8 * cb) : raw;
}

/// out[i] = the chunk of key perm[i] (key i when perm is null). With a gate
/// that reads 0, writes zeros instead: a sort of equal keys moves nothing
/// (the Onesweep histogram finds it sorted and plans no pass), which is how
/// the fallback of compute_perm is switched off without a host round trip.
template <class U, class I>
__global__ void __launch_bounds__(extract_threads)
    extract_kernel(U* __restrict__ out, const unsigned char* base, std::size_t stride, const I* __restrict__ perm,
                   std::uint64_t n, int cb, bool big_endian, const unsigned char* end, const unsigned* gate) {
  const bool on = gate == nullptr || *gate != 0;
  const std::uint64_t step = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    if (!on) {
      out[i] = U(0);
      continue;
    }
    const std::uint64_t src = perm ? std::uint64_t(__ldg(perm + i)) : i;
    out[i] = U(load_chunk(base + src * stride, cb, big_endian, end));
  }
}

/// *flag = 1 when two neighbours of the sorted chunk array are equal in the
/// bits of `mask` (ties that the lower chunks must break).
template <class U>
__global__ void tie_kernel(const U* __restrict__ sorted, std::uint64_t n, U mask, unsigned* flag) {
  const std::uint64_t step = std::uint64_t(gridDim.x) * blockDim.x;
  bool tie = false;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x + 1; i < n; i += step)
    tie |= ((sorted[i] ^ sorted[i - 1]) & mask) == 0;
  if (__syncthreads_or(tie) && threadIdx.x == 0) atomicOr(flag, 1u);
}

template <class I>
__global__ void iota_kernel(I* out, std::uint64_t n) {
  const std::uint64_t step = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) out[i] = I(i);
}

unsigned grid_for(std::uint64_t n) { return unsigned(std::min<std::uint64_t>((n + 255) / 256, 132 * 16)); }

template <class U>
void extract_typed(void* out, const key_source& src, std::size_t first_byte, const void* perm, int ib,
                   std::uint64_t n, int cb, bool be, const unsigned* gate, cudaStream_t s) {
  const auto* base = static_cast<const unsigned char*>(src.base) + src.offset + first_byte;
  const auto* end = static_cast<const unsigned char*>(src.base) + src.bytes;
  if (ib == 4)
    extract_kernel<U, std::uint32_t><<<grid_for(n), extract_threads, 0, s>>>(
        static_cast<U*>(out), base, src.stride, static_cast<const std::uint32_t*>(perm), n, cb, be, end, gate);
  else
    extract_kernel<U, std::uint64_t><<<grid_for(n), extract_threads, 0, s>>>(
        static_cast<U*>(out), base, src.stride, static_cast<const std::uint64_t*>(perm), n, cb, be, end, gate);
  RADIX_CUDA_CHECK_LAUNCH("radix extract_kernel");
}

void extract(void* out, int out_bytes, const key_source& src, std::size_t first_byte, const void* perm, int ib,
             std::uint64_t n, int cb, bool be, const unsigned* gate, cudaStream_t s) {
  switch (out_bytes) {
    case 1: return extract_typed<std::uint8_t>(out, src, first_byte, perm, ib, n, cb, be, gate, s);
    case 2: return extract_typed<std::uint16_t>(out, src, first_byte, perm, ib, n, cb, be, gate, s);
    case 4: return extract_typed<std::uint32_t>(out, src, first_byte, perm, ib, n, cb, be, gate, s);
    default: return extract_typed<std::uint64_t>(out, src, first_byte, perm, ib, n, cb, be, gate, s);
  }
}

template <class U>
void ties_typed(const void* sorted, std::uint64_t n, int begin, int end, unsigned* flag, cudaStream_t s) {
  const int w = int(sizeof(U)) * 8;
  const U hi = end >= w ? U(~U(0)) : U((U(1) << end) - 1);
  const U mask = U(hi & U(~U(0) << begin));
  tie_kernel<U><<<grid_for(n), 256, 0, s>>>(static_cast<const U*>(sorted), n, mask, flag);
  RADIX_CUDA_CHECK_LAUNCH("radix tie_kernel");
}

void ties(const void* sorted, int bytes, std::uint64_t n, int begin, int end, unsigned* flag, cudaStream_t s) {
  switch (bytes) {
    case 1: return ties_typed<std::uint8_t>(sorted, n, begin, end, flag, s);
    case 2: return ties_typed<std::uint16_t>(sorted, n, begin, end, flag, s);
    case 4: return ties_typed<std::uint32_t>(sorted, n, begin, end, flag, s);
    default: return ties_typed<std::uint64_t>(sorted, n, begin, end, flag, s);
  }
}

/// The sorts compute_perm runs: one per chunk (a narrow key is one chunk).
struct step {
  sort_request sub;  ///< pointers filled in at run time
  int cb = 0;        ///< bytes extracted
  int first_byte = 0;
  bool big_endian = false;
};

int plan(const key_desc& key, bool be, std::uint64_t n, const options& o, int ib, step* out) {
  if (!detail::is_wide_key(key)) {
    step& st = out[0];
    st.sub.op = operation::argsort;
    st.sub.key = key;
    st.sub.n = n;
    st.sub.index_bytes = std::uint8_t(ib);
    st.sub.opts = o;
    st.sub.opts.use = engine::cuda;
    st.cb = key.bytes;
    st.first_byte = 0;
    st.big_endian = be;
    return 1;
  }
  core::wide_chunk ch[core::max_wide_chunks];
  const int k = core::plan_wide_chunks(key.bytes, key.kind == key_kind::bytes, key.kind == key_kind::signed_int, be,
                                       o.begin_bit, o.end_bit, ch);
  for (int j = 0; j < k; ++j) {
    step& st = out[j];
    st.sub.op = j == 0 ? operation::argsort : operation::pairs;
    st.sub.key = key_desc{ch[j].is_signed ? key_kind::signed_int : key_kind::unsigned_int,
                          std::uint8_t(ch[j].key_bytes), 0};
    st.sub.n = n;
    if (j == 0) st.sub.index_bytes = std::uint8_t(ib);
    else st.sub.value_bytes = std::size_t(ib);
    st.sub.opts = options{};
    st.sub.opts.use = engine::cuda;
    st.sub.opts.direction = o.direction;
    st.sub.opts.begin_bit = ch[j].begin_bit;
    st.sub.opts.end_bit = ch[j].end_bit;
    st.cb = ch[j].bytes;
    st.first_byte = ch[j].first_byte;
    st.big_endian = ch[j].big_endian;
  }
  return k;
}

}  // namespace

std::size_t perm_workspace_bytes(const key_desc& key, bool be, std::uint64_t n, const options& o, int ib) {
  step steps[core::max_wide_chunks];
  const int k = plan(key, be, n, o, ib, steps);
  std::size_t inner = 0;
  for (int j = 0; j < k; ++j) {
    inner = std::max(inner, radix::cuda::workspace_bytes(steps[j].sub));
    sort_request pairs = steps[j].sub;  // prefix-first sorts every chunk as pairs
    pairs.op = operation::pairs;
    pairs.value_bytes = std::size_t(ib);
    inner = std::max(inner, radix::cuda::workspace_bytes(pairs));
  }
  return align256(n * 8) + 256 + align256(inner);
}

// A wide key sorts prefix first (the early exit of Ha, Krüger & Silva 2009,
// "Fast 4-way parallel radix sorting on GPUs", §4.2, applied to chunks):
// its most significant chunk alone, read in input order, then a check for
// ties in that chunk. Without ties (random keys, ids) the order is final and
// the lower chunks are never read. With ties, an LSD over the lower chunks
// and the top chunk again follows, starting from the prefix order (the last,
// stable, top-chunk sort makes the start irrelevant). That fallback is
// enqueued always and switched off on the device (extract_kernel's gate), so
// no host round trip decides it.
void compute_perm(const key_source& src, const key_desc& key, bool be, std::uint64_t n, const options& o, void* perm,
                  int ib, void* ws, std::size_t ws_bytes, cudaStream_t s) {
  if (n == 0) return;
  step steps[core::max_wide_chunks];
  const int k = plan(key, be, n, o, ib, steps);
  if (k == 0) return iota(perm, ib, n, s);  // empty bit range: nothing moves
  auto* kbuf = static_cast<unsigned char*>(ws);
  auto* flag = reinterpret_cast<unsigned*>(kbuf + align256(n * 8));
  unsigned char* inner = kbuf + align256(n * 8) + 256;
  const std::size_t inner_bytes = ws_bytes - align256(n * 8) - 256;
  auto sort_chunk = [&](step st, const void* order, const unsigned* gate, bool as_pairs) {
    extract(kbuf, st.sub.key.bytes, src, std::size_t(st.first_byte), order, ib, n, st.cb, st.big_endian, gate, s);
    st.sub.keys = kbuf;
    if (as_pairs) {
      st.sub.op = operation::pairs;
      st.sub.values = perm;  // the permutation rides along: sorted, it is the new one
      st.sub.value_bytes = std::size_t(ib);
    } else {
      st.sub.indices = perm;
    }
    radix::cuda::sort(st.sub, inner, inner_bytes, s);
  };
  if (k == 1) return sort_chunk(steps[0], nullptr, nullptr, false);
  const step& top = steps[k - 1];
  iota(perm, ib, n, s);
  sort_chunk(top, nullptr, nullptr, true);  // kbuf now holds the sorted top chunk
  RADIX_CUDA_CHECK(cudaMemsetAsync(flag, 0, sizeof(unsigned), s));
  ties(kbuf, top.sub.key.bytes, n, top.sub.opts.begin_bit, top.sub.opts.end_bit, flag, s);
  for (int j = 0; j < k - 1; ++j) sort_chunk(steps[j], perm, flag, true);
  sort_chunk(top, perm, flag, true);
}

void iota(void* perm, int ib, std::uint64_t n, cudaStream_t s) {
  if (n == 0) return;
  if (ib == 4) iota_kernel<<<grid_for(n), 256, 0, s>>>(static_cast<std::uint32_t*>(perm), n);
  else iota_kernel<<<grid_for(n), 256, 0, s>>>(static_cast<std::uint64_t*>(perm), n);
  RADIX_CUDA_CHECK_LAUNCH("radix iota_kernel");
}

// ---- a whole request with a wide key ----

namespace {
int perm_index_bytes(const sort_request& r) {
  if (r.op == operation::argsort) return r.index_bytes;
  return r.n <= 0xFFFFFFFFull ? 4 : 8;
}
std::size_t temp_bytes(const sort_request& r) {
  if (r.op == operation::argsort) return 0;
  std::size_t t = r.n * r.key.bytes;
  if (r.op == operation::pairs) t = std::max(t, r.n * r.value_bytes);
  return align256(t);
}
}  // namespace

std::size_t wide_request_workspace(const sort_request& r) {
  const int ib = perm_index_bytes(r);
  const std::size_t perm = r.op == operation::argsort ? 0 : align256(r.n * ib);
  return perm + temp_bytes(r) + perm_workspace_bytes(r.key, false, r.n, r.opts, ib);
}

void wide_request_sort(const sort_request& r, void* ws, std::size_t ws_bytes, cudaStream_t s) {
  if (r.n == 0) return;
  const int ib = perm_index_bytes(r);
  auto* p = static_cast<unsigned char*>(ws);
  void* perm = r.op == operation::argsort ? r.indices : p;
  if (r.op != operation::argsort) p += align256(r.n * ib);
  void* temp = p;
  p += temp_bytes(r);
  const std::size_t used = std::size_t(p - static_cast<unsigned char*>(ws));
  const std::size_t L = r.key.bytes;
  const key_source src{r.keys, L, 0, r.n * L};
  compute_perm(src, r.key, false, r.n, r.opts, perm, ib, p, ws_bytes - used, s);
  if (r.op == operation::argsort) return;
  // Results land in the caller's buffers: gather into the temporary, copy home.
  gather_bytes(temp, r.keys, L, perm, ib, r.n, s);
  RADIX_CUDA_CHECK(cudaMemcpyAsync(r.keys, temp, r.n * L, cudaMemcpyDeviceToDevice, s));
  if (r.op == operation::pairs) {
    gather_bytes(temp, r.values, r.value_bytes, perm, ib, r.n, s);
    RADIX_CUDA_CHECK(cudaMemcpyAsync(r.values, temp, r.n * r.value_bytes, cudaMemcpyDeviceToDevice, s));
  }
}

}  // namespace radix::cuda_detail
