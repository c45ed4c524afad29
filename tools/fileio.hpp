// radix CLI — files that never lose data: big sequential reads and writes
// with one-line errors, an output file that stays invisible until it is
// complete (then replaces its target atomically), temporary run files that
// vanish with the process, and signal handling that leaves nothing behind.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace radix_cli::io {

/// An I/O failure; the message is one line naming the file and the reason.
class io_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Installs the handlers once: SIGINT, SIGTERM, SIGHUP and SIGQUIT remove
/// the named temporary files (output_file's fallback), print one line naming
/// `who`, and exit at once with status 128 + signal. Unnamed files vanish by
/// themselves, so even SIGKILL leaves no output behind. SIGXFSZ is ignored
/// so that a file-size limit surfaces as a write error.
void install_signal_handlers(const char* who);

/// A file descriptor that closes itself.
class fd_handle {
 public:
  fd_handle() = default;
  explicit fd_handle(int fd) : fd_(fd) {}
  fd_handle(fd_handle&& o) noexcept : fd_(o.fd_) { o.fd_ = -1; }
  fd_handle& operator=(fd_handle&& o) noexcept;
  fd_handle(const fd_handle&) = delete;
  ~fd_handle();
  int get() const { return fd_; }

 private:
  int fd_ = -1;
};

/// Opens an existing regular file for reading (errors name the path).
fd_handle open_input(const std::string& path);
std::uint64_t file_size(int fd, const std::string& path);

/// Reads exactly n bytes at `offset` (large requests in 64 MiB pieces).
void read_at(int fd, void* buf, std::size_t n, std::uint64_t offset, const std::string& path);
/// Writes all n bytes at `offset`; ENOSPC, EFBIG and the like become io_error.
void write_at(int fd, const void* buf, std::size_t n, std::uint64_t offset, const std::string& path);

/// The output: a file created in the target's folder that nobody sees until
/// commit() (an unnamed O_TMPFILE where the file system has them, else a
/// hidden temporary name that the destructor and the signal handler remove).
/// commit() flushes it to disk and renames it over the target in one step,
/// so the target (which may be the input) is never partly written.
class output_file {
 public:
  explicit output_file(const std::string& target);
  output_file(const output_file&) = delete;
  ~output_file();
  int fd() const { return fd_.get(); }
  const std::string& target() const { return target_; }
  void commit();

 private:
  std::string target_, dir_, named_;  // named_: the visible temporary, if any
  fd_handle fd_;
  bool committed_ = false;
};

/// A scratch file in `dir` that has no name: it exists while the process
/// holds it and disappears however the process ends.
class temp_file {
 public:
  explicit temp_file(const std::string& dir);
  int fd() const { return fd_.get(); }
  const std::string& where() const { return dir_; }

 private:
  std::string dir_;
  fd_handle fd_;
};

/// Bytes of memory available now (MemAvailable), or 0 when unknown.
std::uint64_t available_memory();
/// Whether two paths name the same existing file.
bool same_file(const std::string& a, const std::string& b);
/// The folder part of a path ("." for a bare name).
std::string dir_of(const std::string& path);

}  // namespace radix_cli::io
