// generators/: legal by construction, illegal for exactly the intended reason, tables annotated.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <set>
#include <sstream>

#include "generators/fill.hpp"
#include "generators/load2d.hpp"
#include "generators/mmad.hpp"
#include "generators/pipeline.hpp"
#include "tests/table_extremes.hpp"

namespace cubecheck::gen {
namespace {

using isa::ProfileId;

rc::Gen<ProfileId> anyProfile() {
  return rc::gen::element(ProfileId::A2, ProfileId::Ascend950, ProfileId::Legacy);
}

RC_GTEST_PROP(Load2DGen, LegalCasesAreLegalAndWellFormed, ()) {
  const ProfileId id = *anyProfile();
  const Load2DCase c = *legalLoad2D(id);
  const auto v = isa::validate(isa::profile(id), c.load);
  RC_ASSERT(!v.has_value());
  const isa::Program p = buildProgram(c);
  RC_ASSERT(!isa::validateStructure(p).has_value());
  RC_ASSERT(p.observe.size() == 1u);
  RC_ASSERT(p.observe[0].size >= 512u);  // never an empty observation
  RC_CLASSIFY(c.load.params.ifTranspose, "transpose");
  RC_CLASSIFY(c.load.params.repeatTimes == 0, "repeat 0");
}

RC_GTEST_PROP(Load2DGen, IllegalCasesBreakExactlyTheIntendedRule, ()) {
  const ProfileId id = *anyProfile();
  const IllegalLoad2DCase c = *illegalLoad2D(id);
  const auto v = isa::validate(isa::profile(id), c.c.load);
  RC_ASSERT(v.has_value());
  RC_ASSERT(v->code == c.expected);
  RC_ASSERT(!isa::validateStructure(buildProgram(c.c)).has_value());
  RC_TAG(std::string(isa::nameOf(c.expected)));
}

RC_GTEST_PROP(Load2DGen, SplitProgramsCoverTheSameRepeats, ()) {
  const SplitLoad2DCase s = *splitLoad2D(ProfileId::A2);
  const isa::Program p = buildSplitProgram(s);
  RC_ASSERT(p.instructions.size() == 2u);
  unsigned total = 0;
  for (const auto& ins : p.instructions) {
    const auto& l = std::get<isa::Load2D>(ins);
    RC_ASSERT(!isa::validate(isa::profile(ProfileId::A2), l).has_value());
    total += l.params.repeatTimes;
  }
  RC_ASSERT(total == s.whole.load.params.repeatTimes);
}

TEST(Load2DGen, BoundaryTablesAreLegalAnnotatedAndCoverTheirEdges) {
  for (ProfileId id : isa::kAllProfiles) {
    const auto table = load2DBoundaries(id);
    ASSERT_FALSE(table.empty());
    std::set<std::string> tags;
    for (const Load2DCase& c : table) {
      EXPECT_FALSE(c.why.empty());
      const auto v = isa::validate(isa::profile(id), c.load);
      EXPECT_FALSE(v.has_value()) << c << ": " << (v ? v->message : "");
      for (auto& t : tagsOf(c)) tags.insert(t);
    }
    for (const char* want : {"repeat:0", "repeat:1", "transpose", "src_stride:0", "dst_gap:>0",
                             "dst:ends_at_capacity", "src:last_fractal_of_L1", "sid:nonzero"}) {
      EXPECT_TRUE(tags.count(want)) << isa::profile(id).name << " table misses " << want;
    }
    if (id != ProfileId::Ascend950) {  // 950 has no GM paths, hence no decrement or 255 into L1
      for (const char* want :
           {"repeat:255", "src_stride:large", "addr_mode:decrement", "addr_mode:ignored",
            "src:GM_unaligned", "src:GM_high_bits", "src:GM_ends_at_top"}) {
        EXPECT_TRUE(tags.count(want)) << isa::profile(id).name << " table misses " << want;
      }
    }
  }
}

// Every checked field at the smallest and largest value any of the table's cases could hold and
// stay legal, and at the largest among the cases that move data (a start, stride or gap bounded by
// the buffer it walks): on 950, whose only paths read L1, as much as on a2.
TEST(Load2DGen, BoundaryTablesHoldEachFieldAtItsLegalExtremes) {
  for (ProfileId id : isa::kAllProfiles) {
    std::vector<isa::Instruction> table;
    for (const Load2DCase& c : load2DBoundaries(id)) table.emplace_back(c.load);
    const auto moves = [](const isa::Instruction& i) {
      return std::get<isa::Load2D>(i).params.repeatTimes > 0;
    };
    for (const std::string& m : testing::missedExtremes(id, table, moves)) ADD_FAILURE() << m;
  }
}

/// The highest set bit of each GM source address `sources` holds, counted from bit 33 (bits up to
/// 32 are what a 33-bit address keeps).
std::set<int> highBits(const std::vector<std::uint64_t>& sources) {
  std::set<int> bits;
  for (std::uint64_t a : sources) {
    for (int b = 47; b >= 33; --b) {
      if ((a >> b) & 1) {
        bits.insert(b);
        break;
      }
    }
  }
  return bits;
}

std::set<int> bits33To47() {
  std::set<int> all;
  for (int b = 33; b <= 47; ++b) all.insert(b);
  return all;
}

/// GM is a 48-bit address space (spec 1), GM pointers lie about 2^44: a DUT that drops high
/// address bits is wrong only where a load's GM source sets them. On each GM path of each
/// profile, the table reads from such an address, and up to the last that leaves room for the
/// footprint; random draws reach every bit 33..47 as the highest set.
TEST(Load2DGen, GmSourcesSetEveryHighAddressBit) {
  for (ProfileId id : {ProfileId::A2, ProfileId::Legacy}) {
    const isa::Profile& prof = isa::profile(id);
    for (isa::Load2DPath path : load2DPathsOf(id)) {
      if (isa::srcOf(path) != isa::Position::GM) continue;
      bool high = false;
      for (const Load2DCase& c : load2DBoundaries(id)) {
        high = high || (c.load.path == path && (c.load.srcAddr >> 33) != 0);
      }
      EXPECT_TRUE(high) << prof.name << " " << isa::nameOf(path);
    }
    std::vector<std::uint64_t> sources;
    for (std::uint64_t s = 0; s < 3000; ++s) {
      const Load2DCase c = legalLoad2D(id)(rc::Random(s), 50).value();
      if (isa::srcOf(c.load.path) == isa::Position::GM) sources.push_back(c.load.srcAddr);
    }
    EXPECT_EQ(highBits(sources), bits33To47()) << prof.name;
  }
}

TEST(Load2DGen, SameRandomSameCase) {
  const auto g = legalLoad2D(ProfileId::A2);
  for (std::uint64_t s = 0; s < 50; ++s) {
    std::ostringstream a, b;
    a << g(rc::Random(s), 50).value();
    b << g(rc::Random(s), 50).value();
    EXPECT_EQ(a.str(), b.str());
  }
}

TEST(Fill, DeterministicAndNonTrivial) {
  isa::Bytes a(1000), b(1000), c(1000);
  fillBytes(a, 42);
  fillBytes(b, 42);
  fillBytes(c, 43);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  std::set<std::uint8_t> distinct(a.begin(), a.end());
  EXPECT_GT(distinct.size(), 200u);
}

}  // namespace
}  // namespace cubecheck::gen

