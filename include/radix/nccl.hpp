// radix — one sort over several GPUs, through NCCL (library radix::nccl,
// built when CUDA and NCCL are found).
//
// WHAT IT DOES: every rank of an NCCL communicator holds some keys (and
// values) on its own GPU. After the collective call, rank q holds the global
// positions [floor(q N / p), floor((q + 1) N / p)) of the stable sorted order
// of all N elements: exactly balanced, and stable across ranks (equal keys
// keep the order of rank, then position on the rank). Same semantics as the
// single-GPU sort (radix/cuda.hpp): float orders, descending, bit ranges.
//
// HOW (src/distributed/NOTES.md), in one of two orders, the same on all ranks:
// - sort first: each rank sorts its keys with the CUDA engine;
//   a key-space bisection over all-reduced counts finds where the shares
//   begin on every rank (a few rounds of tiny collectives); grouped
//   ncclSend/ncclRecv move the sorted runs; each rank merges the runs it
//   received.
// - partition first (4- and 8-byte keys, alone or with 4- or 8-byte
//   values): each rank orders its keys by their top 8 bits (one pass of the
//   CUDA engine); the same bisection finds the cuts; the buckets travel to their share a group at a time and each share
//   sorts every group by its lower bits as it arrives, on four streams
//   (RADIX_NCCL_SORT_STREAMS, 1 to 8, for measurements), so
//   that the link and the sorting overlap. The groups travel by ncclSend /
//   ncclRecv, or, for the ranks of a gpu_group, by copies between the
//   devices (the copy engines). Six receive slots (sort streams + 2) of capacity / 32 elements
//   come besides (from the communicator's pool, below); where one bucket outgrows a
//   slot (skewed keys), or the slots cannot be had, the ranks finish by sort
//   first's exchange and merge. placement::partition_first says which ran.
//   The library takes it by itself for 4 GiB or more of keys and values a
//   rank, with the copy engines (measured: bench/results, nccl-h200x2-*).
// RADIX_NCCL_ORDER=sort_first or partition_first overrides the choice.
//
// THE CALLER'S BUFFERS: keys (and values) plus alternates of the same kind,
// each with room for `capacity` elements: at least the rank's own n and its
// share, ceil(N / p) (capacity_for). The sort uses both; placement::selector
// says which holds the result (0: the request's buffers, 1: the alternates),
// as with radix::cuda's double buffers. Besides, it allocates the single-GPU
// sort's workspace (a few MiB of control state a sort stream) and partition
// first's receive slots stream-ordered from a memory pool of the
// communicator's, which keeps what a sort freed for the next one (mapping
// fresh memory at every call cost 10-20 % of the sort) until release(); the
// merge's partition points stream-ordered (cudaMallocAsync) on `stream`; and
// a few KiB of control words per communicator (prepare).
//
// SYNCHRONIZATION: unlike the single-GPU sort, the call synchronizes the host
// with `stream` a few times (NCCL needs the exchange's sizes on the host). It
// returns with the last steps still enqueued: the result, and the end of the
// sort's use of all four buffers (peers may still read this rank's input),
// are ordered on `stream`; synchronize it, or order later work on it, before
// reading, reusing or freeing them. Every rank must make the call, with
// the same key type, operation and options (checked: all ranks throw
// radix::invalid_argument together otherwise). One host thread per rank
// (gpu_group::each), or one process per rank.
//
// ONE PROCESS, SEVERAL GPUS (gpu_group): NCCL kernels wait for their peers,
// and two CUDA habits then deadlock the ranks:
//  - CUDA's lazy kernel loading (the default) loads a kernel at its first
//    launch and waits for every GPU of the process to go idle meanwhile; a
//    rank's first sort would wait for a peer's NCCL kernel that waits for it.
//    Set CUDA_MODULE_LOADING=EAGER in the environment before CUDA starts.
//  - cudaMalloc and cudaFree also wait for every GPU that NCCL mapped as a
//    peer: allocate every rank's buffers before the ranks call sort, free
//    them after all have returned. Inside a sort the library allocates only
//    stream-ordered (from the communicator's pool, made by prepare()), which
//    does not wait; its control
//    words, which NCCL's peers must reach, are cudaMalloc'd once per
//    communicator by prepare() (gpu_group does it for its ranks).
//  - NCCL reads and writes a peer's buffers directly in one process: the
//    keys and values must be memory the peers can reach (cudaMalloc,
//    ncclMemAlloc), not the stream-ordered pool's (cudaMallocAsync).
// One process per GPU (MPI, torchrun) has none of these problems.

// Operations: keys and pairs (values of 1, 2, 4, 8 or 16 bytes, aligned);
// keys of 1, 2, 4 or 8 bytes. Argsort and segmented requests are not
// distributed: pass global indices as values instead.
#pragma once
#include <nccl.h>

#include <cstdint>
#include <functional>
#include <vector>

#include "radix/cuda.hpp"

