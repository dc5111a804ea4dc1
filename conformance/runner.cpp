#include "conformance/runner.hpp"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <algorithm>
#include <cctype>
#include <set>
#include <sstream>

#include "conformance/dut_health.hpp"
#include "conformance/families.hpp"
#include "conformance/fuzz.hpp"
#include "conformance/indirect.hpp"
#include "dut_adapters/sanitise.hpp"

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

RequiredCoverage requiredCoverage(const Family& family, Level level) {
  RequiredCoverage out;
  if (!family.unsupported.empty()) return out;  // nothing of it runs on the profile
  out.quota = quotaAt(level);
  std::vector<std::string> bins = family.requiredBins;
  if (level != Level::Smoke) {
    bins.insert(bins.end(), family.requiredBinsFull.begin(), family.requiredBinsFull.end());
  }
  const std::size_t once = bins.size();
  bins.insert(bins.end(), family.requiredBinsOnce.begin(), family.requiredBinsOnce.end());
  for (std::size_t b = 0; b < bins.size(); ++b) {
    out.bins.emplace_back(bins[b], b < once ? out.quota : 1);
  }
  return out;
}

std::size_t Counts::total() const {
  std::size_t n = 0;
  for (std::size_t c : byOutcome) n += c;
  return n;
}

std::size_t Counts::failures() const {
  return of(Outcome::Mismatch) + of(Outcome::Declined) + of(Outcome::AdapterError) +
         of(Outcome::Timeout) + of(Outcome::Nondeterministic);
}

void Counts::add(const Counts& other) {
  for (std::size_t i = 0; i < byOutcome.size(); ++i) byOutcome[i] += other.byOutcome[i];
  trivialPasses += other.trivialPasses;
  probePasses += other.probePasses;
}

bool FamilyResult::record(PropertyResult& property, const Verdict& v,
                          const std::vector<std::string>& tags) {
  const auto out = static_cast<std::size_t>(v.outcome);
  property.counts.byOutcome[out] += 1;
  counts.byOutcome[out] += 1;
  const bool notRun = v.outcome == Outcome::NotSupported;
  const bool pass = v.outcome == Outcome::Pass;
  if (pass && v.trivial) {
    property.counts.trivialPasses += 1;
    counts.trivialPasses += 1;
  } else if (pass && v.probe) {
    property.counts.probePasses += 1;
    counts.probePasses += 1;
  }
  for (const std::string& t : tags) {
    (notRun ? coverageNotRun : coverage)[t] += 1;
    if (pass) coveragePassed[t] += 1;
  }
  if (notRun) {
    const std::string key = reasonKey(v.detail);
    notSupportedReasons[key] += 1;
    notSupportedExamples.emplace(key, v.detail);
  }
  if (v.outcome == Outcome::Declined) declinedReasons[v.detail] += 1;
  if (!v.note.empty()) probes[property.name + ": " + v.note] += 1;
  const bool failed = v.outcome == Outcome::Mismatch || v.outcome == Outcome::Declined ||
                      v.outcome == Outcome::AdapterError || v.outcome == Outcome::Timeout ||
                      v.outcome == Outcome::Nondeterministic;
  if (failed && casesToFirstFailure == 0) casesToFirstFailure = counts.total();
  return failed;
}

