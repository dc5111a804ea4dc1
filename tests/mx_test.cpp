// MmadMx (spec 8.1, docs/spec.md 8.1.7): its legality, its text form, and small cases worked out
// by hand from the spec's formulas, run on the reference and stated on the oracle side.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "conformance/runner.hpp"
#include "dut_adapters/registry.hpp"
#include "generators/mmad.hpp"
#include "generators/mx.hpp"
#include "isa/mmad.hpp"
#include "isa/text.hpp"
#include "oracle/lowprec.hpp"
#include "oracle/mmad.hpp"
#include "oracle/mx.hpp"

namespace cubecheck {
namespace {

using isa::DType;
using isa::Memory;
using isa::ViolationCode;

float f32At(const isa::Bytes& b, std::size_t byte) {
  std::uint32_t v = 0;
  std::memcpy(&v, b.data() + byte, 4);
  return std::bit_cast<float>(v);
}

isa::MmadMx smallMx(DType a, DType b) {
  isa::MmadMx x;
  x.dtype = a;
  if (b != a) x.bDtype = b;
  x.m = 16, x.k = 64, x.n = 16;
  return x;
}

std::optional<ViolationCode> codeOf(const isa::MmadMx& x,
                                    isa::ProfileId id = isa::ProfileId::Ascend950) {
  auto v = isa::validate(isa::profile(id), x);
  return v ? std::optional<ViolationCode>(v->code) : std::nullopt;
}

TEST(MmadMx, LegalityOfSpec812) {
  const DType fp8[] = {DType::Fp8E4M3FN, DType::Fp8E5M2};
  const DType fp4[] = {DType::Fp4E2M1, DType::Fp4E1M2};
  for (const auto* group : {fp8, fp4}) {
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 2; ++j) EXPECT_EQ(codeOf(smallMx(group[i], group[j])), std::nullopt);
    }
  }
  EXPECT_EQ(codeOf(smallMx(DType::HiF8, DType::HiF8)), ViolationCode::DTypeUnsupported);
  EXPECT_EQ(codeOf(smallMx(DType::Fp8E4M3FN, DType::Fp4E2M1)), ViolationCode::DTypeUnsupported);
  EXPECT_EQ(codeOf(smallMx(DType::S8, DType::S8)), ViolationCode::DTypeUnsupported);
  isa::MmadMx c = smallMx(DType::Fp4E2M1, DType::Fp4E2M1);
  c.cDtype = DType::F16;
  EXPECT_EQ(codeOf(c), ViolationCode::DTypeUnsupported);
  EXPECT_EQ(codeOf(smallMx(DType::Fp8E4M3FN, DType::Fp8E4M3FN), isa::ProfileId::A2),
            ViolationCode::PathUnsupported);
  isa::MmadMx k = smallMx(DType::Fp8E5M2, DType::Fp8E5M2);
  k.k = 96;
  EXPECT_EQ(codeOf(k), ViolationCode::Range);  // k % 64 != 0 (OPEN-20)
  // fp8 at 1024 bytes, fp4 at 512 (spec 8.1.2).
  isa::MmadMx a8 = smallMx(DType::Fp8E4M3FN, DType::Fp8E4M3FN);
  a8.aAddr = 512;
  EXPECT_EQ(codeOf(a8), ViolationCode::Alignment);
  a8.aAddr = 1024;
  a8.bAddr = 512;
  EXPECT_EQ(codeOf(a8), ViolationCode::Alignment);
  isa::MmadMx a4 = smallMx(DType::Fp4E1M2, DType::Fp4E1M2);
  a4.aAddr = a4.bAddr = 512;
  EXPECT_EQ(codeOf(a4), std::nullopt);
  // fp4 stays rejected on plain Mmad.
  isa::Mmad plain;
  plain.dtype = DType::Fp4E2M1;
  plain.m = plain.k = plain.n = 16;
  EXPECT_EQ(isa::validate(isa::profile(isa::ProfileId::Ascend950), plain)->code,
            ViolationCode::DTypeUnsupported);
  // The scales' footprint must fit L0A_MX: 4 KiB = 64 KiB / 16. A at 63 KiB with one K fractal
  // pair fits (scales at 4032..4063); L0A itself bounds it first when A runs past 64 KiB.
  isa::MmadMx edge = smallMx(DType::Fp4E2M1, DType::Fp4E2M1);
  edge.aAddr = 63 * 1024;
  EXPECT_EQ(codeOf(edge), std::nullopt);
}

