#include "conformance/runner.hpp"

#include <algorithm>
#include <sstream>

#include "conformance/dut_health.hpp"
#include "conformance/families.hpp"

namespace cubecheck::conf {

std::string_view nameOf(Level l) {
  switch (l) {
    case Level::Smoke:
      return "smoke";
    case Level::Full:
      return "full";
    case Level::Nightly:
      return "nightly";
  }
  return "?";
}

std::optional<Level> parseLevel(std::string_view s) {
  if (s == "smoke") return Level::Smoke;
  if (s == "full") return Level::Full;
  if (s == "nightly") return Level::Nightly;
  return std::nullopt;
}

int casesAt(Level l, int smokeCases) {
  switch (l) {
    case Level::Smoke:
      return smokeCases;
    case Level::Full:
      return 25 * smokeCases;
    case Level::Nightly:
      return 250 * smokeCases;
  }
  return smokeCases;
}

std::size_t quotaAt(Level l) {
  switch (l) {
    case Level::Smoke:
      return 1;
    case Level::Full:
      return 5;
    case Level::Nightly:
      return 25;
  }
  return 1;
}

std::size_t Counts::total() const {
  std::size_t n = 0;
  for (std::size_t c : byOutcome) n += c;
  return n;
}

std::size_t Counts::failures() const {
  return of(Outcome::Mismatch) + of(Outcome::AdapterError) + of(Outcome::Timeout);
}

bool FamilyResult::record(PropertyResult& property, const Verdict& v,
                          const std::vector<std::string>& tags) {
  const auto out = static_cast<std::size_t>(v.outcome);
  property.counts.byOutcome[out] += 1;
  counts.byOutcome[out] += 1;
  const bool notRun = v.outcome == Outcome::NotSupported;
  for (const std::string& t : tags) (notRun ? coverageNotRun : coverage)[t] += 1;
  if (notRun) notSupportedReasons[v.detail] += 1;
  if (!v.note.empty()) probes[property.name + ": " + v.note] += 1;
  const bool failed = v.outcome == Outcome::Mismatch || v.outcome == Outcome::AdapterError ||
                      v.outcome == Outcome::Timeout;
  if (failed && casesToFirstFailure == 0) casesToFirstFailure = counts.total();
  return failed;
}

void FamilyResult::keep(Failure failure) {
  if (failures.size() < 50) {
    failures.push_back(std::move(failure));
  } else {
    ++failuresDropped;
  }
}

std::string FamilyResult::verdict() const {
  if (counts.failures() > 0) return "nonconformant";
  if (!coverageGaps.empty()) return "nonconformant";
  if (counts.of(Outcome::Pass) == 0) return "not supported";
  return provisional.empty() ? "conformant" : "conformant (provisional)";
}

bool CertifyResult::conformant() const {
  if (interrupted || !stoppedEarly.empty() || !internalError.empty()) return false;
  std::size_t passed = 0;
  for (const FamilyResult& f : families) {
    if (f.verdict() == "nonconformant") return false;
    passed += f.counts.of(Outcome::Pass);
  }
  return passed > 0;  // nothing passed proves nothing (DESIGN habit 9)
}

namespace {

std::string reproduceCommand(const RunOptions& o, const std::string& family,
                             const std::string& property, std::size_t index) {
  std::ostringstream os;
  os << "cubecheck certify --dut '" << o.dutSpec << "' --profile " << isa::profile(o.profile).name
     << " --family " << family << " --property " << property << " --seed " << o.seed << " --case "
     << index;
  return os.str();
}

}  // namespace

CertifyResult certify(dut::Dut& dut, const RunOptions& o) {
  const Clock::time_point start = Clock::now();
  CertifyResult result;
  result.dutSpec = o.dutSpec;
  result.capabilities = dut.capabilities();
  result.profile = o.profile;
  result.level = o.level;
  result.seed = o.seed;

  std::vector<std::string> names = o.families;
  if (names.empty()) {
    for (std::string_view n : kFamilyNames) {
      if (isImplemented(n))
        names.emplace_back(n);
      else
        result.notImplemented.emplace_back(n);
    }
  }
  Clock::time_point lastProgress = start;
  FailureStreak streak;
  bool halt = false;  // interrupted, given up on the DUT, or an internal error
  for (const std::string& name : names) {
    if (halt) break;
    std::optional<Family> family = makeFamily(name, o.profile);
    if (!family) {
      result.notImplemented.push_back(name);
      continue;
    }
    FamilyResult fr;
    fr.name = family->name;
    fr.openPoints = family->openPoints;
    fr.provisional = family->provisional;
    for (const auto& prop : family->properties) {
      if (halt) break;
      if (o.property && *o.property != prop->name()) continue;
      PropertyResult pr{prop->name(), prop->summary(), {}, 0};
      const Clock::time_point pstart = Clock::now();
      const std::size_t total = prop->tableSize() + casesAt(o.level, prop->randomCases());
      std::size_t first = 0;
      std::size_t last = total;
      if (o.caseIndex) {
        first = *o.caseIndex;
        last = first + 1;
      }
      for (std::size_t i = first; i < last && !halt; ++i) {
        if (o.stopAtFirstFailure && fr.casesToFirstFailure > 0) break;
        if (o.stop != nullptr && o.stop->load()) {
          result.interrupted = halt = true;
          break;
        }
        CaseReport cr;
        try {
          cr = family->unsupported.empty()
                   ? prop->run(dut, o.seed, i, o.shrinkBudget)
                   : CaseReport{
                         {Outcome::NotSupported, family->unsupported, {}}, {}, {}, 0, std::nullopt};
        } catch (const std::exception& e) {
          // cubecheck's own defect, not the DUT's: keep what ran, say what broke.
          result.internalError =
              fr.name + "/" + prop->name() + " case " + std::to_string(i) + ": " + e.what();
          halt = true;
          break;
        } catch (...) {
          result.internalError = fr.name + "/" + prop->name() + " case " + std::to_string(i) +
                                 ": an exception of unknown type";
          halt = true;
          break;
        }
        if (streak.record(cr.verdict.outcome)) {
          result.stoppedEarly = FailureStreak::reason(cr.verdict.detail);
          halt = true;
        }
        if (fr.record(pr, cr.verdict, cr.tags)) {
          Failure failure{prop->name(),       i,
                          cr.verdict.outcome, cr.caseText,
                          cr.verdict.detail,  reproduceCommand(o, fr.name, prop->name(), i),
                          cr.shrinkSteps,     std::move(cr.vector)};
          if (o.onFailure) o.onFailure(fr.name, failure);
          fr.keep(std::move(failure));
        }
        if (o.progress && (i & 63) == 0) {
          const Clock::time_point now = Clock::now();
          if (now - lastProgress > std::chrono::seconds(1)) {
            lastProgress = now;
            const double secs = std::chrono::duration<double>(now - pstart).count();
            std::ostringstream os;
            os << fr.name << ' ' << prop->name() << ": " << (i - first + 1) << '/' << (last - first)
               << " cases, " << fr.failures.size() + fr.failuresDropped << " failed, "
               << static_cast<long>((i - first + 1) / std::max(secs, 1e-9)) << " cases/s";
            o.progress(os.str());
          }
        }
      }
      pr.seconds = std::chrono::duration<double>(Clock::now() - pstart).count();
      fr.properties.push_back(std::move(pr));
      if (o.stopAtFirstFailure && fr.casesToFirstFailure > 0) break;
    }
    // Functional coverage: a whole run (no property or case filter) must hit every required bin
    // the level's quota times.
    if (family->unsupported.empty() && !o.property && !o.caseIndex && !halt) {
      fr.coverageQuota = quotaAt(o.level);
      for (const std::string& bin : family->requiredBins) {
        const auto it = fr.coverage.find(bin);
        const std::size_t hits = it == fr.coverage.end() ? 0 : it->second;
        // A bin the DUT declared it cannot run is reported as not supported, not as a gap.
        if (hits < fr.coverageQuota && fr.coverageNotRun.count(bin) == 0) {
          fr.coverageGaps.emplace_back(bin, hits);
        }
      }
    }
    result.families.push_back(std::move(fr));
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace cubecheck::conf
