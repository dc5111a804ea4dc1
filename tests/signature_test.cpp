// Grouping that must mean something: NotSupported reasons by a key without addresses, failure
// signatures by root cause, and a DUT with several known faults to measure them on.
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "conformance/fuzz.hpp"
#include "conformance/indirect.hpp"
#include "conformance/localise.hpp"
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

TEST(Signature, EffectsNameWhatWentWrongWithoutWhereOrWhat) {
  const auto v = [](const std::string& d) { return Verdict{Outcome::Mismatch, d}; };
  const std::string stray =
      "3 wrong byte(s) inside the footprint, 12 stray byte(s) outside it:\n"
      "  L0B+0x200 fractal 1 k 0 n 0: expected 0x1 observed 0x2  <- stray write outside the "
      "footprint\n";
  const std::string inside =
      "3 wrong byte(s) inside the footprint, 0 stray byte(s) outside it:\n"
      "  SparseIndex+0x10 fractal 0 row 0 col 0: expected 0x1 observed 0x2\n";
  EXPECT_EQ(effectOf(v(stray), false), "writes outside its footprint");
  EXPECT_EQ(effectOf(v(stray), true), "writes outside its footprint in L0B");
  EXPECT_EQ(effectOf(v(inside), false), "wrong values");
  EXPECT_EQ(effectOf(v(inside), true), "wrong values in SparseIndex");
  EXPECT_EQ(effectOf(v("a legal program: DUT rejected it: Alignment: src 0x12 odd"), false),
            "rejects a legal program (Alignment)");
  EXPECT_EQ(
      effectOf(v("16129 element(s) outside the derived bound (gamma):\n  C[0][0]: ..."), false),
      "wrong values");
  EXPECT_EQ(effectOf(Verdict{Outcome::AdapterError, "exit 139"}, false),
            "breaks the adapter (adapter error)");
}

TEST(Signature, WithoutADutReasonsLoseTheirNumbersAndDetails) {
  const auto sig = [](Outcome o, const std::string& detail) {
    return signatureOf("mmad", CaseReport{{o, detail}, "case", {}, 0, std::nullopt});
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
            "mmad Mismatch: N element(s) outside the bound:");
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
    // A case without a vector (a metamorphic property) is the largest: a corpus prefers a row.
    std::size_t bytes = f.vector ? 0 : std::numeric_limits<std::size_t>::max();
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
  // Each fault is found, named by the instruction at fault, once per family it shows in: the
  // load2d fault through MatchesOracle, NoStrayWrites and RepeatSplit, in L0A, L0B and L1 (nine
  // signatures when keyed by property and memory), the mmad fault through MatchesOracle,
  // SaturationProbe and BoundedError (three).
  EXPECT_EQ(handed.size(), 2u) << failures << " failing cases:\n" << list;
  EXPECT_TRUE(handed.count("load2d: load2d writes outside its footprint")) << list;
  EXPECT_TRUE(handed.count("mmad: mmad wrong values")) << list;
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

/// The root causes kept for `family` when `mutant` is certified at smoke.
std::set<std::string> causes(const std::string& mutant, const std::string& family) {
  auto dut = dut::makeDut("mutant:" + mutant);
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 3;
  o.shrinkBudget = std::chrono::milliseconds(100);
  o.families = {family};
  std::set<std::string> out;
  for (const FamilyResult& f : certify(*dut, o).families) {
    for (const Failure& x : f.failures) out.insert(x.signature);
  }
  return out;
}

TEST(Localise, APipelineFailureIsPinnedOnTheInstructionAtFault) {
  // The pipeline observes only L0C; replaying its loads against the oracle finds which one broke.
  EXPECT_EQ(causes("load2d-last-repeat-dropped", "pipeline"),
            std::set<std::string>{"pipeline: load2d wrong values"});
  EXPECT_EQ(causes("mmad-init-ignored", "pipeline"),
            std::set<std::string>{"pipeline: mmad wrong values"});
  // A DUT that does nothing fails at the first load it is given.
  EXPECT_EQ(causes("writes-nothing", "pipeline"),
            std::set<std::string>{"pipeline: load2d wrong values"});
}

TEST(Localise, AStrayWriteIsNamedAsOne) {
  // The mutant writes past the destination: inside a segment that is a stray write, past every
  // segment the byte-level model itself refuses the program.
  const std::set<std::string> found = causes("load2d-stray-write", "load2d");
  EXPECT_TRUE(found.count("load2d: load2d writes outside its footprint"));
  for (const std::string& s : found) EXPECT_EQ(s.rfind("load2d: load2d ", 0), 0u) << s;
}

// A board observes GM, L1 and L0C only: fuzz sees L0A/L0B through Mmad as certify does, and the
// root cause of a load fault is still the load.
TEST(Localise, ABoardThatCannotObserveL0IsStillFuzzedAndItsLoadBlamed) {
  // A fault of transposing loads only: the plain loads the observation itself uses are sound.
  auto mutant = dut::makeDut("mutant:load2d-transpose-anti-diagonal");
  NarrowedDut board(*mutant, parseMemoryList("GM,L1,L0C"));
  FuzzOptions o;
  o.seed = 3;
  o.maxCases = 20;
  o.budget = std::chrono::minutes(2);
  o.shrinkBudget = std::chrono::milliseconds(100);
  o.families = {"load2d"};
  const CertifyResult r = fuzz(board, o);
  const FamilyResult& f = r.families.at(0);
  EXPECT_GT(f.counts.failures(), 0u) << "the fault is found through Mmad";
  EXPECT_FALSE(f.indirect.empty()) << "and the report says what the verdict rests on";
  for (const Failure& x : f.failures) {
    EXPECT_EQ(x.signature.rfind("load2d: load2d ", 0), 0u) << x.signature;
  }
}

}  // namespace
}  // namespace cubecheck::conf
