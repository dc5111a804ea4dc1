// Waivers (--waivers): known failures reported as waived with their reason, never hiding what
// they do not name; stale and expired waivers reported; the file checked before anything runs;
// waived counts carried through report.json and merge-reports. And certify's arithmetic
// fingerprint in the report model.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "conformance/families.hpp"
#include "conformance/fuzz.hpp"
#include "conformance/merge.hpp"
#include "conformance/report.hpp"
#include "conformance/report_read.hpp"
#include "conformance/waivers.hpp"
#include "dut_adapters/registry.hpp"
#include "process.hpp"

namespace cubecheck::conf {
namespace {

using Json = nlohmann::ordered_json;

constexpr const char* kMutant = "mutant:load2d-dst-gap-ignored";
constexpr const char* kToday = "2026-06-15";

Waiver load2dWaiver() {
  Waiver w;
  w.dut = "*";
  w.family = "load2d";
  w.reason = "dst_gap is a known defect, tracked in BUG-1";
  return w;
}

/// certify `spec` at smoke level on load2d (seed 1), with these waivers applied as of kToday.
CertifyResult certifyWith(const std::string& spec, std::vector<Waiver> waivers,
                          std::vector<std::string> families = {"load2d"}) {
  auto dut = dut::makeDut(spec);
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 1;
  o.dutSpec = spec;
  o.families = std::move(families);
  WaiverSet set(std::move(waivers), kToday, spec, dut->capabilities().name);
  if (!set.empty()) o.waivers = &set;
  return certify(*dut, o);
}

const WaiverResult& only(const CertifyResult& r) {
  EXPECT_EQ(r.waivers.size(), 1u);
  return r.waivers.at(0);
}

/// The status report.json gives the run's waiver `i`.
std::string statusOf(const CertifyResult& r, std::size_t i = 0) {
  return Json::parse(toJson(r))["waivers"][i]["status"].get<std::string>();
}

// The issue's done-when, in the library: a waiver for family load2d makes the dst_gap mutant
// conformant_with_waivers; without it the same run is nonconformant.
TEST(Waivers, AFamilyWaiverMakesTheMutantConformantWithWaivers) {
  const CertifyResult without = certifyWith(kMutant, {});
  ASSERT_EQ(without.verdict(), "nonconformant");
  const std::size_t failures = without.families.at(0).counts.failures();
  ASSERT_GT(failures, 0u);

  const CertifyResult with = certifyWith(kMutant, {load2dWaiver()});
  const FamilyResult& f = with.families.at(0);
  EXPECT_EQ(with.verdict(), "conformant_with_waivers") << with.headline();
  EXPECT_TRUE(with.conformant());
  EXPECT_EQ(f.verdict(), "conformant_with_waivers");
  EXPECT_EQ(f.waived.failures(), failures) << "every failing case waived, none hidden";
  EXPECT_EQ(f.counts.failures(), failures) << "the cases still count as what they were";
  EXPECT_EQ(only(with).cases, failures);
  EXPECT_EQ(f.waivedReasons.at(load2dWaiver().reason), failures);
  for (const Failure& x : f.failures) EXPECT_EQ(x.waiver, load2dWaiver().reason);
  EXPECT_NE(with.headline().find("failing case(s) waived in load2d"), std::string::npos);
}

// Every format says what was waived and why.
TEST(Waivers, EveryFormatShowsTheWaivedFailuresAndTheReason) {
  const CertifyResult r = certifyWith(kMutant, {load2dWaiver()});
  const std::string reason = load2dWaiver().reason;
  std::ostringstream text;
  printReport(text, r);
  for (const std::string& out : {text.str(), toMarkdown(r), toHtml(r), toJUnit(r)}) {
    EXPECT_NE(out.find(reason), std::string::npos) << out.substr(0, 400);
  }
  EXPECT_NE(text.str().find("WAIVED load2d/"), std::string::npos);
  EXPECT_NE(text.str().find("verdict: PARTIAL RUN"), std::string::npos)
      << "a --family run stays a partial run";
  EXPECT_NE(toMarkdown(r).find("WAIVED Mismatch"), std::string::npos);
  const Json j = Json::parse(toJson(r));
  EXPECT_EQ(j["verdict"], "conformant_with_waivers");
  EXPECT_EQ(j["families"][0]["waived"]["failed"], r.families[0].waived.of(Outcome::Mismatch));
  EXPECT_EQ(j["families"][0]["failures"][0]["waived"], reason);
  // JUnit counts no waived case as a failure.
  EXPECT_EQ(toJUnit(r).find("<failure"), std::string::npos);
  EXPECT_NE(toJUnit(r).find("failing case(s) waived"), std::string::npos);
}

TEST(Waivers, AWholeRunCertificateSaysConformantWithWaivers) {
  CertifyResult r = certifyWith(kMutant, {load2dWaiver()});
  r.scope = {};  // as the complete run of the CLI test would be
  EXPECT_EQ(r.headline().rfind("CONFORMANT WITH WAIVERS on profile a2 for load2d", 0), 0u)
      << r.headline();
}

// nu11 F5: a NONCONFORMANT headline listed a family whose failures were all waived among the
// plain "conformant" ones. It is listed as conformant with waivers, apart from those, and so in
// a run that did not finish.
TEST(Waivers, ANonconformantHeadlineSaysWhichFamiliesOnlyPassedWithWaivers) {
  const std::string spec = "mutant:load2d-dst-gap-ignored+mmad-init-ignored";
  CertifyResult r = certifyWith(spec, {load2dWaiver()}, {"load2d", "mmad", "load_sparse"});
  r.scope = {};  // as the complete run of the CLI would be
  ASSERT_EQ(r.families.at(0).verdict(), "conformant_with_waivers");
  ASSERT_EQ(r.families.at(1).verdict(), "nonconformant");
  ASSERT_EQ(r.families.at(2).verdict(), "conformant");
  const std::string h = r.headline();
  EXPECT_EQ(h.rfind("NONCONFORMANT on profile a2; nonconformant: mmad", 0), 0u) << h;
  EXPECT_NE(h.find("; conformant: load_sparse; conformant with waivers: load2d"), std::string::npos)
      << h;
  r.interrupted = true;
  EXPECT_NE(r.headline().find("; no failure so far in: load_sparse; only waived failures so far "
                              "in: load2d"),
            std::string::npos)
      << r.headline();
}

// A waiver that matches nothing: stale in a complete run, not judged in a partial one.
TEST(Waivers, AWaiverThatMatchesNothingIsStaleOnlyInACompleteRun) {
  Waiver w = load2dWaiver();
  w.family = "mmad";  // the dst_gap mutant fails nothing in mmad
  CertifyResult r = certifyWith(kMutant, {w});
  EXPECT_EQ(r.verdict(), "nonconformant") << "the load2d failures are not waived";
  EXPECT_EQ(only(r).cases, 0u);
  EXPECT_EQ(statusOf(r), "not judged (partial run)");
  r.scope = {};
  EXPECT_EQ(statusOf(r), "stale");
  std::ostringstream text;
  printReport(text, r);
  EXPECT_NE(text.str().find("): stale: "), std::string::npos);
  r.interrupted = true;
  EXPECT_EQ(statusOf(r), "not judged (partial run)") << "an interrupted run cannot tell";
}

// `until` is the last day a waiver applies: after it, it waives nothing and says it expired.
TEST(Waivers, AnExpiredWaiverDoesNotApply) {
  Waiver lastDay = load2dWaiver();
  lastDay.until = kToday;
  EXPECT_EQ(certifyWith(kMutant, {lastDay}).verdict(), "conformant_with_waivers");
  Waiver expired = load2dWaiver();
  expired.until = "2026-06-14";
  const CertifyResult r = certifyWith(kMutant, {expired});
  EXPECT_EQ(r.verdict(), "nonconformant");
  EXPECT_EQ(r.families.at(0).waived.failures(), 0u);
  EXPECT_TRUE(only(r).expired);
  EXPECT_EQ(statusOf(r), "expired");
}

TEST(Waivers, AWaiverForAnotherDutDoesNotApply) {
  Waiver other = load2dWaiver();
  other.dut = "exec:./another_dut";
  const CertifyResult r = certifyWith(kMutant, {other});
  EXPECT_EQ(r.verdict(), "nonconformant");
  EXPECT_EQ(statusOf(r), "not for this DUT");
  // The spec as typed or the name the DUT declares both name it.
  Waiver bySpec = load2dWaiver();
  bySpec.dut = kMutant;
  EXPECT_EQ(certifyWith(kMutant, {bySpec}).verdict(), "conformant_with_waivers");
  Waiver byName = load2dWaiver();
  byName.dut = dut::makeDut(kMutant)->capabilities().name;
  EXPECT_EQ(certifyWith(kMutant, {byName}).verdict(), "conformant_with_waivers");
}

// A property or a signature narrows a waiver to those failures; the others still fail.
TEST(Waivers, PropertyAndSignatureNarrowAWaiver) {
  const CertifyResult plain = certifyWith(kMutant, {});
  const FamilyResult& pf = plain.families.at(0);
  ASSERT_FALSE(pf.failures.empty());
  const std::string property = pf.failures.front().property;
  const std::string signature = pf.failures.front().signature;
  ASSERT_FALSE(signature.empty());
  std::size_t ofProperty = 0;
  for (const PropertyResult& p : pf.properties) {
    if (p.name == property) ofProperty = p.counts.failures();
  }
  std::set<std::string> failingProperties;
  for (const PropertyResult& p : pf.properties) {
    if (p.counts.failures() > 0) failingProperties.insert(p.name);
  }

  Waiver byProperty = load2dWaiver();
  byProperty.property = property;
  const CertifyResult p = certifyWith(kMutant, {byProperty});
  EXPECT_EQ(p.families[0].waived.failures(), ofProperty);
  for (const PropertyResult& q : p.families[0].properties) {
    EXPECT_EQ(q.waived.failures(), q.name == property ? q.counts.failures() : 0u) << q.name;
  }
  EXPECT_EQ(p.verdict(),
            failingProperties.size() > 1 ? "nonconformant" : "conformant_with_waivers");

  Waiver bySignature = load2dWaiver();
  bySignature.signature = signature;
  const CertifyResult s = certifyWith(kMutant, {bySignature});
  EXPECT_GT(s.families[0].waived.failures(), 0u);
  for (const Failure& x : s.families[0].failures) {
    EXPECT_EQ(!x.waiver.empty(), x.signature == signature) << x.signature;
  }
  Waiver noSuchSignature = load2dWaiver();
  noSuchSignature.signature = signature + " (not this one)";
  const CertifyResult none = certifyWith(kMutant, {noSuchSignature});
  EXPECT_EQ(none.families[0].waived.failures(), 0u);
  EXPECT_EQ(none.verdict(), "nonconformant");
}

/// certify `spec` at smoke on mmad (seed 1) with `waivers`, each failing case (listed or not,
/// waived or not) to `seen` when given.
CertifyResult certifyMmad(const std::string& spec, std::vector<Waiver> waivers,
                          std::function<void(const Failure&)> seen = {}) {
  auto dut = dut::makeDut(spec);
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 1;
  o.dutSpec = spec;
  o.families = {"mmad"};
  if (seen) o.onFailure = [&seen](const std::string&, const Failure& f) { seen(f); };
  WaiverSet set(std::move(waivers), kToday, spec, dut->capabilities().name);
  if (!set.empty()) o.waivers = &set;
  return certify(*dut, o);
}

// Red team M3: every wrong Mmad value had one signature, so waivers narrowed to the signatures
// of one known Mmad bug hid every other Mmad bug. Two faults in two modes: C from L0C or the
// bias table ignored (cmatrix_init_val 0, no bias tensor), and HF32 that stays on once set
// (set_hf32). Waived by the signatures the first shows, the first alone is conformant with
// waivers; with the second beside it the DUT is not.
TEST(Waivers, SignatureWaiversForOneModeOfAnInstructionHideNoBugOfAnother) {
  const std::string known = "mmad-init-ignored", other = "mmad-hf32-sticky";
  // A waiver naming a signature makes certify find every failure's signature, not only the
  // listed ones'; this one names none that occurs.
  Waiver find;
  find.dut = "*";
  find.family = "mmad";
  find.signature = "no such signature";
  find.reason = "find every signature";
  std::set<std::string> signatures;
  ASSERT_EQ(certifyMmad("mutant:" + known, {find},
                        [&](const Failure& x) { signatures.insert(x.signature); })
                .verdict(),
            "nonconformant");
  ASSERT_FALSE(signatures.empty());
  std::vector<Waiver> waivers;
  for (const std::string& s : signatures) {
    Waiver w = find;
    w.signature = s;
    w.reason = "BUG-7: " + known;
    waivers.push_back(w);
  }
  // Alone, every failure is waived. (Its verdict may still name a coverage gap: a bin only the
  // known bug's cases hold, scaled:l0c_large, is filled by none of them, since a waived failure
  // fills the bins of the shrunk case the DUT answered, not the drawn one's; the shrink may have
  // moved to another cause.)
  const CertifyResult alone = certifyMmad("mutant:" + known, waivers);
  EXPECT_EQ(alone.families.at(0).unwaivedFailures(), 0u) << alone.headline();
  EXPECT_GT(alone.families.at(0).waived.failures(), 0u);

  std::size_t untouched = 0;
  const auto check = [&untouched](const Failure& x) {
    // A case whose every Mmad starts from zero is one the known fault cannot change: it is the
    // other's, and never waived.
    const bool zeroInit =
        x.vector &&
        std::all_of(x.vector->program.instructions.begin(), x.vector->program.instructions.end(),
                    [](const isa::Instruction& i) {
                      const auto* m = std::get_if<isa::Mmad>(&i);
                      return m == nullptr || (m->cmatrixInitVal && !m->isBias);
                    });
    untouched += zeroInit ? 1 : 0;
    if (zeroInit) {
      EXPECT_EQ(x.waiver, "") << x.signature;
    }
    // What is not waived is the other fault, named in the mode it lives in.
    if (x.waiver.empty()) {
      EXPECT_NE(x.signature.find("set_hf32 enable=1"), std::string::npos) << x.signature;
    }
  };
  const CertifyResult both = certifyMmad("mutant:" + known + "+" + other, waivers, check);
  EXPECT_EQ(both.verdict(), "nonconformant") << both.headline();
  const FamilyResult& f = both.families.at(0);
  EXPECT_GT(f.unwaivedFailures(), 0u);
  EXPECT_GT(f.waived.failures(), 0u) << "the known bug is still waived beside the other";
  EXPECT_GT(untouched, 0u);
}

Failure failing(Outcome o) {
  Failure x;
  x.property = "MatchesOracle";
  x.outcome = o;
  x.signature = "load2d: load2d (path=A1toA2 dtype=f16 if_transpose=0 addr_mode=0) wrong values";
  return x;
}

// A crash, a timeout, a declined or a nondeterministic case is waived only by a waiver that
// names that outcome; a waiver naming one outcome waives no other.
TEST(Waivers, AWaiverHidesNoCrashTimeoutDeclinedOrNondeterministicCaseUnlessItNamesIt) {
  for (Outcome o : {Outcome::AdapterError, Outcome::Timeout, Outcome::Declined,
                    Outcome::Nondeterministic, Outcome::Mismatch}) {
    SCOPED_TRACE(std::string(nameOf(o)));
    Waiver named = load2dWaiver();
    named.outcome = o;
    for (const bool naming : {false, true}) {
      WaiverSet set({naming ? named : load2dWaiver()}, kToday, "d", "d");
      FamilyResult f;
      f.name = "load2d";
      PropertyResult p{"MatchesOracle", "", {}, 0};
      Failure x = failing(o);
      f.record(p, Verdict{o, "detail"}, {"bin"});
      set.apply(f.name, f, p, x, {"bin"});
      const bool waived = naming || o == Outcome::Mismatch;
      EXPECT_EQ(x.waiver.empty(), !waived) << naming;
      EXPECT_EQ(f.unwaivedFailures(), waived ? 0u : 1u);
      // Red team (round 10): a waived declined case filled its bins, so a DUT declining every
      // f32 Mmad under a waiver was CONFORMANT WITH WAIVERS with no f32 case run. Only a case
      // the DUT answered fills them.
      const bool answered = o == Outcome::Mismatch || o == Outcome::Nondeterministic;
      EXPECT_EQ(f.coverageWaived.count("bin"), waived && answered ? 1u : 0u);
      // ... and the top-up draws on past such a case (review): its bin is still short.
      f.coverageRequired = {{"bin", 1}};
      EXPECT_EQ(f.binsShort().size(), waived && !answered ? 1u : 0u);
    }
    if (o == Outcome::Mismatch) continue;
    WaiverSet crashOnly({[] {
                          Waiver w = load2dWaiver();
                          w.outcome = Outcome::AdapterError;
                          return w;
                        }()},
                        kToday, "d", "d");
    FamilyResult f;
    PropertyResult p{"MatchesOracle", "", {}, 0};
    Failure x = failing(o);
    crashOnly.apply("load2d", f, p, x);
    EXPECT_EQ(x.waiver.empty(), o != Outcome::AdapterError);
  }
}

// A run that did not finish (an internal error, a signal, a DUT given up on) is never green,
// whatever was waived.
TEST(Waivers, NoWaiverMakesARunThatDidNotFinishConformant) {
  CertifyResult r = certifyWith(kMutant, {load2dWaiver()});
  ASSERT_EQ(r.verdict(), "conformant_with_waivers");
  r.internalError = "load2d/MatchesOracle case 3: boom";
  EXPECT_EQ(r.verdict(), "nonconformant");
  EXPECT_FALSE(r.conformant());
}

std::string parseError(const std::string& text) {
  try {
    parseWaivers(text, "w.json");
  } catch (const WaiverError& e) {
    return e.what();
  }
  return "(accepted)";
}

// A waiver file saved with a UTF-8 byte order mark is named, as a vector file's is: the JSON
// parser skipped it silently.
TEST(Waivers, AByteOrderMarkIsNamed) {
  const std::string ok = R"({"waivers": [{"dut": "*", "family": "load2d", "reason": "r"}]})";
  EXPECT_EQ(parseWaivers(ok, "w.json").size(), 1u);
  EXPECT_EQ(
      parseError("\xEF\xBB\xBF" + ok)
          .rfind("w.json:1:1: the file starts with a UTF-8 byte order mark (bytes EF BB BF)", 0),
      0u)
      << parseError("\xEF\xBB\xBF" + ok);
}

// A malformed file is refused naming the file and the JSON path of the bad field.
TEST(Waivers, AMalformedFileIsRefusedNamingTheFileAndTheField) {
  const std::string ok = R"({"dut": "*", "family": "load2d", "reason": "r"})";
  EXPECT_EQ(parseWaivers(R"({"waivers": [)" + ok + "]}", "w.json").size(), 1u);
  const std::pair<std::string, std::string> bad[] = {
      {R"({"waivers": [)", "w.json: not JSON"},
      {R"({"waivers": [{"dut": "*", "family": "load2d", "reason": "r", "until": 1e400}]})",
       "w.json: not JSON"},
      {R"([])", "w.json: (the document): is not an object"},
      {R"({"waiver": []})", "w.json: waiver: unknown key"},
      {R"({})", "w.json: waivers: is missing"},
      {R"({"waivers": {}})", "w.json: waivers: is not an array"},
      {R"({"waivers": [)" + ok + R"(, 3]})", "w.json: waivers[1]: is not an object"},
      {R"({"waivers": [{"dut": "*", "family": "load2d"}]})",
       "w.json: waivers[0].reason: is missing"},
      {R"({"waivers": [{"dut": "*", "family": "load2d", "reason": ""}]})",
       "w.json: waivers[0].reason: is empty"},
      {R"({"waivers": [{"dut": "*", "family": "load2d", "reason": "r", "expires": "x"}]})",
       "w.json: waivers[0].expires: unknown key"},
      {R"({"waivers": [{"dut": "*", "family": "load2e", "reason": "r"}]})",
       "w.json: waivers[0].family: 'load2e' is not a family"},
      {R"({"waivers": [{"dut": "*", "family": "load2d", "reason": "r", "until": "2026-02-30"}]})",
       "w.json: waivers[0].until: '2026-02-30' is not a date"},
      {R"({"waivers": [{"dut": "*", "family": "load2d", "reason": "r", "until": "26-1-1"}]})",
       "w.json: waivers[0].until: '26-1-1' is not a date"},
      {R"({"waivers": [{"dut": "*", "family": "load2d", "reason": "r", "outcome": "pass"}]})",
       "w.json: waivers[0].outcome: 'pass' is not an outcome"},
      {R"({"waivers": [{"dut": "*", "family": "load2d", "reason": 7}]})",
       "w.json: waivers[0].reason: is not a string"},
      {R"({"waivers": [{"family": "load2d", "reason": "r"}]})",
       "w.json: waivers[0].dut: is missing"},
  };
  for (const auto& [text, message] : bad) {
    EXPECT_EQ(parseError(text).rfind(message, 0), 0u) << text << "\n" << parseError(text);
  }
  // A leap day is a date.
  EXPECT_EQ(parseError(R"({"waivers": [{"dut": "*", "family": "load2d", "reason": "r", "until": )"
                       R"("2028-02-29"}]})"),
            "(accepted)");
}

// What a reviewer reads is what applies. A key given twice in one object is refused (the parser
// kept the last: "dut": "nobody" then "dut": "*" waived for every DUT), so is a reason of blanks
// (the docs: not empty), and a property the family does not have (as an unknown family is).
TEST(Waivers, ADuplicateKeyABlankReasonOrAnUnknownPropertyIsRefused) {
  const std::pair<std::string, std::string> bad[] = {
      {R"({"waivers": [{"dut": "nobody", "family": "load2d", "reason": "r", "dut": "*"}]})",
       "w.json: waivers[0].dut: is given twice in one object"},
      {R"({"waivers": [{"dut": "*", "family": "load2d", "reason": "r"},
                       {"dut": "*", "family": "load2d", "reason": "r", "reason": "s"}]})",
       "w.json: waivers[1].reason: is given twice in one object"},
      {R"({"waivers": [], "waivers": [{"dut": "*", "family": "load2d", "reason": "r"}]})",
       "w.json: waivers: is given twice in one object"},
      {R"({"waivers": [{"dut": "*", "family": "load2d", "reason": " "}]})",
       "w.json: waivers[0].reason: is blank"},
      {R"({"waivers": [{"dut": "*", "family": "load2d", "reason": "\t\n "}]})",
       "w.json: waivers[0].reason: is blank"},
      {R"({"waivers": [{"dut": " ", "family": "load2d", "reason": "r"}]})",
       "w.json: waivers[0].dut: is blank"},
      {R"({"waivers": [{"dut": "*", "family": "load2d", "reason": "r",)"
       R"( "property": "NoSuchProperty"}]})",
       "w.json: waivers[0].property: 'NoSuchProperty' is not a property of load2d"},
  };
  for (const auto& [text, message] : bad) {
    EXPECT_EQ(parseError(text).rfind(message, 0), 0u) << text << "\n" << parseError(text);
  }
  // A property of the family is accepted; one of another family only is not.
  const auto load2d = makeFamily("load2d", isa::ProfileId::A2);
  const auto mmad = makeFamily("mmad", isa::ProfileId::A2);
  ASSERT_TRUE(load2d && mmad);
  std::set<std::string> ofLoad2d;
  for (const auto& p : load2d->properties) ofLoad2d.insert(p->name());
  auto withProperty = [](const std::string& family, const std::string& property) {
    return R"({"waivers": [{"dut": "*", "family": ")" + family + R"(", "reason": "r", )" +
           R"("property": ")" + property + R"("}]})";
  };
  EXPECT_EQ(parseError(withProperty("load2d", *ofLoad2d.begin())), "(accepted)");
  for (const auto& p : mmad->properties) {
    EXPECT_EQ(parseError(withProperty("mmad", p->name())), "(accepted)") << p->name();
    if (ofLoad2d.count(p->name()) == 0) {
      EXPECT_EQ(parseError(withProperty("load2d", p->name()))
                    .rfind("w.json: waivers[0].property: '" + p->name() + "' is not a property", 0),
                0u)
          << p->name();
    }
  }
}

