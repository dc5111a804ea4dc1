// Formulas stated twice on purpose (docs/architecture.md#semantics-stated-twice), pinned to
// values worked out by hand from docs/spec.md. Each formula that tells where an operand lies is
// written once in isa/ (what the reference reads by) and once in the oracle's vocabulary
// (oracle/operands.hpp, what the generators lay operands out by and the oracle expects by). A
// mistake in one statement then disagrees with the other instead of agreeing with itself; these
// tests check both statements, and the reference's actual reading, against the hand values.
//
// Also the two Load3D legality rules that used to live only in the reference (spec 6.1: the
// window must fit the padded map; the feature map must end inside L1), now in isa::validate:
// one legal/illegal boundary pair each, through every route that applies them.
#include <gtest/gtest.h>

#include <cstring>

#include "dut_adapters/registry.hpp"
#include "generators/mmad.hpp"
#include "isa/program.hpp"
#include "oracle/layout.hpp"
#include "oracle/operands.hpp"
#include "oracle/oracle.hpp"

namespace cubecheck {
namespace {

using isa::DType;
using isa::Load2DPath;
using isa::Memory;
using isa::ProfileId;
using isa::ViolationCode;

std::uint32_t wordAt(const isa::Bytes& b, std::uint64_t byte) {
  std::uint32_t v;
  std::memcpy(&v, &b[byte], 4);
  return v;
}

/// `bits` of an element of type t written little-endian at `byte`.
void put(isa::Bytes& b, std::uint64_t byte, DType t, std::uint32_t bits) {
  std::memcpy(&b[byte], &bits, static_cast<std::size_t>(isa::bitsOf(t) / 8));
}

/// One product through the reference: A holds `aBits` at byte `aByte` of an `aBytes`-byte L0A
/// image and B holds `bBits` at byte `bByte` of a `bBytes`-byte L0B image, every other byte 0.
/// The images are exactly the hand-worked footprints, so a reference that reads past them is
/// rejected for undefined memory. Returns L0C (`cBytes`, zero init), or an empty vector.
isa::Bytes oneProduct(ProfileId id, const isa::Mmad& x, std::uint64_t aBytes, std::uint64_t aByte,
                      std::uint32_t aBits, std::uint64_t bBytes, std::uint64_t bByte,
                      std::uint32_t bBits, std::uint64_t cBytes) {
  isa::Program p;
  p.profile = id;
  isa::Bytes a(aBytes, 0), b(bBytes, 0);
  put(a, aByte, x.dtype, aBits);
  put(b, bByte, x.dtype, bBits);
  p.segments = {{Memory::L0A, 0, a}, {Memory::L0B, 0, b}, {Memory::L0C, 0, isa::Bytes(cBytes)}};
  p.instructions = {x};
  p.observe = {{Memory::L0C, 0, cBytes}};
  const dut::RunResult r = dut::makeDut("reference")->run(p);
  EXPECT_EQ(r.status, dut::RunStatus::Ok) << r.message;
  return r.status == dut::RunStatus::Ok ? r.observed.at(0) : isa::Bytes{};
}

/// Every 4-byte word of C is 0 except the one at `byte`, which is `bits`.
void expectOnlyWord(const isa::Bytes& c, std::uint64_t byte, std::uint32_t bits) {
  ASSERT_FALSE(c.empty());
  for (std::uint64_t w = 0; w < c.size(); w += 4) {
    EXPECT_EQ(wordAt(c, w), w == byte ? bits : 0u) << "C byte " << w;
  }
}

constexpr std::uint32_t kF32One = 0x3F800000, kF32Two = 0x40000000;

isa::Mmad mmadOf(DType t, std::uint16_t m, std::uint16_t k, std::uint16_t n) {
  isa::Mmad x;
  x.dtype = t;
  x.m = m;
  x.k = k;
  x.n = n;
  return x;
}

/// An img2col load of `t` from an l1_h x l1_w map of `channels` channels, a kernel of
/// filter_h x filter_w, selecting m_extension rows and k_extension columns of X.
isa::Load3DV2 img2col(Load2DPath path, DType t, std::uint16_t l1H, std::uint16_t l1W,
                      std::uint16_t channels, std::uint8_t filterH, std::uint8_t filterW,
                      std::uint16_t mExtension, std::uint16_t kExtension) {
  isa::Load3DV2 l;
  l.path = path;
  l.dtype = t;
  l.params.l1H = l1H;
  l.params.l1W = l1W;
  l.params.channelSize = channels;
  l.params.filterH = filterH;
  l.params.filterW = filterW;
  l.params.mExtension = mExtension;
  l.params.kExtension = kExtension;
  return l;
}

// ---- Mmad's A under k_direction_align: isa::mmadARowFractals / oracle::mmadA ----

isa::Mmad kAlignMmad(bool align) {
  isa::Mmad x = mmadOf(DType::F32, 20, 20, 16);
  x.kDirectionAlign = align;
  return x;
}

TEST(HandWorked, KDirectionAlignARowFractalsAndOffsetOnA2) {
  // Spec 8: f32 on a2 with k_direction_align: A's row stride is 2 * ceil(k/16) fractals
  // instead of ceil(k/8). f32 is 4 bytes, so C0 = 32/4 = 8 (Notation) and an L0A fractal is
  // 16 x 8 (spec 2): 128 elements, 512 bytes.
  // m = 20, k = 20 (not a multiple of C0 = 8, nor of 16):
  //   row stride 2 * ceil(20/16) = 2 * 2 = 4 fractals (without the flag ceil(20/8) = 3);
  //   M1 = ceil16(20) = 2 fractal rows, so A is 2 * 4 * 512 = 4096 bytes (without: 3072).
  // A(17, 19) in Zz (spec 3, Cc1 = the row stride):
  //   ((17/16) * 4 + 19/8) * 128 + (17%16) * 8 + 19%8 = (4 + 2) * 128 + 8 + 3 = 779 elements,
  //   byte 779 * 4 = 3116 (without the flag ((1 * 3 + 2) * 128 + 11) * 4 = 2604).
  // The oracle's statement: K padded to 16 instead of to 8, i.e. a 32 x 32 matrix, Zz.
  const isa::Mmad x = kAlignMmad(true);
  EXPECT_EQ(isa::mmadARowFractals(ProfileId::A2, x), 4u);
  EXPECT_EQ(isa::mmadABytes(ProfileId::A2, x), 4096u);
  const oracle::OperandLayout a = oracle::mmadA(ProfileId::A2, x);
  EXPECT_FALSE(a.vector);
  EXPECT_EQ(a.layout, oracle::Layout::Zz);
  EXPECT_EQ(a.rows, 32u);
  EXPECT_EQ(a.cols, 32u);
  EXPECT_EQ(a.bytes(DType::F32), 4096u);
  EXPECT_EQ(4 * oracle::elementOffset(a.layout, DType::F32, a.rows, a.cols, 17, 19), 3116u);

  const isa::Mmad plain = kAlignMmad(false);
  EXPECT_EQ(isa::mmadARowFractals(ProfileId::A2, plain), 3u);
  EXPECT_EQ(isa::mmadABytes(ProfileId::A2, plain), 3072u);
  const oracle::OperandLayout p = oracle::mmadA(ProfileId::A2, plain);
  EXPECT_EQ(p.cols, 24u);
  EXPECT_EQ(p.bytes(DType::F32), 3072u);
  EXPECT_EQ(4 * oracle::elementOffset(p.layout, DType::F32, p.rows, p.cols, 17, 19), 2604u);
}

TEST(HandWorked, KDirectionAlignIsWhereTheReferenceReadsA) {
  // The reference's reading of the same case: 1.0 at the hand-worked byte of A(17, 19), B(19, 0)
  // = 2.0, everything else 0, so C(17, 0) = 2.0 and every other C element 0.
  //   B: K0 = 8, ceil(20/8) = 3 by N1 = 1 fractals, 1536 bytes; B(19, 0) in Zn (spec 3):
  //     ((19/8) * 1 + 0) * 128 + 0 * 8 + 19%8 = 259 elements, byte 1036.
  //   C: Nz, 16 x 16 four-byte fractals, M1 = 2 by N1 = 1, 2048 bytes; C(17, 0) in fractal
  //     (0/16) * 2 + 17/16 = 1, at 1024 + ((17%16) * 16 + 0) * 4 = 1088.
  for (bool align : {true, false}) {
    SCOPED_TRACE(align ? "k_direction_align" : "no k_direction_align");
    const isa::Bytes c = oneProduct(ProfileId::A2, kAlignMmad(align), align ? 4096 : 3072,
                                    align ? 3116 : 2604, kF32One, 1536, 1036, kF32Two, 2048);
    expectOnlyWord(c, 1088, kF32Two);
  }
}

TEST(HandWorked, KDirectionAlignMeansNothingOffA2) {
  // Spec 8 (float only, a2); decisions.md: ignored, not rejected, elsewhere. On 950 (Nz) and
  // legacy the row stride stays ceil(20/8) = 3 fractals: A is 2 * 3 * 512 = 3072 bytes.
  for (ProfileId id : {ProfileId::Ascend950, ProfileId::Legacy}) {
    const isa::Mmad x = kAlignMmad(true);
    EXPECT_EQ(isa::mmadARowFractals(id, x), 3u);
    EXPECT_EQ(isa::mmadABytes(id, x), 3072u);
    EXPECT_EQ(oracle::mmadA(id, x).bytes(DType::F32), 3072u);
  }
  // Nor for other types: f16 with the flag keeps ceil(20/16) = 2 fractals per row.
  isa::Mmad h = kAlignMmad(true);
  h.dtype = DType::F16;
  EXPECT_EQ(isa::mmadARowFractals(ProfileId::A2, h), 2u);
  EXPECT_EQ(oracle::mmadA(ProfileId::A2, h).cols, 32u);
}

// ---- GEMV: isa::isGemv / oracle::mmadA(...).vector ----

isa::Mmad gemvMmad(std::uint16_t m, bool disableGemv) {
  isa::Mmad x = mmadOf(DType::F16, m, 37, 16);
  x.disableGemv = disableGemv;
  return x;
}

TEST(HandWorked, GemvIsMEqualsOneUnlessDisabledOn950) {
  // Spec 8: m = 1 selects GEMV on both profiles (legacy follows a2), on 950 unless disableGemv;
  // the flag exists on 950 only. In GEMV A is k contiguous elements: f16, k = 37, so
  // 37 * 2 = 74 bytes, and A(0, 33) is at byte 33 * 2 = 66.
  struct Row {
    ProfileId id;
    std::uint16_t m;
    bool disable, gemv;
  };
  for (const Row& r :
       {Row{ProfileId::A2, 1, false, true}, Row{ProfileId::A2, 1, true, true},
        Row{ProfileId::Legacy, 1, false, true}, Row{ProfileId::Ascend950, 1, false, true},
        Row{ProfileId::Ascend950, 1, true, false}, Row{ProfileId::A2, 2, false, false},
        Row{ProfileId::Ascend950, 2, false, false}}) {
    SCOPED_TRACE(std::string(isa::profile(r.id).name) + " m=" + std::to_string(r.m) +
                 " disable_gemv=" + std::to_string(r.disable));
    const isa::Mmad x = gemvMmad(r.m, r.disable);
    EXPECT_EQ(isa::isGemv(r.id, x), r.gemv);
    const oracle::OperandLayout a = oracle::mmadA(r.id, x);
    EXPECT_EQ(a.vector, r.gemv);
    if (r.gemv) {
      EXPECT_EQ(isa::mmadABytes(r.id, x), 74u);
      EXPECT_EQ(a.bytes(DType::F16), 74u);
      EXPECT_EQ(a.cols, 37u);
    }
  }
  // 950 with disableGemv: an ordinary Nz operand of one fractal row, ceil(37/16) = 3 fractals
  // (1536 bytes), A(0, 33) at ((33/16) * 1 + 0/16) * 256 + 0 * 16 + 33%16 = 513, byte 1026.
  const isa::Mmad off = gemvMmad(1, true);
  EXPECT_EQ(isa::mmadABytes(ProfileId::Ascend950, off), 1536u);
  const oracle::OperandLayout a = oracle::mmadA(ProfileId::Ascend950, off);
  EXPECT_EQ(a.layout, oracle::Layout::Nz);
  EXPECT_EQ(a.bytes(DType::F16), 1536u);
  EXPECT_EQ(2 * oracle::elementOffset(a.layout, DType::F16, a.rows, a.cols, 0, 33), 1026u);
}

TEST(HandWorked, GemvIsWhereTheReferenceReadsA) {
  // A(0, 33) = 1.0 (f16 0x3C00) at the hand-worked byte, B(33, 0) = 2.0 (0x4000): C(0, 0) is
  // 2.0 in f32 at byte 0 of the one C fractal (M1 = N1 = 1, 1024 bytes).
  //   B: K0 = 16, ceil(37/16) = 3 fractals by N1 = 1, 1536 bytes; B(33, 0) in Zn:
  //     ((33/16) * 1 + 0) * 256 + 0 * 16 + 33%16 = 513 elements, byte 1026.
  struct Row {
    ProfileId id;
    bool disable;
    std::uint64_t aBytes, aByte;
  };
  for (const Row& r :
       {Row{ProfileId::A2, false, 74, 66}, Row{ProfileId::A2, true, 74, 66},
        Row{ProfileId::Ascend950, false, 74, 66}, Row{ProfileId::Ascend950, true, 1536, 1026}}) {
    SCOPED_TRACE(std::string(isa::profile(r.id).name) +
                 " disable_gemv=" + std::to_string(r.disable));
    const isa::Bytes c = oneProduct(r.id, gemvMmad(1, r.disable), r.aBytes, r.aByte, 0x3C00, 1536,
                                    1026, 0x4000, 1024);
    expectOnlyWord(c, 0, kF32Two);
  }
}

TEST(HandWorked, GeneratorsLayAOutByTheOracleStatement) {
  // The mmad generator places A where the hand values say: A(17, 19) of the k_direction_align
  // case at byte 3116 from aAddr, and GEMV's A(0, 33) at byte 66.
  gen::MmadCase c;
  c.dtype = DType::F32;
  c.m = 20;
  c.k = 20;
  c.n = 16;
  c.kAlign = true;
  c.aAddr = 1024;
  c.contentSeed = 7;
  const gen::MmadOperands o = gen::operandsOf(c);
  isa::Program p = gen::buildProgram(c);
  const isa::Segment* a = isa::findSegment(p.segments, Memory::L0A, c.aAddr, 4096);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->bytes.size(), 4096u);
  EXPECT_EQ(wordAt(a->bytes, 3116), oracle::bitsOf(o.a, DType::F32)(17, 19));

