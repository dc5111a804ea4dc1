// Observation through Mmad (conformance/indirect.hpp): a DUT narrowed to GM, L1, L0C still gets
// the load families certified, with the same verdicts and the same power as a direct observer.
#include <gtest/gtest.h>

#include "conformance/checks.hpp"
#include "conformance/indirect.hpp"
#include "conformance/runner.hpp"
#include "dut_adapters/registry.hpp"
#include "oracle/oracle.hpp"

namespace cubecheck::conf {
namespace {

using isa::Memory;

const std::vector<Memory> kBoard{Memory::GM, Memory::L1, Memory::L0C};
/// What an a2 board is given images of: also the bias table, staged through L1, which it cannot
/// read back.
const std::vector<Memory> kBoardGiven{Memory::GM, Memory::L1, Memory::L0C, Memory::BiasTable};

/// Bytes that differ from each other and from the scramble pattern's run (a multiplicative hash).
isa::Bytes pattern(std::size_t n, std::uint8_t salt) {
  isa::Bytes b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i * 151 + salt + i / 256);
  return b;
}

/// Whether a NotSupported reason of f contains `part`.
bool hasReason(const FamilyResult& f, const std::string& part) {
  return std::any_of(f.notSupportedReasons.begin(), f.notSupportedReasons.end(),
                     [&](const auto& r) { return r.first.find(part) != std::string::npos; });
}

/// Whether a line of what f's indirectly observed cases rested on contains `part`.
bool restsOn(const FamilyResult& f, const std::string& part) {
  return std::any_of(f.indirect.begin(), f.indirect.end(),
                     [&](const auto& u) { return u.first.find(part) != std::string::npos; });
}

/// L1 -> dst (L0A or L0B) of two f16 fractals into the middle of an 8-fractal canary segment that
/// starts at 256 (not fractal aligned, so the rewrite must round it out), observed whole.
isa::Program loadProgram(isa::ProfileId profile, Memory dst) {
  isa::Program p;
  p.profile = profile;
  p.segments = {{Memory::L1, 0, pattern(4 * 512, 7)}, {dst, 256, isa::Bytes(8 * 512, 0xA5)}};
  const isa::Load2DPath path =
      dst == Memory::L0A ? isa::Load2DPath::A1toA2 : isa::Load2DPath::B1toB2;
  if (profile == isa::ProfileId::Ascend950) {
    isa::LoadData2DParamsV2 v;
    v.mStep = 2;
    v.kStep = 1;
    v.srcStride = 4;
    v.dstStride = 2;
    p.instructions = {isa::LoadV2{path, isa::DType::F16, 512, 1024, v}};
  } else {
    isa::LoadData2DParams v;
    v.startIndex = 1;
    v.repeatTimes = 2;
    v.srcStride = 1;
    p.instructions = {isa::Load2D{path, isa::DType::F16, 0, 1024, v}};
  }
  p.observe = {{dst, 256, 8 * 512}, {Memory::L1, 0, 4 * 512}};
  return p;
}

TEST(Indirect, RecoversTheBytesADirectObserverSees) {
  for (isa::ProfileId profile : {isa::ProfileId::A2, isa::ProfileId::Ascend950}) {
    for (Memory dst : {Memory::L0A, Memory::L0B}) {
      auto ref = dut::makeDut("reference");
      NarrowedDut board(*ref, kBoard, kBoardGiven);
      IndirectObservation view(board);
      const isa::Program p = loadProgram(profile, dst);
      const dut::RunResult direct = ref->run(p);
      ASSERT_EQ(direct.status, dut::RunStatus::Ok) << direct.message;
      // The board alone cannot observe the destination.
      EXPECT_EQ(board.run(p).status, dut::RunStatus::Unsupported);
      const dut::RunResult through = view.run(p);
      ASSERT_EQ(through.status, dut::RunStatus::Ok) << through.message;
      EXPECT_EQ(through.observed, direct.observed) << isa::nameOf(dst);
      // Non-vacuous: the load changed the canaries, and the canaries outside it came back too.
      EXPECT_NE(direct.observed[0], isa::Bytes(8 * 512, 0xA5));
      EXPECT_EQ(direct.observed[0][0], 0xA5);
      const std::set<std::string> used = view.takeUsed();
      EXPECT_EQ(used.size(), 2u);  // the image loaded and the region observed
      for (const std::string& u : used) EXPECT_NE(u.find(isa::nameOf(dst)), std::string::npos);
      EXPECT_TRUE(view.takeUsed().empty());
    }
  }
}

TEST(Indirect, ImagesTheBoardCannotBeGivenAreLoaded) {
  // An s8 Mmad of a 32 x 32 A with whatever B (both L0 images), observed in L0C only. The
  // narrowed DUT holds scrambled L0A/L0B (a board is never given them), so it alone computes
  // something else; through the rewrite the images are loaded first and C comes back as computed
  // directly.
  isa::Program p;
  p.profile = isa::ProfileId::A2;
  p.segments = {{Memory::L0A, 512, pattern(1024, 3)},
                {Memory::L0B, 0, pattern(1024, 91)},
                {Memory::L0C, 0, isa::Bytes(4096, 0)}};
  isa::Mmad x;
  x.dtype = isa::DType::S8;
  x.aAddr = 512;
  x.m = x.k = x.n = 32;
  p.instructions = {x};
  p.observe = {{Memory::L0C, 0, 4096}};
  auto ref = dut::makeDut("reference");
  NarrowedDut board(*ref, kBoard, kBoardGiven);
  IndirectObservation view(board);
  const dut::RunResult direct = ref->run(p);
  ASSERT_EQ(direct.status, dut::RunStatus::Ok) << direct.message;
  const dut::RunResult scrambled = board.run(p);
  ASSERT_EQ(scrambled.status, dut::RunStatus::Ok) << scrambled.message;
  EXPECT_NE(scrambled.observed, direct.observed);
  const dut::RunResult through = view.run(p);
  ASSERT_EQ(through.status, dut::RunStatus::Ok) << through.message;
  EXPECT_EQ(through.observed, direct.observed);
  EXPECT_EQ(view.takeUsed().size(), 2u);  // L0A and L0B images, nothing observed indirectly
}

/// A DUT that answers as `inner`, with one L0C word of each observed region set to `word`.
class OneWordDut final : public dut::Dut {
 public:
  OneWordDut(dut::Dut& inner, std::uint64_t addr, std::uint32_t word)
      : inner_(inner), addr_(addr), word_(word) {}
  const dut::Capabilities& capabilities() const override { return inner_.capabilities(); }
  dut::RunResult run(const isa::Program& p) override {
    dut::RunResult r = inner_.run(p);
    for (std::size_t k = 0; k < p.observe.size() && r.status == dut::RunStatus::Ok; ++k) {
      const isa::Region& g = p.observe[k];
      if (g.memory == Memory::L0C && addr_ >= g.addr && addr_ + 4 <= g.addr + g.size) {
        isa::putWord(r.observed[k], addr_ - g.addr, word_);
      }
    }
    return r;
  }

