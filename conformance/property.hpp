// A property: one rule checked over annotated boundary cases and random cases, with shrinking.
#pragma once

#include <rapidcheck.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "conformance/localise.hpp"
#include "conformance/outcome.hpp"
#include "conformance/vector_case.hpp"
#include "dut_adapters/dut.hpp"

namespace cubecheck::conf {

/// The property every family has that draws illegal programs and expects their rejection. Its
/// passes show that the DUT validates, not that it computes anything (FamilyResult::verdict).
inline constexpr std::string_view kRejectsIllegal = "RejectsIllegal";

using Clock = std::chrono::steady_clock;

/// One checked case as the report shows it.
struct CaseReport {
  Verdict verdict;
  std::string caseText;  ///< the case (after shrinking, for a Mismatch) as a printable value
  std::vector<std::string> tags;
  int shrinkSteps = 0;
  /// The (shrunk) case as a vector, for properties with a fixed expectation: what a regression
  /// corpus stores.
  std::optional<VectorCase> vector;
  /// A failing case's programs, as the final check gave them to the DUT (run once more through a
  /// RecordingDut): what localise() replays to find the instruction at fault.
  std::vector<isa::Program> programs{};
  /// The case was run twice more to compare the DUT's answers (every failure, and the sampled
  /// passes of Property::rerun): counted in the run's determinism figures.
  bool reran = false;
  /// A stop (SIGINT, SIGTERM) came while the case ran: cubecheck itself signalled the DUT's
  /// process group, so what the case ended in is not the DUT's doing. Such a case is counted in
  /// no outcome (CertifyResult::casesCutShort).
  bool cutShort = false;
  /// The shrink stopped at its time cap (the shrink budget, --shrink-ms) with shrinks of the case
  /// still untried: a smaller case may fail too.
  bool shrinkCapped = false;
};

/// A deterministic seed for case `index` of property `name` in a run seeded `seed`: the same on
/// every machine (FNV-1a of the name, then a SplitMix64 step).
std::uint64_t caseSeed(std::uint64_t seed, std::string_view name, std::uint64_t index);

class Property {
 public:
  virtual ~Property() = default;
  virtual const std::string& name() const = 0;
  virtual const std::string& summary() const = 0;
  /// Boundary-table entries: case indices [0, tableSize()) run them, later indices draw.
  virtual std::size_t tableSize() const = 0;
  /// Random cases at smoke level; other levels multiply it.
  virtual int randomCases() const = 0;
  /// Runs case `index`; a Mismatch is shrunk for at most `shrinkBudget`. Once `stop` is set (a
  /// signal came), no more of the case is run: no further shrink step, no re-run.
  virtual CaseReport run(dut::Dut& dut, std::uint64_t seed, std::size_t index,
                         Clock::duration shrinkBudget,
                         const std::atomic<bool>* stop = nullptr) const = 0;
  /// Case `index` as a vector (program and expectation), when the property compares against a
  /// fixed expectation; nullopt for metamorphic properties, which compare two DUT runs.
  virtual std::optional<VectorCase> vectorCase(std::uint64_t seed, std::size_t index) const = 0;
  /// Case `index` printed, with the boundary it covers when it is a table entry.
  virtual std::string caseText(std::uint64_t seed, std::size_t index) const = 0;
  /// The coverage tags of case `index` (unshrunk), drawn but not run: how certify picks the
  /// extra draws that fill a required bin the level's cases missed.
  virtual std::vector<std::string> tagsAt(std::uint64_t seed, std::size_t index) const = 0;
  /// Runs case `index` (unshrunk), which passed, twice more: nullopt when the DUT answered alike
  /// both times and passed both times, else the re-run's verdict (rerunVerdict: the AdapterError
  /// or Timeout of a DUT that broke, or Nondeterministic naming the program answered differently
  /// or the re-run that did not pass).
  virtual std::optional<Verdict> rerun(dut::Dut& dut, std::uint64_t seed,
                                       std::size_t index) const = 0;
};

/// A property over plain values of type T (architecture.md habit 4): a table, a generator, a check.
template <class T>
class TypedProperty final : public Property {
 public:
  using Check = std::function<Verdict(dut::Dut&, const T&)>;
  using Tags = std::function<std::vector<std::string>(const T&)>;
  using Vectorize = std::function<VectorCase(const T&)>;

