// Fuzzing: budgets, distinct failures as regression vectors, shards, determinism.
#include <gtest/gtest.h>

#include "conformance/fuzz.hpp"
#include "conformance/report.hpp"
#include "dut_adapters/registry.hpp"

namespace cubecheck::conf {
namespace {

FuzzOptions cases(std::uint64_t perProperty, std::uint64_t seed = 3) {
  FuzzOptions o;
  o.seed = seed;
  o.budget = std::chrono::minutes(5);
  o.maxCases = perProperty;
  o.dutSpec = "reference";
  return o;
}

/// The report with every timing ("seconds", "cases_per_second") zeroed: timings are the only
/// allowed difference.
std::string withoutTimings(std::string json) {
  for (const std::string key : {"\"seconds\": ", "\"cases_per_second\": "}) {
    std::string out;
    std::size_t at = 0;
    while (true) {
      const std::size_t k = json.find(key, at);
      if (k == std::string::npos) break;
      out += json.substr(at, k - at) + key + "0";
      at = json.find_first_of(",\n}", k + key.size());
    }
    json = out + json.substr(at);
  }
  return json;
}

TEST(Fuzz, TimeBudgetEndsTheRunWithCasesInEveryFamily) {
  auto dut = dut::makeDut("reference");
  FuzzOptions o = cases(0);
  o.maxCases.reset();
  o.budget = std::chrono::milliseconds(1500);
  const CertifyResult r = fuzz(*dut, o);
  EXPECT_GE(r.seconds, 1.4);
  EXPECT_LT(r.seconds, 5.0);
  ASSERT_GE(r.families.size(), 3u);  // on a2: load2d, load_sparse, mmad_sparse
  for (const FamilyResult& f : r.families) EXPECT_GT(f.counts.of(Outcome::Pass), 10u) << f.name;
  EXPECT_TRUE(r.conformant());
}

TEST(Fuzz, SameSeedSameCaseBudgetSameReport) {
  auto dut = dut::makeDut("reference");
  const std::string a = withoutTimings(toJson(fuzz(*dut, cases(30))));
  const std::string b = withoutTimings(toJson(fuzz(*dut, cases(30))));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, withoutTimings(toJson(fuzz(*dut, cases(30, 4)))));
}

// Shards split the work and merge to the whole run: tests/merge_test.cpp.

TEST(Fuzz, DistinctFailuresAreShrunkAndHandedOutAsVectors) {
  auto dut = dut::makeDut("mutant:load2d-dst-gap-ignored");
  FuzzOptions o = cases(60);
  o.families = {"load2d"};
  std::vector<Failure> handed;
  o.onNewFailure = [&](const std::string&, const Failure& f) { handed.push_back(f); };
  const CertifyResult r = fuzz(*dut, o);
  ASSERT_FALSE(handed.empty());
  const FamilyResult& f = r.families.at(0);
  EXPECT_GT(f.counts.of(Outcome::Mismatch), handed.size()) << "duplicates are counted, not kept";
  bool shrunkVector = false;
  for (const Failure& x : handed) {
    if (x.vector && x.shrinkSteps > 0) {
      shrunkVector = true;
      EXPECT_EQ(checkVector(*dut, *x.vector).outcome, Outcome::Mismatch);
      auto ref = dut::makeDut("reference");
      EXPECT_EQ(checkVector(*ref, *x.vector).outcome, Outcome::Pass);
    }
  }
  EXPECT_TRUE(shrunkVector);
}

TEST(Report, MarkdownAndHtmlCarryTheFuzzReport) {
  auto dut = dut::makeDut("mutant:load2d-stray-write");
  FuzzOptions o = cases(10);
  o.dutSpec = "mutant:load2d-stray-write";
  const CertifyResult r = fuzz(*dut, o);
  const std::string md = toMarkdown(r);
  EXPECT_NE(md.find("# cubecheck fuzz report: FAILURES FOUND"), std::string::npos) << md;
  EXPECT_NE(md.find("validates programs: yes"), std::string::npos);
  EXPECT_NE(md.find("Reproduce:"), std::string::npos);
  EXPECT_NE(md.find("path:A1toA2"), std::string::npos);  // a coverage bin with its bar
  const std::string html = toHtml(r);
  EXPECT_NE(html.find("<span class=\"bar\""), std::string::npos);
  EXPECT_NE(html.find("OPEN-4"), std::string::npos);
}

}  // namespace
}  // namespace cubecheck::conf
