#include "conformance/fuzz.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "conformance/dut_health.hpp"
#include "conformance/families.hpp"

namespace cubecheck::conf {

std::string signatureOf(const std::string& family, const CaseReport& r,
                        const std::string& property) {
  std::ostringstream os;
  os << family << '/' << property;
  // The instruction kinds of the program (where the case is a vector): a pipeline that fails
  // only with a 3D load in it points elsewhere than one that fails with every program.
  if (r.vector) {
    std::set<std::string_view> kinds;
    for (const isa::Instruction& ins : r.vector->program.instructions) {
      // Register writes set state for what follows; whether a case writes the registers or
      // finds them preset is a parameter of the case, not a cause.
      if (std::holds_alternative<isa::SetFmatrix>(ins) ||
          std::holds_alternative<isa::SetPadding>(ins) ||
          std::holds_alternative<isa::SetHF32>(ins)) {
        continue;
      }
      kinds.insert(isa::opcodeOf(ins));
    }
    os << " [";
    for (auto it = kinds.begin(); it != kinds.end(); ++it) {
      os << (it == kinds.begin() ? "" : " ") << *it;
    }
    os << ']';
  }
  os << ' ' << nameOf(r.verdict.outcome) << ": ";
  // A comparison report names the first differing element on its first indented line:
  // "  L0A+0x240 fractal 1 row 2 col 0: expected ... observed ...". Its memory and whether it
  // lies inside the footprint are what a cause decides; where it lies and its value are not.
  const std::string& d = r.verdict.detail;
  for (std::size_t at = d.find("\n  "); at != std::string::npos; at = d.find("\n  ", at + 1)) {
    const std::size_t start = at + 3;
    const std::size_t lineEnd = std::min(d.find('\n', start), d.size());
    const std::string line = d.substr(start, lineEnd - start);
    const std::size_t plus = line.find('+');
    if (plus == std::string::npos || line.find(": expected ") == std::string::npos) continue;
    os << line.substr(0, plus) << ' '
       << (line.find("<- stray write") != std::string::npos ? "stray write outside the footprint"
                                                            : "wrong value inside the footprint");
    return os.str();
  }
  // Otherwise the reason (a rejection, an adapter error, an error bound), without its numbers
  // or parenthesised details.
  std::string reason = d.substr(0, d.find('\n'));
  // A refused legal program is named by its violation code; the DUT's words after it name the
  // fields and values of this case.
  const std::string refused = "DUT rejected it: ";
  if (const std::size_t at = reason.find(refused); at != std::string::npos) {
    const std::size_t codeEnd = reason.find(':', at + refused.size());
    if (codeEnd != std::string::npos) reason.erase(codeEnd);
  }
  reason = reasonKey(reason);
  for (std::size_t open = reason.find(" ("); open != std::string::npos;
       open = reason.find(" (", open)) {
    std::size_t close = open + 2;
    for (int depth = 1; close < reason.size() && depth > 0; ++close) {
      depth += reason[close] == '(' ? 1 : reason[close] == ')' ? -1 : 0;
    }
    reason.erase(open, close - open);
  }
  os << reason;
  return os.str();
}

std::size_t caseBytes(const VectorCase& v) {
  std::size_t n = 0;
  for (const isa::Segment& s : v.program.segments) n += s.bytes.size();
  for (const isa::Region& r : v.program.observe) n += r.size;
  return n;
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
  for (const std::string& f : o.families) result.scope.filters.push_back("--family " + f);
  if (o.shardCount > 1) {
    result.scope.filters.push_back("--shard " + std::to_string(o.shardIndex) + "/" +
                                   std::to_string(o.shardCount));
  }
  result.scope.complete = result.scope.filters.empty();
  result.shardIndex = o.shardIndex;
  result.shardCount = o.shardCount;

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
    std::optional<Family> f = makeFamily(name, o.profile, o.sizes);
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

  // Signature -> bytes of the case kept for it: one failure per signature, the smallest seen.
  std::map<std::string, std::size_t> seen;
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
      ReachRecorder recorder(dut, fr.reach, o.profile);
      std::ostringstream cmd;
      cmd << "cubecheck certify --dut '" << o.dutSpec << "' --profile "
          << isa::profile(o.profile).name << " --family " << fr.name << " --property "
          << prop.name() << " --seed " << o.seed << " --case " << index;
      std::optional<CaseReport> ran = runCase(fr.name, prop, recorder, o.seed, index,
                                              o.shrinkBudget, {}, result.internalError, cmd.str());
      if (!ran) {
        stopped = true;
        break;
      }
      CaseReport& cr = *ran;
      pr.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
      ++cases;
      if (streak.record(cr.verdict.outcome)) {
        result.stoppedEarly = FailureStreak::reason(cr.verdict.detail);
        stopped = true;
      }
      if (fr.record(pr, cr.verdict, cr.tags)) {
        const std::string sig = signatureOf(fr.name, cr, prop.name());
        const std::size_t bytes =
            cr.vector ? caseBytes(*cr.vector) : std::numeric_limits<std::size_t>::max();
        const auto [known, isNew] = seen.emplace(sig, bytes);
        if (isNew || bytes < known->second) {
          known->second = bytes;
          Failure f{prop.name(),       index,     cr.verdict.outcome, cr.caseText,
                    cr.verdict.detail, cmd.str(), cr.shrinkSteps,     std::move(cr.vector)};
          f.signature = sig;
          if (o.onNewFailure) o.onNewFailure(fr.name, f);
          auto kept = std::find_if(fr.failures.begin(), fr.failures.end(),
                                   [&sig](const Failure& x) { return x.signature == sig; });
          if (kept != fr.failures.end()) {
            *kept = std::move(f);
          } else {
            fr.keep(std::move(f));
          }
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
