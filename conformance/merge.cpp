#include "conformance/merge.hpp"

#include <algorithm>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "conformance/waivers.hpp"
#include "dut_adapters/sanitise.hpp"

namespace cubecheck::conf {
namespace {

/// `into` += `n`, refused past kMaxCount: a sum wrapped past 2^64 would count fewer cases (a
/// failure count summed to 0) than the shards ran. `field` names the merged report's field.
void add(std::size_t& into, std::size_t n, const std::string& field) {
  if (into > kMaxCount || n > kMaxCount - into) {
    throw MergeError("the shards' " + field + " add up past 2^53, more than any run counts: " +
                     "a shard's count was edited");
  }
  into += n;
}

void add(Counts& into, const Counts& from, const std::string& field) {
  for (std::size_t o = 0; o < into.byOutcome.size(); ++o) {
    add(into.byOutcome[o], from.byOutcome[o],
        field + "." + std::string(countKey(static_cast<Outcome>(o))));
  }
  add(into.trivialPasses, from.trivialPasses, field + ".passed_no_op");
  add(into.probePasses, from.probePasses, field + ".probe_cases");
}

template <class Map>
void addCounts(Map& into, const Map& from, const std::string& field) {
  for (const auto& [key, n] : from) add(into[key], n, field + "." + key);
}

/// `item` appended to `list` unless it is there already.
template <class T>
void addOnce(std::vector<T>& list, const T& item) {
  if (std::find(list.begin(), list.end(), item) == list.end()) list.push_back(item);
}

/// "a; b": the distinct reasons of the shards (stopped early, internal error).
std::string joined(const std::vector<std::string>& reasons) {
  std::string out;
  for (const std::string& r : reasons) out += (out.empty() ? "" : "; ") + r;
  return out;
}

/// `x` as report.json writes a number of seconds, without trailing noise ("3600", "0.5").
std::string formatted(double x) {
  std::ostringstream os;
  os << std::setprecision(15) << x;
  return os.str();
}

/// A shard's family added into the merged one (see mergeResults), `field` its place in the
/// merged report ("families[2]"). `gapBins` collects the bins any shard listed as gaps; the gaps
/// themselves are found once every shard is in.
void addFamily(FamilyResult& into, const FamilyResult& f, const std::string& field,
               std::vector<std::string>& gapBins) {
  for (const PropertyResult& p : f.properties) {
    auto it = std::find_if(into.properties.begin(), into.properties.end(),
                           [&p](const PropertyResult& q) { return q.name == p.name; });
    if (it == into.properties.end()) {
      into.properties.push_back({p.name, p.summary, {}, 0});
      it = into.properties.end() - 1;
    }
    const std::string at =
        field + ".properties[" + std::to_string(it - into.properties.begin()) + "]";
    add(it->counts, p.counts, at);
    add(it->waived, p.waived, at + ".waived");
    it->seconds += p.seconds;
  }
  add(into.counts, f.counts, field);
  add(into.waived, f.waived, field + ".waived");
  add(into.topUpCases, f.topUpCases, field + ".top_up_cases");
  addCounts(into.waivedReasons, f.waivedReasons, field + ".waived_reasons");
  addCounts(into.coverageWaived, f.coverageWaived, field + ".coverage_waived");
  addCounts(into.coverage, f.coverage, field + ".coverage");
  addCounts(into.coverageNotRun, f.coverageNotRun, field + ".coverage_not_run");
  addCounts(into.coveragePassed, f.coveragePassed, field + ".coverage_passed");
  addCounts(into.notSupportedReasons, f.notSupportedReasons, field + ".not_supported_reasons");
  for (const auto& [key, example] : f.notSupportedExamples) {
    into.notSupportedExamples.emplace(key, example);  // the first, as record() keeps it
  }
  addCounts(into.declinedReasons, f.declinedReasons, field + ".declined_reasons");
  addCounts(into.probes, f.probes, field + ".probes");
  addCounts(into.indirect, f.indirect, field + ".indirect_observations");
  for (const Failure& x : f.failures) into.keep(x);
  add(into.failuresDropped, f.failuresDropped, field + ".failures_not_listed");
  into.reach.merge(f.reach);
  into.coverageQuota = std::max(into.coverageQuota, f.coverageQuota);
  for (const auto& [bin, quota] : f.coverageRequired) {
    auto it = std::find_if(into.coverageRequired.begin(), into.coverageRequired.end(),
                           [&bin = bin](const auto& r) { return r.first == bin; });
    if (it == into.coverageRequired.end()) {
      into.coverageRequired.emplace_back(bin, quota);
    } else {
      it->second = std::max(it->second, quota);
    }
  }
  for (const auto& gap : f.coverageGaps) addOnce(gapBins, gap.first);
}

/// The merged run's scope: see mergeResults.
Scope mergedScope(const std::vector<CertifyResult>& shards) {
  Scope out;
  for (const CertifyResult& s : shards) {
    const std::string own =
        "--shard " + std::to_string(s.shardIndex) + "/" + std::to_string(s.shardCount);
    bool sharded = false;
    std::vector<std::string> rest;
    for (const std::string& f : s.scope.filters) {
      if (f == own && s.shardCount > 1) {
        sharded = true;
      } else {
        rest.push_back(f);
      }
    }
    out.complete = out.complete && (s.scope.complete || (sharded && rest.empty()));
    for (const std::string& f : rest) addOnce(out.filters, f);
  }
  return out;
}

/// "a b c", or "(none)" for an empty list.
template <class T, class Name>
std::string listed(const std::vector<T>& items, Name name) {
  std::string out;
  for (const T& x : items) out += (out.empty() ? "" : " ") + std::string(name(x));
  return out.empty() ? "(none)" : out;
}

/// What a shard must share with every other shard of its run, as (report.json field, value):
/// the run's identity, the DUT as it described itself, and every option that changes what is
/// drawn. Shards that differ in any of these did not split one run between them.
std::vector<std::pair<std::string, std::string>> runIdentity(const CertifyResult& s) {
  const dut::Capabilities& c = s.capabilities;
  auto same = [](const std::string& x) { return x; };
  auto profile = [](isa::ProfileId p) { return isa::profile(p).name; };
  auto memory = [](isa::Memory m) { return isa::nameOf(m); };
  // The scope's filters but the shard's own --shard I/N: --family and the like must agree.
  std::vector<std::string> filters;
  const std::string own =
      "--shard " + std::to_string(s.shardIndex) + "/" + std::to_string(s.shardCount);
  for (const std::string& f : s.scope.filters) {
    if (f != own) filters.push_back(f);
  }
  std::sort(filters.begin(), filters.end());
  std::vector<std::string> limits;
  for (const dut::FieldLimit& l : c.limits) limits.push_back(l.text);
  // The waivers in force, in file order (the first that matches waives a case), with what
  // report.json records of each: shards run under other waivers judged their failures apart.
  std::vector<std::string> waivers;
  for (const WaiverResult& w : s.waivers) {
    const Waiver& x = w.waiver;
    std::string text = "{dut " + x.dut + ", family " + x.family;
    for (const auto& [key, value] :
         {std::pair<std::string, std::string>{"property", x.property},
          {"signature", x.signature},
          {"outcome", x.outcome ? std::string(waivedOutcomeName(*x.outcome)) : ""},
          {"reason", x.reason},
          {"until", x.until}}) {
      if (!value.empty()) text += ", " + key + " " + value;
    }
    waivers.push_back(text + "}");
  }
  const Draws& d = s.draws;
  return {
      // A certificate's cases are not a fuzz run's, nor a replay's: a certify report merged with
      // fuzz shards would be a certificate of cases drawn without coverage.
      {"command", s.command},
      {"seed", std::to_string(s.seed)},
      {"level", std::string(nameOf(s.level))},
      {"dut", s.dutSpec},
      {"profile", std::string(isa::profile(s.profile).name)},
      // Another version may draw other cases for the same seed, or judge by another spec.
      {"tool_version", s.toolVersion},
      {"spec_sha256", s.specSha256},
      // The same --dut string may start another build of the DUT, declaring another envelope:
      // its shard tested something else.
      {"dut_capabilities.name", c.name},
      {"dut_capabilities.version", c.version},
      {"dut_capabilities.profiles", listed(c.profiles, profile)},
      {"dut_capabilities.instructions", listed(c.instructions, same)},
      {"dut_capabilities.dtypes", listed(c.dtypes, [](isa::DType t) { return isa::nameOf(t); })},
      {"dut_capabilities.observable", listed(c.observable, memory)},
      {"dut_capabilities.given", listed(c.given, memory)},
      {"dut_capabilities.rejects_illegal", c.rejectsIllegal ? "true" : "false"},
      {"envelope.limits", listed(limits, same)},
      {"envelope.not_declared", c.notDeclared.empty() ? "(none)" : c.notDeclared},
      // What is drawn: the sizes, the budgets (shards of a --cases N run split N between them;
      // shards of a --time run each spend the same time) and the filters.
      {"draws.sizes", d.sizes.empty() ? "(none)" : d.sizes},
      {"draws.case_budget", d.caseBudget ? std::to_string(*d.caseBudget) : "(none)"},
      {"draws.time_budget_seconds",
       d.timeBudgetSeconds ? formatted(*d.timeBudgetSeconds) : "(none)"},
      {"scope.filters", listed(filters, same)},
      {"waivers", listed(waivers, same)}};
}

/// Throws unless `shards` are every shard of one run, each once.
void checkOneRun(const std::vector<CertifyResult>& shards, const std::vector<std::string>& names) {
  if (shards.empty()) throw MergeError("no reports to merge");
  auto name = [&names](std::size_t i) {
    return i < names.size() ? names[i] : "report " + std::to_string(i + 1);
  };
  const CertifyResult& first = shards[0];
  const auto firstIdentity = runIdentity(first);
  std::map<unsigned, std::size_t> seen;  // shard index -> which shard holds it
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const CertifyResult& s = shards[i];
    if (s.shardCount != first.shardCount) {
      throw MergeError(name(i) + ": shard of " + std::to_string(s.shardCount) + " where " +
                       name(0) + " is a shard of " + std::to_string(first.shardCount));
    }
    const auto identity = runIdentity(s);
    for (std::size_t k = 0; k < identity.size(); ++k) {
      if (identity[k].second != firstIdentity[k].second) {
        // The values are a report's own text: shown as every DUT-given text is (sanitise.hpp).
        throw MergeError(name(i) + ": from another run than " + name(0) + ": " + identity[k].first +
                         " " + dut::printable(identity[k].second, 200) + " instead of " +
                         dut::printable(firstIdentity[k].second, 200) +
                         "; merge only the shards of one run: one DUT build, the same --seed, "
                         "--sizes, --cases, --time, --family and --waivers, one cubecheck build");
      }
    }
    if (const auto [it, fresh] = seen.emplace(s.shardIndex, i); !fresh) {
      throw MergeError(name(i) + ": shard " + std::to_string(s.shardIndex) + "/" +
                       std::to_string(s.shardCount) + " given twice (also " + name(it->second) +
                       ")");
    }
  }
  std::string missing;
  for (unsigned k = 0; k < first.shardCount; ++k) {
    if (!seen.count(k)) missing += (missing.empty() ? "" : ", ") + std::to_string(k);
  }
  if (!missing.empty()) {
    throw MergeError("shard(s) " + missing + " of " + std::to_string(first.shardCount) +
                     " missing: merge every shard of the run");
  }
}

/// Why the shards that ran no case though they had cases to draw leave a hole in the run: a
/// shard whose budget ran out before its first case (--time 0.001), or that stopped at once,
/// adds nothing, and the other shards' passes would otherwise certify the families without it.
/// A shard with nothing to draw is no hole: a --cases N run of more than N shards leaves shards
/// N and up nothing, and a run whose families have nothing to fuzz on the profile draws nothing.
std::vector<std::string> emptyShards(const std::vector<CertifyResult>& shards,
                                     const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const CertifyResult& s = shards[i];
    std::size_t cases = 0, properties = 0;
    for (const FamilyResult& f : s.families) {
      cases += f.counts.total();
      properties += f.properties.size();
    }
    const bool hadCases =
        properties > 0 && (!s.draws.caseBudget || s.shardIndex < *s.draws.caseBudget);
    if (cases > 0 || !hadCases) continue;
    out.push_back("shard " + std::to_string(s.shardIndex) + "/" + std::to_string(s.shardCount) +
                  " (" + (i < names.size() ? names[i] : "report " + std::to_string(i + 1)) +
                  ") ran no case though it had cases to draw" +
                  (s.draws.timeBudgetSeconds
                       ? " (--time " + formatted(*s.draws.timeBudgetSeconds) + " s)"
                       : std::string()) +
                  ": its share of the run is missing; run that shard again with a budget that "
                  "runs cases");
  }
  return out;
}

}  // namespace

