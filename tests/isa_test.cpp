// isa/: the vocabulary, its documented ranges and legality rules (spec 1, 2, 4).
#include <gtest/gtest.h>

#include "isa/load2d.hpp"
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