TEST(MmadMx, TextFormRoundTrips) {
  isa::MmadMx x = smallMx(DType::Fp4E1M2, DType::Fp4E2M1);
  x.cAddr = 2048, x.aAddr = 512, x.bAddr = 1024, x.isBias = true, x.biasAddr = 64;
  x.cmatrixInitVal = false;
  const std::string line = isa::toText(isa::Instruction{x});
  EXPECT_EQ(line, "mmad_mx fp4x2_e1m2 2048 512 1024 16 64 16 0 0 0 1 64 fp4x2_e2m1 f32");
  std::string error;
  const auto back = isa::parseInstruction(line, error);
  ASSERT_TRUE(back) << error;
  EXPECT_EQ(std::get<isa::MmadMx>(*back), x);
}

// Spec 8.1.4 by hand: with k = 128 (K2 = 2), A's element (17, 100) has its scale at byte
// ((17 / 16) * 2 + 100 / 64) * 32 + (17 % 16) * 2 + (100 / 32) % 2 = 3 * 32 + 2 + 1 = 99 from
// A_addr / 16; B's element (100, 17) at the same offset from B_addr / 16.
TEST(MmadMx, OracleScalePlacementByHand) {
  oracle::ElemMatrix sa = oracle::ElemMatrix::Zero(32, 4), sb = oracle::ElemMatrix::Zero(4, 32);
  sa(17, 100 / 32) = 0xAB;
  sb(100 / 32, 17) = 0xCD;
  const isa::Bytes ia = oracle::mxScaleImage(sa, false, 0), ib = oracle::mxScaleImage(sb, true, 0);
  ASSERT_EQ(ia.size(), 2u * 2 * 32);  // M1 = 2 rows of K2 = 2 fractals of 32 bytes
  ASSERT_EQ(ib.size(), 2u * 2 * 32);
  for (std::size_t i = 0; i < ia.size(); ++i) {
    EXPECT_EQ(ia[i], i == 99 ? 0xAB : 0) << i;
    EXPECT_EQ(ib[i], i == 99 ? 0xCD : 0) << i;
  }
}

/// One 16 x 64 x 16 MmadMx at L0A/L0B/L0C address 0, scales from byte 0 of L0A_MX / L0B_MX.
isa::Program tinyMx(const isa::MmadMx& x, const isa::Bytes& a, const isa::Bytes& b,
                    const isa::Bytes& sa, const isa::Bytes& sb) {
  isa::Program p;
  p.profile = isa::ProfileId::Ascend950;
  p.segments = {{Memory::L0A, 0, a},
                {Memory::L0B, 0, b},
                {Memory::L0AMx, 0, sa},
                {Memory::L0BMx, 0, sb},
                {Memory::L0C, 0, isa::Bytes(1024, 0xEE)}};
  p.instructions = {isa::SetHiF8Mode{false}, x};
  p.observe = {{Memory::L0C, 0, 1024}};
  return p;
}