/// Written and read back, as merge-reports reads a shard.
CertifyResult viaJson(const CertifyResult& r, const std::string& name) {
  return fromJson(toJson(r), name);
}

CertifyResult fuzzShard(unsigned index, unsigned count, std::vector<Waiver> waivers) {
  auto dut = dut::makeDut(kMutant);
  FuzzOptions o;
  o.seed = 3;
  o.budget = std::chrono::minutes(5);
  o.maxCases = 20;
  o.dutSpec = kMutant;  // every family: the merge of the shards is a complete run
  o.shardIndex = index;
  o.shardCount = count;
  WaiverSet set(std::move(waivers), kToday, kMutant, dut->capabilities().name);
  if (!set.empty()) o.waivers = &set;
  return fuzz(*dut, o);
}

// merge-reports carries the waived counts, reasons and waivers through, and judges a waiver
// stale only in the merged (whole) run; a shard with unwaived failures keeps the merge
// nonconformant.
TEST(Waivers, MergeCarriesWaiversThroughAndStaysHonest) {
  Waiver unused = load2dWaiver();
  unused.property = "NoSuchProperty";
  const std::vector<Waiver> waivers{load2dWaiver(), unused};
  std::vector<CertifyResult> shards;
  for (unsigned i = 0; i < 2; ++i) {
    const CertifyResult s = fuzzShard(i, 2, waivers);
    EXPECT_EQ(toJson(viaJson(s, "s.json")), toJson(s)) << "read back exactly";
    EXPECT_EQ(statusOf(s, 1), "not judged (partial run)");
    shards.push_back(viaJson(s, "s.json"));
  }
  const CertifyResult merged = mergeResults(shards);
  const CertifyResult whole = fuzzShard(0, 1, waivers);
  ASSERT_EQ(whole.verdict(), "conformant_with_waivers") << whole.headline();
  EXPECT_EQ(merged.verdict(), "conformant_with_waivers") << merged.headline();
  EXPECT_EQ(merged.families.at(0).waived.failures(), whole.families.at(0).waived.failures());
  EXPECT_EQ(merged.families.at(0).waivedReasons, whole.families.at(0).waivedReasons);
  ASSERT_EQ(merged.waivers.size(), 2u);
  EXPECT_EQ(merged.waivers[0].cases, whole.waivers.at(0).cases);
  EXPECT_EQ(statusOf(merged, 1), "stale");
  EXPECT_EQ(toJson(viaJson(merged, "m.json")), toJson(merged));

  // One shard run without the waivers judged its failures apart: not a shard of this run.
  EXPECT_THROW((void)mergeResults({shards[0], viaJson(fuzzShard(1, 2, {}), "b.json")}), MergeError);
}

