// The CUDA tuning cache's text core (Ha, Krüger & Silva 2009, §5), on the
// CPU: parsing good and bad lines, other devices and drivers ignored, the
// nearest calibrated size in log2 (ties to the larger), the atomic write
// keeping other devices' lines, and the path rule of radix::tuning_cache_path().
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cuda/tuning_cache_text.hpp"
#include "radix/calibrate.hpp"
#include "radix/error.hpp"

namespace {

namespace fs = std::filesystem;
using radix::cuda_detail::nearest_entry;
using radix::cuda_detail::parse_tuning_line;
using radix::cuda_detail::parse_tuning_lines;
using radix::cuda_detail::parse_workload;
using radix::cuda_detail::tuning_entry;
using radix::cuda_detail::workload;
using radix::cuda_detail::workload_name;

constexpr workload u32_keys{4, 0}, u32_pairs{4, 4}, u64_keys{8, 0}, u64_u32_pairs{8, 4};

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// A fresh folder under the system's temporary one, removed afterwards.
struct temp_dir {
  fs::path p = fs::temp_directory_path() / ("radix-tuning-test-" + std::to_string(::getpid()));
  temp_dir() {
    fs::remove_all(p);
    fs::create_directories(p);
  }
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(p, ec);
  }
};

/// Sets (or with null unsets) an environment variable for one scope.
struct env_var {
  std::string name;
  std::optional<std::string> old;
  env_var(const char* n, const char* v) : name(n) {
    if (const char* o = std::getenv(n)) old = o;
    if (v) ::setenv(n, v, 1);
    else ::unsetenv(n);
  }
  ~env_var() {
    if (old) ::setenv(name.c_str(), old->c_str(), 1);
    else ::unsetenv(name.c_str());
  }
};

tuning_entry entry(workload w, std::uint64_t n, std::string v) {
  return tuning_entry{"GPU", "13000", w, n, std::move(v), 1.0};
}

TEST(TuningCache, WorkloadNamesRoundTrip) {
  EXPECT_EQ(workload_name(u32_keys), "u32 keys");
  EXPECT_EQ(workload_name(u32_pairs), "u32/u32 pairs");
  EXPECT_EQ(workload_name(u64_keys), "u64 keys");
  EXPECT_EQ(workload_name(u64_u32_pairs), "u64/u32 pairs");
  for (const workload w : {u32_keys, u32_pairs, u64_keys, u64_u32_pairs, workload{1, 16}, workload{2, 8}})
    EXPECT_EQ(parse_workload(workload_name(w)), w) << workload_name(w);
  for (const char* bad : {"", "u32", "keys", "u33 keys", "u0 keys", "i32 keys", "u32/u32 keys", "u32 pairs",
                          "u32/ pairs", "u32/u32 argsort", "32 keys"})
    EXPECT_FALSE(parse_workload(bad)) << bad;
}

TEST(TuningCache, ParsesWellFormedLines) {
  const auto e = parse_tuning_line("NVIDIA H100 80GB HBM3 | 13000 | u32 keys | 16777216 | reduce_then_scan/8 | 0.812");
  ASSERT_TRUE(e);
  EXPECT_EQ(e->device, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(e->driver, "13000");
  EXPECT_EQ(e->w, u32_keys);
  EXPECT_EQ(e->n, 16777216u);
  EXPECT_EQ(e->variant, "reduce_then_scan/8");
  EXPECT_DOUBLE_EQ(e->ms, 0.812);
  // Spacing and a Windows line end do not matter.
  const auto f = parse_tuning_line("  GPU|13000|u64/u32 pairs|65536|four_way/2/t1/elementwise|1\r");
  ASSERT_TRUE(f);
  EXPECT_EQ(f->w, u64_u32_pairs);
  EXPECT_EQ(f->variant, "four_way/2/t1/elementwise");
}

TEST(TuningCache, SkipsMalformedLines) {
  for (const char* bad : {
           "",
           "   ",
           "# GPU | 13000 | u32 keys | 65536 | onesweep | 1.0",  // a comment
           "GPU | 13000 | u32 keys | 65536 | onesweep",          // 5 fields
           "GPU | 13000 | u32 keys | 65536 | onesweep | 1.0 | x",  // 7 fields
           "GPU | 13000 | u32 keys | 64K | onesweep | 1.0",       // n not a plain number
           "GPU | 13000 | u32 keys | 0 | onesweep | 1.0",         // n = 0
           "GPU | 13000 | u32 keys | -5 | onesweep | 1.0",
           "GPU | 13000 | u31 keys | 65536 | onesweep | 1.0",
           "GPU | 13000 | u32 keys | 65536 |  | 1.0",            // no variant
           "GPU | 13000 | u32 keys | 65536 | onesweep | fast",
           "GPU | 13000 | u32 keys | 65536 | onesweep | -1",
           "GPU | 13000 | u32 keys | 65536 | onesweep | nan",
           " | 13000 | u32 keys | 65536 | onesweep | 1.0",       // no device
           "GPU |  | u32 keys | 65536 | onesweep | 1.0",         // no driver
       })
    EXPECT_FALSE(parse_tuning_line(bad)) << '"' << bad << '"';
  // Among good lines, bad ones are skipped and the rest still count.
  const auto es = parse_tuning_lines(
      "# header\n"
      "GPU | 13000 | u32 keys | 65536 | onesweep | 1.0\n"
      "garbage line\n"
      "GPU | 13000 | u32 keys | x | onesweep | 1.0\n"
      "\n"
      "GPU | 13000 | u64 keys | 1024 | split/4 | 0.5",  // no final newline
      "GPU", "13000");
  ASSERT_EQ(es.size(), 2u);
  EXPECT_EQ(es[0].variant, "onesweep");
  EXPECT_EQ(es[1].variant, "split/4");
}

TEST(TuningCache, IgnoresOtherDevicesAndDrivers) {
  const std::string text =
      "GPU A | 13000 | u32 keys | 65536 | onesweep | 1.0\n"
      "GPU B | 13000 | u32 keys | 65536 | split/4 | 1.0\n"
      "GPU A | 12080 | u32 keys | 65536 | four_way/2 | 1.0\n"
      "GPU A | 13000 | u32/u32 pairs | 65536 | reduce_then_scan/4 | 1.0\n";
  const auto a = parse_tuning_lines(text, "GPU A", "13000");
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a[0].variant, "onesweep");
  EXPECT_EQ(a[1].variant, "reduce_then_scan/4");
  const auto b = parse_tuning_lines(text, "GPU B", "13000");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_EQ(b[0].variant, "split/4");
  EXPECT_TRUE(parse_tuning_lines(text, "GPU A", "13010").empty());
  EXPECT_TRUE(parse_tuning_lines(text, "GPU", "13000").empty());  // names match whole
}

