#include "conformance/fuzz.hpp"

#include <algorithm>
#include <set>
#include <sstream>

#include "conformance/dut_health.hpp"
#include "conformance/families.hpp"

namespace cubecheck::conf {

std::string signatureOf(const std::string& family, const CaseReport& r,
                        const std::string& property) {
  std::vector<std::string> tags = r.tags;
  std::sort(tags.begin(), tags.end());
  std::ostringstream os;
  os << family << '/' << property << " [";
  for (std::size_t i = 0; i < tags.size(); ++i) os << (i ? " " : "") << tags[i];
  os << "] ";
  // The first differing element names its memory and fractal: the closest thing to a stack trace.
  const std::string& d = r.verdict.detail;
  const std::size_t line = d.find("\n  ");
  if (r.verdict.outcome == Outcome::Mismatch && line != std::string::npos) {
    const std::size_t start = line + 3;
    const std::size_t fractal = d.find(" fractal ", start);
    const std::size_t plus = d.find('+', start);
    if (fractal != std::string::npos && plus != std::string::npos && plus < fractal) {
      const std::size_t end = d.find(' ', fractal + 9);
      os << d.substr(start, plus - start) << d.substr(fractal, end - fractal);
      return os.str();
    }
  }
  os << nameOf(r.verdict.outcome) << ": " << d.substr(0, d.find('\n')).substr(0, 60);
  return os.str();
}

CertifyResult fuzz(dut::Dut& dut, const FuzzOptions& o) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  CertifyResult result;
  result.command = "fuzz";
  result.dutSpec = o.dutSpec;
  result.capabilities = dut.capabilities();
  result.profile = o.profile;
  result.level = Level::Full;
  result.seed = o.seed;

  struct Slot {
    std::size_t family;  // index into result.families and families
    std::size_t property;
  };
  std::vector<Family> families;
  std::vector<Slot> slots;
  for (std::string_view name : kFamilyNames) {
    if (!o.families.empty() &&
        std::find(o.families.begin(), o.families.end(), name) == o.families.end()) {
      continue;
    }
    std::optional<Family> f = makeFamily(name, o.profile);
    if (!f) {
      result.notImplemented.emplace_back(name);
      continue;
    }
    if (!f->unsupported.empty()) continue;  // nothing to fuzz on this profile
    FamilyResult fr;
    fr.name = f->name;
    fr.openPoints = f->openPoints;
    fr.provisional = f->provisional;
    for (std::size_t p = 0; p < f->properties.size(); ++p) {
      fr.properties.push_back({f->properties[p]->name(), f->properties[p]->summary(), {}, 0});
      slots.push_back({families.size(), p});
    }
    families.push_back(std::move(*f));
    result.families.push_back(std::move(fr));
  }

  std::set<std::string> seen;
  Clock::time_point lastProgress = start;
  std::uint64_t cases = 0;
  FailureStreak streak;
  for (std::uint64_t round = 0; !slots.empty(); ++round) {
    const std::uint64_t k = round * o.shardCount + o.shardIndex;
    if (o.maxCases && k >= *o.maxCases) break;
    bool stopped = false;
    for (const Slot& s : slots) {
      if (Clock::now() - start >= o.budget || (o.stop != nullptr && o.stop->load())) {
        stopped = true;
        break;
      }
      const Property& prop = *families[s.family].properties[s.property];
      FamilyResult& fr = result.families[s.family];
      PropertyResult& pr = fr.properties[s.property];
      const std::size_t index = prop.tableSize() + k;
      const Clock::time_point t0 = Clock::now();
      CaseReport cr = prop.run(dut, o.seed, index, o.shrinkBudget);
      pr.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
      ++cases;
      if (streak.record(cr.verdict.outcome)) {
        result.stoppedEarly = FailureStreak::reason(cr.verdict.detail);
        stopped = true;
      }
      if (fr.record(pr, cr.verdict, cr.tags)) {
        const std::string sig = signatureOf(fr.name, cr, prop.name());
        if (seen.insert(sig).second) {
          std::ostringstream cmd;
          cmd << "cubecheck certify --dut '" << o.dutSpec << "' --profile "
              << isa::profile(o.profile).name << " --family " << fr.name << " --property "
              << prop.name() << " --seed " << o.seed << " --case " << index;
          Failure f{prop.name(),       index,     cr.verdict.outcome, cr.caseText,
                    cr.verdict.detail, cmd.str(), cr.shrinkSteps,     std::move(cr.vector)};
          if (o.onNewFailure) o.onNewFailure(fr.name, f);
          fr.keep(std::move(f));
        }
      }
      if (o.progress && Clock::now() - lastProgress > std::chrono::seconds(1)) {
        lastProgress = Clock::now();
        const double secs = std::chrono::duration<double>(lastProgress - start).count();
        const double left = std::chrono::duration<double>(o.budget).count() - secs;
        std::ostringstream os;
        os << "fuzz: " << cases << " cases (" << static_cast<long>(cases / std::max(secs, 1e-9))
           << "/s), " << seen.size() << " distinct failures, "
           << static_cast<long>(std::max(left, 0.0)) << " s left";
        o.progress(os.str());
      }
      if (stopped) break;
    }
    if (stopped) break;
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace cubecheck::conf
