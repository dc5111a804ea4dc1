// Grouping that must mean something: NotSupported reasons by a key without addresses, failure
// signatures by root cause, and a DUT with several known faults to measure them on.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <stdexcept>

#include "conformance/fuzz.hpp"
#include "dut_adapters/registry.hpp"

namespace cubecheck::conf {
namespace {

TEST(ReasonKey, NumbersThatStandAloneBecomeN) {
  EXPECT_EQ(reasonKey("DUT cannot observe L0A+0x4a0 (640 bytes)"),
            "DUT cannot observe L0A+N (N bytes)");
  EXPECT_EQ(reasonKey("src_stride -3 at 12.5"), "src_stride N at N");
  // Numbers inside names and cited sections say what, not where: kept.
  EXPECT_EQ(reasonKey("OPEN-11: channel_size 17 of int32 in L0B, spec 6.4"),
            "OPEN-11: channel_size N of int32 in L0B, spec 6.4");
  EXPECT_EQ(reasonKey("no numbers at all"), "no numbers at all");
}

TEST(ReasonKey, ReasonsDifferingOnlyInAnAddressAreOneLine) {
  FamilyResult f;
  f.properties.push_back({"P", "", {}, 0});
  const Verdict a{Outcome::NotSupported, "DUT cannot observe L0B+0x10000 (512 bytes)"};
  const Verdict b{Outcome::NotSupported, "DUT cannot observe L0B+0x10200 (512 bytes)"};
  const Verdict c{Outcome::NotSupported, "DUT does not declare data type s4"};
  f.record(f.properties[0], a, {});
  f.record(f.properties[0], b, {});
  f.record(f.properties[0], c, {});
  ASSERT_EQ(f.notSupportedReasons.size(), 2u);
  EXPECT_EQ(f.notSupportedReasons.at("DUT cannot observe L0B+N (N bytes)"), 2u);
  EXPECT_EQ(f.notSupportedReasons.at("DUT does not declare data type s4"), 1u);
  // The first full reason is kept as the example of its key.
  EXPECT_EQ(f.notSupportedExamples.at("DUT cannot observe L0B+N (N bytes)"), a.detail);
  EXPECT_EQ(f.counts.of(Outcome::NotSupported), 3u);
}

CaseReport mismatch(const std::string& firstLine, std::vector<std::string> tags) {
  CaseReport r{
      {Outcome::Mismatch, "4 wrong byte(s) inside the footprint, 0 stray byte(s) outside it:\n  " +
                              firstLine +
                              "\n  L0A+0x9000 fractal 7 row 0 col 0: expected 0x1 observed 0x2\n"},
      "case",
      std::move(tags),
      0,
      std::nullopt};
  return r;
}

TEST(Signature, AddressesValuesAndParameterClassesDoNotSplitACause) {
  const std::string one = signatureOf(
      "load2d",
      mismatch("L0A+0x240 fractal 1 row 2 col 0: expected 0x0102 observed 0x0000", {"repeat:2"}),
      "MatchesOracle");
  const std::string two =
      signatureOf("load2d",
                  mismatch("L0A+0x8e40 fractal 71 row 0 col 15: expected 0xbeef observed 0x1234",
                           {"repeat:255", "transpose", "path:A1->A2"}),
                  "MatchesOracle");
  EXPECT_EQ(one, two);
  EXPECT_EQ(one.find("0x"), std::string::npos) << one;
  // Another memory, a stray write, another property: another signature.
  const std::string l0b = signatureOf(
      "load2d", mismatch("L0B+0x240 fractal 1 row 2 col 0: expected 0x1 observed 0x0", {}),
      "MatchesOracle");
  const std::string stray = signatureOf(
      "load2d",
      mismatch("L0A+0x440 fractal 2 row 0 col 0: expected 0x1 observed 0x0  <- stray write "
               "outside the footprint",
               {}),
      "MatchesOracle");
  const std::string other = signatureOf(
      "load2d", mismatch("L0A+0x240 fractal 1 row 2 col 0: expected 0x1 observed 0x0", {}),
      "RepeatSplit");
  EXPECT_NE(one, l0b);
  EXPECT_NE(one, stray);
  EXPECT_NE(one, other);
}

TEST(Signature, ReasonsWithoutADifferingElementLoseTheirNumbersAndDetails) {
  const auto sig = [](Outcome o, const std::string& detail) {
    return signatureOf("mmad", CaseReport{{o, detail}, "case", {}, 0, std::nullopt}, "P");
  };
  EXPECT_EQ(sig(Outcome::AdapterError, "DUT returned 3 regions for 2 observed"),
            sig(Outcome::AdapterError, "DUT returned 5 regions for 4 observed"));
  EXPECT_EQ(sig(Outcome::Mismatch, "rejected for Alignment (dst 0x10 not aligned); expected Range"),
            sig(Outcome::Mismatch, "rejected for Alignment (src 0x2 odd); expected Range"));
  EXPECT_EQ(sig(Outcome::Mismatch,
                "a legal program: DUT rejected it: UndefinedMemory: reads 512 bytes at 1024 in GM"),
            sig(Outcome::Mismatch,
                "a legal program: DUT rejected it: UndefinedMemory: writes 64 bytes at 0 in L0A"));
  EXPECT_NE(sig(Outcome::Mismatch, "a legal program: DUT rejected it: UndefinedMemory: x"),
            sig(Outcome::Mismatch, "a legal program: DUT rejected it: Capacity: x"));
  EXPECT_EQ(sig(Outcome::Mismatch, "3 element(s) outside the bound (g_{k+2} * (|a| + |b|)):"),
            "mmad/P Mismatch: N element(s) outside the bound:");
  EXPECT_NE(sig(Outcome::Mismatch, "rejected for Alignment (x); expected Range"),
            sig(Outcome::Mismatch, "rejected for Capacity (x); expected Range"));
}

TEST(MutantSet, SeveralFaultsInOneDut) {
  EXPECT_THROW(dut::makeDut("mutant:load2d-dst-gap-ignored+nonsense"), std::invalid_argument);
  auto dut = dut::makeDut("mutant:load2d-dst-gap-ignored+mmad-init-ignored");
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 4;
  o.shrinkBudget = std::chrono::milliseconds(200);
  o.families = {"load2d", "mmad", "load_sparse"};
  const CertifyResult r = certify(*dut, o);
  ASSERT_EQ(r.families.size(), 3u);
  EXPECT_EQ(r.families[0].verdict(), "nonconformant") << "the load2d fault shows";
  EXPECT_EQ(r.families[1].verdict(), "nonconformant") << "the mmad fault shows";
  // Neither fault touches LoadDataWithSparse: the set invents no failure of its own.
  EXPECT_EQ(r.families[2].verdict(), "conformant");
}

TEST(Signature, AFewRootCausesGiveAFewSignaturesEachKeptAtItsSmallest) {
  auto dut = dut::makeDut("mutant:load2d-dst-gap-ignored+mmad-init-ignored");
  FuzzOptions o;
  o.seed = 1;
  o.budget = std::chrono::minutes(5);
  o.maxCases = 40;
  o.shrinkBudget = std::chrono::milliseconds(300);
  o.dutSpec = "mutant:load2d-dst-gap-ignored+mmad-init-ignored";
  o.families = {"load2d", "mmad"};
  std::map<std::string, std::vector<std::size_t>> handed;  // signature -> case bytes, in order
  o.onNewFailure = [&](const std::string&, const Failure& f) {
    std::size_t bytes = 0;
    if (f.vector) {
      for (const auto& s : f.vector->program.segments) bytes += s.bytes.size();
      for (const auto& reg : f.vector->program.observe) bytes += reg.size;
    }
    handed[f.signature].push_back(bytes);
  };
  const CertifyResult r = fuzz(*dut, o);
  std::size_t failures = 0;
  for (const FamilyResult& f : r.families) failures += f.counts.failures();
  std::string list;
  for (const auto& entry : handed) list += entry.first + "\n";
  EXPECT_GE(handed.size(), 2u) << "both causes are found";
  // The bound follows from the key: the load2d fault shows in MatchesOracle, NoStrayWrites and
  // RepeatSplit, each with a destination in L0A, L0B or L1 (at most 9); the mmad fault in
  // MatchesOracle, SaturationProbe and BoundedError, all in L0C (at most 3). Keyed by the
  // case's tags and fractal, as before, the same run gave several times more.
  EXPECT_LE(handed.size(), 12u) << failures << " failing cases:\n" << list;
  EXPECT_GT(failures, 4 * handed.size()) << "the cases outnumber their causes";
  for (const auto& [sig, sizes] : handed) {
    for (std::size_t i = 1; i < sizes.size(); ++i) {
      EXPECT_LT(sizes[i], sizes[i - 1]) << sig << ": a replacement is a smaller case";
    }
  }
  // The report keeps one failure per signature.
  for (const FamilyResult& f : r.families) {
    std::set<std::string> kept;
    for (const Failure& x : f.failures) EXPECT_TRUE(kept.insert(x.signature).second) << x.signature;
  }
}

}  // namespace
}  // namespace cubecheck::conf