namespace radix::nccl {

/// Where this rank's part of the global order is, after the sort.
struct placement {
  int selector = 0;         ///< 0: in the request's keys / values; 1: in the alternates
  std::uint64_t n = 0;      ///< elements this rank holds now (its share)
  std::uint64_t offset = 0; ///< global position of the first of them
  std::uint64_t total = 0;  ///< elements over all ranks
  /// Which exchange ran (the same on every rank): the buckets of the top
  /// digit sent as they are and sorted on arrival, or sorted runs sent and
  /// merged (see above).
  bool partition_first = false;
};

/// Elements of room each rank's buffers need for `total` elements over
/// `ranks` ranks, besides the rank's own n: the largest share.
inline std::uint64_t share_capacity(std::uint64_t total, int ranks) {
  return ranks <= 0 ? total : (total + std::uint64_t(ranks) - 1) / std::uint64_t(ranks);
}

/// Allocates the communicator's control memory (a few KiB to a few hundred,
/// with cudaMalloc) and makes its memory pool on the current device, which
/// must be the rank's. A sort does it on first use; in one process driving
/// several GPUs, call it for every rank before any rank sorts (see above).
/// release() frees both, the scratch the pool kept included: call it before
/// ncclCommDestroy, or whenever that memory is wanted back; the next sort
/// makes them again (in one process driving several GPUs, call prepare() for
/// every rank again first: its cudaMalloc waits for the peers). gpu_group
/// does both for its ranks. In a process per GPU too, prepare() up front
/// means a failure to allocate throws here, not in a sort whose peers would
/// then wait for this rank in NCCL.
void prepare(ncclComm_t comm);
void release(ncclComm_t comm);

/// Collective. req: this rank's keys (and values), n of them, in device
/// memory of the current device; alt: the alternates; all four buffers have
/// room for `capacity` elements (at least max(n, share_capacity(N, p))).
placement sort(const sort_request& req, const cuda::alternates& alt, std::uint64_t capacity, ncclComm_t comm,
               cudaStream_t stream);

template <cuda::device_sortable K>
placement sort_keys(cuda::double_buffer<K>& keys, std::uint64_t n, std::uint64_t capacity, ncclComm_t comm,
                    cudaStream_t stream = 0, const options& o = {}) {
  const placement p = ::radix::nccl::sort(cuda::detail::request(operation::keys, keys.current(), n, o),
                                          cuda::alternates{keys.alternate(), nullptr}, capacity, comm, stream);
  keys.selector ^= p.selector;
  return p;
}

template <cuda::device_sortable K, class V>
  requires std::is_trivially_copyable_v<V>
placement sort_pairs(cuda::double_buffer<K>& keys, cuda::double_buffer<V>& values, std::uint64_t n,
                     std::uint64_t capacity, ncclComm_t comm, cudaStream_t stream = 0, const options& o = {}) {
  const placement p =
      ::radix::nccl::sort(cuda::detail::pairs_request(keys.current(), values.current(), n, o),
                          cuda::alternates{keys.alternate(), values.alternate()}, capacity, comm, stream);
  keys.selector ^= p.selector;
  values.selector ^= p.selector;
  return p;
}

/// One communicator per GPU of this process (ncclCommInitAll), rank r on
/// device r of the list.
class gpu_group {
 public:
  /// The first `gpus` visible devices (0: all of them). Throws
  /// engine_unavailable when there are fewer.
  explicit gpu_group(int gpus = 0);
  ~gpu_group();
  gpu_group(const gpu_group&) = delete;
  gpu_group& operator=(const gpu_group&) = delete;

  int size() const { return int(devices_.size()); }
  int device(int rank) const { return devices_[rank]; }
  ncclComm_t comm(int rank) const { return comms_[rank]; }

  /// Runs f(rank) on one host thread per rank, that rank's device current;
  /// waits for all, then rethrows the first exception any of them threw.
  /// When a rank throws, the others may be waiting in NCCL for it: the
  /// group then aborts its communicators (ncclCommAbort), so that their
  /// calls return, and cannot be used again.
  void each(const std::function<void(int rank)>& f) const;
  /// As each(), for work with no collective in it (allocations, copies): a
  /// rank that throws leaves the group usable.
  void each_local(const std::function<void(int rank)>& f) const;
  /// Whether a failed rank made the group abort its communicators.
  bool aborted() const { return aborted_; }

 private:
  void run_ranks(const std::function<void(int rank)>& f, bool abort_on_failure) const;
  std::vector<int> devices_;
  std::vector<ncclComm_t> comms_;
  mutable bool aborted_ = false;
};

/// Sorts n keys (and values) that live in host memory over the group's GPUs,
/// the result in the same host buffers: each GPU takes a contiguous part,
/// the parts are sorted together as above, and each GPU copies its share
/// back. Pinned host memory (cudaMallocHost, cudaHostRegister) makes the
/// copies several times faster. Each GPU needs room for two shares of keys
/// (and values). Data larger than that is sorted in chunks that fit, one
/// after the other, and the sorted chunks are then merged on the host
/// (stable, on all cores), which takes n x (key + value) bytes of host
/// memory more. RADIX_NCCL_HOST_CHUNK (elements) caps a chunk (tests).
void sort_host(const gpu_group& group, const sort_request& req);

}  // namespace radix::nccl
