#include "dut_adapters/exec_dut.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <thread>

#include "dut_adapters/sanitise.hpp"
#include "dut_adapters/wire.hpp"

namespace cubecheck::dut {

using Clock = std::chrono::steady_clock;

namespace {

int remainingMs(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
  return left.count() < 0 ? 0 : static_cast<int>(left.count());
}

/// Closes descriptors first..last (last may be ~0u: to the end), with system calls only.
void closeRange(unsigned first, unsigned last) {
  if (first > last) return;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  if (::close_range(first, last, 0) == 0) return;
#endif
  // No close_range (an older kernel or C library): each descriptor up to the process's limit.
  const long limit = ::sysconf(_SC_OPEN_MAX);
  const unsigned end = limit < 0 ? 65536u : static_cast<unsigned>(std::min(limit, 1L << 20));
  for (unsigned fd = first; fd <= last && fd < end; ++fd) ::close(static_cast<int>(fd));
}

/// In a forked child: every descriptor from 3 up closed but `keepA` and `keepB` (its own pipe
/// ends; -1 for none). Descriptors cubecheck opened without O_CLOEXEC (report files, another
/// DUT's pipes) would otherwise stay open in the DUT: a file it could write, a pipe whose
/// reader would never see end-of-file while this child lives.
void closeInheritedFds(int keepA = -1, int keepB = -1) {
  unsigned from = 3;
  for (const int keep : {std::min(keepA, keepB), std::max(keepA, keepB)}) {
    if (keep < static_cast<int>(from)) continue;
    closeRange(from, static_cast<unsigned>(keep) - 1);
    from = static_cast<unsigned>(keep) + 1;
  }
  closeRange(from, ~0u);
}

/// While cubecheck waits on a DUT's pipes, how often it checks whether the DUT has ended: a
/// child the DUT started may hold them open, and then no end-of-file would ever tell.
constexpr int kWatchMs = 20;
/// Once the DUT has ended and its group been killed, how long its pipes may take to close.
constexpr int kDrainMs = 1000;
/// What a Timeout says after its reason: the cure when the DUT is only slow. In parentheses, so
/// that a failure signature (conf::signatureOf), which drops them, stays one for every timeout.
constexpr std::string_view kSlowDutHint =
    " (a DUT that is only slow, a simulator on a loaded machine say, passes with a larger "
    "--timeout-ms)";

/// The process groups of the DUTs running now, for interruptDuts (a signal handler): lock-free
/// slots, 0 when free. A DUT beyond the last slot is still killed when cubecheck is done with it.
std::atomic<pid_t> gGroups[64];

void addGroup(pid_t group) {
  for (std::atomic<pid_t>& slot : gGroups) {
    pid_t free = 0;
    if (slot.compare_exchange_strong(free, group)) return;
  }
}

void removeGroup(pid_t group) {
  for (std::atomic<pid_t>& slot : gGroups) {
    pid_t held = group;
    if (slot.compare_exchange_strong(held, 0)) return;
  }
}

}  // namespace

void interruptDuts(int sig) noexcept {
  for (const std::atomic<pid_t>& slot : gGroups) {
    const pid_t group = slot.load();
    if (group > 0) ::kill(-group, sig);
  }
}

/// Reads the DUT's stdout with a deadline, through ExecDut's inbox.
class PipeSource final : public wire::Source {
 public:
  PipeSource(ExecDut& dut, Clock::time_point deadline) : dut_(dut), deadline_(deadline) {}

  bool line(std::string& out, std::string& error) override {
    while (true) {
      const std::size_t nl = dut_.inbox_.find('\n');
      if (nl != std::string::npos && nl <= wire::kMaxLine) {
        out.assign(dut_.inbox_, 0, nl);
        dut_.inbox_.erase(0, nl + 1);
        return true;
      }
      if (dut_.inbox_.size() > wire::kMaxLine) {
        error = "a line longer than " + std::to_string(wire::kMaxLine) + " bytes";
        return false;
      }
      if (!fill(error)) return false;
    }
  }

  bool bytes(std::uint8_t* out, std::size_t n, std::string& error) override {
    while (dut_.inbox_.size() < n) {
      if (!fill(error)) return false;
    }
    std::memcpy(out, dut_.inbox_.data(), n);
    dut_.inbox_.erase(0, n);
    return true;
  }

  bool timedOut() const { return timedOut_; }

