// radix CLI — see fileio.hpp.
#include "fileio.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>

namespace radix_cli::io {

namespace {

std::string why(int err) { return std::strerror(err); }

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw io_error(path + ": " + what + ": " + why(err));
}

}  // namespace

fd_handle& fd_handle::operator=(fd_handle&& o) noexcept {
  if (this != &o) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = o.fd_;
    o.fd_ = -1;
  }
  return *this;
}
fd_handle::~fd_handle() {
  if (fd_ >= 0) ::close(fd_);
}

fd_handle open_input(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(path, "cannot open", errno);
  fd_handle h(fd);
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(path, "cannot stat", errno);
  if (S_ISDIR(st.st_mode)) throw io_error(path + ": is a folder, not a file");
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
  return h;
}

std::uint64_t file_size(int fd, const std::string& path) {
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail(path, "cannot stat", errno);
  return std::uint64_t(st.st_size);
}

void read_at(int fd, void* buf, std::size_t n, std::uint64_t offset, const std::string& path) {
  auto* p = static_cast<char*>(buf);
  while (n > 0) {
    const std::size_t piece = std::min<std::size_t>(n, std::size_t(64) << 20);
    const ssize_t r = ::pread(fd, p, piece, off_t(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      fail(path, "read failed", errno);
    }
    if (r == 0) throw io_error(path + ": unexpected end of file (was it changed while being read?)");
    p += r;
    n -= std::size_t(r);
    offset += std::uint64_t(r);
  }
}

void write_at(int fd, const void* buf, std::size_t n, std::uint64_t offset, const std::string& path) {
  auto* p = static_cast<const char*>(buf);
  while (n > 0) {
    const std::size_t piece = std::min<std::size_t>(n, std::size_t(64) << 20);
    const ssize_t r = ::pwrite(fd, p, piece, off_t(offset));
    if (r < 0) {
      if (errno == EINTR) continue;
      if (errno == ENOSPC) throw io_error(path + ": write failed: no space left on the device");
      if (errno == EFBIG) throw io_error(path + ": write failed: file too large (file-size limit reached)");
      fail(path, "write failed", errno);
    }
    if (r == 0) throw io_error(path + ": write failed: no progress (disk full?)");
    p += r;
    n -= std::size_t(r);
    offset += std::uint64_t(r);
  }
}

std::string dir_of(const std::string& path) {
  const auto s = path.find_last_of('/');
  if (s == std::string::npos) return ".";
  if (s == 0) return "/";
  return path.substr(0, s);
}

temp_file::temp_file(const std::string& dir) : dir_(dir) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == ENOENT || errno == EACCES || errno == EROFS || errno == ENOTDIR)
      fail(dir, "cannot create temporary files in this folder (--tmpdir)", errno);
    // The process id in the name lets a later run remove it if this one dies
    // before the unlink below.
    std::string tmpl = dir + "/.radix-run-" + std::to_string(::getpid()) + "-XXXXXX";
    fd = ::mkstemp(tmpl.data());
    if (fd < 0) fail(dir, "cannot create a temporary file (--tmpdir)", errno);
    ::unlink(tmpl.c_str());  // nameless from now on: gone when closed
  }
  fd_ = fd_handle(fd);
}

namespace {

/// The first number after `key` in a "key value" file (/proc, cgroup), or -1.
long long field_of(const std::string& path, const std::string& key) {
  std::ifstream f(path);
  std::string k;
  long long v = 0;
  while (f >> k) {
    if (k == key && f >> v) return v;
    f.ignore(std::numeric_limits<std::streamsize>::max(), '\n');
  }
  return -1;
}

/// A file holding one number ("max" and unreadable files: -1).
long long number_in(const std::string& path) {
  std::ifstream f(path);
  long long v = -1;
  if (!(f >> v)) return -1;
  return v;
}

void lower(memory_limit& m, long long bytes, const std::string& source) {
  if (bytes < 0) return;
  if (m.bytes == 0 || std::uint64_t(bytes) < m.bytes) m = {std::max<std::uint64_t>(std::uint64_t(bytes), 1), source};
}

/// A cgroup folder and its ancestors up to the mount point: each may limit.
template <class F>
void each_cgroup_level(const std::string& mount, std::string rel, F f) {
  while (true) {
    f(mount + rel);
    if (rel.empty() || rel == "/") break;
    rel = rel.substr(0, rel.find_last_of('/'));
  }
}

}  // namespace

memory_limit usable_memory() {
  memory_limit m;
  if (const long long kb = field_of("/proc/meminfo", "MemAvailable:"); kb >= 0) {
    lower(m, kb * 1024, "available memory (MemAvailable)");
  } else {
    const long pages = ::sysconf(_SC_AVPHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && size > 0) lower(m, (long long)pages * size, "available memory");
  }
  // rlimits count address space, not memory: subtract what is mapped already.
  struct rlimit rl {};
  if (::getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    lower(m, (long long)rl.rlim_cur - std::max(0LL, field_of("/proc/self/status", "VmSize:")) * 1024,
          "the address-space limit (RLIMIT_AS, ulimit -v)");
  if (::getrlimit(RLIMIT_DATA, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
    lower(m, (long long)rl.rlim_cur - std::max(0LL, field_of("/proc/self/status", "VmData:")) * 1024,
          "the data-segment limit (RLIMIT_DATA, ulimit -d)");
  // cgroups: "0::/path" (v2) or "N:...memory...:/path" (v1). Page cache is
  // reclaimable, so the cgroup's free memory is its limit less its other use.
  std::ifstream cg("/proc/self/cgroup");
  for (std::string line; std::getline(cg, line);) {
    const auto a = line.find(':'), b = line.find(':', a + 1);
    if (a == std::string::npos || b == std::string::npos) continue;
    const std::string controllers = line.substr(a + 1, b - a - 1), rel = line.substr(b + 1);
    if (line.compare(0, a, "0") == 0 && controllers.empty()) {
      each_cgroup_level("/sys/fs/cgroup", rel, [&](const std::string& d) {
        const long long max = number_in(d + "/memory.max"), cur = number_in(d + "/memory.current");
        if (max >= 0) lower(m, max - std::max(0LL, cur - std::max(0LL, field_of(d + "/memory.stat", "file"))),
                            "the cgroup's memory.max");
      });
    } else if (("," + controllers + ",").find(",memory,") != std::string::npos) {
      each_cgroup_level("/sys/fs/cgroup/memory", rel, [&](const std::string& d) {
        const long long max = number_in(d + "/memory.limit_in_bytes"), cur = number_in(d + "/memory.usage_in_bytes");
        if (max >= 0 && max < (1LL << 60))  // "no limit" reads as a huge number
          lower(m, max - std::max(0LL, cur - std::max(0LL, field_of(d + "/memory.stat", "total_cache"))),
                "the cgroup's memory.limit_in_bytes");
      });
    }
  }
  return m;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat x {}, y {};
  if (::stat(a.c_str(), &x) != 0 || ::stat(b.c_str(), &y) != 0) return false;
  return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

}  // namespace radix_cli::io
