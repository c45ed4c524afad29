// radix CLI — see output.hpp. The pieces, in order: the signal handler and
// its state, the test hook that kills the process between commit steps, one
// output file, the pair commit and its record, recovery.
#include "output.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <set>
#include <string>

namespace radix_cli::io {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& what, int err) {
  throw io_error(path + ": " + what + ": " + std::strerror(err));
}

std::string base_of(const std::string& path) {
  const auto s = path.find_last_of('/');
  return s == std::string::npos ? path : path.substr(s + 1);
}

/// An absolute path with the folder part resolved (records name files by
/// such paths, so that any later run, from any folder, finds them).
std::string absolute(const std::string& p) {
  std::unique_ptr<char, decltype(&std::free)> dir(::realpath(dir_of(p).c_str(), nullptr), &std::free);
  if (!dir) fail(p, "cannot resolve the folder", errno);
  const std::string d = dir.get();
  return (d == "/" ? "" : d) + "/" + base_of(p);
}

bool exists(const std::string& p) {
  struct stat st {};
  return ::lstat(p.c_str(), &st) == 0;
}

void fsync_dir(const std::string& dir) {
  const int d = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (d >= 0) {
    ::fsync(d);
    ::close(d);
  }
}

// ---- the signal handler and what it knows -----------------------------------------
// The handler may only read plain memory: fixed tables of fixed buffers.

enum phase : int {
  writing,     // nothing visible yet: temporaries are removed, nothing was written
  committing,  // renames under way: the signal waits for the commit to finish
  cut_short,   // a commit failed after its record was written: recovery finishes it
  streaming,   // a FIFO or device is receiving the verified result
  committed,   // every output is in place
};
std::atomic<int> g_phase{writing};
std::atomic<int> g_pending{0};

constexpr int max_named = 8;
constexpr std::size_t max_path = 4096;
char g_named[max_named][max_path];
std::atomic<bool> g_named_used[max_named];
char g_stream_target[max_path];
const char* g_who = "radix";
const char* g_note = "";
bool g_tty = false;

int register_named(const std::string& p) {
  if (p.size() >= max_path) return -1;
  for (int i = 0; i < max_named; ++i) {
    bool expect = false;
    if (g_named_used[i].compare_exchange_strong(expect, true)) {
      std::memcpy(g_named[i], p.c_str(), p.size() + 1);
      return i;
    }
  }
  return -1;
}
void unregister_named(const std::string& p) {
  for (int i = 0; i < max_named; ++i)
    if (g_named_used[i].load() && p == g_named[i]) g_named_used[i].store(false);
}

void write_str(const char* s) {
  const ssize_t r = ::write(2, s, std::strlen(s));
  (void)r;
}

[[noreturn]] void report_signal_and_exit(int sig) {
  char num[16];
  int k = 0, s = sig;
  char rev[16];
  do rev[k++] = char('0' + s % 10), s /= 10;
  while (s && k < 15);
  for (int j = 0; j < k; ++j) num[j] = rev[k - 1 - j];
  num[k] = 0;
  if (g_tty) write_str("\r\033[K");  // the progress line, if one is shown
  write_str(g_who);
  write_str(": interrupted by signal ");
  write_str(num);
  switch (g_phase.load()) {
    case streaming:
      write_str(" while writing ");
      write_str(g_stream_target);
      write_str(", which is not a regular file: it received part of the verified output\n");
      break;
    case committed:
      write_str(" after the output was complete: it is in place, sorted and verified\n");
      break;
    case cut_short:
      write_str(" after a commit failed half-way: 'radix recover' in the output's folder completes it\n");
      break;
    default:
      write_str("; no output was written");
      if (*g_note) {
        write_str(" and ");
        write_str(g_note);
      }
      write_str("\n");
  }
  ::_exit(128 + sig);
}

extern "C" void on_signal(int sig) {
  if (g_phase.load() == committing) {  // finish the commit first (end_commit re-raises)
    g_pending.store(sig);
    return;
  }
  if (g_phase.load() == writing)
    for (int i = 0; i < max_named; ++i)
      if (g_named_used[i].load()) ::unlink(g_named[i]);
  report_signal_and_exit(sig);
}