 private:
  bool fill(std::string& error) {
    // A DUT usually answers within tens of microseconds: keep asking for a short while before
    // sleeping in poll, whose wake-up would cost more than the answer (measured in
    // bench/load2d_bench.cpp, BM_CheckedLoad2DCase_ExecExampleC).
    const Clock::time_point spinUntil = Clock::now() + std::chrono::microseconds(200);
    while (true) {
      char buf[65536];
      const ssize_t got = ::read(dut_.fromDut_, buf, sizeof buf);
      if (got > 0) {
        dut_.inbox_.append(buf, static_cast<std::size_t>(got));
        return true;
      }
      if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        error = "the DUT closed its output (" + dut_.exitDescription() + ")";
        return false;
      }
      if (Clock::now() < spinUntil) continue;
      pollfd p{dut_.fromDut_, POLLIN, 0};
      switch (dut_.await(&p, 1, deadline_)) {
        case ExecDut::Wait::Ready:
          break;
        case ExecDut::Wait::TimedOut:
          timedOut_ = true;
          error = "no answer within the timeout";
          return false;
        case ExecDut::Wait::Ended:
          error = "the DUT ended (" + dut_.exitDescription() +
                  "), but its output stayed open: a process it started may have left its "
                  "process group";
          return false;
        case ExecDut::Wait::Failed:
          error = std::string("poll: ") + std::strerror(errno);
          return false;
      }
    }
  }

  ExecDut& dut_;
  Clock::time_point deadline_;
  bool timedOut_ = false;
};

ExecDut::ExecDut(std::string name, std::function<int(int, int)> serve,
                 std::chrono::milliseconds timeout)
    : ExecDut(std::vector<std::string>{std::move(name)}, timeout, std::move(serve)) {}

ExecDut::ExecDut(std::vector<std::string> argv, std::chrono::milliseconds timeout)
    : ExecDut(std::move(argv), timeout, nullptr) {}

ExecDut::ExecDut(std::vector<std::string> argv, std::chrono::milliseconds timeout,
                 std::function<int(int, int)> serve)
    : argv_(std::move(argv)), serve_(std::move(serve)), timeout_(timeout) {
  ::signal(SIGPIPE, SIG_IGN);  // a dead DUT must give EPIPE, not kill cubecheck
  caps_.name = argv_.empty() ? "exec" : argv_[0];
  std::string error;
  if (argv_.empty()) {
    broken_ = "exec: needs a program to run";
  } else if (!start(error)) {
    // The whole command, not argv[0] alone: "python3" names no DUT, "python3 my_dut.py" does.
    std::string command;
    for (const std::string& a : argv_) command += (command.empty() ? "" : " ") + a;
    broken_ = "DUT '" + printable(command, 200) + "' did not start: " + error;
  }
}

