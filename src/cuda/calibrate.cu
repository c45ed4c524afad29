// radix::calibrate: time every candidate variant on this GPU and record the
// fastest per workload and size in the tuning cache (Ha, Krüger & Silva 2009,
// "Fast 4-way parallel radix sorting on GPUs", §5: "a calibration procedure
// consisting of a few sorts to select the best approach").
// algorithm::automatic then reads the cache
// (tuning_cache.cpp).
//
// Per workload and size: one input of uniform random keys (fixed seed), then
// for each candidate one verified warm-up and `repeats` timed sorts (CUDA
// events around the sort only; the input is restored before each run). A
// candidate whose result is wrong is reported and never chosen.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "common/common.cuh"
#include "radix/calibrate.hpp"
#include "radix/core/environment.hpp"
#include "radix/cuda.hpp"
#include "tuning_cache.hpp"

namespace radix::cuda_detail {
namespace {

constexpr std::uint64_t calibration_seed = 20261122;

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

/// Device memory that frees itself (errors in free are ignored: the
/// calibration may be unwinding from an earlier one).
struct dev_mem {
  void* p = nullptr;
  explicit dev_mem(std::size_t bytes) {
    if (bytes) RADIX_CUDA_CHECK(cudaMalloc(&p, bytes));
  }
  ~dev_mem() {
    if (p) (void)cudaFree(p);
  }
  dev_mem(const dev_mem&) = delete;
  dev_mem& operator=(const dev_mem&) = delete;
};

struct stream_guard {
  cudaStream_t s = nullptr;
  stream_guard() { RADIX_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)); }
  ~stream_guard() { (void)cudaStreamDestroy(s); }
};

struct event_guard {
  cudaEvent_t e = nullptr;
  event_guard() { RADIX_CUDA_CHECK(cudaEventCreate(&e)); }
  ~event_guard() { (void)cudaEventDestroy(e); }
  event_guard(event_guard&& o) noexcept : e(o.e) { o.e = nullptr; }
  event_guard(const event_guard&) = delete;
};

