// The CPU engine: turns a type-erased request into an LSD job for the key's
// width and carves the scratch it needs out of the workspace.
#include <cstdlib>
#include <cstring>
#include <string>
#include <ostream>

#include "engine/engine.hpp"
#include "lsd.hpp"
#include "radix/core/ordered_bits.hpp"

namespace radix::cpu {

std::ostream& operator<<(std::ostream& os, const lsd_policy& p) {
  return os << "cpu.lsd{digit_bits=" << p.digit_bits << ", wide_digit_bits=" << p.wide_digit_bits
            << ", small_n=" << p.small_n << ", per_thread_min=" << p.per_thread_min
            << ", hybrid_min_bytes=" << p.hybrid_min_bytes << ", bucket_bytes=" << p.bucket_bytes
            << ", max_msd_bits=" << p.max_msd_bits << ", fine_msd_bits=" << p.fine_msd_bits
            << ", bucket_digit_bits=" << p.bucket_digit_bits
            << ", tiny_bucket=" << p.tiny_bucket << "}";
}

std::ostream& operator<<(std::ostream& os, const lsd_policy& p);

namespace {
/// RADIX_CPU_POLICY="bucket_bytes=131072,max_msd_bits=11" overrides fields,
/// for tuning experiments without a rebuild; unknown names are ignored.
lsd_policy policy_from_env() {
  lsd_policy p{};
  const char* env = std::getenv("RADIX_CPU_POLICY");
  if (!env) return p;
  std::string spec(env);
  std::size_t at = 0;
  while (at < spec.size()) {
    std::size_t comma = spec.find(',', at);
    if (comma == std::string::npos) comma = spec.size();
    const std::string item = spec.substr(at, comma - at);
    at = comma + 1;
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = item.substr(0, eq);
    const unsigned long long v = std::strtoull(item.c_str() + eq + 1, nullptr, 0);
    if (key == "digit_bits") p.digit_bits = int(v);
    else if (key == "wide_digit_bits") p.wide_digit_bits = int(v);
    else if (key == "small_n") p.small_n = v;
    else if (key == "per_thread_min") p.per_thread_min = v;
    else if (key == "hybrid_min_bytes") p.hybrid_min_bytes = v;
    else if (key == "bucket_bytes") p.bucket_bytes = v;
    else if (key == "max_msd_bits") p.max_msd_bits = int(v);
    else if (key == "fine_msd_bits") p.fine_msd_bits = std::min(int(v), 16);
    else if (key == "bucket_digit_bits") p.bucket_digit_bits = int(v);
    else if (key == "tiny_bucket") p.tiny_bucket = std::min<unsigned long long>(v, 64);
  }
  return p;
}
}  // namespace

const lsd_policy& default_policy() {
  static const lsd_policy p = policy_from_env();
  return p;
}

namespace {

constexpr std::size_t align_slack = 64 * 4;

/// Values of these sizes ride along in the scatter; others go through an index.
bool native_value(const sort_request& r) {
  const std::size_t v = r.value_bytes;
  return (v == 1 || v == 2 || v == 4 || v == 8) && reinterpret_cast<std::uintptr_t>(r.values) % v == 0;
}

std::uint8_t index_bytes_for(std::uint64_t n) { return n <= 0xFFFFFFFFull ? 4 : 8; }

/// Hands out 64-byte-aligned pieces of the workspace.
struct carver {
  std::byte* p;
  std::byte* end;
  template <class T>
  T* take(std::uint64_t count) {
    auto a = (reinterpret_cast<std::uintptr_t>(p) + 63) & ~std::uintptr_t(63);
    auto* r = reinterpret_cast<std::byte*>(a);
    p = r + count * sizeof(T);
    if (p > end) throw out_of_memory("radix: cpu workspace too small");
    return reinterpret_cast<T*>(r);
  }
};

template <class U, class V>
void run_job(lsd_job<U, V> job, carver& c) {
  job.key_scratch[0] = c.take<U>(job.n);
  if (job.keys_readonly) job.key_scratch[1] = c.take<U>(job.n);
  if (job.pay != payload::none) job.value_scratch = c.take<V>(job.n);
  lsd_sort<U, V>(job);
}

template <class U>
lsd_job<U, no_value> base_job(const sort_request& r) {
  lsd_job<U, no_value> j;
  j.n = r.n;
  j.keys = static_cast<U*>(r.keys);
  j.codec = core::make_codec<U>(r.key, r.opts.direction, r.opts.floats);
  j.begin_bit = r.opts.begin_bit;
  j.end_bit = r.opts.end_bit < 0 ? int(sizeof(U)) * 8 : r.opts.end_bit;
  j.digit_bits = r.opts.digit_bits;
  j.threads = r.opts.threads;
  return j;
}

template <class U, class V>
lsd_job<U, V> with_payload(const lsd_job<U, no_value>& b, payload p, void* values) {
  lsd_job<U, V> j;
  j.n = b.n;
  j.keys = b.keys;
  j.keys_readonly = b.keys_readonly;
  j.codec = b.codec;
  j.begin_bit = b.begin_bit;
  j.end_bit = b.end_bit;
  j.digit_bits = b.digit_bits;
  j.threads = b.threads;
  j.pay = p;
  j.values = static_cast<V*>(values);
  return j;
}

template <class U>
void run_index(const lsd_job<U, no_value>& b, void* out, std::uint8_t ib, carver& c) {
  if (ib == 4) run_job(with_payload<U, std::uint32_t>(b, payload::index, out), c);
  else run_job(with_payload<U, std::uint64_t>(b, payload::index, out), c);
}

template <class U>
void run_width(const sort_request& r, carver& c, unsigned threads) {
  auto b = base_job<U>(r);
  switch (r.op) {
    case operation::keys: return run_job(b, c);
    case operation::argsort:
      b.keys_readonly = true;
      return run_index(b, r.indices, r.index_bytes, c);
    case operation::pairs:
      if (native_value(r)) {
        switch (r.value_bytes) {
          case 1: return run_job(with_payload<U, std::uint8_t>(b, payload::values, r.values), c);
          case 2: return run_job(with_payload<U, std::uint16_t>(b, payload::values, r.values), c);
          case 4: return run_job(with_payload<U, std::uint32_t>(b, payload::values, r.values), c);
          default: return run_job(with_payload<U, std::uint64_t>(b, payload::values, r.values), c);
        }
      } else {
        // Sort keys carrying a generated index, then permute the values.
        const std::uint8_t ib = index_bytes_for(r.n);
        void* perm = ib == 4 ? static_cast<void*>(c.take<std::uint32_t>(r.n)) : c.take<std::uint64_t>(r.n);
        std::byte* copy = c.take<std::byte>(r.n * r.value_bytes);
        run_index(b, perm, ib, c);
        detail::permute(r.values, r.value_bytes, r.n, perm, ib, threads, copy);
      }
  }
}

class cpu_engine_impl final : public detail::engine_impl {
 public:
  const char* name() const override { return "cpu"; }