TEST(MmadMx, ReferenceScalesByHand) {
  // fp8 e4m3 x e4m3, 16 x 64 x 16: two A and B fractals of 512 bytes each along K. Only A(0, 0)
  // = 1 (0x38) and A(0, 40) = 1, B(0, 0) = 1 and B(40, 0) = 3 (0x44) are nonzero. A(0, 40) lies
  // in A's second K fractal (Nz: fractal 1, row 0, column 8: byte 512 + 8); B(40, 0) in B's
  // second (Zn: fractal 1, column 0, row 8: byte 512 + 8). Scales (spec 8.1.4, K2 = 1): A row 0
  // block 0 at byte 0, block 1 at byte 1; B column 0 likewise. With A's block scales 2^1 (0x80)
  // and 2^-3 (0x7C) and B's 2^-2 (0x7D) and 2^0 (0x7F):
  // C(0, 0) = 2^1 * 1 * 2^-2 * 1 + 2^-3 * 1 * 2^0 * 3 = 0.5 + 0.375 = 0.875.
  isa::Bytes a(1024, 0), b(1024, 0), sa(32, 0x7F), sb(32, 0x7F);
  a[0] = 0x38, a[512 + 8] = 0x38;
  b[0] = 0x38, b[512 + 8] = 0x44;
  sa[0] = 0x80, sa[1] = 0x7C;
  sb[0] = 0x7D, sb[1] = 0x7F;
  auto ref = dut::makeDut("reference");
  const dut::RunResult r =
      ref->run(tinyMx(smallMx(DType::Fp8E4M3FN, DType::Fp8E4M3FN), a, b, sa, sb));
  ASSERT_EQ(r.status, dut::RunStatus::Ok) << r.message;
  EXPECT_EQ(f32At(r.observed[0], 0), 0.875f);
  EXPECT_EQ(f32At(r.observed[0], 4), 0.0f);  // C(0, 1): B's column 1 is zero
}

TEST(MmadMx, ReferenceFp4NibblesByHand) {
  // fp4 e2m1 x e1m2, 16 x 64 x 16: one fractal each (C0 = 64). A(0, 1) = 1.0 (nibble 0x2) is
  // element 1 of row 0: the high nibble of byte 0 (spec 8.1.3). B(1, 0) = 1.25 (e1m2 0x5) is
  // element 1 of column 0 (Zn): the high nibble of byte 0. A(0, 0) = 6 (0x7, low nibble) meets
  // B(0, 0) = 0: C(0, 0) = 1.0 * 1.25 = 1.25 with unit scales. A reader taking the low nibble
  // first would give 6 * 1.25 (or 1.0 * 0) instead.
  isa::Bytes a(512, 0), b(512, 0), sa(32, 0x7F), sb(32, 0x7F);
  a[0] = 0x27;
  b[0] = 0x50;
  auto ref = dut::makeDut("reference");
  const dut::RunResult r = ref->run(tinyMx(smallMx(DType::Fp4E2M1, DType::Fp4E1M2), a, b, sa, sb));
  ASSERT_EQ(r.status, dut::RunStatus::Ok) << r.message;
  EXPECT_EQ(f32At(r.observed[0], 0), 1.25f);
}

/// The reference, except that an MmadMx with a zero m, k or n writes C's first fractal with
/// zeros (as if the no-op had run with an init of zero): a DUT that does not honour spec 8.1.2's
/// no-op.
class ZeroDimWritesDut final : public dut::Dut {
 public:
  ZeroDimWritesDut() : ref_(dut::makeDut("reference")) {}
  const dut::Capabilities& capabilities() const override { return ref_->capabilities(); }
  dut::RunResult run(const isa::Program& p) override {
    dut::RunResult r = ref_->run(p);
    if (r.status != dut::RunStatus::Ok) return r;
    for (const isa::Instruction& ins : p.instructions) {
      const auto* x = std::get_if<isa::MmadMx>(&ins);
      if (x == nullptr || (x->m != 0 && x->k != 0 && x->n != 0)) continue;
      for (std::size_t k = 0; k < p.observe.size(); ++k) {
        const isa::Region& at = p.observe[k];
        if (at.memory != Memory::L0C || x->cAddr < at.addr || x->cAddr + 1024 > at.addr + at.size) {
          continue;
        }
        std::fill_n(r.observed[k].begin() + static_cast<std::ptrdiff_t>(x->cAddr - at.addr), 1024,
                    0);
      }
    }
    return r;
  }