  c.dtype = DType::F16;
  c.m = 1;
  c.k = 37;
  c.kAlign = false;
  const gen::MmadOperands g = gen::operandsOf(c);
  p = gen::buildProgram(c);
  a = isa::findSegment(p.segments, Memory::L0A, c.aAddr, 74);
  ASSERT_NE(a, nullptr);
  std::uint16_t h;
  std::memcpy(&h, &a->bytes[66], 2);
  EXPECT_EQ(h, oracle::bitsOf(g.a, DType::F16)(0, 33));
}

// ---- Mmad's B: isa::mmadBBytes / oracle::mmadB ----

TEST(HandWorked, MmadBFootprintAndOffset) {
  // Spec 8: B occupies ceil(k/K0) x ceil16(n) fractals, Zn. s8: K0 = C0 = 32, m = 2 (not GEMV),
  // k = 40, n = 17: ceil(40/32) = 2 by ceil16(17) = 2, 4 fractals, 2048 bytes.
  //   B(35, 16) in Zn: ((35/32) * 2 + 16/16) * 512 + (16%16) * 32 + 35%32 = 3 * 512 + 3 = 1539.
  //   A(1, 35) in Zz (a2, ceil(40/32) = 2 fractals a row, 1024 bytes):
  //     ((1/16) * 2 + 35/32) * 512 + (1%16) * 32 + 35%32 = 512 + 32 + 3 = 547.
  //   C(1, 16) in Nz (M1 = 1, N1 = 2, 2048 bytes): fractal (16/16) * 1 + 1/16 = 1, at
  //     1024 + ((1%16) * 16 + 16%16) * 4 = 1088.
  // With A(1, 35) = 3 and B(35, 16) = 5, C(1, 16) = 15 and the rest 0.
  const isa::Mmad x = mmadOf(DType::S8, 2, 40, 17);
  EXPECT_EQ(isa::mmadBBytes(x), 2048u);
  const oracle::OperandLayout b = oracle::mmadB(x);
  EXPECT_EQ(b.layout, oracle::Layout::Zn);
  EXPECT_EQ(b.rows, 64u);
  EXPECT_EQ(b.cols, 32u);
  EXPECT_EQ(b.bytes(DType::S8), 2048u);
  EXPECT_EQ(oracle::elementOffset(b.layout, DType::S8, b.rows, b.cols, 35, 16), 1539u);
  const oracle::OperandLayout a = oracle::mmadA(ProfileId::A2, x);
  EXPECT_EQ(oracle::elementOffset(a.layout, DType::S8, a.rows, a.cols, 1, 35), 547u);
  expectOnlyWord(oneProduct(ProfileId::A2, x, 1024, 547, 3, 2048, 1539, 5, 2048), 1088, 15);
}

// ---- The img2col destination: isa::load3dDstFractals / oracle::img2colDestination ----

TEST(HandWorked, Img2colDestinationFootprints) {
  // Spec 6.1, fractals of the destination (512 bytes each):
  //  * L0A, f16 (C0 16), 20 rows by 24 columns of X: ceil16(20) = 2 by ceil(24/16) = 2: 4.
  //  * L0A, s8 (C0 32), 20 x 40: 2 by ceil(40/32) = 2: 4.
  //  * L0A transposed, f32 (C0 8), 20 x 12: X^T is 12 x 20, ceil16(12) = 1 by ceil(20/8) = 3: 3.
  //  * L0B, f32, 20 x 12: B[k' = m][n' = k] is 20 x 12 in Zn, K' by C0: ceil(20/8) = 3, N' by
  //    16: 1: 3.
  //  * L0B, f16, 20 x 12: ceil(20/16) = 2 by 1: 2 (en_transpose means nothing there).
  struct Row {
    Load2DPath path;
    DType t;
    bool transpose;
    std::uint64_t m, k, fractals;
  };
  for (const Row& r : {Row{Load2DPath::A1toA2, DType::F16, false, 20, 24, 4},
                       Row{Load2DPath::A1toA2, DType::S8, false, 20, 40, 4},
                       Row{Load2DPath::A1toA2, DType::F32, true, 20, 12, 3},
                       Row{Load2DPath::B1toB2, DType::F32, false, 20, 12, 3},
                       Row{Load2DPath::B1toB2, DType::F16, true, 20, 12, 2}}) {
    SCOPED_TRACE(std::string(isa::nameOf(r.path)) + " " + std::string(isa::nameOf(r.t)));
    const bool transposes = r.transpose && r.path == Load2DPath::A1toA2;
    EXPECT_EQ(isa::load3dDstFractals(r.path, r.t, transposes, r.m, r.k), r.fractals);
    for (ProfileId id : {ProfileId::A2, ProfileId::Ascend950}) {
      EXPECT_EQ(oracle::img2colDestination(id, r.path, r.t, r.transpose, r.m, r.k).bytes(r.t),
                512 * r.fractals);
    }
  }
}

TEST(HandWorked, Img2colIntoL0BIsWhereTheReferenceWrites) {
  // f32 (C0 8) into L0B on a2: a 4 x 5 map of 16 channels (C1 = 2), 1 x 1 kernel, stride 1, no
  // pads: Ho = 4, Wo = 5, M = 20 rows; K = C1 * 1 * 1 * C0 = 16 columns; m_extension 20,
  // k_extension 12. Destination: B[k' = m][n' = k], 20 x 12 in Zn, 3 fractals (1536 bytes).
  //   X[19][11]: row 19 is (ho 3, wo 4); column 11 is c0 = 11%8 = 3 of tap 11/8 = 1, i.e.
  //   c1 = 1 (one tap per slice). F[1][3][4][3] is NC1HWC0 element ((1*4 + 3)*5 + 4)*8 + 3 = 315.
  //   In Zn: ((19/8) * 1 + 11/16) * 128 + (11%16) * 8 + 19%8 = 256 + 88 + 3 = 347, byte 1388.
  //   B[0][12] (n' = 12 >= k_extension): byte (0 + 12 * 8 + 0) * 4 = 384, not written (spec 6.1).
  // Map element e holds e + 1, so byte 1388 gets 316; past byte 1536 nothing is written.
  const oracle::OperandLayout d =
      oracle::img2colDestination(ProfileId::A2, Load2DPath::B1toB2, DType::F32, false, 20, 12);
  EXPECT_EQ(4 * oracle::elementOffset(d.layout, DType::F32, 20, 12, 19, 11), 1388u);
  isa::Program p;
  p.profile = ProfileId::A2;
  isa::Bytes map(2 * 4 * 5 * 32);
  for (std::uint32_t e = 0; e < map.size() / 4; ++e) put(map, 4 * e, DType::F32, e + 1);
  p.segments = {{Memory::L1, 0, map}, {Memory::L0B, 0, isa::Bytes(2048, 0xEE)}};
  p.instructions = {img2col(Load2DPath::B1toB2, DType::F32, 4, 5, 16, 1, 1, 20, 12)};
  p.observe = {{Memory::L0B, 0, 2048}};
  ASSERT_FALSE(isa::validateProgram(p));
  const dut::RunResult r = dut::makeDut("reference")->run(p);
  ASSERT_EQ(r.status, dut::RunStatus::Ok) << r.message;
  EXPECT_EQ(wordAt(r.observed[0], 1388), 316u);
  EXPECT_EQ(wordAt(r.observed[0], 384), 0xEEEEEEEEu);
  for (std::uint64_t byte = 1536; byte < 2048; ++byte) {
    ASSERT_EQ(r.observed[0][byte], 0xEE) << "written past the footprint at byte " << byte;
  }
}

// ---- The Load3D rules that only the reference used to enforce (spec 6.1) ----

/// a2, f16, a 3-high, 4-wide map with top pad 1 and bottom pad `bottom`; a 3 x 1 kernel dilated
/// by 2 in h: khd = (3 - 1) * 2 + 1 = 5 rows.
isa::Load3DV2 windowLoad(std::uint8_t bottom) {
  isa::Load3DV2 l = img2col(Load2DPath::A1toA2, DType::F16, 3, 4, 16, 3, 1, 4, 16);
  l.params.padList = {0, 0, 1, bottom};
  l.params.dilationFilterH = 2;
  l.params.padValue = 0x3C00;
  return l;
}

/// The load with its geometry in the registers (SetFmatrix, SetLoadDataPaddingValue) and run as
/// V2Pro: the instruction alone no longer decides the rule, the program does.
isa::Program registerProgram(const isa::Load3DV2& l, std::uint64_t mapBytes) {
  isa::Program p;
  p.profile = ProfileId::A2;
  p.segments = {{Memory::L1, l.srcAddr, isa::Bytes(mapBytes, 0x11)},
                {Memory::L0A, 0, isa::Bytes(1024, 0xEE)}};
  p.instructions = {isa::SetFmatrix{false, {l.params.l1H, l.params.l1W, l.params.padList}},
                    isa::SetPadding{l.dtype, l.params.padValue},
                    isa::Load3DV2Pro{l.path, l.dtype, l.srcAddr, 0, isa::packV2Pro(l.params)}};
  p.observe = {{Memory::L0A, 0, 1024}};
  return p;
}

/// The same load as a V2 call that writes and reads its own fields.
isa::Program ownFieldsProgram(const isa::Load3DV2& l, std::uint64_t mapBytes) {
  isa::Program p = registerProgram(l, mapBytes);
  p.instructions = {l};
  return p;
}

void expectRule(const isa::Load3DV2& l, std::uint64_t mapBytes,
                std::optional<ViolationCode> expected) {
  const isa::Profile& a2 = isa::profile(ProfileId::A2);
  auto code = [](const std::optional<isa::Violation>& v) {
    return v ? std::optional<ViolationCode>(v->code) : std::nullopt;
  };
  const isa::Program own = ownFieldsProgram(l, mapBytes), regs = registerProgram(l, mapBytes);
  EXPECT_EQ(code(isa::validate(a2, l)), expected);
  EXPECT_EQ(code(isa::validateFeatureMap(a2, {l.params.l1H, l.params.l1W, l.params.padList},
                                         l.dtype, l.srcAddr, l.params)),
            expected);
  EXPECT_EQ(code(isa::validateProgram(own)), expected);
  EXPECT_EQ(code(isa::validateProgram(regs)), expected);
  EXPECT_FALSE(isa::validate(a2, regs.instructions.back()));  // the V2Pro word alone is legal
  auto ref = dut::makeDut("reference");
  for (const isa::Program* p : {&own, &regs}) {
    const dut::RunResult r = ref->run(*p);
    if (expected) {
      ASSERT_EQ(r.status, dut::RunStatus::Rejected) << r.message;
      EXPECT_EQ(r.violation->code, *expected) << r.violation->message;
    } else {
      EXPECT_EQ(r.status, dut::RunStatus::Ok) << r.message;
    }
  }
}

TEST(HandWorked, Load3DWindowMustFitThePaddedMap) {
  // Spec 6.1: Ho = (H + top + bottom - khd) / stride_h + 1 with khd = (Hk - 1) * dil_h + 1.
  // H = 3, top = 1, khd = 5:
  //   bottom 1: 3 + 1 + 1 - 5 = 0, Ho = 0/1 + 1 = 1: the kernel just fits (legal);
  //   bottom 0: 3 + 1 + 0 - 5 = -1 < 0: no output row fits, Ho would be 0: Range.
  // The map is C1 * H * W * 32 = 1 * 3 * 4 * 32 = 384 bytes at L1 address 0.
  {
    SCOPED_TRACE("bottom pad 1: fits");
    expectRule(windowLoad(1), 384, std::nullopt);
  }
  {
    SCOPED_TRACE("bottom pad 0: one row short");
    expectRule(windowLoad(0), 384, ViolationCode::Range);
  }
}

TEST(HandWorked, Load3DV1WindowMustFitThePaddedMap) {
  // V1 carries its geometry (spec 6.4), so validate() alone decides the same rule of spec 6.1:
  // the same 3-high map and dilated 3-row kernel on legacy.
  const isa::Profile& legacy = isa::profile(ProfileId::Legacy);
  isa::Load3DV1 l;
  l.dtype = DType::F16;
  l.params.l1H = 3;
  l.params.l1W = 4;
  l.params.filterH = 3;
  l.params.dilationFilterH = 2;
  l.params.padList = {0, 0, 1, 1};
  EXPECT_FALSE(isa::validate(legacy, l));
  l.params.padList = {0, 0, 1, 0};
  const auto v = isa::validate(legacy, l);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->code, ViolationCode::Range) << v->message;
}