std::string reasonKey(const std::string& reason) {
  const auto digit = [](char c) { return c >= '0' && c <= '9'; };
  const auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
  };
  std::string key;
  std::size_t i = 0;
  while (i < reason.size()) {
    const bool negative = reason[i] == '-' && i + 1 < reason.size() && digit(reason[i + 1]);
    const bool atNumber = digit(reason[i]) || negative;
    const bool standsAlone = i == 0 || !word(reason[i - 1]);
    const bool cited =
        digit(reason[i]) && key.size() >= 5 && key.compare(key.size() - 5, 5, "spec ") == 0;
    if (cited) {  // "spec 6.4" names a section: keep all of it
      while (i < reason.size() && (digit(reason[i]) || reason[i] == '.')) key += reason[i++];
      continue;
    }
    if (!atNumber || !standsAlone) {
      key += reason[i++];
      continue;
    }
    std::size_t j = i + (negative ? 1 : 0);
    if (reason.compare(j, 2, "0x") == 0 || reason.compare(j, 2, "0X") == 0) {
      j += 2;
      while (j < reason.size() && std::isxdigit(static_cast<unsigned char>(reason[j]))) ++j;
    } else {
      while (j < reason.size() && (digit(reason[j]) || (reason[j] == '.' && j + 1 < reason.size() &&
                                                        digit(reason[j + 1])))) {
        ++j;
      }
    }
    // "3rd", "16x": a number glued to letters is part of a name; keep it.
    if (j < reason.size() && word(reason[j]) && reason[j] != '-') {
      key.append(reason, i, j - i);
    } else {
      key += 'N';
    }
    i = j;
  }
  return key;
}

std::vector<std::string> openPointsThatRan(const Family& family, const FamilyResult& ran) {
  std::vector<std::string> out;
  if (ran.nothingInside()) return out;
  for (const std::string& id : family.openPoints) {
    const auto tags = family.openPointTags.find(id);
    const bool restsOnARunCase =
        tags == family.openPointTags.end() ||
        std::any_of(ran.coverage.begin(), ran.coverage.end(), [&](const auto& hit) {
          return std::any_of(tags->second.begin(), tags->second.end(),
                             [&](const std::string& p) { return hit.first.rfind(p, 0) == 0; });
        });
    if (restsOnARunCase) out.push_back(id);
  }
  return out;
}

void FamilyResult::keep(Failure failure) {
  if (failures.size() < kKeptFailures) {
    failures.push_back(std::move(failure));
  } else {
    ++failuresDropped;
  }
}

void FamilyResult::findCoverageGaps() {
  coverageGaps.clear();
  if (nothingInside()) return;  // "not certified" says why; an empty bin blames nothing
  for (const auto& [bin, quota] : coverageRequired) {
    const auto passed = coveragePassed.find(bin);
    const auto waivedHits = coverageWaived.find(bin);
    const std::size_t hits = (passed == coveragePassed.end() ? 0 : passed->second) +
                             (waivedHits == coverageWaived.end() ? 0 : waivedHits->second);
    // Exempt only when every case of the bin was NotSupported: the bin lies outside the
    // envelope. A bin with cases inside it must pass the quota, whatever else happened.
    if (hits < quota && !binOutside(bin)) coverageGaps.emplace_back(bin, hits);
  }
}

std::vector<std::string> FamilyResult::binsOutside() const {
  std::vector<std::string> out;
  if (nothingInside()) return out;
  for (const auto& [bin, quota] : coverageRequired) {
    if (binOutside(bin)) out.push_back(bin);
  }
  return out;
}

std::vector<std::string> FamilyResult::binsShort() const {
  std::vector<std::string> out;
  if (nothingInside()) return out;
  for (const auto& [bin, quota] : coverageRequired) {
    const auto ran = coverage.find(bin);
    const auto unanswered = coverageUnanswered.find(bin);
    const std::size_t inside = (ran == coverage.end() ? 0 : ran->second) -
                               (unanswered == coverageUnanswered.end() ? 0 : unanswered->second);
    if (inside < quota && !binOutside(bin)) out.push_back(bin);
  }
  return out;
}

std::string FamilyResult::notCertifiedWhy() const {
  if (unwaivedFailures() > 0 || !coverageGaps.empty()) return {};
  if (counts.of(Outcome::Pass) == 0) {
    if (waived.failures() > 0) return "nothing inside the envelope passed; every failure waived";
    if (!notRunWhy.empty()) return notRunWhy;
    return counts.total() == 0 ? "no case ran" : "nothing inside the envelope ran";
  }
  if (counts.workPasses() == 0) {
    if (counts.trivialPasses == 0) return "only probe cases passed (a probe reports a reading)";
    return counts.probePasses == 0 ? "only no-op cases passed"
                                   : "only no-op and probe cases passed";
  }
  // Rejections show that the DUT validates; a family is certified for what it computes.
  const bool computed = std::any_of(properties.begin(), properties.end(), [](const auto& p) {
    return p.name != kRejectsIllegal && p.counts.workPasses() > 0;
  });
  if (!computed) return "only the rejection of illegal programs passed";
  return {};
}