ExecDut::~ExecDut() {
  if (pid_ > 0) {
    const char quit[] = "quit\n";
    (void)!::write(toDut_, quit, sizeof quit - 1);
    ::close(toDut_);
    toDut_ = -1;
    for (int i = 0; i < 20 && !leaderEnded(); ++i) {  // up to 200 ms to leave by itself
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
  }
  stop();  // and whatever it started, which may not have left
}

std::optional<std::string> ExecDut::broken() const {
  if (broken_.empty()) return std::nullopt;
  return broken_;
}

bool ExecDut::start(std::string& error) {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return false;
  }
  std::vector<char*> args;
  for (std::string& a : argv_) args.push_back(a.data());
  args.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    return false;
  }
  if (pid == 0) {
    // A process group of its own: whatever the DUT starts (a simulator under a wrapper script)
    // is in it and is killed with it. The parent sets it too, so neither can act before it is.
    ::setpgid(0, 0);
    if (serve_) {
      // No exec: the pipes' other ends are closed by hand (or the child would never see EOF),
      // and whatever the served code prints goes to stderr, never into the protocol.
      ::close(in[1]);
      ::close(out[0]);
      closeInheritedFds(in[0], out[1]);
      ::dup2(STDERR_FILENO, STDOUT_FILENO);
      ::signal(SIGINT, SIG_DFL);  // as exec would: cubecheck's own handlers are not the child's
      ::signal(SIGTERM, SIG_DFL);
      _exit(serve_(in[0], out[1]));  // _exit: the parent's unflushed stdio stays the parent's
    }
    ::dup2(in[0], STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    closeInheritedFds();  // the pipes are stdin and stdout now
    ::execvp(args[0], args.data());
    _exit(127);
  }
  ::close(in[0]);
  ::close(out[1]);
  ::setpgid(pid, pid);  // EACCES once the child has exec'd: it has set it by then
  pid_ = pid;
  ended_ = false;
  addGroup(pid);
  toDut_ = in[1];
  fromDut_ = out[0];
  ::fcntl(fromDut_, F_SETFL, ::fcntl(fromDut_, F_GETFL) | O_NONBLOCK);
  ::fcntl(toDut_, F_SETFL, ::fcntl(toDut_, F_GETFL) | O_NONBLOCK);
  inbox_.clear();
  ++starts_;
  const std::string h = wire::hello();
  if (::write(toDut_, h.data(), h.size()) != static_cast<ssize_t>(h.size())) {
    error = "cannot send the handshake (" + exitDescription() + ")";
    stop();
    return false;
  }
  // A process start (an interpreter, a simulator) may take longer than one program: the first
  // may take 10 s. A restart may take twice what the first took, or the per-program timeout, so
  // a DUT that stalls on restart costs no more than one timeout per case.
  const Clock::time_point begin = Clock::now();
  const bool first = starts_ == 1;
  const auto limit = first ? std::max(timeout_, std::chrono::milliseconds(10000))
                           : std::max(timeout_, 2 * firstStart_);
  PipeSource src(*this, begin + limit);
  Capabilities declared;
  if (!wire::readCapabilities(src, declared, error)) {
    if (src.timedOut()) {
      error = "no handshake within " + std::to_string(limit.count()) + " ms";
    } else {
      error += endedNote();  // a garbled handshake, then exit 1: the status says why
    }
    stop();
    return false;
  }
  if (declared.name.empty()) declared.name = argv_[0];
  if (first) {
    firstStart_ = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - begin);
    caps_ = std::move(declared);
    return true;
  }
  // The report names what the first start declared: a restarted process that declares anything
  // else is another DUT, and nothing it answers may be counted as the first one's.
  const auto said = [](const Capabilities& c) {
    return c.name + " version " + c.version + "; " + c.envelopeText();
  };
  if (said(declared) != said(caps_)) {
    broken_ = "the DUT declared other capabilities when restarted (start " +
              std::to_string(starts_) + "): first '" + said(caps_) + "', then '" + said(declared) +
              "'; no later case was run";
    error = broken_;
    stop();
    return false;
  }
  return true;
}

void ExecDut::stop() {
  if (toDut_ >= 0) ::close(toDut_);
  if (fromDut_ >= 0) ::close(fromDut_);
  toDut_ = fromDut_ = -1;
  if (pid_ > 0) reap();
  inbox_.clear();
}

bool ExecDut::leaderEnded() {
  if (pid_ <= 0) return true;
  if (!ended_) {
    siginfo_t info{};
    // WNOWAIT: the process stays a zombie, so its pid (the group's id) is not reused before the
    // rest of the group is killed.
    ended_ = ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
             info.si_pid == pid_;
  }
  return ended_;
}

void ExecDut::killGroup() {
  if (pid_ <= 0) return;
  if (::kill(-pid_, SIGKILL) != 0) ::kill(pid_, SIGKILL);
}

int ExecDut::reap() {
  killGroup();
  removeGroup(pid_);
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  pid_ = -1;
  ended_ = false;
  return status;
}

ExecDut::Wait ExecDut::await(pollfd* fds, int count, Clock::time_point deadline) {
  while (true) {
    // Once the DUT has ended and its group been killed, what they wrote is still read: the pipes
    // close as the killed processes go.
    const int ms = ended_ ? kDrainMs : std::min(remainingMs(deadline), kWatchMs);
    const int ready = ::poll(fds, static_cast<nfds_t>(count), ms);
    if (ready > 0) return Wait::Ready;
    if (ready < 0) {
      if (errno == EINTR) return Wait::Ready;  // the caller tries again
      return Wait::Failed;
    }
    if (ended_) return Wait::Ended;  // and still not at end-of-file: held outside the group
    if (leaderEnded()) {
      killGroup();  // its children would keep the pipes open
      continue;
    }
    if (Clock::now() >= deadline) return Wait::TimedOut;
  }
}