 private:
  dut::Dut& inner_;
  std::uint64_t addr_;
  std::uint32_t word_;
};

// A dav-3510 board reads L0C out but cannot be given it: the rewrite writes the initial image by
// f32 Mmads of an identity. Canary words no f32 Mmad writes (-0, a subnormal, a NaN) are written
// as a neighbour and traded back in the answer, so the reference reads as observed directly, and
// a DUT that leaves the neighbour's twin there (the original word) still reads as wrong. An Mmad
// that accumulates onto such a word is not supported, with the reason.
TEST(Indirect, Dav3510L0cImagesAreWrittenByF32Mmad) {
  isa::Program p;
  p.profile = isa::ProfileId::Ascend950;
  isa::Bytes c = pattern(2048, 11);
  // Normal f32 words everywhere but three canaries in the second fractal, which the Mmad leaves.
  for (std::size_t w = 0; w < 512; ++w) isa::putWord(c, 4 * w, 0x3F800000u + 977u * w);
  isa::putWord(c, 1024, 0x80000000u);  // -0
  isa::putWord(c, 1028, 0x00000005u);  // subnormal (as s32: 5)
  isa::putWord(c, 1032, 0xFFC00001u);  // NaN
  p.segments = {
      {Memory::L0A, 0, pattern(1024, 3)}, {Memory::L0B, 0, pattern(1024, 91)}, {Memory::L0C, 0, c}};
  isa::Mmad x;
  x.dtype = isa::DType::S8;
  x.m = 16;
  x.k = 32;
  x.n = 16;  // C: the first 1024 bytes
  p.instructions = {x};
  p.observe = {{Memory::L0C, 0, 2048}};
  auto ref = dut::makeDut("reference");
  const std::vector<Memory> given950{Memory::GM, Memory::L1, Memory::BiasTable};
  NarrowedDut board(*ref, kBoard, given950);
  IndirectObservation view(board);
  EXPECT_TRUE(view.capabilities().canBeGiven(Memory::L0C));
  EXPECT_FALSE(board.capabilities().canBeGiven(Memory::L0C));
  const dut::RunResult direct = ref->run(p);
  ASSERT_EQ(direct.status, dut::RunStatus::Ok) << direct.message;
  const dut::RunResult through = view.run(p);
  ASSERT_EQ(through.status, dut::RunStatus::Ok) << through.message;
  EXPECT_EQ(through.observed, direct.observed);
  EXPECT_EQ(view.takeUsed().count(kL0cByMmadLine), 1u);
  // The board's L0C really is written by Mmad: the narrowed DUT alone holds a scramble there.
  EXPECT_NE(board.run(p).observed, direct.observed);
  // A DUT reading the original -0 back where the rewrite wrote its neighbour is still wrong.
  OneWordDut liar(board, 1024, 0x80000000u);
  IndirectObservation lied(liar);
  const dut::RunResult wrong = lied.run(p);
  ASSERT_EQ(wrong.status, dut::RunStatus::Ok) << wrong.message;
  EXPECT_NE(wrong.observed, direct.observed);
  // s8 Mmads accumulating onto them: -0 is INT32_MIN as s32, where a sum could saturate, so no
  // shift is exact there and the case is refused.
  x.cmatrixInitVal = false;
  x.n = 32;  // C now covers the canaries too
  p.instructions = {x};
  const dut::RunResult accumulated = view.run(p);
  EXPECT_EQ(accumulated.status, dut::RunStatus::Unsupported);
  EXPECT_NE(accumulated.message.find("accumulates onto an initial L0C word"), std::string::npos)
      << accumulated.message;
  // Without it, the sums onto 5 and onto -4194303 (the NaN pattern) are written from their
  // neighbours and shifted back exactly: the answer is the direct one.
  isa::putWord(p.segments[2].bytes, 1024, 0x3F800000u);
  const dut::RunResult plain = ref->run(p);
  ASSERT_EQ(plain.status, dut::RunStatus::Ok) << plain.message;
  const dut::RunResult shifted = view.run(p);
  ASSERT_EQ(shifted.status, dut::RunStatus::Ok) << shifted.message;
  EXPECT_EQ(shifted.observed, plain.observed);
  // A DUT that answers there as if it had been given the original word is still wrong.
  OneWordDut unshifted(board, 1028, isa::wordAt(plain.observed.at(0), 1028));
  IndirectObservation seen(unshifted);
  const dut::RunResult off = seen.run(p);
  ASSERT_EQ(off.status, dut::RunStatus::Ok) << off.message;
  EXPECT_NE(off.observed, plain.observed);
  // f32 sums round: accumulating onto the subnormal word in f32 stays refused.
  isa::Mmad f = x;
  f.dtype = isa::DType::F32;
  f.k = 8;
  p.instructions = {f};
  EXPECT_EQ(view.run(p).status, dut::RunStatus::Unsupported);
}

/// Runs every program without its load2d_v2 GM -> L1 loads.
class NoGmToL1Dut final : public dut::Dut {
 public:
  explicit NoGmToL1Dut(dut::Dut& inner) : inner_(inner) {}
  const dut::Capabilities& capabilities() const override { return inner_.capabilities(); }
  dut::RunResult run(const isa::Program& p) override {
    isa::Program q = p;
    std::erase_if(q.instructions, [](const isa::Instruction& i) {
      const auto* l = std::get_if<isa::LoadV2>(&i);
      return l != nullptr && l->path == isa::Load2DPath::GMtoA1;
    });
    return inner_.run(q);
  }

