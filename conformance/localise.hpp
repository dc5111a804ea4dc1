// Where a failing case goes wrong: the instruction whose own effect is the first to differ from
// the oracle, and how. A failure signature (conformance/fuzz.hpp) is keyed on this, so that one
// bug seen through many properties, shapes and programs is one root cause.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "conformance/outcome.hpp"
#include "dut_adapters/dut.hpp"
#include "isa/program.hpp"

namespace cubecheck::conf {

/// A DUT that passes everything to another and keeps a copy of every program it was given, with
/// a digest of each answer: how a failing case's programs are captured, whatever its property
/// does with them, and how two runs of one case are compared (determinism).
class RecordingDut final : public dut::Dut {
 public:
  explicit RecordingDut(dut::Dut& inner) : inner_(inner) {}
  const dut::Capabilities& capabilities() const override { return inner_.capabilities(); }
  std::optional<std::string> broken() const override { return inner_.broken(); }
  dut::RunResult run(const isa::Program& program) override;
  std::vector<isa::Program> programs;
  /// Per program: sent just before the case's own (VectorCase::before, runBefore), its result
  /// not compared. Such programs are no part of a failure's cause, and ownPrograms() leaves
  /// them out.
  std::vector<bool> before;
  /// While set (runBefore sets it), the programs recorded are marked `before`.
  bool sendingBefore = false;
  /// The programs of the case itself: what localise() replays.
  std::vector<isa::Program> ownPrograms() &&;
  /// Per program: a digest of the status, the violation code and every observed byte.
  std::vector<std::uint64_t> answers;
  /// The first answer that was none (an AdapterError or a Timeout): the DUT broke, and said how.
  struct Break {
    std::size_t program = 0;  ///< 0-based index into programs
    dut::RunStatus status = dut::RunStatus::AdapterError;
    std::string message;
  };
  std::optional<Break> firstBreak;

 private:
  dut::Dut& inner_;
};

/// Two recordings of one case: nullopt when they asked the same programs and got the same
/// answers (or asked different programs, which says nothing of the DUT), else what differed.
std::optional<std::string> answersDiffer(const RecordingDut& first, const RecordingDut& second);

/// What running a case twice more says of the DUT, from the outcome of the case's own run
/// (`original`) and each re-run's verdict and recording. A re-run in which the DUT broke (an
/// AdapterError or a Timeout, in an answer or in the verdict) is that outcome with the DUT's own
/// message, marked as the case's re-run: a broken DUT, not another answer; `firstRun`, when
/// given, says how the case's first run ended, beside where it broke. Otherwise Nondeterministic
/// when the two re-runs' answers differed (answersDiffer), or when a re-run's outcome is not the
/// case's own: the programs and the expectation are the same, so a case that passed and then
/// mismatched or was declined (or the reverse) was answered differently. Else nullopt.
std::optional<Verdict> rerunVerdict(Outcome original, const Verdict& firstVerdict,
                                    const RecordingDut& first, const Verdict& secondVerdict,
                                    const RecordingDut& second, const std::string& firstRun = {});

struct Culprit {
  std::string opcode;  ///< isa::opcodeOf of the instruction, e.g. "load2d"
  /// Which of its datapaths it took (isa::variantOf): its mode fields and the mode registers it
  /// read, never an address, size, count or value. When the arithmetic is blamed and the case ran
  /// several Mmads in different variants, each of them, sorted, joined by " | ": the oracle
  /// cannot replay an Mmad alone, so which of them went wrong is not known.
  std::string variant;
  /// What it does wrong, without addresses, values or sizes: "wrong values", "writes outside its
  /// footprint", "rejects a legal program (Alignment)", ... Empty when only the arithmetic is
  /// left to blame: the caller names the effect from the case's own verdict.
  std::string effect;
};

/// The first data-moving instruction of `programs` (in order, each program's loads from the
/// first) whose prefix, run alone on the DUT with every segment of the memories it writes
/// observed, does not match the oracle: its effect is what went wrong. When every load checks
/// out, the first Mmad, MmadWithSparse or MmadMx is the culprit, with an empty effect and the
/// variants of every one of them. nullopt when a load could not be checked (an open point, a memory
/// the DUT cannot observe, a program the oracle cannot judge alone) and none before it failed, or
/// for programs with neither.
/// Runs the DUT once per load checked; only failing cases are localised.
std::optional<Culprit> localise(dut::Dut& dut, const std::vector<isa::Program>& programs);

/// What a verdict says went wrong, in the words a signature keys on (see Culprit::effect).
/// `memory` is added for instructions that write more than one memory (LoadDataWithSparse).
std::string effectOf(const Verdict& verdict, bool nameMemory);

}  // namespace cubecheck::conf