double median(std::vector<double> v) {
  if (v.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

std::string fmt(const char* f, auto... a) {
  char buf[256];
  std::snprintf(buf, sizeof buf, f, a...);
  return buf;
}

/// The type-erased part of one (workload, n): device buffers holding a
/// pristine copy of the input, and how to run and check a sort of it.
class bench_input {
 public:
  virtual ~bench_input() = default;
  virtual sort_request request() const = 0;
  /// Restores the input from the pristine copy (enqueued, not timed).
  virtual void restore(cudaStream_t s) = 0;
  /// Copies the result back and checks it; empty when right, else what is wrong.
  virtual std::string verify(cudaStream_t s) = 0;
};

template <class K>
class typed_input final : public bench_input {
 public:
  typed_input(std::uint64_t n, bool pairs)
      : n_(n), pairs_(pairs), keys_(n * sizeof(K)), keys0_(n * sizeof(K)), vals_(pairs ? n * 4 : 0),
        vals0_(pairs ? n * 4 : 0), host_(n) {
    for (std::uint64_t i = 0; i < n; ++i) host_[i] = K(splitmix64(calibration_seed ^ (i * 0x2545F4914F6CDD1Dull)));
    RADIX_CUDA_CHECK(cudaMemcpy(keys0_.p, host_.data(), n * sizeof(K), cudaMemcpyHostToDevice));
    if (pairs) {
      // Value i is the input position: the check then sees every move.
      std::vector<std::uint32_t> v(n);
      for (std::uint64_t i = 0; i < n; ++i) v[i] = std::uint32_t(i);
      RADIX_CUDA_CHECK(cudaMemcpy(vals0_.p, v.data(), n * 4, cudaMemcpyHostToDevice));
    }
    for (const K k : host_) {
      sum_ += std::uint64_t(k);
      xor_ ^= std::uint64_t(k);
    }
  }

  sort_request request() const override {
    sort_request r;
    r.op = pairs_ ? operation::pairs : operation::keys;
    r.key = key_desc_of<K>();
    r.n = n_;
    r.keys = keys_.p;
    if (pairs_) {
      r.values = vals_.p;
      r.value_bytes = 4;
    }
    return r;
  }

  void restore(cudaStream_t s) override {
    RADIX_CUDA_CHECK(cudaMemcpyAsync(keys_.p, keys0_.p, n_ * sizeof(K), cudaMemcpyDeviceToDevice, s));
    if (pairs_) RADIX_CUDA_CHECK(cudaMemcpyAsync(vals_.p, vals0_.p, n_ * 4, cudaMemcpyDeviceToDevice, s));
  }

  std::string verify(cudaStream_t s) override {
    std::vector<K> out(n_);
    std::vector<std::uint32_t> vals(pairs_ ? n_ : 0);
    RADIX_CUDA_CHECK(cudaMemcpyAsync(out.data(), keys_.p, n_ * sizeof(K), cudaMemcpyDeviceToHost, s));
    if (pairs_) RADIX_CUDA_CHECK(cudaMemcpyAsync(vals.data(), vals_.p, n_ * 4, cudaMemcpyDeviceToHost, s));
    RADIX_CUDA_CHECK(cudaStreamSynchronize(s));
    const auto bad = std::is_sorted_until(out.begin(), out.end());
    if (bad != out.end()) return fmt("keys out of order at position %llu", (unsigned long long)(bad - out.begin()));
    if (!pairs_) {
      // Sorted is not enough: the same keys must come out (sum and xor).
      std::uint64_t sum = 0, x = 0;
      for (const K k : out) {
        sum += std::uint64_t(k);
        x ^= std::uint64_t(k);
      }
      return sum == sum_ && x == xor_ ? std::string() : std::string("the output keys are not the input keys");
    }
    std::vector<bool> seen(n_);
    for (std::uint64_t j = 0; j < n_; ++j) {
      const std::uint32_t v = vals[j];
      if (v >= n_ || seen[v]) return fmt("value %llu is not a permutation index", (unsigned long long)j);
      seen[v] = true;
      if (out[j] != host_[v]) return fmt("value %llu did not move with its key", (unsigned long long)j);
      if (j && out[j] == out[j - 1] && v < vals[j - 1]) return fmt("not stable at position %llu", (unsigned long long)j);
    }
    return {};
  }

 private:
  std::uint64_t n_;
  bool pairs_;
  dev_mem keys_, keys0_, vals_, vals0_;
  std::vector<K> host_;
  std::uint64_t sum_ = 0, xor_ = 0;
};

struct workload_spec {
  int key_bytes;
  bool pairs;
};
constexpr workload_spec calibrated_workloads[] = {{4, false}, {4, true}, {8, false}, {8, true}};

std::unique_ptr<bench_input> make_input(const workload_spec& w, std::uint64_t n) {
  if (w.key_bytes == 4) return std::make_unique<typed_input<std::uint32_t>>(n, w.pairs);
  return std::make_unique<typed_input<std::uint64_t>>(n, w.pairs);
}

/// Times `repeats` runs of `run` (the input restored before each, untimed);
/// returns the milliseconds of each.
template <class Run>
std::vector<double> time_runs(bench_input& in, cudaStream_t s, int repeats, Run&& run) {
  std::vector<event_guard> ev;
  ev.reserve(2 * repeats);
  for (int i = 0; i < 2 * repeats; ++i) ev.emplace_back();
  for (int i = 0; i < repeats; ++i) {
    in.restore(s);
    RADIX_CUDA_CHECK(cudaEventRecord(ev[2 * i].e, s));
    run();
    RADIX_CUDA_CHECK(cudaEventRecord(ev[2 * i + 1].e, s));
  }
  RADIX_CUDA_CHECK(cudaStreamSynchronize(s));
  std::vector<double> ms(repeats);
  for (int i = 0; i < repeats; ++i) {
    float t = 0;
    RADIX_CUDA_CHECK(cudaEventElapsedTime(&t, ev[2 * i].e, ev[2 * i + 1].e));
    ms[i] = t;
  }
  return ms;
}

/// After a device error: is the context still usable (the error was not sticky)?
bool context_alive() {
  (void)cudaGetLastError();
  return cudaDeviceSynchronize() == cudaSuccess;
}

}  // namespace
}  // namespace radix::cuda_detail