isa::Load3DV2 mapLoad(std::uint64_t src, std::uint16_t channels) {
  isa::Load3DV2 l = img2col(Load2DPath::A1toA2, DType::F16, 4, 4, channels, 1, 1, 16, 16);
  l.srcAddr = src;
  l.params.padValue = 0x3C00;
  return l;
}

TEST(HandWorked, Load3DFeatureMapMustEndInsideL1) {
  // Spec 1: L1 is 512 KiB = 524288 bytes on a2, 32-byte aligned. f16: C0 = 16, so
  // channel_size 16 is C1 = 1 slice and the 4 x 4 map is 1 * 4 * 4 * 32 = 512 bytes:
  //   from 524288 - 512 = 523776 it ends exactly at the end of L1 (legal);
  //   from the next aligned address, 523808, it ends 32 bytes past (Capacity);
  //   channel_size 32 is C1 = 2 slices, 1024 bytes: from 523776 it ends 512 bytes past.
  {
    SCOPED_TRACE("ends at the last byte of L1");
    expectRule(mapLoad(523776, 16), 512, std::nullopt);
  }
  {
    SCOPED_TRACE("32 bytes past L1");
    expectRule(mapLoad(523808, 16), 480, ViolationCode::Capacity);
  }
  {
    SCOPED_TRACE("two C1 slices");
    expectRule(mapLoad(523776, 32), 512, ViolationCode::Capacity);
  }
}

