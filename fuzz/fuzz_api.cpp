// libFuzzer harness over the public host API on the CPU engine: radix::sort,
// sort_pairs, argsort, radix::run (with and without a caller workspace) and
// sort_records (byte offsets, either byte order, keys that do not fit).
// The input picks the key type, operation, options, size and keys; every
// output element is checked against the test suite's oracle (std::stable_sort
// by the masked ordered bits, tests/support/radix_test.hpp). Options the
// contract rejects must throw radix::invalid_argument and leave every buffer
// as it was.
//
// Input layout (missing bytes read as 0):
//   [0] key type            (u8 u16 u32 u64 i8 i16 i32 i64 f16 bf16 f32 f64)
//   [1] bits 0-1 operation  (keys, pairs, argsort u32, argsort u64)
//       bit 2 descending, bit 3 float_order::total, bit 4 two threads,
//       bits 5-6 entry      (typed template, run(), run() + exact workspace,
//                            run() + a workspace one byte short)
//   [2] bits 0-1 bit range  (whole key, a valid range from [3] [4], raw
//                            int8 values of [3] [4], explicit [0, width))
//       bits 2-6 digit_bits (0..16; 17 and 18 mean 17 and -1: invalid)
//       bit 7 null buffers (typed entry: only for an empty input)
//   [3] [4] bit range material
//   [5] bits 0-2 value size for pairs (1 2 4 8 3 12 16 6), bits 3-5 value
//       misalignment in bytes (run() entries), bit 6 expand, bit 7 records
//   expand only: [6] [7] m (little-endian), [8] low bits that vary,
//       [9] s: n = 1 + (m >> s % 8), so that smaller sizes run more often
//   records only: [1] bit 0 is the key's byte order (1: big-endian) instead
//       of the operation, and two more bytes: record size 1 + r % 40, then
//       the key offset o % 40, or with bit 7 set SIZE_MAX - (o & 7) (so
//       large that offset + key size wraps around: must be refused)
//   then the keys: n = rest / key size, or with expand n keys made from the
//   rest as a repeating pattern with the low bits mixed per index; records
//   hold them at the offset among bytes that differ in every record.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <span>
#include <string>
#include <vector>

#include "radix/radix.hpp"
#include "radix_test.hpp"

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "fuzz_api: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

struct reader {
  const std::uint8_t* p;
  std::size_t n;
  std::uint8_t byte() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
};

enum class entry { typed, run, run_workspace, run_short_workspace };

struct plan {
  radix::operation op = radix::operation::keys;
  std::uint8_t index_bytes = 4;
  entry how = entry::typed;
  radix::options o{};
  std::size_t value_bytes = 4;
  std::size_t value_misalign = 0;
  bool null_empty = false;
  bool records = false;  ///< sort_records instead of `op`
  std::size_t record_bytes = 0, key_offset = 0;
  bool big_endian = false;
};

/// Whether the options pass the contract's checks for a key of `w` bits.
bool options_valid(const radix::options& o, int w) {
  if (o.begin_bit < 0 || o.begin_bit > w) return false;
  if (o.end_bit != -1 && (o.end_bit < 0 || o.end_bit > w || o.begin_bit > o.end_bit)) return false;
  return o.digit_bits >= 0 && o.digit_bits <= 16;
}

std::string describe(const plan& p, const char* type, std::size_t n) {
  static const char* ops[] = {"keys", "pairs", "argsort"};
  static const char* entries[] = {"typed", "run", "run+workspace", "run+short workspace"};
  return std::string("type=") + type + " op=" + ops[int(p.op)] + " index_bytes=" + std::to_string(p.index_bytes) +
         " entry=" + entries[int(p.how)] + " value_bytes=" + std::to_string(p.value_bytes) +
         " misalign=" + std::to_string(p.value_misalign) + " n=" + std::to_string(n) + " " + rt::describe(p.o);
}

/// A byte buffer whose end is the end of its heap block, so that ASan sees
/// any write past it; `lead` bytes before the data shift its alignment.
struct buffer {
  std::vector<std::byte> store;
  std::size_t lead = 0;
  buffer(std::size_t bytes, std::size_t lead_bytes) : store(bytes + lead_bytes), lead(lead_bytes) {}
  std::byte* data() { return store.data() + lead; }
  std::size_t size() const { return store.size() - lead; }
};

template <std::size_t S>
struct blob {
  unsigned char b[S];
};