 private:
  dut::Dut& inner_;
};

// A 950 program that fills L1 leaves no room to stage L0A/L0B images, identities or the L0C image
// (and a 950 has no GM -> L0 load): the rewrite borrows a window of the program's L1 and gives
// its bytes back by GM -> L1 loads before the program runs. The load's source and the observed
// L1 must come out as the program left them, and the destination as observed directly.
TEST(Indirect, A950ProgramThatFillsL1LendsAWindow) {
  isa::Program p = loadProgram(isa::ProfileId::Ascend950, Memory::L0A);
  const std::uint64_t l1 = isa::profile(isa::ProfileId::Ascend950).capacityOf(Memory::L1);
  p.segments[0].bytes = pattern(l1, 7);
  p.segments.push_back({Memory::L0C, 0, pattern(1024, 40)});
  for (std::size_t w = 0; w < 256; ++w)
    isa::putWord(p.segments.back().bytes, 4 * w, 0x40000000u + w);
  p.observe.push_back({Memory::L0C, 0, 1024});
  p.observe[1].size = l1;
  auto ref = dut::makeDut("reference");
  const std::vector<Memory> given950{Memory::GM, Memory::L1, Memory::BiasTable};
  NarrowedDut board(*ref, kBoard, given950);
  IndirectObservation view(board);
  const dut::RunResult direct = ref->run(p);
  ASSERT_EQ(direct.status, dut::RunStatus::Ok) << direct.message;
  const dut::RunResult through = view.run(p);
  ASSERT_EQ(through.status, dut::RunStatus::Ok) << through.message;
  EXPECT_EQ(through.observed, direct.observed);
  const std::set<std::string> used = view.takeUsed();
  EXPECT_EQ(used.count(kBorrowedL1Line), 1u);
  EXPECT_EQ(used.count(kL0cByMmadLine), 1u);
  // The window really is lent and given back: a DUT whose GM -> L1 loads do nothing does not
  // answer so (the staged identities never reach L1, and the readout says so).
  NoGmToL1Dut lazy(board);
  IndirectObservation lazyView(lazy);
  const dut::RunResult skipped = lazyView.run(p);
  EXPECT_FALSE(skipped.status == dut::RunStatus::Ok && skipped.observed == direct.observed);
}

/// Passes programs on, keeping the last one it was given.
class LastProgram final : public dut::Dut {
 public:
  explicit LastProgram(dut::Dut& inner) : inner_(inner) {}
  const dut::Capabilities& capabilities() const override { return inner_.capabilities(); }
  dut::RunResult run(const isa::Program& p) override {
    last = p;
    return inner_.run(p);
  }
  isa::Program last;

