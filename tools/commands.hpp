// radix CLI — the subcommands. A new one (sort, gen, check, ...) is one file
// defining a `int xxx_command(const std::vector<std::string>&)` plus one
// line in `commands` below.
#pragma once
#include <span>
#include <string>
#include <vector>

namespace radix_cli {

/// Runs a subcommand on its arguments (argv after the subcommand's name).
/// Returns the exit status; throws usage_error for a bad command line,
/// radix::error or std::bad_alloc when it cannot run.
using command_fn = int (*)(const std::vector<std::string>& args);

struct command {
  const char* name;
  const char* summary;  ///< one line for `radix --help`
  command_fn run;
  std::string (*help)();  ///< the full text of `radix NAME --help`
};

int bench_command(const std::vector<std::string>& args);
std::string bench_help();
int sort_command(const std::vector<std::string>& args);
std::string sort_help();
int gen_command(const std::vector<std::string>& args);
std::string gen_help();
int check_command(const std::vector<std::string>& args);
std::string check_help();
int recover_command(const std::vector<std::string>& args);
std::string recover_help();
int calibrate_command(const std::vector<std::string>& args);
std::string calibrate_help();

inline const command commands[] = {
    {"sort", "sort a file of keys or records (larger than memory too), never losing data", sort_command, sort_help},
    {"gen", "write test files: keys, records, values, from a seed", gen_command, gen_help},
    {"check", "verify a file is sorted; checksum its elements to prove nothing was lost", check_command, check_help},
    {"recover", "finish or roll back a keys + values commit cut short; remove leftover temporaries", recover_command,
     recover_help},
    {"bench", "generate keys, sort them with radix, verify, compare with std::sort", bench_command, bench_help},
    {"calibrate", "time the CUDA sort variants on this GPU; automatic then uses the fastest", calibrate_command,
     calibrate_help},
};

inline std::span<const command> all_commands() { return commands; }

}  // namespace radix_cli