/// Holds signals for the length of a commit. If the commit throws, the phase
/// says what is on disk (nothing yet, or a record that recovery completes),
/// and a signal that arrived meanwhile is acted on then.
class commit_scope {
 public:
  commit_scope() { g_phase.store(committing); }
  commit_scope(const commit_scope&) = delete;
  ~commit_scope() {
    g_phase.store(done_ ? committed : recorded_ ? cut_short : writing);
    if (const int sig = g_pending.exchange(0)) {
      if (!done_ && !recorded_) on_signal(sig);  // removes the temporaries
      report_signal_and_exit(sig);
    }
  }
  void recorded() { recorded_ = true; }
  void done() { done_ = true; }

 private:
  bool recorded_ = false, done_ = false;
};

// ---- the fault-injection hook of the tests ---------------------------------------------
// RADIX_CLI_KILL_AT_STEP=K[:SIG] sends the process signal SIG (default 9,
// SIGKILL) right after step K of its commits (steps count from 1 over the
// run), so that a test can stop it at every point a crash, a power cut or
// a user's Ctrl-C could.
void commit_step() {
  static const std::pair<long, int> at = [] {
    const char* s = std::getenv("RADIX_CLI_KILL_AT_STEP");
    if (!s) return std::pair(0L, 0);
    const char* colon = std::strchr(s, ':');
    return std::pair(std::atol(s), colon ? std::atoi(colon + 1) : int(SIGKILL));
  }();
  static long step = 0;
  if (at.first > 0 && ++step == at.first) ::kill(::getpid(), at.second);
}

bool no_tmpfile() {
  const char* s = std::getenv("RADIX_CLI_NO_TMPFILE");  // tests: the path of file systems without O_TMPFILE
  return s && *s == '1';
}

/// A nameless file in `dir` (O_TMPFILE), or, where the file system has none,
/// a hidden name with the process id in it (so that a later run can tell
/// whether its owner is gone): `.PREFIX-PID-XXXXXX`. `named` receives that
/// name, or stays empty.
int create_hidden(const std::string& dir, const std::string& prefix, std::string& named) {
  int fd = no_tmpfile() ? -1 : ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  if (!no_tmpfile() && (errno == ENOENT || errno == EACCES || errno == EROFS || errno == ENOTDIR))
    fail(dir, "cannot create a file in this folder", errno);
  std::string tmpl = dir + "/." + prefix + "-" + std::to_string(::getpid()) + "-XXXXXX";
  fd = ::mkstemp(tmpl.data());  // mode 0600 until the commit sets the final one
  if (fd < 0) fail(dir, "cannot create a temporary file", errno);
  named = tmpl;
  register_named(named);
  return fd;
}

}  // namespace

void install_signal_handlers(const char* who, const char* input_note) {
  g_who = who;
  g_note = input_note ? input_note : "";
  g_tty = ::isatty(2) != 0;
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESTART;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) ::sigaction(s, &sa, nullptr);
  ::signal(SIGXFSZ, SIG_IGN);
  ::signal(SIGPIPE, SIG_IGN);
}

std::string follow_links(const std::string& path) {
  std::string cur = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(cur.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
    std::string link(std::size_t(st.st_size > 0 ? st.st_size : 4096) + 1, '\0');
    const ssize_t len = ::readlink(cur.c_str(), link.data(), link.size());
    if (len < 0) fail(cur, "cannot read the symbolic link", errno);
    link.resize(std::size_t(len));
    cur = !link.empty() && link[0] == '/' ? link : dir_of(cur) + "/" + link;
  }
  throw io_error(path + ": too many levels of symbolic links");
}

// ---- one output ---------------------------------------------------------------------

output_file::output_file(const std::string& target, const std::string& spill_dir) : target_(target) {
  if (target.empty() || target.back() == '/') throw io_error("'" + target + "': not a file name");
  final_ = follow_links(target);
  struct stat st {};
  if (::stat(final_.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) throw io_error(target + ": is a folder, not a file");
    if (S_ISREG(st.st_mode)) {
      existed_ = true;
      mode_ = st.st_mode & 07777;
      uid_ = st.st_uid;
      gid_ = st.st_gid;
    } else {
      direct_ = true;
      if (::access(final_.c_str(), W_OK) != 0) fail(target, "cannot write to it", errno);
    }
  }
  if (direct_) {
    // The verified result waits in a nameless spill file until commit.
    dir_ = spill_dir.empty() ? "." : spill_dir;
    std::string named;
    fd_ = fd_handle(create_hidden(dir_, "radix-spill", named));
    if (!named.empty()) {
      ::unlink(named.c_str());
      unregister_named(named);
    }
    return;
  }
  dir_ = dir_of(final_);
  fd_ = fd_handle(create_hidden(dir_, base_of(final_) + ".radix-tmp", named_));
}