// Spec 8.1.8 by hand: x_start 1, y_start 2, x_step 2, y_step 3, src_stride 7, dst_stride 4, dst
// 64 (unit 2 of L0A_MX). Row x of the copy reads source units (1 + x) * 7 + 2 + y: 9, 10, 11 and
// 16, 17, 18; it writes units 2 + x * 4 + y: 2, 3, 4 and 6, 7, 8. Unit 5 and the rest keep the
// canary. L1 unit u holds the byte u throughout, so a wrong unit shows as a wrong value.
TEST(HandWorked, MxScaleLoadMovesTheUnitsItsFieldsName) {
  isa::LoadMxScale l;
  l.srcAddr = 0;
  l.dstAddr = 64;
  l.xStart = 1;
  l.yStart = 2;
  l.xStep = 2;
  l.yStep = 3;
  l.srcStride = 7;
  l.dstStride = 4;
  isa::Bytes l1(32 * 20);
  for (std::size_t i = 0; i < l1.size(); ++i) l1[i] = static_cast<std::uint8_t>(i / 32);
  for (bool toL0B : {false, true}) {
    l.toL0B = toL0B;
    const Memory mx = toL0B ? Memory::L0BMx : Memory::L0AMx;
    isa::Program p;
    p.profile = ProfileId::Ascend950;
    p.segments = {{Memory::L1, 0, l1}, {mx, 0, isa::Bytes(32 * 12, 0xEE)}};
    p.instructions = {l};
    p.observe = {{mx, 0, 32 * 12}};
    ASSERT_FALSE(isa::validateProgram(p));
    isa::Bytes want(32 * 12, 0xEE);
    const std::vector<std::pair<int, int>> moved{{2, 9},  {3, 10}, {4, 11},
                                                 {6, 16}, {7, 17}, {8, 18}};
    for (auto [to, from] : moved) {
      std::fill_n(want.begin() + to * 32, 32, static_cast<std::uint8_t>(from));
    }
    EXPECT_EQ(oracle::expect(p).regions.at(0), want) << "oracle, to_l0b " << toL0B;
    const dut::RunResult r = dut::makeDut("reference")->run(p);
    ASSERT_EQ(r.status, dut::RunStatus::Ok) << r.message;
    EXPECT_EQ(r.observed.at(0), want) << "reference, to_l0b " << toL0B;
  }
}

