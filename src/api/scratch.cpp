// Scratch allocation: large, aligned to 2 MiB so that transparent huge pages
// can back it (20-25% on an LSD sort, measured on the 2-core development
// machine), not zeroed; and kept between calls in a bounded process-wide
// cache, because touching fresh pages is what a one-call sort pays most for
// on machines that hand freed memory back (virtual machines: 512 MiB took
// about a second to touch fresh, 30 ms reused).
//
// The cache holds the buffers of 2 MiB and more that scratch objects
// release, up to a byte limit (RADIX_SCRATCH_CACHE, default an eighth of
// physical memory, at most 4 GiB; 0 turns it off). A scratch takes the
// smallest cached buffer that is large enough (and not more than about twice
// so); when none is, the cache is emptied before it allocates, so a sort
// never holds more at once than without the cache. A buffer unused for two
// seconds is freed by a trimmer thread, started with the first buffer cached.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "engine/engine.hpp"
#include "radix/core/environment.hpp"
#include "scratch_cache.hpp"
#include "radix/sort.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace radix::detail {
namespace {

using clock = std::chrono::steady_clock;

constexpr std::size_t huge_page = std::size_t(2) << 20;

std::size_t capacity_for(std::size_t bytes) {
  const std::size_t align = bytes >= huge_page ? huge_page : 64;
  return (bytes + align - 1) / align * align;
}

std::byte* allocate(std::size_t bytes, std::size_t capacity) {
  const std::size_t align = capacity >= huge_page ? huge_page : 64;
  void* p = std::aligned_alloc(align, capacity);
  if (!p) throw out_of_memory("radix: could not allocate " + std::to_string(bytes) + " bytes of scratch memory");
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (align == huge_page) madvise(p, capacity, MADV_HUGEPAGE);
#endif
  return static_cast<std::byte*>(p);
}

std::size_t default_limit() {
  std::size_t phys = 0;
#if defined(__linux__)
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page > 0) phys = std::size_t(pages) * std::size_t(page);
#endif
  const std::size_t cap = std::size_t(4) << 30;
  return phys ? std::min(phys / 8, cap) : std::size_t(256) << 20;
}

class scratch_cache {
 public:
  scratch_cache() : limit_(configured_limit()) {}
  /// A cached buffer of at least `bytes` (and at most about twice that), or
  /// nullptr: then the cache is emptied first, so that a sort never holds
  /// more memory at once than it would without the cache. Buffers below a
  /// huge page bypass the cache (malloc serves them well).
  std::byte* take(std::size_t bytes, std::size_t& capacity) {
    capacity = capacity_for(bytes);
    if (capacity < huge_page) return nullptr;
    std::vector<entry> drop;
    std::byte* p = nullptr;
    {
      std::lock_guard lock(m_);
      auto best = free_.end();
      for (auto it = free_.begin(); it != free_.end(); ++it)
        if (it->capacity >= capacity && (best == free_.end() || it->capacity < best->capacity)) best = it;
      if (best != free_.end() && best->capacity <= 2 * capacity + huge_page) {
        p = best->p;
        capacity = best->capacity;
        held_ -= best->capacity;
        free_.erase(best);
      } else {
        drop.swap(free_);
        held_ = 0;
      }
    }
    for (auto& e : drop) std::free(e.p);
    return p;
  }

  /// Keeps p for later, or frees it (over the limit: the oldest go first).
  void give(std::byte* p, std::size_t capacity) {
    std::vector<std::byte*> drop;
    {
      std::lock_guard lock(m_);
      if (capacity > limit_ || capacity < huge_page) {
        drop.push_back(p);
      } else {
        free_.push_back({p, capacity, clock::now()});
        held_ += capacity;
        while (held_ > limit_) {
          drop.push_back(free_.front().p);
          held_ -= free_.front().capacity;
          free_.erase(free_.begin());
        }
        if (!trimmer_started_) {
          trimmer_started_ = true;
          std::thread([this] { trim_when_idle(); }).detach();
        }
      }
    }
    wake_.notify_all();
    for (std::byte* q : drop) std::free(q);
  }

  void release_all() {
    std::vector<entry> drop;
    {
      std::lock_guard lock(m_);
      drop.swap(free_);
      held_ = 0;
    }
    for (auto& e : drop) std::free(e.p);
  }

