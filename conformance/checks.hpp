// Checks written once against the Dut interface (architecture.md habit 3), shared by every
// property.
#pragma once

#include <optional>
#include <string>

#include "conformance/outcome.hpp"
#include "conformance/vector_case.hpp"
#include "dut_adapters/dut.hpp"
#include "isa/program.hpp"
#include "isa/violation.hpp"
#include "oracle/expected.hpp"

namespace cubecheck::conf {

/// Why the DUT cannot run the program according to its own declaration, or nullopt.
std::optional<std::string> unsupportedReason(const dut::Capabilities& caps,
                                             const isa::Program& program);

/// Runs a legal program; on Ok fills `observed` (checked against the program's regions) and
/// returns nullopt, otherwise the verdict its status implies (a rejection of a legal program is a
/// Mismatch).
std::optional<Verdict> runLegal(dut::Dut& dut, const isa::Program& program,
                                isa::Observed& observed);

/// The DUT's result equals `expected` (Exact policy). With strayOnly only bytes outside the
/// footprint are compared. Throws std::logic_error on a vacuous comparison: that is a generator
/// defect, not a DUT's.
Verdict checkExpected(dut::Dut& dut, const isa::Program& program, const oracle::Expected& expected,
                      bool strayOnly = false);

/// The oracle's expectation for the program, then checkExpected.
Verdict checkAgainstOracle(dut::Dut& dut, const isa::Program& program, bool strayOnly = false);

/// The vector of a legal program whose expectation the oracle derives (or NotSupported where it
/// rests on an uncertified open point).
VectorCase oracleVector(isa::Program program);

/// The vector of a program that must be rejected for `code`.
VectorCase rejectionVector(isa::Program program, isa::ViolationCode code);

/// The vector of a program with an expectation computed elsewhere (layouts, logical operands).
VectorCase expectationVector(isa::Program program, oracle::Expected expected);

/// Metamorphic: two programs with the same segments and observed regions must leave the same
/// bytes (the first's result shown as expected), except where `aExpected` (the expectation of
/// `a`) leaves them unspecified. NotSupported where it rests on an uncertified open point.
Verdict checkSameResult(dut::Dut& dut, const isa::Program& a, const isa::Program& b,
                        const std::string& what, oracle::Expected aExpected);

/// The same with the oracle's expectation of `a` (programs without a multiply).
Verdict checkSameResult(dut::Dut& dut, const isa::Program& a, const isa::Program& b,
                        const std::string& what);

/// An illegal program must be rejected, for the expected reason, and nothing run.
Verdict checkRejected(dut::Dut& dut, const isa::Program& program, isa::ViolationCode expected);

}  // namespace cubecheck::conf
