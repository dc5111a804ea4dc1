// The device-under-test interface: declared capabilities, then one Program in, observed regions
// (or a structured error) out. Every adapter (reference, exec:, plugin:, mutants) implements it.
#pragma once

#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "isa/dtype.hpp"
#include "isa/memory.hpp"
#include "isa/profile.hpp"
#include "isa/program.hpp"
#include "isa/violation.hpp"

namespace cubecheck::dut {

/// One clause of a DUT's envelope beyond the lists of Capabilities: instruction `opcode`'s field
/// `field` (named by the instruction's descriptor, isa/fields.hpp) only takes values in
/// [lo, hi] that are multiples of `multiple`, and, when `values` is non-empty, one of those.
struct FieldLimit {
  std::string opcode;
  std::string field;
  std::int64_t lo = std::numeric_limits<std::int64_t>::min();
  std::int64_t hi = std::numeric_limits<std::int64_t>::max();
  std::int64_t multiple = 1;
  std::vector<std::int64_t> values;  ///< Path and DType fields: the enumerators' values
  std::string text;                  ///< as printed, e.g. "load2d repeat_times <= 100"

  bool admits(std::int64_t value) const;
};

/// Parses one clause: `<opcode> <field> <op> <args>` with op `<= N`, `>= N`, `== N`,
/// `in A..B`, `in V...` (names for path and dtype fields), `% N` (a multiple of N) or `default`
/// (only the value a default-constructed instruction holds). Nullopt with `error` naming what is
/// wrong.
std::optional<FieldLimit> parseFieldLimit(std::string_view text, std::string& error);

/// What an adapter says it can do, before it is asked to do anything (architecture.md habit 2). A
/// case outside these is NotSupported with a reason, never run.
struct Capabilities {
  std::string name;     ///< e.g. "reference"
  std::string version;  ///< the implementation's own version string
  std::vector<isa::ProfileId> profiles;
  std::vector<std::string> instructions;  ///< opcodes, see isa::opcodeOf
  std::vector<isa::DType> dtypes;
  std::vector<isa::Memory> observable;
  /// The memories the DUT may be given initial images of; empty: the observable ones. A board
  /// differs: it stages the bias table through L1 but cannot read it back, and a dav-3510 reads
  /// L0C out but has no call that writes it.
  std::vector<isa::Memory> given;
  /// True when the DUT checks legality and answers Rejected with a ViolationCode. Real hardware
  /// does not: its illegal-program cases are NotSupported.
  bool rejectsIllegal = false;
  /// Narrower than the lists above: per-instruction limits on fields (all must hold). Empty:
  /// every legal value of every field of the declared instructions.
  std::vector<FieldLimit> limits;
  /// False for a DUT that can report only the regions a vector file lists (recorded board
  /// results): the sources-unchanged check of conformance/checks.cpp is then skipped.
  bool observesUnlistedRegions = true;
  /// Non-empty for a DUT that declared no envelope (recorded board results): why, e.g. "results
  /// of a board run (FILE) declare none". Its lists above then admit every case, to replay what
  /// was recorded, and are no declaration: the reports print "envelope: not declared: <why>" and
  /// never "certified within".
  std::string notDeclared;

  bool hasProfile(isa::ProfileId p) const;
  bool hasInstruction(std::string_view opcode) const;
  bool hasDType(isa::DType t) const;
  bool canObserve(isa::Memory m) const;
  /// Whether a program may carry an initial image of m for this DUT (`given`).
  bool canBeGiven(isa::Memory m) const;
  /// The first limit the instruction breaks, or nullptr: the instruction is inside the envelope.
  const FieldLimit* breaks(const isa::Instruction& instruction) const;
  /// The whole envelope in one line, as certificates print it after "certified within:"; for a
  /// DUT that declared none, "not declared: <why>".
  std::string envelopeText() const;
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
  /// With Unsupported: the suite's own way of running the program (observing L0A/L0B through
  /// Mmad, conformance/indirect.hpp) cannot reach this case, so it is NotSupported, not a DUT
  /// declining a case inside its envelope. Never set from anything a DUT sends.
  bool suiteLimit = false;
  /// With AdapterError: the suite's own observation through Mmad read back values no correct DUT
  /// gives (an s8 times an identity outside s8's range, an index past 3), so the DUT computed
  /// something wrong: the case is a Mismatch, not an adapter error, and does not count towards
  /// the streak that stops a run. Never set from anything a DUT sends.
  bool wrongResult = false;

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
  /// As run(program) with `alsoObserve` observed after the program's own regions (the checks
  /// observe memories no instruction writes). This default runs a copy of the program with the
  /// regions added; an adapter that can observe them without that copy overrides it.
  virtual RunResult runObserving(const isa::Program& program,
                                 std::span<const isa::Region> alsoObserve);
};

std::string_view nameOf(RunStatus s);

}  // namespace cubecheck::dut
