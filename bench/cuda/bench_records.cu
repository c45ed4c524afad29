// radix_records_bench: record sorting on the GPU (Ha, Krüger & Silva 2009,
// "Fast 4-way parallel radix sorting on GPUs", §4.7, Fig. 3) —
// radix::cuda::sort_records against what a CUB or Thrust user writes:
// extract the key prefix (the first 8 key bytes as a big-endian u64), sort
// (prefix, index) pairs with cub::DeviceRadixSort::SortPairs or
// thrust::sort_by_key, then a plain gather, out[i] = in[idx[i]], with the
// record as a struct: of bytes (the record's own type, alignment 1) and, where
// the size allows, of 32-bit words. The gather share of each is timed on its
// own. Also: the gather of 16-byte records against a device-to-device copy of
// the same bytes.
//
// Records are random bytes; the key is the first min(10, size) bytes (a byte
// string, memcmp order: the sort benchmarks' 10-byte keys). Our result is
// checked in full: sorted by the whole key, the same records as the input
// (a multiset hash), and for 100-byte records byte for byte against the CPU
// engine. Note the peers sort by the 8-byte prefix only: on ties of the
// first 8 bytes their order is not the full key's (ours is).
//
//   radix_records_bench [--log2 N] [--reps N] [--sizes 8,16,32,64,100] [--no-cpu-check]
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <string>
#include <vector>

#include "bench_check.hpp"
#include "bench_common.cuh"
#include "peers_cub.hpp"
#include "radix/cuda.hpp"
#include "radix/radix.hpp"

namespace {

int g_reps = 10;

__global__ void fill_random(unsigned char* p, std::size_t bytes, std::uint64_t seed) {
  const std::size_t step = std::size_t(gridDim.x) * blockDim.x;
  for (std::size_t i = std::size_t(blockIdx.x) * blockDim.x + threadIdx.x; i * 8 < bytes; i += step) {
    std::uint64_t z = seed + i * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    for (int k = 0; k < 8 && i * 8 + k < bytes; ++k) p[i * 8 + k] = static_cast<unsigned char>(z >> (8 * k));
  }
}

/// What a CUB user writes first: the key prefix as a number, and an index.
__global__ void prefix_and_index(const unsigned char* rec, std::size_t rb, int kb, std::uint64_t n,
                                 std::uint64_t* prefix, std::uint32_t* idx) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint64_t v = 0;
  for (int k = 0; k < 8; ++k) v = (v << 8) | (k < kb ? rec[i * rb + k] : 0);
  prefix[i] = v;
  idx[i] = std::uint32_t(i);
}

/// The plain gather: one thread per record, the record as a struct.
template <class R>
__global__ void plain_gather(const R* in, R* out, const std::uint32_t* idx, std::uint64_t n) {
  const std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[idx[i]];
}
template <std::size_t B>
struct byte_rec {
  unsigned char b[B];
};
template <std::size_t B>
struct word_rec {
  std::uint32_t w[B / 4];
};

/// Reads only: the 16-byte records at idx[i], xor-folded per thread (the
/// random-read floor of a 16-byte gather on this permutation).
__global__ void random_reads16(const uint4* in, const std::uint32_t* idx, std::uint64_t n, unsigned* sink) {
  unsigned acc = 0;
  const std::uint64_t step = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += step) {
    const uint4 v = __ldg(in + idx[i]);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x12345678u) *sink = acc;  // practically never: keeps the loads
}

