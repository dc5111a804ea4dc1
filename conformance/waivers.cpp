#include "conformance/waivers.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "conformance/byte_order_mark.hpp"
#include "conformance/families.hpp"
#include "conformance/json_unique.hpp"
#include "conformance/runner.hpp"

namespace cubecheck::conf {
namespace {

using Json = nlohmann::json;

constexpr std::pair<std::string_view, Outcome> kWaivedOutcomes[] = {
    {"mismatch", Outcome::Mismatch},
    {"declined", Outcome::Declined},
    {"crash", Outcome::AdapterError},
    {"timeout", Outcome::Timeout},
    {"nondeterministic", Outcome::Nondeterministic},
};

/// A calendar date written YYYY-MM-DD.
bool isDate(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (s[i] < '0' || s[i] > '9') return false;
  }
  const std::chrono::year_month_day d{std::chrono::year(std::stoi(s.substr(0, 4))),
                                      std::chrono::month(std::stoul(s.substr(5, 2))),
                                      std::chrono::day(std::stoul(s.substr(8, 2)))};
  return d.ok();
}

/// The family a result's name stands for: a vector file ("load2d.a2.csv") is its family's.
std::string familyOf(const std::string& name) {
  return name.substr(0, name.find('.'));
}

bool matches(const Waiver& w, const std::string& family, const Failure& x) {
  return w.family == familyOf(family) && (w.property.empty() || w.property == x.property) &&
         (w.signature.empty() || w.signature == x.signature) &&
         x.outcome == w.outcome.value_or(Outcome::Mismatch);
}

/// The names of the family's properties on any profile: what a failure's `property` can be.
std::set<std::string> propertiesOf(const std::string& family) {
  std::set<std::string> out;
  for (isa::ProfileId p : isa::kAllProfiles) {
    if (auto f = makeFamily(family, p)) {
      for (const auto& property : f->properties) out.insert(property->name());
    }
  }
  return out;
}

}  // namespace

std::optional<Outcome> parseWaivedOutcome(std::string_view name) {
  for (const auto& [n, o] : kWaivedOutcomes) {
    if (n == name) return o;
  }
  return std::nullopt;
}

std::string_view waivedOutcomeName(Outcome o) {
  for (const auto& [n, x] : kWaivedOutcomes) {
    if (x == o) return n;
  }
  return nameOf(o);
}

std::string todayUtc() {
  const auto days = std::chrono::floor<std::chrono::days>(std::chrono::system_clock::now());
  const std::chrono::year_month_day d{days};
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02u", static_cast<int>(d.year()),
                static_cast<unsigned>(d.month()), static_cast<unsigned>(d.day()));
  return buf;
}