TEST(TuningCache, NearestSizeInLog2) {
  const std::vector<tuning_entry> es = {entry(u32_keys, 1 << 10, "a"), entry(u32_keys, 1 << 20, "b"),
                                        entry(u32_pairs, 1 << 16, "p"), entry(u64_keys, 1 << 24, "w")};
  auto pick = [&](workload w, std::uint64_t n) {
    const tuning_entry* e = nearest_entry(es, w, n);
    return e ? e->variant : std::string("none");
  };
  EXPECT_EQ(pick(u32_keys, 1 << 10), "a");
  EXPECT_EQ(pick(u32_keys, 1 << 20), "b");
  // 2^16 is 6 doublings from 2^10 but 4 from 2^20 (linearly it is nearer 2^10).
  EXPECT_EQ(pick(u32_keys, 1 << 16), "b");
  EXPECT_EQ(pick(u32_keys, 1 << 14), "a");
  EXPECT_EQ(pick(u32_keys, 0), "a");
  EXPECT_EQ(pick(u32_keys, 1), "a");
  EXPECT_EQ(pick(u32_keys, std::uint64_t(1) << 40), "b");
  // Only the same workload counts, whatever the sizes.
  EXPECT_EQ(pick(u32_pairs, 1 << 20), "p");
  EXPECT_EQ(pick(u64_keys, 1 << 10), "w");
  EXPECT_EQ(pick(u64_u32_pairs, 1 << 20), "none");
  EXPECT_EQ(pick(workload{2, 0}, 1 << 20), "none");
  EXPECT_EQ(nearest_entry({}, u32_keys, 100), nullptr);
}

TEST(TuningCache, NearestSizeTiesGoToTheLarger) {
  // 2^20 is 4 doublings from both 2^16 and 2^24; the order in the file must not matter.
  for (bool large_first : {false, true}) {
    std::vector<tuning_entry> es = {entry(u32_keys, 1 << 16, "small"), entry(u32_keys, 1 << 24, "large")};
    if (large_first) std::swap(es[0], es[1]);
    EXPECT_EQ(nearest_entry(es, u32_keys, 1 << 20)->variant, "large");
    EXPECT_EQ(nearest_entry(es, u32_keys, (1 << 20) - 1)->variant, "small");
  }
  // Lines of the same size: the last wins (a line appended by hand overrides).
  const std::vector<tuning_entry> dup = {entry(u32_keys, 1 << 20, "first"), entry(u32_keys, 1 << 20, "second")};
  EXPECT_EQ(nearest_entry(dup, u32_keys, 1 << 20)->variant, "second");
}

