// Record sorting and column (structure-of-arrays) sorting on the GPU, after
// Ha, Krüger & Silva 2009, "Fast 4-way parallel radix sorting on GPUs", §4.7
// and Fig. 3: sort (key, index), then gather whole records by the
// index. The key sort is compute_perm (wide_keys.cu: extraction + Onesweep);
// the gather is gather.cu's, tuned to the record size.
#include <algorithm>
#include <string>

#include "common/common.cuh"
#include "engine/engine.hpp"
#include "gather.cuh"
#include "host_staging.cuh"
#include "radix/cuda.hpp"
#include "wide_keys.cuh"

namespace radix::cuda_detail {
namespace {

[[noreturn]] void bad(const std::string& what) { throw invalid_argument("radix: " + what); }

int index_bytes_for(std::uint64_t n) { return n <= 0xFFFFFFFFull ? 4 : 8; }

/// The checks of the host API's sort_records, plus device-only ones.
void validate_records(const void* in, const void* out, std::size_t record_bytes, std::uint64_t n,
                      const record_key& key, const options& o, bool check_pointers) {
  if (o.use != engine::automatic && o.use != engine::cuda)
    bad("radix::cuda calls run on the CUDA engine; options.use names another");
  if (record_bytes == 0) bad("record size 0");
  if (key.offset + key.type.bytes > record_bytes)
    bad("key at offset " + std::to_string(key.offset) + " of " + std::to_string(key.type.bytes) +
        " bytes does not fit in a record of " + std::to_string(record_bytes) + " bytes");
  sort_request r;  // the key type, bit range and sizes, in the host API's words
  r.op = operation::argsort;
  r.key = key.type;
  r.n = n;
  r.keys = const_cast<void*>(in);
  r.index_bytes = std::uint8_t(index_bytes_for(n));
  r.indices = const_cast<void*>(out);
  r.opts = o;
  radix::detail::validate_request(r, check_pointers);
  if (!check_pointers || n == 0) return;
  if (out == nullptr) bad("records output is null but count = " + std::to_string(n));
  const auto a = reinterpret_cast<std::uintptr_t>(in), b = reinterpret_cast<std::uintptr_t>(out);
  const std::uint64_t len = n * record_bytes;
  if (a != b && a < b + len && b < a + len) bad("record input and output overlap (pass the same pointer to sort in place)");
}

std::size_t records_ws(std::size_t record_bytes, std::uint64_t n, const record_key& key, const options& o, bool in_place) {
  const int ib = index_bytes_for(n);
  return align256(n * ib) + (in_place ? align256(n * record_bytes) : 0) +
         perm_workspace_bytes(key.type, key.big_endian, n, o, ib);
}

}  // namespace

}  // namespace radix::cuda_detail