std::string ExecDut::exitDescription() {
  if (pid_ <= 0) return "not running";
  for (int i = 0; i < 50; ++i) {  // a closed pipe usually means the process is exiting
    if (leaderEnded()) {
      const int status = reap();
      if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
      if (WIFSIGNALED(status)) {
        return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
               ::strsignal(WTERMSIG(status)) + ")";
      }
      return "ended";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  return "still running";
}

std::string ExecDut::endedNote() {
  if (pid_ <= 0) return {};  // reaped already: the message has said how it ended
  const std::string how = exitDescription();
  if (how == "still running" || how == "not running") return {};
  return " (the DUT then " + how + ")";
}

RunResult ExecDut::run(const isa::Program& program) {
  if (!broken_.empty()) return {RunStatus::AdapterError, {}, std::nullopt, broken_};
  std::string error;
  if (pid_ <= 0 && !start(error)) {
    return {RunStatus::AdapterError, {}, std::nullopt, "restarting the DUT failed: " + error};
  }
  const std::uint64_t seq = ++seq_;
  const Clock::time_point deadline = Clock::now() + timeout_;
  const std::string request = wire::encodeRequest(seq, program);
  // Write the request while draining whatever the DUT prints, so neither side blocks on a full
  // pipe.
  PipeSource src(*this, deadline);
  // Most requests fit the pipe: try a plain write first and poll only for what is left.
  std::size_t sent = 0;
  const ssize_t first = ::write(toDut_, request.data(), request.size());
  if (first > 0) sent = static_cast<std::size_t>(first);
  // The ways sending can end the case, each stopping the DUT (killed with its group, restarted
  // for the next case): it is gone or will not take the program (`what` it did), or it took no
  // input in time.
  auto notSent = [&](const std::string& what) -> RunResult {
    const std::string why = exitDescription();
    stop();
    return {RunStatus::AdapterError,
            {},
            std::nullopt,
            "the DUT " + what + " program " + std::to_string(seq) + " (" + why +
                "); restarted for the next case"};
  };
  auto tookNoInput = [&]() -> RunResult {
    stop();
    return {RunStatus::Timeout,
            {},
            std::nullopt,
            "the DUT took no input for " + std::to_string(timeout_.count()) +
                " ms; killed, restarted for the next case" + std::string(kSlowDutHint)};
  };
  while (sent < request.size()) {
    pollfd p[2] = {{toDut_, POLLOUT, 0}, {fromDut_, POLLIN, 0}};
    const Wait waited = await(p, 2, deadline);
    if (waited == Wait::Ended) return notSent("ended before reading");
    if (waited == Wait::TimedOut) return tookNoInput();
    // Its output at end-of-file (or broken) while the program is still being sent: it can never
    // answer. Without this, poll would report the hang-up at once, again and again, and the loop
    // would spin past its deadline for as long as the DUT stayed alive not reading.
    bool closed = (p[1].revents & (POLLHUP | POLLERR)) != 0 && (p[1].revents & POLLIN) == 0;
    if (p[1].revents & POLLIN) {
      char buf[65536];
      const ssize_t got = ::read(fromDut_, buf, sizeof buf);
      if (got > 0) inbox_.append(buf, static_cast<std::size_t>(got));
      if (got == 0) closed = true;
      if (inbox_.size() > request.size() + (1u << 20)) {
        stop();
        return {RunStatus::AdapterError,
                {},
                std::nullopt,
                "the DUT wrote more than a megabyte before reading its program; restarted"};
      }
    }
    if (p[0].revents & (POLLOUT | POLLERR | POLLHUP)) {
      const ssize_t put = ::write(toDut_, request.data() + sent, request.size() - sent);
      if (put < 0 && errno != EAGAIN && errno != EINTR) return notSent("stopped reading");
      if (put > 0) sent += static_cast<std::size_t>(put);
    }
    if (closed && sent < request.size()) return notSent("closed its output before reading");
    if (sent < request.size() && Clock::now() >= deadline) return tookNoInput();
  }
  bool desync = false;
  RunResult r = wire::readResponse(src, seq, program, desync);
  if (src.timedOut()) {
    stop();
    return {RunStatus::Timeout,
            {},
            std::nullopt,
            "no answer to program " + std::to_string(seq) + " within " +
                std::to_string(timeout_.count()) + " ms; killed, restarted for the next case" +
                std::string(kSlowDutHint)};
  }
  if (desync) {
    r.message += endedNote() + "; the DUT was restarted for the next case";
    stop();
  }
  return r;
}

}  // namespace cubecheck::dut
