#include "conformance/report_read.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <cstdint>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <utility>

#include "conformance/byte_order_mark.hpp"
#include "conformance/families.hpp"
#include "conformance/json_unique.hpp"
#include "conformance/outcome.hpp"
#include "conformance/reach.hpp"
#include "isa/dtype.hpp"
#include "isa/fields.hpp"
#include "isa/memory.hpp"

namespace cubecheck::conf {
namespace {

using Json = nlohmann::ordered_json;

/// How bad a verdict word is: a written verdict is never read as better than it says.
int severity(const std::string& verdict) {
  if (verdict == "conformant" || verdict == "conformant (provisional)" ||
      verdict == "conformant_with_waivers") {
    return 0;
  }
  if (verdict == "not certified") return 1;
  if (verdict == "nonconformant") return 2;
  return 3;  // a verdict this version does not know
}

std::optional<Outcome> parseOutcome(std::string_view name) {
  for (int i = 0; i < kOutcomeCount; ++i) {
    if (nameOf(static_cast<Outcome>(i)) == name) return static_cast<Outcome>(i);
  }
  return std::nullopt;
}

/// The count keys of report.json, each with its outcome.
constexpr std::pair<const char*, Outcome> kOutcomeKeys[] = {
    {"passed", Outcome::Pass},
    {"failed", Outcome::Mismatch},
    {"declined", Outcome::Declined},
    {"not_supported", Outcome::NotSupported},
    {"adapter_errors", Outcome::AdapterError},
    {"timeouts", Outcome::Timeout},
    {"nondeterministic", Outcome::Nondeterministic}};

/// The commands whose reports this version writes; a replay's families are its vector files.
bool isReplay(const std::string& command) {
  return command == "vectors check" || command == "vectors verify";
}

/// `a + b`, or nullopt past kMaxCount.
std::optional<std::size_t> checkedSum(std::size_t a, std::size_t b) {
  if (a > kMaxCount || b > kMaxCount - a) return std::nullopt;
  return a + b;
}

/// "a, b, c".
std::string commaList(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

/// Reads one report.json; every error names the file and the field.
class Reader {
 public:
  /// A value of the report and its name in it ("families[0].properties[2].passed").
  struct Field {
    const Json& value;
    std::string name;
  };

  explicit Reader(std::string path) : path_(std::move(path)) {}
  /// The first "cases" that is not the sum of its outcome counts, as "NAME' is N but ...".
  mutable std::optional<std::string> casesDiffer_;

  [[noreturn]] void fail(const std::string& field, const std::string& what) const {
    throw MergeError(path_ + ": not a cubecheck report.json: field '" + field + "' " + what);
  }

  /// A written verdict worse than the one the model computes from the fields (see fromJson).
  void checkVerdict(const Field& written, const std::string& computed) const {
    const std::string said = text(written);
    if (severity(said) > severity(computed)) {
      throw MergeError(path_ + ": field '" + written.name + "' says '" + said +
                       "' where the report's fields give '" + computed +
                       "': edited, or written by another cubecheck version; refused rather "
                       "than read as better than it says");
    }
  }

  bool has(const Field& object, const char* key) const { return object.value.contains(key); }

  Field at(const Field& object, const char* key) const {
    expect(object, object.value.is_object(), "an object");
    std::string name = object.name.empty() ? std::string(key) : object.name + "." + key;
    const auto it = object.value.find(key);
    if (it == object.value.end()) fail(name, "is missing");
    return {*it, std::move(name)};
  }

  std::vector<Field> elements(const Field& array) const {
    expect(array, array.value.is_array(), "an array");
    std::vector<Field> out;
    for (std::size_t i = 0; i < array.value.size(); ++i) {
      out.push_back({array.value[i], array.name + "[" + std::to_string(i) + "]"});
    }
    return out;
  }
  std::vector<Field> elements(const Field& object, const char* key) const {
    return elements(at(object, key));
  }

  std::string text(const Field& f) const {
    expect(f, f.value.is_string(), "a string");
    return f.value.get<std::string>();
  }
  std::string text(const Field& object, const char* key) const { return text(at(object, key)); }
  /// A field toJson writes only when it is not empty.
  std::string optionalText(const Field& object, const char* key) const {
    return has(object, key) ? text(object, key) : std::string();
  }

  /// An integer >= 0 of 64 bits: a seed, a case index, a case budget. Never summed.
  std::uint64_t unsignedInteger(const Field& f) const {
    expect(f, f.value.is_number_unsigned() || (f.value.is_number_integer() && f.value >= 0),
           "a count (an integer >= 0)");
    return f.value.get<std::uint64_t>();
  }
  std::uint64_t unsignedInteger(const Field& object, const char* key) const {
    return unsignedInteger(at(object, key));
  }

  /// A count of cases (or of what cases hit): at most kMaxCount, so sums of counts cannot wrap.
  std::size_t count(const Field& f) const {
    const std::uint64_t n = unsignedInteger(f);
    if (n > kMaxCount) fail(f.name, "is above 2^53, more than any run counts");
    return n;
  }
  std::size_t count(const Field& object, const char* key) const { return count(at(object, key)); }

  std::int64_t integer(const Field& object, const char* key) const {
    const Field f = at(object, key);
    expect(f,
           f.value.is_number_integer() &&
               (!f.value.is_number_unsigned() ||
                f.value.get<std::uint64_t>() <=
                    static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())),
           "a 64-bit signed integer");
    return f.value.get<std::int64_t>();
  }

  double number(const Field& object, const char* key) const {
    const Field f = at(object, key);
    expect(f, f.value.is_number(), "a number");
    return f.value.get<double>();
  }

  bool flag(const Field& object, const char* key) const {
    const Field f = at(object, key);
    expect(f, f.value.is_boolean(), "true or false");
    return f.value.get<bool>();
  }

  /// A name this version knows: what `parse` (an optional or a pointer) finds for it.
  template <class Parse>
  auto named(const Field& f, Parse parse, const char* what) const {
    const std::string s = text(f);
    auto v = parse(s);
    if (!v) fail(f.name, "names " + std::string(what) + " '" + s + "' this version does not know");
    return v;
  }
  /// Every name of an array field that toJson leaves out when empty.
  template <class Parse>
  auto namedList(const Field& object, const char* key, Parse parse, const char* what) const {
    std::vector<std::decay_t<decltype(*parse(std::string_view()))>> out;
    if (!has(object, key)) return out;
    for (const Field& e : elements(object, key)) out.push_back(*named(e, parse, what));
    return out;
  }

  std::vector<std::string> texts(const Field& object, const char* key) const {
    std::vector<std::string> out;
    for (const Field& e : elements(object, key)) out.push_back(text(e));
    return out;
  }

  template <class Value, class Read>
  std::map<std::string, Value> mapOf(const Field& object, const char* key, Read read) const {
    const Field m = at(object, key);
    expect(m, m.value.is_object(), "an object");
    std::map<std::string, Value> out;
    for (const auto& [k, v] : m.value.items()) out.emplace(k, read(Field{v, m.name + "." + k}));
    return out;
  }
  std::map<std::string, std::size_t> countMap(const Field& object, const char* key) const {
    return mapOf<std::size_t>(object, key, [this](const Field& f) { return count(f); });
  }
  std::map<std::string, std::string> textMap(const Field& object, const char* key) const {
    return mapOf<std::string>(object, key, [this](const Field& f) { return text(f); });
  }

  /// [{bin, <count key>}, ...] as (bin, count) pairs: coverage_required and coverage_gaps.
  std::vector<std::pair<std::string, std::size_t>> bins(const Field& object, const char* key,
                                                        const char* countKey) const {
    std::vector<std::pair<std::string, std::size_t>> out;
    for (const Field& e : elements(object, key))
      out.emplace_back(text(e, "bin"), count(e, countKey));
    return out;
  }

  Counts counts(const Field& object) const {
    Counts c;
    for (const auto& [key, outcome] : kOutcomeKeys) {
      c.byOutcome[static_cast<std::size_t>(outcome)] = count(object, key);
    }
    c.trivialPasses = count(object, "passed_no_op");
    if (c.trivialPasses > c.of(Outcome::Pass))
      fail(at(object, "passed_no_op").name, "is above passed");
    // Probe cases are passes counted apart from `passed` (absent before this version: none).
    if (has(object, "probe_cases")) {
      c.probePasses = count(object, "probe_cases");
      const auto pass =
          checkedSum(c.byOutcome[static_cast<std::size_t>(Outcome::Pass)], c.probePasses);
      if (!pass) fail(at(object, "probe_cases").name, "adds up past 2^53 with passed");
      c.byOutcome[static_cast<std::size_t>(Outcome::Pass)] = *pass;
    }
    // "cases" is their sum, derived: a report whose sum disagrees was edited or damaged. Said
    // once the rest has read (an edited outcome count is named by its own check first).
    if (has(object, "cases") && count(object, "cases") != c.total() && !casesDiffer_) {
      casesDiffer_ = at(object, "cases").name + "' is " + std::to_string(count(object, "cases")) +
                     " but its outcome counts add up to " + std::to_string(c.total());
    }
    return c;
  }

  /// The waived cases of a family or property: written only when there are some.
  Counts waived(const Field& object, const Counts& of) const {
    Counts c;
    if (!has(object, "waived")) return c;
    const Field w = at(object, "waived");
    for (const auto& [key, outcome] : kOutcomeKeys) {
      if (outcome == Outcome::Pass || outcome == Outcome::NotSupported) continue;  // never waived
      const std::size_t n = count(w, key);
      if (n > of.of(outcome)) fail(w.name + "." + key, "is above the cases of that outcome");
      c.byOutcome[static_cast<std::size_t>(outcome)] = n;
    }
    return c;
  }

  WaiverResult waiver(const Field& w) const {
    WaiverResult r;
    r.waiver.dut = text(w, "dut");
    r.waiver.family = text(w, "family");
    r.waiver.property = optionalText(w, "property");
    r.waiver.signature = optionalText(w, "signature");
    if (has(w, "outcome")) {
      r.waiver.outcome = *named(at(w, "outcome"), parseWaivedOutcome, "a waived outcome");
    }
    r.waiver.reason = text(w, "reason");
    r.waiver.until = optionalText(w, "until");
    r.cases = count(w, "cases");
    // What the status says beyond the count: written for another DUT, or expired.
    const std::string status = text(w, "status");
    r.expired = status == "expired";
    r.otherDut = status == "not for this DUT";
    return r;
  }

  /// certify's arithmetic fingerprint (toJson(Fingerprint)), or why it was not measured.
  void fingerprint(const Field& root, CertifyResult& r) const {
    if (!has(root, "fingerprint")) return;
    const Field fp = at(root, "fingerprint");
    if (has(fp, "not_measured")) {
      r.fingerprintWhyNot = text(fp, "not_measured");
      return;
    }
    Fingerprint f;
    f.dut = text(fp, "dut");
    f.profile = *named(at(fp, "profile"), isa::parseProfile, "a profile");
    auto bits = [this](const Field& d, const char* key) {
      const std::int64_t v = integer(d, key);
      if (v < 0 || v > 64) fail(d.name + "." + key, "is out of range");
      return static_cast<int>(v);
    };
    for (const Field& d : elements(fp, "dtypes")) {
      DTypeFingerprint x;
      x.dtype = text(d, "dtype");
      if (has(d, "not_measured")) {
        x.notMeasured = text(d, "not_measured");
      } else if (has(d, "input_fraction_bits")) {
        x.inputFractionBits = bits(d, "input_fraction_bits");
      } else {
        x.products = text(d, "products");
        x.accumulatorBits = bits(d, "accumulator_bits");
        x.order = text(d, "order");
        x.rounding = text(d, "rounding");
        x.subnormalInputs = text(d, "subnormal_inputs");
        x.subnormalResults = text(d, "subnormal_results");
        x.specialValues = text(d, "special_values");
      }
      f.dtypes.push_back(std::move(x));
    }
    r.fingerprint = std::move(f);
  }

  dut::Capabilities capabilities(const Field& caps, const Field& envelope) const {
    dut::Capabilities c;
    c.name = text(caps, "name");
    c.version = text(caps, "version");
    // A DUT that declared no envelope (recorded results): its lists are not written.
    c.notDeclared = optionalText(envelope, "not_declared");
    if (has(envelope, "declared") && flag(envelope, "declared") != c.notDeclared.empty()) {
      fail(envelope.name + ".declared", "does not match envelope.not_declared");
    }
    c.profiles = namedList(caps, "profiles", isa::parseProfile, "a profile");
    if (c.notDeclared.empty() || has(caps, "instructions")) {
      c.instructions = texts(caps, "instructions");
    }
    c.dtypes = namedList(caps, "dtypes", isa::parseDType, "a dtype");
    c.observable = namedList(caps, "observable", isa::parseMemory, "a memory");
    c.given = namedList(caps, "given", isa::parseMemory, "a memory");
    c.rejectsIllegal = flag(caps, "rejects_illegal");
    for (const Field& e : elements(envelope, "limits")) {
      const std::string clause = text(e);
      // parseFieldLimit prints a `default` clause with the value it stands for:
      // "load2d sid default (0)"; what it parses ends at "default".
      std::string parseable = clause;
      if (const std::size_t d = parseable.find(" default ("); d != std::string::npos) {
        parseable.erase(d + 8);
      }
      std::string error;
      std::optional<dut::FieldLimit> limit = dut::parseFieldLimit(parseable, error);
      if (!limit) fail(e.name, "is not a limit clause: " + error);
      limit->text = clause;
      c.limits.push_back(std::move(*limit));
    }
    return c;
  }

  void reach(const Field& family, Reach& into, isa::ProfileId profile) const {
    const std::vector<isa::InstructionDesc>& descs = isa::instructionDescs();
    for (const Field& row : elements(family, "reach")) {
      const Field op = at(row, "instruction");
      const isa::InstructionDesc* desc = named(
          op, [](std::string_view s) { return isa::findInstructionDesc(s); }, "an instruction");
      const Field name = at(row, "field");
      const isa::FieldDesc* field = named(
          name, [desc](std::string_view s) { return isa::findField(*desc, s); }, "a field");
      const std::int64_t lo = integer(row, "drawn_min"), hi = integer(row, "drawn_max");
      if (lo > hi) fail(row.name + ".drawn_min", "is above drawn_max");
      // legal_min, legal_max, fit_max, checked and flagged follow from the ISA and the profile,
      // envelope_min and envelope_max from them and the envelope read.
      const auto d = static_cast<std::size_t>(desc - descs.data());
      const auto f = static_cast<std::size_t>(field - desc->fields.data());
      into.widen(d, f, {lo, hi, 0});
      // A row reach credits per operand types must say what each types drew, all of it: a row
      // without them, or with only some, would be credited by field again.
      const bool byTypes = creditedByTypes(profile, *desc, *field);
      if (!byTypes) continue;
      if (!has(row, "by_types")) {
        fail(row.name, "has no by_types (" + std::string(desc->opcode) + " " +
                           std::string(field->name) + " is credited per operand types)");
      }
      std::int64_t unionLo = hi, unionHi = lo;
      const std::vector<Field> entries = elements(row, "by_types");
      if (entries.empty()) fail(row.name + ".by_types", "is empty");
      for (const Field& t : entries) {
        const Field types = at(t, "types");
        if (!typesNamed(*desc, text(types))) {
          fail(types.name, "is not the operand types of " + std::string(desc->opcode) +
                               " (\"dtype=f16 b_dtype=f16\" say)");
        }
        const std::int64_t tlo = integer(t, "drawn_min"), thi = integer(t, "drawn_max");
        // One types' draws are some of the row's: a range wider than the row's is made up.
        if (tlo > thi || tlo < lo || thi > hi) {
          fail(t.name, "is not inside the row's drawn range " + std::to_string(lo) + ".." +
                           std::to_string(hi));
        }
        into.widen(d, f, {tlo, thi, 0}, text(types));
        unionLo = std::min(unionLo, tlo);
        unionHi = std::max(unionHi, thi);
      }
      if (unionLo != lo || unionHi != hi) {
        fail(row.name + ".by_types", "does not add up to the row's drawn range " +
                                         std::to_string(lo) + ".." + std::to_string(hi));
      }
    }
  }

  /// Whether `s` is what conf::typesOf writes for some instruction of `desc`: each of its type
  /// fields, in order, as name=type.
  static bool typesNamed(const isa::InstructionDesc& desc, const std::string& s) {
    std::string expected;
    std::size_t at = 0;
    for (const isa::FieldDesc& f : desc.fields) {
      if (f.kind != isa::FieldKind::DType) continue;
      const std::string head = (expected.empty() ? "" : " ") + std::string(f.name) + "=";
      if (s.compare(at, head.size(), head) != 0) return false;
      at += head.size();
      const std::size_t end = std::min(s.find(' ', at), s.size());
      if (!isa::parseDType(s.substr(at, end - at))) return false;
      expected += head + s.substr(at, end - at);
      at = end;
    }
    return !expected.empty() && at == s.size();
  }

  Failure failure(const Field& x) const {
    Failure f;
    f.property = text(x, "property");
    f.caseIndex = unsignedInteger(x, "case");
    f.caseId = optionalText(x, "case_id");
    f.outcome = *named(at(x, "outcome"), parseOutcome, "an outcome");
    f.signature = optionalText(x, "signature");
    f.caseText = text(x, "case_text");
    f.detail = text(x, "detail");
    const std::int64_t steps = integer(x, "shrink_steps");
    if (steps < 0 || steps > INT_MAX) fail(x.name + ".shrink_steps", "is out of range");
    f.shrinkSteps = static_cast<int>(steps);
    // Written since a shrink stopped at its cap says so; an older report has none.
    if (has(x, "shrink_capped_ms")) {
      const std::int64_t cap = integer(x, "shrink_capped_ms");
      if (cap < 0) fail(x.name + ".shrink_capped_ms", "is negative");
      f.shrinkCapMs = cap;
    }
    f.reproduce = text(x, "reproduce");
    f.waiver = optionalText(x, "waived");
    return f;
  }

  FamilyResult family(const Field& fj, isa::ProfileId profile) const {
    FamilyResult f;
    f.name = text(fj, "name");
    f.counts = counts(fj);
    f.openPoints = texts(fj, "open_points");
    f.provisional = optionalText(fj, "provisional");
    f.notRunWhy = optionalText(fj, "not_run");
    const Field properties = at(fj, "properties");
    Counts sum;
    for (const Field& p : elements(properties)) {
      const Counts c = counts(p);
      f.properties.push_back({text(p, "name"), text(p, "summary"), c, number(p, "seconds")});
      f.properties.back().waived = waived(p, c);
      sumInto(sum, c, properties.name);
    }
    // A family's cases are its properties' cases: a count edited in one and not the other is a
    // report no run wrote.
    if (sum.byOutcome != f.counts.byOutcome || sum.trivialPasses != f.counts.trivialPasses ||
        sum.probePasses != f.counts.probePasses) {
      fail(properties.name, "counts do not add up to the family's own counts");
    }
    f.coverage = countMap(fj, "coverage");
    f.coveragePassed = countMap(fj, "coverage_passed");
    f.coverageNotRun = countMap(fj, "coverage_not_run");
    f.notSupportedReasons = countMap(fj, "not_supported_reasons");
    f.notSupportedExamples = textMap(fj, "not_supported_examples");
    f.declinedReasons = countMap(fj, "declined_reasons");
    f.probes = countMap(fj, "probes");
    f.indirect = countMap(fj, "indirect_observations");
    f.coverageQuota = count(fj, "coverage_quota");
    f.coverageRequired = bins(fj, "coverage_required", "quota");
    f.coverageGaps = bins(fj, "coverage_gaps", "hits");
    reach(fj, f.reach, profile);
    for (const Field& x : elements(fj, "failures")) f.failures.push_back(failure(x));
    f.failuresDropped = count(fj, "failures_not_listed");
    if (fj.value.contains("top_up_cases")) f.topUpCases = count(fj, "top_up_cases");
    f.waived = waived(fj, f.counts);
    if (has(fj, "waived_reasons")) f.waivedReasons = countMap(fj, "waived_reasons");
    if (has(fj, "coverage_waived")) f.coverageWaived = countMap(fj, "coverage_waived");
    checkCounted(fj, f);
    // The gaps follow from the required bins and the passes (findCoverageGaps): the rule is
    // applied again, not read.
    const auto gaps = f.coverageGaps;
    f.findCoverageGaps();
    if (gaps != f.coverageGaps) {
      fail(at(fj, "coverage_gaps").name,
           "are not the gaps coverage_required and coverage_passed give (" +
               binList(f.coverageGaps) + ")");
    }
    checkVerdict(at(fj, "verdict"), f.verdict());
    return f;
  }

  /// `into` += `c`, refused (naming `field`) past kMaxCount.
  void sumInto(Counts& into, const Counts& c, const std::string& field) const {
    for (std::size_t o = 0; o < into.byOutcome.size(); ++o) {
      const auto n = checkedSum(into.byOutcome[o], c.byOutcome[o]);
      if (!n) fail(field, "counts add up past 2^53");
      into.byOutcome[o] = *n;
    }
    const auto n = checkedSum(into.trivialPasses, c.trivialPasses);
    if (!n) fail(field, "counts add up past 2^53");
    into.trivialPasses = *n;
    const auto probes = checkedSum(into.probePasses, c.probePasses);
    if (!probes) fail(field, "counts add up past 2^53");
    into.probePasses = *probes;
  }

  static std::string binList(const std::vector<std::pair<std::string, std::size_t>>& bins) {
    std::vector<std::string> out;
    for (const auto& [bin, n] : bins) out.push_back(bin + " " + std::to_string(n));
    return out.empty() ? "none" : commaList(out);
  }

  /// What a family counts beside its outcomes is bounded by them, as every run counts it: the
  /// failures listed and not listed are failing cases counted (by property and outcome), a
  /// waived failure a waived case, a pass or waived failure of a bin a case of it that ran, a
  /// top-up case a case.
  void checkCounted(const Field& fj, const FamilyResult& f) const {
    const Field failures = at(fj, "failures");
    std::map<std::pair<std::string, Outcome>, std::size_t> listed;
    std::array<std::size_t, kOutcomeCount> waivedListed{};
    for (std::size_t i = 0; i < f.failures.size(); ++i) {
      const Failure& x = f.failures[i];
      const std::string name = failures.name + "[" + std::to_string(i) + "]";
      const auto p = std::find_if(f.properties.begin(), f.properties.end(),
                                  [&x](const PropertyResult& q) { return q.name == x.property; });
      if (p == f.properties.end()) {
        fail(name + ".property", "names '" + x.property + "', no property of the family");
      }
      const std::size_t n = ++listed[{x.property, x.outcome}];
      if (n > p->counts.of(x.outcome)) {
        fail(name, "is one more " + std::string(countKey(x.outcome)) + " case of property '" +
                       x.property + "' than it counts (" + std::to_string(p->counts.of(x.outcome)) +
                       ")");
      }
      if (!x.waiver.empty() &&
          ++waivedListed[static_cast<std::size_t>(x.outcome)] > f.waived.of(x.outcome)) {
        fail(name + ".waived", "is one more waived " + std::string(countKey(x.outcome)) +
                                   " case than the family's waived counts");
      }
    }
    const auto failing = checkedSum(f.failures.size(), f.failuresDropped);
    if (!failing || *failing > f.counts.failures()) {
      fail(at(fj, "failures_not_listed").name,
           "and the failures listed are more failing cases than the family counts (" +
               std::to_string(f.counts.failures()) + ")");
    }
    if (f.topUpCases > f.counts.total()) fail(at(fj, "top_up_cases").name, "is above cases");
    // Hits of a bin are passes and waived failures of cases that ran with it (findCoverageGaps).
    for (const auto* map : {&f.coveragePassed, &f.coverageWaived}) {
      for (const auto& [bin, n] : *map) {
        const auto get = [&bin = bin](const std::map<std::string, std::size_t>& m) {
          const auto it = m.find(bin);
          return it == m.end() ? std::size_t{0} : it->second;
        };
        const auto hits = checkedSum(get(f.coveragePassed), get(f.coverageWaived));
        if (!hits || *hits > get(f.coverage)) {
          fail(at(fj, map == &f.coveragePassed ? "coverage_passed" : "coverage_waived").name + "." +
                   bin,
               "is more cases than ran with the bin (coverage, passed and waived together)");
        }
      }
    }
  }

  CertifyResult result(const Json& j) const {
    const Field root{j, ""};
    if (text(root, "tool") != "cubecheck") fail("tool", "is not \"cubecheck\"");
    if (has(root, "verdict") && j["verdict"] == kVerdictInProgress) {
      throw MergeError(path_ + ": no verdict: " + optionalText(root, "headline") +
                       "; merge only finished runs: wait for this one, or run it again");
    }
    CertifyResult r;
    r.toolVersion = text(root, "tool_version");
    r.specSha256 = text(root, "spec_sha256");
    r.command = text(root, "command");
    const Field scope = at(root, "scope");
    r.scope.complete = flag(scope, "complete");
    r.scope.filters = texts(scope, "filters");
    r.dutSpec = text(root, "dut");
    r.capabilities = capabilities(at(root, "dut_capabilities"), at(root, "envelope"));
    if (has(root, "vector_set")) {  // a replay: its profiles and set, no level or seed
      CertifyResult::VectorSet set;
      set.digest = text(at(root, "vector_set"), "digest");
      if (has(at(root, "vector_set"), "source_digest"))
        set.sourceDigest = text(at(root, "vector_set"), "source_digest");
      if (has(at(root, "vector_set"), "subset"))
        set.subset = text(at(root, "vector_set"), "subset");
      set.profiles = texts(root, "profiles");
      r.vectorSet = std::move(set);
      if (!r.vectorSet->profiles.empty()) {
        if (auto p = isa::parseProfile(r.vectorSet->profiles.front())) r.profile = *p;
      }
    } else {
      r.profile = *named(at(root, "profile"), isa::parseProfile, "a profile");
      r.level = *named(at(root, "level"), parseLevel, "a level");
      r.seed = unsignedInteger(root, "seed");
    }
    const Field shard = at(root, "shard");
    const std::size_t index = count(shard, "index"), total = count(shard, "count");
    if (total == 0 || index >= total || total > UINT_MAX) {
      throw MergeError(path_ + ": shard " + std::to_string(index) + "/" + std::to_string(total) +
                       " is not I/N with 0 <= I < N");
    }
    r.shardIndex = static_cast<unsigned>(index);
    r.shardCount = static_cast<unsigned>(total);
    if (has(root, "merged_from")) {  // a merged report: what it was made from
      for (const Field& m : elements(root, "merged_from")) {
        CertifyResult::MergedInput in{text(m, "file"), text(m, "sha256")};
        const Field sum = at(m, "sha256");
        expect(sum,
               in.sha256.size() == 64 &&
                   in.sha256.find_first_not_of("0123456789abcdef") == std::string::npos,
               "64 lower-case hex digits (a SHA-256)");
        r.mergedFrom.push_back(std::move(in));
      }
    }
    const Field draws = at(root, "draws");
    r.draws.sizes = text(draws, "sizes");
    if (const Field n = at(draws, "case_budget"); !n.value.is_null()) {
      r.draws.caseBudget = unsignedInteger(n);
    }
    if (const Field t = at(draws, "time_budget_seconds"); !t.value.is_null()) {
      expect(t, t.value.is_number() && t.value.get<double>() >= 0, "null or a number >= 0");
      r.draws.timeBudgetSeconds = t.value.get<double>();
    }
    for (const Field& f : elements(root, "families")) {
      r.families.push_back(family(f, r.profile));
    }
    r.notImplemented = texts(root, "not_implemented");
    r.interrupted = flag(root, "interrupted");
    // Written since interrupted runs drop the cases in flight; an older report has none.
    if (has(root, "cases_cut_short")) {
      r.casesCutShort = count(root, "cases_cut_short");
      if (r.casesCutShort > 0 && !r.interrupted) {
        fail("cases_cut_short", "is " + std::to_string(r.casesCutShort) +
                                    " in a run that was not interrupted (only a signal cuts a "
                                    "case short)");
      }
    }
    r.stoppedEarly = optionalText(root, "stopped_early");
    r.internalError = optionalText(root, "internal_error");
    if (has(root, "input_errors")) r.inputErrors = texts(root, "input_errors");
    const Field determinism = at(root, "determinism");
    r.reruns = count(determinism, "rerun");
    r.rerunsDiffering = count(determinism, "differing");
    fingerprint(root, r);
    if (has(root, "waivers")) {
      for (const Field& w : elements(root, "waivers")) r.waivers.push_back(waiver(w));
    }
    r.seconds = number(root, "seconds");
    checkEnvelope(root, r);
    checkRun(root, r);
    checkVerdict(at(root, "verdict"), r.verdict());
    // Written since report_kind was added; an older report has none.
    if (has(root, "report_kind") && text(root, "report_kind") != r.reportKind()) {
      fail("report_kind", "says '" + text(root, "report_kind") +
                              "' where the report's fields give '" + r.reportKind() + "'");
    }
    if (casesDiffer_) {
      throw MergeError(path_ + ": not a cubecheck report.json: field '" + *casesDiffer_);
    }
    return r;
  }

  /// The envelope is what the report's own reasons say of it: each NotSupported reason that
  /// blames the envelope (a key of not_supported_reasons, its example) names what the
  /// capabilities lack, a limit clause envelope.limits declares, and the envelope's text is the
  /// one they give. A capability widened or a limit deleted would make a certificate read as
  /// certified within more than the run let in.
  void checkEnvelope(const Field& root, const CertifyResult& r) const {
    const dut::Capabilities& caps = r.capabilities;
    const Field envelope = at(root, "envelope");
    if (has(envelope, "certified_within") &&
        text(envelope, "certified_within") != caps.envelopeText()) {
      fail(envelope.name + ".certified_within",
           "says '" + text(envelope, "certified_within") +
               "' where dut_capabilities and envelope.limits give '" + caps.envelopeText() + "'");
    }
    const std::vector<Field> families = elements(root, "families");
    for (std::size_t i = 0; i < r.families.size(); ++i) {
      const FamilyResult& f = r.families[i];
      const Field reasons = at(families[i], "not_supported_reasons");
      for (const auto& [key, n] : f.notSupportedReasons) {
        if (const std::string why = contradicts(key, caps); !why.empty()) {
          fail(reasons.name + "." + key, why);
        }
      }
      const Field examples = at(families[i], "not_supported_examples");
      for (const auto& [key, example] : f.notSupportedExamples) {
        if (const std::string why = contradicts(example, caps); !why.empty()) {
          fail(examples.name + "." + key, why);
        }
      }
    }
  }

  /// Why a NotSupported reason (or its reasonKey) that blames the DUT's envelope contradicts
  /// `caps`, or empty: it names something they declare, or a limit clause they do not.
  static std::string contradicts(const std::string& reason, const dut::Capabilities& caps) {
    // The name after `kind` in `rest`: up to a space or comma (a reason the suite adds to goes
    // on with ", which the suite needs to ...").
    const auto nameAfter = [](std::string_view rest, std::string_view kind) {
      if (!rest.starts_with(kind)) return std::optional<std::string>();
      rest.remove_prefix(kind.size());
      return std::optional<std::string>(rest.substr(0, rest.find_first_of(" ,")));
    };
    const auto lists = [](const std::string& what, const std::string& name, const char* field) {
      return "says the DUT " + what + " " + name + ", which dut_capabilities." + field + " lists";
    };
    const std::string_view text = reason;
    if (text.starts_with(kOutsideLimits)) {
      std::string clauses;
      for (const dut::FieldLimit& l : caps.limits) {
        const std::string full = std::string(kOutsideLimits) + l.text;
        for (const std::string& said : {full, reasonKey(full)}) {
          if (text == said || text.starts_with(said + ",")) return {};
        }
        clauses += (clauses.empty() ? "" : ", ") + l.text;
      }
      const std::string_view rest = text.substr(kOutsideLimits.size());
      return "says the case is outside the declared clause '" +
             std::string(rest.substr(0, rest.find(','))) +
             "', which envelope.limits does not declare (it declares " +
             (clauses.empty() ? std::string("none") : clauses) + ")";
    }
    if (text.starts_with(kNotValidated)) {
      return caps.rejectsIllegal ? "says the DUT does not validate programs, where "
                                   "dut_capabilities.rejects_illegal is true"
                                 : std::string();
    }
    if (text.starts_with(kNotDeclared)) {
      const std::string_view rest = text.substr(kNotDeclared.size());
      if (const auto p = nameAfter(rest, "profile ")) {
        const auto id = isa::parseProfile(*p);
        if (id && caps.hasProfile(*id)) return lists("does not declare profile", *p, "profiles");
      } else if (const auto i = nameAfter(rest, "instruction ")) {
        if (caps.hasInstruction(*i)) {
          return lists("does not declare instruction", *i, "instructions");
        }
      } else if (const auto t = nameAfter(rest, "data type ")) {
        const auto dt = isa::parseDType(*t);
        if (dt && caps.hasDType(*dt)) return lists("does not declare data type", *t, "dtypes");
      }
      return {};
    }
    if (text.starts_with(kCannot)) {
      const std::string_view rest = text.substr(kCannot.size());
      if (const auto m = nameAfter(rest, "observe ")) {
        const auto mem = isa::parseMemory(*m);
        if (mem && caps.canObserve(*mem)) return lists("cannot observe", *m, "observable");
      } else if (const auto g = nameAfter(rest, "be given an image of ")) {
        const auto mem = isa::parseMemory(*g);
        if (mem && caps.canBeGiven(*mem)) {
          return lists(
              "cannot be given an image of", *g,
              caps.given.empty() ? "observable (what it may be given, no given list)" : "given");
        }
      }
    }
    return {};
  }

  /// What the report's command, profile, level, sizes, scope and finish state decide is as this
  /// version's run decides it, not as the file says: a report is refused that lists other families
  /// than its run lists (one missing makes a certificate of the rest) or another coverage than
  /// certify requires of them (a bin or the level's quota dropped makes a gap vanish).
  void checkRun(const Field& root, const CertifyResult& r) const {
    const Field scope = at(root, "scope");
    // Every writer: complete exactly when nothing was filtered.
    if (r.scope.complete != r.scope.filters.empty()) {
      fail(scope.name + ".complete",
           r.scope.complete ? "is true beside filters" : "is false though nothing was filtered");
    }
    const bool replay = isReplay(r.command);
    if (!replay && r.command != "certify" && r.command != "fuzz") {
      fail("command",
           "names a command '" + r.command + "' whose reports this version does not write");
    }
    if (replay != r.vectorSet.has_value()) {
      fail(replay ? "vector_set" : "command",
           replay ? "is missing" : "is '" + r.command + "' beside a vector_set (a replay's)");
    }
    if (replay) return;  // a replay's families are the vector files it was given
    const std::optional<gen::Sizes> sizes = gen::parseSizes(r.draws.sizes);
    if (!sizes)
      fail("draws.sizes", "names sizes '" + r.draws.sizes + "' this version does not know");
    const bool fuzz = r.command == "fuzz";
    // The filters the run wrote, and the families they leave it.
    std::vector<std::string> named;  // --family, as typed
    bool whole = true;               // no --property or --case
    const std::string ownShard =
        "--shard " + std::to_string(r.shardIndex) + "/" + std::to_string(r.shardCount);
    bool shardFilter = false;
    const std::vector<Field> filters = elements(scope, "filters");
    for (std::size_t i = 0; i < filters.size(); ++i) {
      const std::string& f = r.scope.filters[i];
      if (f.rfind("--family ", 0) == 0) {
        // No run takes a family twice (cli::checkFamilies): its cases would count twice.
        if (std::find(named.begin(), named.end(), f.substr(9)) != named.end()) {
          fail(filters[i].name, "is '" + f + "' a second time: no run takes a family twice");
        }
        named.push_back(f.substr(9));
      } else if (!fuzz && (f.rfind("--property ", 0) == 0 || f.rfind("--case ", 0) == 0)) {
        whole = false;
      } else if (fuzz && f == ownShard && r.shardCount > 1 && !shardFilter) {
        shardFilter = true;
      } else {
        fail(filters[i].name, "is '" + f + "', not a filter " + r.command +
                                  " writes for this report's shard " + ownShard.substr(8));
      }
    }
    if (fuzz && r.shardCount > 1 && !shardFilter) {
      fail(scope.name + ".filters", "lack the shard's own " + ownShard);
    }
    if (!fuzz && r.draws != Draws{r.draws.sizes, std::nullopt, std::nullopt}) {
      fail("draws", "has a case or time budget, which certify does not take");
    }
    if (!fuzz && r.shardCount != 1) fail("shard", "is not 0/1: certify is not sharded");
    const bool halted = !r.unfinished().empty();
    std::vector<std::string> want, wantMissing;
    for (std::string_view n : kFamilyNames) {
      // fuzz: the table's families the --family filters keep, that the profile has.
      if (fuzz && (named.empty() || std::find(named.begin(), named.end(), n) != named.end()) &&
          makeFamily(n, r.profile, *sizes)->unsupported.empty()) {
        want.emplace_back(n);
      }
      if (!fuzz && named.empty()) want.emplace_back(n);  // certify: every family, in order
    }
    if (!fuzz) {  // certify: the --family list as typed, a name this version lacks not run
      for (const std::string& n : named) (isImplemented(n) ? want : wantMissing).push_back(n);
    }
    // An unfinished certify run stops before the families after the one it stopped in.
    const bool prefix = !fuzz && halted;
    std::vector<std::string> got;
    for (const FamilyResult& f : r.families) got.push_back(f.name);
    sameNames(at(root, "families"), got, want, prefix, r);
    sameNames(at(root, "not_implemented"), r.notImplemented, wantMissing, prefix, r);
    const std::vector<Field> families = elements(root, "families");
    // The open points a family's verdict rests on follow from the family, the profile and the
    // cases that ran (openPointsThatRan, as the run applies it): derived again, not read.
    for (std::size_t i = 0; i < r.families.size(); ++i) {
      const FamilyResult& f = r.families[i];
      const std::vector<std::string> rests =
          openPointsThatRan(*makeFamily(f.name, r.profile, *sizes), f);
      if (f.openPoints != rests) {
        fail(at(families[i], "open_points").name,
             "is [" + commaList(f.openPoints) + "] where the cases of " + f.name + " that ran on " +
                 std::string(isa::profile(r.profile).name) + " rest on [" + commaList(rests) +
                 "]: a certificate names every open point its verdict rests on");
      }
    }
    if (fuzz) return;  // fuzz checks no coverage
    for (std::size_t i = 0; i < r.families.size(); ++i) {
      const FamilyResult& f = r.families[i];
      RequiredCoverage required;
      if (whole) required = requiredCoverage(*makeFamily(f.name, r.profile, *sizes), r.level);
      // The family a run stopped in checks none (its quota may be set: the stop came as it
      // drew cases to fill the bins).
      const bool stoppedIn = halted && i + 1 == r.families.size();
      const Field quota = at(families[i], "coverage_quota");
      if (stoppedIn ? f.coverageQuota != 0 && f.coverageQuota != required.quota
                    : f.coverageQuota != required.quota) {
        fail(quota.name, "is " + std::to_string(f.coverageQuota) + " where certify at level " +
                             std::string(nameOf(r.level)) + " requires " +
                             std::to_string(required.quota) + " of " + f.name);
      }
      if (stoppedIn) required.bins.clear();
      sameBins(at(families[i], "coverage_required"), f, required.bins, r.level);
    }
  }

  /// `got` (the report's `field`) is `want`, or a prefix of it when `prefix`; else names what
  /// differs: a name missing, one the version does not have, one given twice, the order.
  void sameNames(const Field& field, const std::vector<std::string>& got,
                 const std::vector<std::string>& want, bool prefix, const CertifyResult& r) const {
    const bool same =
        prefix ? got.size() <= want.size() && std::equal(got.begin(), got.end(), want.begin())
               : got == want;
    if (same) return;
    const auto n = [](const std::vector<std::string>& v, const std::string& x) {
      return std::count(v.begin(), v.end(), x);
    };
    std::vector<std::string> missing, unknown, twice, extra;
    for (const std::string& x : want) {
      if (n(got, x) < n(want, x) && n(missing, x) == 0) missing.push_back(x);
    }
    for (const std::string& x : got) {
      if (!isImplemented(x) && field.name == "families") {
        if (n(unknown, x) == 0) unknown.push_back(x);
      } else if (n(got, x) > std::max<std::ptrdiff_t>(n(want, x), 1)) {
        if (n(twice, x) == 0) twice.push_back(x);
      } else if (n(want, x) == 0 && n(extra, x) == 0) {
        extra.push_back(x);
      }
    }
    std::vector<std::string> why;
    if (!missing.empty() && !prefix) why.push_back("lacks " + commaList(missing));
    if (!unknown.empty()) why.push_back("names " + commaList(unknown) + ", not in this version");
    if (!twice.empty()) why.push_back("lists " + commaList(twice) + " twice");
    if (!extra.empty()) why.push_back("lists " + commaList(extra) + ", which the run leaves out");
    if (why.empty()) why.push_back("is not in the order the run lists them");
    std::string run = r.command + " on " + std::string(isa::profile(r.profile).name);
    if (!r.scope.filters.empty()) run += " with " + commaList(r.scope.filters);
    fail(field.name, commaList(why) + ": a " + run + " run of this version lists " +
                         (want.empty() ? "none" : commaList(want)) +
                         (prefix ? " (an unfinished run: the first of them)" : ""));
  }

  /// A certify family's coverage_required is what the run required of it (requiredCoverage).
  void sameBins(const Field& field, const FamilyResult& f,
                const std::vector<std::pair<std::string, std::size_t>>& want, Level level) const {
    const auto& got = f.coverageRequired;
    if (got == want) return;
    const std::string at = " where certify at level " + std::string(nameOf(level)) +
                           " requires of " + f.name + " (" + std::to_string(want.size()) + " bins)";
    for (const auto& [bin, quota] : want) {
      const auto it = std::find_if(got.begin(), got.end(),
                                   [&bin = bin](const auto& g) { return g.first == bin; });
      if (it == got.end()) fail(field.name, "lacks bin '" + bin + "'" + at);
      if (it->second != quota) {
        fail(field.name, "requires bin '" + bin + "' " + std::to_string(it->second) +
                             " times, not " + std::to_string(quota) + at);
      }
    }
    for (const auto& [bin, quota] : got) {
      const auto it = std::find_if(want.begin(), want.end(),
                                   [&bin = bin](const auto& w) { return w.first == bin; });
      if (it == want.end()) fail(field.name, "lists bin '" + bin + "', not one" + at);
    }
    fail(field.name, "does not list its bins once each in the order" + at);
  }

 private:
  void expect(const Field& f, bool ok, const char* kind) const {
    if (!ok) fail(f.name, std::string("is not ") + kind);
  }

  std::string path_;
};

}  // namespace

std::string_view countKey(Outcome outcome) {
  for (const auto& [key, o] : kOutcomeKeys) {
    if (o == outcome) return key;
  }
  return "cases";
}

CertifyResult fromJson(const std::string& text, const std::string& path) {
  // The JSON parser skips a byte order mark silently: a report.json an editor saved again is
  // named, as every other file cubecheck reads.
  if (startsWithByteOrderMark(text)) {
    throw MergeError(path + ":1:1: " +
                     byteOrderMarkMessage("save it without one, or use the report as written"));
  }
  Json j;
  try {
    UniqueParse<Json> parsed = parseUniqueKeys<Json>(text);
    // The parser keeps the last value, a reader of the file sees the first: refused.
    if (parsed.duplicateKey) {
      throw MergeError(path + ": not a cubecheck report.json: field '" + *parsed.duplicateKey +
                       "' is given twice in one object");
    }
    j = std::move(parsed.value);
  } catch (const nlohmann::json::exception& e) {  // a syntax error, or a number out of range
    throw MergeError(path + ": not JSON: " + e.what());
  }
  if (!j.is_object()) throw MergeError(path + ": not a cubecheck report.json (not an object)");
  return Reader(path).result(j);
}

}  // namespace cubecheck::conf
