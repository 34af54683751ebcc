#include "avalanche/quality/counter_battery.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "avalanche/counts.hpp"
#include "mixer/width.hpp"

extern char** environ;

namespace mixforge::avalanche {

std::string_view battery_size_name(BatterySize s) { return s == BatterySize::quick ? "quick" : "standard"; }

std::vector<DieharderTest> battery_tests(BatterySize size) {
  // Tests dieharder rates "Good" that take at most a few seconds each at these psamples
  // (measured on a 2-core machine: about 10 s for the standard set on one stream, 2 s for
  // the quick one). Never fewer than 10 psamples: dieharder's final p-value is a KS test
  // over them, and with 3 or 5 it reached 1.0 ("FAILED", too uniform) for good functions.
  // The dab_* tests use large fixed sample counts and one psample: standard only.
  struct Row {
    int number;
    const char* name;
    int standard, quick;
  };
  static const Row rows[] = {
      {0, "diehard_birthdays", 100, 10}, {3, "diehard_rank_6x8", 30, 10},
      {4, "diehard_bitstream", 50, 10},  {8, "diehard_count_1s_str", 100, 10},
      {15, "diehard_runs", 100, 10},     {100, "sts_monobit", 100, 10},
      {101, "sts_runs", 20, 10},         {202, "rgb_permutations", 30, 10},
      {203, "rgb_lagged_sum", 30, 10},   {206, "dab_dct", 1, 0},
      {209, "dab_monobit2", 1, 0},
  };
  std::vector<DieharderTest> out;
  for (const Row& r : rows) {
    const int p = size == BatterySize::quick ? r.quick : r.standard;
    if (p > 0) out.push_back({r.number, r.name, p});
  }
  return out;
}

std::vector<CounterTransform> counter_transforms(int width) {
  std::vector<CounterTransform> out = {{"counter", CounterKind::plain, 0},
                                       {"reversed", CounterKind::reversed, 0},
                                       {"complemented", CounterKind::complemented, 0}};
  for (int q = 1; q <= 3; ++q) {
    const int r = width * q / 4;
    if (r > 0 && r < width) out.push_back({"rotl" + std::to_string(r), CounterKind::rotated, r});
  }
  return out;
}

std::uint64_t transform_counter(const CounterTransform& t, std::uint64_t i, int width) {
  const std::uint64_t mask = mixer::width_mask(width);
  i &= mask;
  switch (t.kind) {
    case CounterKind::plain: return i;
    case CounterKind::complemented: return ~i & mask;
    case CounterKind::reversed: {
      std::uint64_t r = 0;
      for (int b = 0; b < width; ++b) r |= (i >> b & 1) << (width - 1 - b);
      return r;
    }
    case CounterKind::rotated: {
      const int k = ((t.rotation % width) + width) % width;
      return k == 0 ? i : ((i << k) | (i >> (width - k))) & mask;
    }
  }
  return i;
}

CounterStream::CounterStream(BatchFunction f, int width, CounterTransform transform)
    : f_(std::move(f)), width_(width), transform_(std::move(transform)) {
  if (width < 1 || width > 64) throw std::invalid_argument("counter stream needs a width of 1..64");
}

void CounterStream::next(std::span<std::uint32_t> words) {
  constexpr std::size_t chunk = 4096;
  for (std::uint32_t& w : words) {
    while (nbits_ < 32) {
      if (pos_ == out_.size()) {
        in_.resize(chunk);
        out_.resize(chunk);
        for (std::size_t k = 0; k < chunk; ++k) in_[k] = transform_counter(transform_, counter_ + k, width_);
        counter_ += chunk;
        f_(in_.data(), out_.data(), chunk);
        pos_ = 0;
      }
      bits_ |= static_cast<unsigned __int128>(out_[pos_++] & mixer::width_mask(width_)) << nbits_;
      nbits_ += width_;
    }
    w = static_cast<std::uint32_t>(bits_);
    bits_ >>= 32;
    nbits_ -= 32;
  }
}

std::vector<BatteryResult> parse_dieharder_output(std::string_view text) {
  std::vector<BatteryResult> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(start, end - start));
    start = end + 1;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string part; std::getline(ss, part, ',');) {
      const auto a = part.find_first_not_of(' '), b = part.find_last_not_of(' ');
      f.push_back(a == std::string::npos ? std::string() : part.substr(a, b - a + 1));
    }
    BatteryResult r;
    bool ok = f.size() == 4;
    if (ok) {
      r.test = f[0];
      char* e1 = nullptr;
      char* e2 = nullptr;
      r.ntuple = static_cast<int>(std::strtol(f[1].c_str(), &e1, 10));
      r.p_value = std::strtod(f[2].c_str(), &e2);
      ok = !r.test.empty() && e1 && *e1 == 0 && e2 && *e2 == 0 && !f[1].empty() && !f[2].empty();
      if (f[3] == "PASSED")
        r.verdict = Verdict::passed;
      else if (f[3] == "WEAK")
        r.verdict = Verdict::weak;
      else if (f[3] == "FAILED")
        r.verdict = Verdict::failed;
      else
        ok = false;
    }
    if (!ok) throw std::runtime_error("unexpected dieharder output: " + std::string(text.substr(0, 2000)));
    out.push_back(std::move(r));
  }
  return out;
}

