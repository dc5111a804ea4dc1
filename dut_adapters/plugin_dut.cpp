#include "dut_adapters/plugin_dut.hpp"

#include <dlfcn.h>

#include <type_traits>

#include "cubecheck/dut_plugin.h"

#include "dut_adapters/wire.hpp"

namespace cubecheck::dut {

PluginDut::PluginDut(const std::string& path) {
  caps_.name = path;
  handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle_ == nullptr) {
    broken_ = std::string("cannot load plugin: ") + ::dlerror();
    return;
  }
  using AbiFn = int (*)();
  using HelloFn = const char* (*)();
  // The public header is the ABI's one statement; these are the types looked up by name.
  static_assert(std::is_same_v<AbiFn, decltype(&cubecheck_dut_abi_version)>);
  static_assert(std::is_same_v<HelloFn, decltype(&cubecheck_dut_hello)>);
  static_assert(std::is_same_v<RunFn, decltype(&cubecheck_dut_run)>);
  static_assert(std::is_same_v<FreeFn, decltype(&cubecheck_dut_free)>);
  auto abi = reinterpret_cast<AbiFn>(::dlsym(handle_, "cubecheck_dut_abi_version"));
  auto hello = reinterpret_cast<HelloFn>(::dlsym(handle_, "cubecheck_dut_hello"));
  run_ = reinterpret_cast<RunFn>(::dlsym(handle_, "cubecheck_dut_run"));
  free_ = reinterpret_cast<FreeFn>(::dlsym(handle_, "cubecheck_dut_free"));
  if (abi == nullptr || hello == nullptr || run_ == nullptr || free_ == nullptr) {
    broken_ = "plugin " + path +
              " lacks one of cubecheck_dut_abi_version, cubecheck_dut_hello, cubecheck_dut_run, "
              "cubecheck_dut_free";
    return;
  }
  if (abi() < 1 || abi() > wire::kProtocolVersion) {
    broken_ = "plugin ABI version " + std::to_string(abi()) + "; this cubecheck speaks 1 to " +
              std::to_string(wire::kProtocolVersion);
    return;
  }
  const char* text = hello();
  wire::BufferSource src(text == nullptr ? std::string() : std::string(text));
  std::string error;
  if (!wire::readCapabilities(src, caps_, error)) broken_ = "plugin handshake: " + error;
  if (caps_.name.empty()) caps_.name = path;
}

PluginDut::~PluginDut() {
  if (handle_ != nullptr) ::dlclose(handle_);
}

std::optional<std::string> PluginDut::broken() const {
  if (broken_.empty()) return std::nullopt;
  return broken_;
}

RunResult PluginDut::run(const isa::Program& program) {
  if (!broken_.empty()) return {RunStatus::AdapterError, {}, std::nullopt, broken_};
  const std::uint64_t seq = ++seq_;
  const std::string request = wire::encodeRequest(seq, program);
  unsigned char* response = nullptr;
  unsigned long size = 0;
  const int rc = run_(reinterpret_cast<const unsigned char*>(request.data()), request.size(),
                      &response, &size);
  if (rc != 0 || response == nullptr) {
    if (response != nullptr) free_(response);
    return {RunStatus::AdapterError,
            {},
            std::nullopt,
            "cubecheck_dut_run returned " + std::to_string(rc)};
  }
  // The size is the plugin's word: bound it before copying, or a wrong one reads past the
  // buffer or exhausts memory. A response is its regions plus a few lines of at most kMaxLine.
  std::uint64_t most = (program.observe.size() + 2) * (wire::kMaxLine + 1);
  for (const isa::Region& r : program.observe) most += r.size + 1;
  if (size > most) {
    free_(response);
    return {RunStatus::AdapterError,
            {},
            std::nullopt,
            "cubecheck_dut_run reported a response of " + std::to_string(size) +
                " bytes; a response to this program has at most " + std::to_string(most)};
  }
  wire::BufferSource src(std::string(reinterpret_cast<char*>(response), size));
  free_(response);
  bool desync = false;
  return wire::readResponse(src, seq, program, desync);
}

}  // namespace cubecheck::dut
