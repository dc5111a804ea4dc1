// isa/: the vocabulary, its documented ranges and legality rules (spec 1, 2, 4).
#include <gtest/gtest.h>

#include "isa/fields.hpp"
#include "isa/load2d.hpp"
#include "isa/load2d_v2.hpp"
#include "isa/program.hpp"

namespace cubecheck::isa {
namespace {

TEST(DType, BitsAndC0FollowSpec2) {
  // spec 2 / notation: C0 = 32 B / sizeof(T): b4 64, b8 32, b16 16, b32 8.
  EXPECT_EQ(bitsOf(DType::S4), 4);
  EXPECT_EQ(c0Of(DType::S4), 64);
  EXPECT_EQ(c0Of(DType::Fp4E2M1), 64);
  EXPECT_EQ(c0Of(DType::S8), 32);
  EXPECT_EQ(c0Of(DType::HiF8), 32);
  EXPECT_EQ(c0Of(DType::BF16), 16);
  EXPECT_EQ(c0Of(DType::F32), 8);
}

TEST(DType, NamesRoundTrip) {
  for (DType t : kAllDTypes) {
    auto back = parseDType(nameOf(t));
    ASSERT_TRUE(back.has_value()) << nameOf(t);
    EXPECT_EQ(*back, t);
  }
  EXPECT_FALSE(parseDType("f64").has_value());
}

TEST(Profile, A2CapacitiesAreSpec1Defaults) {
  const Profile& p = profile(ProfileId::A2);
  EXPECT_EQ(p.capacityOf(Memory::L1), 512u * 1024);
  EXPECT_EQ(p.capacityOf(Memory::L0A), 64u * 1024);
  EXPECT_EQ(p.capacityOf(Memory::L0B), 64u * 1024);
  EXPECT_EQ(p.capacityOf(Memory::L0C), 128u * 1024);
  EXPECT_EQ(p.capacityOf(Memory::SparseIndex), 16u * 1024);  // L0B / 4
  EXPECT_EQ(p.alignmentOf(Memory::L0A), 512u);
  EXPECT_EQ(p.alignmentOf(Memory::L1), 32u);
  EXPECT_EQ(p.alignmentOf(Memory::GM), 1u);
  EXPECT_FALSE(p.l0aIsNz);
  EXPECT_TRUE(profile(ProfileId::Ascend950).l0aIsNz);
  EXPECT_EQ(profile(ProfileId::Ascend950).capacityOf(Memory::L0C), 256u * 1024);
  EXPECT_EQ(parseProfile("950"), ProfileId::Ascend950);
  EXPECT_FALSE(parseProfile("910").has_value());
}

Load2D load(Load2DPath path, DType t, std::uint64_t src, std::uint64_t dst, LoadData2DParams p) {
  return Load2D{path, t, src, dst, p};
}

std::optional<ViolationCode> codeOf(ProfileId id, const Load2D& l) {
  auto v = validate(profile(id), l);
  if (!v) return std::nullopt;
  EXPECT_FALSE(v->message.empty());
  return v->code;
}

using P = LoadData2DParams;  // {start, repeat, src_stride, sid, dst_gap, transpose, addr_mode}

TEST(Load2DValidate, LegalInstructionsPass) {
  EXPECT_EQ(
      codeOf(ProfileId::A2, load(Load2DPath::A1toA2, DType::F16, 0, 0, P{0, 4, 1, 0, 0, true, 0})),
      std::nullopt);
  // 128 fractals exactly fill the 64 KiB L0A.
  EXPECT_EQ(codeOf(ProfileId::A2,
                   load(Load2DPath::A1toA2, DType::S8, 0, 0, P{0, 128, 1, 0, 0, false, 0})),
            std::nullopt);
  // Fractal 1023 is the last of the 512 KiB L1.
  EXPECT_EQ(codeOf(ProfileId::A2,
                   load(Load2DPath::A1toA2, DType::S8, 0, 0, P{1023, 1, 1, 0, 0, false, 0})),
            std::nullopt);
  // A decrement that ends exactly at fractal 0: 4 - 2*2 = 0.
  EXPECT_EQ(
      codeOf(ProfileId::A2, load(Load2DPath::GMtoA1, DType::S8, 0, 0, P{4, 3, 2, 0, 0, false, 1})),
      std::nullopt);
  // addr_mode 1 is ignored off GM->A1/B1, so this does not underflow.
  EXPECT_EQ(
      codeOf(ProfileId::A2, load(Load2DPath::A1toA2, DType::S8, 0, 0, P{0, 3, 2, 0, 0, false, 1})),
      std::nullopt);
  // repeat 0 touches nothing: a destination at the very end is legal.
  EXPECT_EQ(codeOf(ProfileId::A2,
                   load(Load2DPath::A1toA2, DType::S8, 0, 65536, P{0, 0, 1, 0, 0, false, 0})),
            std::nullopt);
}

TEST(Load2DValidate, EachRuleHasItsCode) {
  using V = ViolationCode;
  EXPECT_EQ(
      codeOf(ProfileId::A2, load(Load2DPath::A1toA2, DType::S8, 0, 0, P{0, 1, 1, 0, 0, true, 0})),
      V::TransposeType);
  EXPECT_EQ(
      codeOf(ProfileId::A2, load(Load2DPath::B1toB2, DType::F32, 0, 0, P{0, 1, 1, 0, 0, true, 0})),
      V::TransposeType);
  EXPECT_EQ(
      codeOf(ProfileId::A2, load(Load2DPath::GMtoA2, DType::F16, 0, 0, P{0, 1, 1, 0, 0, true, 0})),
      V::TransposePath);
  EXPECT_EQ(codeOf(ProfileId::A2,
                   load(Load2DPath::A1toA2, DType::F16, 0, 0x100, P{0, 1, 1, 0, 0, false, 0})),
            V::Alignment);
  EXPECT_EQ(codeOf(ProfileId::A2,
                   load(Load2DPath::A1toA2, DType::F16, 0x10, 0, P{0, 1, 1, 0, 0, false, 0})),
            V::Alignment);
  EXPECT_EQ(codeOf(ProfileId::A2,
                   load(Load2DPath::A1toA2, DType::S8, 0, 0, P{0, 129, 1, 0, 0, false, 0})),
            V::Capacity);
  EXPECT_EQ(codeOf(ProfileId::A2,
                   load(Load2DPath::A1toA2, DType::S8, 0, 0, P{1024, 1, 1, 0, 0, false, 0})),
            V::Capacity);
  // 3 repeats with gap 63: last fractal at 2*64 = 128, one past L0A's 128 fractals.
  EXPECT_EQ(
      codeOf(ProfileId::A2, load(Load2DPath::A1toA2, DType::S8, 0, 0, P{0, 3, 1, 0, 63, false, 0})),
      V::Capacity);
  EXPECT_EQ(
      codeOf(ProfileId::A2, load(Load2DPath::GMtoA1, DType::S8, 0, 0, P{3, 3, 2, 0, 0, false, 1})),
      V::DecrementUnderflow);
  EXPECT_EQ(
      codeOf(ProfileId::A2, load(Load2DPath::GMtoA1, DType::S8, 0, 0, P{0, 1, 1, 0, 0, false, 2})),
      V::Range);
  EXPECT_EQ(codeOf(ProfileId::A2,
                   load(Load2DPath::A1toA2, DType::HiF8, 0, 0, P{0, 1, 1, 0, 0, false, 0})),
            V::DTypeUnsupported);
  EXPECT_EQ(codeOf(ProfileId::Ascend950,
                   load(Load2DPath::GMtoA1, DType::S8, 0, 0, P{0, 1, 1, 0, 0, false, 0})),
            V::PathUnsupported);
  EXPECT_EQ(codeOf(ProfileId::Ascend950,
                   load(Load2DPath::A1toA2, DType::HiF8, 0, 0, P{0, 1, 1, 0, 0, false, 0})),
            std::nullopt);
}

// GM is the address space an address field spans (spec 1): its bytes end where the field's
// values do, every GM read lies in it, and one that would run past it is a Capacity violation,
// on every profile and every load that reads GM.
TEST(GmAddresses, AReadEndsAtTheTopOfTheFieldsRangeAtTheLatest) {
  const std::int64_t srcMax = findField(*findInstructionDesc("load2d"), "src")->legalMax;
  const std::uint64_t end = static_cast<std::uint64_t>(srcMax) + 1;
  for (ProfileId id : kAllProfiles) {
    EXPECT_EQ(profile(id).capacityOf(Memory::GM), end) << profile(id).name;
  }
  for (ProfileId id : {ProfileId::A2, ProfileId::Legacy}) {
    const std::uint64_t walk = 3 * kFractalBytes;  // start 1, two repeats of stride 2: fractal 3
    EXPECT_EQ(codeOf(id, load(Load2DPath::GMtoB2, DType::S8, end - walk - kFractalBytes, 0,
                              P{1, 2, 2, 0, 0, false, 0})),
              std::nullopt);
    EXPECT_EQ(codeOf(id, load(Load2DPath::GMtoB2, DType::S8, end - walk - kFractalBytes + 1, 0,
                              P{1, 2, 2, 0, 0, false, 0})),
              ViolationCode::Capacity);
    // A no-op reads nothing: its address may be the field's largest.
    EXPECT_EQ(codeOf(id, load(Load2DPath::GMtoA1, DType::S8, end - 1, 0, P{})), std::nullopt);
  }
  LoadV2 v{Load2DPath::GMtoA1, DType::F16, end - 2 * kFractalBytes, 0,
           LoadData2DParamsV2{1, 0, 1, 1, 1, 1, false, 0}};
  EXPECT_FALSE(validate(profile(ProfileId::Ascend950), v).has_value());
  v.srcAddr += 1;
  ASSERT_TRUE(validate(profile(ProfileId::Ascend950), v).has_value());
  EXPECT_EQ(validate(profile(ProfileId::Ascend950), v)->code, ViolationCode::Capacity);
  Program p;
  p.segments = {{Memory::GM, end - 4096, Bytes(4096)}};
  EXPECT_FALSE(validateStructure(p).has_value());
  p.segments = {{Memory::GM, end - 4095, Bytes(4096)}};
  EXPECT_TRUE(validateStructure(p).has_value());
}

TEST(Program, FindSegmentNeedsOneSegmentToHoldTheWholeRange) {
  std::vector<Segment> s{{Memory::L1, 100, Bytes(50)}, {Memory::L1, 150, Bytes(50)}};
  EXPECT_EQ(findSegment(s, Memory::L1, 100, 50), &s[0]);
  EXPECT_EQ(findSegment(s, Memory::L1, 150, 0), &s[0]);     // empty range at the end of s[0]
  EXPECT_EQ(findSegment(s, Memory::L1, 140, 20), nullptr);  // spans two segments
  EXPECT_EQ(findSegment(s, Memory::L1, 99, 1), nullptr);
  EXPECT_EQ(findSegment(s, Memory::L0A, 100, 1), nullptr);
  EXPECT_EQ(findSegment(s, Memory::L1, 199, 1), &s[1]);
  EXPECT_EQ(findSegment(s, Memory::L1, 199, 2), nullptr);
}

TEST(Program, StructureChecks) {
  Program p;
  p.segments = {{Memory::L0A, 0, Bytes(512)}, {Memory::L0A, 256, Bytes(512)}};
  ASSERT_TRUE(validateStructure(p).has_value());  // overlap
  p.segments = {{Memory::L0A, 64 * 1024 - 256, Bytes(512)}};
  ASSERT_TRUE(validateStructure(p).has_value());  // past capacity
  p.segments = {{Memory::L0A, 0, Bytes(512)}};
  p.observe = {{Memory::L0A, 0, 513}};
  ASSERT_TRUE(validateStructure(p).has_value());  // observed past the segment
  p.observe = {{Memory::L0A, 0, 512}};
  EXPECT_FALSE(validateStructure(p).has_value());
}

}  // namespace
}  // namespace cubecheck::isa

