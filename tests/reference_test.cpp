// The reference model on hand-worked programs (spec 4). Expected bytes are computed here from the
// spec's wording, independently of both the reference and the oracle.
#include <gtest/gtest.h>

#include "dut_adapters/reference/reference_dut.hpp"

namespace cubecheck::dut {
namespace {

using isa::Bytes;
using isa::DType;
using isa::Load2DPath;
using isa::Memory;
using P = isa::LoadData2DParams;  // {start, repeat, src_stride, sid, dst_gap, transpose, addr_mode}

/// Source fractal k filled with byte k + 1; destination filled with 0xCC.
isa::Program program(Load2DPath path, DType t, P p, int srcFractals, int dstFractals,
                     isa::ProfileId profile = isa::ProfileId::A2) {
  isa::Program prog;
  prog.profile = profile;
  Bytes src(srcFractals * 512);
  for (int k = 0; k < srcFractals; ++k) std::fill_n(src.begin() + k * 512, 512, k + 1);
  const Memory dst = isa::memoryOf(isa::dstOf(path));
  prog.segments = {{isa::memoryOf(isa::srcOf(path)), 0, std::move(src)},
                   {dst, 0, Bytes(dstFractals * 512, 0xCC)}};
  prog.instructions = {isa::Load2D{path, t, 0, 0, p}};
  prog.observe = {{dst, 0, std::uint64_t(dstFractals) * 512}};
  return prog;
}

/// The first byte of each destination fractal.
std::vector<int> firstBytes(const RunResult& r) {
  std::vector<int> out;
  for (std::size_t f = 0; f < r.observed.at(0).size(); f += 512) out.push_back(r.observed[0][f]);
  return out;
}

TEST(ReferenceLoad2D, IncrementWithStrideAndGap) {
  ReferenceDut ref;
  // start 1, stride 2, 3 repeats, gap 1: fractals 1, 3, 5 (bytes 2, 4, 6) land at 0, 2, 4.
  const RunResult r =
      ref.run(program(Load2DPath::A1toA2, DType::S8, P{1, 3, 2, 0, 1, false, 0}, 6, 6));
  ASSERT_EQ(r.status, RunStatus::Ok) << r.message;
  EXPECT_EQ(firstBytes(r), (std::vector<int>{2, 0xCC, 4, 0xCC, 6, 0xCC}));
}

TEST(ReferenceLoad2D, DecrementOnlyOnGMToL1) {
  ReferenceDut ref;
  // GM->A1, start 4, stride 2, decrement: fractals 4, 2, 0 -> bytes 5, 3, 1.
  RunResult r = ref.run(program(Load2DPath::GMtoA1, DType::S8, P{4, 3, 2, 0, 0, false, 1}, 5, 3));
  ASSERT_EQ(r.status, RunStatus::Ok);
  EXPECT_EQ(firstBytes(r), (std::vector<int>{5, 3, 1}));
  // The same parameters on A1->A2 increment: fractals 4, 6, 8 -> bytes 5, 7, 9.
  r = ref.run(program(Load2DPath::A1toA2, DType::S8, P{4, 3, 2, 0, 0, false, 1}, 9, 3));
  ASSERT_EQ(r.status, RunStatus::Ok);
  EXPECT_EQ(firstBytes(r), (std::vector<int>{5, 7, 9}));
}

TEST(ReferenceLoad2D, StrideZeroRereadsAndRepeatZeroIsANoOp) {
  ReferenceDut ref;
  RunResult r = ref.run(program(Load2DPath::GMtoB2, DType::F16, P{2, 3, 0, 0, 0, false, 0}, 3, 4));
  ASSERT_EQ(r.status, RunStatus::Ok);
  EXPECT_EQ(firstBytes(r), (std::vector<int>{3, 3, 3, 0xCC}));
  r = ref.run(program(Load2DPath::GMtoB2, DType::F16, P{2, 0, 0, 0, 0, false, 0}, 3, 2));
  ASSERT_EQ(r.status, RunStatus::Ok);
  EXPECT_EQ(r.observed[0], Bytes(1024, 0xCC));
}

TEST(ReferenceLoad2D, TransposeSwapsRowsAndColumnsOf16BitElements) {
  ReferenceDut ref;
  isa::Program p = program(Load2DPath::B1toB2, DType::BF16, P{0, 1, 0, 0, 0, true, 0}, 1, 1);
  for (int i = 0; i < 256; ++i) {  // element i = (i, 0x80 | i>>4): distinct in both bytes
    p.segments[0].bytes[2 * i] = static_cast<std::uint8_t>(i);
    p.segments[0].bytes[2 * i + 1] = static_cast<std::uint8_t>(0x80 | (i >> 4));
  }
  const RunResult r = ref.run(p);
  ASSERT_EQ(r.status, RunStatus::Ok);
  for (int row = 0; row < 16; ++row) {
    for (int col = 0; col < 16; ++col) {
      const int from = col * 16 + row;  // dst[r*16+c] = src[c*16+r]
      EXPECT_EQ(r.observed[0][2 * (row * 16 + col)], from & 0xFF);
      EXPECT_EQ(r.observed[0][2 * (row * 16 + col) + 1], 0x80 | (from >> 4));
    }
  }
}

TEST(ReferenceLoad2D, IllegalProgramsAreRejectedNotRun) {
  ReferenceDut ref;
  RunResult r = ref.run(program(Load2DPath::A1toA2, DType::S8, P{0, 1, 0, 0, 0, true, 0}, 1, 1));
  ASSERT_EQ(r.status, RunStatus::Rejected);
  EXPECT_EQ(r.violation->code, isa::ViolationCode::TransposeType);
  EXPECT_TRUE(r.observed.empty());
  // A legal first instruction does not run when a later one is illegal.
  isa::Program two = program(Load2DPath::A1toA2, DType::S8, P{0, 1, 0, 0, 0, false, 0}, 1, 1);
  two.instructions.push_back(
      isa::Load2D{Load2DPath::A1toA2, DType::S8, 0, 0, P{0, 1, 0, 0, 0, false, 5}});
  r = ref.run(two);
  ASSERT_EQ(r.status, RunStatus::Rejected);
  EXPECT_EQ(r.violation->code, isa::ViolationCode::Range);
}

TEST(ReferenceLoad2D, ReadingUndefinedMemoryIsAnError) {
  ReferenceDut ref;
  // Fractal 3 of a two-fractal source segment.
  const RunResult r =
      ref.run(program(Load2DPath::A1toA2, DType::S8, P{3, 1, 0, 0, 0, false, 0}, 2, 1));
  ASSERT_EQ(r.status, RunStatus::Rejected);
  EXPECT_EQ(r.violation->code, isa::ViolationCode::UndefinedMemory);
}

TEST(ReferenceLoad2D, DeclaresEveryProfileAndValidates) {
  ReferenceDut ref;
  EXPECT_TRUE(ref.capabilities().hasProfile(isa::ProfileId::Legacy));
  EXPECT_TRUE(ref.capabilities().hasInstruction("load2d"));
  EXPECT_TRUE(ref.capabilities().rejectsIllegal);
}

}  // namespace
}  // namespace cubecheck::dut
