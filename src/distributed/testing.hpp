// Test hooks of the distributed sort (not a public API).
#pragma once
#include <atomic>
#include <cstdint>

namespace radix::nccl_detail {

/// Partition-first sorts (counted per rank) whose boundary buckets were
/// sorted, and cuts found, on the control stream beside the first steps,
/// since the process started; the tests check that the route they aim at ran.
std::atomic<std::uint64_t>& overlapped_cut_searches();

}  // namespace radix::nccl_detail