  /// A property that checks a fixed expectation: the same VectorCase is what golden vector files
  /// store, so certify and vector replay share one check.
  static std::unique_ptr<TypedProperty> fromVector(std::string name, std::string summary,
                                                   std::vector<T> table, rc::Gen<T> gen,
                                                   int randomCases, Vectorize vectorize,
                                                   Tags tags) {
    auto p = std::make_unique<TypedProperty>(
        std::move(name), std::move(summary), std::move(table), std::move(gen), randomCases,
        [vectorize](dut::Dut& d, const T& v) { return checkVector(d, vectorize(v)); },
        std::move(tags));
    p->vectorize_ = std::move(vectorize);
    return p;
  }

  TypedProperty(std::string name, std::string summary, std::vector<T> table, rc::Gen<T> gen,
                int randomCases, Check check, Tags tags)
      : name_(std::move(name)),
        summary_(std::move(summary)),
        table_(std::move(table)),
        gen_(std::move(gen)),
        randomCases_(randomCases),
        check_(std::move(check)),
        tags_(std::move(tags)) {}

  const std::string& name() const override { return name_; }
  const std::string& summary() const override { return summary_; }
  std::size_t tableSize() const override { return table_.size(); }
  int randomCases() const override { return randomCases_; }

  std::optional<VectorCase> vectorCase(std::uint64_t seed, std::size_t index) const override {
    if (!vectorize_) return std::nullopt;
    return vectorize_(valueAt(seed, index));
  }

  std::string caseText(std::uint64_t seed, std::size_t index) const override {
    std::ostringstream os;
    os << valueAt(seed, index);
    return os.str();
  }

  std::vector<std::string> tagsAt(std::uint64_t seed, std::size_t index) const override {
    return tags_(valueAt(seed, index));
  }

  std::optional<Verdict> rerun(dut::Dut& dut, std::uint64_t seed,
                               std::size_t index) const override {
    RecordingDut first(dut), second(dut);
    const T value = valueAt(seed, index);
    const Verdict v1 = check_(first, value);
    const Verdict v2 = check_(second, value);
    return rerunVerdict(Outcome::Pass, v1, first, v2, second, "the first run passed");
  }

  CaseReport run(dut::Dut& dut, std::uint64_t seed, std::size_t index, Clock::duration shrinkBudget,
                 const std::atomic<bool>* stop = nullptr) const override {
    const auto stopped = [stop] { return stop != nullptr && stop->load(); };
    if (index < table_.size()) {
      return report(dut, table_[index], check_(dut, table_[index]), 0, stopped());
    }
    rc::Shrinkable<T> current = drawn(seed, index);
    Verdict verdict = check_(dut, current.value());
    int steps = 0;
    bool capped = false;  // the cap ended the shrink while a shrink of the case was still untried
    if (verdict.outcome == Outcome::Mismatch) {
      const Clock::time_point deadline = Clock::now() + shrinkBudget;
      bool progress = true;
      while (progress && !stopped()) {
        if (Clock::now() >= deadline) {
          capped = true;
          break;
        }
        progress = false;
        auto shrinks = current.shrinks();
        while (auto next = shrinks.next()) {
          if (stopped()) break;
          if (Clock::now() >= deadline) {
            capped = true;
            break;
          }
          Verdict v = check_(dut, next->value());
          if (v.outcome == Outcome::Mismatch) {
            current = std::move(*next);
            verdict = std::move(v);
            ++steps;
            progress = true;
            break;
          }
        }
      }
    }
    CaseReport r = report(dut, current.value(), std::move(verdict), steps, stopped());
    r.shrinkCapped = capped;
    return r;
  }

