// A small fork-join thread pool for the CPU engine (no OpenMP requirement).
// run(t, fn) calls fn(0..t-1) on t threads, the caller being thread 0, and
// returns when all are done; an exception in any of them is rethrown.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace radix::cpu {

class thread_pool {
 public:
  static thread_pool& instance();
  explicit thread_pool(unsigned workers);
  ~thread_pool();
  thread_pool(const thread_pool&) = delete;
  thread_pool& operator=(const thread_pool&) = delete;

  /// Threads available, the caller included.
  unsigned size() const { return unsigned(workers_.size()) + 1; }
  /// Runs fn(tid) for tid in [0, t). If the pool is busy (another caller, or
  /// a nested call) the tasks run one after another on the calling thread.
  void run(unsigned t, const std::function<void(unsigned)>& fn);

 private:
  void worker(unsigned id);

  std::vector<std::thread> workers_;
  std::mutex busy_;  // held by the caller that owns the pool during run()
  std::mutex m_;
  std::condition_variable wake_, done_;
  const std::function<void(unsigned)>* job_ = nullptr;
  unsigned job_threads_ = 0;
  unsigned job_tasks_ = 0;
  std::uint64_t generation_ = 0;
  unsigned pending_ = 0;
  std::exception_ptr error_;
  bool stop_ = false;
};

/// Threads to use for n elements: the request (0 = all), at most the pool,
/// and no more than one per `min_per_thread` elements.
unsigned threads_for(std::uint64_t n, unsigned requested, std::uint64_t min_per_thread);

}  // namespace radix::cpu