struct timer {
  bench::event_pair ev;
  double median(const std::function<void()>& f) {
    std::vector<float> t;
    for (int r = 0; r < g_reps + 2; ++r) {
      const float ms = ev.ms(0, f);
      if (r >= 2) t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

std::uint64_t rec_hash(const unsigned char* p, std::size_t rb) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::size_t k = 0; k < rb; ++k) h = (h ^ p[k]) * 1099511628211ull;
  return h * 0x9E3779B97F4A7C15ull;
}

struct result {
  std::size_t rb;
  double ours, ours_gather, cub_sort, thrust_sort, gather_bytes, gather_words, memcpy_ms, reads_only = 0;
  bool words;
  bool ok;
  std::string check;
};

template <std::size_t RB>
result run_size(std::uint64_t n, bool cpu_check) {
  result res{};
  res.rb = RB;
  const int kb = RB < 10 ? int(RB) : 10;
  const std::size_t bytes = n * RB;
  unsigned char *in, *out, *out2;
  CU(cudaMalloc(&in, bytes));
  CU(cudaMalloc(&out, bytes));
  CU(cudaMalloc(&out2, bytes));
  fill_random<<<4096, 256>>>(in, bytes, 12345 + RB);
  CU(cudaGetLastError());
  const radix::record_key key{0, radix::byte_key_desc(kb), false};
  const std::size_t wsb = radix::cuda::sort_records_workspace_bytes(RB, n, key);
  void* ws;
  CU(cudaMalloc(&ws, wsb));
  timer t;
  res.ours = t.median([&] { radix::cuda::sort_records(in, out, RB, n, key, ws, wsb, 0); });

  // peers: prefix + index, SortPairs, gather
  std::uint64_t *pre, *pre_alt;
  std::uint32_t *idx, *idx_alt;
  CU(cudaMalloc(&pre, n * 8));
  CU(cudaMalloc(&pre_alt, n * 8));
  CU(cudaMalloc(&idx, n * 4));
  CU(cudaMalloc(&idx_alt, n * 4));
  const std::size_t cub_tb = peers::cub_temp_bytes<std::uint64_t, std::uint32_t>(n, 0, 64);
  void* cub_temp;
  CU(cudaMalloc(&cub_temp, cub_tb));
  const unsigned grid = unsigned((n + 255) / 256);
  std::uint32_t* sorted_idx = nullptr;
  res.cub_sort = t.median([&] {
    prefix_and_index<<<grid, 256>>>(in, RB, kb, n, pre, idx);
    const int sel = peers::cub_sort<std::uint64_t, std::uint32_t>(pre, pre_alt, idx, idx_alt, n, 0, 64, cub_temp,
                                                                  cub_tb, 0);
    sorted_idx = sel ? idx_alt : idx;
  });
  res.gather_bytes = t.median([&] {
    plain_gather<<<grid, 256>>>(reinterpret_cast<const byte_rec<RB>*>(in), reinterpret_cast<byte_rec<RB>*>(out2),
                                sorted_idx, n);
  });
  res.words = RB % 4 == 0;
  if constexpr (RB % 4 == 0) {
    res.gather_words = t.median([&] {
      plain_gather<<<grid, 256>>>(reinterpret_cast<const word_rec<RB>*>(in), reinterpret_cast<word_rec<RB>*>(out2),
                                  sorted_idx, n);
    });
  }
  res.ours_gather = t.median([&] { radix::cuda::gather(in, out2, RB, sorted_idx, 4, n); });
  res.memcpy_ms = t.median([&] { CU(cudaMemcpyAsync(out2, in, bytes, cudaMemcpyDeviceToDevice, 0)); });
  if constexpr (RB == 16) {
    unsigned* sink;
    CU(cudaMalloc(&sink, 4));
    res.reads_only = t.median([&] {
      random_reads16<<<132 * 8, 256>>>(reinterpret_cast<const uint4*>(in), sorted_idx, n, sink);
    });
    CU(cudaFree(sink));
  }
  res.thrust_sort = t.median([&] {
    prefix_and_index<<<grid, 256>>>(in, RB, kb, n, pre, idx);
    peers::thrust_sort<std::uint64_t, std::uint32_t>(pre, idx, n, 0);
  });
  CU(cudaDeviceSynchronize());

  // checks: ours sorted by the whole key, same multiset as the input
  std::vector<unsigned char> h_in(bytes), h_out(bytes);
  CU(cudaMemcpy(h_in.data(), in, bytes, cudaMemcpyDeviceToHost));
  CU(cudaMemcpy(h_out.data(), out, bytes, cudaMemcpyDeviceToHost));
  bool sorted = true;
  std::uint64_t hin = 0, hout = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    hin += rec_hash(&h_in[i * RB], RB);
    hout += rec_hash(&h_out[i * RB], RB);
    if (i && std::memcmp(&h_out[(i - 1) * RB], &h_out[i * RB], kb) > 0) sorted = false;
  }
  res.ok = sorted && hin == hout;
  res.check = std::string(sorted ? "sorted" : "NOT SORTED") + (hin == hout ? ", same records" : ", RECORDS DIFFER");
  if (cpu_check) {
    radix::options c;
    c.use = radix::engine::cpu;
    radix::sort_records(h_in.data(), RB, n, key, c);
    const bool same = h_in == h_out;
    res.ok &= same;
    res.check += same ? ", identical to the CPU engine" : ", DIFFERS FROM THE CPU ENGINE";
  }
  for (void* p : {(void*)in, (void*)out, (void*)out2, ws, (void*)pre, (void*)pre_alt, (void*)idx, (void*)idx_alt, cub_temp})
    CU(cudaFree(p));
  return res;
}

}  // namespace