std::optional<double> FamilyResult::casesPerSecond() const {
  double seconds = 0;
  std::size_t cases = 0;
  for (const PropertyResult& p : properties) {
    seconds += p.seconds;
    cases += p.counts.total();
  }
  if (cases == 0 || seconds <= 0 || counts.of(Outcome::NotSupported) == counts.total()) {
    return std::nullopt;
  }
  return static_cast<double>(cases) / seconds;
}

std::string FamilyResult::verdict() const {
  if (unwaivedFailures() > 0) return "nonconformant";
  if (!coverageGaps.empty()) return "nonconformant";
  if (!notCertifiedWhy().empty()) return "not certified";
  if (waived.failures() > 0) return "conformant_with_waivers";
  return provisional.empty() ? "conformant" : "conformant (provisional)";
}

std::vector<std::string> CertifyResult::certifiedFamilies() const {
  std::vector<std::string> out;
  for (const FamilyResult& f : families) {
    if (f.verdict().rfind("conformant", 0) == 0) out.push_back(f.name);
  }
  return out;
}

std::vector<std::string> CertifyResult::notCertifiedFamilies() const {
  std::vector<std::string> out;
  for (const FamilyResult& f : families) {
    if (f.verdict() == "not certified") out.push_back(f.name + " (" + f.notCertifiedWhy() + ")");
  }
  for (const std::string& n : notImplemented) out.push_back(n + " (not in this version)");
  return out;
}

bool CertifyResult::conformant() const {
  if (interrupted || !stoppedEarly.empty() || !internalError.empty()) return false;
  if (!inputErrors.empty()) return false;
  for (const FamilyResult& f : families) {
    if (f.verdict() == "nonconformant") return false;
  }
  // Nothing certified proves nothing (architecture.md habit 9): no-op passes and NotSupported cases
  // alone never make a DUT conformant.
  return !certifiedFamilies().empty();
}

std::string CertifyResult::verdict() const {
  // A run that did not finish (a signal, a DUT given up on, an internal error) is no certificate.
  if (interrupted || !stoppedEarly.empty() || !internalError.empty()) return "nonconformant";
  for (const FamilyResult& f : families) {
    if (f.verdict() == "nonconformant") return "nonconformant";
  }
  if (!conformant()) return "not certified";
  return waivedCases() > 0 ? "conformant_with_waivers" : "conformant";
}

std::size_t CertifyResult::waivedCases() const {
  std::size_t n = 0;
  for (const FamilyResult& f : families) n += f.waived.failures();
  return n;
}

std::size_t FamilyResult::outsideEnvelope() const {
  std::size_t n = 0;
  for (const auto& [reason, cases] : notSupportedReasons) {
    if (outsideDeclaredEnvelope(reason)) n += cases;
  }
  return n;
}

std::string CertifyResult::unfinished() const {
  if (interrupted) return "INTERRUPTED";
  if (!stoppedEarly.empty()) return "RUN STOPPED";
  if (!internalError.empty()) return "INTERNAL ERROR";
  return {};
}

std::string CertifyResult::reportKind() const {
  if (replayCheck()) return "replay";
  if (!certifies()) return "fuzz";
  return scope.complete && unfinished().empty() ? "certificate" : "partial_run";
}

std::string CertifyResult::reportName() const {
  const std::string kind = reportKind();
  if (kind == "replay") return "replay (not a certificate)";
  if (kind == "fuzz") return "fuzz report";
  return kind == "certificate" ? "certificate" : "partial run";
}