CertifyResult mergeResults(std::vector<CertifyResult> shards,
                           const std::vector<std::string>& names) {
  checkOneRun(shards, names);
  std::vector<std::string> stoppedEarly = emptyShards(shards, names);
  // Shard order, not argument order: the merge is the same however the files were listed.
  std::stable_sort(
      shards.begin(), shards.end(),
      [](const CertifyResult& a, const CertifyResult& b) { return a.shardIndex < b.shardIndex; });
  const CertifyResult& first = shards[0];
  CertifyResult out;
  out.command = first.command;
  out.toolVersion = first.toolVersion;
  out.specSha256 = first.specSha256;
  out.dutSpec = first.dutSpec;
  out.capabilities = first.capabilities;
  out.profile = first.profile;
  out.level = first.level;
  out.seed = first.seed;
  out.draws = first.draws;
  out.scope = mergedScope(shards);
  // A replay's set and its input errors are never dropped: any error keeps the merge uncertified.
  out.vectorSet = first.vectorSet;
  for (const CertifyResult& s : shards) {
    out.inputErrors.insert(out.inputErrors.end(), s.inputErrors.begin(), s.inputErrors.end());
  }
  std::map<std::string, std::vector<std::string>> gapBins;  // family -> bins listed as gaps
  std::vector<std::string> internalErrors;
  // family -> why each shard certified nothing of it, and whether a shard's runner said why
  std::map<std::string, std::vector<std::string>> notRun;
  std::set<std::string> runnerSaid;
  for (const CertifyResult& s : shards) {
    for (const FamilyResult& f : s.families) {
      auto it = std::find_if(out.families.begin(), out.families.end(),
                             [&f](const FamilyResult& g) { return g.name == f.name; });
      if (it == out.families.end()) {
        FamilyResult fresh;
        fresh.name = f.name;
        fresh.openPoints = f.openPoints;
        fresh.provisional = f.provisional;
        it = out.families.insert(out.families.end(), std::move(fresh));
      }
      // A shard names the open points its cases that ran rest on: the merged run names every
      // shard's, in the family's order (each shard's list keeps it).
      for (std::size_t k = 0; k < f.openPoints.size(); ++k) {
        std::vector<std::string>& open = it->openPoints;
        if (std::find(open.begin(), open.end(), f.openPoints[k]) != open.end()) continue;
        const auto after =
            k == 0 ? open.begin() : std::find(open.begin(), open.end(), f.openPoints[k - 1]) + 1;
        open.insert(after, f.openPoints[k]);
      }
      addFamily(*it, f, "families[" + std::to_string(it - out.families.begin()) + "]",
                gapBins[f.name]);
      if (!f.notRunWhy.empty()) runnerSaid.insert(f.name);
      if (const std::string why = f.notCertifiedWhy(); !why.empty()) addOnce(notRun[f.name], why);
    }
    for (const std::string& n : s.notImplemented) addOnce(out.notImplemented, n);
    out.interrupted = out.interrupted || s.interrupted;
    add(out.casesCutShort, s.casesCutShort, "cases_cut_short");
    if (!s.stoppedEarly.empty()) addOnce(stoppedEarly, s.stoppedEarly);
    if (!s.internalError.empty()) addOnce(internalErrors, s.internalError);
    out.seconds = std::max(out.seconds, s.seconds);  // shards run side by side
    add(out.reruns, s.reruns, "determinism.rerun");
    add(out.rerunsDiffering, s.rerunsDiffering, "determinism.differing");
    // One DUT, one fingerprint: the first shard's that has one.
    if (!out.fingerprint && s.fingerprint) out.fingerprint = s.fingerprint;
    if (out.fingerprintWhyNot.empty()) out.fingerprintWhyNot = s.fingerprintWhyNot;
    // The same waiver in several shards: the cases it waived summed.
    for (const WaiverResult& w : s.waivers) {
      auto it = std::find_if(out.waivers.begin(), out.waivers.end(),
                             [&w](const WaiverResult& x) { return x.waiver == w.waiver; });
      if (it == out.waivers.end()) {
        out.waivers.push_back(w);
      } else {
        add(it->cases, w.cases, "waivers[" + std::to_string(it - out.waivers.begin()) + "].cases");
        it->expired = it->expired || w.expired;
        it->otherDut = it->otherDut || w.otherDut;
      }
    }
  }
  if (out.fingerprint) out.fingerprintWhyNot.clear();
  out.stoppedEarly = joined(stoppedEarly);
  out.internalError = joined(internalErrors);
  for (FamilyResult& f : out.families) {
    // Why no case of the family ran, as its shards said it (the profile lacks it, a budget ran
    // out), each reason once; without a shard's word the counts say it, as for any run.
    if (runnerSaid.count(f.name) > 0 && f.counts.of(Outcome::Pass) == 0) {
      f.notRunWhy = joined(notRun[f.name]);
    }
    // A bin a shard found short stays required, at the family's quota, even if no shard's
    // required list names it.
    for (const std::string& bin : gapBins[f.name]) {
      const bool required = std::any_of(f.coverageRequired.begin(), f.coverageRequired.end(),
                                        [&bin](const auto& r) { return r.first == bin; });
      if (!required) f.coverageRequired.emplace_back(bin, f.coverageQuota);
    }
    f.findCoverageGaps();
  }
  return out;
}

}  // namespace cubecheck::conf
