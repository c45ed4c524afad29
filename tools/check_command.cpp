// radix CLI — `radix check FILE...`: verifies that files are sorted and
// prints a checksum of each file's multiset of elements, so that one can
// prove a sort lost nothing (the idea of the sort benchmarks' valsort):
// the checksum of the output must equal the checksum of the input.
#include <unistd.h>

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "fileio.hpp"
#include "output.hpp"
#include "layout.hpp"
#include "progress.hpp"

namespace radix_cli {

namespace {

const char* const check_head =
    "Usage: radix check FILE... [options]\n"
    "\n"
    "For each FILE: counts its elements, checks that they are in order (the order\n"
    "`radix sort` makes with the same options), and prints a checksum of the\n"
    "multiset of elements: the sum of a 64-bit hash of each element, which does\n"
    "not depend on their order. A sort lost, duplicated or altered nothing when\n"
    "the output's checksum and count equal the input's.\n"
    "\n"
    "      --same-as REF      also compute REF's checksum (not its order) and fail\n"
    "                         unless every FILE has the same count and checksum\n"
    "      --values FILE      include a parallel value file in the checksum\n"
    "                         (with one FILE; --value-size V, else size / count)\n"
    "      --value-size V     bytes per value\n"
    "      --no-order         only count and checksum (e.g. for unsorted input)\n"
    "  -q, --quiet            no progress line\n"
    "\n";

const char* const check_tail =
    "      --descending, --bits A:B, --float-order O   the order, as for `radix sort`\n"
    "\n"
    "Output, one line per file:\n"
    "  FILE: N elements, sorted, checksum 0123456789abcdef\n"
    "\n"
    "A raw file does not record what it holds: check reads it as the type you\n"
    "give. A file of u32 keys checked with -t u64 is read as half as many u64\n"
    "keys, and may well pass; give the same layout options as to `radix sort`.\n"
    "\n"
    "Exit status: 0 all sorted (and equal to REF), 1 a file is out of order or\n"
    "differs from REF, 2 bad command line, 3 a file could not be read or is not a\n"
    "whole number of elements.\n"
    "\n"
    "Example:\n"
    "  radix check out.bin --same-as in.bin --record-size 100 --key-type bytes:10\n";

struct file_report {
  std::uint64_t n = 0, sum = 0;
  std::uint64_t first_bad = 0;  // == n when sorted
};

file_report scan(const std::string& path, const std::string& values, std::size_t value_bytes, const element_layout& l,
                 const normaliser* nz, progress& prog) {
  io::fd_handle f = io::open_input(path);
  const std::uint64_t size = io::file_size(f.get(), path);
  const std::size_t e = l.elem_bytes;
  if (size % e)
    throw io::io_error(path + ": " + std::to_string(size) + " bytes is not a whole number of " +
                                  std::to_string(e) + "-byte elements");
  file_report r;
  r.n = size / e;
  r.first_bad = r.n;
  io::fd_handle vf;
  if (!values.empty()) {
    vf = io::open_input(values);
    const std::uint64_t vs = io::file_size(vf.get(), values);
    if (value_bytes == 0 && r.n) value_bytes = std::size_t(vs / r.n);
    if (r.n && (value_bytes == 0 || vs != r.n * value_bytes))
      throw io::io_error(values + ": " + std::to_string(vs) + " bytes do not hold one value per element of " + path);
  }
  const std::uint64_t piece = std::max<std::uint64_t>(1, (std::uint64_t(64) << 20) / e);
  std::unique_ptr<std::byte[]> buf(new std::byte[piece * e]);
  std::unique_ptr<std::byte[]> vbuf(value_bytes ? new std::byte[piece * value_bytes] : nullptr);
  std::vector<std::uint8_t> last(nz ? nz->size() : 0), head(last.size());
  prog.phase("checking " + path, size);
  for (std::uint64_t b = 0; b < r.n; b += piece) {
    const std::uint64_t m = std::min(piece, r.n - b);
    io::read_at(f.get(), buf.get(), m * e, b * e, path);
    if (value_bytes) io::read_at(vf.get(), vbuf.get(), m * value_bytes, b * value_bytes, values);
    r.sum += checksum(buf.get(), e, vbuf.get(), value_bytes, m);
    if (nz && r.first_bad == r.n) {
      (*nz)(buf.get(), head.data());
      if (b > 0 && std::memcmp(last.data(), head.data(), last.size()) > 0) {
        r.first_bad = b;
      } else if (const auto bad = first_unsorted(buf.get(), e, m, *nz); bad != m) {
        r.first_bad = b + bad;
      }
      (*nz)(buf.get() + (m - 1) * e, last.data());
    }
    prog.advance(m * e);
  }
  return r;
}

}  // namespace

std::string check_help() { return std::string(check_head) + layout_help + check_tail; }

int check_command(const std::vector<std::string>& args) {
  layout_options lo;
  std::string ref, values, value_size;
  bool no_order = false, quiet = false;
  std::vector<option_spec> specs;
  lo.add_to(specs, true);
  specs.push_back({"same-as", 0, true, [&](const std::string& v) { ref = v; }});
  specs.push_back({"values", 0, true, [&](const std::string& v) { values = v; }});
  specs.push_back({"value-size", 0, true, [&](const std::string& v) { value_size = v; }});
  specs.push_back({"no-order", 0, false, [&](const std::string&) { no_order = true; }});
  specs.push_back({"quiet", 'q', false, [&](const std::string&) { quiet = true; }});
  std::vector<std::string> files;
  parse_options(args, specs, &files);
  if (files.empty()) throw usage_error("no file to check");
  if (!values.empty() && files.size() != 1) throw usage_error("--values goes with one FILE");
  if (!ref.empty() && !values.empty()) throw usage_error("--same-as and --values: check the value files' order with --values on each");
  const element_layout l = lo.layout();
  const order_spec o = lo.order(l);
  const normaliser nz(l, o);
  const std::size_t vb = value_size.empty() ? 0 : std::size_t(parse_count(value_size));
  progress prog(!quiet && ::isatty(2));
  // A pair commit that a killed sort left half done shows sorted keys beside
  // old values until it is completed: say so rather than check a mixed pair.
  {
    std::vector<std::string> folders;
    for (const auto& f : files) folders.push_back(io::dir_of(io::follow_links(f)));
    if (!values.empty()) folders.push_back(io::dir_of(io::follow_links(values)));
    std::sort(folders.begin(), folders.end());
    folders.erase(std::unique(folders.begin(), folders.end()), folders.end());
    for (const auto& d : folders)
      for (const auto& line : io::recover(d, /*dry_run=*/true, /*temporaries=*/false))
        std::fprintf(stderr, "radix check: warning: %s: %s (run 'radix recover %s')\n", d.c_str(), line.c_str(), d.c_str());
  }

  int status = exit_ok;
  file_report want{};
  if (!ref.empty()) {
    want = scan(ref, "", 0, l, nullptr, prog);
    prog.clear();
    std::printf("%s: %" PRIu64 " elements, checksum %016" PRIx64 " (reference)\n", ref.c_str(), want.n, want.sum);
  }
  for (const auto& f : files) {
    const file_report r = scan(f, values, vb, l, no_order ? nullptr : &nz, prog);
    prog.clear();
    std::string order = no_order ? "order not checked" : r.first_bad == r.n ? "sorted" : "NOT SORTED: element " + std::to_string(r.first_bad) + " belongs before element " + std::to_string(r.first_bad - 1);
    std::string same;
    if (!ref.empty()) {
      const bool eq = r.n == want.n && r.sum == want.sum;
      same = eq ? ", same elements as the reference" : ", DIFFERENT elements from the reference";
      if (!eq) status = exit_check_failed;
    }
    std::printf("%s: %" PRIu64 " elements, %s, checksum %016" PRIx64 "%s\n", f.c_str(), r.n, order.c_str(), r.sum, same.c_str());
    if (!no_order && r.first_bad != r.n) status = exit_check_failed;
  }
  return status;
}

}  // namespace radix_cli