 private:
  dut::Dut& inner_;
};

// Where the program keeps its GM high, as a real GM pointer lies (about 2^44), the bytes the
// rewrite stages in GM go next to it, not to 0: the GM a run addresses stays one short span,
// which an exported run allocates whole.
TEST(Indirect, StagesInGmNextToTheProgramsOwnGm) {
  isa::Program p = loadProgram(isa::ProfileId::Ascend950, Memory::L0A);
  const std::uint64_t l1 = isa::profile(isa::ProfileId::Ascend950).capacityOf(Memory::L1);
  p.segments[0].bytes = pattern(l1, 7);  // no room in L1: a window is lent through GM
  const std::uint64_t high = (std::uint64_t{1} << 44) + 4096;
  p.segments.push_back({Memory::GM, high, pattern(4096, 3)});
  p.observe.push_back({Memory::GM, high, 4096});
  auto ref = dut::makeDut("reference");
  const std::vector<Memory> given950{Memory::GM, Memory::L1, Memory::BiasTable};
  NarrowedDut board(*ref, kBoard, given950);
  LastProgram sent(board);
  IndirectObservation view(sent);
  const dut::RunResult direct = ref->run(p);
  ASSERT_EQ(direct.status, dut::RunStatus::Ok) << direct.message;
  const dut::RunResult through = view.run(p);
  ASSERT_EQ(through.status, dut::RunStatus::Ok) << through.message;
  EXPECT_EQ(through.observed, direct.observed);
  EXPECT_EQ(view.takeUsed().count(kBorrowedL1Line), 1u);
  std::size_t gmSegments = 0;
  for (const isa::Segment& s : sent.last.segments) {
    if (s.memory != Memory::GM) continue;
    ++gmSegments;
    EXPECT_GE(s.addr, high) << "staged below the program's GM";
  }
  EXPECT_GT(gmSegments, 1u) << "nothing staged in GM";
}

// The 950 board rehearsal: every Mmad family still certifies with L0C written by Mmad, and an
// Mmad mutant is still killed through it.
TEST(Indirect, Dav3510RehearsalCertifiesTheMmadFamilies) {
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 3;
  o.profile = isa::ProfileId::Ascend950;
  o.families = {"mmad", "mmad_lowprec", "pipeline", "mmad_mx"};
  const std::vector<Memory> given950{Memory::GM, Memory::L1, Memory::BiasTable};
  auto ref = dut::makeDut("reference");
  NarrowedDut board(*ref, kBoard, given950);
  const CertifyResult r = certify(board, o);
  for (const FamilyResult& f : r.families) {
    EXPECT_EQ(f.verdict(), "conformant") << f.name;
    EXPECT_TRUE(std::any_of(f.indirect.begin(), f.indirect.end(), [](const auto& u) {
      return u.first == kL0cByMmadLine;
    })) << f.name;
  }
  // MmadMx's scales went in by the scale loads, and every case ran (none NotSupported).
  const FamilyResult& mx = r.families.at(3);
  EXPECT_EQ(mx.counts.of(Outcome::NotSupported), 0u);
  for (const char* line : {"initial L0A_MX image loaded by load_mx_scale (L1->L0A_MX)",
                           "initial L0B_MX image loaded by load_mx_scale (L1->L0B_MX)"}) {
    EXPECT_TRUE(std::any_of(mx.indirect.begin(), mx.indirect.end(), [&](const auto& u) {
      return u.first == line;
    })) << line;
  }
  auto mutant = dut::makeDut("mutant:mmad-init-ignored");
  NarrowedDut broken(*mutant, kBoard, given950);
  o.families = {"mmad"};
  EXPECT_EQ(certify(broken, o).families.at(0).verdict(), "nonconformant");
}

/// Writes one whole fractal past the destination of every non-s8 load into L0A/L0B (the rewrite's
/// own loads are s8), where the extended load is still legal: a stray write next to it.
class StrayDut final : public dut::Dut {
 public:
  explicit StrayDut(dut::Dut& inner) : inner_(inner) {}
  const dut::Capabilities& capabilities() const override { return inner_.capabilities(); }
  dut::RunResult run(const isa::Program& p) override {
    isa::Program q = p;
    for (isa::Instruction& ins : q.instructions) {
      if (auto* l = std::get_if<isa::Load2D>(&ins); l && l->dtype != isa::DType::S8) {
        l->params.repeatTimes += 1;
      }
      if (auto* l = std::get_if<isa::LoadV2>(&ins); l && l->dtype != isa::DType::S8) {
        l->params.mStep += 1;
        l->params.srcStride += 1;
      }
    }
    return inner_.run(q);
  }