output_file::~output_file() {
  if (!committed_ && !kept_for_record_ && !named_.empty()) {
    ::unlink(named_.c_str());
    unregister_named(named_);
  }
}

void output_file::make_durable() {
  const int fd = fd_.get();
  if (existed_) {
    // Keep the replaced file's owner and group where we may (root, or a group
    // we belong to); set-id bits survive only with the owner and group they
    // were given for.
    struct stat now {};
    if (::fstat(fd, &now) != 0) fail(target_, "cannot stat the new output", errno);
    bool uid_kept = now.st_uid == uid_, gid_kept = now.st_gid == gid_;
    if (!uid_kept || !gid_kept) {
      if (::fchown(fd, uid_, gid_) == 0) {
        uid_kept = gid_kept = true;
      } else if (!gid_kept && ::fchown(fd, uid_t(-1), gid_) == 0) {
        gid_kept = true;
      }
    }
    mode_t m = mode_;
    if (!uid_kept) m &= ~mode_t(S_ISUID);
    if (!gid_kept) m &= ~mode_t(S_ISGID);
    if (::fchmod(fd, m) != 0) fail(target_, "cannot set the output's mode", errno);
  } else {
    const mode_t um = ::umask(0);
    ::umask(um);
    if (::fchmod(fd, 0666 & ~um) != 0) fail(target_, "cannot set the output's mode", errno);
  }
  if (::fsync(fd) != 0) fail(target_, "flushing to disk failed", errno);
}

void output_file::give_name() {
  if (!named_.empty()) return;
  // linkat cannot replace a file: the nameless file gets a hidden name with
  // our process id, and rename puts that over the target in one step.
  named_ = dir_ + "/." + base_of(final_) + ".radix-tmp-" + std::to_string(::getpid());
  ::unlink(named_.c_str());
  const std::string proc = "/proc/self/fd/" + std::to_string(fd_.get());
  register_named(named_);
  if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, named_.c_str(), AT_SYMLINK_FOLLOW) != 0) {
    const int e = errno;
    unregister_named(named_);
    named_.clear();
    fail(target_, "cannot name the finished output file", e);
  }
}

void output_file::publish() {
  if (::rename(named_.c_str(), final_.c_str()) != 0) fail(target_, "cannot rename the finished output into place", errno);
  unregister_named(named_);
  committed_ = true;
}

void output_file::stream_into_target() {
  std::snprintf(g_stream_target, sizeof g_stream_target, "%s", target_.c_str());
  const int out = ::open(final_.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);  // a FIFO waits for its reader here
  if (out < 0) fail(target_, "cannot open for writing", errno);
  fd_handle guard(out);
  g_phase.store(streaming);
  struct stat st {};
  if (::fstat(fd_.get(), &st) != 0) fail(target_, "cannot stat the spill file", errno);
  const std::uint64_t size = std::uint64_t(st.st_size);
  std::unique_ptr<char[]> buf(new char[1 << 20]);
  for (std::uint64_t at = 0; at < size;) {
    const std::size_t k = std::size_t(std::min<std::uint64_t>(size - at, 1 << 20));
    read_at(fd_.get(), buf.get(), k, at, target_ + " (spill file)");
    for (std::size_t done = 0; done < k;) {
      const ssize_t w = ::write(out, buf.get() + done, k - done);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno == EPIPE)
        throw io_error(target_ + ": the reader closed it after " + std::to_string(at + done) + " of " +
                       std::to_string(size) + " bytes");
      if (w <= 0) fail(target_, "write failed after " + std::to_string(at + done) + " bytes", w < 0 ? errno : EIO);
      done += std::size_t(w);
    }
    at += k;
  }
  committed_ = true;
  g_phase.store(committed);
}

void output_file::commit() {
  if (direct_) {
    stream_into_target();
    return;
  }
  commit_scope scope;
  make_durable();
  commit_step();
  give_name();
  commit_step();
  publish();
  commit_step();
  fsync_dir(dir_);
  scope.done();
}

