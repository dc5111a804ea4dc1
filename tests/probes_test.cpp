// No vacuous passes, and open points probed rather than failed (docs/architecture.md, "What a
// verdict claims").
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>

#include "conformance/checks.hpp"
#include "conformance/families.hpp"
#include "conformance/merge.hpp"
#include "conformance/report.hpp"
#include "conformance/report_read.hpp"
#include "conformance/runner.hpp"
#include "dut_adapters/registry.hpp"
#include "isa/profile.hpp"
#include "vectors/vectors.hpp"

namespace cubecheck::conf {
namespace {

RunOptions smokeRun(isa::ProfileId profile) {
  RunOptions o;
  o.profile = profile;
  o.level = Level::Smoke;
  o.seed = 7;
  o.shrinkBudget = std::chrono::milliseconds(0);
  return o;
}

/// A property whose every case (table and the first random ones) must be rejected: a DUT that
/// validates and runs nothing passes it honestly.
bool pureRejection(const Property& p, std::uint64_t seed) {
  const std::size_t n = p.tableSize() + 8;
  for (std::size_t i = 0; i < n; ++i) {
    const std::optional<VectorCase> v = p.vectorCase(seed, i);
    if (!v || !v->rejection) return false;
  }
  return true;
}

// The adversary: a DUT that validates every program and then does nothing. Every
// property of every family (from the family list) that looks at what a DUT leaves behind must
// fail against it on every profile; only rejection checks may pass.
TEST(NoVacuousPass, WritesNothingFailsEveryPropertyButRejectionChecks) {
  auto dut = dut::makeDut("mutant:writes-nothing");
  std::size_t checked = 0;
  for (isa::ProfileId profile : isa::kAllProfiles) {
    const RunOptions o = smokeRun(profile);
    const CertifyResult r = certify(*dut, o);
    for (const FamilyResult& f : r.families) {
      const std::optional<Family> family = makeFamily(f.name, profile);
      ASSERT_TRUE(family);
      if (!family->unsupported.empty()) continue;  // nothing runs on this profile
      ASSERT_EQ(f.properties.size(), family->properties.size());
      for (std::size_t i = 0; i < f.properties.size(); ++i) {
        const PropertyResult& p = f.properties[i];
        SCOPED_TRACE(std::string(isa::profile(profile).name) + " " + f.name + "/" + p.name);
        if (pureRejection(*family->properties[i], o.seed)) continue;
        ++checked;
        EXPECT_GT(p.counts.of(Outcome::Mismatch), 0u) << "a DUT that does nothing passed it";
      }
    }
  }
  EXPECT_GT(checked, 30u) << "the enumeration found the properties";
}

// The same DUT's failures name what happened: nothing, not a stray byte.
TEST(NoVacuousPass, MetamorphicChecksSayNothingHappened) {
  auto dut = dut::makeDut("mutant:writes-nothing");
  RunOptions o = smokeRun(isa::ProfileId::Ascend950);
  o.families = {"load2d_bitmode"};
  o.property = "EqualsV2";
  const CertifyResult r = certify(*dut, o);
  ASSERT_FALSE(r.families.at(0).failures.empty());
  EXPECT_NE(r.families[0].failures[0].detail.find("nothing observable happened"), std::string::npos)
      << r.families[0].failures[0].detail;
}

/// The probe notes of a family in a run.
std::set<std::string> notesOf(const FamilyResult& f) {
  std::set<std::string> notes;
  for (const auto& [note, n] : f.probes) notes.insert(note);
  return notes;
}

bool anyContains(const std::set<std::string>& notes, const std::string& what) {
  for (const std::string& n : notes) {
    if (n.find(what) != std::string::npos) return true;
  }
  return false;
}

// Spec 10: a DUT that follows another documented reading of an open point is conformant, and
// the report names the reading: a probe, or (float accumulation order, which no case's verdict
// can tell apart within spec 9's bound) certify's arithmetic fingerprint. One test per reading in
// the registry (OPEN-10's row-by-row order, OPEN-7's saturation of every partial sum and pairwise
// float sums).
// A probe reports which reading of an open point a DUT follows; it certifies nothing. Its passes
// were counted as "passed" beside the certifying ones (ZeroSignProbe's 6 cases, Hf32Probe's,
// ...). They are "probe cases" now, apart, in the model, report.json (passed without them, and
// probe_cases), report.md/html and the terminal alike, and read back and merged the same.
// Properties named *Probe that certify (mmad_mx/DecodeProbe, ScaleProbe) stay passes.
// A family whose only passes are no-ops and probes certifies nothing, and says which.
TEST(ProbeCases, AFamilyOfProbesAndNoOpsIsNotCertifiedAndSaysSo) {
  FamilyResult f;
  std::size_t& passes = f.counts.byOutcome[static_cast<std::size_t>(Outcome::Pass)];
  passes = 2;
  f.counts.probePasses = 2;
  EXPECT_EQ(f.notCertifiedWhy(), "only probe cases passed (a probe reports a reading)");
  passes = 3;
  f.counts.trivialPasses = 1;
  EXPECT_EQ(f.notCertifiedWhy(), "only no-op and probe cases passed");
  f.counts.probePasses = 0;
  f.counts.trivialPasses = 3;
  EXPECT_EQ(f.notCertifiedWhy(), "only no-op cases passed");
}

TEST(ProbeCases, AreCountedApartFromPassesInEveryFormat) {
  auto dut = dut::makeDut("reference");
  RunOptions o = smokeRun(isa::ProfileId::Ascend950);
  o.families = {"mmad", "mmad_mx"};
  const CertifyResult r = certify(*dut, o);
  ASSERT_EQ(r.families.size(), 2u);
  const std::set<std::string> probes{"SaturationProbe", "Hf32Probe",      "ZeroSignProbe",
                                     "E1M2Probe",       "EdgeScaleProbe", "HiF8ModeProbe"};
  std::size_t probeCases = 0;
  for (const FamilyResult& f : r.families) {
    for (const PropertyResult& p : f.properties) {
      SCOPED_TRACE(f.name + "/" + p.name);
      if (probes.contains(p.name)) {
        EXPECT_GT(p.counts.probePasses, 0u);
        EXPECT_EQ(p.counts.probePasses, p.counts.of(Outcome::Pass) - p.counts.trivialPasses);
        probeCases += p.counts.probePasses;
      } else {
        EXPECT_EQ(p.counts.probePasses, 0u);
      }
    }
    EXPECT_EQ(f.verdict(), "conformant") << f.name;
  }
  ASSERT_GT(probeCases, 0u);
  const FamilyResult& mmad = r.families[0];
  const auto zero = std::find_if(mmad.properties.begin(), mmad.properties.end(),
                                 [](const PropertyResult& p) { return p.name == "ZeroSignProbe"; });
  ASSERT_NE(zero, mmad.properties.end());

  const nlohmann::json j = nlohmann::json::parse(toJson(r));
  const nlohmann::json& fj = j["families"][0];
  EXPECT_EQ(fj["probe_cases"], mmad.counts.probePasses);
  EXPECT_EQ(fj["passed"], mmad.counts.of(Outcome::Pass) - mmad.counts.probePasses);
  std::size_t sum = 0;
  for (const char* k : {"passed", "probe_cases", "failed", "declined", "not_supported",
                        "adapter_errors", "timeouts", "nondeterministic"}) {
    sum += fj[k].get<std::size_t>();
  }
  EXPECT_EQ(fj["cases"].get<std::size_t>(), sum) << "cases are the sum of the outcomes";
  for (const auto& p : fj["properties"]) {
    if (p["name"] != "ZeroSignProbe") continue;
    EXPECT_EQ(p["passed"], 0) << p;
    EXPECT_EQ(p["probe_cases"], zero->counts.probePasses) << p;
  }

  // The terminal and report.md carry the same figures under a "probes" heading.
  std::ostringstream term;
  printReport(term, r);
  EXPECT_NE(term.str().find("probes"), std::string::npos) << term.str().substr(0, 2000);
  const std::string md = toMarkdown(r);
  EXPECT_NE(md.find("| probe cases |"), std::string::npos) << md.substr(0, 3000);
  EXPECT_NE(md.find("| ZeroSignProbe | "), std::string::npos);
  const std::string html = toHtml(r);
  EXPECT_NE(html.find("probe cases"), std::string::npos);

  // Read back as merge-reports reads a shard, the counts are the run's.
  const CertifyResult back = fromJson(toJson(r), "r.json");
  EXPECT_EQ(back.families[0].counts.probePasses, mmad.counts.probePasses);
  EXPECT_EQ(back.families[0].counts.of(Outcome::Pass), mmad.counts.of(Outcome::Pass));
  EXPECT_EQ(toJson(back), toJson(r));
}

// Each reading certifies: an open point's other reading, named by its probe or the arithmetic
// fingerprint, and a DUT that writes what the spec leaves unspecified (nothing to name).
TEST(OpenPointReadings, EachReadingIsConformantAndNamed) {
  ASSERT_FALSE(dut::readings().empty());
  for (const dut::Reading& reading : dut::readings()) {
    SCOPED_TRACE(std::string(reading.name));
    auto d = dut::makeDut("mutant:" + std::string(reading.name));
    RunOptions o = smokeRun(reading.profile);
    o.families = {std::string(reading.family)};
    const CertifyResult r = certify(*d, o);
    const FamilyResult& f = r.families.at(0);
    EXPECT_EQ(f.counts.failures(), 0u) << (f.failures.empty() ? "" : f.failures[0].detail);
    EXPECT_TRUE(f.coverageGaps.empty());
    EXPECT_TRUE(r.conformant());
    if (reading.probeNote.empty()) continue;  // unspecified bytes: nothing to name
    std::set<std::string> named = notesOf(f);
    if (r.fingerprint) named.insert(toJson(*r.fingerprint).dump());
    EXPECT_TRUE(anyContains(named, std::string(reading.probeNote)))
        << "the probe or the fingerprint names the reading";
  }
}

// The readings that write unspecified bytes reach every family whose instruction they change:
// each of those certifies them too (the multiplies' C beyond m and n, Img2Col's rows beyond M,
// and the pipelines that chain them).
TEST(OpenPointReadings, UnspecifiedBytesWrittenCertifyEveryFamilyTheyReach) {
  const std::vector<std::tuple<std::string, isa::ProfileId, std::vector<std::string>>> runs{
      {"mmad-unspecified-cells-written", isa::ProfileId::A2, {"mmad_sparse", "pipeline"}},
      {"mmad-unspecified-cells-written",
       isa::ProfileId::Ascend950,
       {"mmad", "mmad_mx", "mmad_lowprec", "pipeline"}},
      {"load3d-unspecified-cells-written", isa::ProfileId::A2, {"load3d_v2pro", "pipeline"}},
      {"load3d-unspecified-cells-written",
       isa::ProfileId::Ascend950,
       {"load3d_v2", "load3d_v2pro", "pipeline"}},
  };
  for (const auto& [name, profile, families] : runs) {
    auto d = dut::makeDut("mutant:" + name);
    RunOptions o = smokeRun(profile);
    o.families = families;
    const CertifyResult r = certify(*d, o);
    for (const FamilyResult& f : r.families) {
      EXPECT_EQ(f.counts.failures(), 0u)
          << name << " " << f.name << ": " << (f.failures.empty() ? "" : f.failures[0].detail);
      EXPECT_GT(f.counts.workPasses(), 0u) << name << " " << f.name;
    }
    EXPECT_TRUE(r.conformant()) << name;
  }
}

// OPEN-10 on both V2 families: the reference follows the default order, the row-by-row DUT the
// other, each named by the probe and neither ever the other's note.
TEST(OpenPointReadings, Open10NamesTheOrderOnBothV2Families) {
  auto reference = dut::makeDut("reference");
  auto byRow = dut::makeDut("mutant:v2-columns-row-by-row");
  for (const char* family : {"load2d_v2", "load2d_bitmode"}) {
    SCOPED_TRACE(family);
    RunOptions o = smokeRun(isa::ProfileId::Ascend950);
    o.families = {family};
    const CertifyResult a = certify(*reference, o);
    const CertifyResult b = certify(*byRow, o);
    EXPECT_TRUE(a.conformant());
    EXPECT_TRUE(b.conformant()) << (b.families[0].failures.empty()
                                        ? std::string()
                                        : b.families[0].failures[0].detail);
    EXPECT_TRUE(anyContains(notesOf(a.families[0]), kOpen10ByColumn));
    EXPECT_FALSE(anyContains(notesOf(a.families[0]), kOpen10ByRow));
    EXPECT_TRUE(anyContains(notesOf(b.families[0]), kOpen10ByRow));
    EXPECT_FALSE(anyContains(notesOf(b.families[0]), kOpen10ByColumn));
  }
  // A DUT that follows neither order still fails.
  auto wrong = dut::makeDut("mutant:v2-transposed-row-major");
  RunOptions o = smokeRun(isa::ProfileId::Ascend950);
  o.families = {"load2d_v2"};
  EXPECT_FALSE(certify(*wrong, o).conformant());
}

// docs/vectors.md: cases resting on OPEN-10 are left out of the golden set.
TEST(OpenPointReadings, GoldenVectorsLeaveOpen10Out) {
  std::size_t v2Rows = 0;
  for (const vec::Generated& g : vec::generate(1, 3)) {
    for (const vec::Row& row : g.rows) {
      for (const auto& [name, e] : row.c.alternatives) {
        EXPECT_EQ(name.find("OPEN-10"), std::string::npos) << row.why;
      }
      if (g.family == "load2d_v2" || g.family == "load2d_bitmode") ++v2Rows;
    }
  }
  EXPECT_GT(v2Rows, 0u) << "the V2 families still have golden vectors";
  // The two boundary cases that collide are probes in certify, not golden rows.
  const std::optional<Family> f = makeFamily("load2d_v2", isa::ProfileId::Ascend950);
  std::size_t probes = 0;
  for (std::size_t i = 0; i < f->properties[0]->tableSize(); ++i) {
    const std::optional<VectorCase> v = f->properties[0]->vectorCase(1, i);
    if (v && v->notGolden) {
      ++probes;
      ASSERT_EQ(v->alternatives.size(), 2u);
      EXPECT_NE(v->alternatives[0].second.regions, v->alternatives[1].second.regions);
    }
  }
  EXPECT_EQ(probes, 2u);
}

// OPEN-7: the saturation probe tells the three readings apart, and names each.
TEST(OpenPointReadings, SaturationProbeSeparatesWrapPerSumAndFinal) {
  for (isa::ProfileId profile : {isa::ProfileId::A2, isa::ProfileId::Ascend950}) {
    const std::optional<Family> f = makeFamily("mmad", profile);
    const Property* probe = nullptr;
    for (const auto& p : f->properties) {
      if (p->name() == "SaturationProbe") probe = p.get();
    }
    ASSERT_NE(probe, nullptr);
    const std::size_t n = probe->tableSize() + static_cast<std::size_t>(probe->randomCases());
    for (std::size_t i = 0; i < n; ++i) {
      const std::optional<VectorCase> v = probe->vectorCase(7, i);
      ASSERT_TRUE(v);
      ASSERT_EQ(v->alternatives.size(), 2u);
      ASSERT_EQ(v->misreadings.size(), 1u);
      const auto& once = v->alternatives[0].second.regions;
      const auto& each = v->alternatives[1].second.regions;
      const auto& wrap = v->misreadings[0].second.regions;
      EXPECT_NE(once, each);
      EXPECT_NE(once, wrap);
      EXPECT_NE(each, wrap);
    }
    const struct {
      const char* dut;
      Outcome outcome;
      const char* says;  // in the note (Pass) or the detail (Mismatch)
    } readings[] = {
        {"reference", Outcome::Pass, "saturates once, at the end"},
        {"mutant:mmad-saturate-each-sum", Outcome::Pass, "saturates every partial sum"},
        {"mutant:mmad-wrap-not-saturate", Outcome::Mismatch, "int32 wrap-around"},
    };
    for (const auto& r : readings) {
      SCOPED_TRACE(r.dut);
      auto d = dut::makeDut(r.dut);
      for (std::size_t i = 0; i < n; ++i) {
        const CaseReport c = probe->run(*d, 7, i, std::chrono::milliseconds(0));
        EXPECT_EQ(c.verdict.outcome, r.outcome) << c.verdict.detail;
        const std::string& text = r.outcome == Outcome::Pass ? c.verdict.note : c.verdict.detail;
        EXPECT_NE(text.find(r.says), std::string::npos) << text;
      }
    }
  }
}

// OPEN-15: the zero-sign probe compares bit for bit (the certified comparison does not), its two
// readings are +0 and -0 everywhere in C, and the reference follows IEEE sign rules: +0 from zero
// (the init +0 is added), -0 onto a -0 bias.
TEST(OpenPointReadings, ZeroSignProbeNamesTheSignOfAZeroResult) {
  for (isa::ProfileId profile : {isa::ProfileId::A2, isa::ProfileId::Ascend950}) {
    const std::optional<Family> f = makeFamily("mmad", profile);
    const Property* probe = nullptr;
    for (const auto& p : f->properties) {
      if (p->name() == "ZeroSignProbe") probe = p.get();
    }
    ASSERT_NE(probe, nullptr);
    auto d = dut::makeDut("reference");
    const std::size_t n = probe->tableSize() + static_cast<std::size_t>(probe->randomCases());
    std::size_t fromZero = 0, ontoBias = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::optional<VectorCase> v = probe->vectorCase(7, i);
      ASSERT_TRUE(v);
      ASSERT_EQ(v->alternatives.size(), 2u);
      for (const auto& [name, e] : v->alternatives) EXPECT_FALSE(e.formats[0].signlessZero);
      EXPECT_NE(v->alternatives[0].second.regions, v->alternatives[1].second.regions);
      const CaseReport c = probe->run(*d, 7, i, std::chrono::milliseconds(0));
      EXPECT_EQ(c.verdict.outcome, Outcome::Pass) << c.verdict.detail;
      if (c.verdict.note.find("from zero, -0 products sum to +0") != std::string::npos) {
        ++fromZero;
      } else if (c.verdict.note.find("onto a -0 bias give -0 (IEEE") != std::string::npos) {
        ++ontoBias;
      } else {
        ADD_FAILURE() << c.verdict.note;
      }
    }
    EXPECT_GE(fromZero, 3u);
    EXPECT_GE(ontoBias, 3u);
  }
}

}  // namespace
}  // namespace cubecheck::conf