 private:
  dut::Dut& inner_;
};

TEST(Indirect, StrayWritesNextToTheDestinationAreCaught) {
  for (isa::ProfileId profile : {isa::ProfileId::A2, isa::ProfileId::Ascend950}) {
    for (Memory dst : {Memory::L0A, Memory::L0B}) {
      auto ref = dut::makeDut("reference");
      NarrowedDut board(*ref, kBoard, kBoardGiven);
      const isa::Program p = loadProgram(profile, dst);
      IndirectObservation good(board);
      EXPECT_EQ(checkAgainstOracle(good, p).outcome, Outcome::Pass);
      StrayDut stray(board);
      IndirectObservation view(stray);
      const Verdict v = checkAgainstOracle(view, p, true);
      EXPECT_EQ(v.outcome, Outcome::Mismatch) << isa::nameOf(dst);
      EXPECT_NE(v.detail.find("stray write outside the footprint"), std::string::npos) << v.detail;
    }
  }
}

TEST(Indirect, NotSupportedWithoutTheInstructionsItRestsOn) {
  auto ref = dut::makeDut("reference");
  NarrowedDut board(*ref, kBoard, kBoardGiven);
  /// The board without Mmad: nothing can reach L0A.
  class NoMmad final : public dut::Dut {
   public:
    explicit NoMmad(dut::Dut& d) : d_(d), caps_(d.capabilities()) {
      std::erase(caps_.instructions, std::string(isa::Mmad::kOpcode));
    }
    const dut::Capabilities& capabilities() const override { return caps_; }
    dut::RunResult run(const isa::Program& p) override { return d_.run(p); }

   private:
    dut::Dut& d_;
    dut::Capabilities caps_;
  } noMmad(board);
  IndirectObservation view(noMmad);
  const Verdict v = checkAgainstOracle(view, loadProgram(isa::ProfileId::A2, Memory::L0A));
  EXPECT_EQ(v.outcome, Outcome::NotSupported);
  EXPECT_NE(v.detail.find("cannot observe L0A"), std::string::npos) << v.detail;
}

// (load_sparse is left out: most of its cases observe the index buffer, which no board observes
// and the rewrite does not reach.)
TEST(Indirect, BoardRehearsalCertifiesLoadFamiliesAndNamesWhatItRestsOn) {
  struct Run {
    isa::ProfileId profile;
    const char* family;
  };
  for (const Run& run : {Run{isa::ProfileId::A2, "load2d"}, Run{isa::ProfileId::A2, "load3d_v2"},
                         Run{isa::ProfileId::Ascend950, "load2d_v2"},
                         Run{isa::ProfileId::Ascend950, "load2d_bitmode"}}) {
    auto ref = dut::makeDut("reference");
    NarrowedDut board(*ref, kBoard, kBoardGiven);
    RunOptions o;
    o.profile = run.profile;
    o.level = Level::Smoke;
    o.seed = 3;
    o.families = {run.family};
    const CertifyResult r = certify(board, o);
    const FamilyResult& f = r.families.at(0);
    EXPECT_EQ(f.verdict(), "conformant") << run.family;
    // The one honest gap: on 950 (no GM->L0 load) a case whose L1 image fills L1 leaves no room
    // for the L0 images; it is named, never passed.
    for (const auto& [why, n] : f.notSupportedReasons) {
      if (run.profile == isa::ProfileId::Ascend950 &&
          why.find("no free L1 space") != std::string::npos && n * 20 < f.counts.total()) {
        continue;
      }
      ADD_FAILURE() << run.family << ": " << n << " case(s): " << why;
    }
    for (const Failure& x : f.failures) ADD_FAILURE() << run.family << ": " << x.detail;
    ASSERT_FALSE(f.indirect.empty()) << run.family;
    for (const auto& [what, n] : f.indirect) {
      EXPECT_NE(what.find(run.profile == isa::ProfileId::A2 ? "load2d (" : "load2d_v2 ("),
                std::string::npos)
          << what;
    }
  }
}

// Rejections show that a DUT validates, not that it computes: a family whose only work passes are
// RejectsIllegal's (say, a board that could observe nothing load_sparse writes) is not certified.
TEST(Verdict, RejectionsAloneCertifyNothing) {
  FamilyResult f;
  f.name = "load_sparse";
  PropertyResult oracle{"MatchesOracle", "", {}, 0};
  oracle.counts.byOutcome[static_cast<std::size_t>(Outcome::NotSupported)] = 300;
  PropertyResult rejects{std::string(kRejectsIllegal), "", {}, 0};
  rejects.counts.byOutcome[static_cast<std::size_t>(Outcome::Pass)] = 100;
  f.properties = {oracle, rejects};
  f.counts.add(oracle.counts);
  f.counts.add(rejects.counts);
  EXPECT_EQ(f.verdict(), "not certified");
  EXPECT_EQ(f.notCertifiedWhy(), "only the rejection of illegal programs passed");
  // One work pass of the property that computes certifies it.
  f.properties[0].counts.byOutcome[static_cast<std::size_t>(Outcome::Pass)] = 1;
  EXPECT_EQ(f.verdict(), "conformant");
}

// A rehearsal hands the DUT no image it cannot be given: without `--given BT` a bias-table case
// is NotSupported with that reason, and with it the case runs.
TEST(Indirect, ABoardIsGivenOnlyWhatItDeclares) {
  auto ref = dut::makeDut("reference");
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 5;
  o.families = {"mmad_sparse"};
  NarrowedDut bare(*ref, kBoard);
  const CertifyResult without = certify(bare, o);
  ASSERT_EQ(without.families.size(), 1u);
  const FamilyResult& f = without.families[0];
  EXPECT_GT(f.counts.of(Outcome::NotSupported), 0u);
  EXPECT_TRUE(
      std::any_of(f.notSupportedReasons.begin(), f.notSupportedReasons.end(), [](const auto& r) {
        return r.first.find("cannot be given an image of BT") != std::string::npos;
      }));
  NarrowedDut board(*ref, kBoard, kBoardGiven);
  EXPECT_EQ(certify(board, o).families.at(0).counts.of(Outcome::NotSupported), 0u);
}

// A board observes the sparse index buffer only through MmadWithSparse and writes it only by
// LoadDataWithSparse: load_sparse and mmad_sparse are certified that way on a2, with what they
// rest on named, and a wrong LoadDataWithSparse is still caught through it.
TEST(Indirect, IndexBufferThroughMmadWithSparse) {
  auto ref = dut::makeDut("reference");
  NarrowedDut board(*ref, kBoard, kBoardGiven);
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 5;
  o.families = {"load_sparse", "mmad_sparse"};
  const CertifyResult r = certify(board, o);
  for (const FamilyResult& f : r.families) {
    EXPECT_EQ(f.verdict(), "conformant") << f.name;
    EXPECT_EQ(f.counts.of(Outcome::NotSupported), 0u) << f.name;
    for (const Failure& x : f.failures) ADD_FAILURE() << f.name << ": " << x.detail;
    EXPECT_EQ(restsOn(f, "observed IDX through mmad_sparse"), f.name == "load_sparse") << f.name;
    EXPECT_TRUE(restsOn(f, "initial IDX image loaded by load_sparse")) << f.name;
  }
  for (const char* name : {"sparse-load-start-ignored", "sparse-load-honours-stride"}) {
    auto mutant = dut::makeDut(std::string("mutant:") + name);
    NarrowedDut narrowed(*mutant, kBoard);
    o.families = {"load_sparse"};
    EXPECT_EQ(certify(narrowed, o).families.at(0).verdict(), "nonconformant") << name;
  }
}

TEST(Indirect, ALoadMutantIsStillKilledThroughIt) {
  for (const char* name : {"load2d-dst-gap-ignored", "load2d-stray-write"}) {
    auto mutant = dut::makeDut(std::string("mutant:") + name);
    NarrowedDut board(*mutant, kBoard);
    RunOptions o;
    o.level = Level::Smoke;
    o.seed = 7;
    o.families = {"load2d"};
    const CertifyResult r = certify(board, o);
    EXPECT_GT(r.families.at(0).counts.failures(), 0u) << name << " survived";
  }
}

/// A board whose L0C readout loses its last 32 bytes of every observed L0C region (they read
/// 0x7F): the results the suite reads back through Mmad are impossible.
class LastBytesLostDut final : public dut::Dut {
 public:
  explicit LastBytesLostDut(dut::Dut& inner) : inner_(inner) {}
  const dut::Capabilities& capabilities() const override { return inner_.capabilities(); }
  dut::RunResult run(const isa::Program& p) override {
    dut::RunResult r = inner_.run(p);
    if (r.status != dut::RunStatus::Ok) return r;
    for (std::size_t i = 0; i < p.observe.size() && i < r.observed.size(); ++i) {
      if (p.observe[i].memory != Memory::L0C) continue;
      isa::Bytes& b = r.observed[i];
      std::fill(b.end() - static_cast<std::ptrdiff_t>(std::min<std::size_t>(32, b.size())), b.end(),
                0x7F);
    }
    return r;
  }

