// radix CLI — file input and output with one-line errors: big reads and
// writes, temporary run files that vanish with the process, and how much
// memory the process may use. Outputs that appear whole or not at all are in
// output.hpp.
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

/// The memory this process may still take: the smallest of MemAvailable,
/// the address-space and data-segment limits (RLIMIT_AS, RLIMIT_DATA, less
/// what the process already maps) and the cgroup's limit (v2 memory.max, v1
/// memory.limit_in_bytes, less what the cgroup holds beyond its page cache).
/// `source` names the one that decided; bytes == 0 when nothing is known.
struct memory_limit {
  std::uint64_t bytes = 0;
  std::string source;
};
memory_limit usable_memory();
/// Whether two paths name the same existing file.
bool same_file(const std::string& a, const std::string& b);
/// The folder part of a path ("." for a bare name).
std::string dir_of(const std::string& path);

}  // namespace radix_cli::io
