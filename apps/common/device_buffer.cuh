// The applications' CUDA resources, each freed by its destructor: device
// memory (allocation checked with CU()), a stream, a set of timing events.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cuda_check.cuh"

namespace apps {

/// n elements of T in device memory (at least 16 bytes, so that no two
/// buffers share an address); reset() frees and allocates anew.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::uint64_t n) { reset(n); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  ~device_buffer() {
    if (p_) cudaFree(p_);
  }
  void reset(std::uint64_t n) {
    if (p_) CU(cudaFree(p_));
    p_ = nullptr;
    n_ = n;
    if (n) CU(cudaMalloc(&p_, std::max<std::uint64_t>(n * sizeof(T), 16)));
  }
  T* get() const { return p_; }
  std::uint64_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::uint64_t n_ = 0;
};

/// A copy of b on the host, made on stream s (waits for it).
template <class T>
std::vector<T> to_host(const device_buffer<T>& b, cudaStream_t s) {
  std::vector<T> h(b.size());
  if (b.size()) CU(cudaMemcpyAsync(h.data(), b.get(), b.size() * sizeof(T), cudaMemcpyDeviceToHost, s));
  CU(cudaStreamSynchronize(s));
  return h;
}

/// A non-blocking stream; waited for before it is destroyed.
class cuda_stream {
 public:
  cuda_stream() { CU(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;
  ~cuda_stream() {
    if (s_) {
      cudaStreamSynchronize(s_);
      cudaStreamDestroy(s_);
    }
  }
  operator cudaStream_t() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

/// n events for timing on a stream.
class cuda_events {
 public:
  explicit cuda_events(std::size_t n) : e_(n, nullptr) {
    for (auto& e : e_) CU(cudaEventCreate(&e));
  }
  cuda_events(const cuda_events&) = delete;
  cuda_events& operator=(const cuda_events&) = delete;
  ~cuda_events() {
    for (auto& e : e_)
      if (e) cudaEventDestroy(e);
  }
  cudaEvent_t operator[](std::size_t k) const { return e_[k]; }
  void record(std::size_t k, cudaStream_t s) const { CU(cudaEventRecord(e_[k], s)); }
  /// Milliseconds from event a to event b (both complete).
  float elapsed(std::size_t a, std::size_t b) const {
    float m = 0;
    CU(cudaEventElapsedTime(&m, e_[a], e_[b]));
    return m;
  }

 private:
  std::vector<cudaEvent_t> e_;
};

}  // namespace apps
