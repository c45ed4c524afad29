// radix CLI — `radix sort IN -o OUT`: sorts a file of keys or fixed-size
// records (optionally with a parallel value file) on any engine.
//
// Records sort as key + index followed by a gather (Ha, Krüger & Silva 2009,
// "Fast 4-way parallel radix sorting on GPUs", §4.7; the
// library's sort_records). Data larger than the memory budget is sorted in
// runs that fit, written to nameless temporary files, and merged by a
// streaming k-way merge; reading and writing one run overlaps sorting the
// next. With --segment-length the file is rows, each sorted on its own (the
// library's segmented sort): blocks of whole rows need no merge, and only a
// row larger than the budget is sorted in runs + merge. Nothing is ever
// lost: the output is written to an invisible file in the destination
// folder and renamed over OUT only when it is complete and verified (in
// order, row by row for rows, and the same multiset as the input by
// checksum); the input is only read. See `radix sort --help`.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <mutex>
#include <thread>
#include <type_traits>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include <radix/radix.hpp>
#ifdef RADIX_CLI_HAVE_NCCL
#include <radix/nccl.hpp>
#endif

#include "args.hpp"
#include "commands.hpp"
#include "fileio.hpp"
#include "output.hpp"
#include "layout.hpp"
#include "progress.hpp"