// The scale loads' legality: 950 only, 32-byte aligned ends, units inside L1 and the buffer; a
// zero step copies nothing and is legal wherever it points.
TEST(HandWorked, MxScaleLoadLegality) {
  const isa::Profile& p950 = isa::profile(ProfileId::Ascend950);
  isa::LoadMxScale l;
  l.xStep = 1;
  l.yStep = 128;  // all of the 4 KiB buffer
  l.srcStride = 128;
  l.dstStride = 128;
  EXPECT_FALSE(isa::validate(p950, l));
  EXPECT_EQ(isa::validate(isa::profile(ProfileId::A2), l)->code, ViolationCode::PathUnsupported);
  isa::LoadMxScale past = l;
  past.dstAddr = 32;  // one unit past L0A_MX
  EXPECT_EQ(isa::validate(p950, past)->code, ViolationCode::Capacity);
  isa::LoadMxScale odd = l;
  odd.srcAddr = 16;
  EXPECT_EQ(isa::validate(p950, odd)->code, ViolationCode::Alignment);
  isa::LoadMxScale none = past;
  none.yStep = 0;
  EXPECT_FALSE(isa::validate(p950, none));
  isa::LoadMxScale l1End = l;
  l1End.yStep = 1;
  l1End.srcAddr = p950.capacityOf(Memory::L1) - 32;
  EXPECT_FALSE(isa::validate(p950, l1End));
  l1End.yStart = 1;
  EXPECT_EQ(isa::validate(p950, l1End)->code, ViolationCode::Capacity);
}

}  // namespace
}  // namespace cubecheck