template <class K>
void run_case(const plan& p, const std::vector<K>& keys_in) {
  using U = rt::bits_t<K>;
  const std::size_t n = keys_in.size();
  const radix::key_desc d = radix::key_desc_of<K>();
  // Null buffers: fine for n = 0, invalid otherwise (the typed API cannot make them).
  const bool null_ptrs = p.null_empty && (n == 0 || p.how != entry::typed);
  const bool options_ok = options_valid(p.o, d.bits());
  const bool valid = options_ok && !(null_ptrs && n > 0);

  // Inputs as they were, and the buffers the call works on.
  buffer keys(n * sizeof(K), 0);
  if (n) std::memcpy(keys.data(), keys_in.data(), n * sizeof(K));
  const std::size_t vb = p.op == radix::operation::pairs ? p.value_bytes : 0;
  buffer values(n * vb, p.how == entry::typed ? 0 : p.value_misalign);
  for (std::size_t i = 0; i < values.size(); ++i)
    values.data()[i] = std::byte(rt::mix64(i / vb * 0x9E37u + i % vb) >> 17);  // distinct per element
  const std::vector<std::byte> values_in(values.data(), values.data() + values.size());
  const std::size_t ib = p.op == radix::operation::argsort ? p.index_bytes : 0;
  buffer indices(n * ib, 0);
  rt::poison(indices.data(), indices.size());
  const std::vector<std::byte> indices_in(indices.data(), indices.data() + indices.size());

  radix::sort_request req;
  req.op = p.op;
  req.key = d;
  req.n = n;
  req.keys = null_ptrs ? nullptr : keys.data();
  req.values = null_ptrs || p.op != radix::operation::pairs ? nullptr : values.data();
  req.value_bytes = vb;
  req.indices = null_ptrs || p.op != radix::operation::argsort ? nullptr : indices.data();
  req.index_bytes = std::uint8_t(ib);
  req.opts = p.o;

  bool threw_invalid = false, threw_oom = false;
  try {
    switch (p.how) {
      case entry::typed: {
        std::span<K> ks(reinterpret_cast<K*>(req.keys), n);
        if (p.op == radix::operation::keys) {
          radix::sort(ks, p.o);
        } else if (p.op == radix::operation::argsort) {
          if (ib == 4) radix::argsort(std::span<const K>(ks), std::span<std::uint32_t>(static_cast<std::uint32_t*>(req.indices), n), p.o);
          else radix::argsort(std::span<const K>(ks), std::span<std::uint64_t>(static_cast<std::uint64_t*>(req.indices), n), p.o);
        } else {
          auto pairs = [&]<class V>(V*) { radix::sort_pairs(ks, std::span<V>(static_cast<V*>(req.values), n), p.o); };
          switch (vb) {
            case 1: pairs(static_cast<std::uint8_t*>(nullptr)); break;
            case 2: pairs(static_cast<std::uint16_t*>(nullptr)); break;
            case 4: pairs(static_cast<std::uint32_t*>(nullptr)); break;
            case 8: pairs(static_cast<std::uint64_t*>(nullptr)); break;
            case 3: pairs(static_cast<blob<3>*>(nullptr)); break;
            case 12: pairs(static_cast<blob<12>*>(nullptr)); break;
            case 16: pairs(static_cast<blob<16>*>(nullptr)); break;
            default: pairs(static_cast<blob<6>*>(nullptr)); break;
          }
        }
        break;
      }
      case entry::run: radix::run(req); break;
      case entry::run_workspace:
      case entry::run_short_workspace: {
        std::size_t need = 0;
        if (options_ok) {  // (a size query does not look at the buffers)
          need = radix::workspace_bytes(req);
        } else {
          try {
            (void)radix::workspace_bytes(req);
            fail("workspace_bytes accepted invalid options: " + describe(p, radix::key_traits<K>::name, n));
          } catch (const radix::invalid_argument&) {
          }
        }
        // An empty workspace means "allocate your own": a short one needs need >= 2.
        const bool short_ws = p.how == entry::run_short_workspace && need >= 2;
        std::vector<std::byte> ws(short_ws ? need - 1 : need);
        radix::run(req, ws);
        if (short_ws) fail("run() accepted a workspace one byte short: " + describe(p, radix::key_traits<K>::name, n));
        break;
      }
    }
  } catch (const radix::invalid_argument&) {
    threw_invalid = true;
  } catch (const radix::out_of_memory&) {
    threw_oom = true;
  } catch (const std::exception& e) {
    fail(std::string("unexpected exception: ") + e.what() + " in " + describe(p, radix::key_traits<K>::name, n));
  }

  const std::string where = describe(p, radix::key_traits<K>::name, n);
  if (valid == threw_invalid) fail(std::string(threw_invalid ? "rejected valid" : "accepted invalid") + " options: " + where);
  if (threw_oom && p.how != entry::run_short_workspace) fail("unexpected out_of_memory: " + where);

  auto unchanged = [&](buffer& b, const void* before, const char* name) {
    if (b.size() && std::memcmp(b.data(), before, b.size()) != 0)
      fail(std::string(name) + " changed although the call was rejected: " + where);
  };
  if (threw_invalid || threw_oom) {
    unchanged(keys, keys_in.data(), "keys");
    unchanged(values, values_in.data(), "values");
    unchanged(indices, indices_in.data(), "indices");
    return;
  }

  // The oracle: the stable permutation by the masked ordered bits.
  const std::vector<U> bits = rt::bits_of(keys_in);
  const std::vector<std::uint32_t> perm = rt::oracle_perm_bits(bits, d, p.o);
  auto mismatch = [&](const char* name, std::size_t i) {
    fail(std::string(name) + " wrong at [" + std::to_string(i) + "] of " + std::to_string(n) + ": " + where);
  };
  const auto* kout = reinterpret_cast<const U*>(keys.data());
  if (p.op == radix::operation::argsort) {
    for (std::size_t i = 0; i < n; ++i)
      if (kout[i] != bits[i]) mismatch("keys (argsort must not modify them)", i);
    for (std::size_t i = 0; i < n; ++i) {
      std::uint64_t got = 0;
      std::memcpy(&got, indices.data() + i * ib, ib);  // little-endian
      if (got != perm[i]) mismatch("indices", i);
    }
    return;
  }
  for (std::size_t i = 0; i < n; ++i)
    if (kout[i] != bits[perm[i]]) mismatch("keys", i);
  if (p.op == radix::operation::pairs)
    for (std::size_t i = 0; i < n; ++i)
      if (std::memcmp(values.data() + i * vb, values_in.data() + std::size_t(perm[i]) * vb, vb) != 0)
        mismatch("values", i);
}

