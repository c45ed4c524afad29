// radix — a reusable sorter that keeps its scratch memory between calls
// (ips4o's front door: free functions shaped like std::sort, plus an object
// for repeated sorts), or works inside a workspace the caller owns.
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "radix/sort.hpp"

namespace radix {

class sorter {
 public:
  /// Owns its scratch; it grows to the largest sort seen and is kept.
  explicit sorter(const options& o = {}) : opts_(o) {}
  /// Uses the caller's workspace and never allocates; a sort that needs more
  /// than workspace.size() bytes (see radix::workspace_bytes) throws
  /// radix::out_of_memory before touching the data.
  sorter(std::span<std::byte> workspace, const options& o = {}) : opts_(o), user_(workspace), borrowed_(true) {}

  const options& opts() const { return opts_; }
  options& opts() { return opts_; }

  template <sortable_key K>
  void sort(std::span<K> keys) { exec(detail::make_request(operation::keys, keys, opts_)); }

  template <sortable_key K, class V>
    requires std::is_trivially_copyable_v<V>
  void sort_pairs(std::span<K> keys, std::span<V> values) {
    detail::check_same_size(keys.size(), values.size(), "values");
    auto r = detail::make_request(operation::pairs, keys, opts_);
    r.values = values.data();
    r.value_bytes = sizeof(V);
    exec(r);
  }

  template <sortable_key K, class I>
    requires detail::index_type<I>
  void argsort(std::span<const K> keys, std::span<I> indices) {
    detail::check_same_size(keys.size(), indices.size(), "indices");
    auto r = detail::make_request(operation::argsort, keys, opts_);
    r.indices = indices.data();
    r.index_bytes = sizeof(I);
    exec(r);
  }

  /// Bytes of scratch currently held (owned or borrowed).
  std::size_t scratch_bytes() const { return borrowed_ ? user_.size() : own_.size(); }

 private:
  void exec(const sort_request& r) {
    if (borrowed_) {
      // An empty borrowed workspace must not turn into "allocate": check here.
      const std::size_t need = workspace_bytes(r);
      if (user_.size() < need)
        throw out_of_memory("radix: workspace of " + std::to_string(user_.size()) + " bytes is too small; need " +
                            std::to_string(need));
      return run(r, user_);
    }
    const std::size_t need = workspace_bytes(r);
    if (own_.size() < need) own_ = detail::scratch(need);
    run(r, own_.span());
  }

  options opts_;
  detail::scratch own_;
  std::span<std::byte> user_;
  bool borrowed_ = false;
};

}  // namespace radix
