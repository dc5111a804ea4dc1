// The device-under-test interface: declared capabilities, then one Program in, observed regions
// (or a structured error) out. Every adapter (reference, exec:, plugin:, mutants) implements it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "isa/dtype.hpp"
#include "isa/memory.hpp"
#include "isa/profile.hpp"
#include "isa/program.hpp"
#include "isa/violation.hpp"

namespace cubecheck::dut {

/// What an adapter says it can do, before it is asked to do anything (DESIGN habit 2). A case
/// outside these is NotSupported with a reason, never run.
struct Capabilities {
  std::string name;     ///< e.g. "reference"
  std::string version;  ///< the implementation's own version string
  std::vector<isa::ProfileId> profiles;
  std::vector<std::string> instructions;  ///< opcodes, see isa::opcodeOf
  std::vector<isa::DType> dtypes;
  std::vector<isa::Memory> observable;
  /// True when the DUT checks legality and answers Rejected with a ViolationCode. Real hardware
  /// does not: its illegal-program cases are NotSupported.
  bool rejectsIllegal = false;
  /// False for a DUT that can report only the regions a vector file lists (recorded board
  /// results): the sources-unchanged check of conformance/checks.cpp is then skipped.
  bool observesUnlistedRegions = true;

  bool hasProfile(isa::ProfileId p) const;
  bool hasInstruction(std::string_view opcode) const;
  bool hasDType(isa::DType t) const;
  bool canObserve(isa::Memory m) const;
};

enum class RunStatus {
  Ok,            ///< ran; observed holds one byte vector per observed region
  Rejected,      ///< refused an illegal program; violation says why; nothing ran
  Unsupported,   ///< cannot run this program (outside its capabilities); message says why
  AdapterError,  ///< crashed, answered garbage or broke the protocol; message says how
  Timeout,       ///< did not answer in time
};

struct RunResult {
  RunStatus status = RunStatus::AdapterError;
  isa::Observed observed;
  std::optional<isa::Violation> violation;  ///< with Rejected
  std::string message;                      ///< with Unsupported, AdapterError, Timeout

  static RunResult ok(isa::Observed o) { return {RunStatus::Ok, std::move(o), std::nullopt, {}}; }
  static RunResult rejected(isa::Violation v) {
    return {RunStatus::Rejected, {}, std::move(v), {}};
  }
};

class Dut {
 public:
  virtual ~Dut() = default;
  virtual const Capabilities& capabilities() const = 0;
  /// Why this adapter cannot run anything at all (it failed to start, or its handshake was
  /// wrong): every case is then an AdapterError with this reason, never NotSupported.
  virtual std::optional<std::string> broken() const { return std::nullopt; }
  /// Runs the whole program from its initial images. Must not throw for any program; adapters
  /// turn their own failures into AdapterError.
  virtual RunResult run(const isa::Program& program) = 0;
};

std::string_view nameOf(RunStatus s);

}  // namespace cubecheck::dut