namespace radix_cli {

namespace {

using clk = std::chrono::steady_clock;

/// The merge keeps one buffer per run; beyond this many runs they get too
/// small to stream well.
constexpr std::uint64_t max_runs = 4096;
double since(clk::time_point t) { return std::chrono::duration<double>(clk::now() - t).count(); }

/// The NCCL group of --gpus, owned by the command (destroyed before the
/// process exits, while CUDA is still up).
#ifdef RADIX_CLI_HAVE_NCCL
struct gpu_state {
  std::unique_ptr<radix::nccl::gpu_group> group;
};
#else
struct gpu_state {};
#endif

struct sort_config {
  std::string in, out, values_in, values_out, tmpdir;
  element_layout layout;
  order_spec order;
  std::size_t value_bytes = 0;  // 0: derived from the value file's size
  radix::engine eng = radix::engine::automatic;
  unsigned threads = 0;
  std::uint64_t memory = 0;  // 0: the default budget
  std::uint64_t row = 0;     // --segment-length: elements per row, each sorted on its own; 0: one array
  int gpus = 1;              // --gpus: GPUs that sort each block together (radix::nccl); 0: every visible one
  std::shared_ptr<gpu_state> gpu = std::make_shared<gpu_state>();  // the --gpus group, made at the first block
  bool quiet = false, stats = false, force_progress = false;
};

struct sort_stats {
  double read = 0, sort = 0, write = 0, merge = 0, total = 0;
  std::uint64_t runs = 0, budget = 0, run_elems = 0;
  std::uint64_t blocks = 0, block_rows = 0;  // rows sorted in blocks of up to block_rows rows
  std::uint64_t merged_rows = 0;             // rows larger than the budget: each in runs + merge
  bool fell_back_to_cpu = false;
};

/// Host bytes one element needs while a block is sorted in memory: the data
/// plus the library's scratch (README.md, "Scratch memory": n x (key + value) for keys and
/// pairs; records add the key, index and gather copies).
std::uint64_t sort_bytes_per_element(const sort_config& c) {
  const element_layout& l = c.layout;
  const std::size_t v = c.value_bytes;
  const std::uint64_t e = l.elem_bytes;
  // 128-bit keys sort as two 64-bit chunks: two permutations, the chunk and
  // the chunk argsort's scratch on top (src/api/byte_keys.cpp). Segmented,
  // they sort by key and then by row (src/api/segments.cpp): the row numbers,
  // their copy and that sort's scratch on top again.
  const bool wide = l.key.is_bytes || l.key.bytes > 8;
  const std::uint64_t wide_extra = wide ? (c.row ? 48 : 24) : 0;
  if (l.plain_keys()) return 2 * (e + v) + (v == 0 || v == 1 || v == 2 || v == 4 || v == 8 ? 0 : 24) + wide_extra;
  const std::uint64_t kb = std::min<std::uint64_t>(l.key.bytes, 8);
  // Measured (maximum resident size against --memory): byte-string keys
  // need about 120 bytes per record beyond the data and its gather copy.
  if (v == 0) return 2 * e + (wide ? 120 : 3 * kb + 24) + (c.row ? wide_extra : 0);
  return 2 * (e + v) + l.key.bytes + 120 + (c.row ? wide_extra : 0);
}

radix::options lib_options(const sort_config& c) {
  radix::options o;
  o.direction = c.order.descending ? radix::order::descending : radix::order::ascending;
  o.floats = c.order.floats;
  o.begin_bit = c.order.begin_bit;
  o.end_bit = c.order.end_bit;
  o.use = c.eng;
  o.threads = c.threads;
  return o;
}

/// out[i] = in[start + perm[i]] for elements of `bytes`, through one copy,
/// where start is the first element of i's row of `row` elements (0 for
/// one array, row = 0): segmented argsort indices count from their row.
template <class I>
void gather(std::byte* data, std::size_t bytes, const I* perm, std::uint64_t n, std::uint64_t row) {
  std::unique_ptr<std::byte[]> copy(new std::byte[n * bytes]);
  std::memcpy(copy.get(), data, n * bytes);
  parallel_chunks(n, [&](std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t i = b; i < e; ++i) {
      const std::uint64_t start = row ? i - i % row : 0;
      std::memcpy(data + i * bytes, copy.get() + (start + std::uint64_t(perm[i])) * bytes, bytes);
    }
  });
}

/// --gpus: sorts a block of plain keys (or pairs) over several GPUs through
/// NCCL (radix::nccl::sort_host), the group made at the first block. False
/// when the block does not go that way: one GPU asked, the CPU engine, rows,
/// keys wider than 8 bytes, values of other sizes than 1, 2, 4, 8 or 16 bytes
/// (those take the single-GPU path).
bool sort_on_gpus(const sort_config& c, const radix::sort_request& r) {
  if (c.gpus == 1 || r.opts.use == radix::engine::cpu || r.segs.segmented() || r.key.bytes > 8 ||
      r.key.kind == radix::key_kind::bytes)
    return false;
  const std::size_t v = r.op == radix::operation::pairs ? r.value_bytes : 0;
  if (v != 0 && v != 1 && v != 2 && v != 4 && v != 8 && v != 16) return false;
#ifdef RADIX_CLI_HAVE_NCCL
  auto& group = c.gpu->group;
  if (!group) group = std::make_unique<radix::nccl::gpu_group>(c.gpus);
  try {
    radix::nccl::sort_host(*group, r);
  } catch (...) {
    if (group->aborted()) group.reset();  // a rank failed mid-sort: the next block makes a new group
    throw;
  }
  return true;
#else
  return false;  // rejected when the options were read
#endif
}

/// Sorts one block held in memory with the library: as one array (row = 0)
/// or as rows of `row` elements, each on its own (n a multiple of row). The
/// library's scratch goes back to the system after each call (not into its
/// cache): the memory budget counts it only while a block is being sorted.
void sort_block_with(const sort_config& c, const radix::options& o, std::byte* main, std::byte* vals, std::uint64_t n,
                     std::uint64_t row) {
  const element_layout& l = c.layout;
  if (n < 2 || row == 1) return;
  struct release_scratch {
    ~release_scratch() { radix::release_scratch_cache(); }
  } release_at_exit;
  const radix::segments segs = row ? radix::segments::uniform(n / row, row) : radix::segments{};
  if (l.plain_keys()) {
    radix::sort_request r;
    r.op = vals ? radix::operation::pairs : radix::operation::keys;
    r.key = l.key.desc();
    r.n = n;
    r.keys = main;
    r.values = vals;
    r.value_bytes = vals ? c.value_bytes : 0;
    r.opts = o;
    r.segs = segs;
    if (sort_on_gpus(c, r)) return;
    radix::run(r);
    return;
  }
  if (!vals && !row) {
    radix::sort_records(main, l.elem_bytes, n, radix::record_key{l.key_offset, l.key.desc(), l.key.big_endian}, o);
    return;
  }
  // Records (or keys stored big-endian) with a value file, or in rows (the
  // library's sort_records takes no segments): argsort the keys, then
  // gather the file(s) by the one permutation.
  const std::size_t kb = l.key.bytes;
  std::unique_ptr<std::byte[]> keys(new std::byte[n * kb]);
  parallel_chunks(n, [&](std::uint64_t b, std::uint64_t e) {
    for (std::uint64_t i = b; i < e; ++i) {
      std::byte* k = keys.get() + i * kb;
      std::memcpy(k, main + i * l.elem_bytes + l.key_offset, kb);
      if (l.key.big_endian) std::reverse(k, k + kb);
    }
  });
  radix::sort_request r;
  r.op = radix::operation::argsort;
  r.key = l.key.desc();
  r.n = n;
  r.keys = keys.get();
  r.opts = o;
  r.segs = segs;
  // 32-bit indices while they suffice (they count from the row's start):
  // half the permutation's memory.
  const auto argsort_and_gather = [&]<class I>(std::type_identity<I>) {
    std::vector<I> perm(n);
    r.indices = perm.data();
    r.index_bytes = sizeof(I);
    radix::run(r);
    keys.reset();
    radix::release_scratch_cache();  // before the gathers' copies
    gather(main, l.elem_bytes, perm.data(), n, row);
    if (vals) gather(vals, c.value_bytes, perm.data(), n, row);
  };
  if ((row ? row : n) <= 0xFFFFFFFFull)
    argsort_and_gather(std::type_identity<std::uint32_t>{});
  else
    argsort_and_gather(std::type_identity<std::uint64_t>{});
}

/// Sorts a block (as one array, or as rows of `row` elements); a GPU engine
/// that runs out of device memory hands the block to the CPU engine (said
/// once on stderr).
void sort_block(const sort_config& c, sort_stats& st, std::byte* main, std::byte* vals, std::uint64_t n,
                std::uint64_t row) {
  const auto o = lib_options(c);
  try {
    sort_block_with(c, o, main, vals, n, row);
  } catch (const radix::out_of_memory& e) {
    if (o.use == radix::engine::cpu || (o.use == radix::engine::automatic && radix::default_engine() == radix::engine::cpu))
      throw;
    if (!st.fell_back_to_cpu && !c.quiet)
      std::fprintf(stderr, "radix sort: note: %s; sorting on the CPU engine instead\n", e.what());
    st.fell_back_to_cpu = true;
    auto cpu = o;
    cpu.use = radix::engine::cpu;
    sort_block_with(c, cpu, main, vals, n, row);
  }
}

[[noreturn]] void verification_failed(const std::string& what) {
  throw radix::error("radix: the result failed verification (" + what +
                     "); nothing was written. This is a bug: please report it with the command line");
}

/// "element 12" or, in rows of `row` elements, "row 3, element 2".
std::string element_name(std::uint64_t i, std::uint64_t row) {
  if (!row) return "element " + std::to_string(i);
  return "row " + std::to_string(i / row) + ", element " + std::to_string(i % row);
}

// ---- the sort, in memory -------------------------------------------------------------

/// Runs work(t, b, e, done) over `threads` contiguous ranges [b, e) of
/// [0, n), each on a thread of its own, while this thread keeps the progress
/// line up to date from `done` (bytes). Rethrows the first exception.
template <class F>
void in_parallel(std::uint64_t n, unsigned threads, progress& prog, F work) {
  threads = unsigned(std::max<std::uint64_t>(1, std::min<std::uint64_t>(threads, n)));
  std::atomic<std::uint64_t> done{0};
  std::atomic<unsigned> finished{0};
  std::exception_ptr err;
  std::mutex m;
  std::vector<std::thread> ts;
  for (unsigned t = 0; t < threads; ++t)
    ts.emplace_back([&, t] {
      try {
        work(t, n * t / threads, n * (t + 1) / threads, done);
      } catch (...) {
        std::lock_guard<std::mutex> g(m);
        if (!err) err = std::current_exception();
      }
      finished.fetch_add(1);
    });
  while (finished.load() < threads) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    prog.set(done.load());
  }
  for (auto& th : ts) th.join();
  prog.set(done.load());
  if (err) std::rethrow_exception(err);
}

/// Threads for reading and writing: page-cache copies and page faults scale
/// with cores, up to the point where the disk is the limit.
unsigned io_threads(std::uint64_t bytes) {
  const std::uint64_t by_size = std::max<std::uint64_t>(1, bytes / (std::uint64_t(4) << 20));
  return unsigned(std::min<std::uint64_t>({hardware_threads(), 16, by_size}));
}

/// Reads or writes elements [b, e) of a column in 16 MiB pieces.
template <bool Write>
void column_io(int fd, std::byte* base, std::size_t elem, std::uint64_t b, std::uint64_t e, const std::string& path,
               std::atomic<std::uint64_t>& done) {
  const std::uint64_t piece = std::uint64_t(16) << 20;
  for (std::uint64_t at = b * elem, end = e * elem; at < end; at += piece) {
    const std::uint64_t k = std::min(piece, end - at);
    if constexpr (Write)
      io::write_at(fd, base + at, std::size_t(k), at, path);
    else
      io::read_at(fd, base + at, std::size_t(k), at, path);
    done.fetch_add(k);
  }
}

