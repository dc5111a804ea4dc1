// The DUT wire protocol (docs/dut-protocol.md), versions 1 and 2 (2 adds `limit` lines to the
// handshake): ASCII lines, raw binary payloads after
// a line that announces their length. Shared by exec: (pipes) and plugin: (memory buffers).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "dut_adapters/dut.hpp"
#include "isa/program.hpp"

namespace cubecheck::dut::wire {

/// The newest version this cubecheck reads; it reads every version from 1 up.
inline constexpr int kProtocolVersion = 2;
/// Longest line a DUT may send; longer is garbage.
inline constexpr std::size_t kMaxLine = 4096;
/// The most lines a handshake may hold after its first: far more than any envelope needs (one
/// line per declaration, one per limit clause), few enough that reading one costs nothing, each
/// time the DUT is restarted too.
inline constexpr std::size_t kMaxHandshakeLines = 4096;

/// What cubecheck sends first: `cubecheck 1`, unchanged since version 1 so that version-1 DUTs
/// keep working; the DUT's answer (`dut 1` or `dut 2`) says which version it speaks.
std::string hello();

/// One request: the program's segments, instructions and observed regions, tagged `seq`.
std::string encodeRequest(std::uint64_t seq, const isa::Program& program);

/// Where the response bytes come from. Each call fails with a message (EOF, timeout, overlong).
class Source {
 public:
  virtual ~Source() = default;
  /// The next line without its '\n', at most kMaxLine bytes.
  virtual bool line(std::string& out, std::string& error) = 0;
  /// Exactly n bytes.
  virtual bool bytes(std::uint8_t* out, std::size_t n, std::string& error) = 0;
};

/// Reads the handshake reply ("dut 1" or "dut 2" ... "end"). False with a reason on any deviation.
bool readCapabilities(Source& in, Capabilities& caps, std::string& error);

/// Reads one response to request `seq`. A protocol violation (wrong seq, unknown line, a region
/// of the wrong size) is AdapterError; `desync` is set when the stream can no longer be trusted.
RunResult readResponse(Source& in, std::uint64_t seq, const isa::Program& program, bool& desync);

/// A Source over a memory buffer (plugin responses, tests).
class BufferSource final : public Source {
 public:
  explicit BufferSource(std::string data) : data_(std::move(data)) {}
  bool line(std::string& out, std::string& error) override;
  bool bytes(std::uint8_t* out, std::size_t n, std::string& error) override;

 private:
  std::string data_;
  std::size_t at_ = 0;
};

}  // namespace cubecheck::dut::wire