std::string CertifyResult::headline() const {
  auto join = [](const std::vector<std::string>& names) {
    std::string s;
    for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
    return s;
  };
  const bool fuzz = !certifies();
  const std::string stop = unfinished();
  std::size_t cases = 0, notSupported = 0;
  std::vector<std::string> bad, good;      // good: certified, a provisional one marked so
  std::vector<std::string> clean, waived;  // good, split: without and with waived failures
  for (const FamilyResult& f : families) {
    cases += f.counts.total();
    notSupported += f.counts.of(Outcome::NotSupported);
    const std::string v = f.verdict();
    if (v == "nonconformant") bad.push_back(f.name);
    if (v.rfind("conformant", 0) == 0) {
      good.push_back(f.name + (f.provisional.empty() ? "" : " (provisional)"));
      (v == "conformant_with_waivers" ? waived : clean).push_back(good.back());
    }
  }
  // A certificate covers the profile it ran on, and says which: the DUT may declare others.
  std::string onProfile;
  if (!vectorSet) {
    onProfile = " on profile " + profilesText();
  } else if (!vectorSet->profiles.empty()) {
    onProfile =
        (vectorSet->profiles.size() == 1 ? " on profile " : " on profiles ") + profilesText();
  }
  // What ran: a case the DUT did not support checked nothing, so it is counted apart.
  const std::string ran =
      std::to_string(cases - notSupported) + " case(s) run" +
      (notSupported > 0 ? " (" + std::to_string(notSupported) + " more not supported by the DUT)"
                        : "");
  std::string out;
  if (!stop.empty() || !scope.complete) {
    // What did not finish or was filtered leads; then what the cases that ran showed.
    std::vector<std::string> lead;
    if (!stop.empty()) lead.push_back(stop);
    if (!scope.complete) lead.push_back("PARTIAL RUN (" + join(scope.filters) + ")");
    out = join(lead) + ", not a certificate; what ran ";
    if (fuzz || !stop.empty()) {
      out += (bad.empty() ? "found no failure in " : "found failures in ") + ran;
    } else {
      out += "is " + verdict();
    }
  } else if (replayCheck()) {
    const std::string why =
        " (a replay of published expectations, which a DUT that reads the set also meets: a "
        "regression check, not a certificate; certify draws fresh cases)";
    if (!bad.empty()) {
      out = "REPLAY FAILED in " + ran + why;
    } else if (certifiedFamilies().empty()) {
      out = "NOTHING CHECKED in " + ran + why;
    } else if (!inputErrors.empty()) {  // said below: the rows they hold did not replay
      out = "REPLAY INCOMPLETE in " + ran + why;
    } else {
      out = "REPLAY PASSED in " + ran + why;
    }
  } else if (fuzz) {
    if (!bad.empty()) {
      out = "FAILURES FOUND in " + ran + " (not a certificate)";
    } else if (conformant()) {
      out = "NO FAILURE FOUND in " + ran + " (coverage not checked: not a certificate)";
    } else {
      out = "NOTHING CHECKED in " + ran + " (not a certificate)";
    }
  } else if (verdict() == "nonconformant") {
    out = "NONCONFORMANT" + onProfile;
  } else if (conformant()) {
    out = (waivedCases() > 0 ? "CONFORMANT WITH WAIVERS" : "CONFORMANT") + onProfile + " for " +
          join(good);
    // An exported set that holds part of its source's cases certifies that part only.
    if (vectorSet && !vectorSet->subset.empty()) out += ", on a subset (" + vectorSet->subset + ")";
    // A family the DUT's declarations narrowed (data types, memories, limits, validation) is
    // certified only inside them: the headline says how much of it that was.
    std::vector<std::string> narrowed;
    for (const FamilyResult& f : families) {
      const std::size_t outside = f.outsideEnvelope();
      if (outside == 0 || f.verdict().rfind("conformant", 0) != 0) continue;
      std::string line = f.name + " ran " +
                         std::to_string(f.counts.total() - f.counts.of(Outcome::NotSupported)) +
                         " of its " + std::to_string(f.counts.total()) + " cases, " +
                         std::to_string(outside) + " outside the envelope";
      if (const std::size_t left = f.binsOutside().size(); left > 0) {
        line += ", " + std::to_string(left) + " of its " +
                std::to_string(f.coverageRequired.size()) + " required bins left out";
      }
      narrowed.push_back(std::move(line));
    }
    std::vector<std::string> limits;
    for (const dut::FieldLimit& l : capabilities.limits) limits.push_back(l.text);
    if (!limits.empty()) narrowed.push_back("limits: " + join(limits));
    if (!narrowed.empty()) {
      out += " within the declared envelope (";
      for (std::size_t i = 0; i < narrowed.size(); ++i) out += (i == 0 ? "" : "; ") + narrowed[i];
      out += ")";
    }
  } else {
    out = "NOT CERTIFIED" + onProfile;
  }
  if (!bad.empty()) out += (fuzz ? "; failures in: " : "; nonconformant: ") + join(bad);
  // A certificate of a lighter draw than certify's default (level full, sizes mixed) rests on
  // less: said here, not only in the run's options.
  if (command == "certify" && stop.empty() && scope.complete && conformant()) {
    std::vector<std::string> lighter;
    if (level == Level::Smoke) lighter.push_back("level smoke");
    if (!draws.sizes.empty() && draws.sizes != gen::nameOf(gen::Sizes::Mixed)) {
      lighter.push_back("sizes " + draws.sizes);
    }
    if (!lighter.empty()) {
      out += "; drawn at " + join(lighter) +
             " (certify's default, level full with sizes mixed, "
             "draws more)";
    }
  }
  if (const std::size_t waived = waivedCases(); waived > 0) {
    std::vector<std::string> names;
    for (const FamilyResult& f : families) {
      if (f.waived.failures() > 0) names.push_back(f.name);
    }
    out += "; " + std::to_string(waived) + " failing case(s) waived in " + join(names);
  }
  if (!fuzz && scope.complete && verdict() == "nonconformant" && !good.empty()) {
    // A run that did not finish certifies nothing: its families only failed nowhere so far. A
    // family whose failures were all waived is said to be so, never plain "conformant".
    if (!clean.empty()) {
      out += (stop.empty() ? "; conformant: " : "; no failure so far in: ") + join(clean);
    }
    if (!waived.empty()) {
      out += (stop.empty() ? "; conformant with waivers: " : "; only waived failures so far in: ") +
             join(waived);
    }
  }
  // Not-certified families grouped by why, in the order the reasons first appear.
  std::vector<std::pair<std::string, std::vector<std::string>>> byWhy;
  auto add = [&byWhy](const std::string& why, const std::string& name) {
    auto it =
        std::find_if(byWhy.begin(), byWhy.end(), [&](const auto& g) { return g.first == why; });
    if (it == byWhy.end()) it = byWhy.insert(byWhy.end(), {why, {}});
    it->second.push_back(name);
  };
  for (const FamilyResult& f : families) {
    if (const std::string why = f.notCertifiedWhy(); !why.empty()) add(why, f.name);
  }
  for (const std::string& n : notImplemented) add("not in this version", n);
  const char* notDone = fuzz ? "; not checked (" : "; not certified (";
  for (const auto& [why, names] : byWhy) out += notDone + why + "): " + join(names);
  if (!inputErrors.empty()) {
    out += "; not certified: " + std::to_string(inputErrors.size()) +
           " input error(s), the rows they hold were not replayed as published";
  }
  return out;
}