/// The outputs, created before any work so that an unwritable destination
/// fails at once; invisible until committed.
struct outputs {
  io::output_file main;
  std::optional<io::output_file> values;
  explicit outputs(const sort_config& c) : main(c.out, c.tmpdir) {
    if (!c.values_out.empty()) values.emplace(c.values_out, c.tmpdir);
  }
  /// Keys and values publish as a pair (output.hpp).
  void commit() {
    if (values)
      io::commit_pair(main, *values);
    else
      main.commit();
  }
};

void sort_in_memory(const sort_config& c, int in_fd, int val_fd, std::uint64_t n, outputs& outs, progress& prog,
                    sort_stats& st) {
  const std::size_t e = c.layout.elem_bytes, v = c.value_bytes;
  std::unique_ptr<std::byte[]> main(new std::byte[std::max<std::uint64_t>(n * e, 1)]);
  std::unique_ptr<std::byte[]> vals(v ? new std::byte[std::max<std::uint64_t>(n * v, 1)] : nullptr);
  const unsigned threads = io_threads(n * (e + v));

  // Read in parallel; each thread checksums what it read (in rows: the
  // multiset of each row, so that no element may change rows).
  auto t = clk::now();
  prog.phase("reading", n * (e + v));
  std::vector<std::uint64_t> sums(threads, 0);
  in_parallel(n, threads, prog, [&](unsigned i, std::uint64_t b, std::uint64_t end, std::atomic<std::uint64_t>& done) {
    column_io<false>(in_fd, main.get(), e, b, end, c.in, done);
    if (v) column_io<false>(val_fd, vals.get(), v, b, end, c.values_in, done);
    sums[i] = checksum_seq(main.get() + b * e, e, v ? vals.get() + b * v : nullptr, v, end - b, c.row, b);
  });
  std::uint64_t sum_in = 0;
  for (auto s : sums) sum_in += s;
  st.read = since(t);

  t = clk::now();
  prog.phase("sorting", n * (e + v));
  prog.detail("in memory");
  sort_block(c, st, main.get(), vals.get(), n, c.row);
  st.sort = since(t);
  st.runs = 1;

  // Write in parallel into the invisible output; each thread checks the order
  // of its part (and across its start, within a row) and checksums it.
  // Committed only if everything verifies.
  t = clk::now();
  prog.phase("writing", n * (e + v));
  io::output_file& out = outs.main;
  std::optional<io::output_file>& vout = outs.values;
  const normaliser nz(c.layout, c.order);
  std::atomic<std::uint64_t> first_bad{n};
  in_parallel(n, threads, prog, [&](unsigned i, std::uint64_t b, std::uint64_t end, std::atomic<std::uint64_t>& done) {
    column_io<true>(out.fd(), main.get(), e, b, end, c.out, done);
    if (v) column_io<true>(vout->fd(), vals.get(), v, b, end, c.values_out, done);
    sums[i] = checksum_seq(main.get() + b * e, e, v ? vals.get() + b * v : nullptr, v, end - b, c.row, b);
    const std::uint64_t bad = first_unsorted_in(main.get(), e, b, end, nz, c.row);
    if (bad != end) {
      std::uint64_t f = first_bad.load();
      while (bad < f && !first_bad.compare_exchange_weak(f, bad)) {
      }
    }
  });
  std::uint64_t sum_out = 0;
  for (auto s : sums) sum_out += s;
  if (first_bad.load() != n) verification_failed(element_name(first_bad.load(), c.row) + " is out of order");
  if (sum_out != sum_in) verification_failed("the checksum changed");
  outs.commit();
  st.write = since(t);
}

// ---- the sort, in runs + merge ---------------------------------------------------------

/// A sorted run inside the one temporary file: main column, then values.
struct run_file {
  std::uint64_t offset, n;
};

/// What every part of the merge reads and writes.
struct merge_ctx {
  const sort_config& c;
  int tmp_fd;
  const std::string& tmp_name;
  const std::vector<run_file>& runs;
  const normaliser& nz;
  outputs& outs;
  std::uint64_t first;  // where the merged elements go in the output (a row's first element)
};

/// Element positions [lo, hi) of each run that one part of the merge takes.
using run_cut = std::vector<std::uint64_t>;

/// Reads the normalised key of element i of run r from the temporary file.
void key_at(const merge_ctx& m, std::uint64_t r, std::uint64_t i, std::uint8_t* out) {
  const std::size_t e = m.c.layout.elem_bytes;
  std::vector<std::byte> el(e);
  io::read_at(m.tmp_fd, el.data(), e, m.runs[r].offset + i * e, m.tmp_name);
  m.nz(el.data(), out);
}

/// Cuts every run at `parts - 1` splitter keys (taken at even positions of
/// the longest run): part j takes, from each run, the elements whose key is
/// at least splitter j-1 and below splitter j. Equal keys never straddle a
/// cut, so the concatenated parts keep the stable order.
std::vector<run_cut> split_runs(const merge_ctx& m, unsigned parts) {
  const std::uint64_t k = m.runs.size();
  const std::size_t kl = m.nz.size();
  std::vector<run_cut> cuts(parts + 1, run_cut(k, 0));
  for (std::uint64_t r = 0; r < k; ++r) cuts[parts][r] = m.runs[r].n;
  std::uint64_t longest = 0;
  for (std::uint64_t r = 1; r < k; ++r)
    if (m.runs[r].n > m.runs[longest].n) longest = r;
  std::vector<std::uint8_t> split(kl), probe(kl);
  for (unsigned j = 1; j < parts; ++j) {
    key_at(m, longest, m.runs[longest].n * j / parts, split.data());
    for (std::uint64_t r = 0; r < k; ++r) {
      std::uint64_t lo = cuts[j - 1][r], hi = m.runs[r].n;  // first element with key >= split
      while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        key_at(m, r, mid, probe.data());
        if (std::memcmp(probe.data(), split.data(), kl) < 0)
          lo = mid + 1;
        else
          hi = mid;
      }
      cuts[j][r] = lo;
    }
  }
  return cuts;
}

struct merge_result {
  std::uint64_t count = 0, sum = 0;
  std::uint64_t bad = ~std::uint64_t(0);  // output position of an out-of-order element
  std::vector<std::uint8_t> first, last;  // normalised keys at the part's ends
};

