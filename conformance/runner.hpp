// The certify run: every property of every requested family against one DUT, and the results.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "conformance/outcome.hpp"
#include "conformance/property.hpp"
#include "dut_adapters/dut.hpp"
#include "isa/profile.hpp"

namespace cubecheck::conf {

enum class Level { Smoke, Full, Nightly };
std::string_view nameOf(Level l);
std::optional<Level> parseLevel(std::string_view s);
/// Random cases per property at this level, from the property's smoke-level count.
int casesAt(Level l, int smokeCases);
/// Cases every required coverage bin must reach at this level (functional coverage quota).
std::size_t quotaAt(Level l);

struct Failure {
  std::string property;
  std::size_t caseIndex = 0;
  Outcome outcome = Outcome::Mismatch;
  std::string caseText;
  std::string detail;
  std::string reproduce;  ///< one command line that runs exactly this case again
  int shrinkSteps = 0;
  std::optional<VectorCase> vector;  ///< the case as a vector row, when it has one
};

struct RunOptions {
  isa::ProfileId profile = isa::ProfileId::A2;
  Level level = Level::Full;
  std::uint64_t seed = 1;
  std::vector<std::string> families;     ///< empty: every implemented family
  std::optional<std::string> property;   ///< only this property
  std::optional<std::size_t> caseIndex;  ///< only this case (a reproduce run)
  std::chrono::milliseconds shrinkBudget{2000};
  /// Stop each family at its first failure (after shrinking it): how `mutants` times a kill.
  bool stopAtFirstFailure = false;
  std::string dutSpec = "reference";  ///< as typed, for reproduce commands
  /// Called about once a second on long runs (progress lines); may be empty.
  std::function<void(const std::string&)> progress;
  /// Called at once for every failing case (family name, the failure): how a regression corpus
  /// is written while the run goes on.
  std::function<void(const std::string&, const Failure&)> onFailure;
  /// Set from a signal handler: the run stops before the next case and is marked interrupted.
  const std::atomic<bool>* stop = nullptr;
};

struct Counts {
  std::array<std::size_t, kOutcomeCount> byOutcome{};
  std::size_t total() const;
  std::size_t of(Outcome o) const { return byOutcome[static_cast<std::size_t>(o)]; }
  /// Mismatches, adapter errors and timeouts: the outcomes that make a run nonconformant.
  std::size_t failures() const;
};

struct PropertyResult {
  std::string name;
  std::string summary;
  Counts counts;
  double seconds = 0;
};

struct FamilyResult {
  std::string name;
  std::vector<std::string> openPoints;
  std::string provisional;  ///< see Family::provisional
  std::vector<PropertyResult> properties;
  Counts counts;
  std::map<std::string, std::size_t> coverage;        ///< tag -> cases that ran (not NotSupported)
  std::map<std::string, std::size_t> coverageNotRun;  ///< tag -> NotSupported cases
  std::map<std::string, std::size_t> notSupportedReasons;  ///< reason -> cases
  std::map<std::string, std::size_t> probes;  ///< "property: what the probe learned" -> cases
  std::vector<Failure> failures;  ///< every Mismatch, AdapterError and Timeout (first 50 kept)
  std::size_t failuresDropped = 0;
  /// Cases run up to and including the first failure; 0 when nothing failed.
  std::size_t casesToFirstFailure = 0;
  /// Required bins hit fewer times than the level's quota: (bin, hits). Non-empty makes the
  /// family nonconformant: the run did not test what it must.
  std::vector<std::pair<std::string, std::size_t>> coverageGaps;
  std::size_t coverageQuota = 0;
  /// conformant / conformant (provisional) / nonconformant / not supported (nothing ran)
  std::string verdict() const;
  /// Counts one case of property `property` (one of this family's): its outcome, coverage tags
  /// (ran or not run), not-supported reason and probe note. True when the case failed.
  bool record(PropertyResult& property, const Verdict& verdict,
              const std::vector<std::string>& tags);
  /// Keeps a failure for the report: the first 50; later ones are only counted.
  void keep(Failure failure);
};

struct CertifyResult {
  std::string command = "certify";  ///< what produced it: certify, vectors check, vectors verify
  std::string dutSpec;
  dut::Capabilities capabilities;
  isa::ProfileId profile = isa::ProfileId::A2;
  Level level = Level::Full;
  std::uint64_t seed = 0;
  std::vector<FamilyResult> families;
  std::vector<std::string> notImplemented;  ///< families this version does not certify yet
  double seconds = 0;
  /// A partial run, never conformant: stopped by a signal (interrupted), given up on a DUT that
  /// kept timing out or crashing (stoppedEarly: why), or ended by an internal error of
  /// cubecheck's own (internalError: what). The results are those of the cases run before.
  bool interrupted = false;
  std::string stoppedEarly;
  std::string internalError;
  bool conformant() const;
};

/// Runs the suite. Deterministic for a given seed, options and DUT behaviour.
CertifyResult certify(dut::Dut& dut, const RunOptions& options);

}  // namespace cubecheck::conf
