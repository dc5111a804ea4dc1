// LoadData 3D (spec 6): known answers worked out by hand, packing words, registers, legality.
#include <gtest/gtest.h>

#include <cstring>

#include "dut_adapters/registry.hpp"
#include "generators/load3d.hpp"
#include "isa/text.hpp"
#include "oracle/oracle.hpp"

namespace cubecheck {
namespace {

using isa::DType;
using isa::Load2DPath;
using isa::Memory;

constexpr std::uint16_t kPad = 0x7777;

/// F[c][h][w] of the hand examples: every element names its own coordinates.
std::uint16_t f(unsigned h, unsigned w, unsigned c) {
  return static_cast<std::uint16_t>(0x100 * h + 0x10 * w + c);
}

/// A 16-channel half map, H x W, in NC1HWC0 (C1 = 1): element (h, w, c) at (h*W + w)*16 + c.
isa::Bytes halfMap(unsigned h, unsigned w) {
  isa::Bytes b(h * w * 32);
  for (unsigned y = 0; y < h; ++y) {
    for (unsigned x = 0; x < w; ++x) {
      for (unsigned c = 0; c < 16; ++c) {
        const std::uint16_t v = f(y, x, c);
        std::memcpy(&b[((y * w + x) * 16 + c) * 2], &v, 2);
      }
    }
  }
  return b;
}

std::uint16_t at16(const isa::Bytes& b, std::size_t element) {
  std::uint16_t v;
  std::memcpy(&v, &b[element * 2], 2);
  return v;
}

/// 2 x 2 map, 2 x 2 kernel, pad list [left 1, right 0, top 0, bottom 0], stride 1: Ho = 1,
/// Wo = 2, K = 16 * 4. Row 0's window starts at (h 0, w -1), row 1's at (0, 0). Columns run
/// (kh, kw) = (0,0), (0,1), (1,0), (1,1), 16 channels each, so by hand:
///   X[0] = [pad, F(0,0), pad, F(1,0)]   X[1] = [F(0,0), F(0,1), F(1,0), F(1,1)]
std::uint16_t handX(unsigned m, unsigned k) {
  const unsigned tap = k / 16, c = k % 16;
  static const int row0[4][2] = {{-1, -1}, {0, 0}, {-1, -1}, {1, 0}};
  static const int row1[4][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}};
  const int* hw = m == 0 ? row0[tap] : row1[tap];
  return hw[0] < 0 ? kPad : f(static_cast<unsigned>(hw[0]), static_cast<unsigned>(hw[1]), c);
}

isa::Program handProgram(Load2DPath path) {
  isa::Program p;
  p.profile = isa::ProfileId::A2;
  p.segments.push_back({Memory::L1, 0, halfMap(2, 2)});
  const Memory dm = path == Load2DPath::A1toA2 ? Memory::L0A : Memory::L0B;
  p.segments.push_back({dm, 0, isa::Bytes(5 * 512, 0xEE)});
  isa::Load3DV2 l;
  l.path = path;
  l.dtype = DType::F16;
  l.params.padList = {1, 0, 0, 0};
  l.params.l1H = 2;
  l.params.l1W = 2;
  l.params.channelSize = 16;
  l.params.kExtension = 64;
  l.params.mExtension = 2;
  l.params.filterH = 2;
  l.params.filterW = 2;
  l.params.padValue = kPad;
  p.instructions.emplace_back(l);
  p.observe.push_back({dm, 0, 5 * 512});
  return p;
}

TEST(Load3DKnownAnswer, Im2colIntoL0AZzByHand) {
  const isa::Program p = handProgram(Load2DPath::A1toA2);
  auto ref = dut::makeDut("reference");
  const dut::RunResult r = ref->run(p);
  ASSERT_EQ(r.status, dut::RunStatus::Ok) << r.message;
  const oracle::Expected e = oracle::expect(p);
  ASSERT_FALSE(e.uncertified);
  ASSERT_EQ(e.dontCare.size(), 1u);
  // Zz on a2, one fractal row of 4 fractals: (m, k) at (k/16)*256 + m*16 + k%16.
  for (unsigned m = 0; m < 2; ++m) {
    for (unsigned k = 0; k < 64; ++k) {
      const std::size_t el = (k / 16) * 256 + m * 16 + k % 16;
      EXPECT_EQ(at16(r.observed[0], el), handX(m, k)) << "reference m=" << m << " k=" << k;
      EXPECT_EQ(at16(e.regions[0], el), handX(m, k)) << "oracle m=" << m << " k=" << k;
      EXPECT_EQ(e.dontCare[0][el * 2], 0);
    }
  }
  // Rows 2..15 of the four fractals are the partial fractal's don't-care; the fifth fractal is
  // outside the footprint and keeps its canary.
  EXPECT_EQ(e.dontCare[0][2 * 32], 1);
  EXPECT_EQ(e.written[0][4 * 512], 0);
  EXPECT_EQ(r.observed[0][4 * 512], 0xEE);
}

// Both bytes of every 16-bit cell carry its marks: the oracle once marked only an element's
// first byte, so a DUT that wrote the partial fractal's unspecified rows (spec 6.1) failed on
// their high bytes, and a wrong high byte of a written cell counted as a stray write.
TEST(Load3DKnownAnswer, EveryByteOfACellIsMarked) {
  const isa::Program p = handProgram(Load2DPath::A1toA2);
  const oracle::Expected e = oracle::expect(p);
  ASSERT_EQ(e.dontCare.size(), 1u);
  for (unsigned m = 0; m < 16; ++m) {
    for (unsigned k = 0; k < 64; ++k) {
      const std::size_t el = (k / 16) * 256 + m * 16 + k % 16;
      for (std::size_t byte = 2 * el; byte < 2 * el + 2; ++byte) {
        EXPECT_EQ(e.written[0][byte], 1) << "m=" << m << " k=" << k << " byte " << byte;
        EXPECT_EQ(e.dontCare[0][byte], m < 2 ? 0 : 1) << "m=" << m << " k=" << k;
      }
    }
  }
  // A DUT that fills the unspecified rows with anything conforms.
  auto ref = dut::makeDut("reference");
  dut::RunResult r = ref->run(p);
  ASSERT_EQ(r.status, dut::RunStatus::Ok) << r.message;
  for (std::size_t byte = 0; byte < 4 * 512; ++byte) {
    if (e.dontCare[0][byte] != 0) r.observed[0][byte] = 0xA5;
  }
  const oracle::Comparison c = oracle::compareExact(p, e, r.observed);
  EXPECT_TRUE(c.equal) << c.report;
  // One wrong high byte of a written cell is a wrong byte, not a stray one.
  r.observed[0][1] ^= 0x40;
  const oracle::Comparison wrong = oracle::compareExact(p, e, r.observed);
  EXPECT_EQ(wrong.wrongBytes, 1u);
  EXPECT_EQ(wrong.strayBytes, 0u);
}

TEST(Load3DKnownAnswer, Im2colIntoL0BIsTransposedZnByHand) {
  const isa::Program p = handProgram(Load2DPath::B1toB2);
  auto ref = dut::makeDut("reference");
  const dut::RunResult r = ref->run(p);
  ASSERT_EQ(r.status, dut::RunStatus::Ok) << r.message;
  const oracle::Expected e = oracle::expect(p);
  // B[k' = m][n' = k] in Zn, K' = 2 (one C0 block), N' = 64: (k', n') at (n'/16)*256 +
  // (n'%16)*16 + k'.
  for (unsigned m = 0; m < 2; ++m) {
    for (unsigned k = 0; k < 64; ++k) {
      const std::size_t el = (k / 16) * 256 + (k % 16) * 16 + m;
      EXPECT_EQ(at16(r.observed[0], el), handX(m, k)) << "reference m=" << m << " k=" << k;
      EXPECT_EQ(at16(e.regions[0], el), handX(m, k)) << "oracle m=" << m << " k=" << k;
    }
  }
}

TEST(Load3DKnownAnswer, V1TapsWalkWThenWrapPixelsByHand) {
  // 2 x 16 map, 1 x 2 kernel, stride 1, no pads: Ho = 2, Wo = 15. Mode 0, two repeats: repeat 0
  // is tap kw = 0, repeat 1 tap kw = 1. Pixel p < 15 is (0, p); pixel 15 is (1, 0).
  isa::Program p;
  p.profile = isa::ProfileId::Legacy;
  p.segments.push_back({Memory::L1, 0, halfMap(2, 16)});
  p.segments.push_back({Memory::L0A, 0, isa::Bytes(3 * 512, 0xEE)});
  isa::Load3DV1 l;
  l.dtype = DType::F16;
  l.params.l1H = 2;
  l.params.l1W = 16;
  l.params.filterH = 1;
  l.params.filterW = 2;
  l.params.repeatTime = 2;
  l.params.padValue = kPad;
  p.instructions.emplace_back(l);
  p.observe.push_back({Memory::L0A, 0, 3 * 512});
  auto ref = dut::makeDut("reference");
  const dut::RunResult r = ref->run(p);
  ASSERT_EQ(r.status, dut::RunStatus::Ok) << r.message;
  const oracle::Expected e = oracle::expect(p);
  ASSERT_FALSE(e.uncertified);
  for (unsigned rep = 0; rep < 2; ++rep) {
    for (unsigned px = 0; px < 16; ++px) {
      for (unsigned c = 0; c < 16; ++c) {
        const std::uint16_t want = px < 15 ? f(0, px + rep, c) : f(1, rep, c);
        const std::size_t el = rep * 256 + px * 16 + c;
        EXPECT_EQ(at16(r.observed[0], el), want) << "reference rep=" << rep << " px=" << px;
        EXPECT_EQ(at16(e.regions[0], el), want) << "oracle rep=" << rep << " px=" << px;
      }
    }
  }
  EXPECT_EQ(r.observed[0][2 * 512], 0xEE);
}

TEST(Load3DPacking, V2ProWordsFollowSpec63ByHand) {
  isa::LoadData3DParamsV2 v;
  v.mStartPt = 0x1234;
  v.kStartPt = 0x40;
  v.mExtension = 0x30;
  v.kExtension = 0x20;
  v.dilationFilterH = 2;
  v.dilationFilterW = 3;
  v.filterH = 4;
  v.filterW = 5;
  v.strideH = 6;
  v.strideW = 7;
  const isa::LoadData3DParamsV2Pro pro = isa::packV2Pro(v);
  EXPECT_EQ(pro.extConfig, 0x1234004000300020ull);
  EXPECT_EQ(pro.filterConfig, 0x020304050607ull);
  const isa::LoadData3DParamsV2 back = isa::unpackV2Pro(pro);
  EXPECT_EQ(back.mStartPt, 0x1234);
  EXPECT_EQ(back.strideW, 7);
  // The documented default filter_config is every field 1.
  const isa::LoadData3DParamsV2 ones = isa::unpackV2Pro(isa::LoadData3DParamsV2Pro{});
  EXPECT_EQ(ones.strideW + ones.strideH + ones.filterW + ones.filterH + ones.dilationFilterW +
                ones.dilationFilterH,
            6);
}

TEST(Load3DPacking, FmatrixWordFollowsSpec62ByHand) {
  const isa::FMatrix fm{0x56, 0x1234, {1, 2, 3, 4}};
  EXPECT_EQ(fm.word(), 0x0403020100561234ull);
  EXPECT_EQ(isa::FMatrix::fromWord(fm.word()), fm);
}

TEST(Load3DText, EveryNewInstructionRoundTrips) {
  isa::Load3DV2 v2;
  v2.params.padList = {1, 2, 3, 4};
  v2.params.l1H = 7;
  v2.params.padValue = 0xABCD;
  v2.reset = {false, true};
  isa::Load3DV2Pro pro{Load2DPath::B1toB2, DType::F32, 32, 512, {}};
  pro.params.extConfig = 0x0001000200030004ull;
  isa::Load3DV1 v1;
  v1.params.leftTopW = -255;
  v1.params.leftTopH = 32767;
  for (const isa::Instruction& ins :
       {isa::Instruction{v2}, isa::Instruction{pro}, isa::Instruction{v1},
        isa::Instruction{isa::SetFmatrix{true, {9, 10, {4, 3, 2, 1}}}},
        isa::Instruction{isa::SetPadding{DType::S8, 0x81}}}) {
    std::string error;
    const auto back = isa::parseInstruction(isa::toText(ins), error);
    ASSERT_TRUE(back) << isa::toText(ins) << ": " << error;
    EXPECT_EQ(*back, ins) << isa::toText(ins);
  }
}

TEST(Load3DReference, RegistersMustBeWrittenBeforeUse) {
  isa::Program p = handProgram(Load2DPath::A1toA2);
  isa::Load3DV2 l = std::get<isa::Load3DV2>(p.instructions[0]);
  p.instructions = {isa::Load3DV2Pro{l.path, l.dtype, 0, 0, isa::packV2Pro(l.params)}};
  auto ref = dut::makeDut("reference");
  const dut::RunResult r = ref->run(p);
  ASSERT_EQ(r.status, dut::RunStatus::Rejected);
  EXPECT_EQ(r.violation->code, isa::ViolationCode::UndefinedMemory);
  // With the registers set first, the V2Pro load equals the V2 load.
  p.instructions.insert(p.instructions.begin(), {isa::SetFmatrix{false, {2, 2, {1, 0, 0, 0}}},
                                                 isa::SetPadding{DType::F16, kPad}});
  const dut::RunResult pro = ref->run(p);
  const dut::RunResult v2 = ref->run(handProgram(Load2DPath::A1toA2));
  ASSERT_EQ(pro.status, dut::RunStatus::Ok) << pro.message;
  EXPECT_EQ(pro.observed, v2.observed);
}

TEST(Load3DReference, AKernelLargerThanThePaddedMapIsRejected) {
  isa::Program p = handProgram(Load2DPath::A1toA2);
  std::get<isa::Load3DV2>(p.instructions[0]).params.filterH = 3;  // 3 rows over 2, no h pads
  auto ref = dut::makeDut("reference");
  const dut::RunResult r = ref->run(p);
  ASSERT_EQ(r.status, dut::RunStatus::Rejected);
  EXPECT_EQ(r.violation->code, isa::ViolationCode::Range);
}

TEST(Load3DValidate, TypesAndTransposesPerDestination) {
  const isa::Profile& a2 = isa::profile(isa::ProfileId::A2);
  isa::Load3DV2 l;
  l.dtype = DType::S8;
  l.params.enTranspose = true;
  EXPECT_EQ(isa::validate(a2, l)->code, isa::ViolationCode::TransposeType);
  l.path = Load2DPath::B1toB2;  // en_transpose ignored there, but b8 into L0B is not supported
  EXPECT_EQ(isa::validate(a2, l)->code, isa::ViolationCode::DTypeUnsupported);
  l.dtype = DType::F32;
  EXPECT_FALSE(isa::validate(a2, l));
  l.params.kStartPt = 4;  // not a multiple of C0 = 8
  EXPECT_EQ(isa::validate(a2, l)->code, isa::ViolationCode::Range);
}

// The boundary tables hold fields at their extremes only where the spec says what the load does:
// no entry may depend on an open point (OPEN-11: channel sizes off the C0 grid, selections past
// X, V1's c_size 1 or pixels past Ho * Wo), which would leave it NotSupported in every run.
TEST(Load3DBoundaries, EveryEntryIsCertified) {
  for (isa::ProfileId id : {isa::ProfileId::A2, isa::ProfileId::Ascend950}) {
    for (bool asV2Pro : {false, true}) {
      for (const gen::Load3DCase& c : gen::load3DBoundaries(id)) {
        const auto open = oracle::expect(gen::buildProgram(c, asV2Pro)).uncertified;
        EXPECT_FALSE(open) << c.why << (asV2Pro ? " (V2Pro)" : "") << ": " << *open;
      }
    }
  }
  for (const gen::Load3DV1Case& c : gen::load3DV1Boundaries()) {
    const auto open = oracle::expect(gen::buildProgram(c)).uncertified;
    EXPECT_FALSE(open) << c.why << ": " << *open;
  }
}

}  // namespace
}  // namespace cubecheck
