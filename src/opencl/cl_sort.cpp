// One sort on an OpenCL queue. Helluy 2011, "A portable implementation of
// the radix sort algorithm in OpenCL", §2 and §3.2: per pass a
// histogram (one column of counters per work-item), a scan split into s
// parts, and a reorder; an optional transpose first (§3.2.1). The digit
// comes from the ordered key computed inside the kernels with the masks of
// core::make_codec, so the keys keep their exact bits and no host pass
// touches them. Passes come from core::plan_passes (the one planner).
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cl_internal.hpp"
#include "radix/core/ordered_bits.hpp"
#include "radix/core/pass_plan.hpp"
#include "radix/core/sort_plan.hpp"
#include "radix/error.hpp"

namespace radix::opencl::detail {


namespace {

std::uint64_t round_up(std::uint64_t a, std::uint64_t b) { return ceil_div(a, b) * b; }

/// The scratch of one sort: two key and two payload buffers, the histogram,
/// the scan sums, and for the index route the permutation and the values'
/// copy. Slices are at least a byte (a buffer of their own cannot be empty)
/// and aligned to the device's base alignment, from offset 0 of a workspace
/// buffer.
struct layout {
  geometry geo;
  core::workspace_layout slices;
  enum : int { keys0, keys1, vals0, vals1, hist, sums, perm, copy };
  unsigned parts = 1;
  std::uint64_t part_len = 0;
  unsigned blocks = 1;              // the chunked scan: blocks of block_rows chunks
  std::uint64_t block_rows = 1;
  std::uint64_t total() const { return slices.aligned_total(); }
};

layout layout_for(const queue_facts& f, const core::sort_plan& p) {
  layout l;
  l.geo = geometry_for(f, p);
  const std::uint64_t pos = l.geo.wide ? 8 : 4;
  const std::uint64_t keys_bytes = l.geo.slots * p.key_bytes, vals_bytes = l.geo.slots * p.payload_bytes;
  const std::uint64_t hist_len = (std::uint64_t(1) << l.geo.digit_bits) * l.geo.items;
  l.parts = unsigned(std::max<std::uint64_t>(1, std::min<std::uint64_t>(f.pol.scan_parts, ceil_div(hist_len, f.pol.scan_items))));
  l.part_len = ceil_div(hist_len, l.parts);
  std::uint64_t sums_bytes = std::uint64_t(l.parts) * pos;
  if (l.geo.chunked) {
    // The chunked scan's block sums: one row of 2^r per block of chunks.
    l.blocks = unsigned(std::clamp<std::uint64_t>(f.pol.cs_scan_blocks, 1, l.geo.items));
    l.block_rows = ceil_div(l.geo.items, l.blocks);
    l.blocks = unsigned(ceil_div(l.geo.items, l.block_rows));
    sums_bytes = std::max<std::uint64_t>(sums_bytes, (std::uint64_t(l.blocks) << l.geo.digit_bits) * pos);
  }
  const bool via_index = p.route == core::value_route::via_index;
  l.slices = core::workspace_layout(f.info.base_align);
  auto add = [&](const char* name, std::uint64_t bytes) { l.slices.add(name, std::max<std::uint64_t>(bytes, 1)); };
  add("keys 0", keys_bytes);
  add("keys 1", keys_bytes);
  add("values 0", vals_bytes);
  add("values 1", vals_bytes);
  add("histogram", hist_len * pos);
  add("scan sums", sums_bytes);
  if (via_index) {
    add("permutation", p.n * p.index_bytes);
    add("values copy", p.n * p.value_bytes);
  }
  return l;
}

/// Where a kernel finds one of its arrays: a buffer and a byte offset into it.
struct ref {
  cl_mem m = nullptr;
  std::uint64_t off = 0;
  bool operator==(const ref&) const = default;
};

/// A scratch region: a buffer of its own, released with the region, or a
/// stretch of the caller's workspace (by offset: sub-buffers of a workspace
/// made every sort on NVIDIA's OpenCL about 100 times slower).
struct mem {
  cl_mem m = nullptr;
  std::uint64_t off = 0;  ///< bytes
  bool owned = false;
  mem() = default;
  mem(cl_mem x, std::uint64_t o, bool own) : m(x), off(o), owned(own) {}
  mem(mem&& o) noexcept : m(std::exchange(o.m, nullptr)), off(o.off), owned(std::exchange(o.owned, false)) {}
  mem& operator=(mem&& o) noexcept {
    std::swap(m, o.m);
    std::swap(off, o.off);
    std::swap(owned, o.owned);
    return *this;
  }
  ~mem() {
    if (owned && m) clReleaseMemObject(m);
  }
  ref at() const { return {m, off}; }
};

/// Hands out the layout's slices: stretches of the caller's workspace, or
/// buffers of their own when there is none.
class carver {
 public:
  carver(const queue_facts& f, const core::workspace_layout& l, cl_mem ws) : f_(f), l_(l), ws_(ws) {}
  mem take(int slice) {
    if (ws_) return mem(ws_, l_.offset(slice), false);
    const std::uint64_t bytes = l_.bytes(slice);
    if (bytes > f_.info.max_alloc)
      throw out_of_memory("radix: OpenCL scratch buffer '" + std::string(l_.name(slice)) + "' of " +
                          std::to_string(bytes) + " bytes is larger than the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE (" +
                          std::to_string(f_.info.max_alloc) + ")");
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(f_.context, CL_MEM_READ_WRITE, std::size_t(bytes), nullptr, &err);
    if (err == CL_INVALID_BUFFER_SIZE || err == CL_OUT_OF_RESOURCES) err = CL_MEM_OBJECT_ALLOCATION_FAILURE;
    check(err, "clCreateBuffer");
    return mem(m, 0, true);
  }