int main(int argc, char** argv) {
  int lg = 26;
  bool cpu_check = true;
  std::vector<int> sizes = {8, 16, 32, 64, 100};
  std::string cmd;
  for (int i = 0; i < argc; ++i) cmd += std::string(i ? " " : "") + argv[i];
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--log2" && i + 1 < argc) lg = std::atoi(argv[++i]);
    else if (a == "--reps" && i + 1 < argc) g_reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--no-cpu-check") cpu_check = false;
    else if (a == "--sizes" && i + 1 < argc) {
      sizes.clear();
      for (const char* p = argv[++i]; *p;) {
        sizes.push_back(std::atoi(p));
        while (*p && *p != ',') ++p;
        if (*p) ++p;
      }
    } else {
      std::fprintf(stderr, "usage: radix_records_bench [--log2 N] [--reps N] [--sizes 8,16,32,64,100] [--no-cpu-check]\n");
      return 2;
    }
  }
  bench::device_info dev;
  if (!bench::probe_device(dev)) return 77;
  const std::uint64_t n = 1ull << lg;
  std::vector<result> rows;
  for (int rb : sizes) {
    std::fprintf(stderr, "records of %d bytes...\n", rb);
    switch (rb) {
      case 8: rows.push_back(run_size<8>(n, false)); break;
      case 16: rows.push_back(run_size<16>(n, false)); break;
      case 32: rows.push_back(run_size<32>(n, false)); break;
      case 64: rows.push_back(run_size<64>(n, false)); break;
      case 100: rows.push_back(run_size<100>(n, cpu_check)); break;
      default: std::fprintf(stderr, "size %d not built in (8, 16, 32, 64, 100)\n", rb); return 2;
    }
  }
  std::printf("# radix record sort vs CUB SortPairs + gather (2^%d records)\n\n", lg);
  std::printf("- device: %s, %d SMs; %s, CUB %s, Thrust %s\n", dev.prop.name, dev.prop.multiProcessorCount,
              dev.versions().c_str(), peers::cub_version().c_str(), peers::thrust_version().c_str());
  std::printf("- date: %s\n- command: `%s`\n", bench::utc_now().c_str(), cmd.c_str());
  std::printf("- median of %d runs after 2 warm-ups, CUDA events. Keys: the first min(10, size) bytes (byte string). "
              "Peers sort (8-byte prefix, u32 index) then gather; their sort time includes the prefix/index kernel.\n",
              g_reps);
  std::printf("- radix gather = radix::cuda::gather alone with the same permutation (its share of radix total); "
              "plain gather = one thread per record, `out[i] = in[idx[i]]`, record as a byte struct / as a 32-bit word "
              "struct\n\n");
  std::printf("| record bytes | radix total ms | radix gather ms | CUB sort ms | + byte gather ms | + word gather ms | "
              "CUB+byte / radix | CUB+word / radix | Thrust sort ms | Thrust+word / radix | gather / memcpy rate | check |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  bool ok = true;
  for (const result& r : rows) {
    const double best_plain = r.words ? r.gather_words : r.gather_bytes;
    std::printf("| %zu | %.3f | %.3f | %.3f | %.3f | %s | %.2fx | %s | %.3f | %.2fx | %.0f%% | %s |\n", r.rb, r.ours,
                r.ours_gather, r.cub_sort, r.gather_bytes,
                r.words ? (std::to_string(r.gather_words).substr(0, 6)).c_str() : "-",
                (r.cub_sort + r.gather_bytes) / r.ours,
                r.words ? (std::to_string((r.cub_sort + r.gather_words) / r.ours).substr(0, 4) + "x").c_str() : "-",
                r.thrust_sort, (r.thrust_sort + best_plain) / r.ours, 100.0 * r.memcpy_ms / r.ours_gather,
                r.check.c_str());
    ok &= r.ok;
  }
  std::printf("\n\"gather / memcpy rate\": cudaMemcpyAsync device-to-device of the same bytes, time ratio (100%% = the "
              "gather moves records as fast as a copy moves them).\n");
  for (const result& r : rows)
    if (r.rb == 16)
      std::printf("\n16-byte records: memcpy of the same bytes %.3f ms; the random reads alone (no writes, same "
                  "permutation) %.3f ms; radix gather %.3f ms.\n",
                  r.memcpy_ms, r.reads_only, r.ours_gather);
  return ok ? 0 : 1;
}