TEST(TuningCache, WriteThenParseRoundTrip) {
  temp_dir tmp;
  const std::string path = (tmp.p / "nested" / "folder" / "cuda-tuning.txt").string();  // folders created
  std::vector<tuning_entry> mine = {entry(u32_keys, 65536, "onesweep"), entry(u32_keys, 16777216, "reduce_then_scan/8"),
                                    entry(u64_u32_pairs, 1048576, "four_way/2/t1/elementwise")};
  mine[1].ms = 0.8125;
  radix::cuda_detail::write_tuning_cache(path, "NVIDIA H100 80GB HBM3", "13000", mine);
  const std::string text = slurp(path);
  EXPECT_EQ(text.rfind("# radix CUDA tuning cache", 0), 0u) << text;
  const auto back = parse_tuning_lines(text, "NVIDIA H100 80GB HBM3", "13000");
  ASSERT_EQ(back.size(), mine.size()) << text;
  for (std::size_t i = 0; i < mine.size(); ++i) {
    EXPECT_EQ(back[i].w, mine[i].w);
    EXPECT_EQ(back[i].n, mine[i].n);
    EXPECT_EQ(back[i].variant, mine[i].variant);
    EXPECT_NEAR(back[i].ms, mine[i].ms, 1e-4);
  }

  // Another device's and another driver's lines survive a rewrite; this one's are replaced.
  {
    std::ofstream app(path, std::ios::app);
    app << "Other GPU | 13000 | u32 keys | 65536 | split/4 | 2.0\n"
        << "NVIDIA H100 80GB HBM3 | 12080 | u32 keys | 65536 | four_way/2 | 3.0\n"
        << "a malformed line\n";
  }
  radix::cuda_detail::write_tuning_cache(path, "NVIDIA H100 80GB HBM3", "13000", {entry(u64_keys, 1024, "split/4")});
  const std::string text2 = slurp(path);
  const auto now = parse_tuning_lines(text2, "NVIDIA H100 80GB HBM3", "13000");
  ASSERT_EQ(now.size(), 1u) << text2;
  EXPECT_EQ(now[0].w, u64_keys);
  EXPECT_EQ(parse_tuning_lines(text2, "Other GPU", "13000").size(), 1u) << text2;
  EXPECT_EQ(parse_tuning_lines(text2, "NVIDIA H100 80GB HBM3", "12080").size(), 1u) << text2;
  EXPECT_EQ(text2.find("malformed"), std::string::npos);
  // Nothing but the cache is left in its folder (the temporary file was renamed).
  const auto dir = fs::directory_iterator(fs::path(path).parent_path());
  EXPECT_EQ(std::distance(fs::begin(dir), fs::end(dir)), 1);
}

TEST(TuningCache, DeviceNamesCannotBreakTheFormat) {
  temp_dir tmp;
  const std::string path = (tmp.p / "t.txt").string();
  radix::cuda_detail::write_tuning_cache(path, "Odd | GPU #2", "13000", {entry(u32_keys, 4096, "onesweep")});
  // Written and read back under the sanitized name, so the next write replaces it.
  const std::string name = radix::cuda_detail::sanitize_field("Odd | GPU #2");
  EXPECT_EQ(name.find('|'), std::string::npos);
  EXPECT_EQ(parse_tuning_lines(slurp(path), name, "13000").size(), 1u);
  radix::cuda_detail::write_tuning_cache(path, "Odd | GPU #2", "13000", {entry(u32_keys, 8192, "split/4")});
  const auto es = parse_tuning_lines(slurp(path), name, "13000");
  ASSERT_EQ(es.size(), 1u);
  EXPECT_EQ(es[0].n, 8192u);
}

TEST(TuningCache, WriteFailureThrowsRadixError) {
  temp_dir tmp;
  const fs::path file = tmp.p / "a-file";
  std::ofstream(file) << "x";
  // The folder would have to be created inside a regular file.
  EXPECT_THROW(radix::cuda_detail::write_tuning_cache((file / "cache.txt").string(), "GPU", "13000",
                                                      {entry(u32_keys, 4096, "onesweep")}),
               radix::error);
}

TEST(TuningCache, PathFromEnvironment) {
  using radix::cuda_detail::tuning_cache_path_from;
  EXPECT_EQ(tuning_cache_path_from("/x/t.txt", "/xdg", "/home/u"), "/x/t.txt");
  EXPECT_EQ(tuning_cache_path_from(nullptr, "/xdg", "/home/u"), "/xdg/radix/cuda-tuning.txt");
  EXPECT_EQ(tuning_cache_path_from("", "/xdg", "/home/u"), "/xdg/radix/cuda-tuning.txt");
  EXPECT_EQ(tuning_cache_path_from(nullptr, nullptr, "/home/u"), "/home/u/.cache/radix/cuda-tuning.txt");
  EXPECT_EQ(tuning_cache_path_from(nullptr, "", "/home/u"), "/home/u/.cache/radix/cuda-tuning.txt");
  EXPECT_EQ(tuning_cache_path_from(nullptr, nullptr, nullptr), "radix-cuda-tuning.txt");

  // The library's function reads the real environment.
  env_var home("HOME", "/home/u"), xdg("XDG_CACHE_HOME", nullptr), rtc("RADIX_TUNING_CACHE", nullptr);
  EXPECT_EQ(radix::tuning_cache_path(), "/home/u/.cache/radix/cuda-tuning.txt");
  {
    env_var x("XDG_CACHE_HOME", "/xdg");
    EXPECT_EQ(radix::tuning_cache_path(), "/xdg/radix/cuda-tuning.txt");
    env_var r("RADIX_TUNING_CACHE", "/tmp/mine.txt");
    EXPECT_EQ(radix::tuning_cache_path(), "/tmp/mine.txt");
  }
  EXPECT_EQ(radix::tuning_cache_path(), "/home/u/.cache/radix/cuda-tuning.txt");
}

}  // namespace
