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
#include "oracle/mmad.hpp"

namespace cubecheck::conf {

/// Why the DUT cannot run the program according to its own declaration, or nullopt.
std::optional<std::string> unsupportedReason(const dut::Capabilities& caps,
                                             const isa::Program& program);

/// The violation code a DUT gave when it rejected a legal program, read from a verdict's detail
/// (fromStatus writes "...: DUT rejected it: <Code>: <its words>"), or nullopt. With `end`, also
/// where the code ends in `detail`.
std::optional<std::string> rejectedLegalCode(const std::string& detail, std::size_t* end = nullptr);

/// Whether a DUT that runs nothing, answering every observed region with its initial image,
/// would match `expected`: a case such a DUT passes proves nothing about the DUT.
bool doNothingPasses(const isa::Program& program, const oracle::Expected& expected);

/// A Pass against `expected`, marked trivial when a do-nothing DUT would pass too.
Verdict passed(const isa::Program& program, const oracle::Expected& expected);

/// Runs a legal program; on Ok fills `observed` (checked against the program's regions) and
/// returns nullopt, otherwise the verdict its status implies (a rejection of a legal program is a
/// Mismatch).
std::optional<Verdict> runLegal(dut::Dut& dut, const isa::Program& program,
                                isa::Observed& observed);

/// An f32 C in Nz at byte `offset` of an observed image, held to |C - exact| <= bound per element
/// (the derived bounds of spec 9's bounded comparisons).
struct BoundCheck {
  int outside = 0;       ///< elements above their bound (NaN included)
  double worstUlp = 0;   ///< the largest error of an element within its bound, in ULP of exact
  std::string firstBad;  ///< the first eight elements above their bound, one line each
};
BoundCheck checkWithinBound(const isa::Bytes& image, std::uint64_t offset,
                            const oracle::MatrixD& exact, const oracle::MatrixD& bound);

/// A case whose expected footprint equals its initial image: a DUT doing nothing passes it too.
/// Random operands make such cases now and then (an accumulating Mmad whose products are all 0),
/// so it is a no-op pass, counted apart and certifying nothing, not an error that stops the run.
Verdict vacuousPass();

/// Whether the DUT's result leaves the written footprint (per `expected`) of some observed region
/// exactly as the program's initial image had it: nothing observable happened there.
bool leftUnchanged(const isa::Program& program, oracle::Expected expected,
                   const isa::Observed& observed);

/// The DUT's result equals `expected` (Exact policy). With strayOnly only bytes outside the
/// footprint are compared, and a DUT that left the footprint as it was fails (leftUnchanged: no
/// stray write is no achievement for a DUT that wrote nothing). Throws std::logic_error on a
/// vacuous comparison: that is a generator defect, not a DUT's.
Verdict checkExpected(dut::Dut& dut, const isa::Program& program, const oracle::Expected& expected,
                      bool strayOnly = false);

/// The oracle's expectation for the program, then checkExpected.
Verdict checkAgainstOracle(dut::Dut& dut, const isa::Program& program, bool strayOnly = false);

/// The program with every memory it observes (GM aside) given and observed whole: one segment of
/// the memory's whole capacity, the program's own segments in place and random bytes between
/// them, and one region over all of it where the program observed any. A stray write anywhere in
/// such a memory is then seen, not only in the canary margin the generators put around a
/// destination (a fractal or so), which a DUT that writes a few KiB past it never touches.
isa::Program wholeMemories(isa::Program program);

/// What the NoStrayWrites properties claim, and their one tag.
inline constexpr const char* kNoStrayWritesClaim =
    "a legal program changes no byte outside what its instructions write, anywhere in the "
    "memories it observes: each is given and observed whole (GM aside), not only a margin "
    "around the destination";
inline constexpr const char* kWholeMemoryTag = "stray:whole_memory";

/// The probe notes of OPEN-10's two orders of colliding V2 destination writes.
inline constexpr const char* kOpen10ByColumn =
    "OPEN-10: destination written column by column, the later column wins (default)";
inline constexpr const char* kOpen10ByRow =
    "OPEN-10: destination written row by row, the earlier column wins";

/// The vector of a legal program whose expectation the oracle derives (or NotSupported where it
/// rests on an uncertified open point). Where the bytes depend on OPEN-10's order of colliding
/// V2 writes it is a probe with both orders as readings, left out of the golden set.
VectorCase oracleVector(isa::Program program);

/// The message of a vacuous comparison (the expectation leaves the footprint as it was): a
/// generator defect, thrown as std::logic_error, never a DUT's pass.
std::string vacuousCase(const std::string& what);

/// The vector of a program that must be rejected for `code`.
VectorCase rejectionVector(isa::Program program, isa::ViolationCode code);

/// The vector of a program with an expectation computed elsewhere (layouts, logical operands).
VectorCase expectationVector(isa::Program program, oracle::Expected expected);

/// Metamorphic: two programs with the same segments and observed regions must leave the same
/// bytes (the first's result shown as expected), except where `aExpected` (the expectation of
/// `a`) leaves them unspecified. NotSupported where it rests on an uncertified open point.
/// Never vacuous: `a`'s expectation must change its footprint (else std::logic_error, a generator
/// defect), and a DUT whose first run leaves any written region of the footprint as it was did
/// nothing observable there: a Mismatch, however equal the two runs are.
Verdict checkSameResult(dut::Dut& dut, const isa::Program& a, const isa::Program& b,
                        const std::string& what, oracle::Expected aExpected);

/// The same with the oracle's expectation of `a` (programs without a multiply).
Verdict checkSameResult(dut::Dut& dut, const isa::Program& a, const isa::Program& b,
                        const std::string& what);

/// An illegal program must be rejected, for the expected reason, and nothing run.
Verdict checkRejected(dut::Dut& dut, const isa::Program& program, isa::ViolationCode expected);

}  // namespace cubecheck::conf
