// radix CLI — `radix calibrate`: time every CUDA sort variant on this GPU and
// record the fastest per workload and size in the tuning cache that
// algorithm::automatic reads (Ha, Krüger & Silva 2009, "Fast 4-way parallel
// radix sorting on GPUs", §5: "a calibration procedure consisting of a few
// sorts to select the best approach").
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <radix/calibrate.hpp>

#include "args.hpp"
#include "commands.hpp"

namespace radix_cli {

namespace {

const char* const calibrate_help_text =
    "Usage: radix calibrate [options]\n"
    "\n"
    "Finds the fastest CUDA sort for this GPU and remembers it. The CUDA engine\n"
    "has several algorithms (Onesweep, reduce-then-scan, 4-way, split), each with\n"
    "digit widths and tile shapes; which is fastest depends on the GPU, the key\n"
    "and value widths and the number of keys. This command sorts random keys\n"
    "with every variant, for four workloads (u32 keys, u32/u32 pairs, u64 keys,\n"
    "u64/u32 pairs) at each size: one warm-up run whose result is checked, then\n"
    "--repeats timed runs (GPU time of the sort alone; the median counts).\n"
    "A variant whose result is wrong is reported as FAILED and never chosen.\n"
    "\n"
    "The fastest variant per workload and size goes to the tuning cache, a small\n"
    "text file (one line per workload and size, for this GPU model and driver;\n"
    "other GPUs' lines in it are kept):\n"
    "  $RADIX_TUNING_CACHE if set, else $XDG_CACHE_HOME/radix/cuda-tuning.txt,\n"
    "  else $HOME/.cache/radix/cuda-tuning.txt\n"
    "Sorts on the GPU with algorithm::automatic (the default) then run the\n"
    "cached variant of the nearest calibrated size (in log2) with the same key\n"
    "and value widths (argsort counts as pairs with its index width); without a\n"
    "cache entry they run Onesweep. Finally the command re-times the automatic\n"
    "choice against the best variant and prints the ratio (1.00x: automatic\n"
    "picks the fastest).\n"
    "\n"
    "Options:\n"
    "      --sizes LIST       comma-separated key counts (default 2^16,2^20,2^24);\n"
    "                         each as 65536, 64K, 2^16 or 1e6, in [2, 2^32 - 1]\n"
    "  -r, --repeats R        timed runs per variant, median reported (default 5)\n"
    "      --cache PATH       write the cache here instead (this process's later\n"
    "                         sorts use it; other programs read RADIX_TUNING_CACHE)\n"
    "      --no-write         measure and report only; leave the cache alone\n"
    "  -h, --help             this help\n"
    "\n"
    "With the default sizes this takes well under a minute on an H100.\n"
    "\n"
    "Exit status: 0 ok, 1 a variant gave a wrong result (it was not chosen),\n"
    "2 bad option or value, 3 could not run (no CUDA engine in this build, no\n"
    "GPU, out of memory).\n"
    "\n"
    "Examples:\n"
    "  radix calibrate\n"
    "  radix calibrate --sizes 2^20,2^26 --repeats 9\n"
    "  RADIX_TUNING_CACHE=/tmp/t.txt radix calibrate --no-write\n";

std::vector<std::uint64_t> parse_sizes(const std::string& s) {
  std::vector<std::uint64_t> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = s.find(',', start);
    const std::string item = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::uint64_t n = parse_count(item);
    if (n < 2 || n > 0xFFFFFFFFull) throw usage_error("size '" + item + "' is not in [2, 2^32 - 1]");
    out.push_back(n);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::string calibrate_help() { return calibrate_help_text; }

int calibrate_command(const std::vector<std::string>& args) {
  radix::calibrate_options o;
  const std::vector<option_spec> specs = {
      {"sizes", 0, true, [&](const std::string& v) { o.sizes = parse_sizes(v); }},
      {"repeats", 'r', true, [&](const std::string& v) { o.repeats = int(parse_int(v, 1, 1000)); }},
      {"cache", 0, true,
       [&](const std::string& v) {
         if (v.empty()) throw usage_error("empty path");
         o.cache_path = v;
       }},
      {"no-write", 0, false, [&](const std::string&) { o.write_cache = false; }},
  };
  parse_options(args, specs);
  o.progress = [](const std::string& line) {
    std::printf("%s\n", line.c_str());
    std::fflush(stdout);
  };

  const radix::calibration_report rep = radix::calibrate(o);

  bool failed = false;
  std::printf("\n%-14s | %10s | %-28s | %9s | %s\n", "workload", "n", "variant", "ms", "best");
  for (const auto& r : rep.rows) {
    const bool ok = std::isfinite(r.ms);
    failed |= !ok;
    char ms[32];
    if (ok) std::snprintf(ms, sizeof ms, "%9.3f", r.ms);
    else std::snprintf(ms, sizeof ms, "%9s", "FAILED");
    std::printf("%-14s | %10" PRIu64 " | %-28s | %s | %s\n", r.workload.c_str(), r.n, r.variant.c_str(), ms,
                r.best ? "*" : "");
  }
  std::printf("\ndevice: %s, driver %s\n", rep.device.c_str(), rep.driver.c_str());
  if (!rep.cache_path.empty()) std::printf("tuning cache written: %s\n", rep.cache_path.c_str());
  else if (!o.write_cache) std::printf("tuning cache not written (--no-write); automatic reads %s\n",
                                       radix::tuning_cache_path().c_str());
  else std::printf("tuning cache not written: no variant ran correctly\n");
  if (!rep.automatic_vs_best.empty()) {
    std::printf("automatic vs best (median time ratio, re-measured; 1.00x is ideal):\n");
    for (const auto& [what, ratio] : rep.automatic_vs_best) std::printf("  %5.2fx  %s\n", ratio, what.c_str());
  }
  std::printf("total: %.1f s\n", rep.seconds);
  if (failed) {
    std::fprintf(stderr, "radix calibrate: some variants gave wrong results (FAILED above); they were not chosen\n");
    return exit_check_failed;
  }
  return exit_ok;
}

}  // namespace radix_cli
