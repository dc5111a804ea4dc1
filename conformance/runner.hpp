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

#include "conformance/build_info.hpp"
#include "conformance/fingerprint.hpp"
#include "conformance/outcome.hpp"
#include "conformance/property.hpp"
#include "conformance/reach.hpp"
#include "conformance/waivers.hpp"
#include "dut_adapters/dut.hpp"
#include "generators/common.hpp"
#include "isa/profile.hpp"

namespace cubecheck::conf {

enum class Level { Smoke, Full, Nightly };
std::string_view nameOf(Level l);
std::optional<Level> parseLevel(std::string_view s);
/// Random cases per property at this level, from the property's smoke-level count.
int casesAt(Level l, int smokeCases);
/// Cases every required coverage bin must reach at this level (functional coverage quota).
std::size_t quotaAt(Level l);

/// The coverage a certify run of `family` at `level` must reach (FamilyResult::coverageQuota and
/// coverageRequired): quotaAt(level) passes of each of the family's requiredBins, and of its
/// requiredBinsFull above smoke, then one of each of its requiredBinsOnce; nothing for a family
/// the profile lacks. certify requires it of each family of a whole run (no --property or --case)
/// that was not halted; merge-reports holds a certify report's coverage to it, since a report can
/// say less than the run required.
struct RequiredCoverage {
  std::size_t quota = 0;
  std::vector<std::pair<std::string, std::size_t>> bins;  ///< (bin, passes needed), in order
};
RequiredCoverage requiredCoverage(const Family& family, Level level);

struct Failure {
  std::string property;
  std::size_t caseIndex = 0;
  Outcome outcome = Outcome::Mismatch;
  std::string caseText;
  std::string detail;
  std::string reproduce;  ///< one command line that runs exactly this case again
  int shrinkSteps = 0;
  std::optional<VectorCase> vector;  ///< the case as a vector row, when it has one
  std::string signature{};  ///< the root cause it is keyed on (signatureOf); fuzz dedups by it
  std::string caseId{};     ///< vector replay: the row's case_id, which names the case
  std::string waiver{};     ///< the reason of the waiver that waived it; empty: not waived
  /// Set, to the cap in ms (--shrink-ms), when the shrink stopped at its time cap with shrinks
  /// still untried (CaseReport::shrinkCapped): the case shown may not be the smallest that fails.
  std::optional<long long> shrinkCapMs{};
  /// "case 0017fabda5dfb4c1" for a vector row, else "case 12" (its index in the property).
  std::string label() const {
    return "case " + (caseId.empty() ? std::to_string(caseIndex) : caseId);
  }
};

struct RunOptions {
  isa::ProfileId profile = isa::ProfileId::A2;
  Level level = Level::Full;
  std::uint64_t seed = 1;
  gen::Sizes sizes = gen::Sizes::Mixed;  ///< how draws spread over sizes (--sizes)
  std::vector<std::string> families;     ///< empty: every implemented family
  std::optional<std::string> property;   ///< only this property
  std::optional<std::size_t> caseIndex;  ///< only this case (a reproduce run)
  std::chrono::milliseconds shrinkBudget{2000};
  /// Stop each family at its first failure (after shrinking it): how `mutants` times a kill.
  bool stopAtFirstFailure = false;
  std::string dutSpec = "reference";  ///< as typed, for reproduce commands
  /// `--observable` as typed: the memories the DUT is narrowed to (empty: as it declares).
  std::string observable;
  /// `--given` as typed: memories the narrowed DUT may still be given images of (empty: none).
  std::string given;
  /// Called about once a second on long runs (progress lines); may be empty.
  std::function<void(const std::string&)> progress;
  /// Called at once for every failing case (family name, the failure): how a regression corpus
  /// is written while the run goes on.
  std::function<void(const std::string&, const Failure&)> onFailure;
  /// Set from a signal handler: the run stops before the next case and is marked interrupted;
  /// the case in flight when it came is counted in no outcome (CertifyResult::casesCutShort).
  const std::atomic<bool>* stop = nullptr;
  /// --waivers: applied to every failing case as it is recorded; may be null.
  WaiverSet* waivers = nullptr;
};

struct Counts {
  std::array<std::size_t, kOutcomeCount> byOutcome{};
  /// Passes a do-nothing DUT would also get (Verdict::trivial): "passed (no-op)".
  std::size_t trivialPasses = 0;
  /// Passes of interpretation probes (Verdict::probe) that were not no-ops: "probe cases". They
  /// report the reading of an open point a DUT follows and certify nothing; reports count them
  /// apart from the passes (report.json `probe_cases`, and `passed` without them).
  std::size_t probePasses = 0;
  std::size_t total() const;
  std::size_t of(Outcome o) const { return byOutcome[static_cast<std::size_t>(o)]; }
  /// Passes that are not probe cases: what every report calls "passed" (no-ops included).
  std::size_t passesNotProbes() const { return of(Outcome::Pass) - probePasses; }
  /// Passes that required the DUT to do work and were no probe: the only ones that certify
  /// anything.
  std::size_t workPasses() const { return of(Outcome::Pass) - trivialPasses - probePasses; }
  /// Mismatches, declined cases, adapter errors and timeouts: the outcomes that make a run
  /// nonconformant.
  std::size_t failures() const;
  /// Adds `other`'s cases (merge-reports: a shard's counts into the merged run's).
  void add(const Counts& other);
};

struct PropertyResult {
  std::string name;
  std::string summary;
  Counts counts;
  double seconds = 0;
  Counts waived{};  ///< the failing cases of `counts` a waiver waived, by outcome
};

struct FamilyResult {
  std::string name;
  std::vector<std::string> openPoints;
  std::string provisional;  ///< see Family::provisional
  std::vector<PropertyResult> properties;
  Counts counts;
  std::map<std::string, std::size_t> coverage;        ///< tag -> cases that ran (not NotSupported)
  std::map<std::string, std::size_t> coverageNotRun;  ///< tag -> NotSupported cases
  /// reasonKey(reason) -> cases: reasons that differ only in addresses or sizes count together.
  std::map<std::string, std::size_t> notSupportedReasons;
  std::map<std::string, std::string> notSupportedExamples;  ///< reason key -> first full reason
  std::map<std::string, std::size_t> coveragePassed;   ///< tag -> passed cases: what quotas count
  std::map<std::string, std::size_t> declinedReasons;  ///< reason -> Declined cases
  std::map<std::string, std::size_t> probes;  ///< "property: what the probe learned" -> cases
  /// What cases observed through Mmad rested on (see conformance/indirect.hpp) -> cases that ran.
  std::map<std::string, std::size_t> indirect;
  /// every Mismatch, Declined, AdapterError and Timeout (first 50 kept)
  std::vector<Failure> failures;
  std::size_t failuresDropped = 0;
  /// The failing cases of `counts` a waiver waived (--waivers), by outcome, and by reason.
  Counts waived;
  std::map<std::string, std::size_t> waivedReasons;
  /// tag -> waived failing cases the DUT answered (a mismatch, a differing rerun): they count
  /// toward a bin's quota, as passes do (a known, waived failure is not a hole in what the run
  /// tested).
  std::map<std::string, std::size_t> coverageWaived;
  /// tag -> waived cases the DUT did not answer (declined, crashed, timed out): they ran but
  /// exercised nothing, so the top-up (binsShort) draws on past them. Not written to reports.
  std::map<std::string, std::size_t> coverageUnanswered;
  /// NotSupported cases whose reason is what the DUT declared (outsideDeclaredEnvelope): a
  /// certificate of the family covers only the cases inside that envelope.
  std::size_t outsideEnvelope() const;
  /// counts.failures() less the waived ones: what makes the family nonconformant.
  std::size_t unwaivedFailures() const { return counts.failures() - waived.failures(); }
  /// Cases run up to and including the first failure; 0 when nothing failed.
  std::size_t casesToFirstFailure = 0;
  /// Required bins passed fewer times than the level's quota: (bin, passes). Exempt are a bin
  /// whose every case was NotSupported (outside the envelope, an uncertified open point, a family
  /// the profile lacks), and every bin of a family with nothing inside the envelope (see
  /// nothingInside()). Non-empty makes the family nonconformant: the run did not test what it
  /// must.
  std::vector<std::pair<std::string, std::size_t>> coverageGaps;
  std::size_t coverageQuota = 0;
  /// The bins the run had to pass, each with the passes it needed (coverageQuota, or 1 for a bin
  /// an exhaustive table covers), in the family's order; empty when the run did not check
  /// coverage (a filtered or halted run, a family the profile lacks, fuzz).
  std::vector<std::pair<std::string, std::size_t>> coverageRequired;
  /// Sets coverageGaps from coverageRequired and the coverage counts: the one rule certify and
  /// merge-reports apply.
  void findCoverageGaps();
  /// No case of the family ran inside the envelope (every one was NotSupported, or none ran): the
  /// DUT does not declare the family, or nothing of it. Such a family is "not certified", never
  /// nonconformant for coverage: an empty bin there says nothing about the DUT.
  bool nothingInside() const { return counts.total() == counts.of(Outcome::NotSupported); }
  /// The required bins that fewer cases than their quota ran in (inside the envelope), except
  /// the exempt ones: what certify draws more cases for before it looks for gaps.
  std::vector<std::string> binsShort() const;
  /// A required bin no case ran in, every case of it NotSupported (outside what the DUT
  /// declares, an uncertified open point): exempt from its quota, and so not certified.
  bool binOutside(const std::string& bin) const {
    return coverage.count(bin) == 0 && coverageNotRun.count(bin) > 0;
  }
  /// The required bins binOutside, in the family's order: what a certificate of a family with
  /// cases inside the envelope leaves out (none when nothing ran inside: the family is then not
  /// certified at all).
  std::vector<std::string> binsOutside() const;
  /// Cases certify drew past the level's count to fill bins the level's cases missed (see
  /// certify()); they are counted in their properties like any other case.
  std::size_t topUpCases = 0;
  Reach reach;  ///< per instruction field, what the legal instructions the family ran held
  /// conformant / conformant (provisional) / conformant_with_waivers (every failure waived) /
  /// nonconformant / not certified (nothing inside the envelope passed, or only no-op cases did)
  std::string verdict() const;
  /// Why no case of the family ran inside the envelope, when its runner knows better than the
  /// counts: the profile lacks the family, a fuzz budget ran out first. Empty otherwise.
  std::string notRunWhy;
  /// Why the family is "not certified"; empty when it is not.
  std::string notCertifiedWhy() const;
  /// Cases run per second of the family's properties; nullopt when nothing ran for a measurable
  /// time or every case was NotSupported (a family the profile or DUT lacks declines at once).
  std::optional<double> casesPerSecond() const;
  /// Counts one case of property `property` (one of this family's): its outcome, coverage tags
  /// (ran or not run), not-supported reason and probe note. True when the case failed.
  bool record(PropertyResult& property, const Verdict& verdict,
              const std::vector<std::string>& tags);
  /// Failures a report shows per family; later ones are only counted.
  static constexpr std::size_t kKeptFailures = 50;
  /// Keeps a failure for the report: the first kKeptFailures.
  void keep(Failure failure);
};

/// What a NotSupported reason is grouped by: the reason with every number that stands alone
/// (decimal, hex, negative, with a fraction) replaced by N, so reasons naming different
/// addresses or sizes share one key. Numbers inside a name (L0A, int32, OPEN-9, C0) and the
/// section after "spec " are kept: they say what, not where.
std::string reasonKey(const std::string& reason);

/// The open points of `family` (in its order) that a case of `ran` rests on and that ran (was
/// not NotSupported): one of Family::openPointTags only when a case with one of its tags ran,
/// any other when any case of the family ran. A certificate names an open point its verdict
/// rests on, and a verdict rests on no case that did not run (every sparse case NotSupported
/// leaves the sparse open points out).
std::vector<std::string> openPointsThatRan(const Family& family, const FamilyResult& ran);
/// What a run covered: a filtered run (a family, a property, a case) is a partial run, never a
/// certificate, whatever its verdict.
struct Scope {
  bool complete = true;
  std::vector<std::string> filters;  ///< as typed, e.g. "--family load2d"
};

/// The run options that decide which cases a run draws beyond seed, level, profile and scope:
/// merge-reports merges only shards whose draws agree (docs/report.md, "merge-reports").
struct Draws {
  std::string sizes;  ///< --sizes (gen::nameOf); empty where no case is drawn (vector replays)
  std::optional<std::uint64_t> caseBudget;  ///< fuzz --cases: cases per property over all shards
  std::optional<double> timeBudgetSeconds;  ///< fuzz --time: each shard's budget
  bool operator==(const Draws&) const = default;
};

struct CertifyResult {
  std::string command = "certify";  ///< what produced it: certify, vectors check, vectors verify
  /// The cubecheck that produced it and the SHA-256 of its docs/spec.md (build_info.hpp): this
  /// build's, or what a report read back says. A seed's cases are one version's.
  std::string toolVersion{kToolVersion};
  std::string specSha256{kSpecSha256};
  std::string dutSpec;
  dut::Capabilities capabilities;
  isa::ProfileId profile = isa::ProfileId::A2;
  Level level = Level::Full;
  std::uint64_t seed = 0;
  unsigned shardIndex = 0;  ///< this run is shard shardIndex of shardCount (fuzz --shard I/N)
  unsigned shardCount = 1;
  Draws draws;
  std::vector<FamilyResult> families;
  std::vector<std::string> notImplemented;  ///< families this version does not certify yet
  Scope scope;
  double seconds = 0;
  /// A partial run, never conformant: stopped by a signal (interrupted), given up on a DUT that
  /// kept timing out or crashing (stoppedEarly: why), or ended by an internal error of
  /// cubecheck's own (internalError: what). The results are those of the cases run before.
  bool interrupted = false;
  /// Of an interrupted run: the cases in flight when the signal came, dropped. cubecheck passes
  /// the signal on to the DUT's process group, so a case it cut short (an exec: DUT killed
  /// mid-program) is no outcome of the DUT's: it is counted nowhere but here.
  std::size_t casesCutShort = 0;
  std::string stoppedEarly;
  std::string internalError;
  /// Determinism: cases run twice more and compared (one passing case in kRerunEvery and every
  /// Mismatch or Declined one), and those whose answers differed (each also a Nondeterministic
  /// case).
  std::size_t reruns = 0;
  std::size_t rerunsDiffering = 0;
  /// certify: how the DUT computes float Mmad (conformance/fingerprint.hpp), reported, never a
  /// verdict; or why it was not measured (fingerprintWhyNot). Neither for other commands.
  std::optional<Fingerprint> fingerprint;
  std::string fingerprintWhyNot;
  /// The waivers the run was given (--waivers) and what became of each.
  std::vector<WaiverResult> waivers;
  /// vectors check / verify only: the set replayed. `digest` is its manifest's hash (empty
  /// without one); `profiles` every profile its rows are for, in the order first met. A replay
  /// has no level and no seed: the reports name these instead.
  struct VectorSet {
    std::string digest;
    std::vector<std::string> profiles;
    /// the digest of the set it was exported from, as its manifest says; empty when it was not
    std::string sourceDigest{};
    /// what part of that set it is, when only a part (vec::SetCheck::subset, joined by "; ")
    std::string subset{};
  };
  std::optional<VectorSet> vectorSet;
  /// merge-reports: the report.json files it combined, each with the SHA-256 of its bytes (what
  /// `sha256sum` prints). A merged report was not run here: its verdict is only as good as those
  /// files, and every format names them. Empty for a run's own report.
  struct MergedInput {
    std::string file;
    std::string sha256;
  };
  std::vector<MergedInput> mergedFrom;
  /// Input a replay could not use, each "FILE:LINE:COLUMN: what": a vector file, row, sidecar or
  /// manifest, a results file. Any makes the run not certified: what they held was not replayed
  /// as published.
  std::vector<std::string> inputErrors;
  /// "a2" or, for a replay, every profile of the set: "a2, 950" (every format says the same).
  std::string profilesText() const;
  /// Failing cases waived over every family.
  std::size_t waivedCases() const;
  /// No family nonconformant and at least one certified (conformant or provisional). A run
  /// that certified nothing (a DUT that declares nothing, or passes only no-ops) is not.
  bool conformant() const;
  /// "conformant", "conformant_with_waivers" (conformant once the waived failures are set aside),
  /// "nonconformant" or "not certified" (nothing nonconformant, nothing certified).
  std::string verdict() const;
  std::vector<std::string> certifiedFamilies() const;
  std::vector<std::string> notCertifiedFamilies() const;
  /// A replay of a vector set against a DUT (`vectors check`): the expectations are published
  /// with the set, so a DUT that reads them passes. A regression check, never a certificate.
  /// (`vectors verify` of a board's results is the hardware route and can be one:
  /// docs/hardware.md.)
  bool replayCheck() const { return command == "vectors check"; }
  /// Whether the run can be a certificate at all: certify and a board's `vectors verify` can;
  /// fuzz cannot (it checks no coverage), nor can `vectors check` (replayCheck). A certificate
  /// also needs a complete run that finished (see partial()).
  bool certifies() const { return command != "fuzz" && !replayCheck(); }
  /// What the report is, for machines (report.json's "report_kind"): "certificate" (a command
  /// that certifies, a complete run that finished; its verdict is the certificate's, good or
  /// bad), "partial_run" (filtered or unfinished: what ran, never a certificate), "fuzz" (a fuzz
  /// report) or "replay" (`vectors check`), never a certificate whatever their verdict words say.
  std::string reportKind() const;
  /// The report's name for people: "certificate" only when reportKind() is; else "fuzz report",
  /// "replay (not a certificate)" or "partial run".
  std::string reportName() const;
  /// Why the run did not finish (interrupted, stopped early, an internal error), in capitals as
  /// every format leads with it; empty for a run that finished.
  std::string unfinished() const;
  /// The one line every format leads with: CONFORMANT / NONCONFORMANT / NOT CERTIFIED naming the
  /// certified (provisional ones marked) and not-certified families and the declared limits; or
  /// "PARTIAL RUN (filters)" with what ran; or INTERRUPTED / RUN STOPPED / INTERNAL ERROR for a run
  /// that did not finish. A fuzz run says NO FAILURE FOUND / FAILURES FOUND / NOTHING CHECKED
  /// instead, never CONFORMANT: it is not a certificate.
  std::string headline() const;
};

/// One passing case in this many (case indices 0, 50, 100, ...) is run twice more and the DUT's
/// answers compared, as every Mismatch and Declined case is.
inline constexpr std::size_t kRerunEvery = 50;

/// What a reproduce line needs of the run it comes from.
struct ReproduceContext {
  std::string dutSpec;
  isa::ProfileId profile = isa::ProfileId::A2;
  std::uint64_t seed = 1;
  gen::Sizes sizes = gen::Sizes::Mixed;
  std::string observable, given;  ///< as typed; empty: not narrowed
};
/// The one command line that reruns case `index` of `family`/`property` alone, as certify and
/// fuzz print it: the DUT, profile, seed, size spread (where not mixed: the case drawn at an index
/// depends on it) and the board rehearsal's narrowing of the run.
std::string reproduceCommand(const ReproduceContext& run, const std::string& family,
                             const std::string& property, std::size_t index);

/// Case `index` of family `family`'s property: NotSupported with `unsupported` when that is set;
/// a sampled pass (kRerunEvery) whose reruns differ becomes Nondeterministic, and one whose
/// re-run broke the DUT that AdapterError or Timeout;
/// nullopt when the suite failed internally (an exception), which is then described in
/// internalError with the command that reproduces it. When `stop` is set by the time the case
/// ends (a signal came while it ran), the case is cutShort: its caller counts it in no outcome.
std::optional<CaseReport> runCase(const std::string& family, const Property& prop, dut::Dut& dut,
                                  std::uint64_t seed, std::size_t index,
                                  Clock::duration shrinkBudget, const std::string& unsupported,
                                  std::string& internalError, const std::string& reproduce,
                                  const std::atomic<bool>* stop = nullptr);

/// What a run reports of the DUT's declaration: its capabilities, or, for a DUT that cannot run
/// anything from the start (it did not start, or its handshake was refused: dut.broken()), no
/// envelope: notDeclared says why, so no report reads its empty lists (or the program name it
/// stands under) as an envelope it declared.
dut::Capabilities declaredCapabilities(const dut::Dut& dut);

/// Extra draws per property certify looks through, past the level's cases, for cases of the
/// required bins they missed (see certify()): a hundred sweeps of the sizes 0..100. A draw costs
/// only its tags unless it is in a short bin, and a DUT whose envelope keeps out most of a bin's
/// draws (an Mmad limited to one data type) needs many more than an unlimited one: ten sweeps left
/// such a DUT a gap by the seed's luck.
inline constexpr std::size_t kTopUpDraws = 10100;

/// Runs the suite. Deterministic for a given seed, options and DUT behaviour. On a whole run
/// (no --property or --case) each family's required bins are then filled: while a bin is short of
/// its quota (binsShort()), the properties in turn draw their next cases past the level's count
/// (case indices on from tableSize() + casesAt(level, randomCases())), and each draw tagged with
/// a short bin is run, until no bin is short or kTopUpDraws draws per property are spent. So a
/// bin that the level's draws reach only by chance is never a gap by the seed's luck.
CertifyResult certify(dut::Dut& dut, const RunOptions& options);

/// For a process that checks many cases (the CLI, the benchmarks; call once, first thing in
/// main): every case allocates and frees memory images of up to a few hundred KiB, which glibc
/// would hand back to the kernel each time (mmap above 128 KiB, trimming the heap top) and fault
/// in again, costing about as much as a 128^3 case's arithmetic. This keeps up to 256 MiB of
/// freed memory for reuse. Process-wide, so never called by the library itself.
void keepFreedMemoryForReuse();

}  // namespace cubecheck::conf
