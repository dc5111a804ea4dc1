// What a certificate claims (issue 13): the declared envelope, Declined cases, no-op passes,
// "not certified" families and partial runs, through the DUTs of tests/envelope_dut.c.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "conformance/checks.hpp"
#include "conformance/fuzz.hpp"
#include "conformance/report.hpp"
#include "dut_adapters/registry.hpp"
#include "dut_adapters/wire.hpp"
#include "generators/load2d.hpp"
#include "isa/fields.hpp"
#include "oracle/oracle.hpp"
#include "process.hpp"
#include "scratch.hpp"

namespace cubecheck::conf {
namespace {

std::string envelopeDut(const char* mode) {
  return std::string("exec:") + ENVELOPE_DUT + " " + mode;
}

/// The headline's count of a narrowed family's required bins no case inside the envelope reached,
/// counted here from the coverage maps (not from binsOutside()).
std::string leftOut(const FamilyResult& f) {
  std::size_t n = 0;
  for (const auto& [bin, quota] : f.coverageRequired) {
    if (f.coverage.count(bin) == 0 && f.coverageNotRun.count(bin) > 0) ++n;
  }
  if (n == 0) return {};
  return ", " + std::to_string(n) + " of its " + std::to_string(f.coverageRequired.size()) +
         " required bins left out";
}

// ---- the envelope grammar ----------------------------------------------------------------------

struct LimitRow {
  const char* text;
  const char* field;              // the field whose values are tried
  std::vector<std::int64_t> in;   // admitted
  std::vector<std::int64_t> out;  // refused
};

class LimitGrammar : public ::testing::TestWithParam<LimitRow> {};

TEST_P(LimitGrammar, AdmitsExactlyTheDeclaredValues) {
  const LimitRow& row = GetParam();
  std::string error;
  const auto l = dut::parseFieldLimit(row.text, error);
  ASSERT_TRUE(l.has_value()) << error;
  EXPECT_EQ(l->field, row.field);
  for (std::int64_t v : row.in) EXPECT_TRUE(l->admits(v)) << row.text << " should admit " << v;
  for (std::int64_t v : row.out) EXPECT_FALSE(l->admits(v)) << row.text << " should refuse " << v;
}

constexpr auto kF16 = static_cast<std::int64_t>(isa::DType::F16);
constexpr auto kS8 = static_cast<std::int64_t>(isa::DType::S8);
constexpr auto kGMtoA1 = static_cast<std::int64_t>(isa::Load2DPath::GMtoA1);
constexpr auto kA1toA2 = static_cast<std::int64_t>(isa::Load2DPath::A1toA2);

INSTANTIATE_TEST_SUITE_P(
    Envelope, LimitGrammar,
    ::testing::Values(
        // Each row's values sit on both sides of the declared boundary.
        LimitRow{"load2d repeat_times <= 100", "repeat_times", {0, 100}, {101, 255}},
        LimitRow{"load2d repeat_times >= 1", "repeat_times", {1, 255}, {0}},
        LimitRow{"load2d sid == 0", "sid", {0}, {1}},
        LimitRow{"load2d src_stride in 0..1000", "src_stride", {0, 1000}, {1001}},
        LimitRow{"load2d dtype in f16 bf16", "dtype", {kF16}, {kS8}},
        LimitRow{"load2d path in GMtoA1", "path", {kGMtoA1}, {kA1toA2}},
        LimitRow{"load2d dst % 512", "dst", {0, 1024}, {32, 513}},
        // A default-constructed Load2D has dst_gap 0 (isa/load2d.hpp).
        LimitRow{"load2d dst_gap default", "dst_gap", {0}, {1}},
        LimitRow{"mmad m <= 64", "m", {64}, {65}}));

struct BadLimit {
  const char* text;
  const char* says;
};

class BadLimits : public ::testing::TestWithParam<BadLimit> {};

TEST_P(BadLimits, AreRefusedWithTheReason) {
  std::string error;
  EXPECT_FALSE(dut::parseFieldLimit(GetParam().text, error).has_value());
  EXPECT_NE(error.find(GetParam().says), std::string::npos) << error;
}

INSTANTIATE_TEST_SUITE_P(
    Envelope, BadLimits,
    ::testing::Values(BadLimit{"load9 repeat_times <= 1", "unknown instruction 'load9'"},
                      BadLimit{"load2d repeats <= 1", "has no field 'repeats'"},
                      // repeat_times is 8 bits wide (isa/fields.cpp): 300 is no value of it.
                      BadLimit{"load2d repeat_times <= 300", "'300' is not a value"},
                      BadLimit{"load2d dtype in f17", "'f17' is not a value"},
                      BadLimit{"load2d repeat_times ~ 3", "the operator is one of"},
                      BadLimit{"load2d dst % 0", "a modulus of at least 1, got '0'"},
                      BadLimit{"load2d", "a limit is"}));

// ---- the handshake -----------------------------------------------------------------------------

struct Handshake {
  const char* text;
  const char* error;  // nullptr: accepted
};

class HandshakeLines : public ::testing::TestWithParam<Handshake> {};

// Red team (round 8): 2,000,000 limit lines were read, for a minute, at every restart.
TEST(Handshake, HasABoundedNumberOfLines) {
  std::string text = "dut 2\ninstructions load2d\n";
  for (std::size_t i = 0; i < dut::wire::kMaxHandshakeLines; ++i) {
    text += "limit load2d repeat_times <= 100\n";
  }
  dut::wire::BufferSource src(text + "end\n");
  dut::Capabilities caps;
  std::string error;
  EXPECT_FALSE(dut::wire::readCapabilities(src, caps, error));
  EXPECT_NE(error.find("more than " + std::to_string(dut::wire::kMaxHandshakeLines) + " lines"),
            std::string::npos)
      << error;
  // One line fewer in all is a handshake like any other.
  std::string fits = "dut 2\ninstructions load2d\n";
  for (std::size_t i = 0; i + 2 < dut::wire::kMaxHandshakeLines; ++i) {
    fits += "limit load2d repeat_times <= 100\n";
  }
  dut::wire::BufferSource ok(fits + "end\n");
  EXPECT_TRUE(dut::wire::readCapabilities(ok, caps, error)) << error;
}

TEST_P(HandshakeLines, Version1UnchangedVersion2AddsLimits) {
  dut::wire::BufferSource src(GetParam().text);
  dut::Capabilities caps;
  std::string error;
  const bool ok = dut::wire::readCapabilities(src, caps, error);
  if (GetParam().error == nullptr) {
    EXPECT_TRUE(ok) << error;
  } else {
    EXPECT_FALSE(ok);
    EXPECT_NE(error.find(GetParam().error), std::string::npos) << error;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Envelope, HandshakeLines,
    ::testing::Values(
        Handshake{"dut 1\nname a\nprofiles a2\ninstructions load2d\nend\n", nullptr},
        Handshake{"dut 2\ninstructions load2d\nlimit load2d repeat_times <= 100\nend\n", nullptr},
        Handshake{"dut 1\ninstructions load2d\nlimit load2d repeat_times <= 100\nend\n",
                  "need a version 2 handshake"},
        // A DUT (or a plugin's host process) that cannot start says why: that is the error,
        // not a first line that should have been 'dut 2'.
        Handshake{"error cannot open the model file\n", "cannot open the model file"},
        Handshake{"error\n", "(no reason given)"},
        Handshake{"dut 2\ninstructions load2d\nlimit mmad m <= 4\nend\n", "does not declare"},
        Handshake{"dut 2\ninstructions load2d\nlimit load2d nothing <= 4\nend\n", "has no field"},
        Handshake{"dut 3\nend\n", "protocol version 3"}));

TEST(Envelope, ProgramsOutsideItAreNotSupportedWithTheClause) {
  std::string error;
  dut::Capabilities caps = dut::makeDut("reference")->capabilities();
  caps.limits.push_back(*dut::parseFieldLimit("load2d repeat_times <= 100", error));
  gen::Load2DCase c;
  c.load.path = isa::Load2DPath::GMtoA1;
  c.load.dtype = isa::DType::F16;
  c.load.params.repeatTimes = 101;
  EXPECT_EQ(unsupportedReason(caps, gen::buildProgram(c)),
            "outside the declared envelope: load2d repeat_times <= 100");
  c.load.params.repeatTimes = 100;
  EXPECT_FALSE(unsupportedReason(caps, gen::buildProgram(c)).has_value());
  EXPECT_NE(caps.envelopeText().find("limits: load2d repeat_times <= 100"), std::string::npos);
}

// A board declares what it can read back and, apart, what it can be given images of (its bias
// table, staged through L1, but on a dav-3510 not L0C): a `given` line.
TEST(Envelope, GivenMemoriesAreNotObservable) {
  dut::wire::BufferSource src("dut 2\nobservable GM L1 L0C\ngiven GM L1 BT\nend\n");
  dut::Capabilities caps;
  std::string error;
  ASSERT_TRUE(dut::wire::readCapabilities(src, caps, error)) << error;
  EXPECT_TRUE(caps.canBeGiven(isa::Memory::BiasTable));
  EXPECT_FALSE(caps.canObserve(isa::Memory::BiasTable));
  EXPECT_TRUE(caps.canObserve(isa::Memory::L0C));
  EXPECT_FALSE(caps.canBeGiven(isa::Memory::L0C));  // a dav-3510: no call writes L0C
  EXPECT_FALSE(caps.canBeGiven(isa::Memory::L0A));
  EXPECT_NE(caps.envelopeText().find("; given images of GM L1 BT"), std::string::npos);
}

// `observable` is also what a DUT may be given images of: a program that carries an image of a
// memory the DUT does not list is not run (a board would run on whatever that memory held).
TEST(Envelope, ImagesOfUndeclaredMemoriesAreNotSupported) {
  dut::Capabilities caps = dut::makeDut("reference")->capabilities();
  gen::Load2DCase c;
  c.load.path = isa::Load2DPath::A1toA2;
  c.load.dtype = isa::DType::F16;
  c.load.params.repeatTimes = 1;
  const isa::Program p = gen::buildProgram(c);
  ASSERT_FALSE(unsupportedReason(caps, p).has_value());
  std::erase(caps.observable, isa::Memory::L1);
  EXPECT_EQ(unsupportedReason(caps, p), "DUT cannot be given an image of L1");
}

// ---- no-op passes ------------------------------------------------------------------------------

TEST(NoOpPass, ZeroRepeatsIsTrivialOneRepeatIsWork) {
  gen::Load2DCase c;
  c.load.path = isa::Load2DPath::GMtoA1;
  c.load.dtype = isa::DType::F16;
  c.contentSeed = 5;
  c.load.params.repeatTimes = 0;
  isa::Program p = gen::buildProgram(c);
  EXPECT_TRUE(doNothingPasses(p, oracle::expect(p)));
  c.load.params.repeatTimes = 1;
  p = gen::buildProgram(c);
  EXPECT_FALSE(doNothingPasses(p, oracle::expect(p)));
  auto ref = dut::makeDut("reference");
  EXPECT_FALSE(checkAgainstOracle(*ref, p).trivial);
}

// ---- verdicts ----------------------------------------------------------------------------------

RunOptions options(isa::ProfileId profile, Level level, std::vector<std::string> families,
                   const std::string& spec) {
  RunOptions o;
  o.profile = profile;
  o.level = level;
  o.seed = 13;
  o.families = std::move(families);
  o.dutSpec = spec;
  return o;
}

class EchoDut : public ::testing::TestWithParam<isa::ProfileId> {};

// (a) Declares everything, runs nothing, passes only zero-repeat loads: NONCONFORMANT, the
// declined cases named, and no family certified by its no-op passes.
TEST_P(EchoDut, IsNonconformantWithDeclinedCasesNamed) {
  const std::string spec = envelopeDut("echo");
  auto dut = dut::makeDut(spec);
  ASSERT_FALSE(dut->broken().has_value()) << *dut->broken();
  // Smoke level here; tests/CMakeLists.txt runs the same at level full through the binary.
  const CertifyResult r = certify(*dut, options(GetParam(), Level::Smoke, {}, spec));
  EXPECT_FALSE(r.conformant());
  EXPECT_EQ(r.verdict(), "nonconformant");
  EXPECT_EQ(r.headline().rfind("NONCONFORMANT", 0), 0u) << r.headline();
  EXPECT_TRUE(r.certifiedFamilies().empty());
  const FamilyResult& load2d = r.families.at(0);
  ASSERT_EQ(load2d.name, "load2d");
  EXPECT_EQ(load2d.verdict(), "nonconformant");
  EXPECT_GT(load2d.counts.of(Outcome::Pass), 0u);
  EXPECT_EQ(load2d.counts.trivialPasses, load2d.counts.of(Outcome::Pass)) << "only no-ops pass";
  EXPECT_GT(load2d.counts.of(Outcome::Declined), 0u);
  EXPECT_EQ(load2d.declinedReasons.count(
                "declined inside the declared envelope: DUT says: this model runs at most 0 "
                "repeats"),
            1u);
  ASSERT_FALSE(load2d.failures.empty());
  EXPECT_EQ(load2d.failures[0].outcome, Outcome::Declined);
  EXPECT_NE(load2d.failures[0].reproduce.find("--case"), std::string::npos);
  std::ostringstream terminal;
  printReport(terminal, r);
  EXPECT_NE(terminal.str().find("load2d DECLINED"), std::string::npos);
  EXPECT_NE(terminal.str().find("verdict: NONCONFORMANT"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(Profiles, EchoDut,
                         ::testing::Values(isa::ProfileId::A2, isa::ProfileId::Ascend950,
                                           isa::ProfileId::Legacy),
                         [](const auto& i) { return std::string(isa::profile(i.param).name); });

// (b) A correct load2d that quietly refuses repeat_times > 100: NONCONFORMANT, the declined
// cases and the unmet bin named.
TEST(Load2DUpTo100, UndeclaredLimitIsNonconformantWithTheBinNamed) {
  const std::string spec = envelopeDut("limit100");
  auto dut = dut::makeDut(spec);
  const CertifyResult r =
      certify(*dut, options(isa::ProfileId::A2, Level::Smoke, {"load2d"}, spec));
  const FamilyResult& f = r.families.at(0);
  EXPECT_EQ(f.verdict(), "nonconformant");
  EXPECT_EQ(f.counts.of(Outcome::Mismatch), 0u);
  EXPECT_GT(f.counts.of(Outcome::Declined), 0u);
  EXPECT_EQ(f.declinedReasons.count("declined inside the declared envelope: DUT says: this model "
                                    "runs at most 100 repeats"),
            1u);
  bool named = false;
  for (const auto& [bin, passes] : f.coverageGaps) named = named || (bin == "repeat:255");
  EXPECT_TRUE(named) << "repeat:255 is a required bin inside the envelope that never passed";
  std::ostringstream terminal;
  printReport(terminal, r);
  EXPECT_NE(terminal.str().find("COVERAGE GAP: bin repeat:255 passed 0 time(s)"), std::string::npos)
      << terminal.str();
}

// (c) The same DUT declaring its limit is conformant within it, and every format says so.
TEST(Load2DUpTo100, DeclaredLimitIsConformantWithinIt) {
  const std::string spec = envelopeDut("limit100-declared");
  auto dut = dut::makeDut(spec);
  ASSERT_FALSE(dut->broken().has_value()) << *dut->broken();
  const CertifyResult r = certify(*dut, options(isa::ProfileId::A2, Level::Smoke, {}, spec));
  const FamilyResult& f = r.families.at(0);
  for (const Failure& x : f.failures) ADD_FAILURE() << x.property << ": " << x.detail;
  for (const auto& [bin, passes] : f.coverageGaps) ADD_FAILURE() << bin << " " << passes;
  EXPECT_EQ(f.verdict(), "conformant");
  EXPECT_TRUE(r.conformant());
  // Reasons are grouped by a key with numbers as N; the example keeps the clause whole.
  const std::string key = reasonKey("outside the declared envelope: load2d repeat_times <= 100");
  EXPECT_GT(f.notSupportedReasons.count(key), 0u);
  // The headline carries the limits and how much of the family ran inside them. Every case
  // outside is the limit's (the DUT declares every data type and validates nothing).
  const std::size_t notValidated =
      f.notSupportedReasons.count(reasonKey("DUT does not validate programs (rejects_illegal is "
                                            "false)")) > 0
          ? f.notSupportedReasons.at(
                reasonKey("DUT does not validate programs (rejects_illegal is false)"))
          : 0;
  const std::size_t outside = f.notSupportedReasons.at(key) + notValidated;
  EXPECT_EQ(f.outsideEnvelope(), outside);
  const std::size_t total = f.counts.total();
  EXPECT_EQ(r.headline().rfind(
                "CONFORMANT on profile a2 for load2d within the declared envelope (load2d ran " +
                    std::to_string(total - f.counts.of(Outcome::NotSupported)) + " of its " +
                    std::to_string(total) + " cases, " + std::to_string(outside) +
                    " outside the envelope" + leftOut(f) + "; limits: load2d repeat_times <= 100)",
                0),
            0u)
      << r.headline();
  EXPECT_EQ(f.notSupportedExamples.at(key),
            "outside the declared envelope: load2d repeat_times <= 100");
  const std::string clause = "load2d repeat_times <= 100";
  std::ostringstream terminal;
  printReport(terminal, r);
  EXPECT_NE(terminal.str().find("\nDUT declares (envelope): "), std::string::npos);
  EXPECT_NE(terminal.str().find(clause), std::string::npos);
  const auto j = nlohmann::json::parse(toJson(r));
  EXPECT_EQ(j["envelope"]["limits"], nlohmann::json::array({clause}));
  EXPECT_NE(j["envelope"]["certified_within"].get<std::string>().find(clause), std::string::npos);
  EXPECT_NE(toMarkdown(r).find("* DUT declares (envelope): "), std::string::npos);
  // Markdown escapes what could be markup: '_' and '<' of the clause.
  EXPECT_NE(toMarkdown(r).find("load2d repeat\\_times &lt;= 100"), std::string::npos);
  EXPECT_NE(toHtml(r).find("DUT declares (envelope): "), std::string::npos);
  EXPECT_NE(toHtml(r).find("load2d repeat_times &lt;= 100"), std::string::npos);
}

// (d) A DUT whose declared data types and memories, with no limit at all, keep most of the family
// out: the headline says the family is certified only within that envelope, and how much of it
// ran; the certificate names the smoke level it was drawn at.
TEST(S4Only, NarrowDeclarationsQualifyTheHeadline) {
  const std::string spec = envelopeDut("s4-only");
  auto dut = dut::makeDut(spec);
  ASSERT_FALSE(dut->broken().has_value()) << *dut->broken();
  const CertifyResult r = certify(*dut, options(isa::ProfileId::A2, Level::Smoke, {}, spec));
  const FamilyResult& f = r.families.at(0);
  ASSERT_EQ(f.name, "load2d");
  for (const Failure& x : f.failures) ADD_FAILURE() << x.property << ": " << x.detail;
  ASSERT_EQ(f.verdict(), "conformant");
  std::size_t undeclared = 0;
  for (const auto& [reason, cases] : f.notSupportedReasons) {
    if (reason.rfind("DUT ", 0) == 0) undeclared += cases;
  }
  ASSERT_GT(undeclared, f.counts.total() / 2) << "most cases are outside what it declares";
  const std::string ran = std::to_string(f.counts.total() - f.counts.of(Outcome::NotSupported));
  EXPECT_EQ(r.headline().rfind(
                "CONFORMANT on profile a2 for load2d within the declared envelope (load2d ran " +
                    ran + " of its " + std::to_string(f.counts.total()) + " cases, " +
                    std::to_string(undeclared) + " outside the envelope" + leftOut(f) + ")",
                0),
            0u)
      << r.headline();
  EXPECT_NE(r.headline().find("; drawn at level smoke (certify's default, level full with sizes "
                              "mixed, draws more)"),
            std::string::npos)
      << r.headline();
  EXPECT_EQ(r.capabilities.envelopeText().find("every legal value"), std::string::npos);
  for (const std::string& text : {toMarkdown(r), toHtml(r), toJson(r)}) {
    EXPECT_NE(text.find("within the declared envelope (load2d ran " + ran), std::string::npos);
  }
  // The bins it left out are named in the family's section, each of them: the required bins
  // no case inside the envelope reached (counted here from the coverage maps), never one a case
  // ran in.
  const std::vector<std::string> left = f.binsOutside();
  ASSERT_FALSE(left.empty());
  EXPECT_EQ(leftOut(f), ", " + std::to_string(left.size()) + " of its " +
                            std::to_string(f.coverageRequired.size()) + " required bins left out");
  for (const std::string& bin : left) EXPECT_EQ(f.coverage.count(bin), 0u) << bin;
  std::ostringstream terminal;
  printReport(terminal, r);
  const std::vector<std::pair<std::string, bool>> texts{
      {toMarkdown(r), true}, {toHtml(r), false}, {terminal.str(), false}};
  for (const auto& [text, markdown] : texts) {
    // the terminal writes an alert's label in capitals
    std::size_t at = text.find("Required bins not certified");
    if (at == std::string::npos) at = text.find("REQUIRED BINS NOT CERTIFIED");
    ASSERT_NE(at, std::string::npos) << text.substr(0, 4000);
    const std::string block = text.substr(at, text.find('\n', at) - at);
    for (const std::string& bin : left) {
      // Markdown escapes '_' in a bin's name
      std::string shown;
      for (char c : bin) shown += c == '_' && markdown ? std::string("\\_") : std::string(1, c);
      EXPECT_NE(block.find(shown), std::string::npos) << bin << " in " << block;
    }
  }
}

// The same DUT fuzzed: the headline counts the cases that ran, and the ones the DUT did not
// support apart (they checked nothing), as certify's "ran X of its Y" does.
TEST(S4Only, FuzzHeadlineCountsOnlyTheCasesThatRan) {
  const std::string spec = envelopeDut("s4-only");
  auto dut = dut::makeDut(spec);
  FuzzOptions o;
  o.maxCases = 20;
  o.families = {"load2d"};
  o.dutSpec = spec;
  const CertifyResult r = fuzz(*dut, o);
  const FamilyResult& f = r.families.at(0);
  const std::size_t unsupported = f.counts.of(Outcome::NotSupported);
  ASSERT_GT(unsupported, 0u) << "the DUT declares too little for every case to run";
  const std::size_t ran = f.counts.total() - unsupported;
  const std::string expected = std::to_string(ran) + " case(s) run (" +
                               std::to_string(unsupported) + " more not supported by the DUT)";
  EXPECT_NE(r.headline().find(expected), std::string::npos) << r.headline();
}

// (e) A DUT that declares nothing is never conformant.
TEST(DeclaresNothing, IsNeverConformant) {
  const std::string spec = envelopeDut("nothing");
  auto dut = dut::makeDut(spec);
  ASSERT_FALSE(dut->broken().has_value()) << *dut->broken();
  const CertifyResult r = certify(*dut, options(isa::ProfileId::A2, Level::Smoke, {}, spec));
  EXPECT_FALSE(r.conformant());
  EXPECT_EQ(r.verdict(), "not certified");
  EXPECT_EQ(r.headline().rfind(
                "NOT CERTIFIED on profile a2; not certified (nothing inside the envelope ran): "
                "load2d, ",
                0),
            0u)
      << r.headline();
  for (const FamilyResult& f : r.families) {
    EXPECT_EQ(f.verdict(), "not certified") << f.name;
    EXPECT_EQ(f.counts.of(Outcome::NotSupported), f.counts.total()) << f.name;
  }
}

// ---- the binary: exit codes, scope, reproduce runs ----------------------------------------------

using CliRun = test::ProcessRun;

CliRun cli(const std::string& args, const std::filesystem::path& cwd) {
  return test::runCommand("cd '" + cwd.string() + "' && " + std::string(CUBECHECK_BINARY) + " " +
                          args);
}

std::filesystem::path freshDir(const char* name) {
  return test::freshDir(std::string("envelope_") + name);
}

nlohmann::json readJson(const std::filesystem::path& p) {
  std::ifstream in(p);
  return nlohmann::json::parse(in);
}

// (a) through `vectors check`: the golden vectors against the echo DUT.
TEST(EchoDutCli, VectorsCheckIsNonconformant) {
  const auto dir = freshDir("vectors");
  const CliRun r = cli("vectors check --dir " + std::string(CUBECHECK_SOURCE_DIR) +
                           "/vectors/golden --dut '" + envelopeDut("echo") + "' --report-dir out",
                       dir);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("verdict: REPLAY FAILED"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("DECLINED"), std::string::npos) << r.out;
  const auto j = readJson(dir / "out/report.json");
  EXPECT_EQ(j["verdict"], "nonconformant");
  EXPECT_EQ(j["report_kind"], "replay");
  std::size_t declined = 0;
  for (const auto& f : j["families"]) declined += f["declined"].get<std::size_t>();
  EXPECT_GT(declined, 0u);
  std::filesystem::remove_all(dir);
}

// (d) A filtered run is a partial run in every format; a whole run is complete.
TEST(Scope, FilteredRunsArePartialWholeRunsComplete) {
  const auto dir = freshDir("scope");
  const CliRun part =
      cli("certify --dut reference --level smoke --seed 4 --quiet --family load2d "
          "--report-dir part",
          dir);
  EXPECT_EQ(part.status, 0) << part.out;  // the exit code is what ran: conformant
  EXPECT_NE(part.out.find("verdict: PARTIAL RUN (--family load2d)"), std::string::npos) << part.out;
  EXPECT_EQ(part.out.find("CONFORMANT"), std::string::npos) << part.out;
  const auto pj = readJson(dir / "part/report.json");
  EXPECT_EQ(pj["scope"]["complete"], false);
  EXPECT_EQ(pj["scope"]["filters"], nlohmann::json::array({"--family load2d"}));
  for (const char* file : {"part/report.md", "part/report.html"}) {
    std::ifstream in(dir / file);
    const std::string text{std::istreambuf_iterator<char>(in), {}};
    EXPECT_NE(text.find("PARTIAL RUN"), std::string::npos) << file;
    EXPECT_EQ(text.find("cubecheck certificate"), std::string::npos) << file;
  }

  const CliRun whole =
      cli("certify --dut reference --level smoke --seed 4 --quiet --report-dir whole", dir);
  EXPECT_EQ(whole.status, 0) << whole.out;
  const auto wj = readJson(dir / "whole/report.json");
  EXPECT_EQ(wj["scope"]["complete"], true);
  EXPECT_TRUE(wj["scope"]["filters"].empty());
  std::filesystem::remove_all(dir);
}

// A reproduce run writes no report unless asked, and one NotSupported case is not certified.
TEST(Scope, ReproduceRunOfANotSupportedCase) {
  const auto dir = freshDir("reproduce");
  // load_sparse exists only on a2 (spec 7.3): on 950 its case 0 is NotSupported.
  const CliRun r =
      cli("certify --dut reference --profile 950 --family load_sparse --property MatchesOracle "
          "--seed 4 --case 0 --quiet",
          dir);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("what ran is not certified"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("NONCONFORMANT"), std::string::npos) << r.out;
  EXPECT_TRUE(std::filesystem::is_empty(dir)) << "a reproduce run wrote a report";
  const CliRun kept =
      cli("certify --dut reference --profile 950 --family load_sparse --property MatchesOracle "
          "--seed 4 --case 0 --quiet --report-dir kept",
          dir);
  EXPECT_EQ(readJson(dir / "kept/report.json")["scope"]["complete"], false);
  std::filesystem::remove_all(dir);
}

TEST(DeclaresNothingCli, ExitsOneNotCertified) {
  const auto dir = freshDir("nothing");
  const CliRun r = cli("certify --dut '" + envelopeDut("nothing") +
                           "' --level smoke --seed 4 --quiet --report-dir ''",
                       dir);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("verdict: NOT CERTIFIED"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cubecheck::conf