// ---- the pair commit ------------------------------------------------------------------
// Record: written beside each output (one copy when both share a folder), each
// copy complete before it gets its name. Renames start only once every copy
// exists, and no copy is removed before both renames are done. So a run that
// finds a record of a dead process knows: every copy there -> complete the
// renames; a copy missing -> the renames never started (or all finished):
// roll back, i.e. remove the temporaries that are left.

namespace {

constexpr const char* record_magic = "radix pair commit 1";
constexpr const char* record_prefix = ".radix-commit-";

struct commit_record {
  long pid = 0;
  std::vector<std::string> copies;
  std::vector<std::pair<std::string, std::string>> renames;  // temporary -> target
};

void put_path(std::string& out, const std::string& p) { out += std::to_string(p.size()) + " " + p + "\n"; }

std::string encode(const commit_record& r) {
  std::string s = std::string(record_magic) + "\npid " + std::to_string(r.pid) + "\ncopies " +
                  std::to_string(r.copies.size()) + "\n";
  for (const auto& c : r.copies) put_path(s, c);
  s += "renames " + std::to_string(r.renames.size()) + "\n";
  for (const auto& [from, to] : r.renames) put_path(s, from), put_path(s, to);
  return s + "end\n";
}

/// Parses a record; false when it is not a whole one.
bool decode(const std::string& s, commit_record& r) {
  std::size_t at = 0;
  const auto line = [&](std::string& out) {
    const auto nl = s.find('\n', at);
    if (nl == std::string::npos) return false;
    out = s.substr(at, nl - at);
    at = nl + 1;
    return true;
  };
  const auto number_after = [&](const char* word, long& v) {
    std::string l;
    if (!line(l) || l.rfind(std::string(word) + " ", 0) != 0) return false;
    char* end = nullptr;
    v = std::strtol(l.c_str() + std::strlen(word) + 1, &end, 10);
    return end && *end == 0 && v >= 0;
  };
  const auto path = [&](std::string& p) {
    const auto sp = s.find(' ', at);
    if (sp == std::string::npos) return false;
    char* end = nullptr;
    const unsigned long len = std::strtoul(s.c_str() + at, &end, 10);
    if (end != s.c_str() + sp || sp + 1 + len + 1 > s.size() || s[sp + 1 + len] != '\n') return false;
    p = s.substr(sp + 1, len);
    at = sp + 1 + len + 1;
    return true;
  };
  std::string l;
  long copies = 0, renames = 0;
  if (!line(l) || l != record_magic || !number_after("pid", r.pid) || !number_after("copies", copies) || copies > 2)
    return false;
  r.copies.resize(std::size_t(copies));
  for (auto& c : r.copies)
    if (!path(c)) return false;
  if (!number_after("renames", renames) || renames > 2) return false;
  r.renames.resize(std::size_t(renames));
  for (auto& [from, to] : r.renames)
    if (!path(from) || !path(to)) return false;
  return line(l) && l == "end" && at == s.size();
}

void write_record(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".new";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) fail(tmp, "cannot write the commit record", errno);
  fd_handle h(fd);
  write_at(fd, text.data(), text.size(), 0, tmp);
  if (::fsync(fd) != 0) fail(tmp, "flushing the commit record failed", errno);
  if (::rename(tmp.c_str(), path.c_str()) != 0) fail(path, "cannot name the commit record", errno);
  fsync_dir(dir_of(path));
}

}  // namespace