std::optional<std::string> find_dieharder() {
  namespace fs = std::filesystem;
  if (const char* env = std::getenv("MIXFORGE_DIEHARDER"); env && *env) {
    if (::access(env, X_OK) == 0) return std::string(env);
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::stringstream ss(path && *path ? path : "/usr/local/bin:/usr/bin:/bin");
  for (std::string dir; std::getline(ss, dir, ':');) {
    if (dir.empty()) continue;
    const fs::path p = fs::path(dir) / "dieharder";
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return std::nullopt;
}

namespace {

using Clock = std::chrono::steady_clock;

struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { reset(); }
  void reset() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// Writing to a pipe whose reader has exited raises SIGPIPE: blocked on this thread while
// it feeds dieharder (write then fails with EPIPE), and a pending one is consumed before
// the mask is restored, so the process's own disposition is never touched.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&set_);
    sigaddset(&set_, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
  }
  ~SigpipeBlock() {
    sigset_t pending;
    sigpending(&pending);
    if (sigismember(&pending, SIGPIPE) && !sigismember(&old_, SIGPIPE)) {
      const timespec zero{0, 0};
      sigtimedwait(&set_, nullptr, &zero);
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }

 private:
  sigset_t set_, old_;
};

struct Child {
  pid_t pid = -1;
  Child() = default;
  Child(Child&& o) noexcept : pid(o.pid) { o.pid = -1; }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;
  ~Child() {
    if (pid > 0) {
      ::kill(pid, SIGKILL);
      int st = 0;
      ::waitpid(pid, &st, 0);
    }
  }
  int wait() {
    int st = 0;
    while (::waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    pid = -1;
    return st;
  }
};

// Starts `args` with stdin from a pipe we write and stdout + stderr into a pipe we read.
Child spawn(const std::vector<std::string>& args, Fd& to_child, Fd& from_child) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  Fd in_r(in[0]);
  to_child.fd = in[1];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  Fd out_w(out[1]);
  from_child.fd = out[0];
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in_r.fd, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_w.fd, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, out_w.fd, STDERR_FILENO);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  Child c;
  const int rc = ::posix_spawn(&c.pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    c.pid = -1;
    throw std::runtime_error("cannot start " + args[0] + ": " + std::strerror(rc));
  }
  return c;
}

std::string read_all(int fd) {
  std::string s;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0)
      s.append(buf, static_cast<std::size_t>(n));
    else if (n < 0 && errno == EINTR)
      continue;
    else
      break;
  }
  return s;
}

// A dieharder test can run minutes at most at these sizes; a hung one is stopped here.
constexpr double test_time_limit_s = 600;