std::string CertifyResult::profilesText() const {
  if (!vectorSet) return std::string(isa::profile(profile).name);
  std::string s;
  for (const std::string& p : vectorSet->profiles) s += (s.empty() ? "" : ", ") + p;
  return s.empty() ? "none (no row was read)" : s;
}

std::optional<CaseReport> runCase(const std::string& family, const Property& prop, dut::Dut& dut,
                                  std::uint64_t seed, std::size_t index,
                                  Clock::duration shrinkBudget, const std::string& unsupported,
                                  std::string& internalError, const std::string& reproduce,
                                  const std::atomic<bool>* stop) {
  if (!unsupported.empty()) {
    return CaseReport{{Outcome::NotSupported, unsupported, {}}, {}, {}, 0, std::nullopt};
  }
  const std::string where = family + "/" + prop.name() + " case " + std::to_string(index) + ": ";
  const auto stopped = [stop] { return stop != nullptr && stop->load(); };
  try {
    CaseReport r = prop.run(dut, seed, index, shrinkBudget, stop);
    if (r.verdict.outcome == Outcome::Pass && index % kRerunEvery == 0 && !stopped()) {
      r.reran = true;
      if (std::optional<Verdict> again = prop.rerun(dut, seed, index)) {
        r.verdict = std::move(*again);
        if (r.verdict.outcome != Outcome::Nondeterministic) {
          // A DUT that broke: the case is that failure, kept as a vector like every other one.
          r.vector = prop.vectorCase(seed, index);
        }
      }
    }
    // A DUT that cannot run anything (it did not start) ran none of the case: the case's
    // coverage bins were not hit.
    if (r.verdict.outcome == Outcome::AdapterError && dut.broken()) r.tags.clear();
    r.cutShort = stopped();
    return r;
  } catch (const std::exception& e) {
    internalError = where + e.what() + " (reproduce: " + reproduce + ")";
  } catch (...) {
    internalError = where + "an exception of unknown type (reproduce: " + reproduce + ")";
  }
  return std::nullopt;
}

