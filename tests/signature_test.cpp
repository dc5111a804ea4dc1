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
#include "conformance/runner.hpp"
#include "dut_adapters/registry.hpp"
#include "isa/fields.hpp"

namespace cubecheck::conf {
namespace {

/// A localised signature without its instruction's variant: "mmad: mmad (dtype=f16 ...) wrong
/// values" is "mmad: mmad wrong values", the root cause the variant splits by mode.
std::string withoutVariant(const std::string& sig) {
  const std::size_t open = sig.find(" (", sig.find(": "));
  if (open == std::string::npos) return sig;
  return sig.substr(0, open) + sig.substr(sig.find(')', open) + 1);
}

/// The variant a localised signature names, split at " | " (several Mmads blamed together).
std::vector<std::string> variantsIn(const std::string& sig) {
  const std::size_t open = sig.find(" (", sig.find(": "));
  if (open == std::string::npos) return {};
  std::string v = sig.substr(open + 2, sig.find(')', open) - open - 2);
  std::vector<std::string> out;
  for (std::size_t bar; (bar = v.find(" | ")) != std::string::npos; v.erase(0, bar + 3)) {
    out.push_back(v.substr(0, bar));
  }
  out.push_back(v);
  return out;
}

/// Every variant `sig` names is that of an `opcode` instruction of the failure's program.
void expectVariantsOfTheProgram(const Failure& f, std::string_view opcode) {
  if (!f.vector) return;  // a metamorphic property: its programs are not kept
  const isa::Program& p = f.vector->program;
  std::set<std::string> there;
  for (std::size_t k = 0; k < p.instructions.size(); ++k) {
    if (isa::opcodeOf(p.instructions[k]) == opcode) there.insert(isa::variantOf(p, k));
  }
  for (const std::string& v : variantsIn(f.signature)) {
    EXPECT_TRUE(there.count(v)) << f.signature << "\n" << f.caseText;
  }
}

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

/// A Mismatch of `programs`, as a property that ran them would report it.
CaseReport failed(std::vector<isa::Program> programs) {
  CaseReport r{{Outcome::Mismatch, "3 wrong byte(s) inside the footprint, 0 stray byte(s)"},
               "case",
               {},
               0,
               std::nullopt};
  r.programs = std::move(programs);
  return r;
}

/// GM -> L1 (`path`) of `repeats` f16 fractals from GM `src` to L1 `dst`, over defined bytes.
isa::Program load(isa::Load2DPath path, std::uint64_t src, std::uint64_t dst,
                  std::uint8_t repeats) {
  isa::Load2D l;
  l.path = path;
  l.srcAddr = src;
  l.dstAddr = dst;
  l.params.repeatTimes = repeats;
  l.params.srcStride = 1;
  isa::Program p;
  isa::Bytes gm(isa::kFractalBytes * repeats);
  for (std::size_t i = 0; i < gm.size(); ++i) gm[i] = static_cast<std::uint8_t>(7 * i + 1);
  p.segments = {{isa::Memory::GM, src, gm},
                {isa::Memory::L1, 0, isa::Bytes(dst + isa::kFractalBytes * repeats)}};
  p.instructions = {l};
  return p;
}

// Red team M3: a waiver narrowed to one Mmad mode's signature hid every Mmad bug, since all
// were "mmad: mmad wrong values". The variant splits them by mode, and by nothing else: cases
// that differ in sizes, addresses or counts only are one signature.
TEST(Signature, TheVariantSplitsByModeNeverBySizeOrAddress) {
  auto dut = dut::makeDut("mutant:writes-nothing");
  isa::Mmad x;
  x.dtype = isa::DType::F16;
  x.m = 16, x.k = 32, x.n = 16;
  isa::Mmad y = x;
  y.m = 35, y.k = 100, y.n = 7, y.aAddr = 4096, y.bAddr = 512, y.cAddr = 8192, y.unitFlag = 2;
  const auto mmad = [&](isa::ProfileId id, std::vector<isa::Instruction> ins) {
    return signatureOf("mmad", failed({isa::Program{id, {}, std::move(ins), {}}}), dut.get());
  };
  const std::string sig = mmad(isa::ProfileId::A2, {x});
  EXPECT_EQ(withoutVariant(sig), "mmad: mmad wrong values");
  EXPECT_EQ(mmad(isa::ProfileId::A2, {y}), sig) << "sizes, addresses, unit_flag";
  // Each mode apart: the type, the init, HF32 on before it.
  isa::Mmad bf16 = x, bias = x;
  bf16.dtype = isa::DType::BF16;
  bias.isBias = true;
  EXPECT_NE(mmad(isa::ProfileId::A2, {bf16}), sig);
  EXPECT_NE(mmad(isa::ProfileId::A2, {bias}), sig);
  EXPECT_NE(mmad(isa::ProfileId::A2, {isa::SetHF32{true, 0}, x}), sig);
  // ... but not the register write as such: HF32 said off is HF32 never set.
  EXPECT_EQ(mmad(isa::ProfileId::A2, {isa::SetHF32{false, 0}, y}), sig);
  // Several Mmads in several modes: each is named, since which went wrong is not known.
  const std::vector<std::string> both = variantsIn(mmad(isa::ProfileId::A2, {x, bias, y}));
  EXPECT_EQ(std::set<std::string>(both.begin(), both.end()),
            (std::set<std::string>{variantsIn(mmad(isa::ProfileId::A2, {bias})).at(0),
                                   variantsIn(sig).at(0)}));
  EXPECT_EQ(both.size(), 2u);

  // A load found at fault by replaying it: its addresses and repeats change nothing, its path
  // does.
  using isa::Load2DPath;
  const auto loadSig = [&](isa::Program p) {
    return signatureOf("load2d", failed({std::move(p)}), dut.get());
  };
  const std::string l = loadSig(load(Load2DPath::GMtoA1, 0, 0, 1));
  EXPECT_EQ(withoutVariant(l).rfind("load2d: load2d ", 0), 0u) << l;
  EXPECT_NE(l.find("path=GMtoA1"), std::string::npos) << l;
  EXPECT_EQ(loadSig(load(Load2DPath::GMtoA1, 2048, 1024, 3)), l);
  EXPECT_NE(loadSig(load(Load2DPath::GMtoB1, 0, 0, 1)), l);
}

// nu11 F15: "mmad [] Timeout: ...": a case whose program's instruction kinds are not known
// rendered them as empty brackets. Nothing is written for them then; the rest of the signature
// is as it was, and the hint a Timeout gives (a larger --timeout-ms) is not part of it.
TEST(Signature, NoInstructionKindsKnownWritesNoBrackets) {
  CaseReport r{{Outcome::Timeout,
                "no answer to program 7898 within 10000 ms; killed, restarted for the next case "
                "(a DUT that is only slow, a simulator on a loaded machine say, passes with a "
                "larger --timeout-ms)"},
               "case",
               {},
               0,
               VectorCase{}};
  EXPECT_EQ(signatureOf("mmad", r),
            "mmad Timeout: no answer to program N within N ms; killed, restarted for the next "
            "case");
  r.vector->program.instructions.push_back(isa::Mmad{});
  EXPECT_EQ(signatureOf("mmad", r).rfind("mmad [mmad] Timeout: no answer to program N", 0), 0u)
      << signatureOf("mmad", r);
}

// Review of the merge of VectorCase::before with variant signatures: a case sent after a
// program that left CTRL[45] on recorded that program's Mmad too, so its signature named both
// modes ("... enable=0 | ... enable=1") though the earlier result was never compared, and one
// bug had two signatures. Only the case's own programs are replayed.
TEST(Signature, AProgramSentBeforeTheCaseIsNoPartOfItsCause) {
  auto dut = dut::makeDut("mutant:lowprec-hif8-mode-leaks");
  RunOptions o;
  o.profile = isa::ProfileId::Ascend950;
  o.level = Level::Smoke;
  o.seed = 1;
  o.families = {"mmad_lowprec"};
  std::set<std::string> signatures;
  o.onFailure = [&](const std::string&, const Failure& f) { signatures.insert(f.signature); };
  const CertifyResult r = certify(*dut, o);
  ASSERT_EQ(r.verdict(), "nonconformant") << r.headline();
  std::size_t afterOn = 0;
  for (const Failure& f : r.families.at(0).failures) {
    afterOn += f.caseText.find("after a program that left it 1") != std::string::npos ? 1 : 0;
  }
  EXPECT_GT(afterOn, 0u) << "the leak shows only after such a program";
  for (const std::string& s : signatures) {
    if (s.empty()) continue;
    EXPECT_EQ(s.find(" | "), std::string::npos) << s;
    EXPECT_EQ(s.find("set_hif8_mode enable=1"), std::string::npos) << s;
  }
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
  std::set<std::string> causes;
  for (const auto& entry : handed) {
    list += entry.first + "\n";
    causes.insert(withoutVariant(entry.first));
  }
  // Each fault is found, named by the instruction at fault, once per family and variant it
  // shows in: the load2d fault through MatchesOracle, NoStrayWrites and RepeatSplit, in L0A, L0B
  // and L1, is one cause, as is the mmad fault through MatchesOracle, SaturationProbe and
  // BoundedError; the property, the memory and the shape split neither.
  EXPECT_EQ(causes, (std::set<std::string>{"load2d: load2d writes outside its footprint",
                                           "mmad: mmad wrong values"}))
      << failures << " failing cases:\n"
      << list;
  EXPECT_GT(failures, handed.size()) << "the cases outnumber their causes";
  for (const auto& [sig, sizes] : handed) {
    // Each in the mode it lives in: cmatrix_init_val 0 without a bias tensor is the only init
    // the mmad fault changes.
    if (sig.rfind("mmad: ", 0) == 0) {
      EXPECT_NE(sig.find("cmatrix_init_val=0"), std::string::npos) << sig;
      EXPECT_NE(sig.find("is_bias=0"), std::string::npos) << sig;
    }
  }
  for (const auto& [sig, sizes] : handed) {
    for (std::size_t i = 1; i < sizes.size(); ++i) {
      EXPECT_LT(sizes[i], sizes[i - 1]) << sig << ": a replacement is a smaller case";
    }
  }
  // The report keeps one failure per signature.
  for (const FamilyResult& f : r.families) {
    std::set<std::string> kept;
    for (const Failure& x : f.failures) {
      EXPECT_TRUE(kept.insert(x.signature).second) << x.signature;
      expectVariantsOfTheProgram(x, f.name);
    }
  }
}

/// The root causes kept for `family` when `mutant` is certified at smoke, without their variants
/// (each checked to be that of an instruction of its case's program); the whole signatures into
/// `signatures` when given.
std::set<std::string> causes(const std::string& mutant, const std::string& family,
                             isa::ProfileId profile = isa::ProfileId::A2,
                             std::set<std::string>* signatures = nullptr) {
  auto dut = dut::makeDut("mutant:" + mutant);
  RunOptions o;
  o.profile = profile;
  o.level = Level::Smoke;
  o.seed = 3;
  o.shrinkBudget = std::chrono::milliseconds(100);
  o.families = {family};
  std::set<std::string> out;
  for (const FamilyResult& f : certify(*dut, o).families) {
    for (const Failure& x : f.failures) {
      out.insert(withoutVariant(x.signature));
      if (signatures != nullptr) signatures->insert(x.signature);
      const std::string at = x.signature.substr(x.signature.find(": ") + 2);
      expectVariantsOfTheProgram(x, at.substr(0, at.find(' ')));
    }
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

// MmadMx, as Mmad, is blamed once its loads check out, and named in its variant: an fp4 E1M2
// fault is found in E1M2 Mmads only.
TEST(Localise, AnMxFaultIsPinnedOnMmadMxInTheTypeItLivesIn) {
  std::set<std::string> signatures;
  const std::set<std::string> found =
      causes("mx-e1m2-bias-0", "mmad_mx", isa::ProfileId::Ascend950, &signatures);
  EXPECT_EQ(found, std::set<std::string>{"mmad_mx: mmad_mx wrong values"});
  for (const std::string& s : signatures) {
    EXPECT_NE(s.find("=" + std::string(isa::nameOf(isa::DType::Fp4E1M2))), std::string::npos) << s;
  }
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
