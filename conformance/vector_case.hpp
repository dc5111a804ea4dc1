// A checkable case as data: a program and what must come of it. Properties that compare a DUT
// against a fixed expectation produce these; golden vector files store them; both check them
// with the same code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "conformance/outcome.hpp"
#include "dut_adapters/dut.hpp"
#include "isa/program.hpp"
#include "isa/violation.hpp"
#include "oracle/expected.hpp"

namespace cubecheck::conf {

struct VectorCase {
  isa::Program program;
  /// Legal programs sent to the same DUT just before `program`, their results not compared: they
  /// leave state (CTRL[45], HF32, the Load3D registers) that must not reach `program`, whose state
  /// starts reset (dut-protocol.md, "State of a program"). Vector files do not store them, so
  /// `vectors regen` skips a case that has any.
  std::vector<isa::Program> before;
  /// What the observed regions must hold (Exact, with don't-care masks). Unset for rejections.
  std::optional<oracle::Expected> expected;
  /// The program breaks this rule and must be rejected.
  std::optional<isa::ViolationCode> rejection;
  /// An interpretation probe: any of these passes, and the note names which (`expected` unset).
  std::vector<std::pair<std::string, oracle::Expected>> alternatives;
  /// Readings a probe names but does not accept (e.g. int32 wrap-around for OPEN-7): a DUT
  /// matching one fails with its name. Certify only; vector files do not store them.
  std::vector<std::pair<std::string, oracle::Expected>> misreadings;
  /// Depends on an open point that is not certified: NotSupported, never run.
  std::optional<std::string> uncertified;
  /// Set (to the open point) when the case's bytes depend on an open point the golden vector set
  /// leaves out (docs/vectors.md): certify still probes it, `vectors regen` skips it.
  std::optional<std::string> notGolden;
  /// The case is an interpretation probe (a `*Probe` property of an open point, a vector row of
  /// policy probe:): its purpose is to report which of `alternatives` the DUT follows, not to
  /// certify. A pass is counted as a probe case (Verdict::probe), never as a pass that certifies.
  /// Unset where alternatives only spare a certified case an open point's bytes (OPEN-10).
  bool probe = false;
};

/// Runs `before` (VectorCase::before) on the DUT, results not compared: nullopt when each ran,
/// else the verdict of the first that did not (NotSupported, or its failure, named as such).
std::optional<Verdict> runBefore(dut::Dut& dut, const std::vector<isa::Program>& before);

/// The verdict of one vector case against a DUT.
Verdict checkVector(dut::Dut& dut, const VectorCase& c);

}  // namespace cubecheck::conf
