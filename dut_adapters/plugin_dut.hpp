// plugin:PATH.so: a DUT as a shared library with a small C ABI (docs/dut-protocol.md). The
// requests and responses are the exec: protocol's bytes, so one implementation can serve both.
// It runs inside cubecheck: a crash takes the run down; use exec: to isolate an unstable DUT.
#pragma once

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

 private:
  using RunFn = int (*)(const unsigned char*, unsigned long, unsigned char**, unsigned long*);
  using FreeFn = void (*)(unsigned char*);
  void* handle_ = nullptr;
  RunFn run_ = nullptr;
  FreeFn free_ = nullptr;
  Capabilities caps_;
  std::string broken_;
  std::uint64_t seq_ = 0;
};

}  // namespace cubecheck::dut
