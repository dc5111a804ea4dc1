// plugin:PATH.so: a DUT as a shared library with a small C ABI (docs/dut-protocol.md). The
// requests and responses are the exec: protocol's bytes, so one implementation can serve both.
// By default the library is loaded in a forked child that serves it over pipes (isolatedPlugin):
// a crash or a hang is that case's failure and the run goes on. inprocess:PATH.so loads it into
// cubecheck itself (PluginDut): faster, but a crash takes the run down.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "dut_adapters/dut.hpp"

namespace cubecheck::dut {

class PluginDut final : public Dut {
 public:
  /// Loads the library and reads its handshake; failures are reported by broken().
  explicit PluginDut(const std::string& path);
  ~PluginDut() override;
  PluginDut(const PluginDut&) = delete;
  PluginDut& operator=(const PluginDut&) = delete;

  const Capabilities& capabilities() const override { return caps_; }
  std::optional<std::string> broken() const override;
  RunResult run(const isa::Program& program) override;

  /// The handshake answer the library gives.
  const std::string& hello() const { return hello_; }
  /// One request's bytes run by the library: its answer's bytes, or an `error` answer to `seq`
  /// when it fails or claims more than `most` bytes (a response is its regions plus a few lines;
  /// a wrong size would read past the library's buffer or exhaust memory).
  std::string runRequest(const std::string& request, std::uint64_t seq, std::uint64_t most);

 private:
  using RunFn = int (*)(const unsigned char*, unsigned long, unsigned char**, unsigned long*);
  using FreeFn = void (*)(unsigned char*);
  void* handle_ = nullptr;
  RunFn run_ = nullptr;
  FreeFn free_ = nullptr;
  Capabilities caps_;
  std::string broken_;
  std::string hello_;
  std::uint64_t seq_ = 0;
};

/// plugin:PATH.so: the library loaded in a forked child serving the exec: protocol over pipes
/// (an ExecDut), restarted after a crash, killed after `timeout`.
std::unique_ptr<Dut> isolatedPlugin(const std::string& path, std::chrono::milliseconds timeout);

}  // namespace cubecheck::dut