 private:
  dut::Dut& inner_;
};

// Wrong L0C bytes read back through Mmad are the DUT's wrong result, not an adapter error: the
// cases fail as mismatches, and the run goes on to its end instead of stopping after five
// "adapter errors" with no result for the later families.
TEST(Indirect, ImpossibleResultsReadBackAreMismatchesAndTheRunGoesOn) {
  auto ref = dut::makeDut("reference");
  NarrowedDut board(*ref, kBoard);
  LastBytesLostDut lossy(board);
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 1;
  o.families = {"load2d", "load_sparse"};
  const CertifyResult r = certify(lossy, o);
  EXPECT_TRUE(r.stoppedEarly.empty()) << r.stoppedEarly;
  ASSERT_EQ(r.families.size(), 2u);
  for (const FamilyResult& f : r.families) {
    EXPECT_EQ(f.counts.of(Outcome::AdapterError), 0u) << f.name;
    EXPECT_GT(f.counts.of(Outcome::Mismatch), 0u) << f.name;
    EXPECT_EQ(f.verdict(), "nonconformant") << f.name;
  }
}

/// A DUT that holds the suite to the protocol's promise: a legal program carrying bytes of a
/// memory the DUT may not be given (anything but the zeros that only define the addresses the
/// rewrite's loads fill) fails the test and is answered as an adapter error.
class StrictDut final : public dut::Dut {
 public:
  explicit StrictDut(dut::Dut& inner) : inner_(inner) {}
  const dut::Capabilities& capabilities() const override { return inner_.capabilities(); }
  dut::RunResult run(const isa::Program& p) override {
    if (!isa::validateProgram(p)) {
      for (const isa::Segment& s : p.segments) {
        if (capabilities().canBeGiven(s.memory) ||
            std::all_of(s.bytes.begin(), s.bytes.end(), [](std::uint8_t b) { return b == 0; })) {
          continue;
        }
        ADD_FAILURE() << "sent an image of " << isa::nameOf(s.memory) << " @" << s.addr << "+"
                      << s.bytes.size();
        return {dut::RunStatus::AdapterError, {}, std::nullopt, "sent an image of a memory"};
      }
    }
    return inner_.run(p);
  }