/// Merges elements [from[r], to[r]) of every run into the output at the
/// position of the part (the sum of all earlier cuts), checking order and
/// summing element hashes as it writes. Uses about `memory` bytes.
merge_result merge_part(const merge_ctx& m, const run_cut& from, const run_cut& to, std::uint64_t memory,
                        std::atomic<std::uint64_t>& done) {
  const sort_config& c = m.c;
  const std::size_t e = c.layout.elem_bytes, v = c.value_bytes, ev = e + v;
  const std::uint64_t k = m.runs.size();
  const std::size_t kl = m.nz.size();
  merge_result res;
  std::uint64_t out_at = 0, total = 0;
  for (std::uint64_t r = 0; r < k; ++r) out_at += from[r], total += to[r] - from[r];
  if (total == 0) return res;
  const std::uint64_t stream_bytes = std::max<std::uint64_t>(memory / (k + 2), ev);
  const std::uint64_t buf_n = std::max<std::uint64_t>(1, std::min<std::uint64_t>(stream_bytes / ev, std::uint64_t(1) << 20));
  struct cursor {
    std::unique_ptr<std::byte[]> main, vals;
    std::uint64_t next = 0, end = 0;  // next element of the run to read; end of this part in the run
    std::uint64_t have = 0, at = 0;
  };
  std::vector<cursor> cur(k);
  std::vector<std::uint8_t> head(k * kl);
  auto refill = [&](std::uint64_t r) {
    cursor& q = cur[r];
    const std::uint64_t n = std::min(buf_n, q.end - q.next);
    const std::uint64_t base = m.runs[r].offset;
    io::read_at(m.tmp_fd, q.main.get(), n * e, base + q.next * e, m.tmp_name);
    if (v) io::read_at(m.tmp_fd, q.vals.get(), n * v, base + m.runs[r].n * e + q.next * v, m.tmp_name);
    q.next += n;
    q.have = n;
    q.at = 0;
  };
  // A binary min-heap of run numbers by (head key, run number): the run
  // number breaks ties, so equal keys leave in input order (stable).
  auto before = [&](std::uint64_t a, std::uint64_t b) {
    int x;
    if (kl == 8) {  // numeric keys: one big-endian 64-bit compare
      std::uint64_t p, q;
      std::memcpy(&p, &head[a * 8], 8);
      std::memcpy(&q, &head[b * 8], 8);
      p = __builtin_bswap64(p);
      q = __builtin_bswap64(q);
      x = p < q ? -1 : p > q ? 1 : 0;
    } else {
      x = std::memcmp(&head[a * kl], &head[b * kl], kl);
    }
    return x != 0 ? x < 0 : a < b;
  };
  std::vector<std::uint64_t> heap;
  heap.reserve(k);
  auto sift_down = [&](std::size_t i) {
    const std::size_t hn = heap.size();
    const std::uint64_t x = heap[i];
    for (;;) {
      std::size_t ch = 2 * i + 1;
      if (ch >= hn) break;
      if (ch + 1 < hn && before(heap[ch + 1], heap[ch])) ++ch;
      if (!before(heap[ch], x)) break;
      heap[i] = heap[ch];
      i = ch;
    }
    heap[i] = x;
  };
  for (std::uint64_t r = 0; r < k; ++r) {
    cur[r].next = from[r];
    cur[r].end = to[r];
    if (from[r] == to[r]) continue;
    cur[r].main.reset(new std::byte[buf_n * e]);
    if (v) cur[r].vals.reset(new std::byte[buf_n * v]);
    refill(r);
    m.nz(cur[r].main.get(), &head[r * kl]);
    heap.push_back(r);
  }
  for (std::size_t i = heap.size() / 2; i-- > 0;) sift_down(i);

  io::output_file& out = m.outs.main;
  std::optional<io::output_file>& vout = m.outs.values;
  const std::uint64_t out_n = std::max<std::uint64_t>(1, std::min<std::uint64_t>(2 * stream_bytes / ev, std::uint64_t(1) << 20));
  std::unique_ptr<std::byte[]> obuf(new std::byte[out_n * e]);
  std::unique_ptr<std::byte[]> ovals(v ? new std::byte[out_n * v] : nullptr);
  std::uint64_t filled = 0, written = 0;
  res.first.assign(kl, 0);
  res.last.assign(kl, 0);
  auto flush = [&] {
    const std::uint64_t at = m.first + out_at + written;
    io::write_at(out.fd(), obuf.get(), filled * e, at * e, c.out);
    if (v) io::write_at(vout->fd(), ovals.get(), filled * v, at * v, c.values_out);
    written += filled;
    done.fetch_add(filled * ev);
    filled = 0;
  };
  while (!heap.empty()) {
    const std::uint64_t r = heap.front();
    cursor& q = cur[r];
    const std::byte* src = q.main.get() + q.at * e;
    const std::uint8_t* key = &head[r * kl];
    if (written + filled == 0)
      std::memcpy(res.first.data(), key, kl);
    else if (res.bad == ~std::uint64_t(0) && std::memcmp(res.last.data(), key, kl) > 0)
      res.bad = out_at + written + filled;
    std::memcpy(res.last.data(), key, kl);
    std::memcpy(obuf.get() + filled * e, src, e);
    std::uint64_t h = element_hash(src, e);
    if (v) {
      const std::byte* vs = q.vals.get() + q.at * v;
      std::memcpy(ovals.get() + filled * v, vs, v);
      h = element_hash(vs, v, h);
    }
    res.sum += h;
    if (++filled == out_n) flush();
    if (++q.at == q.have && q.next < q.end) refill(r);
    if (q.at < q.have) {
      m.nz(q.main.get() + q.at * e, &head[r * kl]);  // the run's next key replaces the top
    } else {
      heap.front() = heap.back();  // the run's part is done
      heap.pop_back();
    }
    if (!heap.empty()) sift_down(0);
  }
  flush();
  res.count = written;
  return res;
}

