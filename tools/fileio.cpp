// radix CLI — see fileio.hpp.
#include "fileio.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>

namespace radix_cli::io {

namespace {

std::string why(int err) { return std::strerror(err); }

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw io_error(path + ": " + what + ": " + why(err));
}

// ---- named temporaries the signal handler removes --------------------------------
// A fixed table of fixed buffers: the handler may only read plain memory.
constexpr int max_named = 8;
constexpr std::size_t max_path = 4096;
char named_paths[max_named][max_path];
std::atomic<bool> named_used[max_named];
const char* signal_who = "radix";

int register_named(const std::string& p) {
  if (p.size() >= max_path) return -1;
  for (int i = 0; i < max_named; ++i) {
    bool expect = false;
    if (named_used[i].compare_exchange_strong(expect, true)) {
      std::memcpy(named_paths[i], p.c_str(), p.size() + 1);
      return i;
    }
  }
  return -1;
}
void unregister_named(int slot) {
  if (slot >= 0) named_used[slot].store(false);
}

void write_str(const char* s) {
  const ssize_t r = ::write(2, s, std::strlen(s));
  (void)r;
}

extern "C" void on_signal(int sig) {
  for (int i = 0; i < max_named; ++i)
    if (named_used[i].load()) ::unlink(named_paths[i]);
  char num[16];
  int k = 0, s = sig;
  char rev[16];
  do rev[k++] = char('0' + s % 10), s /= 10;
  while (s && k < 15);
  for (int j = 0; j < k; ++j) num[j] = rev[k - 1 - j];
  num[k] = 0;
  write_str("\n");
  write_str(signal_who);
  write_str(": interrupted by signal ");
  write_str(num);
  write_str("; the input is untouched and no output was written\n");
  ::_exit(128 + sig);
}

}  // namespace

void install_signal_handlers(const char* who) {
  signal_who = who;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::sigaction(s, &sa, nullptr);
  ::signal(SIGXFSZ, SIG_IGN);
}

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

namespace {
std::string base_of(const std::string& path) {
  const auto s = path.find_last_of('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}
int named_slot_of(const std::string& p) {
  for (int i = 0; i < max_named; ++i)
    if (named_used[i].load() && p == named_paths[i]) return i;
  return -1;
}
}  // namespace

output_file::output_file(const std::string& target) : target_(target), dir_(dir_of(target)) {
  if (target.empty() || target.back() == '/') throw io_error("'" + target + "': not a file name");
  struct stat st {};
  if (::stat(target.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) throw io_error(target + ": is a folder, not a file");
  // Default permissions as a plain create would give (0666 minus umask).
  int fd = ::open(dir_.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
  if (fd < 0) {
    if (errno == ENOENT || errno == EACCES || errno == EROFS || errno == ENOTDIR)
      fail(dir_, "cannot create the output file in this folder", errno);
    // No O_TMPFILE here: a hidden name next to the target.
    std::string tmpl = dir_ + "/." + base_of(target) + ".radix-tmp-XXXXXX";
    fd = ::mkstemp(tmpl.data());
    if (fd < 0) fail(dir_, "cannot create a temporary file", errno);
    named_ = tmpl;
    register_named(named_);
    const mode_t um = ::umask(0);
    ::umask(um);
    ::fchmod(fd, 0666 & ~um);
  }
  fd_ = fd_handle(fd);
}

output_file::~output_file() {
  if (!committed_ && !named_.empty()) {
    ::unlink(named_.c_str());
    unregister_named(named_slot_of(named_));
  }
}

void output_file::commit() {
  if (::fsync(fd_.get()) != 0) fail(target_, "flushing to disk failed", errno);
  if (named_.empty()) {
    // Give the unnamed file a hidden name, then rename it over the target:
    // rename is atomic, linkat cannot replace an existing file.
    named_ = dir_ + "/." + base_of(target_) + ".radix-tmp-" + std::to_string(::getpid());
    ::unlink(named_.c_str());
    const std::string proc = "/proc/self/fd/" + std::to_string(fd_.get());
    const int slot = register_named(named_);
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, named_.c_str(), AT_SYMLINK_FOLLOW) != 0) {
      const int e = errno;
      unregister_named(slot);
      named_.clear();
      fail(target_, "cannot name the finished output file", e);
    }
  }
  if (::rename(named_.c_str(), target_.c_str()) != 0) fail(target_, "cannot rename the finished output into place", errno);
  unregister_named(named_slot_of(named_));
  committed_ = true;
  // Make the rename itself durable.
  const int d = ::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d >= 0) {
    ::fsync(d);
    ::close(d);
  }
}

temp_file::temp_file(const std::string& dir) : dir_(dir) {
  int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == ENOENT || errno == EACCES || errno == EROFS || errno == ENOTDIR)
      fail(dir, "cannot create temporary files in this folder (--tmpdir)", errno);
    std::string tmpl = dir + "/.radix-run-XXXXXX";
    fd = ::mkstemp(tmpl.data());
    if (fd < 0) fail(dir, "cannot create a temporary file (--tmpdir)", errno);
    ::unlink(tmpl.c_str());  // nameless from now on: gone when closed
  }
  fd_ = fd_handle(fd);
}

std::uint64_t available_memory() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  std::uint64_t kb = 0;
  std::string unit;
  while (f >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  const long pages = ::sysconf(_SC_AVPHYS_PAGES), size = ::sysconf(_SC_PAGESIZE);
  return pages > 0 && size > 0 ? std::uint64_t(pages) * std::uint64_t(size) : 0;
}

bool same_file(const std::string& a, const std::string& b) {
  struct stat x {}, y {};
  if (::stat(a.c_str(), &x) != 0 || ::stat(b.c_str(), &y) != 0) return false;
  return x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

}  // namespace radix_cli::io