/// sort_records over n records holding keys_in at p.key_offset.
template <class K>
void run_records(const plan& p, const std::vector<K>& keys_in) {
  const std::size_t n = keys_in.size(), rb = p.record_bytes, off = p.key_offset, kb = sizeof(K);
  const radix::key_desc d = radix::key_desc_of<K>();
  const bool fits = off <= rb && kb <= rb - off;
  const bool valid = fits && options_valid(p.o, d.bits()) && !(p.null_empty && n > 0);
  const std::string where = std::string("sort_records type=") + radix::key_traits<K>::name +
                            " record_bytes=" + std::to_string(rb) + " offset=" + std::to_string(off) +
                            (p.big_endian ? " big-endian" : "") + " n=" + std::to_string(n) + " " + rt::describe(p.o);

  buffer recs(n * rb, 0);
  for (std::size_t i = 0; i < recs.size(); ++i) recs.data()[i] = std::byte(rt::mix64(i / rb * 64 + i % rb) >> 13);
  if (fits)
    for (std::size_t i = 0; i < n; ++i) {
      std::byte* k = recs.data() + i * rb + off;
      std::memcpy(k, &keys_in[i], kb);
      if (p.big_endian) std::reverse(k, k + kb);
    }
  const std::vector<std::byte> recs_in(recs.data(), recs.data() + recs.size());

  bool threw_invalid = false;
  try {
    radix::sort_records(p.null_empty ? nullptr : recs.data(), rb, n, radix::record_key{off, d, p.big_endian}, p.o);
  } catch (const radix::invalid_argument&) {
    threw_invalid = true;
  } catch (const std::exception& e) {
    fail(std::string("unexpected exception: ") + e.what() + " in " + where);
  }
  if (valid == threw_invalid) fail(std::string(threw_invalid ? "rejected a valid" : "accepted an invalid") + " call: " + where);
  if (threw_invalid) {
    if (recs.size() && std::memcmp(recs.data(), recs_in.data(), recs.size()) != 0)
      fail("records changed although the call was rejected: " + where);
    return;
  }
  const std::vector<std::uint32_t> perm = rt::oracle_perm_bits(rt::bits_of(keys_in), d, p.o);
  for (std::size_t i = 0; i < n; ++i)
    if (std::memcmp(recs.data() + i * rb, recs_in.data() + std::size_t(perm[i]) * rb, rb) != 0)
      fail("records wrong at [" + std::to_string(i) + "] of " + std::to_string(n) + ": " + where);
}