void commit_pair(output_file& keys, output_file& values) {
  if (keys.final_ == values.final_) throw io_error(values.target() + ": names the same file as " + keys.target());
  if (!keys.atomic() || !values.atomic()) {
    // No pair guarantee without two renames: the replaceable one first.
    output_file& first = keys.atomic() ? keys : values;
    output_file& second = &first == &keys ? values : keys;
    first.commit();
    second.commit();
    return;
  }
  commit_scope scope;
  keys.make_durable();
  values.make_durable();
  commit_step();
  keys.give_name();
  commit_step();
  values.give_name();
  commit_step();
  // "." and the same folder spelled absolutely are one folder: one record.
  const bool one_folder = dir_of(absolute(keys.dir_ + "/x")) == dir_of(absolute(values.dir_ + "/x"));
  fsync_dir(keys.dir_);
  if (!one_folder) fsync_dir(values.dir_);

  commit_record r;
  r.pid = ::getpid();
  const std::string name = record_prefix + std::to_string(r.pid);
  r.copies.push_back(absolute(keys.dir_ + "/" + name));
  if (!one_folder) r.copies.push_back(absolute(values.dir_ + "/" + name));
  r.renames = {{absolute(keys.named_), absolute(keys.final_)}, {absolute(values.named_), absolute(values.final_)}};
  const std::string text = encode(r);
  for (std::size_t i = 0; i < r.copies.size(); ++i) {
    if (i + 1 == r.copies.size()) {
      // From the last copy on, the temporaries belong to the record: they must
      // outlive a failure here, for recovery to complete the pair.
      keys.kept_for_record_ = values.kept_for_record_ = true;
      scope.recorded();
    }
    write_record(r.copies[i], text);
    commit_step();
  }

  try {
    keys.publish();
    commit_step();
    values.publish();
    commit_step();
  } catch (const io_error& e) {
    throw io_error(std::string(e.what()) + "; the pair is recorded: 'radix recover " + keys.dir_ +
                   "' completes it once the cause is fixed");
  }
  fsync_dir(keys.dir_);
  if (!one_folder) fsync_dir(values.dir_);

  for (auto c = r.copies.rbegin(); c != r.copies.rend(); ++c) {
    ::unlink(c->c_str());
    fsync_dir(dir_of(*c));
    commit_step();
  }
  scope.done();
}

// ---- recovery ------------------------------------------------------------------------

namespace {

bool process_gone(long pid) {
  if (pid <= 0 || pid == long(::getpid())) return false;
  return ::kill(pid_t(pid), 0) != 0 && errno == ESRCH;
}

/// The process id in a name this tool gives its temporaries, or 0:
/// `.BASE.radix-tmp-PID[-XXXXXX]`, `.radix-spill-PID-XXXXXX`,
/// `.radix-run-PID-XXXXXX`, `.radix-commit-PID.new`.
long owner_of(const std::string& name) {
  const auto pid_at = [&](std::size_t at, bool record) -> long {
    std::size_t e = at;
    while (e < name.size() && std::isdigit(static_cast<unsigned char>(name[e]))) ++e;
    if (e == at || e - at > 9) return 0;
    const std::string rest = name.substr(e);
    if (record ? rest != ".new" : !(rest.empty() || rest[0] == '-')) return 0;
    return std::atol(name.substr(at, e - at).c_str());
  };
  if (name.size() < 2 || name[0] != '.') return 0;
  if (name.rfind(record_prefix, 0) == 0) return pid_at(std::strlen(record_prefix), true);
  for (const char* p : {".radix-spill-", ".radix-run-"})
    if (name.rfind(p, 0) == 0) return pid_at(std::strlen(p), false);
  if (const auto t = name.rfind(".radix-tmp-"); t != std::string::npos && t > 0) return pid_at(t + 11, false);
  return 0;
}

std::string read_small_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  fd_handle h(fd);
  std::string s(65536, '\0');
  std::size_t n = 0;
  for (ssize_t r; n < s.size() && (r = ::read(fd, s.data() + n, s.size() - n)) != 0;) {
    if (r < 0) {
      if (errno == EINTR) continue;
      return {};
    }
    n += std::size_t(r);
  }
  s.resize(n);
  return s;
}

std::string pair_names(const commit_record& r) {
  std::string s;
  for (const auto& [from, to] : r.renames) s += (s.empty() ? "" : " and ") + to;
  return s;
}

}  // namespace

