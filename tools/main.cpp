// radix — the command-line program: `radix <command> [options]`.
// Dispatches to one file per subcommand (commands.hpp) and turns every failure
// into one line on stderr and a documented exit status (args.hpp).
#include <malloc.h>

#include <cstdio>
#include <exception>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <radix/radix.hpp>

#include "args.hpp"
#include "commands.hpp"

#ifndef RADIX_CLI_VERSION
#define RADIX_CLI_VERSION "unknown"
#endif

namespace {

using namespace radix_cli;

void print_main_help() {
  std::printf(
      "radix %s - fast, stable radix sort for every key type (command-line tool)\n"
      "\n"
      "Usage: radix <command> [options]\n"
      "       radix <command> --help      options of one command\n"
      "\n"
      "Commands:\n",
      RADIX_CLI_VERSION);
  for (const auto& c : all_commands()) std::printf("  %-10s %s\n", c.name, c.summary);
  std::printf(
      "\n"
      "Options:\n"
      "  -h, --help     this help\n"
      "  --version      print the version and the engines this build can use\n"
      "\n"
      "Exit status: 0 success, 1 a sort result was wrong (or, for check, a file is\n"
      "out of order), 2 bad command line, 3 could not run (unreadable file, disk\n"
      "full, engine unavailable, out of memory, ...), 128+N killed by signal N.\n"
      "\n"
      "Example:\n"
      "  radix bench -n 2^24 -t u32        sort 16M random 32-bit keys, verify, compare\n"
      "                                    with std::sort\n");
}

void print_version() {
  std::printf("radix %s\n", RADIX_CLI_VERSION);
  std::printf("engines: cpu (available)");
  std::printf(", cuda (%s)", radix::engine_available(radix::engine::cuda) ? "available" : "not available here");
  std::printf(", opencl (%s)\n", radix::engine_available(radix::engine::opencl) ? "available" : "not available here");
}

/// Library messages start with "radix: "; the CLI prints its own prefix.
std::string_view strip_prefix(std::string_view m) {
  constexpr std::string_view p = "radix: ";
  if (m.substr(0, p.size()) == p) m.remove_prefix(p.size());
  return m;
}

int fail(const std::string& who, std::string_view msg, int status) {
  std::fprintf(stderr, "%s: %.*s\n", who.c_str(), int(msg.size()), msg.data());
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  // Big buffers come and go run after run: a fixed mmap threshold returns them
  // to the system at once (glibc's adaptive one kept freed run buffers in the
  // heap, and `radix sort --memory 64M` then used 3x its budget).
  mallopt(M_MMAP_THRESHOLD, 1 << 20);
  // glibc reserves 64 MiB of address space for each thread's malloc arena:
  // under `ulimit -v` that, not the data, ran a budgeted sort out of memory.
  // Two arenas serve the few small allocations the tool's threads make.
  mallopt(M_ARENA_MAX, 2);
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty()) {
    print_main_help();
    return exit_usage;
  }
  const std::string& first = args[0];
  if (first == "-h" || first == "--help" || first == "help") {
    if (first == "help" && args.size() > 1) {
      for (const auto& c : all_commands())
        if (args[1] == c.name) {
          std::fputs(c.help().c_str(), stdout);
          return exit_ok;
        }
      return fail("radix", "unknown command '" + args[1] + "' (see 'radix --help')", exit_usage);
    }
    print_main_help();
    return exit_ok;
  }
  if (first == "--version" || first == "-V") {
    print_version();
    return exit_ok;
  }
  const command* cmd = nullptr;
  for (const auto& c : all_commands())
    if (first == c.name) cmd = &c;
  if (!cmd) {
    if (!first.empty() && first[0] == '-')
      return fail("radix", "unknown option '" + first + "' (see 'radix --help')", exit_usage);
    return fail("radix", "unknown command '" + first + "' (see 'radix --help')", exit_usage);
  }

  const std::string who = std::string("radix ") + cmd->name;
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (wants_help(rest)) {
    std::fputs(cmd->help().c_str(), stdout);
    return exit_ok;
  }
  try {
    return cmd->run(rest);
  } catch (const usage_error& e) {
    return fail(who, std::string(e.what()) + " (see '" + who + " --help')", exit_usage);
  } catch (const radix::invalid_argument& e) {
    return fail(who, strip_prefix(e.what()), exit_usage);
  } catch (const radix::error& e) {
    return fail(who, strip_prefix(e.what()), exit_runtime);
  } catch (const std::bad_alloc&) {
    return fail(who, std::string("out of memory") + (cmd->name == std::string_view("sort") ? " (try a smaller --memory)"
                                                       : cmd->name == std::string_view("bench") ? " (try a smaller --count)"
                                                                                                : ""),
                exit_runtime);
  } catch (const std::exception& e) {
    return fail(who, e.what(), exit_runtime);
  }
}