/// Sorts elements [first, first + n) of the input in blocks of `block_n`
/// elements, each in memory (as one array, or as rows of `row` elements),
/// checks each block's order, and hands it to put(b, k, data): elements
/// [b, b + k) counted from `first`, the main column then the values column.
/// Reading the next block and putting the previous one overlap sorting this
/// one; put runs on that I/O thread. `what` names a block in the progress
/// line ("run", "block"). Returns the checksum of what was read (of each
/// row's multiset when row > 0).
template <class Put>
std::uint64_t sort_in_blocks(const sort_config& c, int in_fd, int val_fd, std::uint64_t first, std::uint64_t n,
                             std::uint64_t block_n, std::uint64_t row, const std::string& what, progress& prog,
                             sort_stats& st, Put put) {
  const std::size_t e = c.layout.elem_bytes, v = c.value_bytes, ev = e + v;
  if (n == 0) return 0;
  const std::uint64_t blocks = (n + block_n - 1) / block_n;
  // Two slots: one being sorted (data + scratch), one being put and refilled.
  std::unique_ptr<std::byte[]> slot[2] = {std::unique_ptr<std::byte[]>(new std::byte[block_n * ev]),
                                          std::unique_ptr<std::byte[]>(new std::byte[block_n * ev])};
  std::uint64_t sum_in = 0;
  const normaliser nz(c.layout, c.order);
  auto block_range = [&](std::uint64_t i) {
    const std::uint64_t b = i * block_n;
    return std::pair(b, std::min(n, b + block_n) - b);
  };
  // Reads block i into slot s: main column, then the values column after it.
  auto read_block = [&](std::uint64_t i, int s) {
    const auto [b, k] = block_range(i);
    std::byte* p = slot[s].get();
    io::read_at(in_fd, p, k * e, (first + b) * e, c.in);
    if (v) io::read_at(val_fd, p + k * e, k * v, (first + b) * v, c.values_in);
    sum_in += checksum(p, e, v ? p + k * e : nullptr, v, k, row, first + b);
  };
  auto put_block = [&](std::uint64_t i, int s) {
    const auto [b, k] = block_range(i);
    put(b, k, slot[s].get());
  };

  read_block(0, 0);
  for (std::uint64_t i = 0; i < blocks; ++i) {
    const int s = int(i % 2);
    prog.detail(what + " " + std::to_string(i + 1) + " of " + std::to_string(blocks));
    auto io_work = std::async(std::launch::async, [&, i] {
      if (i > 0) put_block(i - 1, 1 - s);
      if (i + 1 < blocks) read_block(i + 1, 1 - s);
    });
    const auto [b, k] = block_range(i);
    std::byte* p = slot[s].get();
    try {
      sort_block(c, st, p, v ? p + k * e : nullptr, k, row);
      if (const auto bad = first_unsorted(p, e, k, nz, row); bad != k)
        verification_failed(what + " " + std::to_string(i) + ", " + element_name(bad, row) + " is out of order");
    } catch (...) {
      io_work.wait();  // the I/O thread uses this frame's state
      throw;
    }
    io_work.get();
    prog.advance(k * ev);
  }
  put_block(blocks - 1, int((blocks - 1) % 2));
  return sum_in;
}

/// Sorts elements [first, first + n) of the input, which do not fit the
/// budget, into the same place of the output: sorted runs in a temporary
/// file, then a verified k-way merge. `label` goes before the progress
/// line's phase ("row 3 of 8: "). The caller commits.
void sort_external(const sort_config& c, int in_fd, int val_fd, std::uint64_t first, std::uint64_t n, outputs& outs,
                   progress& prog, sort_stats& st, const std::string& label = "") {
  const std::size_t e = c.layout.elem_bytes, v = c.value_bytes, ev = e + v;
  const std::uint64_t per_sort = sort_bytes_per_element(c);
  // Two slots: one being sorted (data + scratch), one being written and refilled.
  std::uint64_t run_n = c.memory / (per_sort + ev);
  run_n = std::min(run_n, n);
  st.run_elems = run_n;
  const std::uint64_t runs_n = (n + run_n - 1) / run_n;

  // All runs go to one nameless temporary file (one descriptor, however many runs).
  io::temp_file tmp(c.tmpdir);
  const std::string tmp_name = c.tmpdir + " (temporary run file)";
  std::vector<run_file> runs;
  runs.reserve(runs_n);
  const normaliser nz(c.layout, c.order);

  // Phase 1: runs. Reading run r+1 and writing run r-1 overlap sorting run r.
  auto t = clk::now();
  prog.phase(label + "sorting runs", n * ev);
  const std::uint64_t sum_in =
      sort_in_blocks(c, in_fd, val_fd, first, n, run_n, 0, "run", prog, st, [&](std::uint64_t b, std::uint64_t k, const std::byte* p) {
        runs.push_back({b * ev, k});
        io::write_at(tmp.fd(), p, k * ev, b * ev, tmp_name);
      });
  st.sort += since(t);
  st.runs += runs_n;

  // Phase 2: a k-way merge of the runs into the output; ties go to the
  // earlier run, which keeps the sort stable. The output is cut into parts
  // by splitter keys, each merged by a thread of its own (merge_part).
  t = clk::now();
  prog.phase(label + "merging " + std::to_string(runs_n) + " runs", n * ev);
  const merge_ctx m{c, tmp.fd(), tmp_name, runs, nz, outs, first};
  unsigned parts = unsigned(std::min<std::uint64_t>(io_threads(n * ev), std::max<std::uint64_t>(1, n / 4096)));
  // Tests force several parts on small files (tools/tests/file_sort.sh).
  if (const char* f = std::getenv("RADIX_CLI_MERGE_PARTS")) parts = unsigned(std::clamp(std::atoi(f), 1, 256));
  const auto bounds = split_runs(m, parts);
  std::vector<merge_result> res(parts);
  in_parallel(parts, parts, prog, [&](unsigned i, std::uint64_t, std::uint64_t, std::atomic<std::uint64_t>& d) {
    res[i] = merge_part(m, bounds[i], bounds[i + 1], c.memory / parts, d);
  });
  std::uint64_t written = 0, sum_out = 0;
  for (unsigned i = 0; i < parts; ++i) {
    if (res[i].bad != ~std::uint64_t(0))
      verification_failed(label + "merge output element " + std::to_string(res[i].bad) + " is out of order");
    // Across parts: the last key of one part must not come after the first of the next.
    if (i > 0 && res[i].count && res[i - 1].count && std::memcmp(res[i - 1].last.data(), res[i].first.data(), nz.size()) > 0)
      verification_failed(label + "merge parts " + std::to_string(i - 1) + " and " + std::to_string(i) + " overlap");
    written += res[i].count;
    sum_out += res[i].sum;
  }
  st.merge += since(t);
  if (written != n) verification_failed(label + "the merge wrote " + std::to_string(written) + " of " + std::to_string(n) + " elements");
  if (sum_out != sum_in) verification_failed(label + "the checksum changed");
}

/// Whole rows that fit the budget at once, two blocks of them in memory (one
/// sorted, one read and written meanwhile); 0 when one row does not fit.
std::uint64_t rows_per_block(const sort_config& c) {
  const std::uint64_t per_elem = sort_bytes_per_element(c) + c.layout.elem_bytes + c.value_bytes;
  return c.row ? c.memory / per_elem / c.row : 0;
}

