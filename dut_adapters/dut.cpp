#include "dut_adapters/dut.hpp"

#include <algorithm>

namespace cubecheck::dut {

bool Capabilities::hasProfile(isa::ProfileId p) const {
  return std::find(profiles.begin(), profiles.end(), p) != profiles.end();
}
bool Capabilities::hasInstruction(std::string_view opcode) const {
  return std::find(instructions.begin(), instructions.end(), opcode) != instructions.end();
}
bool Capabilities::hasDType(isa::DType t) const {
  return std::find(dtypes.begin(), dtypes.end(), t) != dtypes.end();
}
bool Capabilities::canObserve(isa::Memory m) const {
  return std::find(observable.begin(), observable.end(), m) != observable.end();
}

std::string_view nameOf(RunStatus s) {
  switch (s) {
    case RunStatus::Ok:
      return "Ok";
    case RunStatus::Rejected:
      return "Rejected";
    case RunStatus::Unsupported:
      return "Unsupported";
    case RunStatus::AdapterError:
      return "AdapterError";
    case RunStatus::Timeout:
      return "Timeout";
  }
  return "?";
}

}  // namespace cubecheck::dut