 private:
  /// Case `index` past the table: drawn from the case seed, sizes sweeping 0..100 as RapidCheck's
  /// own runner does, so small cases come early.
  rc::Shrinkable<T> drawn(std::uint64_t seed, std::size_t index) const {
    const std::uint64_t k = index - table_.size();
    return gen_(rc::Random(caseSeed(seed, name_, k)), static_cast<int>(k % 101));
  }
  T valueAt(std::uint64_t seed, std::size_t index) const {
    return index < table_.size() ? table_[index] : drawn(seed, index).value();
  }

  /// `stopped`: a signal came; the case is cut short and not run again.
  CaseReport report(dut::Dut& dut, const T& value, Verdict verdict, int steps, bool stopped) const {
    std::ostringstream os;
    os << value;
    // A failure the DUT answered is checked twice more: to capture its programs, and to see
    // whether the DUT answers them the same way again (a flaky DUT is named as such, not as a
    // plain failure). A timeout is not waited for again, nor a crash provoked again: a DUT that
    // broke is restarted at a cost, and a run of them stops the run anyway.
    std::vector<isa::Program> programs;
    bool reran = false;
    if (!stopped &&
        (verdict.outcome == Outcome::Mismatch || verdict.outcome == Outcome::Declined)) {
      RecordingDut first(dut), second(dut);
      const Verdict v1 = check_(first, value);
      const Verdict v2 = check_(second, value);
      reran = true;
      // A DUT that broke on a re-run is that AdapterError or Timeout, not another answer.
      if (std::optional<Verdict> again = rerunVerdict(verdict.outcome, v1, first, v2, second)) {
        verdict = Verdict{again->outcome,
                          again->detail + "; the first run of the case ended:\n" + verdict.detail};
      }
      programs = std::move(first).ownPrograms();
    }
    CaseReport r{std::move(verdict),  os.str(), tags_(value), steps, std::nullopt,
                 std::move(programs), reran,    stopped};
    if (vectorize_ && r.verdict.outcome != Outcome::Pass &&
        r.verdict.outcome != Outcome::NotSupported &&
        r.verdict.outcome != Outcome::Nondeterministic) {
      r.vector = vectorize_(value);
    }
    return r;
  }

  std::string name_;
  std::string summary_;
  std::vector<T> table_;
  rc::Gen<T> gen_;
  int randomCases_;
  Check check_;
  Tags tags_;
  Vectorize vectorize_;
};

/// An instruction family: its properties on one profile, and the open points its verdict rests on.
struct Family {
  std::string name;
  /// What the family certifies, in a few words (`cubecheck explain`).
  std::string title;
  /// The spec sections its verdict rests on, cited as "spec 4" (`cubecheck explain`).
  std::vector<std::string> spec;
  std::vector<std::string> openPoints;
  /// The open points of `openPoints` that only some of the family's cases rest on: open point ->
  /// the tag prefixes of those cases ("kind:sparse" for the pipeline's sparse cases). An open
  /// point not listed here rests on every case of the family. A report names an open point only
  /// when a case resting on it ran (openPointsThatRan).
  std::map<std::string, std::vector<std::string>> openPointTags;
  /// Set when the family certifies against a provisional model (spec 6.4): the report says a
  /// pass is agreement with that model, not with the hardware.
  std::string provisional;
  /// Set when the profile lacks the family's instructions: every case is NotSupported with
  /// this reason and nothing is run.
  std::string unsupported;
  /// Coverage bins (case tags) a whole run must hit, each at least the level's quota times.
  std::vector<std::string> requiredBins;
  /// Bins required at full and nightly only (the large size classes: a smoke run is too short).
  std::vector<std::string> requiredBinsFull;
  /// Bins hit by an exhaustive fixed table (one case covers every code of a format): required
  /// once at every level, since more random draws cannot add to an exhaustive case.
  std::vector<std::string> requiredBinsOnce;
  /// Requires the size bins `all`: those in `small` at every level, the rest at full and nightly.
  void requireSizeBins(const std::vector<std::string>& small, const std::vector<std::string>& all);
  std::vector<std::unique_ptr<Property>> properties;
};

}  // namespace cubecheck::conf
