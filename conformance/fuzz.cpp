#include "conformance/fuzz.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "conformance/checks.hpp"
#include "conformance/dut_health.hpp"
#include "conformance/families.hpp"
#include "conformance/indirect.hpp"
#include "conformance/localise.hpp"

namespace cubecheck::conf {

std::string signatureOf(const std::string& family, const CaseReport& r, dut::Dut* dut) {
  std::ostringstream os;
  os << family;
  // A legal program that went wrong: the instruction at fault, its variant and what it did, found
  // by replaying the case's programs load by load against the oracle. One bug met by several
  // properties, in several memories and shapes, is one signature per family and variant; two bugs
  // in two modes of one instruction are two, so a waiver narrowed to one hides not the other.
  const bool illegal = r.vector && r.vector->rejection;
  if (dut != nullptr && !illegal && r.verdict.outcome != Outcome::Timeout) {
    if (std::optional<Culprit> c = localise(*dut, r.programs)) {
      os << ": " << c->opcode << ' ' << (c->variant.empty() ? "" : "(" + c->variant + ") ")
         << (c->effect.empty() ? effectOf(r.verdict, /*nameMemory=*/false) : c->effect);
      return os.str();
    }
  }
  // Otherwise (an illegal program accepted or misjudged, a timeout, nothing to replay): the
  // instruction kinds of the program, the outcome and its reason without numbers or details. No
  // variant: nothing here says which instruction is at fault, and the variants of all of them
  // would key on the program's mix (a timeout's, an illegal program's), not on a cause. An
  // illegal program's reason names the violation it should have been rejected for instead.
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
    // No kind known (a case whose program is not at hand): nothing to name, not "[]".
    if (!kinds.empty()) {
      os << " [";
      for (auto it = kinds.begin(); it != kinds.end(); ++it) {
        os << (it == kinds.begin() ? "" : " ") << *it;
      }
      os << ']';
    }
  }
  os << ' ' << nameOf(r.verdict.outcome) << ": ";
  const std::string& d = r.verdict.detail;
  std::string reason = d.substr(0, d.find('\n'));
  // A refused legal program is named by its violation code; the DUT's words after it name the
  // fields and values of this case.
  if (std::size_t end = 0; rejectedLegalCode(reason, &end)) reason.erase(end);
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
  result.capabilities = declaredCapabilities(dut);
  result.profile = o.profile;
  result.level = Level::Full;
  result.seed = o.seed;
  result.draws = {std::string(gen::nameOf(o.sizes)), o.maxCases,
                  std::chrono::duration<double>(o.budget).count()};
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
  // As certify does: L0A/L0B observed through Mmad where the DUT cannot observe them.
  IndirectObservation view(dut);
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
  bool outOfTime = false;
  for (std::uint64_t round = 0; !slots.empty(); ++round) {
    const std::uint64_t k = round * o.shardCount + o.shardIndex;
    if (o.maxCases && k >= *o.maxCases) break;
    bool stopped = false;
    for (const Slot& s : slots) {
      if (o.stop != nullptr && o.stop->load()) {
        stopped = true;
        break;
      }
      if (Clock::now() - start >= o.budget) {
        stopped = outOfTime = true;
        break;
      }
      const Property& prop = *families[s.family].properties[s.property];
      FamilyResult& fr = result.families[s.family];
      PropertyResult& pr = fr.properties[s.property];
      const std::size_t index = prop.tableSize() + k;
      const Clock::time_point t0 = Clock::now();
      ReachRecorder recorder(view, fr.reach, o.profile);
      const std::string reproduce = reproduceCommand(
          {o.dutSpec, o.profile, o.seed, o.sizes, {}, {}}, fr.name, prop.name(), index);
      std::optional<CaseReport> ran =
          runCase(fr.name, prop, recorder, o.seed, index, o.shrinkBudget, {}, result.internalError,
                  reproduce, o.stop);
      if (!ran) {
        stopped = true;
        break;
      }
      CaseReport& cr = *ran;
      const std::set<std::string> indirect = view.takeUsed();
      if (cr.cutShort) {  // the stop's doing, not the DUT's: counted in no outcome
        ++result.casesCutShort;
        result.interrupted = stopped = true;
        break;
      }
      if (cr.verdict.outcome != Outcome::NotSupported) {
        for (const std::string& u : indirect) fr.indirect[u] += 1;
      }
      pr.seconds += std::chrono::duration<double>(Clock::now() - t0).count();
      ++cases;
      if (cr.reran) ++result.reruns;
      if (cr.verdict.outcome == Outcome::Nondeterministic) ++result.rerunsDiffering;
      if (streak.record(cr.verdict.outcome)) {
        result.stoppedEarly = FailureStreak::reason(cr.verdict.detail);
        stopped = true;
      }
      if (fr.record(pr, cr.verdict, cr.tags)) {
        const std::string sig = signatureOf(fr.name, cr, &view);
        // What the localising runs rested on is no part of a verdict: dropped, not charged to the
        // next case.
        view.takeUsed();
        const std::size_t bytes =
            cr.vector ? caseBytes(*cr.vector) : std::numeric_limits<std::size_t>::max();
        Failure f{prop.name(),       index,     cr.verdict.outcome, cr.caseText,
                  cr.verdict.detail, reproduce, cr.shrinkSteps,     std::move(cr.vector)};
        f.signature = sig;
        if (cr.shrinkCapped) f.shrinkCapMs = o.shrinkBudget.count();
        if (o.waivers != nullptr) o.waivers->apply(fr.name, fr, pr, f, cr.tags);
        const auto [known, isNew] = seen.emplace(sig, bytes);
        if (isNew || bytes < known->second) {
          known->second = bytes;
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
  for (std::size_t i = 0; i < result.families.size(); ++i) {
    FamilyResult& fr = result.families[i];
    fr.openPoints = openPointsThatRan(families[i], fr);
    if (outOfTime && fr.counts.total() == 0) {
      fr.notRunWhy = "the time budget (--time) ran out before any of its cases";
    }
  }
  if (o.waivers != nullptr) o.waivers->report(result);
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return result;
}

}  // namespace cubecheck::conf
