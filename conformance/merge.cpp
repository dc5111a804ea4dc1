#include "conformance/merge.hpp"

#include <algorithm>
#include <map>

namespace cubecheck::conf {
namespace {

template <class Map>
void addCounts(Map& into, const Map& from) {
  for (const auto& [key, n] : from) into[key] += n;
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

/// A shard's family added into the merged one (see mergeResults). `gapBins` collects the bins
/// any shard listed as gaps; the gaps themselves are found once every shard is in.
void addFamily(FamilyResult& into, const FamilyResult& f, std::vector<std::string>& gapBins) {
  for (const PropertyResult& p : f.properties) {
    auto it = std::find_if(into.properties.begin(), into.properties.end(),
                           [&p](const PropertyResult& q) { return q.name == p.name; });
    if (it == into.properties.end()) {
      into.properties.push_back({p.name, p.summary, {}, 0});
      it = into.properties.end() - 1;
    }
    it->counts.add(p.counts);
    it->waived.add(p.waived);
    it->seconds += p.seconds;
  }
  into.counts.add(f.counts);
  into.waived.add(f.waived);
  addCounts(into.waivedReasons, f.waivedReasons);
  addCounts(into.coverageWaived, f.coverageWaived);
  addCounts(into.coverage, f.coverage);
  addCounts(into.coverageNotRun, f.coverageNotRun);
  addCounts(into.coveragePassed, f.coveragePassed);
  addCounts(into.notSupportedReasons, f.notSupportedReasons);
  for (const auto& [key, example] : f.notSupportedExamples) {
    into.notSupportedExamples.emplace(key, example);  // the first, as record() keeps it
  }
  addCounts(into.declinedReasons, f.declinedReasons);
  addCounts(into.probes, f.probes);
  addCounts(into.indirect, f.indirect);
  for (const Failure& x : f.failures) into.keep(x);
  into.failuresDropped += f.failuresDropped;
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

/// Throws unless `shards` are every shard of one run, each once.
void checkOneRun(const std::vector<CertifyResult>& shards, const std::vector<std::string>& names) {
  if (shards.empty()) throw MergeError("no reports to merge");
  auto name = [&names](std::size_t i) {
    return i < names.size() ? names[i] : "report " + std::to_string(i + 1);
  };
  const CertifyResult& first = shards[0];
  std::map<unsigned, std::size_t> seen;  // shard index -> which shard holds it
  for (std::size_t i = 0; i < shards.size(); ++i) {
    const CertifyResult& s = shards[i];
    const std::pair<std::string, std::string> identity[] = {
        {"seed", std::to_string(s.seed) + " instead of " + std::to_string(first.seed)},
        {"level", std::string(nameOf(s.level)) + " instead of " + std::string(nameOf(first.level))},
        {"dut", s.dutSpec + " instead of " + first.dutSpec},
        {"profile", std::string(isa::profile(s.profile).name) + " instead of " +
                        std::string(isa::profile(first.profile).name)},
        // Another version may draw other cases for the same seed, or judge by another spec.
        {"tool_version", s.toolVersion + " instead of " + first.toolVersion},
        {"spec_sha256", s.specSha256 + " instead of " + first.specSha256}};
    const bool same[] = {s.seed == first.seed,
                         s.level == first.level,
                         s.dutSpec == first.dutSpec,
                         s.profile == first.profile,
                         s.toolVersion == first.toolVersion,
                         s.specSha256 == first.specSha256};
    for (std::size_t k = 0; k < std::size(same); ++k) {
      if (!same[k]) {
        throw MergeError(name(i) + ": from another run than " + name(0) + ": " + identity[k].first +
                         " " + identity[k].second);
      }
    }
    if (s.shardCount != first.shardCount) {
      throw MergeError(name(i) + ": shard of " + std::to_string(s.shardCount) + " where " +
                       name(0) + " is a shard of " + std::to_string(first.shardCount));
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

}  // namespace

CertifyResult mergeResults(std::vector<CertifyResult> shards,
                           const std::vector<std::string>& names) {
  checkOneRun(shards, names);
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
  out.scope = mergedScope(shards);
  // A replay's set and its input errors are never dropped: any error keeps the merge uncertified.
  out.vectorSet = first.vectorSet;
  for (const CertifyResult& s : shards) {
    out.inputErrors.insert(out.inputErrors.end(), s.inputErrors.begin(), s.inputErrors.end());
  }
  std::map<std::string, std::vector<std::string>> gapBins;  // family -> bins listed as gaps
  std::vector<std::string> stoppedEarly, internalErrors;
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
      addFamily(*it, f, gapBins[f.name]);
    }
    for (const std::string& n : s.notImplemented) addOnce(out.notImplemented, n);
    out.interrupted = out.interrupted || s.interrupted;
    if (!s.stoppedEarly.empty()) addOnce(stoppedEarly, s.stoppedEarly);
    if (!s.internalError.empty()) addOnce(internalErrors, s.internalError);
    out.seconds = std::max(out.seconds, s.seconds);  // shards run side by side
    out.reruns += s.reruns;
    out.rerunsDiffering += s.rerunsDiffering;
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
        it->cases += w.cases;
        it->expired = it->expired || w.expired;
        it->otherDut = it->otherDut || w.otherDut;
      }
    }
  }
  if (out.fingerprint) out.fingerprintWhyNot.clear();
  out.stoppedEarly = joined(stoppedEarly);
  out.internalError = joined(internalErrors);
  for (FamilyResult& f : out.families) {
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