 private:
  std::unique_ptr<dut::Dut> ref_;
};

/// MatchesOracle of mmad_mx at smoke level, seed 1: failures, and the cases with a zero
/// dimension that passed.
std::pair<std::size_t, std::size_t> zeroDimRun(dut::Dut& d) {
  conf::RunOptions o;
  o.profile = isa::ProfileId::Ascend950;
  o.level = conf::Level::Smoke;
  o.seed = 1;
  o.families = {"mmad_mx"};
  o.property = "MatchesOracle";
  const conf::CertifyResult r = conf::certify(d, o);
  const conf::FamilyResult& f = r.families.at(0);
  const auto passed = f.coveragePassed.find("zero_dimension");
  return {f.counts.failures(), passed == f.coveragePassed.end() ? 0 : passed->second};
}

// Spec 8.1.2: m, k or n = 0 is a no-op. The table holds one of each (k = 0 from a zero init
// included: C must not be cleared), they give the DUT no operand, and a DUT that writes C for
// them fails exactly those cases.
// Spec 8 (which 8.1 keeps): is_bias overrides cmatrix_init_val and cmatrix_source, and
// cmatrix_init_val overrides cmatrix_source. Every one of the eight settings is sent by the
// boundary table (every run, every level) and by random draws, so a DUT that lets an overridden
// flag win is seen; the flags always select the init the expectation is computed from.
TEST(MmadMx, EveryInitFlagCombinationIsSentByTableAndDraws) {
  const std::vector<gen::MxCase> draws = [] {
    std::vector<gen::MxCase> out;
    for (int seed = 0; seed < 300; ++seed) {
      out.push_back(gen::legalMmadMx(gen::MxValues::Exact, gen::Sizes::Small, true)(
                        rc::Random(static_cast<std::uint64_t>(seed)), 50)
                        .value());
    }
    return out;
  }();
  const std::vector<gen::MxCase> table = gen::mxBoundaries();
  for (const std::vector<gen::MxCase>* cases : {&table, &draws}) {
    std::map<std::string, int> held;
    for (const gen::MxCase& c : *cases) {
      const isa::MmadMx x = gen::mmadMxOf(c);
      EXPECT_EQ(isa::initOf(x), c.init) << c;
      const std::vector<std::string> tags = gen::tagsOf(c);
      for (const std::string& t : tags) held[t] += 1;
      if (c.m > 0 && c.k > 0 && c.n > 0) {
        EXPECT_EQ(std::count(tags.begin(), tags.end(), gen::initFlagsTag(x)), 1) << c;
      }
    }
    for (const std::string& b : gen::initFlagsBins()) {
      EXPECT_GT(held[b], 0) << b << (cases == &table ? " (table)" : " (draws)");
    }
  }
}

TEST(MmadMx, ZeroDimensionIsANoOp) {
  std::size_t zeros = 0;
  for (const gen::MxCase& c : gen::mxBoundaries()) {
    if (c.m != 0 && c.k != 0 && c.n != 0) continue;
    ++zeros;
    EXPECT_EQ(gen::expectedC(c, gen::mxOperandsOf(c)).size(), 0) << c;
    const isa::Program p = gen::buildProgram(c);
    for (const isa::Segment& s : p.segments) {
      EXPECT_TRUE(s.memory == Memory::L0C || s.memory == Memory::BiasTable) << c;
    }
    auto ref = dut::makeDut("reference");
    const dut::RunResult r = ref->run(p);
    ASSERT_EQ(r.status, dut::RunStatus::Ok) << r.message;
    const isa::Segment* before =
        isa::findSegment(p.segments, Memory::L0C, p.observe[0].addr, p.observe[0].size);
    ASSERT_NE(before, nullptr);
    EXPECT_EQ(r.observed[0], before->bytes) << c;
  }
  EXPECT_EQ(zeros, 3u);
  auto ref = dut::makeDut("reference");
  const auto [refFailures, refZeros] = zeroDimRun(*ref);
  EXPECT_EQ(refFailures, 0u);
  EXPECT_GE(refZeros, 3u);
  ZeroDimWritesDut writes;
  const auto [badFailures, badZeros] = zeroDimRun(writes);
  EXPECT_EQ(badFailures, refZeros) << "every zero-dimension case, and only those";
  EXPECT_EQ(badZeros, 0u);
}

