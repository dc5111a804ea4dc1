// Report writers: required fields, escaping, verdicts.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "conformance/fuzz.hpp"
#include "conformance/merge.hpp"
#include "conformance/report.hpp"
#include "conformance/report_read.hpp"
#include "conformance/sha256.hpp"
#include "dut_adapters/registry.hpp"
#include "process.hpp"

namespace cubecheck::conf {
namespace {

/// certify `spec` at smoke level (seed 3), with the options edited first.
CertifyResult run(const char* spec, const std::function<void(RunOptions&)>& edit = {}) {
  auto dut = dut::makeDut(spec);
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 3;
  o.dutSpec = spec;
  if (edit) edit(o);
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

// A certificate names the cubecheck that issued it and the exact spec it judged by: the version
// in CMakeLists.txt and the SHA-256 of docs/spec.md, both read from the sources here.
TEST(Report, NamesTheSuiteVersionAndTheSpecItRestsOn) {
  auto slurp = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string spec = slurp(std::string(CUBECHECK_SOURCE_DIR) + "/docs/spec.md");
  ASSERT_FALSE(spec.empty());
  const std::string digest = conf::sha256Hex(spec);
  std::smatch m;
  const std::string lists = slurp(std::string(CUBECHECK_SOURCE_DIR) + "/CMakeLists.txt");
  ASSERT_TRUE(std::regex_search(lists, m, std::regex(R"(project\(cubecheck VERSION ([0-9.]+))")));
  const std::string version = m[1];
  const CertifyResult r = run("reference");
  const auto j = nlohmann::json::parse(toJson(r));
  EXPECT_EQ(j["tool_version"], version);
  EXPECT_EQ(j["spec_sha256"], digest);
  for (const std::string& text : {toMarkdown(r), toHtml(r)}) {
    EXPECT_NE(text.find("cubecheck " + version + " certify"), std::string::npos);
    EXPECT_NE(text.find("SHA-256 " + digest), std::string::npos);
  }
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
  EXPECT_NE(toMarkdown(r).find("**Provisional**: "), std::string::npos);
  EXPECT_NE(toHtml(r).find("<b>Provisional:</b>"), std::string::npos);
  // The headline of a whole run names the family as provisional, not just its row.
  CertifyResult whole = r;
  whole.scope = {};
  EXPECT_EQ(whole.headline().rfind("CONFORMANT on profile legacy for load3d_v1 (provisional)", 0),
            0u)
      << whole.headline();
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

// nu11 F6: a shrink that stopped on its time cap (--shrink-ms) was reported "shrunk in N steps",
// as if the case were minimal. It says that the shrink stopped at the cap, in every format and in
// report.json (shrink_capped_ms), which reads back; a shrink that ran out of smaller failing cases
// says nothing of a cap.
TEST(ReportText, AShrinkStoppedAtItsCapSaysSo) {
  const auto shrinkFor = [](std::chrono::milliseconds cap) {
    return run("mutant:load2d-dst-gap-ignored", [cap](RunOptions& o) {
      o.families = {"load2d"};
      o.shrinkBudget = cap;
    });
  };
  const CertifyResult capped = shrinkFor(std::chrono::milliseconds(0));
  const auto cappedShrink = [](const Failure& x) { return x.shrinkCapMs.has_value(); };
  const std::vector<Failure>& failures = capped.families.at(0).failures;
  const auto at = std::find_if(failures.begin(), failures.end(), cappedShrink);
  ASSERT_NE(at, failures.end()) << "a random case failed, and its shrink stopped at once";
  EXPECT_EQ(*at->shrinkCapMs, 0);
  const std::string says =
      "not shrunk: the shrink stopped at its 0 ms cap (--shrink-ms), so a "
      "smaller case may fail too";
  CertifyResult shown = capped;  // the terminal shows the first few failures: that one first
  shown.families.at(0).failures = {*at};
  std::ostringstream text;
  printReport(text, shown);
  EXPECT_NE(text.str().find(says), std::string::npos) << text.str();
  EXPECT_NE(toMarkdown(capped).find("shrink: " + says), std::string::npos);
  const auto j = nlohmann::json::parse(toJson(capped));
  EXPECT_EQ(j["families"][0]["failures"][at - failures.begin()]["shrink_capped_ms"], 0);
  EXPECT_EQ(toJson(fromJson(toJson(capped), "capped.json")), toJson(capped));

  const CertifyResult shrunk = shrinkFor(std::chrono::minutes(1));
  bool steps = false;
  for (const Failure& x : shrunk.families.at(0).failures) {
    EXPECT_FALSE(x.shrinkCapMs.has_value()) << x.caseText;
    steps = steps || x.shrinkSteps > 0;
  }
  EXPECT_TRUE(steps) << "some case was shrunk";
  std::ostringstream plain;
  printReport(plain, shrunk);
  EXPECT_EQ(plain.str().find("cap (--shrink-ms)"), std::string::npos);
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

// Not-supported reasons that differ only in numbers are counted together under a key with the
// numbers replaced by N. The report showed that key ("exist on N only", where the reason said
// "exist on 950 only"); it shows a reason a case gave, never the key.
TEST(ReportText, ANotSupportedGroupShowsAReasonACaseGaveNotItsKey) {
  auto dut = dut::makeDut("reference");
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 3;
  o.dutSpec = "reference";
  o.profile = isa::ProfileId::A2;
  o.families = {"mmad_lowprec"};  // 950 only: every case not supported on a2
  const CertifyResult r = certify(*dut, o);
  ASSERT_EQ(r.families.size(), 1u);
  const FamilyResult& f = r.families[0];
  std::ostringstream os;
  printReport(os, r);
  const std::string text = os.str() + toMarkdown(r) + toHtml(r);
  std::size_t hidden = 0;
  for (const auto& [key, n] : f.notSupportedReasons) {
    const std::string& example = f.notSupportedExamples.at(key);
    EXPECT_NE(os.str().find(std::to_string(n) + " case(s): " + example), std::string::npos)
        << os.str();
    if (key == example) continue;
    ++hidden;
    EXPECT_EQ(text.find(key), std::string::npos) << key;
  }
  EXPECT_GT(hidden, 0u) << "no reason here holds a number: the test shows nothing";
}

// The notes of BoundedError's passes (the worst error in ULP) were listed as "probe: N case(s)"
// though those cases count as passed, not as probe cases. A note is listed under "probe" only
// when its property's passes are the probe cases counted apart; else as passed cases.
TEST(ReportText, OnlyProbeCasesAreListedAsProbes) {
  auto dut = dut::makeDut("reference");
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 3;
  o.dutSpec = "reference";
  o.families = {"mmad"};
  const CertifyResult r = certify(*dut, o);
  ASSERT_EQ(r.families.size(), 1u);
  const FamilyResult& f = r.families[0];
  std::ostringstream os;
  printReport(os, r);
  std::size_t probes = 0, passes = 0;
  for (const auto& [what, n] : f.probes) {
    const std::string property = what.substr(0, what.find(": "));
    const auto p = std::find_if(f.properties.begin(), f.properties.end(),
                                [&](const PropertyResult& x) { return x.name == property; });
    ASSERT_NE(p, f.properties.end()) << what;
    const std::string asProbe = "mmad probe: " + std::to_string(n) + " case(s): " + what;
    const std::string asPass = "mmad note: " + std::to_string(n) + " passed case(s): " + what;
    const bool probe = p->counts.probePasses > 0;
    (probe ? probes : passes) += 1;
    EXPECT_NE(os.str().find(probe ? asProbe : asPass), std::string::npos) << what << "\n"
                                                                          << os.str();
    EXPECT_EQ(os.str().find(probe ? asPass : asProbe), std::string::npos) << what;
  }
  EXPECT_GT(probes, 0u) << "no probe note: the test shows nothing";
  EXPECT_GT(passes, 0u) << "no note of passed cases: the test shows nothing";
}

// ---- the certificate: Markdown and HTML from one model -----------------------------------------

/// The section headings and block labels of a certificate, in order: "## h" / "<h2>h</h2>",
/// "* *label*:" or "* **label**:" / "<b>label:</b>", "**table label**" / "<p><b>label</b></p>".
std::vector<std::string> markdownOutline(const std::string& md) {
  std::vector<std::string> out;
  static const std::regex line(R"(^## (.*)$|^\* \*{1,2}([^*]+)\*{1,2}: |^\*\*([^*]+)\*\*$)");
  std::istringstream is(md);
  for (std::string l; std::getline(is, l);) {
    std::smatch m;
    if (!std::regex_search(l, m, line)) continue;
    for (int g = 1; g <= 3; ++g) {
      if (m[g].matched) out.push_back(m[g].str());
    }
  }
  return out;
}

std::vector<std::string> htmlOutline(const std::string& html) {
  std::vector<std::string> out;
  static const std::regex tag(R"(<h2>([^<]*)</h2>|<b>([^<]*):</b>|<p><b>([^<]*)</b></p>)");
  for (auto it = std::sregex_iterator(html.begin(), html.end(), tag); it != std::sregex_iterator();
       ++it) {
    for (int g = 1; g <= 3; ++g) {
      if ((*it)[g].matched) out.push_back((*it)[g].str());
    }
  }
  return out;
}

/// Undoes the escaping each writer applies to the outline's text, so the two can be compared.
std::string unescaped(std::string s, bool markdown) {
  const std::pair<const char*, const char*> entities[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}};
  if (markdown) s = std::regex_replace(s, std::regex(R"(\\(.))"), "$1");
  for (const auto& [from, to] : entities) {
    for (std::size_t at; (at = s.find(from)) != std::string::npos;) s.replace(at, strlen(from), to);
  }
  return s;
}

/// Runs a certificate through Python's XML parser, a real one: the HTML must be well-formed.
std::string xmlParseErrors(const std::string& html, const std::string& name) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("cubecheck_report_" + name + "_" + std::to_string(::getpid()) + ".html");
  std::ofstream(path) << html;
  const test::ProcessRun run = test::runCommand(
      "python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' " + path.string() +
      " 2>&1");
  std::filesystem::remove(path);
  return run.status == 0 ? std::string() : run.out;
}

/// Markdown without its fenced blocks: inside a fence, text is shown as written, never markup.
std::string outsideCodeFences(const std::string& md) {
  std::istringstream is(md);
  std::string out, fence;
  for (std::string l; std::getline(is, l);) {
    const std::size_t ticks = l.find_first_not_of('`');
    const bool isFence = l.rfind("```", 0) == 0;
    if (fence.empty() && isFence) {
      fence = l.substr(0, ticks == std::string::npos ? l.size() : ticks);
    } else if (!fence.empty() && l == fence) {
      fence.clear();
    } else if (fence.empty()) {
      out += l + "\n";
    }
  }
  return out;
}

struct CertificateCase {
  const char* name;
  const char* dut;
  Level level;
  std::vector<std::string> families;
  gen::Sizes sizes;
  const char* mustShow;  ///< a block label the run must produce
};

class Certificate : public ::testing::TestWithParam<CertificateCase> {
 protected:
  static CertifyResult runCase(const CertificateCase& c) {
    const std::string spec = c.dut == std::string("echo")
                                 ? std::string("exec:") + ENVELOPE_DUT + " echo"
                                 : std::string(c.dut);
    auto dut = dut::makeDut(spec);
    RunOptions o;
    o.level = c.level;
    o.seed = 7;
    o.dutSpec = spec + " <script>alert(1)</script> & `x` | *y*";  // a hostile string
    o.families = c.families;
    o.sizes = c.sizes;
    return certify(*dut, o);
  }
};

/// The outline of both certificates, unescaped: equal when they show the same sections.
std::pair<std::vector<std::string>, std::vector<std::string>> outlines(const CertifyResult& r) {
  std::vector<std::string> fromMd = markdownOutline(toMarkdown(r));
  std::vector<std::string> fromHtml = htmlOutline(toHtml(r));
  for (std::string& s : fromMd) s = unescaped(s, true);
  for (std::string& s : fromHtml) s = unescaped(s, false);
  return {fromMd, fromHtml};
}

// A failing, a declined, a coverage-gap and a probe-bearing run: both certificates show the same
// sections with the same parts, the HTML is well-formed, and the part that explains the verdict
// is there.
TEST_P(Certificate, MarkdownAndHtmlShowTheSameSections) {
  const CertificateCase& c = GetParam();
  const CertifyResult r = runCase(c);
  const std::string md = toMarkdown(r), html = toHtml(r);
  const auto [fromMd, fromHtml] = outlines(r);
  EXPECT_EQ(fromMd, fromHtml);
  EXPECT_GT(fromMd.size(), 2 * r.families.size()) << md;
  EXPECT_NE(std::find(fromMd.begin(), fromMd.end(), c.mustShow), fromMd.end())
      << c.mustShow << " missing from\n"
      << md;
  EXPECT_NE(std::find(fromMd.begin(), fromMd.end(), "Properties checked"), fromMd.end());
  EXPECT_EQ(xmlParseErrors(html, c.name), "");
  EXPECT_EQ(html.find("<script>"), std::string::npos);
  EXPECT_EQ(outsideCodeFences(md).find("<script>"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(
    Runs, Certificate,
    ::testing::Values(
        CertificateCase{"failing",
                        "mutant:load2d-dst-gap-ignored",
                        Level::Smoke,
                        {"load2d"},
                        gen::Sizes::Mixed,
                        "Properties checked"},
        CertificateCase{
            "declined", "echo", Level::Smoke, {"load2d"}, gen::Sizes::Mixed, "Declined"},
        CertificateCase{"coverage_gap",
                        "reference",
                        Level::Full,
                        {"mmad_sparse"},
                        gen::Sizes::Small,
                        "Coverage gap"},
        CertificateCase{"probes", "reference", Level::Smoke, {"mmad"}, gen::Sizes::Mixed, "Probe"}),
    [](const auto& info) { return std::string(info.param.name); });

// The same runs written, read back (what merge-reports reads) and merged alone: report.json is
// the same text both times, and so are the certificate and the terminal report, coverage gaps
// and all: one model, whichever way it came.
TEST_P(Certificate, ReadBackAndMergedAloneItIsTheSameReport) {
  const CertifyResult r = runCase(GetParam());
  const std::string json = toJson(r);
  const CertifyResult back = fromJson(json, "report.json");
  EXPECT_EQ(toJson(back), json);
  const CertifyResult merged = mergeResults({back});
  EXPECT_EQ(toJson(merged), json);
  EXPECT_EQ(toMarkdown(merged), toMarkdown(r));
  EXPECT_EQ(toHtml(merged), toHtml(r));
  EXPECT_EQ(toJUnit(merged), toJUnit(r));
  std::ostringstream a, b;
  printReport(a, r);
  printReport(b, merged);
  EXPECT_EQ(b.str(), a.str());
}

// The certificate of merged fuzz shards has the sections of the unsharded run's, the same in
// Markdown and HTML: a mutant, so failures, probes and not-supported reasons are in it.
TEST(Certificate, MergedShardsShowTheSectionsOfTheWholeRun) {
  const std::string spec = "mutant:load2d-dst-gap-ignored";
  auto dut = dut::makeDut(spec);
  auto fuzzed = [&](unsigned index, unsigned count) {
    FuzzOptions o;
    o.seed = 7;
    o.budget = std::chrono::minutes(5);
    o.maxCases = 20;
    o.dutSpec = spec;
    o.shardIndex = index;
    o.shardCount = count;
    return fuzz(*dut, o);
  };
  const CertifyResult whole = fuzzed(0, 1);
  const CertifyResult merged = mergeResults(
      {fromJson(toJson(fuzzed(0, 2)), "0.json"), fromJson(toJson(fuzzed(1, 2)), "1.json")});
  const auto [md, html] = outlines(merged);
  EXPECT_EQ(md, html);
  EXPECT_EQ(md, outlines(whole).first);
  EXPECT_NE(std::find(md.begin(), md.end(), "Properties checked"), md.end());
  EXPECT_EQ(merged.headline(), whole.headline());
  EXPECT_EQ(xmlParseErrors(toHtml(merged), "merged"), "");
}

// Each open point a family rests on is explained in a sentence and linked to its spec entry.
TEST(Certificate, ExplainsEachOpenPointWithALink) {
  const CertifyResult r = run("reference");
  const std::string md = toMarkdown(r), html = toHtml(r);
  for (const FamilyResult& f : r.families) {
    for (const std::string& id : f.openPoints) {
      EXPECT_NE(md.find("* *" + id + "*: "), std::string::npos) << id;
      EXPECT_NE(md.find("(spec.md#" + std::string(1, 'o') + "pen-" + id.substr(5) + ")"),
                std::string::npos)
          << id;
      EXPECT_NE(html.find("<b>" + id + ":</b>"), std::string::npos) << id;
    }
  }
}

// A report directory carries the spec its reports cite: spec.md, byte for byte the one whose
// SHA-256 they name, and every spec link of report.md and report.html resolves to an anchor in
// it. A report of another build's spec (a merge of its shards) gets none, and loses an earlier one.
TEST(Certificate, CarriesTheSpecItCitesBesideIt) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                    ("cubecheck_spec_beside_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  CertifyResult r = run("reference");
  writeReports(dir, r);
  auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string spec = slurp(dir / "spec.md");
  EXPECT_EQ(sha256Hex(spec), r.specSha256);
  std::size_t links = 0;
  for (const char* file : {"report.md", "report.html"}) {
    const std::string text = slurp(dir / file);
    const std::regex link(R"re([("]spec\.md#([a-z0-9-]+)[)"])re");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), link);
         it != std::sregex_iterator(); ++it, ++links) {
      EXPECT_NE(spec.find("<a id=\"" + (*it)[1].str() + "\">"), std::string::npos)
          << file << ": " << (*it)[0];
    }
    EXPECT_EQ(text.find("docs/spec.md#"), std::string::npos) << file;
  }
  EXPECT_GT(links, 0u);
  r.specSha256 = std::string(64, '0');
  writeReports(dir, r);
  EXPECT_FALSE(std::filesystem::exists(dir / "spec.md"));
  EXPECT_NE(slurp(dir / "report.md").find("not the spec of the cubecheck that wrote this report"),
            std::string::npos);
  std::filesystem::remove_all(dir);
}

// ---- what the reports say is what the run backs -------------------------------------------------

/// failures + errors of junit.xml's <testsuites> line.
std::size_t junitProblems(const std::string& xml) {
  std::smatch m;
  const std::regex top(R"re(<testsuites [^>]*failures="(\d+)" errors="(\d+)")re");
  if (!std::regex_search(xml, m, top)) {
    ADD_FAILURE() << "no <testsuites> counts in\n" << xml;
    return 0;
  }
  return std::stoul(m[1]) + std::stoul(m[2]);
}

/// Every text a person reads of the run: the terminal, report.md and report.html.
std::string everyText(const CertifyResult& r) {
  std::ostringstream os;
  printReport(os, r);
  return os.str() + "\n" + toMarkdown(r) + "\n" + toHtml(r);
}

FuzzOptions fuzzCases(const std::string& spec, std::uint64_t cases) {
  FuzzOptions o;
  o.seed = 1;
  o.budget = std::chrono::minutes(5);
  o.maxCases = cases;
  o.dutSpec = spec;
  return o;
}

// A fuzz run checks no coverage and has no level: a mutant certify rejects at smoke passes 3 fuzz
// cases a property, and its report must not read as a certificate (CONFORMANT, level full).
TEST(ReportFuzz, IsAFuzzReportNeverACertificate) {
  const std::string spec = "mutant:load2d-repeat-zero-as-one";
  auto dut = dut::makeDut(spec);
  RunOptions smoke;
  smoke.level = Level::Smoke;
  smoke.seed = 1;
  smoke.dutSpec = spec;
  ASSERT_FALSE(certify(*dut, smoke).conformant()) << "certify must reject the mutant";
  const CertifyResult r = fuzz(*dut, fuzzCases(spec, 3));
  ASSERT_TRUE(r.conformant()) << "3 cases must miss the mutant for this test to mean anything";
  EXPECT_EQ(r.headline().rfind("NO FAILURE FOUND in ", 0), 0u) << r.headline();
  EXPECT_NE(r.headline().find("coverage not checked: not a certificate"), std::string::npos);
  const std::string text = everyText(r);
  EXPECT_EQ(text.find("CONFORMANT"), std::string::npos) << text;
  EXPECT_EQ(text.find("onformant"), std::string::npos) << "no family row may say conformant";
  EXPECT_EQ(text.find("certificate:"), std::string::npos) << text;
  EXPECT_EQ(text.find("level "), std::string::npos) << "fuzz has no level\n" << text;
  EXPECT_EQ(text.find("complete run"), std::string::npos) << text;
  EXPECT_EQ(toMarkdown(r).rfind("# cubecheck fuzz report: NO FAILURE FOUND", 0), 0u);
  // report.json keeps the verdict words for compatibility; report_kind says what they are worth.
  const auto j = nlohmann::json::parse(toJson(r));
  EXPECT_EQ(j["verdict"], "conformant") << "kept as it was";
  EXPECT_EQ(j["report_kind"], "fuzz");
  // The shards of the same run merge to a fuzz report too.
  auto shard = [&](unsigned i) {
    FuzzOptions o = fuzzCases(spec, 3);
    o.shardIndex = i;
    o.shardCount = 2;
    return fromJson(toJson(fuzz(*dut, o)), std::to_string(i) + ".json");
  };
  const CertifyResult merged = mergeResults({shard(0), shard(1)});
  EXPECT_EQ(merged.headline().rfind("NO FAILURE FOUND in ", 0), 0u) << merged.headline();
  EXPECT_EQ(everyText(merged).find("CONFORMANT"), std::string::npos) << everyText(merged);
  EXPECT_EQ(nlohmann::json::parse(toJson(merged))["report_kind"], "fuzz");
  // A certificate says it is one, a filtered certify run that it is a partial run; a report.json
  // whose report_kind was edited is refused, as an edited verdict is.
  const CertifyResult whole = run("reference");
  EXPECT_EQ(nlohmann::json::parse(toJson(whole))["report_kind"], "certificate");
  auto reference = dut::makeDut("reference");
  smoke.families = {"load2d"};
  EXPECT_EQ(nlohmann::json::parse(toJson(certify(*reference, smoke)))["report_kind"],
            "partial_run");
  auto edited = nlohmann::json::parse(toJson(r));
  edited["report_kind"] = "certificate";
  try {
    (void)fromJson(edited.dump(), "edited.json");
    ADD_FAILURE() << "a fuzz report read as a certificate";
  } catch (const MergeError& e) {
    EXPECT_NE(std::string(e.what()).find("edited.json: not a cubecheck report.json: field "
                                         "'report_kind' says 'certificate' where the report's "
                                         "fields give 'fuzz'"),
              std::string::npos)
        << e.what();
  }
  // A fuzz that finds a failure says so, in its own words.
  auto bad = dut::makeDut("mutant:load2d-dst-gap-ignored");
  const CertifyResult found = fuzz(*bad, fuzzCases("mutant:load2d-dst-gap-ignored", 20));
  EXPECT_EQ(found.headline().rfind("FAILURES FOUND in ", 0), 0u) << found.headline();
  EXPECT_EQ(everyText(found).find("NONCONFORMANT"), std::string::npos);
}

// junit.xml has a failure or an error exactly when the exit status is not 0 (cli/main.cpp: 0 only
// for a conformant() run; an interrupted or internally failed run is never conformant), whatever
// made the verdict bad: a failing case, a coverage gap, a run that did not finish, a run that
// certified nothing.
TEST(ReportJUnit, FailsExactlyWhenTheExitStatusIsNotZero) {
  auto reference = dut::makeDut("reference");
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 3;
  o.dutSpec = "reference";
  o.families = {"load2d"};
  const CertifyResult base = certify(*reference, o);
  ASSERT_TRUE(base.conformant()) << base.headline();
  ASSERT_FALSE(base.families.at(0).coverageRequired.empty());

  std::vector<std::pair<std::string, CertifyResult>> runs;
  runs.emplace_back("conformant", base);
  CertifyResult gap = base;
  gap.families[0].coverageGaps = {{gap.families[0].coverageRequired.at(0).first, 0}};
  runs.emplace_back("coverage gap", gap);
  for (int k = 0; k < 3; ++k) {
    CertifyResult halted = base;
    if (k == 0) halted.interrupted = true;
    if (k == 1) halted.stoppedEarly = "5 consecutive timeouts";
    if (k == 2) halted.internalError = "a defect";
    runs.emplace_back("unfinished " + std::to_string(k), halted);
  }
  o.families = {"load3d_v1"};  // a2 lacks it: every case NotSupported, nothing certified
  runs.emplace_back("nothing certified", certify(*reference, o));
  o.families = {"load2d"};
  auto mutant = dut::makeDut("mutant:load2d-dst-gap-ignored");
  runs.emplace_back("failing cases", certify(*mutant, o));
  FuzzOptions none = fuzzCases("reference", 3);
  none.budget = std::chrono::milliseconds(0);
  runs.emplace_back("fuzz out of time", fuzz(*reference, none));
  runs.emplace_back("fuzz", fuzz(*reference, fuzzCases("reference", 2)));

  std::set<bool> seen;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const auto& [what, r] = runs[i];
    const std::string xml = toJUnit(r);
    EXPECT_EQ(junitProblems(xml) == 0, r.conformant()) << what << ": " << r.headline() << "\n"
                                                       << xml;
    EXPECT_EQ(xmlParseErrors(xml, "junit" + std::to_string(i)), "") << what;
    seen.insert(r.conformant());
  }
  EXPECT_EQ(seen.size(), 2u) << "both kinds of run";
  EXPECT_NE(toJUnit(gap).find("coverage gap: bin "), std::string::npos);
}

// Headlines carry their qualifiers: a run that did not finish leads with what stopped it and
// calls nothing conformant; the certificate's Scope line does not call it complete.
TEST(ReportHeadline, AnUnfinishedRunSaysSo) {
  CertifyResult r = run("reference");
  ASSERT_TRUE(r.conformant());
  r.interrupted = true;
  EXPECT_EQ(r.headline().rfind("INTERRUPTED, not a certificate; what ran found no failure", 0), 0u)
      << r.headline();
  EXPECT_EQ(r.headline().find("conformant:"), std::string::npos) << r.headline();
  EXPECT_EQ(toMarkdown(r).find("Scope: complete run"), std::string::npos);
  EXPECT_EQ(toMarkdown(r).find("certificate:"), std::string::npos);
  EXPECT_EQ(toHtml(r).find("<title>cubecheck certificate"), std::string::npos);
}

// A not-certified family names the real cause: the profile lacks it, the fuzz budget ran out.
TEST(ReportHeadline, NotCertifiedSaysWhy) {
  auto dut = dut::makeDut("reference");
  RunOptions o;
  o.level = Level::Smoke;
  o.families = {"load3d_v1"};
  const CertifyResult lacks = certify(*dut, o);
  EXPECT_NE(lacks.families.at(0).notCertifiedWhy().find("profile a2 has no LoadData3DParamsV1"),
            std::string::npos)
      << lacks.families.at(0).notCertifiedWhy();
  FuzzOptions f = fuzzCases("reference", 3);
  f.budget = std::chrono::milliseconds(0);
  const CertifyResult late = fuzz(*dut, f);
  ASSERT_FALSE(late.families.empty());
  for (const FamilyResult& x : late.families) {
    EXPECT_EQ(x.notCertifiedWhy(), "the time budget (--time) ran out before any of its cases");
  }
  EXPECT_EQ(late.headline().rfind("NOTHING CHECKED", 0), 0u) << late.headline();
}

}  // namespace
}  // namespace cubecheck::conf
