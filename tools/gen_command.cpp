// radix CLI — `radix gen OUT`: writes test files for `radix sort`: plain keys
// of any type and distribution, fixed-size records (the sort benchmarks'
// 100-byte records with 10-byte keys among them), and parallel value files.
// Reproducible from the seed; written piece by piece, so files larger than
// memory are fine; like every output of the tool, OUT appears only complete.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "fileio.hpp"
#include "output.hpp"
#include "generate.hpp"
#include "layout.hpp"
#include "progress.hpp"

namespace radix_cli {

namespace {

const char* const gen_head =
    "Usage: radix gen OUT (-n COUNT | --size BYTES) [options]\n"
    "\n"
    "Writes COUNT keys or records to OUT, for `radix sort` and `radix check`.\n"
    "\n"
    "  -n, --count N          number of elements (16M, 2^24, 1e6 ...)\n"
    "      --size BYTES       or: as many elements as fit in BYTES (4G ...)\n"
    "  -d, --dist D           key distribution (default uniform; see below)\n"
    "      --seed S           random seed (default 1)\n"
    "      --values FILE      also write a value file: value i is i, in\n"
    "      --value-size V     V bytes (default 4), little-endian\n"
    "  -q, --quiet            no progress line\n"
    "\n"
    "OUT (and the value file) appear only when complete, as with `radix sort`:\n"
    "a regular file is replaced in one step, keeping its mode; a symbolic link's\n"
    "target is replaced; a FIFO or device is written straight into at the end.\n"
    "A keys file and its value file appear together.\n"
    "\n";

const char* const gen_tail =
    "\n"
    "Records: the key is generated at its offset (big-endian when T:be); the\n"
    "other bytes hold the record's number, so every record is distinct.\n"
    "bytes:L keys are random bytes (uniform), few-unique:M or all-equal.\n"
    "\n"
    "Examples:\n"
    "  radix gen keys.u32 -n 2^24 -t u32\n"
    "  radix gen data.bin --size 4G --record-size 100 --key-type bytes:10\n"
    "  radix gen f.f32 -n 1M -t f32 -d bits:16 --values v.bin --value-size 8\n"
    "\n"
    "Distributions (-d):\n";

/// Writes the non-key bytes of record i: its number, repeated.
void fill_payload(std::byte* rec, std::size_t bytes, std::size_t key_off, std::size_t key_len, std::uint64_t i) {
  for (std::size_t j = 0; j < bytes; ++j) {
    if (j >= key_off && j < key_off + key_len) continue;
    rec[j] = std::byte((i >> (8 * (j % 8))) & 0xFF);
  }
}

}  // namespace

std::string gen_help() { return std::string(gen_head) + layout_help + gen_tail + dist_help; }

int gen_command(const std::vector<std::string>& args) {
  layout_options lo;
  std::string count_s, size_s, values_path;
  dist_spec dist;
  std::uint64_t seed = 1;
  std::size_t value_bytes = 4;
  bool quiet = false;
  std::vector<option_spec> specs;
  lo.add_to(specs, false);
  specs.push_back({"count", 'n', true, [&](const std::string& v) { count_s = v; }});
  specs.push_back({"size", 0, true, [&](const std::string& v) { size_s = v; }});
  specs.push_back({"dist", 'd', true, [&](const std::string& v) { dist = parse_distribution(v); }});
  specs.push_back({"seed", 0, true, [&](const std::string& v) { seed = parse_count(v); }});
  specs.push_back({"values", 0, true, [&](const std::string& v) { values_path = v; }});
  specs.push_back({"value-size", 0, true, [&](const std::string& v) {
                     value_bytes = std::size_t(parse_int(v, 1, 1 << 20));
                   }});
  specs.push_back({"quiet", 'q', false, [&](const std::string&) { quiet = true; }});
  std::vector<std::string> pos;
  parse_options(args, specs, &pos);
  if (pos.size() != 1) throw usage_error(pos.empty() ? "no output file" : "one output file at a time");
  const element_layout l = lo.layout();
  if (count_s.empty() == size_s.empty()) throw usage_error("give -n COUNT or --size BYTES");
  std::uint64_t n = 0;
  if (!count_s.empty()) {
    n = option_value("--count", count_s, parse_count);
  } else {
    n = option_value("--size", size_s, parse_count) / l.elem_bytes;  // as many whole elements as fit
  }
  if (l.key.is_bytes) {
    if (dist.kind != distribution::uniform && dist.kind != distribution::few_unique && dist.kind != distribution::all_equal)
      throw usage_error("bytes:L keys are generated uniform, few-unique:M or all-equal");
  } else {
    check_dist(dist, l.key.bits());
  }
  const bool whole = !l.key.is_bytes && !generated_per_index(dist);
  const std::uint64_t piece = whole ? std::max<std::uint64_t>(n, 1) : std::uint64_t(1) << 20;

  io::install_signal_handlers("radix gen", "");
  const std::string spill = io::system_temp_folder();
  std::vector<std::string> folders = {io::dir_of(io::follow_links(pos[0]))};
  if (!values_path.empty()) folders.push_back(io::dir_of(io::follow_links(values_path)));
  io::recover_folders("radix gen", folders);
  io::output_file out(pos[0], spill);
  std::optional<io::output_file> vout;
  if (!values_path.empty()) vout.emplace(values_path, spill);
  progress prog(!quiet && ::isatty(2));
  prog.phase("generating", n * (l.elem_bytes + (vout ? value_bytes : 0)));

  const std::size_t kb = l.key.bytes, e = l.elem_bytes;
  std::unique_ptr<std::byte[]> keys(new std::byte[piece * kb]);
  std::unique_ptr<std::byte[]> recs(l.records ? new std::byte[piece * e] : nullptr);
  std::unique_ptr<std::byte[]> vals(vout ? new std::byte[piece * value_bytes] : nullptr);
  const std::uint64_t stream = mix64(seed ^ 0x4279746573ull);
  for (std::uint64_t b = 0; b < n; b += piece) {
    const std::uint64_t m = std::min(piece, n - b);
    if (l.key.is_bytes) {
      parallel_chunks(m, [&](std::uint64_t x, std::uint64_t y) {
        for (std::uint64_t i = x; i < y; ++i) {
          const std::uint64_t g = b + i;
          const std::uint64_t src = dist.kind == distribution::all_equal    ? 0
                                    : dist.kind == distribution::few_unique ? mix64(stream ^ g) % std::uint64_t(dist.param)
                                                                            : g;
          for (std::size_t j = 0; j < kb; ++j)
            keys[i * kb + j] = std::byte(mix64(stream + src * 0x9E3779B97F4A7C15ull + j / 8) >> (8 * (j % 8)));
        }
      });
    } else {
      visit_key_type(l.key.type, [&]<class K>(std::type_identity<K>) {
        generate_keys(reinterpret_cast<K*>(keys.get()), m, dist, seed, b, n);
      });
      if (l.key.big_endian)
        for (std::uint64_t i = 0; i < m; ++i) std::reverse(keys.get() + i * kb, keys.get() + (i + 1) * kb);
    }
    const std::byte* data = keys.get();
    if (l.records) {
      parallel_chunks(m, [&](std::uint64_t x, std::uint64_t y) {
        for (std::uint64_t i = x; i < y; ++i) {
          std::byte* r = recs.get() + i * e;
          fill_payload(r, e, l.key_offset, kb, b + i);
          std::memcpy(r + l.key_offset, keys.get() + i * kb, kb);
        }
      });
      data = recs.get();
    }
    io::write_at(out.fd(), data, m * e, b * e, out.target());
    if (vout) {
      for (std::uint64_t i = 0; i < m; ++i) {
        const std::uint64_t g = b + i;
        for (std::size_t j = 0; j < value_bytes; ++j) vals[i * value_bytes + j] = std::byte(j < 8 ? (g >> (8 * j)) & 0xFF : 0);
      }
      io::write_at(vout->fd(), vals.get(), m * value_bytes, b * value_bytes, vout->target());
    }
    prog.advance(m * (e + (vout ? value_bytes : 0)));
  }
  if (vout)
    io::commit_pair(out, *vout);  // keys and values appear together
  else
    out.commit();
  prog.clear();
  return exit_ok;
}

}  // namespace radix_cli