 private:
  dut::Dut& inner_;
};

/// Smoke certification of `families` on a2 (seed 1) of the reference narrowed to `observable`
/// and `given`, held to them by StrictDut.
CertifyResult narrowedRun(const std::vector<Memory>& observable, const std::vector<Memory>& given,
                          std::vector<std::string> families) {
  auto ref = dut::makeDut("reference");
  NarrowedDut narrowed(*ref, observable, given);
  StrictDut strict(narrowed);
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 1;
  o.families = std::move(families);
  return certify(strict, o);
}

// A DUT that observes L1 and L0C and is given nothing else: where a load3d feature map fills L1,
// the rewrite could stage the L0A images only in GM, which the DUT cannot be given. Such cases
// are outside what can be observed through its declaration: NotSupported with that reason (and
// counted outside its envelope), never a failure of the DUT, and never a program with GM bytes.
TEST(Indirect, StagingInAMemoryTheDutCannotBeGivenIsNotSupported) {
  const CertifyResult r = narrowedRun({Memory::L1, Memory::L0C}, {}, {"load3d_v2", "load3d_v2pro"});
  EXPECT_TRUE(r.stoppedEarly.empty()) << r.stoppedEarly;
  for (const FamilyResult& f : r.families) {
    EXPECT_EQ(f.verdict(), "conformant") << f.name;
    for (const Failure& x : f.failures) ADD_FAILURE() << f.name << ": " << x.detail;
    EXPECT_TRUE(hasReason(f, std::string(kCannot) + "be given an image of GM")) << f.name;
    for (const auto& [why, n] : f.notSupportedReasons) {
      if (why.find("image of GM") == std::string::npos) continue;
      EXPECT_TRUE(outsideDeclaredEnvelope(why)) << why;
      EXPECT_NE(why.find("cannot observe this case through what the DUT declares"),
                std::string::npos)
          << why;
    }
  }
}

// Observing L0C alone, the DUT is given nothing but L0C: every load case needs an L1 (or GM)
// image, staged or its own, so none can run. All NotSupported, and the run goes to its end (it
// used to stop after five adapter errors of cases whose L0A image was staged in L1 anyway).
TEST(Indirect, ADutObservingL0cAloneIsNotBlamedForWhatItCannotBeGiven) {
  const CertifyResult r = narrowedRun({Memory::L0C}, {}, {"load2d"});
  EXPECT_TRUE(r.stoppedEarly.empty()) << r.stoppedEarly;
  const FamilyResult& f = r.families.at(0);
  EXPECT_EQ(f.counts.failures(), 0u);
  for (const Failure& x : f.failures) ADD_FAILURE() << x.detail;
  EXPECT_TRUE(hasReason(f, std::string(kCannot) + "be given an image of L1")) << f.name;
}

// A DUT that observes L0A and L0B but is not given them still gets their images, loaded by the
// rewrite like a board's, never sent as they are.
TEST(Indirect, AnObservableMemoryTheDutIsNotGivenIsLoaded) {
  const CertifyResult r =
      narrowedRun({Memory::GM, Memory::L1, Memory::L0A, Memory::L0B, Memory::L0C},
                  {Memory::GM, Memory::L1, Memory::L0C, Memory::BiasTable}, {"load2d", "mmad"});
  for (const FamilyResult& f : r.families) {
    EXPECT_EQ(f.verdict(), "conformant") << f.name;
    EXPECT_EQ(f.counts.of(Outcome::NotSupported), 0u) << f.name;
    for (const Failure& x : f.failures) ADD_FAILURE() << f.name << ": " << x.detail;
    EXPECT_TRUE(restsOn(f, "image loaded by load2d")) << f.name;
    EXPECT_FALSE(restsOn(f, "observed")) << f.name;  // the DUT reads L0A and L0B out itself
  }
}

// The same over the exec protocol: a DUT declaring `observable L1 L0C` and no `given` line is
// never sent a GM segment (the DUT answers `error` to one), and the case whose feature map fills
// L1 is NotSupported, naming GM.
TEST(Indirect, AnExecDutIsNeverSentAMemoryItCannotBeGiven) {
  auto dut = dut::makeDut(std::string("exec:") + ENVELOPE_DUT + " l1-l0c");
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 1;
  o.families = {"load3d_v2"};
  o.property = "MatchesOracle";
  // The DUT runs load2d alone: the other cases it is sent it declines (failures here), but none
  // may carry an image of GM. Some feature maps fill L1, so their images could only be staged in
  // GM: those cases must not reach the DUT at all.
  bool outside = false;
  for (std::size_t i = 0; i < 120 && !outside; ++i) {
    o.caseIndex = i;
    const CertifyResult r = certify(*dut, o);
    const FamilyResult& f = r.families.at(0);
    for (const Failure& x : f.failures) {
      EXPECT_EQ(x.detail.find("sent an image of"), std::string::npos) << "case " << i << x.detail;
    }
    outside = hasReason(f, std::string(kCannot) + "be given an image of GM");
  }
  EXPECT_TRUE(outside) << "no case in the first 120 needed GM: the test no longer tests";
}

TEST(Indirect, MemoryListsParseOrSayWhatIsWrong) {
  EXPECT_EQ(parseMemoryList("GM,L1,L0C"), kBoard);
  try {
    parseMemoryList("GM,L0X");
    ADD_FAILURE() << "accepted L0X";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("L0X"), std::string::npos);
  }
}