std::vector<std::string> recover(const std::string& dir, bool dry_run, bool temporaries) {
  std::vector<std::string> out, records;
  std::set<std::pair<dev_t, ino_t>> claimed;  // temporaries a record renames (dry run: not stale)
  std::set<long> kept_pids;                     // processes whose temporaries a record still needs
  const auto identity = [](const std::string& p) {
    struct stat st {};
    return ::lstat(p.c_str(), &st) == 0 ? std::pair(st.st_dev, st.st_ino) : std::pair(dev_t(0), ino_t(0));
  };
  std::vector<std::pair<std::string, long>> stale;
  DIR* d = ::opendir(dir.c_str());
  if (!d) return out;
  while (const dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name.rfind(record_prefix, 0) == 0 && name.find('.', 1) == std::string::npos) {
      records.push_back(name);
    } else if (const long pid = owner_of(name); pid > 0) {
      stale.emplace_back(name, pid);
    }
  }
  ::closedir(d);
  std::sort(records.begin(), records.end());
  std::sort(stale.begin(), stale.end());

  const std::string verb_done = dry_run ? "would complete" : "completed";
  const std::string verb_back = dry_run ? "would roll back" : "rolled back";
  for (const auto& name : records) {
    const std::string path = dir + "/" + name;
    const long pid = std::atol(name.c_str() + std::strlen(record_prefix));
    if (!process_gone(pid)) continue;  // still committing (or not ours to judge)
    commit_record r;
    if (!decode(read_small_file(path), r)) {
      out.push_back(path + ": not a whole commit record; " + (dry_run ? "would remove it" : "removed it"));
      if (!dry_run) ::unlink(path.c_str());
      continue;
    }
    // A record that does not name this very file was moved with its folder.
    // With one folder for everything, its paths move along; otherwise they
    // lead elsewhere, so touch nothing it names.
    if (r.copies.size() == 1 && r.copies[0] != absolute(path)) {
      const std::string from = dir_of(r.copies[0]), to = dir_of(absolute(path));
      const auto rebase = [&](std::string& p) {
        if (dir_of(p) == from) p = to + "/" + base_of(p);
      };
      rebase(r.copies[0]);
      for (auto& [a, b] : r.renames) rebase(a), rebase(b);
    }
    if (std::find(r.copies.begin(), r.copies.end(), absolute(path)) == r.copies.end()) {
      out.push_back(path + ": a commit record of process " + std::to_string(pid) +
                    " whose paths name other folders (was the folder moved?); left as it is, with its temporaries");
      kept_pids.insert(pid);
      continue;
    }
    const bool every_copy = std::all_of(r.copies.begin(), r.copies.end(), [](const std::string& c) { return exists(c); });
    std::set<std::string> dirs;
    if (every_copy) {
      out.push_back(verb_done + " the interrupted commit of " + pair_names(r) + " (process " + std::to_string(pid) +
                    " stopped between its renames): both hold the new, verified result");
      if (dry_run) {
        for (const auto& rn : r.renames) claimed.insert(identity(rn.first));
        continue;
      }
      for (const auto& [from, to] : r.renames) {
        if (exists(from) && ::rename(from.c_str(), to.c_str()) != 0)
          out.push_back(to + ": cannot complete the rename: " + std::strerror(errno));
        dirs.insert(dir_of(to));
      }
    } else {
      out.push_back(verb_back + " the interrupted commit of " + pair_names(r) + " (process " + std::to_string(pid) +
                    " stopped before its renames): both keep their previous contents");
      if (dry_run) continue;
      for (const auto& [from, to] : r.renames) {
        ::unlink(from.c_str());
        dirs.insert(dir_of(from));
      }
    }
    for (const auto& x : dirs) fsync_dir(x);
    // This folder's copy goes last: while it exists, the record is still found here.
    for (const auto& c : r.copies)
      if (c != absolute(path)) ::unlink(c.c_str()), fsync_dir(dir_of(c));
    ::unlink(path.c_str());
    fsync_dir(dir);
  }

  for (const auto& [name, pid] : stale) {
    const std::string path = dir + "/" + name;
    if (!temporaries) break;
    if (!process_gone(pid) || !exists(path) || claimed.count(identity(path)) || kept_pids.count(pid)) continue;
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
    if (dry_run) {
      out.push_back("would remove " + path + ", a temporary left by process " + std::to_string(pid) + " (gone)");
    } else if (::unlink(path.c_str()) == 0) {
      out.push_back("removed " + path + ", a temporary left by process " + std::to_string(pid) + " (gone)");
    } else {
      out.push_back(path + ": a temporary left by process " + std::to_string(pid) + " (gone) could not be removed: " +
                    std::strerror(errno));
    }
  }
  return out;
}

std::string system_temp_folder() {
  const char* t = std::getenv("TMPDIR");
  return t && *t ? t : "/tmp";
}

bool is_folder(const std::string& dir) {
  DIR* d = ::opendir(dir.c_str());
  if (d) ::closedir(d);
  return d != nullptr;
}

void recover_folders(const char* who, const std::vector<std::string>& dirs) {
  std::set<std::string> seen;
  for (const auto& d : dirs) {
    std::unique_ptr<char, decltype(&std::free)> real(::realpath(d.c_str(), nullptr), &std::free);
    if (!real || !seen.insert(real.get()).second) continue;
    for (const auto& line : recover(d)) std::fprintf(stderr, "%s: note: %s\n", who, line.c_str());
  }
}

}  // namespace radix_cli::io
