// radix — sorting user-defined key types through a decomposer: a callable
// that returns a std::tuple of references or values of arithmetic members,
// most significant first (the same idea as CUB's decomposers).
//
//   struct particle { int cell; float depth; ... };
//   radix::sort(std::span(ps), [](const particle& p) { return std::tuple(p.cell, p.depth); });
//
// Implemented on the public API: an LSD sort over the members, least
// significant member first, each a stable argsort, then one gather.
#pragma once
#include <tuple>
#include <utility>

#include "radix/sort.hpp"

namespace radix {

template <class D, class T>
concept decomposer_for = requires(D d, const T& t) { std::tuple_size<std::remove_cvref_t<decltype(d(t))>>::value; };

namespace detail {
template <class T, class D, class I, std::size_t M>
void refine_by_member(std::span<const T> items, D& dec, std::vector<I>& perm, const options& o) {
  using Tuple = std::remove_cvref_t<std::invoke_result_t<D&, const T&>>;
  using K = std::remove_cvref_t<std::tuple_element_t<M, Tuple>>;
  static_assert(sortable_key<K>, "every member a decomposer returns must be a sortable key type");
  const std::size_t n = items.size();
  std::vector<K> col(n);
  for (std::size_t i = 0; i < n; ++i) col[i] = std::get<M>(dec(items[perm[i]]));
  std::vector<I> step(n);
  argsort(std::span<const K>(col), std::span<I>(step), o);
  std::vector<I> next(n);
  for (std::size_t i = 0; i < n; ++i) next[i] = perm[step[i]];
  perm.swap(next);
}

template <class T, class D, class I, std::size_t... M>
void sort_by_members(std::span<T> items, D& dec, const options& o, std::index_sequence<M...>) {
  const std::size_t n = items.size();
  std::vector<I> perm(n);
  for (std::size_t i = 0; i < n; ++i) perm[i] = I(i);
  constexpr std::size_t count = sizeof...(M);
  // Least significant member first: member count-1, ..., 0.
  (refine_by_member<T, D, I, count - 1 - M>(std::span<const T>(items), dec, perm, o), ...);
  permute(items.data(), sizeof(T), n, perm.data(), sizeof(I), o.threads);
}
}  // namespace detail

/// Sorts values of a user type by the tuple `dec` returns, stably. A bit range
/// in the options is rejected (it has no single meaning across members).
template <class T, class D>
  requires(!sortable_key<T>) && decomposer_for<D, T> && std::is_trivially_copyable_v<T>
void sort(std::span<T> items, D dec, const options& o = {}) {
  if (o.begin_bit != 0 || o.end_bit != -1)
    throw invalid_argument("a bit range cannot be combined with a decomposer");
  using Tuple = std::remove_cvref_t<std::invoke_result_t<D&, const T&>>;
  constexpr auto m = std::make_index_sequence<std::tuple_size_v<Tuple>>{};
  if (items.size() <= 0xFFFFFFFFull)
    detail::sort_by_members<T, D, std::uint32_t>(items, dec, o, m);
  else
    detail::sort_by_members<T, D, std::uint64_t>(items, dec, o, m);
}

}  // namespace radix
