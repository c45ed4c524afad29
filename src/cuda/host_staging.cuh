// Moving host data to and from the device for the engine behind the host API:
// pinned staging buffers, pinning a range in place, and device memory that
// frees itself (stream-ordered).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <mutex>
#include <string>

#include "common/common.cuh"
#include "radix/core/environment.hpp"
#include "radix/error.hpp"

namespace radix::cuda_detail {

/// Copies between pageable host memory and the device through two pinned
/// chunks, so that host copies overlap the transfers.
class stager {
 public:
  static constexpr std::size_t chunk = std::size_t(8) << 20;
  ~stager() {
    for (int i = 0; i < 2; ++i) {
      if (ev_[i]) cudaEventDestroy(ev_[i]);
      if (buf_[i]) cudaFreeHost(buf_[i]);
    }
  }
  void ensure() {
    for (int i = 0; i < 2; ++i) {
      if (!buf_[i]) RADIX_CUDA_CHECK(cudaMallocHost(&buf_[i], chunk));
      if (!ev_[i]) RADIX_CUDA_CHECK(cudaEventCreateWithFlags(&ev_[i], cudaEventDisableTiming));
    }
  }
  void to_device(void* d, const void* h, std::size_t bytes, cudaStream_t s) {
    ensure();
    auto* dst = static_cast<unsigned char*>(d);
    auto* src = static_cast<const unsigned char*>(h);
    int b = 0;
    for (std::size_t off = 0; off < bytes; off += chunk, b ^= 1) {
      const std::size_t len = std::min(chunk, bytes - off);
      RADIX_CUDA_CHECK(cudaEventSynchronize(ev_[b]));  // the chunk's previous copy is done
      std::memcpy(buf_[b], src + off, len);
      RADIX_CUDA_CHECK(cudaMemcpyAsync(dst + off, buf_[b], len, cudaMemcpyHostToDevice, s));
      RADIX_CUDA_CHECK(cudaEventRecord(ev_[b], s));
    }
  }
  void to_host(void* h, const void* d, std::size_t bytes, cudaStream_t s) {
    ensure();
    auto* dst = static_cast<unsigned char*>(h);
    auto* src = static_cast<const unsigned char*>(d);
    const std::size_t chunks = (bytes + chunk - 1) / chunk;
    auto issue = [&](std::size_t c) {
      const std::size_t off = c * chunk, len = std::min(chunk, bytes - off);
      RADIX_CUDA_CHECK(cudaMemcpyAsync(buf_[c & 1], src + off, len, cudaMemcpyDeviceToHost, s));
      RADIX_CUDA_CHECK(cudaEventRecord(ev_[c & 1], s));
    };
    if (chunks) issue(0);
    for (std::size_t c = 0; c < chunks; ++c) {
      RADIX_CUDA_CHECK(cudaEventSynchronize(ev_[c & 1]));
      if (c + 1 < chunks) issue(c + 1);
      const std::size_t off = c * chunk, len = std::min(chunk, bytes - off);
      std::memcpy(dst + off, buf_[c & 1], len);
    }
  }

 private:
  void* buf_[2] = {nullptr, nullptr};
  cudaEvent_t ev_[2] = {nullptr, nullptr};
};

/// Pins a large host range for the duration of a sort (cudaHostRegister), so
/// that it moves by DMA at the link's speed instead of through the staging
/// buffers' extra memcpy. Where pinning fails (memory the driver will not
/// lock), pinned() is false and the stager is used. Already-pinned memory is
/// used as it is and left registered. One pin of ours at a time in the
/// process (sorts on several GPUs at once): two ranges sharing a page would
/// otherwise see each other's registration and lose it when the first ends;
/// the others stage.
class host_pin {
 public:
  static constexpr std::size_t min_bytes = std::size_t(64) << 20;
  host_pin(const void* p, std::size_t bytes, cudaStream_t s) : s_(s) {
    if (bytes < min_bytes || core::env::get("RADIX_CUDA_NO_PIN")) return;
    only_one_ = std::unique_lock<std::mutex>(pin_mutex(), std::try_to_lock);
    if (!only_one_.owns_lock()) return;
    void* q = const_cast<void*>(p);
    const cudaError_t e = cudaHostRegister(q, bytes, cudaHostRegisterDefault);
    if (e == cudaSuccess) {
      p_ = q;
      pinned_ = true;
    } else {
      (void)cudaGetLastError();  // not sticky: clear it and stage instead
      pinned_ = e == cudaErrorHostMemoryAlreadyRegistered;
    }
  }
  ~host_pin() {
    if (!p_) return;
    cudaStreamSynchronize(s_);  // copies from this range may still be in flight after an error
    cudaHostUnregister(p_);
  }
  host_pin(const host_pin&) = delete;
  host_pin& operator=(const host_pin&) = delete;
  bool pinned() const { return pinned_; }

 private:
  static std::mutex& pin_mutex() {
    static std::mutex m;
    return m;
  }
  void* p_ = nullptr;
  cudaStream_t s_;
  bool pinned_ = false;
  std::unique_lock<std::mutex> only_one_;  // released after the unregistration (members die after the body)
};

/// The pool the library's own device allocations come from on the current
/// device (a sort called without a workspace, the host API's buffers), or
/// nullptr where RADIX_CUDA_SCRATCH_CACHE is 0 (the device's default pool
/// then). It keeps up to RADIX_CUDA_SCRATCH_CACHE bytes of what was freed
/// across synchronisations: the default pool gives everything back at each
/// one, and the next call maps it anew, milliseconds a gigabyte
/// (device_sort.cu; radix::cuda::release_scratch_cache empties it).
cudaMemPool_t scratch_pool();

/// Device memory that frees itself (stream-ordered, from scratch_pool()).
struct device_buffer {
  void* p = nullptr;
  cudaStream_t s = nullptr;
  device_buffer(std::size_t bytes, cudaStream_t stream) : s(stream) {
    if (!bytes) return;
    const cudaMemPool_t pool = scratch_pool();
    const cudaError_t e = pool ? cudaMallocFromPoolAsync(&p, bytes, pool, s) : cudaMallocAsync(&p, bytes, s);
    if (e == cudaErrorMemoryAllocation) {
      (void)cudaGetLastError();
      throw out_of_memory("radix: cannot allocate " + std::to_string(bytes) + " bytes of device memory");
    }
    if (e != cudaSuccess) throw_cuda(e, pool ? "cudaMallocFromPoolAsync" : "cudaMallocAsync", __FILE__, __LINE__);
  }
  ~device_buffer() {
    if (p) cudaFreeAsync(p, s);
  }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
};

}  // namespace radix::cuda_detail
