#include "dut_adapters/plugin_dut.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>
#include <type_traits>

#include "cubecheck/dut_plugin.h"

#include "dut_adapters/exec_dut.hpp"
#include "dut_adapters/wire.hpp"

namespace cubecheck::dut {
namespace {

/// The most bytes an answer to a program observing regions of these sizes can take: the regions
/// plus a line each, and two more lines (`ok`, `end`), each at most kMaxLine.
struct ResponseBound {
  std::uint64_t most = 2 * (wire::kMaxLine + 1);
  void observe(std::uint64_t size) { most += size + 1 + wire::kMaxLine + 1; }
};

}  // namespace

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
  hello_ = text == nullptr ? std::string() : std::string(text);
  wire::BufferSource src(hello_);
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

std::string PluginDut::runRequest(const std::string& request, std::uint64_t seq,
                                  std::uint64_t most) {
  const std::string failed = "error " + std::to_string(seq) + " ";
  if (!broken_.empty()) return failed + broken_ + "\n";
  unsigned char* response = nullptr;
  unsigned long size = 0;
  const int rc = run_(reinterpret_cast<const unsigned char*>(request.data()), request.size(),
                      &response, &size);
  if (rc != 0 || response == nullptr) {
    if (response != nullptr) free_(response);
    return failed + "cubecheck_dut_run returned " + std::to_string(rc) + "\n";
  }
  if (size > most) {
    free_(response);
    return failed + "cubecheck_dut_run reported a response of " + std::to_string(size) +
           " bytes; a response to this program has at most " + std::to_string(most) + "\n";
  }
  std::string answer(reinterpret_cast<char*>(response), size);
  free_(response);
  return answer;
}

RunResult PluginDut::run(const isa::Program& program) {
  if (!broken_.empty()) return {RunStatus::AdapterError, {}, std::nullopt, broken_};
  const std::uint64_t seq = ++seq_;
  ResponseBound bound;
  for (const isa::Region& r : program.observe) bound.observe(r.size);
  wire::BufferSource src(runRequest(wire::encodeRequest(seq, program), seq, bound.most));
  bool desync = false;
  return wire::readResponse(src, seq, program, desync);
}

namespace {

/// Blocking reads of the protocol's lines and payloads from a descriptor.
class FdReader {
 public:
  explicit FdReader(int fd) : fd_(fd) {}
  bool line(std::string& out) {
    std::size_t nl;
    while ((nl = buffer_.find('\n')) == std::string::npos) {
      if (buffer_.size() > wire::kMaxLine || !fill()) return false;
    }
    out.assign(buffer_, 0, nl);
    buffer_.erase(0, nl + 1);
    return true;
  }
  bool bytes(std::uint64_t n, std::string& out) {
    while (buffer_.size() < n) {
      if (!fill()) return false;
    }
    out.append(buffer_, 0, n);
    buffer_.erase(0, n);
    return true;
  }

 private:
  bool fill() {
    char chunk[65536];
    ssize_t got;
    do {
      got = ::read(fd_, chunk, sizeof chunk);
    } while (got < 0 && errno == EINTR);
    if (got <= 0) return false;
    buffer_.append(chunk, static_cast<std::size_t>(got));
    return true;
  }
  int fd_;
  std::string buffer_;
};

bool writeAll(int fd, const std::string& text) {
  for (std::size_t at = 0; at < text.size();) {
    const ssize_t put = ::write(fd, text.data() + at, text.size() - at);
    if (put < 0 && errno == EINTR) continue;
    if (put <= 0) return false;
    at += static_cast<std::size_t>(put);
  }
  return true;
}

/// The last space-separated number of a line ("segment L0A 0 512", "observe L0C 0 2048").
std::uint64_t lastNumber(const std::string& line) {
  std::istringstream words(line.substr(line.rfind(' ') + 1));
  std::uint64_t n = 0;
  words >> n;
  return n;
}

/// The forked child of isolatedPlugin: loads the library and answers the greeting with its
/// handshake, then frames each request (lines up to `run`, segment payloads by their length)
/// and writes the library's answer. A library that cannot be loaded, or whose handshake does not
/// read, answers the greeting with `error <why>`, which the parent reports as the DUT's failure
/// to start.
int servePlugin(const std::string& path, int in, int out) {
  PluginDut plugin(path);
  FdReader reader(in);
  std::string line;
  if (!reader.line(line)) return 0;  // the greeting
  if (auto why = plugin.broken()) return writeAll(out, "error " + *why + "\n") ? 3 : 4;
  if (!writeAll(out, plugin.hello())) return 4;
  while (reader.line(line) && line != "quit") {
    std::uint64_t seq = 0;
    std::istringstream(line.substr(line.find(' ') + 1)) >> seq;  // "program <seq> <profile>"
    std::string request = line + "\n";
    ResponseBound bound;
    do {
      if (!reader.line(line)) return 0;
      request += line + "\n";
      if (line.rfind("segment ", 0) == 0 && !reader.bytes(lastNumber(line) + 1, request)) {
        return 0;
      }
      if (line.rfind("observe ", 0) == 0) bound.observe(lastNumber(line));
    } while (line != "run");
    if (!writeAll(out, plugin.runRequest(request, seq, bound.most))) return 4;
  }
  return 0;
}

}  // namespace

std::unique_ptr<Dut> isolatedPlugin(const std::string& path, std::chrono::milliseconds timeout) {
  return std::make_unique<ExecDut>(
      "plugin:" + path, [path](int in, int out) { return servePlugin(path, in, out); }, timeout);
}

}  // namespace cubecheck::dut
