// Reach: generators cover the legal space up to what the buffers hold, special values are
// checked under the saturation mode, and a run measures the reach it had.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <sstream>
#include <stdexcept>

#include "conformance/reach.hpp"
#include "conformance/report.hpp"
#include "conformance/report_read.hpp"
#include "conformance/runner.hpp"
#include "dut_adapters/registry.hpp"
#include "generators/common.hpp"
#include "generators/load3d.hpp"
#include "generators/mmad.hpp"
#include "generators/pipeline.hpp"
#include "isa/fields.hpp"
#include "isa/program.hpp"
#include "isa/text.hpp"
#include "tests/table_extremes.hpp"

namespace cubecheck {
namespace {

using isa::DType;
using isa::Memory;
using isa::ProfileId;

template <class T>
std::vector<T> draws(const rc::Gen<T>& gen, int count, std::uint64_t seed) {
  std::vector<T> out;
  for (int i = 0; i < count; ++i) out.push_back(gen(rc::Random(seed + i), i % 101).value());
  return out;
}

/// The largest m, n and k among the cases are the largest that fit on the profile.
void expectLargestShapes(ProfileId id, const std::vector<gen::MmadCase>& cases) {
  std::uint16_t m = 0, n = 0, k = 0;
  for (const gen::MmadCase& c : cases) {
    m = std::max(m, c.m);
    n = std::max(n, c.n);
    k = std::max(k, c.k);
  }
  EXPECT_EQ(m, gen::mmadLargest(id, 'm'));
  EXPECT_EQ(n, gen::mmadLargest(id, 'n'));
  EXPECT_EQ(k, gen::mmadLargest(id, 'k'));
}

TEST(SizeClasses, PowersOfTwoClippedToTheLargestValue) {
  EXPECT_EQ(gen::sizeClassOf(1, 2048), "1");
  EXPECT_EQ(gen::sizeClassOf(3, 2048), "2-3");
  EXPECT_EQ(gen::sizeClassOf(1500, 2048), "1024-2047");
  EXPECT_EQ(gen::sizeClassOf(2048, 2048), "2048");  // the largest value is a class of its own
  EXPECT_EQ(gen::sizeClassOf(3000, 4095), "2048-4095");
  // 1, 2, 4, ..., 2048: twelve classes.
  EXPECT_EQ(gen::sizeBins("m", 2048).size(), 12u);
  EXPECT_EQ(gen::sizeBins("m", 2048).back(), "m:2048");
  EXPECT_EQ(gen::parseSizes("large"), gen::Sizes::Large);
  EXPECT_FALSE(gen::parseSizes("huge").has_value());
}

TEST(MmadLargest, FromTheBufferCapacitiesByHand) {
  // a2: L0A and L0B 64 KiB = 128 fractals of 512 bytes, L0C 128 KiB = 128 fractals of 1024.
  // m: A holds ceil16(m) / 16 fractal rows of one K fractal: 128 * 16 = 2048 (C agrees).
  // n: B holds one K fractal row of ceil16(n) / 16 fractals: 2048. k: 128 K fractals of K0
  // elements: s8 (K0 32) 4096, capped at the field's 4095; f16 (K0 16) 2048; f32 (K0 8) 1024.
  EXPECT_EQ(gen::mmadLargest(ProfileId::A2, 'm'), 2048);
  EXPECT_EQ(gen::mmadLargest(ProfileId::A2, 'n'), 2048);
  EXPECT_EQ(gen::mmadLargest(ProfileId::A2, 'k'), 4095);
  EXPECT_EQ(gen::mmadLargest(ProfileId::A2, DType::F16, 'k'), 2048);
  EXPECT_EQ(gen::mmadLargest(ProfileId::A2, DType::F32, 'k'), 1024);
  EXPECT_EQ(gen::mmadLargest(ProfileId::A2, DType::S4, 'k'), 4094);  // even, below 4095
  // 950: L0C is 256 KiB, but L0A (64 KiB) still stops m at 2048.
  EXPECT_EQ(gen::mmadLargest(ProfileId::Ascend950, 'm'), 2048);
}

TEST(LegalMmad, EveryDrawIsLegalAndTheLargestShapesAreDrawn) {
  for (ProfileId id : {ProfileId::A2, ProfileId::Ascend950}) {
    const std::vector<gen::MmadCase> cases =
        draws(gen::legalMmad(id, gen::MmadValues::Exact, gen::Sizes::Large), 1500, 7);
    for (const gen::MmadCase& c : cases) {
      for (const isa::Instruction& ins : gen::buildProgram(c).instructions) {
        ASSERT_FALSE(isa::validate(isa::profile(id), ins).has_value()) << c;
      }
    }
    expectLargestShapes(id, cases);
  }
}

TEST(LegalMmad, SmallSizesStayInTheSmallClasses) {
  for (const gen::MmadCase& c :
       draws(gen::legalMmad(ProfileId::A2, gen::MmadValues::Exact, gen::Sizes::Small), 500, 3)) {
    EXPECT_LE(c.m, 255) << c;  // classes up to 128-255
    EXPECT_LE(c.n, 255) << c;
    EXPECT_LE(c.k, 511) << c;  // classes up to 256-511
  }
}

TEST(MmadBoundaries, HoldTheLargestShapeOfEachKind) {
  for (ProfileId id : {ProfileId::A2, ProfileId::Ascend950}) {
    expectLargestShapes(id, gen::mmadBoundaries(id));
  }
}

TEST(IllegalMmad, EverySegmentStaysInsideItsMemory) {
  // The class of the bias overflow (an address drawn before a zero n was raised to 16): every
  // image the program writes lies inside its memory, whatever was adjusted after the draw.
  for (ProfileId id : {ProfileId::A2, ProfileId::Ascend950}) {
    const isa::Profile& prof = isa::profile(id);
    for (const gen::IllegalMmadCase& ic : draws(gen::illegalMmad(id), 3000, 11)) {
      const gen::MmadCase& c = ic.c;
      if (c.init == isa::MmadInit::BiasTensor) {
        EXPECT_LE(c.biasAddr + 4ull * c.n, prof.capacityOf(Memory::BiasTable)) << ic;
      }
      for (const isa::Segment& s : gen::buildProgram(c).segments) {
        EXPECT_LE(s.addr + s.bytes.size(), prof.capacityOf(s.memory)) << ic;
      }
    }
  }
}

TEST(PipelineDraws, ReachBeyond256AndStayLegal) {
  std::uint16_t m = 0, n = 0;
  for (const gen::PipelineCase& c :
       draws(gen::legalPipeline(ProfileId::A2, gen::Sizes::Large), 600, 5)) {
    const isa::Program p = gen::buildProgram(c);
    for (const isa::Instruction& ins : p.instructions) {
      ASSERT_FALSE(isa::validate(isa::profile(ProfileId::A2), ins).has_value()) << c;
    }
    m = std::max(m, c.m);
    n = std::max(n, c.n);
  }
  EXPECT_GT(m, 256);
  EXPECT_GT(n, 256);
}

std::uint32_t bitsOf(float f) {
  std::uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

TEST(SpecialValues, SaturationModeByHand) {
  // Rows 0-5 of MmadValues::Special (generators/mmad.hpp), B(0, j) = B(1, j) = j % 2:
  // row 0 subnormal inputs -> {0, the smallest normal}: FLT_MIN (bf16, f32), 2^-14 (f16);
  // row 1 +inf x {0, 1} -> {0, +FLT_MAX}; row 2 +inf - inf -> 0;
  // row 3 -inf x {0, 1} -> {0, -FLT_MAX}; row 4 -0 products beside +0 -> +0; row 5 (bf16, f32)
  // 2^-70 * 2^-60 = 2^-130 = 2^19 * 2^-149: the subnormal with bit pattern 0x00080000.
  for (DType t : {DType::F16, DType::BF16, DType::F32}) {
    gen::MmadCase c;
    c.dtype = t;
    c.m = 8;
    c.k = 24;
    c.n = 4;
    c.values = gen::MmadValues::Special;
    c.contentSeed = 5;
    const gen::MmadOperands o = gen::operandsOf(c);
    const oracle::ElemMatrix got = gen::expectedC(c, o);
    for (Eigen::Index j = 0; j < c.n; ++j) {
      const bool one = j % 2 == 1;
      const float smallestNormal = t == DType::F16 ? 0x1p-14f : FLT_MIN;
      EXPECT_EQ(got(0, j), one ? bitsOf(smallestNormal) : 0u) << j;
      EXPECT_EQ(got(1, j), one ? bitsOf(FLT_MAX) : 0u) << j;
      EXPECT_EQ(got(2, j), 0u) << j;
      EXPECT_EQ(got(3, j), one ? bitsOf(-FLT_MAX) : 0u) << j;
      EXPECT_EQ(got(4, j), 0u) << j;  // +0, never -0 (0x80000000)
      EXPECT_EQ(got(5, j), t == DType::F16 ? 0u : 0x00080000u) << j;
    }
    const std::vector<std::string> tags = gen::tagsOf(c);
    for (const char* want : {"special:subnormal_input", "special:inf_times_zero",
                             "special:inf_minus_inf", "special:inf", "special:signed_zero"}) {
      EXPECT_NE(std::find(tags.begin(), tags.end(), want), tags.end()) << want;
    }
    EXPECT_EQ(std::find(tags.begin(), tags.end(), "special:smallest_normal") != tags.end(),
              t != DType::F16);
    // No NaN input anywhere: conformance never draws one (spec 8: it may raise an error).
    for (Eigen::Index i = 0; i < o.a.size(); ++i) EXPECT_FALSE(std::isnan(o.a(i))) << i;
    for (Eigen::Index i = 0; i < o.b.size(); ++i) EXPECT_FALSE(std::isnan(o.b(i))) << i;
  }
}

// A pad of 255 or a stride of 63 comes up in random draws too rarely for a DUT wrong only there
// to be found at every seed: the boundary table, which every certify run runs whole, holds each
// at the legal maximum its field descriptor gives.
TEST(Load3DBoundaries, HoldEachPadAndStrideAtItsLegalMaximum) {
  const isa::InstructionDesc* desc = isa::findInstructionDesc(isa::Load3DV2::kOpcode);
  ASSERT_NE(desc, nullptr);
  for (isa::ProfileId id : {isa::ProfileId::A2, isa::ProfileId::Ascend950}) {
    const std::vector<gen::Load3DCase> table = gen::load3DBoundaries(id);
    for (const char* name :
         {"pad_left", "pad_right", "pad_top", "pad_bottom", "stride_w", "stride_h"}) {
      const isa::FieldDesc* field = isa::findField(*desc, name);
      ASSERT_NE(field, nullptr) << name;
      const bool held = std::any_of(table.begin(), table.end(), [&](const gen::Load3DCase& c) {
        return field->get(isa::Instruction(c.load)) == field->legalMax;
      });
      EXPECT_TRUE(held) << name << " = " << field->legalMax << " on " << isa::profile(id).name;
    }
  }
}

/// Whether an img2col load does nothing (spec 6.1): a zero extent, map side, channel count or
/// kernel side without its size bit.
bool doesNothing(const isa::LoadData3DParamsV2& p) {
  return p.l1H == 0 || p.l1W == 0 || p.channelSize == 0 || p.kExtension == 0 || p.mExtension == 0 ||
         (p.filterH == 0 && !p.filterSizeH) || (p.filterW == 0 && !p.filterSizeW);
}

/// The largest value of `field` that a V2 load selecting one row (or one column) of X, `other`,
/// can hold and still fit its destination, over every path, type and transpose isa::validate
/// accepts. The map is left empty (l1_h 0): only the destination bounds the field, and a larger
/// value never takes fewer fractals, so the largest legal value is found by bisection
/// (testing::extremeLegal).
std::int64_t largestDestinationFit(ProfileId id, const isa::FieldDesc& field,
                                   std::string_view other) {
  const isa::InstructionDesc& desc = *isa::findInstructionDesc(isa::Load3DV2::kOpcode);
  std::int64_t best = -1;
  for (isa::Load2DPath path : {isa::Load2DPath::A1toA2, isa::Load2DPath::B1toB2}) {
    for (DType t : gen::load3dDTypes(path)) {
      for (bool transpose : {false, true}) {
        isa::Load3DV2 l;
        l.path = path;
        l.dtype = t;
        l.params.enTranspose = transpose;
        isa::Instruction i(l);
        isa::findField(desc, other)->set(i, 1);
        field.set(i, 1);
        // an 8- or 4-bit type transposed into L0A
        if (isa::validate(isa::profile(id), i)) continue;
        best = std::max(best, testing::extremeLegal(isa::profile(id), i, field, true));
      }
    }
  }
  return best;
}

// The extents and starts of X are 16 bits wide, but a load that does something holds them only
// up to what its destination, the certified channel sizes (multiples of C0, spec 6.1) and the
// C0 grid of k_start_pt allow. The table holds each there in a load that does something, and
// also at the field's legal maximum in a load that a zero elsewhere makes a no-op.
TEST(Load3DBoundaries, HoldEachExtentAndStartAtTheLargestALoadCanUse) {
  const isa::InstructionDesc* desc = isa::findInstructionDesc(isa::Load3DV2::kOpcode);
  ASSERT_NE(desc, nullptr);
  for (ProfileId id : {ProfileId::A2, ProfileId::Ascend950}) {
    const std::vector<gen::Load3DCase> table = gen::load3DBoundaries(id);
    std::int64_t c0Grid = 0;  // the largest 16-bit value on the finest C0 grid
    for (isa::Load2DPath path : {isa::Load2DPath::A1toA2, isa::Load2DPath::B1toB2}) {
      for (DType t : gen::load3dDTypes(path)) {
        const std::int64_t c0 = isa::c0Of(t);
        c0Grid = std::max(c0Grid, isa::findField(*desc, "k_start_pt")->legalMax / c0 * c0);
      }
    }
    struct Want {
      const char* field;
      std::int64_t largest;
    };
    const Want wants[] = {
        {"k_start_pt", c0Grid},
        {"channel_size", c0Grid},
        {"m_start_pt", isa::findField(*desc, "m_start_pt")->legalMax},
        {"k_extension",
         largestDestinationFit(id, *isa::findField(*desc, "k_extension"), "m_extension")},
        {"m_extension",
         largestDestinationFit(id, *isa::findField(*desc, "m_extension"), "k_extension")},
    };
    for (const Want& w : wants) {
      const isa::FieldDesc& field = *isa::findField(*desc, w.field);
      ASSERT_GT(w.largest, 0) << w.field;
      auto held = [&](std::int64_t v, bool noOp) {
        return std::any_of(table.begin(), table.end(), [&](const gen::Load3DCase& c) {
          return field.get(isa::Instruction(c.load)) == v && doesNothing(c.load.params) == noOp;
        });
      };
      EXPECT_TRUE(held(w.largest, false))
          << w.field << " = " << w.largest << " on " << isa::profile(id).name;
      // k_start_pt off the C0 grid is illegal even in a no-op.
      if (w.largest < field.legalMax && std::string_view(w.field) != "k_start_pt") {
        EXPECT_TRUE(held(field.legalMax, true))
            << w.field << " = " << field.legalMax << " in a no-op on " << isa::profile(id).name;
      }
    }
  }
}

// V2Pro has no l1, pad or pad value fields of its own and packs its geometry in words (spec
// 6.3): the V2Pro programs of the table hold them in the V2 load that sets the registers for it
// and in SetLoadDataPaddingValue. Those must reach the fields' extremes as the V2 programs do.
TEST(Load3DBoundaries, V2ProProgramsHoldTheRegisterFieldsAtTheirExtremes) {
  const isa::InstructionDesc& v2 = *isa::findInstructionDesc(isa::Load3DV2::kOpcode);
  const isa::InstructionDesc& pad = *isa::findInstructionDesc(isa::SetPadding::kOpcode);
  const isa::InstructionDesc& pro = *isa::findInstructionDesc(isa::Load3DV2Pro::kOpcode);
  for (ProfileId id : {ProfileId::A2, ProfileId::Ascend950}) {
    for (bool asV2Pro : {false, true}) {
      std::vector<isa::Instruction> legal;
      for (const gen::Load3DCase& c : gen::load3DBoundaries(id)) {
        for (const isa::Instruction& i : gen::buildProgram(c, asV2Pro).instructions) {
          if (!isa::validate(isa::profile(id), i)) legal.push_back(i);
        }
      }
      auto expectHeld = [&](const isa::InstructionDesc& d, std::string_view name, bool atMax) {
        const isa::FieldDesc& f = *isa::findField(d, name);
        const std::int64_t v = atMax ? f.legalMax : f.legalMin;
        EXPECT_TRUE(std::any_of(legal.begin(), legal.end(),
                                [&](const isa::Instruction& i) {
                                  return isa::descOf(i).opcode == d.opcode && f.get(i) == v;
                                }))
            << d.opcode << "." << name << " = " << v << " on " << isa::profile(id).name
            << (asV2Pro ? " as V2Pro" : " as V2");
      };
      for (const char* name : {"pad_left", "pad_right", "pad_top", "pad_bottom", "stride_w",
                               "stride_h", "m_start_pt"}) {
        expectHeld(v2, name, true);
      }
      expectHeld(v2, "l1_h", false);
      expectHeld(pad, "value", false);
      expectHeld(pad, "value", true);
      if (asV2Pro) {
        expectHeld(pro, "channel_size", true);
      } else {
        expectHeld(v2, "pad_value", true);
      }
    }
  }
}

// Every checked field of a V1 load at its legal minimum and at the largest value a legal load
// can hold: the field's own range, narrowed by L1 (a C1 slice of a one-pixel-wide map takes 32
// bytes a pixel), by L0A (a fractal a repeat) and by the widest V1 element for the pad value.
// c_size 1 is OPEN-11, NotSupported: c_size stays 0.
TEST(Load3DBoundaries, V1HoldsEachFieldAtItsLegalExtremes) {
  const isa::InstructionDesc& desc = *isa::findInstructionDesc(isa::Load3DV1::kOpcode);
  const isa::Profile& prof = isa::profile(ProfileId::Legacy);
  const std::vector<gen::Load3DV1Case> table = gen::load3DV1Boundaries();
  std::int64_t widestPad = 0;
  for (DType t : isa::kAllDTypes) {
    isa::Load3DV1 l;
    l.dtype = t;
    l.params.padValue = isa::bitsOf(t) < 32 ? (1u << isa::bitsOf(t)) - 1 : 0xFFFFFFFFu;
    if (!isa::validate(prof, l)) widestPad = std::max<std::int64_t>(widestPad, l.params.padValue);
  }
  for (const isa::FieldDesc& f : desc.fields) {
    if (f.kind != isa::FieldKind::Int || f.unit == "bytes") continue;
    std::int64_t largest = f.legalMax;
    if (f.name == "l1_h" || f.name == "l1_w") {
      largest = std::min<std::int64_t>(largest, prof.capacityOf(Memory::L1) / 32);
    } else if (f.name == "repeat_time") {
      largest = std::min<std::int64_t>(largest, prof.capacityOf(Memory::L0A) / isa::kFractalBytes);
    } else if (f.name == "pad_value") {
      largest = widestPad;
    } else if (f.name == "c_size") {
      largest = 0;
    }
    for (std::int64_t v : {f.legalMin, largest}) {
      EXPECT_TRUE(std::any_of(
          table.begin(), table.end(),
          [&](const gen::Load3DV1Case& c) { return f.get(isa::Instruction(c.load)) == v; }))
          << f.name << " = " << v;
    }
  }
}

/// The row of `instruction`.`field`; a test failure (and an empty row) when there is none.
conf::ReachRow rowOf(const std::vector<conf::ReachRow>& rows, const std::string& instruction,
                     const std::string& field) {
  const auto it = std::find_if(rows.begin(), rows.end(), [&](const conf::ReachRow& r) {
    return r.instruction == instruction && r.field == field;
  });
  if (it != rows.end()) return *it;
  ADD_FAILURE() << "no reach row for " << instruction << "." << field;
  return {};
}

TEST(Reach, CountsLegalInstructionsOnlyAndFlagsWhatIsMissed) {
  isa::Program p;
  p.profile = ProfileId::A2;
  isa::Mmad x;
  x.m = 5;
  x.k = 16;
  x.n = 16;
  p.instructions.emplace_back(x);
  isa::Mmad illegal = x;
  illegal.m = 5000;  // above 4095: RejectsIllegal's kind of draw, not reach
  p.instructions.emplace_back(illegal);
  conf::Reach reach;
  reach.add(ProfileId::A2, p);
  const std::vector<conf::ReachRow> rows = conf::reachTable(reach, ProfileId::A2);
  auto row = [&](const std::string& field) { return rowOf(rows, "mmad", field); };
  const conf::ReachRow m = row("m");
  EXPECT_EQ(m.drawnMin, 5);
  EXPECT_EQ(m.drawnMax, 5);
  EXPECT_EQ(m.legalMax, 4095);
  EXPECT_EQ(m.fitMax, 2048);
  EXPECT_TRUE(m.flagged());
  EXPECT_FALSE(row("a").checked);  // an address: bounded by its memory, reported only
  const nlohmann::ordered_json j = conf::reachJson(rows);
  ASSERT_FALSE(j.empty());
  for (const char* key :
       {"instruction", "field", "legal_min", "legal_max", "drawn_min", "drawn_max"}) {
    EXPECT_TRUE(j[0].contains(key)) << key;
  }
  // A second shard that drew m up to the largest that fits and down to the legal minimum clears
  // the flag when merged.
  isa::Program other = p;
  isa::Mmad low = x, high = x;
  low.m = static_cast<std::uint16_t>(m.legalMin);
  high.m = static_cast<std::uint16_t>(*m.fitMax);
  other.instructions = {low, high};
  conf::Reach second;
  second.add(ProfileId::A2, other);
  conf::Reach merged = reach;
  merged.merge(second);
  const std::vector<conf::ReachRow> mergedRows = conf::reachTable(merged, ProfileId::A2);
  const auto mergedM = std::find_if(mergedRows.begin(), mergedRows.end(), [](const auto& r) {
    return r.instruction == "mmad" && r.field == "m";
  });
  ASSERT_NE(mergedM, mergedRows.end());
  EXPECT_EQ(mergedM->drawnMin, m.legalMin);
  EXPECT_EQ(mergedM->drawnMax, *m.fitMax);
  EXPECT_FALSE(mergedM->flagged());
  EXPECT_TRUE(row("m").flagged()) << "the first shard's reach is unchanged";
}

// A gap or stride between repeats is tried only by a load that repeats: dst_gap 65535 on a
// one-fractal load (legal because it never applies) does not count as its extreme, and the extreme
// is the largest gap two repeats can use, from the buffers' capacities (found by validate).
TEST(Reach, CountsAFieldOnlyWhereItTakesEffect) {
  const isa::Profile& a2 = isa::profile(ProfileId::A2);
  isa::Program p;
  p.profile = ProfileId::A2;
  isa::Load2D once{isa::Load2DPath::GMtoA1, DType::S8, 0, 0, {}};
  once.params.repeatTimes = 1;
  once.params.dstGap = 65535;
  once.params.srcStride = 65535;
  isa::Load2D twice = once;
  twice.params.repeatTimes = 2;
  twice.params.dstGap = 7;
  twice.params.srcStride = 3;
  p.instructions = {once, twice};
  ASSERT_FALSE(isa::validate(a2, once).has_value());
  ASSERT_FALSE(isa::validate(a2, twice).has_value());
  conf::Reach reach;
  reach.add(ProfileId::A2, p);
  const std::vector<conf::ReachRow> rows = conf::reachTable(reach, ProfileId::A2);
  auto row = [&](const std::string& field) { return rowOf(rows, "load2d", field); };
  EXPECT_EQ(row("dst_gap").drawnMax, 7);
  EXPECT_EQ(row("src_stride").drawnMax, 3);
  EXPECT_EQ(row("repeat_times").drawnMin, 1);  // a count itself always counts
  // Two repeats into L1 at address 0: the second fractal lands gap + 1 fractals on, the last of L1.
  const auto l1Fractals = static_cast<std::int64_t>(a2.capacityOf(Memory::L1) / 512);
  EXPECT_EQ(row("dst_gap").fitMax, l1Fractals - 2);
  EXPECT_TRUE(row("dst_gap").flagged());
  EXPECT_NE(conf::reachCells(row("dst_gap"))[4].find("max " + std::to_string(l1Fractals - 2) +
                                                     " (largest that fits)"),
            std::string::npos)
      << conf::reachCells(row("dst_gap"))[4];
  // From GM, any stride fits: its extreme stays the field's own.
  EXPECT_EQ(row("src_stride").fitMax, 65535);
  twice.params.dstGap = static_cast<std::uint16_t>(l1Fractals - 2);
  ASSERT_FALSE(isa::validate(a2, twice).has_value());
  twice.params.dstGap = static_cast<std::uint16_t>(l1Fractals - 1);
  EXPECT_TRUE(isa::validate(a2, twice).has_value()) << "one more does not fit: the fit is tight";
}

// A GM source is checked against the largest address a legal one-fractal load can read from,
// found through isa::validate: a run that keeps GM sources below 2^33 (where a DUT that drops
// the high address bits is right) is flagged. On-chip addresses stay unchecked.
TEST(Reach, HoldsGmSourcesToTheLastAddressALoadCanReadFrom) {
  const isa::InstructionDesc& load2d = *isa::findInstructionDesc(isa::Load2D::kOpcode);
  const isa::InstructionDesc& v2 = *isa::findInstructionDesc(isa::LoadV2::kOpcode);
  const isa::FieldDesc& src = *isa::findField(load2d, "src");
  for (ProfileId id : {ProfileId::A2, ProfileId::Legacy}) {
    ASSERT_TRUE(conf::isChecked(id, load2d, src)) << isa::profile(id).name;
    const std::optional<std::int64_t> fit = conf::gmAddressFitMax(id, load2d, src);
    ASSERT_TRUE(fit.has_value());
    isa::Load2D one;
    one.path = isa::Load2DPath::GMtoB2;
    one.params.repeatTimes = 1;
    one.srcAddr = static_cast<std::uint64_t>(*fit);
    EXPECT_FALSE(isa::validate(isa::profile(id), one).has_value());
    one.srcAddr += 1;
    EXPECT_TRUE(isa::validate(isa::profile(id), one).has_value()) << "one past the fit";
    EXPECT_FALSE(conf::isChecked(id, load2d, *isa::findField(load2d, "dst")));
  }
  EXPECT_FALSE(conf::isChecked(ProfileId::Ascend950, load2d, src)) << "no GM path on 950";
  const isa::FieldDesc& v2src = *isa::findField(v2, "src");
  ASSERT_TRUE(conf::isChecked(ProfileId::Ascend950, v2, v2src));
  EXPECT_EQ(conf::gmAddressFitMax(ProfileId::Ascend950, v2, v2src),
            conf::gmAddressFitMax(ProfileId::A2, load2d, src))
      << "one fractal from GM either way";
  const isa::InstructionDesc& mmad = *isa::findInstructionDesc(isa::Mmad::kOpcode);
  EXPECT_FALSE(conf::isChecked(ProfileId::A2, mmad, *isa::findField(mmad, "bias")));

  // GM sources drawn as they were: 0, a few bytes in, just past 4 GiB.
  conf::Reach reach;
  for (std::uint64_t a : {std::uint64_t{0}, std::uint64_t{4095}, (std::uint64_t{1} << 32) | 4095}) {
    isa::Program p;
    p.profile = ProfileId::A2;
    isa::Load2D l;
    l.path = isa::Load2DPath::GMtoA1;
    l.srcAddr = a;
    l.params.repeatTimes = 1;
    p.instructions.emplace_back(l);
    reach.add(ProfileId::A2, p);
  }
  auto srcRow = [&] {
    for (const conf::ReachRow& row : conf::reachTable(reach, ProfileId::A2)) {
      if (row.instruction == "load2d" && row.field == "src") return row;
    }
    throw std::logic_error("no src row");
  };
  const std::int64_t fit = *conf::gmAddressFitMax(ProfileId::A2, load2d, src);
  EXPECT_TRUE(srcRow().checked);
  EXPECT_EQ(srcRow().target(), fit);
  EXPECT_TRUE(srcRow().flagged());
  EXPECT_NE(conf::reachCells(srcRow())[4].find("MISSED max " + std::to_string(fit)),
            std::string::npos)
      << conf::reachCells(srcRow())[4];
  isa::Program top;
  top.profile = ProfileId::A2;
  isa::Load2D l;
  l.path = isa::Load2DPath::GMtoA2;
  l.srcAddr = static_cast<std::uint64_t>(fit);
  l.params.repeatTimes = 1;
  top.instructions.emplace_back(l);
  reach.add(ProfileId::A2, top);
  EXPECT_FALSE(srcRow().flagged()) << conf::reachCells(srcRow())[4];
}

TEST(Reach, FlagsAValueBeyondTheLegalRangeOfAnyField) {
  isa::Program p;
  p.profile = ProfileId::A2;
  isa::Mmad x;
  x.m = x.k = x.n = 16;
  x.biasAddr = isa::profile(ProfileId::A2).capacityOf(Memory::BiasTable);
  p.instructions.emplace_back(x);
  conf::Reach reach;
  conf::Reach::Drawn huge{-1, -1, 1};  // a 64-bit address above 2^63, as an int64
  reach.add(ProfileId::A2, p);
  const std::vector<isa::InstructionDesc>& descs = isa::instructionDescs();
  const isa::InstructionDesc& mmad = *isa::findInstructionDesc("mmad");
  const isa::FieldDesc* bias = isa::findField(mmad, "bias");
  ASSERT_NE(bias, nullptr);
  auto biasRow = [&](const conf::Reach& r) {
    for (const conf::ReachRow& row : conf::reachTable(r, ProfileId::A2)) {
      if (row.instruction == "mmad" && row.field == "bias") return row;
    }
    throw std::logic_error("no bias row");
  };
  EXPECT_FALSE(biasRow(reach).checked);  // an address: its extremes are not held
  EXPECT_FALSE(biasRow(reach).flagged()) << "inside 0..2^48-1";
  reach.widen(static_cast<std::size_t>(&mmad - descs.data()),
              static_cast<std::size_t>(bias - mmad.fields.data()), huge);
  const conf::ReachRow row = biasRow(reach);
  EXPECT_TRUE(row.beyond());
  EXPECT_TRUE(row.flagged()) << "beyond the legal range, checked or not";
  EXPECT_NE(conf::reachCells(row).back().find("BEYOND min 0"), std::string::npos)
      << conf::reachCells(row).back();
}

// A program holding a value its field's text cannot carry is never handed on: not to the DUT,
// not written as text. The run stops on cubecheck's own defect, naming the field.
TEST(Reach, AProgramWithAFieldOutsideItsTextRangeIsNotRun) {
  isa::Program p;
  p.profile = ProfileId::Ascend950;
  isa::Mmad x;
  x.m = x.k = x.n = 16;
  x.biasAddr = ~std::uint64_t{0} - 64 * 5;  // what capacity - 4n wrapped below zero gave
  p.instructions.emplace_back(x);
  const std::optional<std::string> why = isa::outsideTextRange(p);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("mmad.bias"), std::string::npos) << *why;
  EXPECT_THROW((void)isa::toText(p.instructions[0]), std::logic_error);
  auto ref = dut::makeDut("reference");
  conf::Reach reach;
  conf::ReachRecorder recorder(*ref, reach, ProfileId::Ascend950);
  try {
    (void)recorder.run(p);
    ADD_FAILURE() << "the program was run";
  } catch (const std::logic_error& e) {
    EXPECT_NE(std::string(e.what()).find("mmad.bias"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(reach.empty());
  x.biasAddr = 0;
  p.instructions[0] = x;
  EXPECT_EQ(isa::outsideTextRange(p), std::nullopt);
  EXPECT_NO_THROW((void)recorder.run(p));
  EXPECT_FALSE(reach.empty()) << "in range: measured and handed on";
}

// A family that keeps a field short of an extreme is not a gap of the run when another family
// holds it there, and says which; when no family does, the whole run missed it.
TEST(Reach, AFieldAnotherFamilyHoldsAtItsExtremeIsNotAGapOfTheRun) {
  isa::Program narrow;
  narrow.profile = ProfileId::A2;
  isa::Mmad x;
  x.m = x.k = x.n = 16;
  narrow.instructions.emplace_back(x);  // unit_flag 0 only
  isa::Program wide = narrow;
  x.unitFlag = 3;
  wide.instructions.emplace_back(x);
  conf::Reach pipeline, mmad, other;
  pipeline.add(ProfileId::A2, narrow);
  mmad.add(ProfileId::A2, wide);
  other.add(ProfileId::A2, narrow);
  const auto unitFlag = [](const std::vector<conf::ReachRow>& rows) {
    return *std::find_if(rows.begin(), rows.end(),
                         [](const conf::ReachRow& r) { return r.field == "unit_flag"; });
  };
  std::vector<std::pair<std::string, std::vector<conf::ReachRow>>> run{
      {"pipeline", conf::reachTable(pipeline, ProfileId::A2)},
      {"mmad", conf::reachTable(mmad, ProfileId::A2)},
      {"other", conf::reachTable(other, ProfileId::A2)}};
  std::vector<conf::ReachRow> rows = run[0].second;
  conf::noteOtherFamilies(rows, "pipeline", run);
  const conf::ReachRow held = unitFlag(rows);
  EXPECT_TRUE(held.flagged()) << "the pipeline itself never drew it";
  EXPECT_FALSE(held.runGap());
  EXPECT_EQ(held.heldElsewhere, std::vector<std::string>{"mmad"});
  EXPECT_NE(conf::reachCells(held).back().find("here; held by mmad"), std::string::npos)
      << conf::reachCells(held).back();

  run.erase(run.begin() + 1);  // without the mmad family, nobody holds unit_flag at 3
  rows = run[0].second;
  conf::noteOtherFamilies(rows, "pipeline", run);
  EXPECT_TRUE(unitFlag(rows).runGap());
  EXPECT_TRUE(unitFlag(rows).heldElsewhere.empty());
  std::ostringstream terminal;
  conf::reachFlags(terminal, "pipeline", rows);
  EXPECT_NE(terminal.str().find("mmad.unit_flag"), std::string::npos) << terminal.str();
}

// Red team r11 F4: fp8 Mmads never ran with unit_flag 3, and the row read "held by mmad"
// because f16 Mmads of another family did. An extreme held in other operand types checks
// nothing of these types' datapath: only a family that held it in every type the row drew
// makes up for it, and the row names the one that held it in other types only.
TEST(Reach, AnExtremeHeldInOtherOperandTypesOnlyIsAGapOfTheRun) {
  const auto program = [](DType t, std::initializer_list<std::uint8_t> flags) {
    isa::Program p;
    p.profile = ProfileId::Ascend950;
    for (std::uint8_t f : flags) {
      isa::Mmad x;
      x.dtype = t;
      x.m = x.n = 16;
      x.k = 64;
      x.unitFlag = f;
      p.instructions.emplace_back(x);
    }
    return p;
  };
  conf::Reach lowprec, mmad, both;
  lowprec.add(ProfileId::Ascend950, program(DType::Fp8E4M3FN, {0}));
  lowprec.add(ProfileId::Ascend950, program(DType::F16, {0}));
  mmad.add(ProfileId::Ascend950, program(DType::F16, {0, 3}));
  both.add(ProfileId::Ascend950, program(DType::Fp8E4M3FN, {3}));
  const auto unitFlag = [](const std::vector<conf::ReachRow>& rows) {
    return *std::find_if(rows.begin(), rows.end(),
                         [](const conf::ReachRow& r) { return r.field == "unit_flag"; });
  };
  std::vector<std::pair<std::string, std::vector<conf::ReachRow>>> run{
      {"mmad_lowprec", conf::reachTable(lowprec, ProfileId::Ascend950)},
      {"mmad", conf::reachTable(mmad, ProfileId::Ascend950)}};
  std::vector<conf::ReachRow> rows = run[0].second;
  ASSERT_EQ(unitFlag(rows).byTypes.size(), 2u) << "one entry per operand types drawn";
  conf::noteOtherFamilies(rows, "mmad_lowprec", run);
  const conf::ReachRow gap = unitFlag(rows);
  EXPECT_TRUE(gap.runGap()) << "f16 holds 3, fp8 does not";
  EXPECT_TRUE(gap.heldElsewhere.empty());
  EXPECT_EQ(gap.heldInOtherTypes, std::vector<std::string>{"mmad"});
  EXPECT_EQ(gap.typesNotHeld, std::vector<std::string>{"dtype=fp8_e4m3fn b_dtype=fp8_e4m3fn"});
  EXPECT_NE(conf::reachCells(gap).back().find(
                "mmad held it, but no family did with dtype=fp8_e4m3fn b_dtype=fp8_e4m3fn"),
            std::string::npos)
      << conf::reachCells(gap).back();

  // A family that holds it in fp8 too makes up for it, together with mmad's f16.
  run.emplace_back("pipeline", conf::reachTable(both, ProfileId::Ascend950));
  rows = run[0].second;
  conf::noteOtherFamilies(rows, "mmad_lowprec", run);
  EXPECT_FALSE(unitFlag(rows).runGap());
  EXPECT_EQ(unitFlag(rows).heldElsewhere, (std::vector<std::string>{"mmad", "pipeline"}));

  // The per-type ranges go into report.json and come back from it (merge-reports).
  const nlohmann::ordered_json j = conf::reachJson(run[0].second);
  const auto row =
      std::find_if(j.begin(), j.end(), [](const auto& r) { return r["field"] == "unit_flag"; });
  ASSERT_NE(row, j.end());
  EXPECT_EQ((*row)["by_types"].size(), 2u) << row->dump();
}

// A merge reads the per-type ranges back, and refuses a report whose per-type rows were edited
// so as to be credited by field again: by_types dropped, or adding up to less than the row.
TEST(Reach, AReportsPerTypeRangesAreReadBackAndCannotBeDropped) {
  auto dut = dut::makeDut("reference");
  conf::RunOptions o;
  o.profile = ProfileId::Ascend950;
  o.level = conf::Level::Smoke;
  o.seed = 3;
  o.families = {"mmad_lowprec"};
  const conf::CertifyResult r = conf::certify(*dut, o);
  const std::string text = conf::toJson(r);
  const auto rows = [](const conf::CertifyResult& x) {
    return conf::reachTable(x.families.at(0).reach, ProfileId::Ascend950);
  };
  const auto unitFlag = [](const std::vector<conf::ReachRow>& v) {
    return *std::find_if(v.begin(), v.end(), [](const conf::ReachRow& w) {
      return w.instruction == "mmad" && w.field == "unit_flag";
    });
  };
  const conf::ReachRow drawn = unitFlag(rows(r));
  EXPECT_GE(drawn.byTypes.size(), 5u) << "every low-precision pair";
  EXPECT_EQ(unitFlag(rows(conf::fromJson(text, "report.json"))).byTypes, drawn.byTypes);

  nlohmann::json j = nlohmann::json::parse(text);
  nlohmann::json dropped = j, partial = j;
  for (auto* edit : {&dropped, &partial}) {
    for (auto& x : (*edit)["families"][0]["reach"]) {
      if (x["instruction"] != "mmad" || x["field"] != "unit_flag") continue;
      if (edit == &dropped) {
        x.erase("by_types");
      } else {
        // One type that drew 0 only, under a row of 0..3: the rest of the range is in no type.
        nlohmann::json low = x["by_types"][0];
        low["drawn_min"] = 0;
        low["drawn_max"] = 0;
        x["by_types"] = nlohmann::json::array({low});
        x["drawn_min"] = 0;
        x["drawn_max"] = 3;
      }
    }
    try {
      conf::fromJson(edit->dump(), "shard.json");
      ADD_FAILURE() << (edit == &dropped ? "by_types dropped" : "by_types short of the row");
    } catch (const conf::MergeError& e) {
      EXPECT_NE(std::string(e.what()).find("by_types"), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(conf::fromJson(j.dump(), "shard.json")) << "the edits alone are refused";
}

/// The reference's capabilities narrowed by the `limit` clauses given.
dut::Capabilities limitedTo(std::initializer_list<const char*> clauses) {
  dut::Capabilities caps = dut::makeDut("reference")->capabilities();
  for (const char* clause : clauses) {
    std::string error;
    const std::optional<dut::FieldLimit> l = dut::parseFieldLimit(clause, error);
    if (!l) throw std::invalid_argument(error);
    caps.limits.push_back(*l);
  }
  return caps;
}

/// The reach of Mmads of type `t` with m and n 16 and each k given, on a2.
conf::Reach mmadKs(DType t, std::initializer_list<std::uint16_t> ks) {
  isa::Program p;
  p.profile = ProfileId::A2;
  for (std::uint16_t k : ks) {
    isa::Mmad x;
    x.dtype = t;
    x.m = x.n = 16;
    x.k = k;
    p.instructions.emplace_back(x);
  }
  conf::Reach reach;
  reach.add(ProfileId::A2, p);
  return reach;
}

// New user (L5): an Mmad limited to f16 is held to the largest f16 k that fits L0A (2048, what
// gen::mmadLargest gives), not s8's 4095; the row says the legal extreme went unchecked. A limit
// that cannot explain the miss leaves it flagged: the envelope's own extreme not drawn, a limit
// on something else, or one no legal value of the field passes.
TEST(Reach, ADeclaredEnvelopeNarrowsTheTargetAndCannotExplainAMiss) {
  const dut::Capabilities f16 = limitedTo({"mmad dtype in f16"});
  const auto k = [](const conf::Reach& reach, const dut::Capabilities* caps) {
    return rowOf(conf::reachTable(reach, ProfileId::A2, caps), "mmad", "k");
  };
  const conf::Reach full = mmadKs(DType::F16, {0, 2048});
  EXPECT_EQ(gen::mmadLargest(ProfileId::A2, DType::F16, 'k'), 2048);

  const conf::ReachRow reached = k(full, &f16);
  EXPECT_EQ(reached.fitMax, 4095) << "the legal target is kept";
  EXPECT_EQ(reached.envelopeMax, 2048);
  EXPECT_EQ(reached.envelopeMin, std::nullopt);
  EXPECT_FALSE(reached.flagged());
  EXPECT_EQ(conf::reachCells(reached)[4],
            "reached the declared envelope's max 2048 (legal max 4095: outside the DUT's declared "
            "limits, not checked)");
  const nlohmann::ordered_json j = conf::reachJson({reached});
  EXPECT_EQ(j[0]["envelope_max"], 2048);
  EXPECT_EQ(j[0]["fit_max"], 4095);
  EXPECT_FALSE(j[0].contains("envelope_min"));
  EXPECT_FALSE(j[0]["flagged"].get<bool>());

  // Without an envelope, or one not declared (recorded results), the legal target stands.
  EXPECT_TRUE(k(full, nullptr).flagged());
  dut::Capabilities undeclared = f16;
  undeclared.notDeclared = "results of a board run (FILE) declare none";
  EXPECT_TRUE(k(full, &undeclared).flagged());
  EXPECT_FALSE(k(full, &undeclared).narrowed());

  // The envelope's own extreme not drawn: still MISSED, and says which.
  const conf::ReachRow half = k(mmadKs(DType::F16, {0, 1024}), &f16);
  EXPECT_TRUE(half.flagged());
  EXPECT_TRUE(half.runGap());
  EXPECT_EQ(conf::reachCells(half)[4],
            "MISSED the declared envelope's max 2048 (legal max 4095: outside the DUT's declared "
            "limits, not checked)");

  // A limit on another instruction, or another field that leaves k's types alone, explains
  // nothing.
  for (const char* other : {"load2d repeat_times <= 100", "mmad m <= 100"}) {
    const dut::Capabilities caps = limitedTo({other});
    const conf::ReachRow row = k(full, &caps);
    EXPECT_FALSE(row.narrowed()) << other;
    EXPECT_TRUE(row.flagged()) << other;
    EXPECT_EQ(conf::reachCells(row)[4], "MISSED max 4095 (largest that fits)") << other;
  }
  // A limit no legal f16 k passes (none fits past 2048): the envelope holds no legal Mmad, so
  // it cannot have kept the run from anything.
  const dut::Capabilities none = limitedTo({"mmad dtype in f16", "mmad k >= 3000"});
  EXPECT_FALSE(k(full, &none).narrowed());
  EXPECT_TRUE(k(full, &none).flagged());

  // The data types the DUT declares narrow it as a dtype limit does.
  dut::Capabilities f32Only = dut::makeDut("reference")->capabilities();
  f32Only.dtypes = {DType::F32};
  const conf::ReachRow f32 = k(mmadKs(DType::F32, {0, 1024}), &f32Only);
  EXPECT_EQ(f32.envelopeMax, 1024);
  EXPECT_FALSE(f32.flagged());
}

// Limits on the field itself narrow both ends: the nearest value each admits, and a multiple.
TEST(Reach, AFieldsOwnLimitsNarrowBothExtremes) {
  const dut::Capabilities window = limitedTo({"mmad k in 16..1000", "mmad k % 32"});
  const conf::ReachRow k =
      rowOf(conf::reachTable(mmadKs(DType::S8, {32, 992}), ProfileId::A2, &window), "mmad", "k");
  EXPECT_EQ(k.envelopeMin, 32);
  EXPECT_EQ(k.envelopeMax, 992);
  EXPECT_FALSE(k.flagged());
  EXPECT_EQ(conf::reachCells(k)[4],
            "reached the declared envelope's min 32 and max 992 (legal min 0 and max 4095: "
            "outside the DUT's declared limits, not checked)");
  const dut::Capabilities listed = limitedTo({"mmad k in 64 512 8000"});
  const conf::ReachRow low =
      rowOf(conf::reachTable(mmadKs(DType::S8, {512}), ProfileId::A2, &listed), "mmad", "k");
  EXPECT_EQ(low.envelopeMin, 64);
  EXPECT_EQ(low.envelopeMax, 512) << "8000 is no legal k";
  EXPECT_EQ(conf::reachCells(low)[4],
            "MISSED the declared envelope's min 64 (legal min 0 and max 4095: outside the DUT's "
            "declared limits, not checked)");
}

// Paths narrow a buffer fit: a DUT of L1->L0A loads only fills 64 KiB of L0A, 128 repeats,
// where GM->L1 takes 255; its other fields keep the fits of the paths it declares.
TEST(Reach, DeclaredPathsNarrowACountsFit) {
  isa::Program p;
  p.profile = ProfileId::A2;
  isa::Load2D l{isa::Load2DPath::A1toA2, DType::F16, 0, 0, {}};
  l.params.repeatTimes = 128;
  p.instructions.emplace_back(l);
  conf::Reach reach;
  reach.add(ProfileId::A2, p);
  ASSERT_FALSE(isa::validate(isa::profile(ProfileId::A2), l).has_value());
  const dut::Capabilities l0a = limitedTo({"load2d path in A1toA2"});
  const std::vector<conf::ReachRow> rows = conf::reachTable(reach, ProfileId::A2, &l0a);
  const conf::ReachRow repeats = rowOf(rows, "load2d", "repeat_times");
  EXPECT_EQ(repeats.fitMax, 255);
  EXPECT_EQ(repeats.envelopeMax, 128);
  EXPECT_EQ(repeats.envelopeMin, std::nullopt);
  EXPECT_TRUE(repeats.flagged()) << "0 repeats was not drawn";
  EXPECT_EQ(conf::reachCells(repeats)[4],
            "MISSED min 0 (legal max 255: outside the DUT's declared limits, not checked)");
  // Unlimited, every row is as it was.
  const std::vector<conf::ReachRow> legal = conf::reachTable(reach, ProfileId::A2);
  const dut::Capabilities all = dut::makeDut("reference")->capabilities();
  const std::vector<conf::ReachRow> declared = conf::reachTable(reach, ProfileId::A2, &all);
  EXPECT_EQ(conf::reachJson(declared), conf::reachJson(legal));
}

// Every checked field of every instruction a certify run sends is held, by some family of the run,
// at the smallest and the largest value a legal instruction can hold on the profile, already at
// the smoke level: the boundary tables run whole at every level, so each extreme is drawn by
// design, not by a seed's luck, and a DUT wrong only there (a 16-bit field summed in int16, a pad
// of 255) fails. A field no legal instruction can hold at its extreme says so in its descriptor
// or its fit (isa/fields.cpp, conformance/reach.cpp), which this also holds to account.
class RunReach : public ::testing::TestWithParam<ProfileId> {};

TEST_P(RunReach, SomeFamilyHoldsEveryFieldAtEachLegalExtremeAtSmokeLevel) {
  auto dut = dut::makeDut("reference");
  conf::RunOptions o;
  o.profile = GetParam();
  o.level = conf::Level::Smoke;
  o.seed = 11;
  const conf::CertifyResult r = conf::certify(*dut, o);
  conf::Reach run;
  for (const conf::FamilyResult& f : r.families) run.merge(f.reach);
  const std::vector<conf::ReachRow> rows = conf::reachTable(run, GetParam());
  EXPECT_GT(rows.size(), 20u) << "the run measured its reach";
  for (const conf::ReachRow& row : rows) {
    if (!row.uncertified.empty()) {
      // An open point keeps the extreme out of every run; the row says so, and is a gap.
      EXPECT_TRUE(row.runGap()) << row.instruction << "." << row.field << " was reached after all";
      EXPECT_NE(conf::reachCells(row)[4].find(row.uncertified), std::string::npos);
      continue;
    }
    EXPECT_FALSE(row.flagged()) << row.instruction << "." << row.field << ": "
                                << conf::reachCells(row)[2] << " legal, drawn "
                                << conf::reachCells(row)[3] << ": " << conf::reachCells(row)[4];
  }
  // ... and each family's misses are held by another family in the same operand types (red
  // team r11 F4): the run's tables as the certificate shows them have no gap.
  std::vector<std::pair<std::string, std::vector<conf::ReachRow>>> tables;
  for (const conf::FamilyResult& f : r.families) {
    tables.emplace_back(f.name, conf::reachTable(f.reach, GetParam()));
  }
  for (const auto& [name, table] : tables) {
    std::vector<conf::ReachRow> mine = table;
    conf::noteOtherFamilies(mine, name, tables);
    for (const conf::ReachRow& row : mine) {
      if (!row.uncertified.empty()) continue;
      EXPECT_FALSE(row.runGap()) << name << ": " << row.instruction << "." << row.field << ": "
                                 << conf::reachCells(row)[3] << ": " << conf::reachCells(row)[4];
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Profiles, RunReach, ::testing::ValuesIn(isa::kAllProfiles),
                         [](const ::testing::TestParamInfo<ProfileId>& i) {
                           return std::string(isa::profile(i.param).name);
                         });

}  // namespace
}  // namespace cubecheck
