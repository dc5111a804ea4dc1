// Report writers: required fields, escaping, verdicts.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "conformance/report.hpp"
#include "dut_adapters/registry.hpp"

namespace cubecheck::conf {
namespace {

CertifyResult run(const char* spec) {
  auto dut = dut::makeDut(spec);
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 3;
  o.dutSpec = spec;
  return certify(*dut, o);
}

TEST(ReportJson, HasTheDocumentedFields) {
  const auto j = nlohmann::json::parse(toJson(run("reference")));
  EXPECT_EQ(j["verdict"], "conformant");
  EXPECT_EQ(j["dut"], "reference");
  EXPECT_EQ(j["profile"], "a2");
  EXPECT_EQ(j["seed"], 3);
  ASSERT_GE(j["families"].size(), 1u);
  const auto& f = j["families"][0];
  EXPECT_EQ(f["name"], "load2d");
  EXPECT_EQ(f["cases"].get<int>(), f["passed"].get<int>() + f["failed"].get<int>() +
                                       f["declined"].get<int>() + f["not_supported"].get<int>() +
                                       f["adapter_errors"].get<int>() + f["timeouts"].get<int>());
  EXPECT_GT(f["passed"].get<int>(), 0);
  EXPECT_TRUE(j["dut_capabilities"]["rejects_illegal"].get<bool>());
}

TEST(Report, ProvisionalFamiliesSaySoEverywhere) {
  auto dut = dut::makeDut("reference");
  RunOptions o;
  o.profile = isa::ProfileId::Legacy;
  o.level = Level::Smoke;
  o.seed = 3;
  o.families = {"load3d_v1"};
  const CertifyResult r = certify(*dut, o);
  const auto j = nlohmann::json::parse(toJson(r));
  EXPECT_EQ(j["verdict"], "conformant");
  EXPECT_EQ(j["families"][0]["verdict"], "conformant (provisional)");
  EXPECT_NE(j["families"][0]["provisional"].get<std::string>().find("spec 6.4"), std::string::npos);
  EXPECT_NE(toMarkdown(r).find("**Provisional:**"), std::string::npos);
  EXPECT_NE(toHtml(r).find("<b>Provisional:</b>"), std::string::npos);
}

TEST(ReportJson, MutantIsNonconformantWithFailures) {
  const auto j = nlohmann::json::parse(toJson(run("mutant:load2d-dst-gap-ignored")));
  EXPECT_EQ(j["verdict"], "nonconformant");
  const auto& f = j["families"][0];
  EXPECT_GT(f["failed"].get<int>(), 0);
  EXPECT_FALSE(f["failures"].empty());
  EXPECT_NE(f["failures"][0]["reproduce"].get<std::string>().find(
                "--dut 'mutant:load2d-dst-gap-ignored'"),
            std::string::npos);
}

TEST(ReportJUnit, CountsAndEscapes) {
  CertifyResult r = run("mutant:load2d-repeat-zero-as-one");
  r.families[0].failures[0].detail += " <&>\"";
  const std::string x = toJUnit(r);
  EXPECT_NE(x.find("<testsuite name=\"load2d\""), std::string::npos);
  EXPECT_NE(x.find("&lt;&amp;&gt;&quot;"), std::string::npos);
  EXPECT_NE(x.find("<failure"), std::string::npos);
}

TEST(ReportText, SaysVerdictAndReproduce) {
  std::ostringstream os;
  printReport(os, run("mutant:load2d-last-repeat-dropped"));
  EXPECT_NE(os.str().find("verdict: NONCONFORMANT"), std::string::npos);
  EXPECT_NE(os.str().find("reproduce: cubecheck certify"), std::string::npos);
}

}  // namespace
}  // namespace cubecheck::conf
