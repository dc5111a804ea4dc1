// libFuzzer harness for the handshake parser (a DUT's "dut 1 ... end" reply, dut_adapters/
// wire.hpp): any bytes give capabilities or a reason, and every string a DUT declares is
// printable ASCII by the time it leaves the parser; never a crash, hang or leak.
#include <cstdint>
#include <string>

#include "dut_adapters/wire.hpp"

namespace {
void printableOrTrap(const std::string& s) {
  for (char c : s) {
    if (c < 0x20 || c > 0x7E) __builtin_trap();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cubecheck;
  dut::wire::BufferSource src(std::string(reinterpret_cast<const char*>(data), size));
  dut::Capabilities caps;
  std::string error;
  if (dut::wire::readCapabilities(src, caps, error)) {
    printableOrTrap(caps.name);
    printableOrTrap(caps.version);
    for (const std::string& i : caps.instructions) printableOrTrap(i);
    for (const auto& l : caps.limits) printableOrTrap(l.text);
  } else {
    if (error.empty()) __builtin_trap();  // a refusal always says why
    printableOrTrap(error);
  }
  return 0;
}
