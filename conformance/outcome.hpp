// The closed outcome vocabulary (architecture.md habit 1): every case ends in exactly one of these.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace cubecheck::conf {

enum class Outcome {
  Pass,      ///< the DUT did what the oracle says, byte for byte where the policy is Exact
  Mismatch,  ///< the DUT ran and its result differs, or it accepted an illegal or refused a legal
             ///< program
  NotSupported,  ///< not run: outside the DUT's declared capabilities, or depends on an uncertified
                 ///< open point
  AdapterError,  ///< the adapter crashed, broke the protocol or answered garbage; never a Mismatch,
                 ///< never a Pass
  Timeout,       ///< the DUT did not answer in time
  Declined,  ///< the DUT answered `unsupported` to a program inside the envelope it declared: it
             ///< broke its own promise; never NotSupported, never a Pass
  Nondeterministic,  ///< the same program, run again, gave other bytes or another status: no
                     ///< verdict of the DUT on it can be trusted; never a Pass, never a Mismatch
};

inline constexpr int kOutcomeCount = 7;

std::string_view nameOf(Outcome o);

/// How every NotSupported reason that comes from what the DUT declared begins: a profile, an
/// instruction or a data type it does not declare, a memory it cannot observe or be given, a
/// field limit, programs it does not validate. Reports, and merges of them, tell by these the
/// cases outside the DUT's envelope from those the suite or the profile cannot run.
inline constexpr std::string_view kNotDeclared = "DUT does not declare ";
inline constexpr std::string_view kNotValidated = "DUT does not validate programs";
inline constexpr std::string_view kCannot = "DUT cannot ";
inline constexpr std::string_view kOutsideLimits = "outside the declared envelope: ";
/// Whether a NotSupported reason is one of those.
bool outsideDeclaredEnvelope(std::string_view reason);

/// The result of checking one case.
struct Verdict {
  Verdict() = default;
  Verdict(Outcome o, std::string d = {}, std::string n = {})
      : outcome(o), detail(std::move(d)), note(std::move(n)) {}

  Outcome outcome = Outcome::Pass;
  std::string detail;  ///< empty for Pass; the reason or the difference report otherwise
  /// What an interpretation probe learned (e.g. which reading of an open point the DUT follows);
  /// reported, never part of the verdict.
  std::string note;
  /// With Pass: a DUT that runs nothing (every observed region left as its initial image) would
  /// have passed too, e.g. a load of zero repeats. Counted and reported as "passed (no-op)"; such
  /// passes alone certify nothing.
  bool trivial = false;
  /// With Pass: the case is an interpretation probe (VectorCase::probe): it reports the reading
  /// of an open point the DUT follows (`note`) and certifies nothing. Counted and reported as a
  /// "probe case", apart from the passes.
  bool probe = false;
};

}  // namespace cubecheck::conf