std::string run_one(const std::string& tool, const DieharderTest& t, CounterStream stream,
                    const std::atomic<bool>* cancel) {
  std::vector<std::string> args = {tool,
                                   "-g",
                                   "200",
                                   "-d",
                                   std::to_string(t.number),
                                   "-p",
                                   std::to_string(t.psamples),
                                   "-D",
                                   "test_name",
                                   "-D",
                                   "ntuple",
                                   "-D",
                                   "pvalues",
                                   "-D",
                                   "assessment",
                                   "-D",
                                   "no_whitespace",
                                   "-c",
                                   ","};
  Fd to, from;
  SigpipeBlock block;
  Child child = spawn(args, to, from);
  ::fcntl(to.fd, F_SETFL, ::fcntl(to.fd, F_GETFL) | O_NONBLOCK);
  // dieharder reads as much as its test needs and exits; its output (a few lines) fits
  // the pipe's buffer, so it is read once writing has ended.
  std::vector<std::uint32_t> words(1 << 14);
  std::size_t off = 0, len = 0;
  const auto started = Clock::now();
  for (;;) {
    if (cancel && cancel->load(std::memory_order_relaxed)) throw EvaluationCancelled();  // ~Child kills it
    if (std::chrono::duration<double>(Clock::now() - started).count() > test_time_limit_s)
      throw std::runtime_error("dieharder test " + t.name + " ran longer than " +
                               std::to_string(static_cast<int>(test_time_limit_s)) + " s");
    if (off == len) {
      stream.next(words);
      off = 0;
      len = words.size() * sizeof(std::uint32_t);
    }
    pollfd p{to.fd, POLLOUT, 0};
    const int ready = ::poll(&p, 1, 100);
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    if (p.revents & (POLLERR | POLLHUP)) break;
    const ssize_t n = ::write(to.fd, reinterpret_cast<const char*>(words.data()) + off, len - off);
    if (n > 0)
      off += static_cast<std::size_t>(n);
    else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
      break;  // EPIPE: done
  }
  to.reset();
  std::string text = read_all(from.fd);
  const int st = child.wait();
  if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
    throw std::runtime_error("dieharder -d " + std::to_string(t.number) + " failed (" +
                             (WIFEXITED(st) ? "exit code " + std::to_string(WEXITSTATUS(st))
                                            : "signal " + std::to_string(WIFSIGNALED(st) ? WTERMSIG(st) : 0)) +
                             ")" + (text.empty() ? "" : ": " + text.substr(0, 2000)));
  return text;
}

std::string dieharder_version(const std::string& tool) {
  Fd to, from;
  Child child = spawn({tool, "-l"}, to, from);
  to.reset();
  const std::string text = read_all(from.fd);
  child.wait();
  const auto at = text.find("version ");
  if (at == std::string::npos) return "dieharder";
  const auto end = text.find(' ', at + 8);
  return "dieharder " + text.substr(at + 8, end == std::string::npos ? std::string::npos : end - at - 8);
}

}  // namespace

CounterBattery counter_battery(const BatchFunction& f, int width, BatterySize size, const std::atomic<bool>* cancel,
                               std::optional<std::vector<CounterTransform>> transforms) {
  if (width < 1 || width > 64) throw std::invalid_argument("counter battery needs a width of 1..64");
  CounterBattery out;
  out.size = size;
  if (width < 32) {
    out.status = "skipped";
    out.reason = "width " + std::to_string(width) + " < 32: a counter of " + std::to_string(width) +
                 " bits wraps after 2^" + std::to_string(width) +
                 " outputs, and the battery reads 32-bit words (it needs far more data than one cycle)";
    return out;
  }
  const auto tool = find_dieharder();
  if (!tool) {
    out.status = "unavailable";
    out.reason = "dieharder not found (install the Debian package dieharder, or set MIXFORGE_DIEHARDER to its path)";
    return out;
  }
  out.status = "ran";
  out.tool = dieharder_version(*tool);
  const auto started = Clock::now();
  try {
    for (const CounterTransform& t : transforms ? *transforms : counter_transforms(width)) {
      TransformBattery tb;
      tb.transform = t;
      const auto t0 = Clock::now();
      for (const DieharderTest& test : battery_tests(size)) {
        // Every test reads its own stream from counter 0: results do not depend on the order.
        for (auto& r : parse_dieharder_output(run_one(*tool, test, CounterStream(f, width, t), cancel))) {
          (r.verdict == Verdict::passed ? tb.passed : r.verdict == Verdict::weak ? tb.weak : tb.failed)++;
          tb.results.push_back(std::move(r));
        }
      }
      tb.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      out.passed += tb.passed;
      out.weak += tb.weak;
      out.failed += tb.failed;
      out.transforms.push_back(std::move(tb));
    }
  } catch (const EvaluationCancelled&) {
    throw;
  } catch (const std::runtime_error& e) {
    // A dieharder that fails (exits non-zero, prints what we cannot read, hangs): the
    // battery did not run, and says why; the
    // measures computed besides it stand.
    CounterBattery failed;
    failed.size = size;
    failed.status = "unavailable";
    failed.reason = e.what();
    return failed;
  }
  out.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  return out;
}

}  // namespace mixforge::avalanche