// What a failing case's localising runs rest on is charged to no case: a run's count of each line
// is the sum of its cases' counts when each runs alone (--case). They were once charged to the
// next case, whatever it used.
TEST(Indirect, LocalisingRunsAreChargedToTheirOwnCase) {
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 5;
  o.profile = isa::ProfileId::A2;
  o.families = {"load2d"};
  o.property = "LayoutKnownAnswer";
  auto mutant = dut::makeDut("mutant:load2d-transpose-anti-diagonal");
  NarrowedDut board(*mutant, kBoard, kBoardGiven);
  const FamilyResult whole = certify(board, o).families.at(0);
  ASSERT_GT(whole.counts.failures(), 0u);
  std::map<std::string, std::size_t> summed;
  for (std::size_t i = 0; i < whole.counts.total(); ++i) {
    o.caseIndex = i;
    const CertifyResult one = certify(board, o);
    for (const auto& [line, n] : one.families.at(0).indirect) summed[line] += n;
  }
  std::map<std::string, std::size_t> counted(whole.indirect.begin(), whole.indirect.end());
  ASSERT_FALSE(counted.empty()) << "the board observed nothing indirectly: the test shows nothing";
  EXPECT_EQ(counted, summed);
}

}  // namespace
}  // namespace cubecheck::conf