namespace radix {

calibration_report calibrate(const calibrate_options& o) {
  using namespace cuda_detail;
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  auto say = [&](const std::string& line) {
    if (o.progress) o.progress(line);
  };

  if (o.repeats < 1) throw invalid_argument("radix: calibrate: repeats must be at least 1");
  if (o.sizes.empty()) throw invalid_argument("radix: calibrate: no sizes to calibrate");
  for (const std::uint64_t n : o.sizes)
    if (n < 2 || n > 0xFFFFFFFFull)
      throw invalid_argument("radix: calibrate: sizes must be in [2, 2^32 - 1], not " + std::to_string(n));

  int count = 0;
  const cudaError_t ce = cudaGetDeviceCount(&count);
  if (ce != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    throw engine_unavailable(std::string("radix: calibrate needs a CUDA GPU and none is visible (") +
                             (ce != cudaSuccess ? cudaGetErrorString(ce) : "no devices") + ")");
  }
  const auto id = current_device_identity();
  if (!id) throw engine_unavailable("radix: calibrate: cannot read the current CUDA device's name");

  calibration_report rep;
  rep.device = id->name;
  rep.driver = id->driver;
  const std::string path = o.cache_path.empty() ? tuning_cache_path() : o.cache_path;
  const std::vector<cuda::variant> cands = cuda::candidates();
  say(fmt("calibrating %zu candidates on %s (driver %s); keys uniform random, seed %llu; median of %d runs",
          cands.size(), id->name.c_str(), id->driver.c_str(), (unsigned long long)calibration_seed, o.repeats));

  stream_guard stream;
  const cudaStream_t s = stream.s;
  struct best_of {
    workload_spec w;
    std::uint64_t n;
    cuda::variant v;
    double ms;
  };
  std::vector<best_of> bests;
  std::vector<tuning_entry> entries;
  bool any_wrong = false;

  for (const workload_spec& ws : calibrated_workloads) {
    const workload wl{ws.key_bytes, ws.pairs ? 4 : 0};
    const std::string wname = workload_name(wl);
    for (const std::uint64_t n : o.sizes) {
      auto in = make_input(ws, n);
      const sort_request req = in->request();
      // One workspace, the largest any candidate needs at this size.
      std::vector<std::size_t> need(cands.size(), 0);
      std::vector<std::string> skip(cands.size());
      std::size_t most = 0;
      for (std::size_t c = 0; c < cands.size(); ++c) {
        try {
          need[c] = cuda::workspace_bytes(req, cands[c]);
          most = std::max(most, need[c]);
        } catch (const error& e) {
          skip[c] = e.what();
        }
      }
      dev_mem work(most);

      const std::size_t first_row = rep.rows.size();
      std::vector<cuda::variant> row_variant;  // of rows first_row.. (the text need not parse back)
      for (std::size_t c = 0; c < cands.size(); ++c) {
        const cuda::variant& v = cands[c];
        const std::string vname = cuda::to_string(v);
        const std::string head = fmt("%-14s n=%-10llu %-28s", wname.c_str(), (unsigned long long)n, vname.c_str());
        if (!skip[c].empty()) {
          say(head + " skipped: " + skip[c]);
          continue;
        }
        auto run = [&] { cuda::sort(req, v, work.p, need[c], s); };
        calibration_row row{wname, n, vname, std::numeric_limits<double>::quiet_NaN(), false};
        try {
          in->restore(s);
          run();
          const std::string wrong = in->verify(s);
          if (!wrong.empty()) {
            any_wrong = true;
            say(head + " !!! WRONG RESULT (" + wrong + "): FAILED, never chosen");
            rep.rows.push_back(row);
            row_variant.push_back(v);
            continue;
          }
          row.ms = median(time_runs(*in, s, o.repeats, run));
        } catch (const engine_unavailable& e) {
          say(head + " skipped: " + e.what());
          continue;
        } catch (const invalid_argument& e) {
          say(head + " skipped: " + e.what());
          continue;
        } catch (const device_error& e) {
          any_wrong = true;
          say(head + " !!! DEVICE ERROR: FAILED, never chosen: " + e.what());
          rep.rows.push_back(row);
          row_variant.push_back(v);
          if (!context_alive())
            throw device_error("radix: calibrate: " + vname + " on " + wname + " left the GPU unusable: " + e.what());
          continue;
        }
        say(head + fmt(" %9.3f ms", row.ms));
        rep.rows.push_back(row);
        row_variant.push_back(v);
      }

      // The fastest verified candidate of this (workload, n).
      calibration_row* best = nullptr;
      cuda::variant bv;
      for (std::size_t i = first_row; i < rep.rows.size(); ++i)
        if (std::isfinite(rep.rows[i].ms) && (!best || rep.rows[i].ms < best->ms)) {
          best = &rep.rows[i];
          bv = row_variant[i - first_row];
        }
      if (!best) {
        say(fmt("%-14s n=%-10llu !!! no candidate ran correctly: nothing recorded", wname.c_str(),
                (unsigned long long)n));
        continue;
      }
      best->best = true;
      bests.push_back({ws, n, bv, best->ms});
      entries.push_back({id->name, id->driver, wl, n, best->variant, best->ms});
      say(fmt("%-14s n=%-10llu best: %s (%.3f ms)", wname.c_str(), (unsigned long long)n, best->variant.c_str(),
              best->ms));
    }
  }

  if (o.write_cache && !entries.empty()) {
    write_tuning_cache(path, id->name, id->driver, entries);
    rep.cache_path = path;
    say("wrote " + path);
    // The automatic choice below (and later sorts of this process) read what was just written.
    reload_tuning_cache(path);
  } else {
    reload_tuning_cache();
  }
  if (const char* forced = core::env::get("RADIX_CUDA_ALGORITHM"); forced && *forced)
    say(std::string("note: RADIX_CUDA_ALGORITHM=") + forced + " overrides the automatic choice below");

  // Re-measure the automatic choice against the best, interleaved so that
  // drifting clocks hit both alike.
  for (const best_of& b : bests) {
    const std::string wname = workload_name({b.w.key_bytes, b.w.pairs ? 4 : 0});
    const std::string head = fmt("%-14s n=%-10llu", wname.c_str(), (unsigned long long)b.n);
    try {
      auto in = make_input(b.w, b.n);
      const sort_request req = in->request();
      sort_request autoreq = req;
      autoreq.opts.algo = algorithm::automatic;
      const std::string chosen = cuda::to_string(cuda::choose(autoreq));
      const std::size_t auto_ws = cuda::workspace_bytes(autoreq), best_ws = cuda::workspace_bytes(req, b.v);
      dev_mem work(std::max(auto_ws, best_ws));
      auto run_auto = [&] { cuda::sort(autoreq, work.p, auto_ws, s); };
      auto run_best = [&] { cuda::sort(req, b.v, work.p, best_ws, s); };
      in->restore(s);
      run_auto();
      if (const std::string wrong = in->verify(s); !wrong.empty()) {
        any_wrong = true;
        say(head + " !!! automatic (" + chosen + ") gave a WRONG RESULT: " + wrong);
        continue;
      }
      in->restore(s);
      run_best();
      RADIX_CUDA_CHECK(cudaStreamSynchronize(s));
      std::vector<double> ta, tb;
      for (int r = 0; r < o.repeats; ++r) {
        ta.push_back(time_runs(*in, s, 1, run_auto)[0]);
        tb.push_back(time_runs(*in, s, 1, run_best)[0]);
      }
      const double ma = median(ta), mb = median(tb);
      const double ratio = mb > 0 ? ma / mb : 1.0;
      rep.automatic_vs_best.emplace_back(
          wname + ", n=" + std::to_string(b.n) + ": automatic ran " + chosen + ", best " + cuda::to_string(b.v),
          ratio);
      say(head + fmt(" automatic (%s) %.3f ms vs best (%s) %.3f ms: %.2fx", chosen.c_str(), ma,
                     cuda::to_string(b.v).c_str(), mb, ratio));
    } catch (const error& e) {
      any_wrong = true;
      say(head + " !!! automatic choice failed: " + e.what());
      if (!context_alive()) throw;
    }
  }
  if (any_wrong) say("!!! some candidates FAILED (see the lines marked !!!); they were never chosen");
  rep.seconds = std::chrono::duration<double>(clock::now() - t0).count();
  return rep;
}

}  // namespace radix
