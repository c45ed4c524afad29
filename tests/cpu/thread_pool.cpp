// The CPU engine's fork-join pool (src/cpu/thread_pool.hpp): every tid runs exactly
// once (also t > pool size), exceptions propagate, nested and concurrent run() work.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "cpu/thread_pool.hpp"

namespace {

using radix::cpu::thread_pool;

/// Runs t tasks and returns how often each tid ran.
std::vector<int> run_counts(thread_pool& pool, unsigned t) {
  std::vector<std::atomic<int>> c(t + 1);
  pool.run(t, [&](unsigned tid) {
    if (tid < c.size()) c[tid].fetch_add(1);
    else c.back().fetch_add(1000);  // out of range: shows up as a count of 1000+
  });
  std::vector<int> r;
  for (auto& x : c) r.push_back(x.load());
  return r;
}

void every_tid_once(thread_pool& pool) {
  for (unsigned t : {1u, 2u, 3u, pool.size(), pool.size() + 1, 7u, 16u, 64u, 1000u}) {
    const auto c = run_counts(pool, t);
    for (unsigned i = 0; i < t; ++i) ASSERT_EQ(c[i], 1) << "tid " << i << " of " << t;
    ASSERT_EQ(c[t], 0) << "a tid >= " << t << " ran";
  }
}

TEST(ThreadPool, EveryTidRunsExactlyOnce) { every_tid_once(thread_pool::instance()); }

TEST(ThreadPool, OwnPoolOfFourRunsTasksOnFourThreads) {
  thread_pool pool(3);
  EXPECT_EQ(pool.size(), 4u);
  every_tid_once(pool);
  // With t == size(), participant i runs task i: four distinct threads, the caller one of them.
  std::mutex m;
  std::vector<std::thread::id> ids(4);
  pool.run(4, [&](unsigned tid) {
    std::lock_guard lk(m);
    ids[tid] = std::this_thread::get_id();
  });
  EXPECT_EQ(ids[0], std::this_thread::get_id()) << "task 0 runs on the caller";
  EXPECT_EQ(std::set<std::thread::id>(ids.begin(), ids.end()).size(), 4u) << "tasks ran on fewer threads";
}

TEST(ThreadPool, PoolWithoutWorkersRunsEverythingOnTheCaller) {
  thread_pool pool(0);
  EXPECT_EQ(pool.size(), 1u);
  every_tid_once(pool);
  std::set<std::thread::id> ids;
  pool.run(5, [&](unsigned) { ids.insert(std::this_thread::get_id()); });  // serial: no lock needed
  EXPECT_EQ(ids, std::set<std::thread::id>{std::this_thread::get_id()});
}

/// "Runs fn(tid) for tid in [0, t)": zero tasks run nothing.
TEST(ThreadPool, ZeroTasksRunNothing) {
  std::atomic<int> calls{0};
  thread_pool::instance().run(0, [&](unsigned) { calls.fetch_add(1); });
  EXPECT_EQ(calls.load(), 0);
}

TEST(ThreadPool, ExceptionsPropagateAndThePoolStaysUsable) {
  for (thread_pool* pool : {&thread_pool::instance()}) {
    thread_pool own(3);
    for (thread_pool* p : {pool, &own}) {
      for (unsigned thrower : {0u, 1u, 3u, 6u}) {  // the caller's task and workers' tasks
        std::atomic<int> ran{0};
        try {
          p->run(7, [&](unsigned tid) {
            ran.fetch_add(1);
            if (tid == thrower) throw std::runtime_error("task " + std::to_string(tid) + " failed");
          });
          ADD_FAILURE() << "no exception from task " << thrower;
        } catch (const std::runtime_error& e) {
          EXPECT_EQ(std::string(e.what()), "task " + std::to_string(thrower) + " failed");
        }
        EXPECT_GE(ran.load(), 1);
        every_tid_once(*p);  // still works afterwards
      }
      // Several tasks throwing: one of their exceptions arrives.
      EXPECT_THROW(p->run(8, [](unsigned tid) {
        if (tid % 2) throw std::logic_error("odd");
      }),
                   std::logic_error);
      every_tid_once(*p);
    }
  }
}

TEST(ThreadPool, NestedRunSerialisesOnTheCallingThread) {
  for (int rep = 0; rep < 2; ++rep) {
    thread_pool own(3);
    thread_pool& pool = rep ? own : thread_pool::instance();
    constexpr unsigned outer = 6, inner = 5;
    std::vector<std::atomic<int>> c(outer * inner);
    std::atomic<int> foreign{0};
    pool.run(outer, [&](unsigned o) {
      const auto me = std::this_thread::get_id();
      pool.run(inner, [&](unsigned i) {
        if (std::this_thread::get_id() != me) foreign.fetch_add(1);
        c[o * inner + i].fetch_add(1);
      });
    });
    for (unsigned k = 0; k < outer * inner; ++k) EXPECT_EQ(c[k].load(), 1) << "outer " << k / inner << " inner " << k % inner;
    EXPECT_EQ(foreign.load(), 0) << "a nested run must serialise on the thread that called it";
  }
}

TEST(ThreadPool, ConcurrentCallersBothComplete) {
  thread_pool& pool = thread_pool::instance();
  std::atomic<long> sum_a{0}, sum_b{0};
  std::thread other([&] {
    for (int r = 0; r < 200; ++r) pool.run(9, [&](unsigned tid) { sum_b.fetch_add(tid + 1); });
  });
  for (int r = 0; r < 200; ++r) pool.run(7, [&](unsigned tid) { sum_a.fetch_add(tid + 1); });
  other.join();
  EXPECT_EQ(sum_a.load(), 200L * 28);
  EXPECT_EQ(sum_b.load(), 200L * 45);
}

TEST(ThreadPool, CreateAndDestroyRepeatedly) {
  for (int i = 0; i < 50; ++i) {
    thread_pool p(unsigned(i % 4));
    std::atomic<int> n{0};
    p.run(5, [&](unsigned) { n.fetch_add(1); });
    ASSERT_EQ(n.load(), 5);
  }
}

TEST(ThreadsFor, RequestPoolAndSizeLimits) {
  using radix::cpu::threads_for;
  const unsigned all = thread_pool::instance().size();
  EXPECT_EQ(threads_for(10, 0, 1 << 16), 1u) << "small inputs use one thread";
  EXPECT_EQ(threads_for(0, 7, 1 << 16), 1u);
  EXPECT_EQ(threads_for(1 << 17, 0, 1 << 16), std::min(2u, all));
  EXPECT_EQ(threads_for(std::uint64_t(1) << 30, 0, 1 << 16), all) << "0 = all hardware threads";
  EXPECT_EQ(threads_for(7 * 65536, 7, 1 << 16), 7u) << "an explicit request is honoured when n allows";
  EXPECT_EQ(threads_for(7 * 65536 - 1, 7, 1 << 16), 6u);
  EXPECT_EQ(threads_for(std::uint64_t(1) << 30, 3, 1 << 16), 3u);
  EXPECT_EQ(threads_for(100, 1, 1), 1u);
}

}  // namespace