// A written verdict conformant_with_waivers is a verdict this version knows; one whose fields
// hold an unwaived failure is read as the fields say.
TEST(Waivers, ReadBackTheVerdictIsTheFieldsOne) {
  const CertifyResult r = certifyWith(kMutant, {load2dWaiver()});
  Json j = Json::parse(toJson(r));
  EXPECT_EQ(fromJson(j.dump(), "r.json").verdict(), "conformant_with_waivers");
  j["families"][0]["waived"]["failed"] = j["families"][0]["waived"]["failed"].get<int>() - 1;
  EXPECT_EQ(fromJson(j.dump(), "r.json").verdict(), "nonconformant");
  j["families"][0]["waived"]["failed"] = j["families"][0]["failed"].get<int>() + 1;
  EXPECT_THROW(fromJson(j.dump(), "r.json"), MergeError) << "more waived than failed";
}

// certify measures the arithmetic fingerprint when the run includes mmad, and says why not
// otherwise; report.json holds it and reads it back; the certificate shows it as a table.
TEST(CertifyFingerprint, MeasuredWithMmadAndReadBack) {
  auto dut = dut::makeDut("reference");
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 1;
  o.families = {"mmad"};
  const CertifyResult r = certify(*dut, o);
  ASSERT_TRUE(r.fingerprint.has_value()) << r.fingerprintWhyNot;
  // What the fingerprint command measures for the same DUT and profile.
  const Json standalone = toJson(fingerprint(*dut, o.profile));
  const Json j = Json::parse(toJson(r));
  EXPECT_EQ(j["fingerprint"], standalone);
  EXPECT_EQ(toJson(fromJson(toJson(r), "r.json")), toJson(r));
  EXPECT_NE(toMarkdown(r).find("## Arithmetic fingerprint"), std::string::npos);
  EXPECT_NE(toHtml(r).find("<h2>Arithmetic fingerprint</h2>"), std::string::npos);
  EXPECT_NE(toMarkdown(r).find(standalone["dtypes"][2]["order"].get<std::string>()),
            std::string::npos);

  o.families = {"load2d"};
  const CertifyResult without = certify(*dut, o);
  EXPECT_FALSE(without.fingerprint.has_value());
  EXPECT_EQ(without.fingerprintWhyNot, "the run left out the mmad family (--family)");
  EXPECT_EQ(Json::parse(toJson(without))["fingerprint"]["not_measured"], without.fingerprintWhyNot);
  EXPECT_EQ(toJson(fromJson(toJson(without), "r.json")), toJson(without));
}