  std::size_t held() {
    std::lock_guard lock(m_);
    return held_;
  }
  std::size_t limit() {
    std::lock_guard lock(m_);
    return limit_;
  }
  void set_limit(std::size_t bytes, std::chrono::milliseconds idle) {
    {
      std::lock_guard lock(m_);
      limit_ = bytes;
      idle_ = idle;
    }
    wake_.notify_all();
    if (bytes == 0) release_all();
  }

 private:
  struct entry {
    std::byte* p;
    std::size_t capacity;
    clock::time_point since;  ///< when it was given back
  };

  static std::size_t configured_limit() {
    const char* v = core::env::get("RADIX_SCRATCH_CACHE");
    if (!v || !*v) return default_limit();
    return parse_scratch_cache_limit(v);
  }

  /// Frees the buffers idle for longer than idle_; sleeps until the next one
  /// would be, or until a buffer is given back or the cache is destroyed.
  void trim_when_idle() {
    std::unique_lock lock(m_);
    for (;;) {
      const auto now = clock::now();
      std::vector<std::byte*> drop;
      auto next = clock::time_point::max();
      for (auto it = free_.begin(); it != free_.end();) {
        if (now - it->since >= idle_) {
          drop.push_back(it->p);
          held_ -= it->capacity;
          it = free_.erase(it);
        } else {
          next = std::min(next, it->since + idle_);
          ++it;
        }
      }
      if (!drop.empty()) {
        lock.unlock();
        for (std::byte* q : drop) std::free(q);
        lock.lock();
        continue;
      }
      if (next == clock::time_point::max()) wake_.wait(lock);
      else wake_.wait_until(lock, next);
    }
  }

  std::mutex m_;
  std::condition_variable wake_;
  std::vector<entry> free_;
  std::size_t held_ = 0;
  std::size_t limit_;
  std::chrono::milliseconds idle_{2000};
  bool trimmer_started_ = false;
};

/// Never destroyed: scratch objects of static lifetime (a user's static
/// radix::sorter) may give their buffers back during exit, after any static
/// destructor of this file would have run. Its trimmer thread sleeps through exit.
scratch_cache& cache() {
  static scratch_cache* c = new scratch_cache;
  return *c;
}

}  // namespace

std::size_t parse_scratch_cache_limit(const char* text) {
  const std::string s(text);
  std::size_t pos = 0;
  unsigned long long v = 0;
  if (!s.empty() && s[0] >= '0' && s[0] <= '9') {  // stoull would take "-1" and " 5"
    try {
      v = std::stoull(s, &pos, 10);
    } catch (const std::exception&) {
      pos = 0;
    }
  }
  if (pos == 0)
    throw invalid_argument("radix: RADIX_SCRATCH_CACHE='" + s + "' is not a byte count (examples: 0, 512M, 2G)");
  const std::string unit = s.substr(pos);
  int shift = 0;
  if (unit == "K" || unit == "k") shift = 10;
  else if (unit == "M" || unit == "m") shift = 20;
  else if (unit == "G" || unit == "g") shift = 30;
  else if (!unit.empty())
    throw invalid_argument("radix: RADIX_SCRATCH_CACHE='" + s + "': unit '" + unit + "' is not K, M or G");
  if (shift && v > (~0ull >> shift)) throw invalid_argument("radix: RADIX_SCRATCH_CACHE='" + s + "' is too large");
  return std::size_t(v << shift);
}

scratch::scratch(std::size_t bytes) {
  if (bytes == 0) return;
  std::size_t capacity = 0;
  std::byte* p = cache().take(bytes, capacity);
  p_ = p ? p : allocate(bytes, capacity);
  n_ = bytes;
  capacity_ = capacity;
}

scratch::~scratch() {
  if (p_) cache().give(p_, capacity_);
}

void scratch_cache_configure(std::size_t limit_bytes, std::chrono::milliseconds idle) {
  cache().set_limit(limit_bytes, idle);
}
std::size_t scratch_cache_held() { return cache().held(); }
std::size_t scratch_cache_limit() { return cache().limit(); }

}  // namespace radix::detail

namespace radix {

void release_scratch_cache() {
  detail::cache().release_all();
  detail::release_cuda_scratch();  // (the host API's sorts on a GPU fill the CUDA engine's pools)
}

}  // namespace radix
