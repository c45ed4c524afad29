// radix_opencl_bench: the shape of Tables 4-6 of Helluy 2011, "A portable
// implementation of the radix sort algorithm in OpenCL" (§4.1):
// random u32 keys at 1M, 8M and 33M, the OpenCL engine's time split into
// transpose / histogram / scan / reorder (device time from OpenCL profiling
// events), next to std::sort and the CPU engine measured in the same process
// on the same input. Prints the "speedup" column as Helluy does (std::sort
// time / time). Every OpenCL result is checked against std::sort.
//
//   radix_opencl_bench [--sizes 20,23,25] [--repeat 5] [--seed S] [--quick] [--info]
//   (--info: print the OpenCL devices, the chosen one and its policy, and exit)
//
// Uses the public headers only (radix/radix.hpp, radix/opencl.hpp).
#include <radix/opencl.hpp>
#include <radix/radix.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if RADIX_BENCH_CUDA_ROWS
#include "cuda_rows.hpp"
#endif

namespace {

using clk = std::chrono::steady_clock;

double seconds_since(clk::time_point t0) { return std::chrono::duration<double>(clk::now() - t0).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

std::vector<std::uint32_t> random_keys(std::size_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> v(n);
  std::uint64_t x = seed;
  for (auto& k : v) {  // splitmix64
    x += 0x9E3779B97F4A7C15ull;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    k = std::uint32_t((z ^ (z >> 31)) >> 16);
  }
  return v;
}

void cl_ok(cl_int err, const char* what) {
  if (err != CL_SUCCESS) {
    std::fprintf(stderr, "radix_opencl_bench: %s failed (%d)\n", what, int(err));
    std::exit(3);
  }
}

struct row {
  std::string name;
  double transpose = -1, histogram = -1, scan = -1, reorder = -1, total = 0;
};

void print_row(const row& r, double std_time) {
  auto cell = [](double v) {
    char b[32];
    if (v < 0) std::snprintf(b, sizeof b, "%10s", "-");
    else std::snprintf(b, sizeof b, "%10.5f", v);
    return std::string(b);
  };
  std::printf("| %-34s | %s | %s | %s | %s | %s | %7.2f |\n", r.name.c_str(), cell(r.transpose).c_str(),
              cell(r.histogram).c_str(), cell(r.scan).c_str(), cell(r.reorder).c_str(), cell(r.total).c_str(),
              r.total > 0 ? std_time / r.total : 0.0);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> log_sizes = {20, 23, 25};
  int repeat = 5;
  int baseline_repeat = 0;  // 0: the same as repeat
  std::uint64_t seed = 0x5EEDC0DE2026ull;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "radix_opencl_bench: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--sizes") {
      log_sizes.clear();
      std::string s = next();
      for (std::size_t at = 0; at < s.size();) {
        std::size_t c = s.find(',', at);
        if (c == std::string::npos) c = s.size();
        log_sizes.push_back(std::atoi(s.substr(at, c - at).c_str()));
        at = c + 1;
      }
    } else if (a == "--repeat") {
      repeat = std::max(1, std::atoi(next().c_str()));
    } else if (a == "--baseline-repeat") {
      baseline_repeat = std::max(1, std::atoi(next().c_str()));
    } else if (a == "--seed") {
      seed = std::strtoull(next().c_str(), nullptr, 0);
    } else if (a == "--info") {
      std::printf("%s", radix::opencl::engine_info().c_str());
      return radix::engine_available(radix::engine::opencl) ? 0 : 3;
    } else if (a == "--quick") {
      log_sizes = {16, 18};
      repeat = 3;
    } else {
      std::fprintf(stderr,
                   "usage: radix_opencl_bench [--sizes 20,23,25] [--repeat 5] [--baseline-repeat B] [--seed S] [--quick] [--info]\n"
                   "  --baseline-repeat: std::sort runs (default: --repeat; std::sort is slow at 2^26)\n"
                   "  sizes are log2 of the key count (Helluy's 1M, 8M, 33M = 20, 23, 25)\n");
      return a == "--help" || a == "-h" ? 0 : 2;
    }
  }
  if (baseline_repeat == 0) baseline_repeat = repeat;
  if (!radix::engine_available(radix::engine::opencl)) {
    std::fprintf(stderr, "radix_opencl_bench: no OpenCL device (engine unavailable)\n%s",
                 radix::opencl::engine_info().c_str());
    return 3;
  }
  cl_command_queue q = radix::opencl::host_queue();
  cl_context ctx = nullptr;
  cl_ok(clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof ctx, &ctx, nullptr), "clGetCommandQueueInfo");

  std::printf("# radix_opencl_bench: Helluy Tables 4-6 shape, random u32 keys (seed 0x%llx), median of %d runs (std::sort: %d)\n\n",
              static_cast<unsigned long long>(seed), repeat, baseline_repeat);
  std::printf("```\n%s```\n\n", radix::opencl::engine_info().c_str());
  std::printf("Times in seconds. OpenCL rows: device time from profiling events (the phases) and, for the\n"
              "host-API row, wall time including the copies to and from the device. \"speedup\" = std::sort / row.\n");

  int failures = 0;
  for (int lg : log_sizes) {
    const std::size_t n = std::size_t(1) << lg;
    const auto input = random_keys(n, seed + std::uint64_t(lg));
    std::vector<std::uint32_t> ref = input, work(n);

    // std::sort (one thread), the yardstick.
    std::vector<double> t_std;
    for (int r = 0; r < baseline_repeat; ++r) {
      work = input;
      const auto t0 = clk::now();
      std::sort(work.begin(), work.end());
      t_std.push_back(seconds_since(t0));
    }
    ref = work;

    // The CPU engine through the host API (all hardware threads).
    radix::options cpu;
    cpu.use = radix::engine::cpu;
    std::vector<double> t_cpu;
    for (int r = 0; r <= repeat; ++r) {
      work = input;
      const auto t0 = clk::now();
      radix::sort(std::span<std::uint32_t>(work), cpu);
      if (r > 0) t_cpu.push_back(seconds_since(t0));  // run 0: warm-up
    }

    // OpenCL on device buffers, phases from profiling events.
    cl_int err = CL_SUCCESS;
    cl_mem keys = clCreateBuffer(ctx, CL_MEM_READ_WRITE, n * 4, nullptr, &err);
    cl_ok(err, "clCreateBuffer");
    radix::sort_request req;
    req.op = radix::operation::keys;
    req.key = radix::key_desc_of<std::uint32_t>();
    req.n = n;
    req.keys = keys;
    req.opts.use = radix::engine::opencl;
    std::vector<radix::opencl::phase_times> phases;
    std::vector<double> t_dev_wall;
    int passes = 0;
    for (int r = 0; r <= repeat; ++r) {
      cl_ok(clEnqueueWriteBuffer(q, keys, CL_TRUE, 0, n * 4, input.data(), 0, nullptr, nullptr), "write");
      radix::opencl::phase_times pt;
      const auto t0 = clk::now();
      radix::opencl::sort(req, q, &pt);  // waits (profiling)
      const double wall = seconds_since(t0);
      if (r > 0) {
        phases.push_back(pt);
        t_dev_wall.push_back(wall);
      }
      passes = pt.passes;
    }
    cl_ok(clEnqueueReadBuffer(q, keys, CL_TRUE, 0, n * 4, work.data(), 0, nullptr, nullptr), "read");
    bool dev_ok = work == ref;
    // The same without profiling: what a caller waits for (the ratios to
    // CUB use it); with the engine's own scratch buffers (created per call),
    // with a workspace made beforehand (the scratch lies in it at offsets),
    // and through radix::opencl::sorter.
    const std::size_t ws_bytes = radix::opencl::workspace_bytes(q, req);
    cl_mem ws = clCreateBuffer(ctx, CL_MEM_READ_WRITE, std::max<std::size_t>(ws_bytes, 1), nullptr, &err);
    cl_ok(err, "clCreateBuffer(workspace)");
    // The sorter's workspace is made in its run 0 (a warm-up) and kept.
    std::vector<double> t_dev_plain, t_dev_ws, t_dev_sorter;
    radix::opencl::sorter keeper(q);
    for (int way = 0; way < 3; ++way) {
      for (int r = 0; r <= repeat; ++r) {
        cl_ok(clEnqueueWriteBuffer(q, keys, CL_TRUE, 0, n * 4, input.data(), 0, nullptr, nullptr), "write");
        const auto t0 = clk::now();
        if (way == 1) radix::opencl::sort(req, ws, ws_bytes, q);
        else if (way == 2) keeper.sort(req);
        else radix::opencl::sort(req, q);
        cl_ok(clFinish(q), "clFinish");
        if (r > 0) (way == 0 ? t_dev_plain : way == 1 ? t_dev_ws : t_dev_sorter).push_back(seconds_since(t0));
      }
      cl_ok(clEnqueueReadBuffer(q, keys, CL_TRUE, 0, n * 4, work.data(), 0, nullptr, nullptr), "read");
      dev_ok = dev_ok && work == ref;
    }
    clReleaseMemObject(ws);
    clReleaseMemObject(keys);

    // OpenCL through the host API (copies in and out included).
    radix::options ocl;
    ocl.use = radix::engine::opencl;
    std::vector<double> t_host;
    for (int r = 0; r <= repeat; ++r) {
      work = input;
      const auto t0 = clk::now();
      radix::sort(std::span<std::uint32_t>(work), ocl);
      if (r > 0) t_host.push_back(seconds_since(t0));
    }
    const bool host_ok = work == ref;
    failures += !dev_ok + !host_ok;

    // The median run by total device time, its phases as they were.
    std::sort(phases.begin(), phases.end(), [](const auto& a, const auto& b) { return a.total_ms() < b.total_ms(); });
    const auto& pm = phases[phases.size() / 2];
    const double s_std = median(t_std);

    std::printf("\n## %zu keys (2^%d), %d passes%s\n\n", n, lg, passes,
                dev_ok && host_ok ? "" : "  **WRONG RESULT**");
    std::printf("| %-34s | %10s | %10s | %10s | %10s | %10s | %7s |\n", "name", "transpose", "histogram", "scan",
                "reorder", "total", "speedup");
    std::printf("|%s|-----------:|-----------:|-----------:|-----------:|-----------:|--------:|\n",
                std::string(36, '-').c_str());
    row dev{"OpenCL device (phases)", pm.transpose_ms > 0 ? pm.transpose_ms / 1e3 : -1, pm.histogram_ms / 1e3,
            pm.scan_ms / 1e3, pm.reorder_ms / 1e3, pm.total_ms() / 1e3};
    print_row(dev, s_std);
    print_row(row{"OpenCL device (wall, sort call)", -1, -1, -1, -1, median(t_dev_wall)}, s_std);
    print_row(row{"OpenCL device (wall, no profiling)", -1, -1, -1, -1, median(t_dev_plain)}, s_std);
    print_row(row{"OpenCL device (wall, workspace)", -1, -1, -1, -1, median(t_dev_ws)}, s_std);
    print_row(row{"OpenCL device (wall, sorter)", -1, -1, -1, -1, median(t_dev_sorter)}, s_std);
    print_row(row{"OpenCL host API (with copies)", -1, -1, -1, -1, median(t_host)}, s_std);
    print_row(row{"radix CPU engine", -1, -1, -1, -1, median(t_cpu)}, s_std);
    print_row(row{"std::sort", -1, -1, -1, -1, s_std}, s_std);
#if RADIX_BENCH_CUDA_ROWS
    const cuda_rows cu = time_cuda_rows(input.data(), ref.data(), n, repeat);
    if (cu.ran) {
      print_row(row{"radix CUDA engine (device)", -1, -1, -1, -1, cu.radix_s}, s_std);
      print_row(row{"CUB DeviceRadixSort (device)", -1, -1, -1, -1, cu.cub_s}, s_std);
    }
#endif
    std::printf("\nOpenCL (device wall) vs std::sort: %.2fx; vs CPU engine: %.2fx; throughput %.1f Mkeys/s\n",
                s_std / median(t_dev_wall), median(t_cpu) / median(t_dev_wall), double(n) / median(t_dev_wall) / 1e6);
#if RADIX_BENCH_CUDA_ROWS
    if (cu.ran) {
      std::printf("OpenCL vs CUB (%s, CUDA events; CUB %.3f ms with its temp storage made beforehand): %.3fx "
                  "with a workspace (%.3f ms), %.3fx through opencl::sorter (%.3f ms), %.3fx with scratch of its "
                  "own (%.3f ms), %.3fx on the profiled phases; the CUDA engine %.3fx%s\n",
                  cu.device.c_str(), cu.cub_s * 1e3, cu.cub_s / median(t_dev_ws), median(t_dev_ws) * 1e3,
                  cu.cub_s / median(t_dev_sorter), median(t_dev_sorter) * 1e3,
                  cu.cub_s / median(t_dev_plain), median(t_dev_plain) * 1e3, cu.cub_s / (pm.total_ms() / 1e3),
                  cu.cub_s / cu.radix_s, cu.cub_ok && cu.radix_ok ? "" : "  **CUDA RESULT WRONG**");
      failures += !cu.cub_ok + !cu.radix_ok;
    }
#endif
    std::fflush(stdout);
  }
  if (failures) std::printf("\n%d OpenCL results were WRONG\n", failures);
  return failures ? 1 : 0;
}
