// What the CUDA benchmarks share (bench_cuda.cu, bench_algorithms.cu,
// bench_records.cu, bench_matrix.cu): a runtime-call check that throws, the
// inputs' hash, the byte-wise comparison of two device arrays, CUDA-event
// timing, and the device and date for a report's header.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <stdexcept>
#include <string>

namespace bench {

/// A failed runtime call: thrown, so that the rows measured so far still get printed.
struct cuda_failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

}  // namespace bench

#define BCU(call)                                                                                   \
  do {                                                                                              \
    cudaError_t e_ = (call);                                                                        \
    if (e_ != cudaSuccess)                                                                          \
      throw bench::cuda_failure(std::string(#call) + ": " + cudaGetErrorName(e_) + " (" + __FILE__ + \
                                ":" + std::to_string(__LINE__) + ")");                              \
  } while (0)

namespace bench {

/// After an exception: true when the CUDA context is still usable.
inline bool context_alive() {
  cudaGetLastError();
  const cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::fprintf(stderr, "  the CUDA context is lost (%s): no further measurements\n", cudaGetErrorName(e));
    return false;
  }
  cudaGetLastError();
  return true;
}

/// splitmix64's finalizer: the benchmarks draw their inputs as mix(i * 0x9E3779B97F4A7C15 + seed).
__host__ __device__ inline std::uint64_t mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// *diff += the elements where a and b differ in any byte; where `first` is
/// given, *first = min(*first, the index of the first such element).
template <class T>
__global__ void count_diff(const T* a, const T* b, std::uint64_t n, unsigned long long* diff,
                           unsigned long long* first) {
  unsigned long long d = 0, f = ~0ull;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    const unsigned char* x = reinterpret_cast<const unsigned char*>(a + i);
    const unsigned char* y = reinterpret_cast<const unsigned char*>(b + i);
    bool same = true;
    for (unsigned k = 0; k < sizeof(T); ++k) same &= x[k] == y[k];
    if (!same) {
      ++d;
      if (f == ~0ull) f = i;
    }
  }
  if (d) atomicAdd(diff, d);
  if (first && f != ~0ull) atomicMin(first, f);
}

/// Two CUDA events: ms(s, f) is the time of the work f() enqueues on stream s
/// (it waits for that work).
class event_pair {
 public:
  event_pair() {
    BCU(cudaEventCreate(&a_));
    BCU(cudaEventCreate(&b_));
  }
  event_pair(const event_pair&) = delete;
  event_pair& operator=(const event_pair&) = delete;
  ~event_pair() {
    cudaEventDestroy(a_);
    cudaEventDestroy(b_);
  }
  template <class F>
  float ms(cudaStream_t s, F&& f) {
    BCU(cudaEventRecord(a_, s));
    f();
    BCU(cudaEventRecord(b_, s));
    BCU(cudaEventSynchronize(b_));
    BCU(cudaGetLastError());
    float t = 0;
    BCU(cudaEventElapsedTime(&t, a_, b_));
    return t;
  }

 private:
  cudaEvent_t a_{}, b_{};
};

/// The device a benchmark runs on (device 0) and the CUDA versions.
struct device_info {
  cudaDeviceProp prop{};
  int driver = 0, runtime = 0;  ///< 1000 * major + 10 * minor
  static std::string version(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }
  /// "driver API 13.0, runtime 13.0"
  std::string versions() const { return "driver API " + version(driver) + ", runtime " + version(runtime); }
};

/// Fills d; false, after printing "SKIPPED: no CUDA device visible", when
/// there is no device (the benchmark then exits with 77).
inline bool probe_device(device_info& d) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("SKIPPED: no CUDA device visible\n");
    return false;
  }
  BCU(cudaGetDeviceProperties(&d.prop, 0));
  BCU(cudaDriverGetVersion(&d.driver));
  BCU(cudaRuntimeGetVersion(&d.runtime));
  return true;
}

/// probe_device, then a non-blocking stream: 0, or the status the benchmark
/// exits with (77: no device; 2: a failed call, printed).
inline int start_device(device_info& d, cudaStream_t& s) {
  try {
    if (!probe_device(d)) return 77;
    BCU(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return 0;
}

/// Now, as "YYYY-MM-DD HH:MM UTC".
inline std::string utc_now() {
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
  return date;
}

}  // namespace bench