/// Notes of one property of mmad_mx at smoke level, seed 1 ("what the probe learned" -> cases),
/// and its failures.
std::pair<std::map<std::string, std::size_t>, std::size_t> probeRun(dut::Dut& d,
                                                                    const std::string& property) {
  conf::RunOptions o;
  o.profile = isa::ProfileId::Ascend950;
  o.level = conf::Level::Smoke;
  o.seed = 1;
  o.families = {"mmad_mx"};
  o.property = property;
  const conf::CertifyResult r = conf::certify(d, o);
  const conf::FamilyResult& f = r.families.at(0);
  std::map<std::string, std::size_t> notes;
  for (const auto& [note, n] : f.probes) {
    if (note.rfind(property + ": ", 0) == 0) notes[note.substr(property.size() + 2)] = n;
  }
  return {notes, f.counts.failures()};
}

/// A DUT that runs a rewritten program on the reference.
class RewritingDut : public dut::Dut {
 public:
  RewritingDut() : ref_(dut::makeDut("reference")) {}
  const dut::Capabilities& capabilities() const override { return ref_->capabilities(); }
  dut::RunResult run(const isa::Program& p) override {
    isa::Program q = p;
    rewrite(q);
    dut::RunResult r = ref_->run(q);
    // The rewrite is the DUT's own reading: its sources, which MmadMx never writes, read back
    // as they were given.
    for (std::size_t i = 0; r.status == dut::RunStatus::Ok && i < p.observe.size(); ++i) {
      const isa::Region& at = p.observe[i];
      if (at.memory == Memory::L0C) continue;
      const isa::Segment* given = isa::findSegment(p.segments, at.memory, at.addr, at.size);
      if (given == nullptr) continue;
      const auto from = given->bytes.begin() + static_cast<std::ptrdiff_t>(at.addr - given->addr);
      r.observed[i].assign(from, from + static_cast<std::ptrdiff_t>(at.size));
    }
    return r;
  }

 protected:
  virtual void rewrite(isa::Program& p) = 0;
  /// The initial image of `mem` holding byte `addr` (the programs here give each memory one).
  static isa::Segment& segmentAt(isa::Program& p, Memory mem, std::uint64_t addr) {
    for (isa::Segment& s : p.segments) {
      if (s.memory == mem && s.addr <= addr && addr < s.addr + s.bytes.size()) return s;
    }
    throw std::logic_error("no segment");
  }

 private:
  std::unique_ptr<dut::Dut> ref_;
};