  std::size_t workspace_bytes(const sort_request& r) const override {
    const std::uint64_t n = r.n, k = r.key.bytes;
    if (n < 2) return 0;
    switch (r.op) {
      case operation::keys: return n * k + align_slack;
      case operation::argsort: return n * (2 * k + r.index_bytes) + align_slack;
      case operation::pairs:
        if (native_value(r)) return n * (k + r.value_bytes) + align_slack;
        // key scratch + index + index scratch + the permute's copy of the values
        return n * (k + 2 * index_bytes_for(n) + r.value_bytes) + align_slack;
    }
    return align_slack;
  }

  void run(const sort_request& r, std::span<std::byte> ws) override {
    if (r.n < 2) {  // nothing to reorder; an argsort of one key is {0}
      if (r.op == operation::argsort && r.n == 1) std::memset(r.indices, 0, r.index_bytes);
      return;
    }
    detail::scratch own;
    if (ws.empty()) {
      own = detail::scratch(workspace_bytes(r));
      ws = own.span();
    }
    carver c{ws.data(), ws.data() + ws.size()};
    switch (r.key.bytes) {
      case 1: return run_width<std::uint8_t>(r, c, r.opts.threads);
      case 2: return run_width<std::uint16_t>(r, c, r.opts.threads);
      case 4: return run_width<std::uint32_t>(r, c, r.opts.threads);
      case 8: return run_width<std::uint64_t>(r, c, r.opts.threads);
      default: throw invalid_argument("radix: the cpu engine has no keys of " + std::to_string(r.key.bytes) + " bytes");
    }
  }
};

}  // namespace
}  // namespace radix::cpu

namespace radix::detail {
engine_impl& cpu_engine() {
  static cpu::cpu_engine_impl e;
  return e;
}
}  // namespace radix::detail