namespace cubecheck::isa {
namespace {

TEST(BitMode, WordsFollowSpec5BitTableByHand) {
  // config0: m_start 15:0, k_start 31:16, m_step 39:32, k_step 47:40; config1: src_stride 15:0,
  // dst_stride 31:16.
  const LoadData2DParamsV2 v{0x1234, 0x5678, 0x9A, 0xBC, 0xDEF0, 0x1357, true, 0};
  const Load2DBitModeParam b(v);
  EXPECT_EQ(b.config0(), 0x0000BC9A56781234ull);
  EXPECT_EQ(b.config1(), 0x000000001357DEF0ull);
  EXPECT_TRUE(b.ifTranspose());
  EXPECT_EQ(b.toV2().mStep, 0x9A);
  EXPECT_EQ(b.toV2().dstStride, 0x1357);
}

TEST(BitMode, ConstructionTruncatesEachFieldToItsWidth) {
  const LoadData2DParamsV2 wide{0x3FFFF, 0x12345, 0x1FF, 0x301, 0x10002, 0xFFFF, false, 0};
  const Load2DBitModeParam b(wide);
  EXPECT_EQ(b.mStartPosition(), 0xFFFFu);
  EXPECT_EQ(b.kStartPosition(), 0x2345u);
  EXPECT_EQ(b.mStep(), 0xFF);
  EXPECT_EQ(b.kStep(), 0x01);
  EXPECT_EQ(b.srcStride(), 2);
  EXPECT_EQ(b.dstStride(), 0xFFFF);
  EXPECT_EQ(b.config0() >> 48, 0u);  // unused bits stay zero
  EXPECT_EQ(b.config1() >> 32, 0u);
}

TEST(BitMode, SettersAndGettersRoundTripWithinTheirWidths) {
  Load2DBitModeParam b;
  for (std::uint32_t v : {0u, 1u, 0x7FFFu, 0xFFFFu}) {
    b.setMStartPosition(v);
    b.setKStartPosition(0xFFFF - v);
    b.setSrcStride(static_cast<std::int32_t>(v));
    b.setDstStride(static_cast<std::uint16_t>(v ^ 0xA5A5));
    b.setMStep(static_cast<std::uint16_t>(v & 0xFF));
    b.setKStep(static_cast<std::uint16_t>((v >> 8) & 0xFF));
    EXPECT_EQ(b.mStartPosition(), v);
    EXPECT_EQ(b.kStartPosition(), 0xFFFF - v);
    EXPECT_EQ(b.srcStride(), static_cast<std::int32_t>(v));
    EXPECT_EQ(b.dstStride(), (v ^ 0xA5A5) & 0xFFFF);
    EXPECT_EQ(b.mStep(), v & 0xFF);
    EXPECT_EQ(b.kStep(), (v >> 8) & 0xFF);
  }
}

TEST(LoadV2Validate, StepRulesOfTheTransposedBlock) {
  const Profile& p950 = profile(ProfileId::Ascend950);
  auto v2 = [](DType t, std::uint16_t m, std::uint16_t k) {
    return LoadV2{Load2DPath::A1toA2, t, 0, 0, LoadData2DParamsV2{0, 0, m, k, m, 16, true, 0}};
  };
  // spec 5 (the Load2DBitModeParam page): b4 m_step % 4, b8 m_step % 2, b16 none, b32 k_step % 2.
  EXPECT_FALSE(validate(p950, v2(DType::Fp4E2M1, 4, 1)).has_value());
  EXPECT_EQ(validate(p950, v2(DType::Fp4E2M1, 2, 1))->code, ViolationCode::Range);
  EXPECT_FALSE(validate(p950, v2(DType::S8, 2, 3)).has_value());
  EXPECT_EQ(validate(p950, v2(DType::U8, 3, 2))->code, ViolationCode::Range);
  EXPECT_FALSE(validate(p950, v2(DType::F16, 3, 3)).has_value());
  EXPECT_FALSE(validate(p950, v2(DType::F32, 3, 2)).has_value());
  EXPECT_EQ(validate(p950, v2(DType::F32, 2, 3))->code, ViolationCode::Range);
  // Not on a2; no u16 in the Load2DBitModeParam page's list; no transposed GM->L1.
  EXPECT_EQ(validate(profile(ProfileId::A2), v2(DType::F16, 1, 1))->code,
            ViolationCode::PathUnsupported);
  EXPECT_EQ(validate(p950, v2(DType::U16, 1, 1))->code, ViolationCode::DTypeUnsupported);
  LoadV2 gm = v2(DType::F16, 1, 1);
  gm.path = Load2DPath::GMtoA1;
  EXPECT_EQ(validate(p950, gm)->code, ViolationCode::TransposePath);
}

TEST(LoadV2Validate, TransposedFootprintIsTheBlockShape) {
  // b8, m_step 4, k_step 4: T is 128 x 64 elements = 8 fractal rows x 2 columns; with
  // dst_stride 8 the last fractal is 1*8 + 7 = 15.
  const V2Shape s = v2Shape(DType::S8, LoadData2DParamsV2{0, 0, 4, 4, 4, 8, true, 0});
  EXPECT_EQ(s.rows, 8u);
  EXPECT_EQ(s.columns, 2u);
  const Profile& p950 = profile(ProfileId::Ascend950);
  LoadV2 l{Load2DPath::A1toA2, DType::S8, 0, 64 * 1024 - 16 * 512,
           LoadData2DParamsV2{0, 0, 4, 4, 4, 8, true, 0}};
  EXPECT_FALSE(validate(p950, l).has_value());  // ends exactly at the end of L0A
  l.dstAddr += 512;
  EXPECT_EQ(validate(p950, l)->code, ViolationCode::Capacity);
}

}  // namespace
}  // namespace cubecheck::isa
