#include "conformance/checks.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <variant>

#include "generators/common.hpp"
#include "isa/writes.hpp"
#include "oracle/layout.hpp"
#include "oracle/oracle.hpp"

namespace cubecheck::conf {

std::string_view nameOf(Outcome o) {
  switch (o) {
    case Outcome::Pass:
      return "Pass";
    case Outcome::Mismatch:
      return "Mismatch";
    case Outcome::NotSupported:
      return "NotSupported";
    case Outcome::AdapterError:
      return "AdapterError";
    case Outcome::Timeout:
      return "Timeout";
    case Outcome::Nondeterministic:
      return "Nondeterministic";
    case Outcome::Declined:
      return "Declined";
  }
  return "?";
}

bool outsideDeclaredEnvelope(std::string_view reason) {
  for (std::string_view start : {kNotDeclared, kNotValidated, kCannot, kOutsideLimits}) {
    if (reason.starts_with(start)) return true;
  }
  return false;
}

std::optional<std::string> unsupportedReason(const dut::Capabilities& caps,
                                             const isa::Program& program) {
  const isa::Profile& prof = isa::profile(program.profile);
  if (!caps.hasProfile(program.profile)) {
    return std::string(kNotDeclared) + "profile " + std::string(prof.name);
  }
  for (const isa::Instruction& ins : program.instructions) {
    if (!caps.hasInstruction(isa::opcodeOf(ins))) {
      return std::string(kNotDeclared) + "instruction " + std::string(isa::opcodeOf(ins));
    }
    if (auto t = isa::dtypeOf(ins); t && !caps.hasDType(*t)) {
      return std::string(kNotDeclared) + "data type " + std::string(isa::nameOf(*t));
    }
    if (const dut::FieldLimit* l = caps.breaks(ins)) {
      return std::string(kOutsideLimits) + l->text;
    }
  }
  for (const isa::Region& r : program.observe) {
    if (!caps.canObserve(r.memory)) {
      return std::string(kCannot) + "observe " + std::string(isa::nameOf(r.memory));
    }
  }
  // A DUT handed an image it cannot take would run on whatever that memory held instead.
  for (const isa::Segment& s : program.segments) {
    if (!s.bytes.empty() && !caps.canBeGiven(s.memory)) {
      return std::string(kCannot) + "be given an image of " + std::string(isa::nameOf(s.memory));
    }
  }
  return std::nullopt;
}

namespace {

/// The reason of a Declined case: the program passed unsupportedReason, so it lies inside the
/// envelope the DUT declared.
std::string declined(const dut::RunResult& r) {
  return "declined inside the declared envelope: " + r.message;
}
constexpr const char* kNothingHappened =
    "the DUT left the written footprint of an observed region exactly as it was: nothing "
    "observable happened, where the oracle expects it to change";

constexpr std::string_view kRejectedLegal = ": DUT rejected it: ";

}  // namespace

std::optional<std::string> rejectedLegalCode(const std::string& detail, std::size_t* end) {
  const std::size_t at = detail.find(kRejectedLegal);
  if (at == std::string::npos) return std::nullopt;
  const std::size_t from = at + kRejectedLegal.size();
  const std::size_t to = std::min(detail.find(':', from), detail.size());
  if (end != nullptr) *end = to;
  return detail.substr(from, to - from);
}

namespace {

std::optional<Verdict> fromStatus(const dut::RunResult& r, const char* context) {
  switch (r.status) {
    case dut::RunStatus::Ok:
      return std::nullopt;
    case dut::RunStatus::Rejected:
      return Verdict{Outcome::Mismatch,
                     std::string(context) + std::string(kRejectedLegal) +
                         (r.violation ? std::string(isa::nameOf(r.violation->code)) + ": " +
                                            r.violation->message
                                      : std::string("(no reason given)"))};
    case dut::RunStatus::Unsupported:
      if (r.suiteLimit) return Verdict{Outcome::NotSupported, r.message};
      return Verdict{Outcome::Declined, declined(r)};
    case dut::RunStatus::AdapterError:
      if (r.wrongResult) return Verdict{Outcome::Mismatch, r.message};
      return Verdict{Outcome::AdapterError, r.message};
    case dut::RunStatus::Timeout:
      return Verdict{Outcome::Timeout, r.message};
  }
  return Verdict{Outcome::AdapterError, "unknown run status"};
}
}  // namespace

bool leftUnchanged(const isa::Program& program, oracle::Expected expected,
                   const isa::Observed& observed) {
  // compareExact's vacuity test, asked of the DUT's result instead of the oracle's.
  expected.regions = observed;
  return oracle::compareExact(program, expected, observed).vacuous;
}
namespace {
/// The initial segments no instruction of the program writes, in memories the DUT can observe:
/// they must end as they began (a load must not corrupt its source). Sources in a memory the DUT
/// cannot observe are not checked.
std::vector<const isa::Segment*> unwrittenSegments(const dut::Capabilities& caps,
                                                   const isa::Program& program) {
  std::vector<const isa::Segment*> out;
  if (!caps.observesUnlistedRegions) return out;
  std::array<bool, isa::kMemoryCount> written{};
  for (const isa::Instruction& ins : program.instructions) {
    for (isa::Memory m : isa::writtenMemories(ins)) written[static_cast<std::size_t>(m)] = true;
  }
  for (const isa::Segment& s : program.segments) {
    if (!written[static_cast<std::size_t>(s.memory)] && !s.bytes.empty() &&
        caps.canObserve(s.memory)) {
      out.push_back(&s);
    }
  }
  return out;
}
}  // namespace

std::optional<Verdict> runLegal(dut::Dut& dut, const isa::Program& program,
                                isa::Observed& observed) {
  if (auto broken = dut.broken()) return Verdict{Outcome::AdapterError, *broken};
  if (auto why = unsupportedReason(dut.capabilities(), program)) {
    return Verdict{Outcome::NotSupported, *why};
  }
  // The unwritten segments are observed too, after the program's own regions, compared with
  // their initial images here and stripped before the family compares its regions.
  const std::vector<const isa::Segment*> sources = unwrittenSegments(dut.capabilities(), program);
  std::vector<isa::Region> also;
  also.reserve(sources.size());
  for (const isa::Segment* s : sources) also.push_back({s->memory, s->addr, s->bytes.size()});
  dut::RunResult r = dut.runObserving(program, also);
  if (auto v = fromStatus(r, "a legal program")) return v;
  const std::size_t asked = program.observe.size() + also.size();
  if (r.observed.size() != asked) {
    return Verdict{Outcome::AdapterError, "DUT returned " + std::to_string(r.observed.size()) +
                                              " regions for " + std::to_string(asked) +
                                              " observed"};
  }
  for (std::size_t i = 0; i < r.observed.size(); ++i) {
    const std::uint64_t size = i < program.observe.size() ? program.observe[i].size
                                                          : also[i - program.observe.size()].size;
    if (r.observed[i].size() != size) {
      return Verdict{Outcome::AdapterError, "DUT returned " + std::to_string(r.observed[i].size()) +
                                                " bytes for region " + std::to_string(i) + " of " +
                                                std::to_string(size)};
    }
  }
  for (std::size_t i = 0; i < sources.size(); ++i) {
    const isa::Bytes& after = r.observed[program.observe.size() + i];
    const isa::Segment& s = *sources[i];
    if (after == s.bytes) continue;
    std::size_t at = 0;
    while (after[at] == s.bytes[at]) ++at;
    std::size_t changed = 0;
    for (std::size_t j = 0; j < after.size(); ++j) changed += after[j] != s.bytes[j] ? 1 : 0;
    std::ostringstream os;
    os << "a memory no instruction writes was changed: " << isa::nameOf(s.memory) << " segment @"
       << s.addr << "+" << s.bytes.size() << ", " << changed << " byte(s) differ, the first at "
       << isa::nameOf(s.memory) << "@" << s.addr + at << ": expected 0x" << std::hex << std::setw(2)
       << std::setfill('0') << int{s.bytes[at]} << ", observed 0x" << std::setw(2) << int{after[at]}
       << " (a load must leave its source unchanged)";
    return Verdict{Outcome::Mismatch, os.str()};
  }
  r.observed.resize(program.observe.size());
  observed = std::move(r.observed);
  return std::nullopt;
}

bool doNothingPasses(const isa::Program& program, const oracle::Expected& expected) {
  // compareExact(program, expected, initial images).equal without building its report: every
  // byte not don't-care is expected as it began.
  for (std::size_t i = 0; i < program.observe.size(); ++i) {
    const isa::Region& r = program.observe[i];
    const isa::Segment* s = isa::findSegment(program.segments, r.memory, r.addr, r.size);
    if (s == nullptr) return false;
    const std::uint8_t* initial = s->bytes.data() + (r.addr - s->addr);
    const isa::Bytes& want = expected.regions[i];
    if (expected.dontCare.empty()) {
      if (!std::equal(want.begin(), want.end(), initial)) return false;
      continue;
    }
    const isa::Bytes& masked = expected.dontCare[i];
    for (std::size_t j = 0; j < want.size(); ++j) {
      if (masked[j] == 0 && want[j] != initial[j]) return false;
    }
  }
  return true;
}

Verdict passed(const isa::Program& program, const oracle::Expected& expected) {
  Verdict v{Outcome::Pass};
  v.trivial = doNothingPasses(program, expected);
  return v;
}

Verdict vacuousPass() {
  Verdict v{Outcome::Pass};
  v.trivial = true;
  return v;
}

Verdict checkExpected(dut::Dut& dut, const isa::Program& program, const oracle::Expected& expected,
                      bool strayOnly) {
  if (expected.uncertified) return {Outcome::NotSupported, *expected.uncertified};
  isa::Observed observed;
  if (auto v = runLegal(dut, program, observed)) return *v;
  const oracle::Comparison c = oracle::compareExact(program, expected, observed, strayOnly);
  if (c.vacuous) return vacuousPass();
  // Only stray bytes compared: a DUT that wrote nothing at all would have none.
  if (c.equal && strayOnly && leftUnchanged(program, expected, observed)) {
    return {Outcome::Mismatch, kNothingHappened};
  }
  if (c.equal) return passed(program, expected);
  return {Outcome::Mismatch, c.report};
}

Verdict checkSameResult(dut::Dut& dut, const isa::Program& a, const isa::Program& b,
                        const std::string& what) {
  return checkSameResult(dut, a, b, what, oracle::expect(a));
}

Verdict checkSameResult(dut::Dut& dut, const isa::Program& a, const isa::Program& b,
                        const std::string& what, oracle::Expected e) {
  if (e.uncertified) return {Outcome::NotSupported, *e.uncertified};
  // Comparing the expectation with itself only computes its vacuity.
  if (oracle::compareExact(a, e, e.regions).vacuous) throw std::logic_error(vacuousCase(what));
  isa::Observed one, two;
  if (auto v = runLegal(dut, a, one)) return *v;
  if (auto v = runLegal(dut, b, two)) return *v;
  Verdict pass = passed(a, e);  // a no-op pair proves nothing, however equal the two results
  e.regions = one;
  // Don't-care bytes stay masked: the spec leaves them free in either form.
  const oracle::Comparison c = oracle::compareExact(a, e, two);
  // The oracle changes the footprint; a first run that leaves a region of it as it was did
  // nothing there, and two runs doing nothing agree without proving anything (habit 9).
  if (c.vacuous) return {Outcome::Mismatch, what + "\n" + kNothingHappened};
  if (c.equal) return pass;
  return {Outcome::Mismatch, what + "\n" + c.report};
}

isa::Program wholeMemories(isa::Program program) {
  const isa::Profile& prof = isa::profile(program.profile);
  std::vector<isa::Memory> memories;
  for (const isa::Region& r : program.observe) {
    if (r.memory != isa::Memory::GM &&
        std::find(memories.begin(), memories.end(), r.memory) == memories.end()) {
      memories.push_back(r.memory);
    }
  }
  for (const isa::Memory m : memories) {
    const std::uint64_t capacity = prof.capacityOf(m);
    isa::Segment whole = gen::filled(m, 0, capacity, 0x57A7'0000 + static_cast<std::uint64_t>(m));
    std::vector<isa::Segment> segments;
    bool placed = false;
    for (isa::Segment& s : program.segments) {
      if (s.memory != m) {
        segments.push_back(std::move(s));
        continue;
      }
      std::copy(s.bytes.begin(), s.bytes.end(),
                whole.bytes.begin() + static_cast<std::ptrdiff_t>(s.addr));
      if (!placed) segments.push_back({m, 0, {}});  // where the memory's first segment was
      placed = true;
    }
    for (isa::Segment& s : segments) {
      if (s.memory == m) s = std::move(whole);
    }
    if (!placed) segments.push_back(std::move(whole));
    program.segments = std::move(segments);
    std::vector<isa::Region> observe;
    bool observed = false;
    for (const isa::Region& r : program.observe) {
      if (r.memory != m) {
        observe.push_back(r);
      } else if (!observed) {
        observe.push_back({m, 0, capacity});
        observed = true;
      }
    }
    program.observe = std::move(observe);
  }
  return program;
}

Verdict checkAgainstOracle(dut::Dut& dut, const isa::Program& program, bool strayOnly) {
  return checkExpected(dut, program, oracle::expect(program), strayOnly);
}

std::string vacuousCase(const std::string& what) {
  return "vacuous comparison in " + what +
         ": the expected footprint equals the initial image, so the case proves nothing (a "
         "generator defect)";
}

VectorCase oracleVector(isa::Program program) {
  oracle::Expected e = oracle::expect(program);
  const bool hasV2 = std::any_of(program.instructions.begin(), program.instructions.end(),
                                 [](const isa::Instruction& i) {
                                   return std::holds_alternative<isa::LoadV2>(i) ||
                                          std::holds_alternative<isa::LoadBitMode>(i);
                                 });
  if (!hasV2 || e.uncertified) return expectationVector(std::move(program), std::move(e));
  // OPEN-10: the order of colliding writes inside one call. Where the two orders leave different
  // bytes, either passes and the note names the order the DUT follows.
  oracle::Expected rowByRow = oracle::expect(program, oracle::V2Order::RowByRow);
  if (rowByRow.regions == e.regions) return expectationVector(std::move(program), std::move(e));
  VectorCase v;
  v.program = std::move(program);
  v.alternatives.emplace_back(kOpen10ByColumn, std::move(e));
  v.alternatives.emplace_back(kOpen10ByRow, std::move(rowByRow));
  v.notGolden = "OPEN-10";
  return v;
}

VectorCase rejectionVector(isa::Program program, isa::ViolationCode code) {
  VectorCase v;
  v.program = std::move(program);
  v.rejection = code;
  return v;
}

VectorCase expectationVector(isa::Program program, oracle::Expected expected) {
  VectorCase v;
  v.program = std::move(program);
  if (expected.uncertified) {
    v.uncertified = expected.uncertified;
  } else {
    v.expected = std::move(expected);
  }
  return v;
}

Verdict checkRejected(dut::Dut& dut, const isa::Program& program, isa::ViolationCode expected) {
  if (auto broken = dut.broken()) return {Outcome::AdapterError, *broken};
  if (!dut.capabilities().rejectsIllegal) {
    return {Outcome::NotSupported, std::string(kNotValidated) + " (rejects_illegal is false)"};
  }
  // An illegal dtype or path is exactly what some of these cases test; only the profile and
  // the instructions must be declared.
  const dut::Capabilities& caps = dut.capabilities();
  if (!caps.hasProfile(program.profile)) {
    return {Outcome::NotSupported, std::string(kNotDeclared) + "profile " +
                                       std::string(isa::profile(program.profile).name)};
  }
  for (const isa::Instruction& ins : program.instructions) {
    if (!caps.hasInstruction(isa::opcodeOf(ins))) {
      return {Outcome::NotSupported,
              std::string(kNotDeclared) + "instruction " + std::string(isa::opcodeOf(ins))};
    }
    if (const dut::FieldLimit* l = caps.breaks(ins)) {
      return {Outcome::NotSupported, std::string(kOutsideLimits) + l->text};
    }
  }
  dut::RunResult r = dut.run(program);
  switch (r.status) {
    case dut::RunStatus::Rejected:
      if (!r.violation)
        return {Outcome::Mismatch,
                "rejected without a reason; expected " + std::string(isa::nameOf(expected))};
      if (r.violation->code != expected) {
        return {Outcome::Mismatch, "rejected for " + std::string(isa::nameOf(r.violation->code)) +
                                       " (" + r.violation->message + "); expected " +
                                       std::string(isa::nameOf(expected))};
      }
      return {Outcome::Pass, {}};
    case dut::RunStatus::Ok:
      return {Outcome::Mismatch, "executed an illegal program; expected rejection for " +
                                     std::string(isa::nameOf(expected))};
    case dut::RunStatus::Unsupported:
      if (r.suiteLimit) return {Outcome::NotSupported, r.message};
      return {Outcome::Declined, declined(r)};
    case dut::RunStatus::AdapterError:
      if (r.wrongResult) return {Outcome::Mismatch, r.message};
      return {Outcome::AdapterError, r.message};
    case dut::RunStatus::Timeout:
      return {Outcome::Timeout, r.message};
  }
  return {Outcome::AdapterError, "unknown run status"};
}

BoundCheck checkWithinBound(const isa::Bytes& image, std::uint64_t offset,
                            const oracle::MatrixD& exact, const oracle::MatrixD& bound) {
  BoundCheck out;
  std::ostringstream bad;
  const auto m = static_cast<std::uint64_t>(exact.rows()),
             n = static_cast<std::uint64_t>(exact.cols());
  for (std::uint64_t col = 0; col < n; ++col) {
    for (std::uint64_t row = 0; row < m; ++row) {
      const std::uint64_t at =
          offset + 4 * oracle::elementOffsetC0(oracle::Layout::Nz, 16, m, n, row, col);
      std::uint32_t bits = 0;
      for (int b = 0; b < 4; ++b) bits |= std::uint32_t{image.at(at + b)} << (8 * b);
      float got;
      std::memcpy(&got, &bits, 4);
      const auto i = static_cast<Eigen::Index>(row), j = static_cast<Eigen::Index>(col);
      const double want = exact(i, j), err = std::fabs(static_cast<double>(got) - want);
      if (err <= bound(i, j)) {
        const auto rounded = static_cast<float>(want);
        const double ulp =
            std::fabs(static_cast<double>(std::nextafter(rounded, INFINITY)) - rounded);
        if (std::isfinite(got)) out.worstUlp = std::max(out.worstUlp, err / ulp);
        continue;
      }
      if (out.outside++ < 8) {
        bad << "C[" << row << "][" << col << "]: observed " << got << ", exact " << want
            << ", error " << err << " above the bound " << bound(i, j) << "\n";
      }
    }
  }
  out.firstBad = bad.str();
  return out;
}

}  // namespace cubecheck::conf