std::vector<Waiver> parseWaivers(const std::string& text, const std::string& path) {
  auto fail = [&path](const std::string& field, const std::string& what) {
    throw WaiverError(path + ": " + field + ": " + what);
  };
  // The JSON parser skips a byte order mark silently; every other file cubecheck reads names it.
  if (startsWithByteOrderMark(text)) {
    throw WaiverError(path + ":1:1: " + byteOrderMarkMessage("save it without one"));
  }
  Json j;
  try {
    UniqueParse<Json> parsed = parseUniqueKeys<Json>(text);
    // The parser keeps the last value, a reviewer reads the first: refused, not resolved.
    if (parsed.duplicateKey)
      fail(*parsed.duplicateKey,
           "is given twice in one object (a reader sees the first value, the parser would keep "
           "the last)");
    j = std::move(parsed.value);
  } catch (const Json::exception& e) {  // a syntax error, or a number past double's range
    throw WaiverError(path + ": not JSON: " + e.what());
  }
  if (!j.is_object()) fail("(the document)", "is not an object {\"waivers\": [...]}");
  for (const auto& [key, value] : j.items()) {
    if (key != "waivers") fail(key, "unknown key (the file holds only \"waivers\")");
  }
  if (!j.contains("waivers")) fail("waivers", "is missing");
  if (!j["waivers"].is_array()) fail("waivers", "is not an array");
  std::vector<Waiver> out;
  for (std::size_t i = 0; i < j["waivers"].size(); ++i) {
    const Json& e = j["waivers"][i];
    const std::string at = "waivers[" + std::to_string(i) + "]";
    if (!e.is_object()) fail(at, "is not an object");
    static constexpr std::string_view kKeys[] = {"dut",     "family", "property", "signature",
                                                 "outcome", "reason", "until"};
    for (const auto& [key, value] : e.items()) {
      if (std::find(std::begin(kKeys), std::end(kKeys), key) == std::end(kKeys)) {
        fail(at + "." + key,
             "unknown key (known: dut, family, property, signature, outcome, reason, until)");
      }
      if (!value.is_string()) fail(at + "." + key, "is not a string");
    }
    auto field = [&](const char* key, bool required) {
      if (!e.contains(key)) {
        if (required) fail(at + "." + key, "is missing");
        return std::string();
      }
      std::string s = e[key].get<std::string>();
      if (s.empty()) fail(at + "." + key, "is empty");
      if (s.find_first_not_of(" \t\r\n\f\v") == std::string::npos) {
        fail(at + "." + key, "is blank");
      }
      return s;
    };
    Waiver w;
    w.dut = field("dut", true);
    w.family = field("family", true);
    if (!isImplemented(w.family)) {
      std::string known;
      for (std::string_view n : kFamilyNames) known += (known.empty() ? "" : ", ") + std::string(n);
      fail(at + ".family", "'" + w.family + "' is not a family of this version (" + known + ")");
    }
    w.property = field("property", false);
    if (!w.property.empty()) {
      const std::set<std::string> known = propertiesOf(w.family);
      if (known.count(w.property) == 0) {
        std::string list;
        for (const std::string& n : known) list += (list.empty() ? "" : ", ") + n;
        fail(at + ".property",
             "'" + w.property + "' is not a property of " + w.family + " (" + list + ")");
      }
    }
    w.signature = field("signature", false);
    if (const std::string o = field("outcome", false); !o.empty()) {
      w.outcome = parseWaivedOutcome(o);
      if (!w.outcome) {
        fail(at + ".outcome",
             "'" + o +
                 "' is not an outcome a waiver names (mismatch, declined, crash, timeout, "
                 "nondeterministic)");
      }
    }
    w.reason = field("reason", true);
    w.until = field("until", false);
    if (!w.until.empty() && !isDate(w.until)) {
      fail(at + ".until", "'" + w.until + "' is not a date YYYY-MM-DD");
    }
    out.push_back(std::move(w));
  }
  return out;
}

std::string WaiverResult::status(bool completeRun) const {
  if (expired) return "expired";
  if (otherDut) return "not for this DUT";
  if (cases > 0) return "waived " + std::to_string(cases) + " case(s)";
  return completeRun ? "stale" : "not judged (partial run)";
}

WaiverSet::WaiverSet(std::vector<Waiver> waivers, std::string today, const std::string& dutSpec,
                     const std::string& dutName) {
  for (Waiver& w : waivers) {
    WaiverResult r;
    r.expired = !w.until.empty() && w.until < today;
    r.otherDut = w.dut != "*" && w.dut != dutSpec && w.dut != dutName;
    r.waiver = std::move(w);
    results_.push_back(std::move(r));
  }
}

bool WaiverSet::wantsSignature(const std::string& family) const {
  return std::any_of(results_.begin(), results_.end(), [&](const WaiverResult& r) {
    return !r.expired && !r.otherDut && r.waiver.family == familyOf(family) &&
           !r.waiver.signature.empty();
  });
}

void WaiverSet::apply(const std::string& family, FamilyResult& into, PropertyResult& property,
                      Failure& failure, const std::vector<std::string>& tags) {
  for (WaiverResult& r : results_) {
    if (r.expired || r.otherDut || !matches(r.waiver, family, failure)) continue;
    failure.waiver = r.waiver.reason;
    const auto o = static_cast<std::size_t>(failure.outcome);
    property.waived.byOutcome[o] += 1;
    into.waived.byOutcome[o] += 1;
    into.waivedReasons[r.waiver.reason] += 1;
    // A waived case fills its bins only when the DUT answered it (a known wrong answer): a
    // declined, crashed or timed-out case exercised nothing, so its bins stay short.
    const bool answered =
        failure.outcome == Outcome::Mismatch || failure.outcome == Outcome::Nondeterministic;
    for (const std::string& t : tags)
      (answered ? into.coverageWaived : into.coverageUnanswered)[t] += 1;
    r.cases += 1;
    return;
  }
}

void WaiverSet::report(CertifyResult& r) const {
  r.waivers = results_;
}

}  // namespace cubecheck::conf