/// Rows that do not all fit the budget but one does: blocks of whole rows,
/// each sorted by one library call over its rows, verified (every row in
/// order, the checksum unchanged) and written in place. No merge.
void sort_rows_in_blocks(const sort_config& c, int in_fd, int val_fd, std::uint64_t n, outputs& outs, progress& prog,
                         sort_stats& st) {
  const std::size_t e = c.layout.elem_bytes, v = c.value_bytes;
  const std::uint64_t rows = std::min(rows_per_block(c), n / c.row);
  st.block_rows = rows;
  st.blocks = (n / c.row + rows - 1) / rows;
  std::uint64_t sum_out = 0;
  const auto t = clk::now();
  prog.phase("sorting rows", n * (e + v));
  const std::uint64_t sum_in =
      sort_in_blocks(c, in_fd, val_fd, 0, n, rows * c.row, c.row, "block", prog, st, [&](std::uint64_t b, std::uint64_t k, const std::byte* p) {
        io::write_at(outs.main.fd(), p, k * e, b * e, c.out);
        if (v) io::write_at(outs.values->fd(), p + k * e, k * v, b * v, c.values_out);
        sum_out += checksum(p, e, v ? p + k * e : nullptr, v, k, c.row, b);
      });
  st.sort = since(t);
  if (sum_out != sum_in) verification_failed("the checksum changed");
}

/// Rows larger than the budget: each sorted on its own in runs + merge,
/// into its place in the output.
void sort_rows_externally(const sort_config& c, int in_fd, int val_fd, std::uint64_t n, outputs& outs, progress& prog,
                          sort_stats& st) {
  const std::uint64_t rows = n / c.row;
  st.merged_rows = rows;
  for (std::uint64_t r = 0; r < rows; ++r)
    sort_external(c, in_fd, val_fd, r * c.row, c.row, outs, prog, st,
                  "row " + std::to_string(r + 1) + " of " + std::to_string(rows) + ": ");
}

/// Input larger than the budget: runs + merge, or for rows, blocks of whole
/// rows or runs + merge of each row. Commits once everything is verified.
void sort_larger_than_memory(const sort_config& c, int in_fd, int val_fd, std::uint64_t n, outputs& outs,
                             progress& prog, sort_stats& st) {
  if (!c.row)
    sort_external(c, in_fd, val_fd, 0, n, outs, prog, st);
  else if (rows_per_block(c) > 0)
    sort_rows_in_blocks(c, in_fd, val_fd, n, outs, prog, st);
  else
    sort_rows_externally(c, in_fd, val_fd, n, outs, prog, st);
  const auto t = clk::now();
  outs.commit();
  st.write = since(t);
}