namespace radix::cuda {

using cuda_detail::align256;

std::size_t sort_records_workspace_bytes(std::size_t record_bytes, std::uint64_t n, const record_key& key,
                                         const options& o, placement p) {
  cuda_detail::validate_records(nullptr, nullptr, record_bytes, n, key, o, false);
  return cuda_detail::records_ws(record_bytes, n, key, o, p == placement::in_place);
}

void sort_records(const void* d_in, void* d_out, std::size_t record_bytes, std::uint64_t n, const record_key& key,
                  void* d_ws, std::size_t ws_bytes, cudaStream_t s, const options& o) {
  cuda_detail::validate_records(d_in, d_out, record_bytes, n, key, o, true);
  const bool in_place = d_in == d_out;
  const std::size_t need = cuda_detail::records_ws(record_bytes, n, key, o, in_place);
  if (ws_bytes < need || (need && d_ws == nullptr))
    throw out_of_memory("radix: CUDA workspace of " + std::to_string(ws_bytes) + " bytes is too small; " +
                        std::to_string(need) + " needed" + (in_place ? " (in place)" : ""));
  if (n == 0) return;
  if (n == 1) {
    if (!in_place) RADIX_CUDA_CHECK(cudaMemcpyAsync(d_out, d_in, record_bytes, cudaMemcpyDeviceToDevice, s));
    return;
  }
  const int ib = cuda_detail::index_bytes_for(n);
  auto* p = static_cast<unsigned char*>(d_ws);
  void* perm = p;
  p += align256(n * ib);
  void* copy = nullptr;
  if (in_place) {
    copy = p;
    p += align256(n * record_bytes);
  }
  const std::size_t used = std::size_t(p - static_cast<unsigned char*>(d_ws));
  const cuda_detail::key_source src{d_in, record_bytes, key.offset, n * record_bytes};
  cuda_detail::compute_perm(src, key.type, key.big_endian, n, o, perm, ib, p, ws_bytes - used, s);
  if (in_place) {
    // The gather cannot run in place: gather into the copy, then move home.
    cuda_detail::gather_bytes(copy, d_in, record_bytes, perm, ib, n, s);
    RADIX_CUDA_CHECK(cudaMemcpyAsync(d_out, copy, n * record_bytes, cudaMemcpyDeviceToDevice, s));
  } else {
    cuda_detail::gather_bytes(d_out, d_in, record_bytes, perm, ib, n, s);
  }
}

void sort_records(void* d_records, std::size_t record_bytes, std::uint64_t n, const record_key& key, cudaStream_t s,
                  const options& o) {
  cuda_detail::validate_records(d_records, d_records, record_bytes, n, key, o, true);
  const std::size_t need = cuda_detail::records_ws(record_bytes, n, key, o, true);
  const cuda_detail::device_buffer ws(need, s);
  sort_records(d_records, d_records, record_bytes, n, key, ws.p, need, s, o);
}

void gather(const void* d_in, void* d_out, std::size_t bytes, const void* d_perm, int index_bytes, std::uint64_t n,
            cudaStream_t s) {
  if (index_bytes != 4 && index_bytes != 8)
    throw invalid_argument("radix: gather indices must be 4 or 8 bytes, not " + std::to_string(index_bytes));
  if (bytes == 0) throw invalid_argument("radix: gather of 0-byte elements");
  if (n > 0 && (!d_in || !d_out || !d_perm)) throw invalid_argument("radix: gather with a null pointer");
  cuda_detail::gather_bytes(d_out, d_in, bytes, d_perm, index_bytes, n, s);
}

// ---- columns ----

namespace {

void validate_columns(const sort_request& keys, const column* cols, std::size_t count, bool check_pointers) {
  if (keys.op != operation::keys) throw invalid_argument("radix: sort_columns takes a keys request (operation::keys)");
  if (keys.sorted_keys && keys.sorted_keys != keys.keys)
    throw invalid_argument("radix: sort_columns sorts its keys in place (sorted_keys is not taken; a column can carry a copy)");
  if (count > 0 && cols == nullptr) throw invalid_argument("radix: columns is null but count = " + std::to_string(count));
  for (std::size_t c = 0; c < count; ++c) {
    if (cols[c].bytes == 0) throw invalid_argument("radix: column " + std::to_string(c) + " has 0-byte elements");
    if (check_pointers && keys.n > 0 && (!cols[c].in || !cols[c].out))
      throw invalid_argument("radix: column " + std::to_string(c) + " has a null pointer");
  }
}

/// Bytes of the temporary that in-place columns (and wide keys) go through.
std::size_t columns_temp(const sort_request& keys, const column* cols, std::size_t count) {
  std::size_t t = radix::detail::is_wide_key(keys.key) ? keys.n * keys.key.bytes : 0;
  for (std::size_t c = 0; c < count; ++c)
    if (cols[c].in == cols[c].out) t = std::max(t, keys.n * cols[c].bytes);
  return align256(t);
}

/// Narrow keys: sorted with the permutation as their values (no key gather).
sort_request perm_pairs(const sort_request& keys, void* perm, int ib) {
  sort_request r = keys;
  r.op = operation::pairs;
  r.values = perm;
  r.value_bytes = std::size_t(ib);
  return r;
}

}  // namespace

std::size_t sort_columns_workspace_bytes(const sort_request& keys, const column* cols, std::size_t count) {
  validate_columns(keys, cols, count, false);
  const int ib = cuda_detail::index_bytes_for(keys.n);
  sort_request k = keys;
  k.opts.use = engine::cuda;
  const std::size_t sort_ws =
      radix::detail::is_wide_key(k.key) ? cuda_detail::perm_workspace_bytes(k.key, false, k.n, k.opts, ib)
                                 : ::radix::cuda::workspace_bytes(perm_pairs(k, nullptr, ib));
  // The in-place columns' temporary is taken only after the sort: it shares its space.
  return align256(keys.n * ib) + std::max(sort_ws, columns_temp(keys, cols, count));
}

void sort_columns(const sort_request& keys, const column* cols, std::size_t count, void* d_ws, std::size_t ws_bytes,
                  cudaStream_t s) {
  validate_columns(keys, cols, count, true);
  const std::size_t need = sort_columns_workspace_bytes(keys, cols, count);
  if (ws_bytes < need || (need && d_ws == nullptr))
    throw out_of_memory("radix: CUDA workspace of " + std::to_string(ws_bytes) + " bytes is too small; " +
                        std::to_string(need) + " needed");
  const std::uint64_t n = keys.n;
  if (n == 0) return;
  const int ib = cuda_detail::index_bytes_for(n);
  auto* perm = static_cast<unsigned char*>(d_ws);
  unsigned char* rest = perm + align256(n * ib);
  const std::size_t rest_bytes = ws_bytes - align256(n * ib);
  sort_request k = keys;
  k.opts.use = engine::cuda;
  if (radix::detail::is_wide_key(k.key)) {
    const std::size_t L = k.key.bytes;
    cuda_detail::compute_perm(cuda_detail::key_source{k.keys, L, 0, n * L}, k.key, false, n, k.opts, perm, ib, rest,
                              rest_bytes, s);
    cuda_detail::gather_bytes(rest, k.keys, L, perm, ib, n, s);
    RADIX_CUDA_CHECK(cudaMemcpyAsync(k.keys, rest, n * L, cudaMemcpyDeviceToDevice, s));
  } else {
    cuda_detail::iota(perm, ib, n, s);
    sort(perm_pairs(k, perm, ib), rest, rest_bytes, s);
  }
  for (std::size_t c = 0; c < count; ++c) {
    const column& col = cols[c];
    if (col.in == col.out) {
      cuda_detail::gather_bytes(rest, col.in, col.bytes, perm, ib, n, s);
      RADIX_CUDA_CHECK(cudaMemcpyAsync(col.out, rest, n * col.bytes, cudaMemcpyDeviceToDevice, s));
    } else {
      cuda_detail::gather_bytes(col.out, col.in, col.bytes, perm, ib, n, s);
    }
  }
}

}  // namespace radix::cuda
