// radix CLI — `radix recover [DIR...]`: finishes what a killed `radix sort`
// or `radix gen` left in a folder (output.hpp): completes or rolls back an
// interrupted pair commit, and removes temporaries of processes that are
// gone. Every sort and gen does this for its own folders first; this
// command is for looking (--dry-run) or cleaning up without sorting.
#include <cstdio>
#include <string>
#include <vector>

#include "args.hpp"
#include "commands.hpp"
#include "output.hpp"

namespace radix_cli {

std::string recover_help() {
  return "Usage: radix recover [DIR...] [--dry-run]\n"
         "\n"
         "In each DIR (default: the current folder):\n"
         "  - completes a keys + values commit that a killed `radix sort` or\n"
         "    `radix gen` left between its two renames (both files then hold the new\n"
         "    result), or rolls back one that stopped before them (both keep their\n"
         "    old contents);\n"
         "  - removes temporary files left by radix processes that are gone (their\n"
         "    names hold the process id).\n"
         "Nothing of a process that is still running is touched. `radix sort` and\n"
         "`radix gen` do the same in their own folders before they start.\n"
         "\n"
         "      --dry-run          only say what would be done\n"
         "\n"
         "Prints one line per thing done (nothing when there was nothing to do).\n"
         "Exit status: 0 done, 2 bad command line, 3 a folder could not be read.\n";
}

int recover_command(const std::vector<std::string>& args) {
  bool dry_run = false;
  std::vector<std::string> dirs;
  parse_options(args, {{"dry-run", 0, false, [&](const std::string&) { dry_run = true; }}}, &dirs);
  if (dirs.empty()) dirs.push_back(".");
  for (const auto& d : dirs)
    if (!io::is_folder(d)) throw io::io_error(d + ": not a folder that can be read");
  for (const auto& d : dirs)
    for (const auto& line : io::recover(d, dry_run)) std::printf("%s\n", line.c_str());
  return exit_ok;
}

}  // namespace radix_cli