/// Where run files go unless --tmpdir says: beside the file OUT replaces, or
/// $TMPDIR (else /tmp) when OUT is a FIFO or a device.
std::string default_tmpdir(const std::string& out) {
  const std::string real = io::follow_links(out);
  struct stat st {};
  if (::stat(real.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return io::system_temp_folder();
  return io::dir_of(real);
}

/// The default budget is half of what the process may use; a --memory above
/// all of it is honoured but warned about, and one too small for the runs
/// the merge can take (of the whole file, or of one row when rows do not
/// fit) is a usage error.
void set_memory_budget(sort_config& c, std::uint64_t n) {
  const io::memory_limit lim = io::usable_memory();
  const bool given = c.memory != 0;
  // Threads map stacks and cache-sized buffers of their own once the sort
  // starts, beyond what the process maps now: keep that out of the budget.
  const std::uint64_t thread_reserve = (std::uint64_t(32) << 20) * (hardware_threads() + 2);
  const std::uint64_t room = lim.bytes > 2 * thread_reserve ? lim.bytes - thread_reserve : lim.bytes / 2;
  if (!given)
    c.memory = lim.bytes ? std::max(room / 2, std::min<std::uint64_t>(room, std::uint64_t(16) << 20))
                         : std::uint64_t(1) << 30;
  else if (lim.bytes && c.memory > lim.bytes)
    std::fprintf(stderr, "radix sort: warning: --memory %s is more than the %s this process may use (%s); the sort may run out of memory\n",
                 format_bytes(double(c.memory)).c_str(), format_bytes(double(lim.bytes)).c_str(), lim.source.c_str());
  const std::size_t ev = c.layout.elem_bytes + c.value_bytes;
  const std::uint64_t per_elem = sort_bytes_per_element(c) + ev;  // two run slots
  if (n * sort_bytes_per_element(c) <= c.memory) return;          // sorts in memory
  if (rows_per_block(c) > 0) return;                              // sorts in blocks of rows
  // What runs + merge sorts: the file, or one row. Two elements a run at
  // least, and at most max_runs runs.
  const std::uint64_t unit = c.row ? c.row : n;
  const std::uint64_t least = std::max<std::uint64_t>(2 * per_elem, (unit + max_runs - 1) / max_runs * per_elem);
  if (c.memory >= least) return;
  const std::string what = (given ? "--memory " : "the default memory budget ") + format_bytes(double(c.memory)) +
                           " is too small to sort " + (c.row ? "a row of " : "") + std::to_string(unit) +
                           " elements of " + std::to_string(ev) + " bytes in at most " + std::to_string(max_runs) +
                           " runs: it needs at least " + format_bytes(double(least));
  if (given) throw usage_error(what);
  throw radix::out_of_memory("radix: " + what);
}

/// "1 row", "3 rows".
std::string count_of(std::uint64_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

/// What --stats says about how the file was sorted.
std::string plan_text(const sort_config& c, const sort_stats& st) {
  const std::string rows = c.row ? std::to_string(c.row) + "-element rows " : "";
  if (st.merged_rows)
    return count_of(st.merged_rows, "row") + " of " + std::to_string(c.row) + " elements, larger than the budget: each in " +
           std::to_string(st.runs / st.merged_rows) + " runs of up to " + std::to_string(st.run_elems) +
           " elements, then merged (two passes over the file)";
  if (st.blocks)
    return count_of(st.blocks, "block") + " of up to " + count_of(st.block_rows, "row") + " of " + std::to_string(c.row) +
           " elements, each sorted in memory (one pass over the file)";
  if (st.runs > 1)
    return std::to_string(st.runs) + " runs of up to " + std::to_string(st.run_elems) +
           " elements, then one merge (two passes over the file)";
  return rows + "sorted in memory (one pass over the file)";
}

void print_stats(const sort_config& c, const sort_stats& st, std::uint64_t n) {
  const radix::engine used = c.eng == radix::engine::automatic ? radix::default_engine() : c.eng;
  const std::string multi = c.gpus != 1 ? "cuda on several GPUs (NCCL) where the layout allows" : "";
  const char* en = st.fell_back_to_cpu ? "cpu (fallback)"
                   : !multi.empty()    ? multi.c_str()
                   : used == radix::engine::cuda ? "cuda"
                   : used == radix::engine::opencl ? "opencl"
                                                   : "cpu";
  const double bytes = double(n) * double(c.layout.elem_bytes + c.value_bytes);
  std::fprintf(stderr,
               "radix sort: %" PRIu64 " %s%s, %s, engine %s\n"
               "  memory budget %s: %s\n",
               n, c.layout.str().c_str(), c.value_bytes ? (" with " + std::to_string(c.value_bytes) + "-byte values").c_str() : "",
               format_bytes(bytes).c_str(), en, format_bytes(double(st.budget)).c_str(), plan_text(c, st).c_str());
  if (st.blocks)
    std::fprintf(stderr, "  read + sort + verify + write blocks %.3f s, commit %.3f s\n", st.sort, st.write);
  else if (st.runs > 1)
    std::fprintf(stderr, "  read + sort + write runs %.3f s, merge + verify + write %.3f s, commit %.3f s\n", st.sort, st.merge,
                 st.write);
  else
    std::fprintf(stderr, "  read + checksum %.3f s, sort %.3f s, write + verify + flush to disk %.3f s\n", st.read, st.sort,
                 st.write);
  std::fprintf(stderr, "  total %.3f s, %s/s, %.1f M elements/s\n", st.total, format_bytes(bytes / std::max(st.total, 1e-9)).c_str(),
               double(n) / std::max(st.total, 1e-9) / 1e6);
}

const char* const sort_help_text =
    "Usage: radix sort IN -o OUT [options]\n"
    "\n"
    "Sorts the file IN into OUT (which may be IN itself), or each row of it on\n"
    "its own (--segment-length). Stable: equal keys keep their order. OUT\n"
    "appears only when the sort is complete and verified (in order, every row\n"
    "in order with --segment-length, and the same elements as IN by checksum);\n"
    "until then it is written to an invisible file in OUT's folder, and IN is\n"
    "only read. On any error or signal, nothing is written and IN is untouched.\n"
    "\n"
    "What OUT can be:\n"
    "  - a new or existing regular file: replaced in one step (rename); a replaced\n"
    "    file keeps its mode and, where allowed, its owner and group; a new one\n"
    "    gets 0666 minus the umask;\n"
    "  - a symbolic link: the file it points to is replaced, the link stays;\n"
    "  - a FIFO, a device or another file that is not regular: it cannot be\n"
    "    replaced atomically, so the verified result is written straight into it\n"
    "    at the end (kept meanwhile in a nameless file in --tmpdir); a reader that\n"
    "    goes away, or a signal, leaves it with part of the output.\n"
    "With --values, the keys and values outputs commit as a pair: a crash at any\n"
    "moment leaves both old files or both new ones. A commit cut short between its\n"
    "two renames (kill -9, power loss) is completed by the next `radix sort`,\n"
    "`radix gen` or `radix recover` in that folder, which also remove temporary\n"
    "files left by processes that are gone.\n"
    "\n";

const char* const sort_help_tail =
    "\n"
    "Values:\n"
    "      --values FILE      a parallel value file: element i of FILE moves with\n"
    "                         element i of IN (any value size: FILE's size / count)\n"
    "      --value-size V     the value size in bytes, checked against FILE's size\n"
    "      --values-out FILE  where the sorted values go (may be the values file)\n"
    "\n"
    "Rows (a batch of arrays):\n"
    "      --segment-length L\n"
    "                         IN is rows of L elements each (keys or records,\n"
    "                         with their values), and each row is sorted on its\n"
    "                         own (stable, with the options below). The element\n"
    "                         count must be a multiple of L, and L > 0. Input\n"
    "                         larger than the memory budget is sorted in blocks\n"
    "                         of whole rows, written in order (no merge); a row\n"
    "                         larger than the budget is sorted on its own in\n"
    "                         runs + merge, as a file is. Verified row by row.\n"
    "\n"
    "How to sort:\n"
    "      --descending       descending order (still stable)\n"
    "      --bits A:B         sort by bits [A, B) of the key only (bit 0 is the\n"
    "                         least significant bit of the ordered key)\n"
    "      --float-order O    numeric (default: -0.0 == +0.0, NaNs last; first when\n"
    "                         descending) or total (IEEE 754 totalOrder)\n"
    "      --engine E         auto (default: CUDA when built and a GPU is present),\n"
    "                         cpu, cuda or opencl\n"
    "      --threads T        CPU engine threads (default 0: all)\n"
    "      --gpus N|all       sort each block over N GPUs together through NCCL (keys\n"
    "                         of up to 8 bytes, alone or with values of 1, 2, 4, 8 or\n"
    "                         16 bytes; other layouts use one GPU); default 1\n"
    "\n"
    "Larger than memory:\n"
    "      --memory M         memory budget, e.g. 512M, 1.5G or 8G (default: half\n"
    "                         of what this process may use: the smallest of the\n"
    "                         available memory, ulimit -v / -d and the cgroup's\n"
    "                         limit). Input that does not fit is sorted in runs\n"
    "                         that do, written to temporary files, and merged.\n"
    "      --tmpdir DIR       folder for the temporary run files (default: OUT's\n"
    "                         folder; $TMPDIR or /tmp when OUT is not a regular\n"
    "                         file). They have no name and vanish with the\n"
    "                         process, however it ends.\n"
    "\n"
    "Output:\n"
    "  -o, --output OUT       the sorted file (required)\n"
    "  -q, --quiet            no progress line\n"
    "      --progress         a progress line even when stderr is not a terminal\n"
    "      --stats            print what was done: engine, runs, time per phase,\n"
    "                         throughput\n"
    "\n"
    "Exit status: 0 sorted and verified, 2 bad command line, 3 could not sort (an\n"
    "unreadable file, a size that is not a whole number of elements, disk full,\n"
    "out of memory, ...), 128+N killed by signal N. Errors are one line on stderr.\n"
    "\n"
    "Examples:\n"
    "  radix sort keys.u64 -o keys.u64 -t u64                    sort in place\n"
    "  radix sort data.bin -o out.bin --record-size 100 --key-type bytes:10\n"
    "  radix sort big.bin -o out.bin -t f32 --memory 512M --tmpdir /scratch\n"
    "  radix sort ids.u32 -o ids.sorted -t u32 --values w.f64 --values-out w.sorted\n"
    "  radix sort m.f32 -o rows.f32 -t f32 --segment-length 1024  each 1024-key row\n";

}  // namespace

std::string sort_help() { return std::string(sort_help_text) + layout_help + sort_help_tail; }

int sort_command(const std::vector<std::string>& args) {
  sort_config c;
  layout_options lo;
  std::string value_size;
  std::vector<option_spec> specs;
  lo.add_to(specs, true);
  specs.push_back({"output", 'o', true, [&](const std::string& v) { c.out = v; }});
  specs.push_back({"values", 0, true, [&](const std::string& v) { c.values_in = v; }});
  specs.push_back({"value-size", 0, true, [&](const std::string& v) { value_size = v; }});
  specs.push_back({"values-out", 0, true, [&](const std::string& v) { c.values_out = v; }});
  specs.push_back({"engine", 0, true, [&](const std::string& v) {
                     const auto e = parse_choice(v, {"auto", "cpu", "cuda", "opencl"});
                     c.eng = e == "cpu" ? radix::engine::cpu
                             : e == "cuda" ? radix::engine::cuda
                             : e == "opencl" ? radix::engine::opencl
                                             : radix::engine::automatic;
                   }});
  specs.push_back({"threads", 0, true, [&](const std::string& v) { c.threads = unsigned(parse_int(v, 0, 4096)); }});
  specs.push_back({"memory", 0, true, [&](const std::string& v) {
                     c.memory = parse_count(v);
                     if (c.memory == 0) throw usage_error("must be more than 0");
                   }});
  specs.push_back({"tmpdir", 0, true, [&](const std::string& v) { c.tmpdir = v; }});
  specs.push_back({"segment-length", 0, true, [&](const std::string& v) {
                     c.row = parse_count(v);
                     if (c.row == 0) throw usage_error("must be more than 0 (a row holds at least one element)");
                   }});
  specs.push_back({"gpus", 0, true, [&](const std::string& v) {
                     c.gpus = v == "all" ? 0 : int(parse_int(v, 1, 1024));
                     // One process driving several GPUs: CUDA's lazy kernel loading would
                     // deadlock against NCCL (radix/nccl.hpp). Before CUDA starts.
                     if (c.gpus != 1) setenv("CUDA_MODULE_LOADING", "EAGER", 0);
                   }});
  specs.push_back({"quiet", 'q', false, [&](const std::string&) { c.quiet = true; }});
  specs.push_back({"progress", 0, false, [&](const std::string&) { c.force_progress = true; }});
  specs.push_back({"stats", 0, false, [&](const std::string&) { c.stats = true; }});
  std::vector<std::string> pos;
  parse_options(args, specs, &pos);
  if (pos.size() != 1) throw usage_error(pos.empty() ? "no input file" : "one input file at a time");
  c.in = pos[0];
  if (c.out.empty()) throw usage_error("no output: -o OUT (OUT may be the input file)");
  c.layout = lo.layout();
  c.order = lo.order(c.layout);
  if (c.values_in.empty() != c.values_out.empty())
    throw usage_error(c.values_in.empty() ? "--values-out needs --values" : "--values needs --values-out FILE (may be the values file)");
  if (!value_size.empty() && c.values_in.empty()) throw usage_error("--value-size needs --values");
  if (!c.values_out.empty() && (c.values_out == c.out || io::same_file(c.values_out, c.out) ||
                                c.values_out == c.in || io::same_file(c.values_out, c.in)))
    throw usage_error("--values-out must not name the input or the output file");
  if (!c.values_in.empty() && (c.out == c.values_in || io::same_file(c.out, c.values_in)))
    throw usage_error("-o must not name the values file");
  if (c.tmpdir.empty()) c.tmpdir = default_tmpdir(c.out);
  if (c.gpus != 1 && c.eng != radix::engine::cuda && c.eng != radix::engine::automatic)
    throw usage_error("--gpus sorts on the CUDA engine: drop --engine or pass --engine cuda");
#ifndef RADIX_CLI_HAVE_NCCL
  if (c.gpus != 1)
    throw radix::engine_unavailable("radix: --gpus needs the sort over several GPUs (radix::nccl), which this build "
                                    "does not have: it needs the CUDA engine and NCCL (see README.md, Building)");
#endif

  io::install_signal_handlers("radix sort", "the input is untouched");
  // Interrupted pair commits and temporaries of earlier runs that died.
  io::recover_folders("radix sort", {io::dir_of(io::follow_links(c.out)), c.tmpdir,
                                     c.values_out.empty() ? c.tmpdir : io::dir_of(io::follow_links(c.values_out))});
  const auto t0 = clk::now();
  sort_stats st;

  io::fd_handle in = io::open_input(c.in);
  const std::uint64_t size = io::file_size(in.get(), c.in);
  const std::size_t e = c.layout.elem_bytes;
  if (size % e != 0)
    throw io::io_error(c.in + ": " + std::to_string(size) + " bytes is not a whole number of " +
                                  std::to_string(e) + "-byte " + (c.layout.records ? "records" : "keys") +
                                  " (" + std::to_string(size % e) + " bytes left over)");
  const std::uint64_t n = size / e;
  if (c.row && n % c.row != 0)
    throw io::io_error(c.in + ": " + std::to_string(n) + " " + (c.layout.records ? "records" : "keys") +
                       " are not a whole number of rows of --segment-length " + std::to_string(c.row) + " (" +
                       std::to_string(n / c.row) + " rows and " + std::to_string(n % c.row) + " left over)");
  io::fd_handle vals;
  if (!c.values_in.empty()) {
    vals = io::open_input(c.values_in);
    const std::uint64_t vs = io::file_size(vals.get(), c.values_in);
    if (!value_size.empty()) {
      c.value_bytes = std::size_t(parse_count(value_size));
      if (c.value_bytes == 0) throw usage_error("--value-size must be more than 0");
    } else if (n > 0) {
      c.value_bytes = std::size_t(vs / n);
    }
    if (n > 0 && (c.value_bytes == 0 || vs != n * c.value_bytes))
      throw io::io_error(c.values_in + ": " + std::to_string(vs) + " bytes do not hold " + std::to_string(n) +
                                    " values" + (value_size.empty() ? "" : " of " + value_size + " bytes") +
                                    " (one per element of " + c.in + ")");
    if (n == 0 && vs != 0) throw io::io_error(c.values_in + ": values for an empty input");
  }
  if (c.eng != radix::engine::automatic && !radix::engine_available(c.eng))
    throw radix::engine_unavailable(std::string("radix: engine ") +
                                    (c.eng == radix::engine::cuda ? "cuda" : c.eng == radix::engine::opencl ? "opencl" : "cpu") +
                                    " is not available on this machine (see 'radix --version')");
  set_memory_budget(c, n);
  st.budget = c.memory;

  progress prog(!c.quiet && (c.force_progress || ::isatty(2)));
  const std::uint64_t need = n * sort_bytes_per_element(c);
  outputs outs(c);
  if (need <= c.memory)
    sort_in_memory(c, in.get(), vals.get(), n, outs, prog, st);
  else
    sort_larger_than_memory(c, in.get(), vals.get(), n, outs, prog, st);
  prog.clear();
  st.total = since(t0);

  if (c.stats) print_stats(c, st, n);
  return exit_ok;
}

}  // namespace radix_cli
