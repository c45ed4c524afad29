// radix CLI — outputs that appear whole or not at all.
//
// A result is written to a file nobody can see, in the destination's folder,
// and published by one rename once it is complete and verified. A keys file
// and its values file publish as a pair through a commit record (a small
// intent log, written durably before the first rename and removed after the
// last), so that a crash between the two renames is completed by the next
// run instead of leaving sorted keys beside values in the old order.
// Destinations that are not regular files (a FIFO, a device) cannot be
// replaced: the verified result is streamed into them at commit.
#pragma once
#include <sys/types.h>

#include <string>
#include <vector>

#include "fileio.hpp"

namespace radix_cli::io {

/// Installs the handlers once: SIGINT, SIGTERM, SIGHUP and SIGQUIT remove
/// the named temporaries, print one line naming `who` that says truthfully
/// what was written (nothing, part of a stream, or everything), and exit at
/// once with status 128 + signal. A signal that arrives during a commit is
/// held until the commit is complete. `input_note` is added to the line when
/// nothing was written (e.g. "the input is untouched"), or is empty. SIGPIPE
/// is ignored (a closed pipe becomes a write error) and so is SIGXFSZ (a
/// file-size limit becomes a write error).
void install_signal_handlers(const char* who, const char* input_note);

/// One output. fd() is where the result goes; commit() (or commit_pair())
/// makes it visible.
///  - A regular file, new or existing, is replaced atomically. A replaced
///    file keeps its mode and, where the process may, its owner and group;
///    a new one gets 0666 & ~umask.
///  - A symbolic link is followed: its target is replaced (as `sort -o`).
///  - Anything else (a FIFO, a character device) is written straight into,
///    at commit, after the result has been verified in a nameless spill file
///    in `spill_dir`.
class output_file {
 public:
  output_file(const std::string& target, const std::string& spill_dir);
  output_file(const output_file&) = delete;
  output_file& operator=(const output_file&) = delete;
  ~output_file();

  int fd() const { return fd_.get(); }
  /// The path as the user named it (for messages).
  const std::string& target() const { return target_; }
  /// The folder whose temporaries belong to this output.
  const std::string& folder() const { return dir_; }
  /// Whether commit() replaces the destination in one step.
  bool atomic() const { return !direct_; }

  void commit();

 private:
  friend void commit_pair(output_file& keys, output_file& values);
  void make_durable();       // fsync, mode and owner: before anything gets a name
  void give_name();          // an O_TMPFILE gets its hidden name beside the target
  void publish();            // rename over the target
  void stream_into_target();  // for a destination that is not a regular file

  std::string target_;   // as given
  std::string final_;    // the file to replace: target_ with its symlinks followed
  std::string dir_;      // final_'s folder
  std::string named_;    // the temporary's hidden name, once it has one
  fd_handle fd_;
  bool direct_ = false;  // not a regular file: streamed at commit
  bool existed_ = false;
  mode_t mode_ = 0;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  bool committed_ = false;
  bool kept_for_record_ = false;  // a pair commit's record names the temporary
};

/// Commits a keys output and its values output as a pair: a crash or a
/// signal at any moment leaves both old files or both new ones, once the
/// next run (or `radix recover`) has completed an interrupted commit. Both
/// must be regular files for that guarantee; otherwise the regular one is
/// committed first and the other streamed.
void commit_pair(output_file& keys, output_file& values);

/// Completes or rolls back the interrupted pair commits recorded in `dir`,
/// and removes the temporaries that processes which are gone left there.
/// Returns one line per thing done (for the caller to print); with
/// `dry_run`, only says what it would do; without `temporaries`, leaves
/// the temporaries alone.
std::vector<std::string> recover(const std::string& dir, bool dry_run = false, bool temporaries = true);

/// $TMPDIR, else /tmp: where a FIFO or device output waits until it is complete.
std::string system_temp_folder();

/// Whether `dir` is a folder this process can list.
bool is_folder(const std::string& dir);

/// recover() for each distinct folder, printing its lines on stderr
/// prefixed by `who`.
void recover_folders(const char* who, const std::vector<std::string>& dirs);

/// The file a path leads to after following symbolic links (the path
/// itself when it is not a link); the last one may not exist.
std::string follow_links(const std::string& path);

}  // namespace radix_cli::io
