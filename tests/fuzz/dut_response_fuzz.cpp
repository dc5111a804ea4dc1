// libFuzzer harness for the DUT protocol parser (what a DUT writes back, dut_adapters/wire.hpp):
// any bytes as the answer to a program observing three regions must give Ok with exactly those
// regions' sizes, or another status with a printable message; never a crash, hang or leak.
#include <cstdint>
#include <string>

#include "dut_adapters/wire.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cubecheck;
  static const isa::Program program = [] {
    isa::Program p;
    p.observe = {{isa::Memory::L0A, 0, 4}, {isa::Memory::L0B, 512, 0}, {isa::Memory::L1, 32, 17}};
    return p;
  }();
  dut::wire::BufferSource src(std::string(reinterpret_cast<const char*>(data), size));
  bool desync = false;
  const dut::RunResult r = dut::wire::readResponse(src, 1, program, desync);
  if (r.status == dut::RunStatus::Ok) {
    if (desync || r.observed.size() != program.observe.size()) __builtin_trap();
    for (std::size_t i = 0; i < r.observed.size(); ++i) {
      if (r.observed[i].size() != program.observe[i].size) __builtin_trap();
    }
  }
  // Messages reach terminals and reports: nothing outside printable ASCII.
  for (char c : r.message) {
    if (c < 0x20 || c > 0x7E) __builtin_trap();
  }
  if (r.violation) {
    for (char c : r.violation->message) {
      if (c < 0x20 || c > 0x7E) __builtin_trap();
    }
  }
  return 0;
}