dut::Capabilities declaredCapabilities(const dut::Dut& dut) {
  dut::Capabilities caps = dut.capabilities();
  if (const std::optional<std::string> broken = dut.broken()) {
    caps.notDeclared = "the DUT declared nothing: " + *broken;
  }
  return caps;
}

namespace {

/// Why certify does not measure the arithmetic fingerprint, or empty when it does: only for a run
/// that includes the mmad family and a DUT that declares float Mmad.
std::string noFingerprint(const dut::Capabilities& caps, const RunOptions& o, bool halted) {
  if (halted) return "the run did not finish";
  if (o.caseIndex || o.property) return "a run filtered by --property or --case";
  if (!o.families.empty() &&
      std::find(o.families.begin(), o.families.end(), "mmad") == o.families.end()) {
    return "the run left out the mmad family (--family)";
  }
  const bool mmad = std::find(caps.instructions.begin(), caps.instructions.end(),
                              isa::Mmad::kOpcode) != caps.instructions.end();
  const bool floats = std::any_of(caps.dtypes.begin(), caps.dtypes.end(), [](isa::DType t) {
    return t == isa::DType::F16 || t == isa::DType::BF16 || t == isa::DType::F32;
  });
  if (!mmad || !floats) return "the DUT declares no float Mmad (mmad with f16, bf16 or f32)";
  return {};
}

std::string reproduceOf(const RunOptions& o, const std::string& family, const std::string& property,
                        std::size_t index) {
  return reproduceCommand({o.dutSpec, o.profile, o.seed, o.sizes, o.observable, o.given}, family,
                          property, index);
}

}  // namespace

std::string reproduceCommand(const ReproduceContext& run, const std::string& family,
                             const std::string& property, std::size_t index) {
  std::ostringstream os;
  os << "cubecheck certify --dut " << dut::singleQuoted(run.dutSpec) << " --profile "
     << isa::profile(run.profile).name << " --family " << family << " --property " << property
     << " --seed " << run.seed;
  // The case at an index is drawn from the size spread too: a nightly run's default (large) and
  // any other --sizes must go with it, or the line reruns another case.
  if (run.sizes != gen::Sizes::Mixed) os << " --sizes " << gen::nameOf(run.sizes);
  os << " --case " << index;
  if (!run.observable.empty()) os << " --observable " << run.observable;
  if (!run.given.empty()) os << " --given " << run.given;
  return os.str();
}

void keepFreedMemoryForReuse() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
}