TEST(CertifyFingerprint, ADutWithoutFloatMmadSaysWhyNot) {
  auto dut = dut::makeDut(std::string("exec:") + EXAMPLE_C_DUT);
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 1;
  o.families = {"mmad"};
  const CertifyResult r = certify(*dut, o);
  EXPECT_FALSE(r.fingerprint.has_value());
  EXPECT_EQ(r.fingerprintWhyNot, "the DUT declares no float Mmad (mmad with f16, bf16 or f32)");
  EXPECT_EQ(Json::parse(toJson(r))["fingerprint"]["not_measured"], r.fingerprintWhyNot);
}

// The CLI refuses a bad waiver file before anything runs, exit 2, naming file and field.
TEST(Cli, ABadWaiverFileIsAUsageErrorNamingTheField) {
  const std::string dir = ::testing::TempDir() + "waivers_cli";
  std::filesystem::remove_all(dir);  // a report left by an earlier run would read as written now
  std::filesystem::create_directories(dir);
  const std::string file = dir + "/w.json";
  std::ofstream(file) << R"({"waivers": [{"dut": "*", "family": "load2d", "reason": "r",
                             "until": "2026-13-01"}]})";
  for (const std::string& cmd : std::vector<std::string>{
           "certify --dut reference --level smoke --seed 1 --report-dir " + dir + "/r",
           "vectors check --dir " + std::string(CUBECHECK_SOURCE_DIR) + "/vectors/golden",
           "fuzz --time 1 --seed 1"}) {
    const test::ProcessRun run = test::runCubecheck(cmd + " --waivers " + file);
    EXPECT_EQ(run.status, 2) << cmd << "\n" << run.out;
    EXPECT_NE(run.out.find(file + ": waivers[0].until: '2026-13-01' is not a date"),
              std::string::npos)
        << run.out;
    EXPECT_EQ(run.out.find("seed"), std::string::npos) << "nothing ran: " << run.out;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/r"));
  // The same for a key given twice, a blank reason and an unknown property.
  const std::pair<std::string, std::string> files[] = {
      {R"({"waivers": [{"dut": "nobody", "family": "load2d", "reason": "r", "dut": "*"}]})",
       ": waivers[0].dut: is given twice"},
      {R"({"waivers": [{"dut": "*", "family": "load2d", "reason": " "}]})",
       ": waivers[0].reason: is blank"},
      {R"({"waivers": [{"dut": "*", "family": "load2d", "reason": "r",)"
       R"( "property": "NoSuchProperty"}]})",
       ": waivers[0].property: 'NoSuchProperty' is not a property of load2d"},
  };
  for (const auto& [text, message] : files) {
    std::ofstream(file) << text;
    const test::ProcessRun run =
        test::runCubecheck("certify --dut reference --level smoke --seed 1 --report-dir " + dir +
                           "/r --waivers " + file);
    EXPECT_EQ(run.status, 2) << text << "\n" << run.out;
    EXPECT_NE(run.out.find(file + message), std::string::npos) << run.out;
    EXPECT_FALSE(std::filesystem::exists(dir + "/r"));
  }
}

}  // namespace
}  // namespace cubecheck::conf