 private:
  const queue_facts& f_;
  const core::workspace_layout& l_;
  cl_mem ws_;
};

enum class phase { transpose, histogram, scan, reorder, other };

/// Enqueues kernels and, when profiling, keeps their events by phase.
class launcher {
 public:
  launcher(cl_command_queue q, bool profile) : q_(q), profile_(profile) {}
  ~launcher() {
    for (auto& e : events_) clReleaseEvent(e.second);
  }
  void run(kernel& k, phase ph, cl_uint dims, const std::size_t* global, const std::size_t* local, const char* name) {
    for (cl_uint d = 0; d < dims; ++d)
      if (global[d] == 0) return;
    cl_event ev = nullptr;
    const cl_int err = clEnqueueNDRangeKernel(q_, k.k, dims, nullptr, global, local, 0, nullptr, profile_ ? &ev : nullptr);
    if (err != CL_SUCCESS)
      check(err, (std::string("clEnqueueNDRangeKernel(") + name + ")").c_str());
    if (ev) events_.emplace_back(ph, ev);
  }
  void copy(ref from, ref to, std::uint64_t bytes) {
    if (bytes == 0) return;
    cl_event ev = nullptr;
    check(clEnqueueCopyBuffer(q_, from.m, to.m, std::size_t(from.off), std::size_t(to.off), std::size_t(bytes), 0,
                              nullptr, profile_ ? &ev : nullptr),
          "clEnqueueCopyBuffer");
    if (ev) events_.emplace_back(phase::other, ev);
  }
  void collect(phase_times& t) {
    check(clFinish(q_), "clFinish");
    for (auto& [ph, ev] : events_) {
      cl_ulong a = 0, b = 0;
      check(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof(a), &a, nullptr),
            "clGetEventProfilingInfo (was the queue created with CL_QUEUE_PROFILING_ENABLE?)");
      check(clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof(b), &b, nullptr), "clGetEventProfilingInfo");
      const double ms = double(b - a) * 1e-6;
      switch (ph) {
        case phase::transpose: t.transpose_ms += ms; break;
        case phase::histogram: t.histogram_ms += ms; break;
        case phase::scan: t.scan_ms += ms; break;
        case phase::reorder: t.reorder_ms += ms; break;
        case phase::other: t.other_ms += ms; break;
      }
    }
  }