/// Reads E8M0 0x00 as zero: before the reference runs, every A and B element whose scale byte
/// (spec 8.1.4) is 0x00 is replaced by code 0 (A Nz and B Zn fractals of 16 x C0, spec 8.1.3:
/// for A element (r, kk) of row r, for B element (kk, r) of column r, at the same offsets).
class ZeroScaleIsZeroDut final : public RewritingDut {
  void rewrite(isa::Program& p) override {
    for (const isa::Instruction& ins : p.instructions) {
      const auto* x = std::get_if<isa::MmadMx>(&ins);
      if (x == nullptr) continue;
      const auto bits = static_cast<std::uint64_t>(isa::bitsOf(x->dtype));
      const std::uint64_t k0 = 256 / bits, k2 = x->k / 64;
      auto clear = [&](Memory data, Memory scales, std::uint64_t base, std::uint64_t rows) {
        const std::uint64_t r1 = (rows + 15) / 16;
        isa::Segment& d = segmentAt(p, data, base);
        const isa::Segment& s = segmentAt(p, scales, base / 16);
        for (std::uint64_t r = 0; r < rows; ++r) {
          for (std::uint64_t kk = 0; kk < x->k; ++kk) {
            const std::uint64_t block = kk / 32;
            const std::uint64_t sAt =
                base / 16 + ((r / 16) * k2 + block / 2) * 32 + (r % 16) * 2 + block % 2;
            if (s.bytes.at(sAt - s.addr) != 0) continue;
            const std::uint64_t e = ((kk / k0) * r1 + r / 16) * 16 * k0 + (r % 16) * k0 + kk % k0;
            std::uint8_t& byte = d.bytes.at(base - d.addr + e * bits / 8);
            byte = bits == 8 ? 0 : static_cast<std::uint8_t>(byte & (e % 2 == 0 ? 0xF0 : 0x0F));
          }
        }
      };
      clear(Memory::L0A, Memory::L0AMx, x->aAddr, x->m);
      clear(Memory::L0B, Memory::L0BMx, x->bAddr, x->n);
    }
  }
};

/// Reads E8M0 0x00 as 2^-126 (every 0x00 in the scale buffers becomes 0x01): neither reading.
class ZeroScaleIsTwoToMinus126Dut final : public RewritingDut {
  void rewrite(isa::Program& p) override {
    for (isa::Segment& s : p.segments) {
      if (s.memory != Memory::L0AMx && s.memory != Memory::L0BMx) continue;
      for (std::uint8_t& b : s.bytes) b = b == 0 ? 1 : b;
    }
  }
};

// OPEN-18: every case tells the readings apart in every C element with finite results, the
// reference reads 0x00 as 2^-127, a DUT reading it as zero is named so, and one reading it as
// anything else (2^-126) fails.
TEST(MmadMx, EdgeScaleProbeNamesTheReading) {
  const std::vector<gen::MxCase> cases = gen::mxEdgeScaleProbes();
  ASSERT_EQ(cases.size(), 16u);
  for (const gen::MxCase& c : cases) {
    const gen::MxOperands o = gen::mxOperandsOf(c);
    gen::MxOperands zero = o;
    zero.a = oracle::mxScaled(oracle::valuesOf(o.aCodes, c.aType), o.aScales, false,
                              oracle::E8M0Zero::Zero);
    zero.b = oracle::mxScaled(oracle::valuesOf(o.bCodes, c.bType), o.bScales, true,
                              oracle::E8M0Zero::Zero);
    const oracle::MatrixD tiny = o.a * o.b, none = zero.a * zero.b;
    for (Eigen::Index i = 0; i < tiny.size(); ++i) {
      EXPECT_TRUE(std::isfinite(tiny(i)) && std::isfinite(none(i))) << c;
      EXPECT_NE(tiny(i), none(i)) << c;
      EXPECT_NE(none(i), 0.0) << c << ": block 1 contributes too";
      // Both sums exact in f32: what the comparison demands bit for bit.
      EXPECT_EQ(static_cast<double>(static_cast<float>(tiny(i))), tiny(i)) << c;
      EXPECT_EQ(static_cast<double>(static_cast<float>(none(i))), none(i)) << c;
    }
  }
  auto ref = dut::makeDut("reference");
  const auto [refNotes, refFailures] = probeRun(*ref, "EdgeScaleProbe");
  EXPECT_EQ(refFailures, 0u);
  EXPECT_EQ(
      refNotes,
      (std::map<std::string, std::size_t>{{"OPEN-18: E8M0 0x00 read as 2^-127 (default)", 16}}));
  ZeroScaleIsZeroDut asZero;
  const auto [zeroNotes, zeroFailures] = probeRun(asZero, "EdgeScaleProbe");
  EXPECT_EQ(zeroFailures, 0u);
  EXPECT_EQ(zeroNotes,
            (std::map<std::string, std::size_t>{{"OPEN-18: E8M0 0x00 read as zero", 16}}));
  ZeroScaleIsTwoToMinus126Dut other;
  EXPECT_EQ(probeRun(other, "EdgeScaleProbe").second, 16u);
}