template <class K>
void run_type(const plan& p, reader& r, bool expand, std::size_t expand_n, int low_bits) {
  using U = rt::bits_t<K>;
  constexpr int W = int(sizeof(U)) * 8;
  std::vector<K> keys;
  if (!expand) {
    const std::size_t n = r.n / sizeof(K);
    keys.resize(n);
    if (n) std::memcpy(static_cast<void*>(keys.data()), r.p, n * sizeof(K));
  } else {
    // A pattern from the input, repeated, with `low_bits` low bits mixed per
    // index: duplicates, runs and skew at sizes that reach every route.
    std::vector<U> pat(std::max<std::size_t>(1, r.n / sizeof(U)), U(0));
    if (r.n >= sizeof(U)) std::memcpy(pat.data(), r.p, pat.size() * sizeof(U));
    const U mask = low_bits >= W ? U(~U(0)) : U((U(1) << low_bits) - 1);
    keys.resize(expand_n);
    for (std::size_t i = 0; i < expand_n; ++i) {
      const U u = U(pat[i % pat.size()] ^ (U(rt::mix64(i)) & mask));
      keys[i] = rt::from_bits<K>(u);
    }
  }
  if (p.records) run_records<K>(p, keys);
  else run_case<K>(p, keys);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  // Small thresholds, so that inputs of a few KiB reach every route of the CPU
  // engine (comparison sort, plain LSD, two threads, the hybrid MSD + LSD route;
  // its fine window from 16384 skewed keys); RADIX_CPU_POLICY set by the caller wins.
  setenv("RADIX_CPU_POLICY",
         "small_n=24,per_thread_min=512,hybrid_min_bytes=16384,bucket_bytes=4096,max_msd_bits=8,fine_msd_bits=12,"
         "tiny_bucket=8",
         0);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  reader r{data, size};
  const auto t = rt::all_kts[r.byte() % std::size(rt::all_kts)];
  plan p;
  const std::uint8_t b1 = r.byte();
  switch (b1 & 3) {
    case 0: p.op = radix::operation::keys; break;
    case 1: p.op = radix::operation::pairs; break;
    case 2: p.op = radix::operation::argsort; p.index_bytes = 4; break;
    default: p.op = radix::operation::argsort; p.index_bytes = 8; break;
  }
  p.o.use = radix::engine::cpu;
  p.o.direction = (b1 >> 2) & 1 ? radix::order::descending : radix::order::ascending;
  p.o.floats = (b1 >> 3) & 1 ? radix::float_order::total : radix::float_order::numeric;
  p.o.threads = (b1 >> 4) & 1 ? 2 : 1;
  p.how = entry((b1 >> 5) & 3);

  const std::uint8_t b2 = r.byte(), b3 = r.byte(), b4 = r.byte();
  const int w = rt::visit_kt(t, []<class K>(rt::tag<K>) { return int(sizeof(K)) * 8; });
  switch (b2 & 3) {
    case 0: break;
    case 1:
      p.o.begin_bit = b3 % (w + 1);
      p.o.end_bit = p.o.begin_bit + b4 % (w + 1 - p.o.begin_bit);
      break;
    case 2:
      p.o.begin_bit = std::int8_t(b3);
      p.o.end_bit = std::int8_t(b4);
      break;
    default: p.o.end_bit = w; break;
  }
  const int db = (b2 >> 2) & 31;
  p.o.digit_bits = db <= 16 ? db : db == 17 ? 17 : db == 18 ? -1 : 0;
  p.null_empty = (b2 >> 7) & 1;

  const std::uint8_t b5 = r.byte();
  static constexpr std::size_t value_sizes[] = {1, 2, 4, 8, 3, 12, 16, 6};
  p.value_bytes = value_sizes[b5 & 7];
  p.value_misalign = (b5 >> 3) & 7;
  const bool expand = (b5 >> 6) & 1;
  std::size_t expand_n = 0;
  int low_bits = 0;
  if (expand) {
    expand_n = std::size_t(r.byte()) | std::size_t(r.byte()) << 8;
    low_bits = r.byte() % (w + 1);
    expand_n = 1 + (expand_n >> (r.byte() % 8));
  }
  p.records = (b5 >> 7) & 1;
  if (p.records) {
    p.big_endian = b1 & 1;
    p.record_bytes = 1 + r.byte() % 40;
    const std::uint8_t o = r.byte();
    p.key_offset = o & 0x80 ? ~std::size_t(0) - (o & 7) : o % 40;
  }
  rt::visit_kt(t, [&]<class K>(rt::tag<K>) { run_type<K>(p, r, expand, expand_n, low_bits); });
  return 0;
}