 private:
  cl_command_queue q_;
  bool profile_;
  std::vector<std::pair<phase, cl_event>> events_;
};

/// A buffer argument at `at` and its element offset at `off_at` (the kernels'
/// trailing o_<name> arguments).
void set_buf(kernel& k, cl_uint at, cl_uint off_at, ref r, std::size_t elem) {
  k.arg(at, r.m);
  k.arg(off_at, cl_ulong(r.off / elem));
}

void set_codec(kernel& k, cl_uint at, const codec_args& c) {
  k.arg(at + 0, cl_ulong(c.pos_xor));
  k.arg(at + 1, cl_ulong(c.neg_xor));
  k.arg(at + 2, cl_ulong(c.flip));
  k.arg(at + 3, cl_ulong(c.nan_above));
  k.arg(at + 4, cl_int(c.canon));
}

std::size_t grid_for(std::uint64_t n, std::size_t wg) {
  // Enough groups to fill a device, few enough that each item loops a while.
  const std::uint64_t want = std::min<std::uint64_t>(ceil_div(n, wg), 4096);
  return std::size_t(want * wg);
}

}  // namespace

/// Byte-string keys reach the engine only as argsorts of 64-bit chunks (src/api).
void check_key(const sort_request& r) {
  if (r.key.kind == key_kind::bytes)
    throw invalid_argument("radix: the OpenCL buffer API has no byte-string keys; sort them through the host API");
}

std::size_t workspace_impl(const queue_facts& f, const sort_request& r) {
  check_key(r);
  if (r.n < 2) return 0;
  return std::size_t(layout_for(f, core::plan_sort(r, device_caps())).total());
}

void sort_impl(const sort_request& r, cl_command_queue q, cl_mem ws, std::size_t ws_bytes, phase_times* profile) {
  check_key(r);
  sort_with(facts_of(q), r, q, ws, ws_bytes, profile);
}