/// Honours CTRL[45] in MmadMx: after SetHiF8Mode{true}, an e4m3fn x e4m3fn MmadMx runs as the
/// plain Mmad of the same operands, which the reference reads as HiF8 x HiF8 (spec 8.1.5). With
/// unit scales, as in the probe, that is MmadMx reading HiF8.
class MxHonoursHiF8ModeDut final : public RewritingDut {
  void rewrite(isa::Program& p) override {
    bool mode = false;
    for (isa::Instruction& ins : p.instructions) {
      if (const auto* s = std::get_if<isa::SetHiF8Mode>(&ins)) mode = s->enable;
      const auto* x = std::get_if<isa::MmadMx>(&ins);
      if (mode && x != nullptr && x->dtype == DType::Fp8E4M3FN &&
          isa::bTypeOf(*x) == DType::Fp8E4M3FN) {
        ins = isa::operandsOf(*x);
      }
    }
  }
};

// OPEN-16: the probe's codes are finite, nonzero and normal under both readings and decode to
// different values; the reference reads e4m3fn (the mode does not reach MmadMx) and a DUT whose
// MmadMx honours the mode is named so. Neither fails.
TEST(MmadMx, HiF8ModeProbeNamesTheReading) {
  // By hand from spec 8.1.1 and appendix A: e4m3fn is normal for a nonzero exponent field,
  // bits 6..3, 15 x 8 codes per sign, 0x7F and 0xFF NaN: 238. HiF8 is normal for D != 0000,
  // the same bits 6..3 nonzero: the same 238 codes, of which 0x6F and 0xEF are its infinities.
  // 236 remain, none decoding alike under the two formats (checked below).
  const std::vector<std::uint32_t> codes = gen::mxBothReadingCodes();
  EXPECT_EQ(codes.size(), 236u);
  for (std::uint32_t c : codes) {
    const auto code = static_cast<std::uint8_t>(c);
    EXPECT_NE(code, 0x80) << "HiF8 NaN";
    const double e4m3 = oracle::lowPrecisionValue(DType::Fp8E4M3FN, code);
    const double hif8 = oracle::lowPrecisionValue(DType::HiF8, code);
    EXPECT_TRUE(std::isfinite(e4m3) && std::isfinite(hif8)) << int{code};
    EXPECT_GE(std::fabs(e4m3), 0x1p-6) << int{code} << ": e4m3 normal";
    EXPECT_GE(std::fabs(hif8), 0x1p-15) << int{code} << ": HiF8 normal (not a denormal)";
    EXPECT_NE(e4m3, hif8) << int{code};
  }
  for (const gen::MxCase& c : gen::mxHiF8ModeProbes()) {
    const isa::Program p = gen::buildProgram(c);
    ASSERT_FALSE(p.instructions.empty());
    EXPECT_EQ(std::get<isa::SetHiF8Mode>(p.instructions.front()).enable, true) << c;
  }
  auto ref = dut::makeDut("reference");
  const auto [refNotes, refFailures] = probeRun(*ref, "HiF8ModeProbe");
  EXPECT_EQ(refFailures, 0u);
  EXPECT_EQ(refNotes,
            (std::map<std::string, std::size_t>{
                {"OPEN-16: CTRL[45] does not reach MmadMx: e4m3fn read as e4m3fn (default)", 2}}));
  MxHonoursHiF8ModeDut honours;
  const auto [modeNotes, modeFailures] = probeRun(honours, "HiF8ModeProbe");
  EXPECT_EQ(modeFailures, 0u);
  EXPECT_EQ(modeNotes,
            (std::map<std::string, std::size_t>{
                {"OPEN-16: CTRL[45] reaches MmadMx: e4m3fn x e4m3fn read as HiF8 x HiF8", 2}}));
}

}  // namespace
}  // namespace cubecheck
