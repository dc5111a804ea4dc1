// exec:PATH [ARGS...]: a DUT in its own process, any language, spoken to over stdin/stdout with
// the wire protocol. One process serves many programs; it is killed after a per-program
// timeout, restarted after a crash or a protocol error, and never takes cubecheck down with it.
// It runs in a process group of its own: whatever it starts (a simulator under a wrapper script)
// is killed with it, and when it ends by itself, on a timeout, a restart or at the end of the run.
#pragma once

#include <poll.h>
#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "dut_adapters/dut.hpp"

namespace cubecheck::dut {

/// Sends `sig` to the process group of every exec: and plugin: DUT running now. For cubecheck's
/// SIGINT and SIGTERM handler (async-signal-safe): a DUT's own process group no longer gets the
/// terminal's Ctrl-C.
void interruptDuts(int sig) noexcept;

class ExecDut final : public Dut {
 public:
  /// Starts the process and reads its handshake. A failed start or handshake does not throw:
  /// broken() says why and every run is an AdapterError.
  ExecDut(std::vector<std::string> argv, std::chrono::milliseconds timeout);
  /// The same for code that would otherwise run inside cubecheck: `serve(in, out)` speaks the
  /// protocol on those descriptors in a forked child (its stdout goes to stderr), with the same
  /// timeouts, restarts and crash reports; `name` stands for the program in messages.
  ExecDut(std::string name, std::function<int(int in, int out)> serve,
          std::chrono::milliseconds timeout);
  ~ExecDut() override;
  ExecDut(const ExecDut&) = delete;
  ExecDut& operator=(const ExecDut&) = delete;

  const Capabilities& capabilities() const override { return caps_; }
  std::optional<std::string> broken() const override;
  RunResult run(const isa::Program& program) override;

  /// Processes started so far (1 + restarts).
  int starts() const { return starts_; }

 private:
  ExecDut(std::vector<std::string> argv, std::chrono::milliseconds timeout,
          std::function<int(int, int)> serve);
  enum class Wait { Ready, TimedOut, Ended, Failed };  // Failed: errno says why

  bool start(std::string& error);
  /// Closes the pipes and kills the DUT's process group.
  void stop();
  std::string exitDescription();
  /// " (the DUT then exited with status N)" / "... killed by signal S (NAME)" when the DUT has
  /// ended (or ends within exitDescription's wait) and has not been reaped yet; "" otherwise.
  /// For messages about what it wrote before it ended: a garbled handshake, a bad answer.
  std::string endedNote();
  /// poll() on the DUT's pipes, watching the DUT meanwhile: when it has ended, its group is
  /// killed, and Ended comes when the pipes stay open after that.
  Wait await(pollfd* fds, int count, std::chrono::steady_clock::time_point deadline);
  /// Whether the DUT process has ended, left unreaped: its pid is its group's id until reap().
  bool leaderEnded();
  void killGroup();
  /// Kills the group, waits for the DUT process and returns its wait status.
  int reap();

  std::vector<std::string> argv_;
  std::function<int(int, int)> serve_;  // set: run in the forked child instead of argv_
  std::chrono::milliseconds timeout_;
  Capabilities caps_;
  std::string broken_;
  pid_t pid_ = -1;      // the DUT process, and its process group
  bool ended_ = false;  // pid_ has ended (not reaped yet)
  int toDut_ = -1;
  int fromDut_ = -1;
  std::string inbox_;  // bytes read from the DUT but not consumed yet
  std::uint64_t seq_ = 0;
  int starts_ = 0;
  /// How long the first start (process and handshake) took: a restart may take twice that, or
  /// the per-program timeout if longer, and no more.
  std::chrono::milliseconds firstStart_{0};
  friend class PipeSource;
};

}  // namespace cubecheck::dut