void sort_with(const queue_facts& f, const sort_request& r, cl_command_queue q, cl_mem ws, std::size_t ws_bytes,
               phase_times* profile) {
  check_key(r);
  const std::uint64_t n = r.n;
  const ref K{static_cast<cl_mem>(r.keys), 0};
  const core::sort_plan rp = core::plan_sort(r, device_caps());
  const layout l = layout_for(f, rp);
  if (ws && ws_bytes < l.total())
    throw out_of_memory("radix: OpenCL workspace of " + std::to_string(ws_bytes) + " bytes is too small; this sort needs " +
                        std::to_string(l.total()));
  if (!ws && l.total() > f.info.global_mem)
    throw out_of_memory("radix: this OpenCL sort needs " + std::to_string(l.total()) +
                        " bytes of scratch; the device has " + std::to_string(f.info.global_mem));
  launcher run(q, profile != nullptr);

  // The geometry's digit width is already the request's where it names one.
  const core::pass_plan plan = core::plan_passes(rp.begin_bit, rp.end_bit, l.geo.digit_bits);
  const program_key pk{rp.key_bytes, rp.payload_bytes, l.geo.wide, l.geo.chunked ? int(l.geo.per_item) : 1};

  if (n < 2 && r.op != operation::argsort) return;
  cl_program prog = get_program(f.context, f.device, f.pol, pk);

  if (r.op == operation::argsort && (n == 1 || plan.count == 0)) {
    // Nothing to sort by: the permutation is the identity.
    kernel k(prog, "rx_iota");
    k.arg(0, static_cast<cl_mem>(r.indices));
    k.arg(1, cl_ulong(n));
    const std::size_t wg = std::min<std::size_t>(64, f.info.max_wg), global = grid_for(n, wg);
    run.run(k, phase::other, 1, &global, &wg, "rx_iota");
    if (profile) run.collect(*profile);
    return;
  }
  if (n < 2 || plan.count == 0) return;

  carver c(f, l.slices, ws);
  mem S[2] = {c.take(layout::keys0), c.take(layout::keys1)};
  mem SV[2] = {c.take(layout::vals0), c.take(layout::vals1)};
  mem H = c.take(layout::hist), sums = c.take(layout::sums);
  mem perm, copy;
  const bool via_index = rp.route == core::value_route::via_index;
  if (via_index) {
    perm = c.take(layout::perm);
    copy = c.take(layout::copy);
  }

  const geometry& g = l.geo;
  const std::uint64_t kb = rp.key_bytes, vb = rp.payload_bytes;
  const std::size_t ve = std::max<std::size_t>(vb, 1);  // element of the value arrays (uchar when keys only)
  const bool gen_index = rp.route == core::value_route::indices || via_index;
  // Where the payload starts and where the final keys / payload land.
  const ref V{rp.route == core::value_route::native ? static_cast<cl_mem>(r.values) : nullptr, 0};
  const ref final_vals = rp.route == core::value_route::indices ? ref{static_cast<cl_mem>(r.indices), 0}
                         : via_index                             ? perm.at()
                                                                 : V;

  // Source of pass 0: the caller's keys, or a (transposed) copy in S[1].
  ref src_k = K, src_v = V;
  bool src_tr = false;
  // The local-sort path reads contiguous tiles: nothing to transpose.
  const bool transpose = f.pol.transpose && g.items > 1 && !g.local_sort && !g.chunked;
  if (transpose) {
    kernel tk(prog, "rx_transpose_keys");
    set_buf(tk, 0, 5, K, kb);
    set_buf(tk, 1, 6, S[1].at(), kb);
    tk.arg(2, cl_ulong(n));
    tk.arg(3, cl_ulong(g.chunk));
    tk.arg(4, cl_ulong(g.items));
    const std::size_t tile = f.pol.tile;
    const std::size_t global[2] = {std::size_t(round_up(g.chunk, tile)), std::size_t(round_up(g.items, tile))};
    const std::size_t local[2] = {tile, tile};
    run.run(tk, phase::transpose, 2, global, local, "rx_transpose_keys");
    if (V.m) {
      kernel tv(prog, "rx_transpose_vals");
      set_buf(tv, 0, 5, V, vb);
      set_buf(tv, 1, 6, SV[1].at(), vb);
      tv.arg(2, cl_ulong(n));
      tv.arg(3, cl_ulong(g.chunk));
      tv.arg(4, cl_ulong(g.items));
      run.run(tv, phase::transpose, 2, global, local, "rx_transpose_vals");
    }
    src_k = S[1].at();
    src_v = V.m ? SV[1].at() : ref{};
    src_tr = true;
  } else if (plan.count == 1 && r.op != operation::argsort) {
    // One pass cannot reorder in place: move the input aside first.
    run.copy(K, S[1].at(), n * kb);
    if (V.m) run.copy(V, SV[1].at(), n * vb);
    src_k = S[1].at();
    src_v = V.m ? SV[1].at() : ref{};
  }
  if (!src_v.m) src_v = H.at();  // not read (gen_index, or keys only); any valid buffer

  const codec_args codec = codec_for(r.key, r.opts.direction, r.opts.floats);
  const char* count_name = g.chunked ? "rx_cs_count" : g.local_sort ? "rx_ls_count" : "rx_histogram";
  const char* reorder_name = g.chunked ? "rx_cs_reorder" : g.local_sort ? "rx_ls_reorder" : "rx_reorder";
  kernel hk(prog, count_name), ss(prog, g.chunked ? "rx_cs_block_sums" : "rx_scan_sums"),
      sp(prog, g.chunked ? "rx_cs_block_starts" : "rx_scan_parts"), rk(prog, reorder_name);
  const std::size_t pos = g.wide ? 8 : 4;
  const std::size_t items = g.chunked ? f.pol.cs_items : g.local_sort ? f.pol.ls_items : f.pol.items;
  const std::size_t groups_global =
      g.local_sort || g.chunked ? std::size_t(g.items) * items : std::size_t(g.items);
  const std::size_t scan_wg = f.pol.scan_items, scan_global = std::size_t(l.parts) * scan_wg;

  for (int p = 0; p < plan.count; ++p) {
    const core::pass& ps = plan[p];
    const bool last = p == plan.count - 1;
    const std::uint64_t hist_len = (std::uint64_t(1) << ps.bits) * g.items;
    const std::uint64_t part = ceil_div(hist_len, l.parts);
    ref dst_k = S[p % 2].at();
    // The last pass writes the caller's keys; argsort leaves them alone and
    // drops its keys in whichever scratch region is not the pass's source.
    if (last) dst_k = r.op != operation::argsort ? K : src_k == S[0].at() ? S[1].at() : S[0].at();
    ref dst_v = last ? final_vals : SV[p % 2].at();
    if (!dst_v.m) dst_v = H.at();  // keys only
    const cl_uint in_tr = src_tr ? 1 : 0, out_tr = (!last && transpose) ? 1 : 0;

    if (g.chunked) {
      set_buf(hk, 0, 11, src_k, kb);
      hk.arg(1, cl_ulong(n));
      hk.arg(2, cl_ulong(g.chunk));
      set_codec(hk, 3, codec);
      hk.arg(8, cl_uint(ps.shift));
      hk.arg(9, cl_uint(ps.bits));
      set_buf(hk, 10, 12, H.at(), pos);
      // At most cs_count_groups groups a compute unit, each counting several chunks.
      const std::size_t count_global =
          std::min<std::size_t>(g.items, std::size_t(f.info.compute_units) * std::max(1u, f.pol.cs_count_groups)) * items;
      run.run(hk, phase::histogram, 1, &count_global, &items, count_name);
    } else if (g.local_sort) {
      set_buf(hk, 0, 12, src_k, kb);
      hk.arg(1, cl_ulong(n));
      hk.arg(2, cl_uint(g.chunk));
      set_codec(hk, 3, codec);
      hk.arg(8, cl_uint(ps.shift));
      hk.arg(9, cl_uint(ps.bits));
      set_buf(hk, 10, 13, H.at(), pos);
      hk.local(11, (std::size_t(1) << ps.bits) * sizeof(cl_uint));
      run.run(hk, phase::histogram, 1, &groups_global, &items, "rx_ls_count");
    } else {
      set_buf(hk, 0, 13, src_k, kb);
      hk.arg(1, cl_ulong(n));
      hk.arg(2, cl_ulong(g.chunk));
      hk.arg(3, in_tr);
      set_codec(hk, 4, codec);
      hk.arg(9, cl_uint(ps.shift));
      hk.arg(10, cl_uint(ps.bits));
      set_buf(hk, 11, 14, H.at(), pos);
      hk.local(12, (std::size_t(1) << ps.bits) * items * pos);
      run.run(hk, phase::histogram, 1, &groups_global, &items, "rx_histogram");
    }

    if (g.chunked) {
      // The count matrix is chunk-major (a chunk's 2^r counts in a row).
      // Both kernels: (counts, chunks, rows, bits, bsums, ..., element offsets from off_at).
      const std::size_t blocks_global = std::size_t(l.blocks) * items;
      auto set_blocks = [&](kernel& k, cl_uint off_at) {
        set_buf(k, 0, off_at, H.at(), pos);
        k.arg(1, cl_ulong(g.items));
        k.arg(2, cl_ulong(l.block_rows));
        k.arg(3, cl_uint(ps.bits));
        set_buf(k, 4, off_at + 1, sums.at(), pos);
      };
      set_blocks(ss, 5);
      run.run(ss, phase::scan, 1, &blocks_global, &items, "rx_cs_block_sums");
      set_blocks(sp, 6);
      sp.arg(5, cl_uint(l.blocks));
      run.run(sp, phase::scan, 1, &blocks_global, &items, "rx_cs_block_starts");
    } else {
      // the two scan launches take the same arguments
      auto scan_step = [&](kernel& k, const char* name) {
        set_buf(k, 0, 5, H.at(), pos);
        k.arg(1, cl_ulong(hist_len));
        k.arg(2, cl_ulong(part));
        set_buf(k, 3, 6, sums.at(), pos);
        k.local(4, scan_wg * pos);
        run.run(k, phase::scan, 1, &scan_global, &scan_wg, name);
      };
      scan_step(ss, "rx_scan_sums");
      scan_step(sp, "rx_scan_parts");
    }

    // The reorders' first four arguments (keys in / out, values in / out)
    // and their element offsets, which start at `off_at`.
    auto set_io = [&](kernel& k, cl_uint off_at) {
      set_buf(k, 0, off_at, src_k, kb);
      set_buf(k, 1, off_at + 1, dst_k, kb);
      set_buf(k, 2, off_at + 2, src_v, ve);
      set_buf(k, 3, off_at + 3, dst_v, ve);
    };
    if (g.chunked) {
      set_io(rk, 15);
      rk.arg(4, cl_ulong(n));
      rk.arg(5, cl_ulong(g.chunk));
      set_codec(rk, 6, codec);
      rk.arg(11, cl_uint(ps.shift));
      rk.arg(12, cl_uint(ps.bits));
      set_buf(rk, 13, 19, H.at(), pos);
      rk.arg(14, cl_uint(gen_index && p == 0 ? 1 : 0));
      run.run(rk, phase::reorder, 1, &groups_global, &items, reorder_name);
    } else if (g.local_sort) {
      const std::size_t R = std::size_t(1) << ps.bits;
      set_io(rk, 21);
      rk.arg(4, cl_ulong(n));
      rk.arg(5, cl_uint(g.per_item));
      set_codec(rk, 6, codec);
      rk.arg(11, cl_uint(ps.shift));
      rk.arg(12, cl_uint(ps.bits));
      set_buf(rk, 13, 25, H.at(), pos);
      rk.arg(14, cl_uint(gen_index && p == 0 ? 1 : 0));
      rk.local(15, R * (items + 2) * sizeof(cl_ushort));
      rk.local(16, R * pos);
      rk.local(17, R * sizeof(cl_ushort));
      rk.local(18, items * sizeof(cl_uint));
      rk.local(19, std::size_t(g.chunk) * kb);
      rk.local(20, std::size_t(g.chunk) * std::max<std::size_t>(vb, 1));
      run.run(rk, phase::reorder, 1, &groups_global, &items, "rx_ls_reorder");
    } else {
      set_io(rk, 18);
      rk.arg(4, cl_ulong(n));
      rk.arg(5, cl_ulong(g.chunk));
      rk.arg(6, in_tr);
      rk.arg(7, out_tr);
      set_codec(rk, 8, codec);
      rk.arg(13, cl_uint(ps.shift));
      rk.arg(14, cl_uint(ps.bits));
      set_buf(rk, 15, 22, H.at(), pos);
      rk.arg(16, cl_uint(gen_index && p == 0 ? 1 : 0));
      rk.local(17, (std::size_t(1) << ps.bits) * items * pos);
      run.run(rk, phase::reorder, 1, &groups_global, &items, "rx_reorder");
    }

    src_k = dst_k;
    src_v = dst_v;
    src_tr = out_tr != 0;
  }

  if (via_index) {
    // Values the reorder does not carry: gather them by the permutation.
    const ref Vuser{static_cast<cl_mem>(r.values), 0};
    run.copy(Vuser, copy.at(), n * r.value_bytes);
    kernel gk(prog, "rx_gather");
    set_buf(gk, 0, 5, copy.at(), 1);
    gk.arg(1, Vuser.m);
    set_buf(gk, 2, 6, perm.at(), vb);
    gk.arg(3, cl_ulong(n));
    gk.arg(4, cl_ulong(r.value_bytes));
    const std::size_t wg = std::min<std::size_t>(64, f.info.max_wg), global = grid_for(n, wg);
    run.run(gk, phase::other, 1, &global, &wg, "rx_gather");
  }
  if (profile) {
    profile->passes = plan.count;
    run.collect(*profile);
  }
}

}  // namespace radix::opencl::detail