#include "generators/load2d_v2.hpp"

namespace cubecheck::gen {
namespace {

RC_GTEST_PROP(V2Gen, LegalCasesAreLegalAndWellFormed, ()) {
  const bool bitMode = *rc::gen::arbitrary<bool>();
  const V2Case c = *legalV2(isa::ProfileId::Ascend950, bitMode);
  const auto v = isa::validate(isa::profile(c.profile), c.load);
  RC_ASSERT(!v.has_value());
  const isa::Program p = bitMode ? buildBitModeProgram(c) : buildProgram(c);
  RC_ASSERT(!isa::validate(isa::profile(c.profile), p.instructions[0]).has_value());
  RC_ASSERT(!isa::validateStructure(p).has_value());
  RC_CLASSIFY(c.load.params.ifTranspose, "transpose");
}

RC_GTEST_PROP(V2Gen, IllegalCasesBreakExactlyTheIntendedRule, ()) {
  const bool bitMode = *rc::gen::arbitrary<bool>();
  const IllegalV2Case c = *illegalV2(isa::ProfileId::Ascend950, bitMode);
  const isa::Program p = buildProgram(c);
  const auto v = isa::validate(isa::profile(c.c.profile), p.instructions[0]);
  RC_ASSERT(v.has_value());
  RC_ASSERT(v->code == c.expected);
  RC_TAG(std::string(isa::nameOf(c.expected)));
}

TEST(V2Gen, BoundaryTablesAreLegalAndAnnotated) {
  for (bool bitMode : {false, true}) {
    std::set<std::string> tags;
    for (const V2Case& c : v2Boundaries(isa::ProfileId::Ascend950, bitMode)) {
      EXPECT_FALSE(c.why.empty());
      const auto v = isa::validate(isa::profile(c.profile), c.load);
      EXPECT_FALSE(v.has_value()) << c << ": " << (v ? v->message : "");
      for (auto& t : tagsOf(c)) tags.insert(t);
    }
    for (const char* want : {"step:0", "transpose", "dst_stride:gap_between_columns",
                             "dst_stride:columns_overlap", "src:last_fractal_of_L1"}) {
      EXPECT_TRUE(tags.count(want)) << "bit mode " << bitMode << " misses " << want;
    }
  }
}

// As for LoadData2DParams: bit mode's table (the L1 paths) as much as V2's, since the bit-mode
// family runs the V2 load it packs next to the words.
TEST(V2Gen, BoundaryTablesHoldEachFieldAtItsLegalExtremes) {
  for (bool bitMode : {false, true}) {
    std::vector<isa::Instruction> table;
    for (const V2Case& c : v2Boundaries(isa::ProfileId::Ascend950, bitMode)) {
      table.emplace_back(c.load);
    }
    const auto moves = [](const isa::Instruction& i) {
      const isa::LoadData2DParamsV2& p = std::get<isa::LoadV2>(i).params;
      return p.mStep > 0 && p.kStep > 0;
    };
    for (const std::string& m : testing::missedExtremes(isa::ProfileId::Ascend950, table, moves)) {
      ADD_FAILURE() << (bitMode ? "bit mode: " : "V2: ") << m;
    }
  }
}

TEST(V2Gen, GmSourcesSetEveryHighAddressBit) {
  for (isa::Load2DPath path : {isa::Load2DPath::GMtoA1, isa::Load2DPath::GMtoB1}) {
    bool high = false;
    for (const V2Case& c : v2Boundaries(ProfileId::Ascend950, false)) {
      high = high || (c.load.path == path && (c.load.srcAddr >> 33) != 0);
    }
    EXPECT_TRUE(high) << isa::nameOf(path);
  }
  std::set<std::string> tags;
  for (const V2Case& c : v2Boundaries(ProfileId::Ascend950, false)) {
    for (auto& t : tagsOf(c)) tags.insert(t);
  }
  EXPECT_TRUE(tags.count("src:GM_high_bits"));
  EXPECT_TRUE(tags.count("src:GM_ends_at_top"));
  std::vector<std::uint64_t> sources;
  for (std::uint64_t s = 0; s < 3000; ++s) {
    const V2Case c = legalV2(ProfileId::Ascend950, false)(rc::Random(s), 50).value();
    if (isa::srcOf(c.load.path) == isa::Position::GM) sources.push_back(c.load.srcAddr);
  }
  EXPECT_EQ(highBits(sources), bits33To47());
}

// The pipelines' GM loads as much: A and B wait at high addresses in the tables of every profile,
// B up to the last address that leaves room for it, and random draws put A at every high bit and
// B 2^j from it, so a DUT that folds bit j away reads A where B should be.
TEST(PipelineGen, GmOperandsSetEveryHighAddressBit) {
  for (ProfileId id : isa::kAllProfiles) {
    const std::uint64_t gm = isa::profile(id).capacityOf(isa::Memory::GM);
    bool high = false, top = false;
    std::vector<PipelineCase> table = pipelineBoundaries(id);
    if (id == ProfileId::Ascend950) {
      for (const PipelineCase& c : lowPipelineBoundaries()) table.push_back(c);
    }
    for (const PipelineCase& c : table) {
      const isa::Program p = buildProgram(c);
      if (isa::validateProgram(p)) continue;  // legacy has no LoadData 3D V2 for conv
      for (const isa::Segment& s : p.segments) {
        if (s.memory != isa::Memory::GM) continue;
        high = high || (s.addr >> 33) != 0;
        top = top || s.addr + s.bytes.size() == gm;
      }
    }
    EXPECT_TRUE(high) << isa::profile(id).name;
    EXPECT_TRUE(top) << isa::profile(id).name;
    std::vector<std::uint64_t> sources;
    std::set<int> apart;
    for (std::uint64_t s = 0; s < 600; ++s) {
      const PipelineCase c = legalPipeline(id, Sizes::Small)(rc::Random(s), 50).value();
      sources.push_back(c.gmA);
      const std::uint64_t d = c.gmA > c.gmB ? c.gmA - c.gmB : c.gmB - c.gmA;
      if ((d & (d - 1)) == 0) apart.insert(std::countr_zero(d));
    }
    EXPECT_EQ(highBits(sources), bits33To47()) << isa::profile(id).name;
    const std::set<int> want = bits33To47();
    EXPECT_TRUE(std::includes(apart.begin(), apart.end(), want.begin(), want.end()))
        << isa::profile(id).name;
  }
}

RC_GTEST_PROP(MmadGen, L0cCanariesAreTheWholeStreamWhereCDoesNotLand, ()) {
  // addInitSegments skips drawing the L0C words an accumulate C overwrites. The segment must be
  // byte for byte the whole stream with C stored over it, wherever C starts (any alignment) and
  // when it runs past the end of L0C.
  const ProfileId id = *rc::gen::element(ProfileId::A2, ProfileId::Ascend950);
  const std::uint64_t cap = isa::profile(id).capacityOf(isa::Memory::L0C);
  // 256 x 256 (256 KiB) runs past the end of either profile's L0C from any start.
  const auto m =
      static_cast<Eigen::Index>(16 * *rc::gen::oneOf(rc::gen::inRange(1, 17), rc::gen::just(16)));
  const auto n =
      static_cast<Eigen::Index>(16 * *rc::gen::oneOf(rc::gen::inRange(1, 17), rc::gen::just(16)));
  const std::uint64_t cBytes = static_cast<std::uint64_t>(m * n) * 4;
  const std::uint64_t cAddr =
      *rc::gen::oneOf(rc::gen::inRange<std::uint64_t>(0, 1100),
                      rc::gen::inRange<std::uint64_t>(cap > cBytes ? cap - cBytes : 0, cap));
  const std::uint64_t seed = *rc::gen::arbitrary<std::uint64_t>();
  oracle::ElemMatrix c0(m, n);
  SplitMix64 g(seed + 1);
  for (Eigen::Index i = 0; i < c0.size(); ++i) c0(i) = static_cast<std::uint32_t>(g.next());
  isa::Program p;
  p.profile = id;
  const auto [lo, hi] = addInitSegments(p, isa::MmadInit::Accumulate, true, cAddr, cBytes, 0, c0,
                                        oracle::ElemMatrix(1, n), seed);
  isa::Segment expected = filled(isa::Memory::L0C, lo, hi, subSeed(seed, 3));
  storeC(expected, cAddr, c0);
  RC_ASSERT(p.segments.at(0).bytes == expected.bytes);
}

}  // namespace
}  // namespace cubecheck::gen