CertifyResult certify(dut::Dut& dut, const RunOptions& o) {
  const Clock::time_point start = Clock::now();
  CertifyResult result;
  result.dutSpec = o.dutSpec;
  result.capabilities = declaredCapabilities(dut);
  result.profile = o.profile;
  result.level = o.level;
  result.seed = o.seed;
  result.draws.sizes = gen::nameOf(o.sizes);
  for (const std::string& f : o.families) result.scope.filters.push_back("--family " + f);
  if (o.property) result.scope.filters.push_back("--property " + *o.property);
  if (o.caseIndex) result.scope.filters.push_back("--case " + std::to_string(*o.caseIndex));
  result.scope.complete = result.scope.filters.empty();

  std::vector<std::string> names = o.families;
  if (names.empty()) {
    for (std::string_view n : kFamilyNames) names.emplace_back(n);
  }
  Clock::time_point lastProgress = start;
  FailureStreak streak;
  bool halt = false;              // interrupted, given up on the DUT, or an internal error
  IndirectObservation view(dut);  // L0A/L0B through Mmad where the DUT cannot observe them
  for (std::size_t familyIndex = 0; familyIndex < names.size(); ++familyIndex) {
    const std::string& name = names[familyIndex];
    if (halt) break;
    std::optional<Family> family = makeFamily(name, o.profile, o.sizes);
    if (!family) {
      result.notImplemented.push_back(name);
      continue;
    }
    FamilyResult fr;
    fr.name = family->name;
    fr.openPoints = family->openPoints;
    fr.provisional = family->provisional;
    fr.notRunWhy = family->unsupported;  // the profile lacks the family: why, and which profile
    ReachRecorder recorder(view, fr.reach, o.profile);
    // Runs case i of property `prop` and counts it in `pr` (and in fr); sets halt when the run
    // must stop.
    auto runOne = [&](const Property& prop, PropertyResult& pr, std::size_t i) {
      std::optional<CaseReport> ran =
          runCase(fr.name, prop, recorder, o.seed, i, o.shrinkBudget, family->unsupported,
                  result.internalError, reproduceOf(o, fr.name, prop.name(), i), o.stop);
      if (!ran) {
        halt = true;  // cubecheck's own defect, not the DUT's: keep what ran, say what broke
        return;
      }
      CaseReport& cr = *ran;
      if (cr.cutShort) {  // the stop's doing, not the DUT's: counted in no outcome
        view.takeUsed();
        ++result.casesCutShort;
        result.interrupted = halt = true;
        return;
      }
      if (cr.reran) ++result.reruns;
      if (cr.verdict.outcome == Outcome::Nondeterministic) ++result.rerunsDiffering;
      if (streak.record(cr.verdict.outcome)) {
        result.stoppedEarly = FailureStreak::reason(cr.verdict.detail);
        halt = true;
      }
      const std::set<std::string> indirect = view.takeUsed();
      if (cr.verdict.outcome != Outcome::NotSupported) {
        for (const std::string& u : indirect) fr.indirect[u] += 1;
      }
      if (fr.record(pr, cr.verdict, cr.tags)) {
        // The root cause is looked for in the failures a report shows, not in every one, unless
        // a waiver needs it; before the case's vector moves into the failure, as fuzz does, or
        // the signature would name no instruction kind.
        std::string signature;
        if (fr.failures.size() < FamilyResult::kKeptFailures ||
            (o.waivers != nullptr && o.waivers->wantsSignature(fr.name))) {
          signature = signatureOf(fr.name, cr, &view);
          // What the localising runs rested on is no part of a verdict: dropped, not charged to
          // the next case (and a run's counts stay the sum of its cases' run alone, however many
          // failures it localises).
          view.takeUsed();
        }
        Failure failure{prop.name(),        i,
                        cr.verdict.outcome, cr.caseText,
                        cr.verdict.detail,  reproduceOf(o, fr.name, prop.name(), i),
                        cr.shrinkSteps,     std::move(cr.vector)};
        if (cr.shrinkCapped) failure.shrinkCapMs = o.shrinkBudget.count();
        failure.signature = std::move(signature);
        if (o.waivers != nullptr) o.waivers->apply(fr.name, fr, pr, failure, cr.tags);
        if (o.onFailure) o.onFailure(fr.name, failure);
        fr.keep(std::move(failure));
      }
    };
    for (std::size_t propIndex = 0; propIndex < family->properties.size(); ++propIndex) {
      const auto& prop = family->properties[propIndex];
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
        runOne(*prop, pr, i);
        if (o.progress && (i & 63) == 0) {
          const Clock::time_point now = Clock::now();
          if (now - lastProgress > std::chrono::seconds(1)) {
            lastProgress = now;
            const double secs = std::chrono::duration<double>(now - pstart).count();
            const std::size_t done = i - first + 1, count = last - first;
            const double rate = static_cast<double>(done) / std::max(secs, 1e-9);
            // Where the run is (nu11 F16): family and property positions, and the time the
            // property's cases left take at its rate so far.
            std::ostringstream os;
            os << '[' << familyIndex + 1 << '/' << names.size() << "] " << fr.name << ' '
               << prop->name() << " (property " << propIndex + 1 << '/' << family->properties.size()
               << "): " << done << '/' << count << " cases, "
               << fr.failures.size() + fr.failuresDropped << " failed, " << static_cast<long>(rate)
               << " cases/s, ~"
               << static_cast<long>(static_cast<double>(count - done) / std::max(rate, 1e-9))
               << " s left in it";
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
      RequiredCoverage required = requiredCoverage(*family, o.level);
      fr.coverageQuota = required.quota;
      fr.coverageRequired = std::move(required.bins);
      // The level's draws reach a bin only by chance (a kind one draw in eight picks, and only
      // at large sizes): the properties in turn draw on past their cases, and a draw tagged with
      // a bin still short of its quota is run, until none is short. Only draws are spent on the
      // others. A mutant run that already failed needs no more cases.
      std::vector<std::string> shortBins = fr.binsShort();
      auto more = [&] {
        return !shortBins.empty() && !halt &&
               !(o.stopAtFirstFailure && fr.casesToFirstFailure > 0) &&
               fr.properties.size() == family->properties.size();
      };
      for (std::size_t j = 0; j < kTopUpDraws && more(); ++j) {
        for (std::size_t p = 0; p < family->properties.size() && more(); ++p) {
          if (o.stop != nullptr && o.stop->load()) {
            result.interrupted = halt = true;
            break;
          }
          const Property& prop = *family->properties[p];
          const std::size_t i = prop.tableSize() + casesAt(o.level, prop.randomCases()) + j;
          std::vector<std::string> tags;
          try {
            tags = prop.tagsAt(o.seed, i);
          } catch (const std::exception& e) {
            result.internalError = fr.name + "/" + prop.name() + " case " + std::to_string(i) +
                                   ": " + e.what() + " (drawing its coverage tags; reproduce: " +
                                   reproduceOf(o, fr.name, prop.name(), i) + ")";
            halt = true;
            break;
          }
          const bool fills = std::any_of(tags.begin(), tags.end(), [&](const std::string& t) {
            return std::find(shortBins.begin(), shortBins.end(), t) != shortBins.end();
          });
          if (!fills) continue;
          const Clock::time_point pstart = Clock::now();
          runOne(prop, fr.properties[p], i);
          fr.properties[p].seconds += std::chrono::duration<double>(Clock::now() - pstart).count();
          ++fr.topUpCases;
          shortBins = fr.binsShort();
        }
      }
      if (halt) {
        fr.coverageRequired.clear();  // a halted run checks no coverage
      } else {
        fr.findCoverageGaps();
      }
    }
    fr.openPoints = openPointsThatRan(*family, fr);
    result.families.push_back(std::move(fr));
  }
  if (o.waivers != nullptr) o.waivers->report(result);
  // The arithmetic fingerprint: reported beside the verdict, never part of it. The mutant zoo
  // (stopAtFirstFailure) only times kills and leaves it out.
  if (!o.stopAtFirstFailure) {
    result.fingerprintWhyNot = noFingerprint(result.capabilities, o, halt);
    if (result.fingerprintWhyNot.empty()) {
      try {
        result.fingerprint = fingerprint(dut, o.profile);
      } catch (const std::exception& e) {
        result.fingerprintWhyNot = std::string("the experiments could not run: ") + e.what();
      }
    }
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace cubecheck::conf
