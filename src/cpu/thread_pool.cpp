#include "thread_pool.hpp"

#include <algorithm>

namespace radix::cpu {

thread_pool& thread_pool::instance() {
  static thread_pool pool(std::max(1u, std::thread::hardware_concurrency()) - 1);
  return pool;
}

thread_pool::thread_pool(unsigned workers) {
  workers_.reserve(workers);
  for (unsigned i = 0; i < workers; ++i) workers_.emplace_back([this, i] { worker(i + 1); });
}

thread_pool::~thread_pool() {
  {
    std::lock_guard lk(m_);
    stop_ = true;
  }
  wake_.notify_all();
  for (auto& w : workers_) w.join();
}

void thread_pool::worker(unsigned id) {
  std::uint64_t seen = 0;
  for (;;) {
    const std::function<void(unsigned)>* job;
    {
      std::unique_lock lk(m_);
      wake_.wait(lk, [&] { return stop_ || generation_ != seen; });
      if (stop_) return;
      seen = generation_;
      if (id >= job_threads_) continue;
      job = job_;
    }
    std::exception_ptr err;
    try {
      for (unsigned tid = id; tid < job_tasks_; tid += job_threads_) (*job)(tid);
    } catch (...) {
      err = std::current_exception();
    }
    std::lock_guard lk(m_);
    // The worker lets go of its exception under the lock, before the caller can
    // see pending_ == 0: the caller is then the last owner of what it rethrows
    // (no other thread frees that exception while the caller's handler reads it).
    if (err && !error_) error_ = std::move(err);
    err = nullptr;
    if (--pending_ == 0) done_.notify_one();
  }
}

void thread_pool::run(unsigned t, const std::function<void(unsigned)>& fn) {
  if (t == 0) return;
  std::unique_lock owner(busy_, std::try_to_lock);
  if (t == 1 || !owner.owns_lock() || workers_.empty()) {
    for (unsigned i = 0; i < t; ++i) fn(i);
    return;
  }
  const unsigned tasks = t;
  t = std::min(t, size());  // participant i runs tasks i, i + t, i + 2t, ...
  {
    std::lock_guard lk(m_);
    job_ = &fn;
    job_threads_ = t;
    job_tasks_ = tasks;
    pending_ = t - 1;
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  std::exception_ptr err;
  try {
    for (unsigned tid = 0; tid < tasks; tid += t) fn(tid);
  } catch (...) {
    err = std::current_exception();
  }
  std::unique_lock lk(m_);
  done_.wait(lk, [&] { return pending_ == 0; });
  // Taken, not copied: the pool keeps no exception alive after run() returns.
  std::exception_ptr worker_err = std::move(error_);
  error_ = nullptr;
  job_ = nullptr;
  lk.unlock();
  if (!err) err = std::move(worker_err);
  if (err) std::rethrow_exception(err);
}

unsigned threads_for(std::uint64_t n, unsigned requested, std::uint64_t min_per_thread) {
  unsigned t = requested ? requested : thread_pool::instance().size();
  const std::uint64_t by_size = std::max<std::uint64_t>(1, n / std::max<std::uint64_t>(1, min_per_thread));
  return unsigned(std::min<std::uint64_t>(t, by_size));
}

}  // namespace radix::cpu
