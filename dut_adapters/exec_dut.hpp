// exec:PATH [ARGS...]: a DUT in its own process, any language, spoken to over stdin/stdout with
// the wire protocol. One process serves many programs; it is killed after a per-program
// timeout, restarted after a crash or a protocol error, and never takes cubecheck down with it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "dut_adapters/dut.hpp"

namespace cubecheck::dut {

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
  bool start(std::string& error);
  void stop();
  std::string exitDescription();

  std::vector<std::string> argv_;
  std::function<int(int, int)> serve_;  // set: run in the forked child instead of argv_
  std::chrono::milliseconds timeout_;
  Capabilities caps_;
  std::string broken_;
  pid_t pid_ = -1;
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
