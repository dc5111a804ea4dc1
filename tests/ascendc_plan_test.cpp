// The board plan of the Ascend C export: its runs and gather map reproduce the case on the
// reference model, and every case it leaves out says why. (ascendc_export_test.sh runs the whole
// exported project against the CPU shim.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <set>
#include <sstream>

#include "conformance/indirect.hpp"
#include "dut_adapters/registry.hpp"
#include "oracle/expected.hpp"
#include "vectors/ascendc_api.hpp"
#include "vectors/ascendc_export.hpp"
#include "vectors/ascendc_plan.hpp"
#include "vectors/vectors.hpp"

namespace cubecheck::vec {
namespace {

namespace fs = std::filesystem;

std::vector<Row> golden(const std::string& file) {
  ReadResult r = readFile(fs::path(CUBECHECK_SOURCE_DIR) / "vectors" / "golden" / file);
  EXPECT_TRUE(r.errors.empty());
  return r.rows;
}

/// Runs a plan's programs on `dut` and gathers their outputs into the case's regions.
std::optional<isa::Observed> runPlan(dut::Dut& d, const BoardPlan& plan,
                                     const isa::Program& original, std::string& error) {
  std::vector<isa::Bytes> outputs;
  for (const isa::Program& run : plan.runs) {
    const dut::RunResult r = d.run(run);
    if (r.status != dut::RunStatus::Ok) {
      error = r.message;
      return std::nullopt;
    }
    isa::Bytes all;
    for (const isa::Bytes& b : r.observed) all.insert(all.end(), b.begin(), b.end());
    outputs.push_back(std::move(all));
  }
  std::vector<std::uint64_t> sizes;
  for (const isa::Region& r : original.observe) sizes.push_back(r.size);
  return applyGather(plan.gather, sizes, outputs, error);
}

// Every exported golden case of these files, run as the board would run it (its runs, then the
// gather map) on the reference model, observes what the case itself observes there.
TEST(AscendcPlan, RunsAndGatherReproduceTheCaseOnTheReference) {
  const auto ref = dut::makeDut("reference");
  std::size_t exported = 0, throughMmad = 0;
  for (const char* file : {"load2d.a2.csv", "load3d_v2.950.csv", "mmad_sparse.a2.csv",
                           "load_sparse.a2.csv", "pipeline.a2.csv", "load2d_bitmode.950.csv"}) {
    for (const Row& row : golden(file)) {
      if (row.c.rejection) continue;
      const BoardPlan plan = planForBoard(row.c.program);
      if (plan.skip) continue;
      ++exported;
      throughMmad += plan.throughMmad ? 1 : 0;
      const dut::RunResult direct = ref->run(row.c.program);
      ASSERT_EQ(direct.status, dut::RunStatus::Ok) << row.caseId;
      std::string error;
      const auto viaBoard = runPlan(*ref, plan, row.c.program, error);
      ASSERT_TRUE(viaBoard) << file << " " << row.caseId << ": " << error;
      EXPECT_EQ(*viaBoard, direct.observed) << file << " " << row.caseId;
      for (const isa::Program& run : plan.runs) {
        for (const isa::Region& r : run.observe) {
          EXPECT_TRUE(r.memory == isa::Memory::L1 || r.memory == isa::Memory::L0C ||
                      r.memory == isa::Memory::GM)
              << "a board reads " << isa::nameOf(r.memory) << " out";
        }
      }
    }
  }
  EXPECT_GT(exported, 100u);
  EXPECT_GT(throughMmad, 50u);
}

// Which L0C words an f32 Mmad of an identity writes: +0 and the normal numbers, nothing else.
TEST(AscendcPlan, F32MmadWritesZeroAndNormalWordsOnly) {
  EXPECT_TRUE(conf::writableByF32Mmad(0x00000000));   // +0
  EXPECT_TRUE(conf::writableByF32Mmad(0x3F800000));   // 1.0
  EXPECT_TRUE(conf::writableByF32Mmad(0xFF7FFFFF));   // -FLT_MAX
  EXPECT_TRUE(conf::writableByF32Mmad(0x00800000));   // least normal
  EXPECT_FALSE(conf::writableByF32Mmad(0x80000000));  // -0: +0 + -0 is +0
  EXPECT_FALSE(conf::writableByF32Mmad(0x00000001));  // subnormal (as s32: 1)
  EXPECT_FALSE(conf::writableByF32Mmad(0x7F800000));  // infinity: saturated to FLT_MAX
  EXPECT_FALSE(conf::writableByF32Mmad(0xFFFFFFFF));  // NaN (as s32: -1)
}

// On dav-3510 the board writes a case's initial L0C image with f32 Mmads before the case runs.
// Every 950 Mmad case the export keeps, run that way on the reference model, gives what the
// case (adjusted where its image held unwritable words) expects; the cases it leaves out are
// exactly those where an Mmad accumulates onto such a word.
TEST(AscendcPlan, Dav3510WritesL0cByMmadAndAdjustsOnlyWhatNothingReads) {
  const auto ref = dut::makeDut("reference");
  std::size_t exported = 0, adjustedCases = 0, accumulating = 0;
  for (const char* file : {"mmad.950.csv", "mmad_lowprec.950.csv", "pipeline.950.csv"}) {
    for (const Row& row : golden(file)) {
      if (row.c.rejection) continue;
      conf::VectorCase c = row.c;
      const L0cAdjustment adj = adjustL0cForBoard(c);
      if (adj.skip) {
        ++accumulating;
        EXPECT_NE(adj.skip->find("accumulates"), std::string::npos) << *adj.skip;
        EXPECT_EQ(caseIdOf("f", "950", c.program), caseIdOf("f", "950", row.c.program))
            << "a refused adjustment changed the case";
        continue;
      }
      if (adj.replacedWords != 0) {
        ++adjustedCases;
        EXPECT_TRUE(planForBoard(row.c.program).skip) << "unadjusted, " << row.caseId;
      }
      const BoardPlan plan = planForBoard(c.program);
      if (plan.skip) continue;
      ++exported;
      EXPECT_TRUE(plan.l0cByMmad) << row.caseId;
      for (const isa::Program& run : plan.runs) {
        for (const isa::Segment& seg : run.segments) {
          if (seg.memory != isa::Memory::L0C) continue;
          EXPECT_TRUE(std::all_of(seg.bytes.begin(), seg.bytes.end(), [](auto b) { return !b; }))
              << "a 950 board is given an L0C image";
        }
      }
      std::string error;
      const auto viaBoard = runPlan(*ref, plan, c.program, error);
      ASSERT_TRUE(viaBoard) << file << " " << row.caseId << ": " << error;
      // The adjusted expectation (or one of a probe's readings) holds for what the board saw.
      bool matches = c.expected && oracle::compareExact(c.program, *c.expected, *viaBoard).equal;
      for (const auto& [name, e] : c.alternatives) {
        matches = matches || oracle::compareExact(c.program, e, *viaBoard).equal;
      }
      EXPECT_TRUE(matches) << file << " " << row.caseId;
    }
  }
  EXPECT_GT(exported, 100u);
  EXPECT_GT(adjustedCases, 50u);
  EXPECT_GT(accumulating, 0u);
}

// A board run that returns a byte no s8 x identity gives is an error, never a silent value.
TEST(AscendcPlan, AnS32OutsideAnS8IsAnError) {
  const std::vector<GatherRun> gather{{0, 0, 1, GatherRun::S32, 0, 0, 4}};
  std::string error;
  EXPECT_TRUE(applyGather(gather, {1}, {{0x80, 0xFF, 0xFF, 0xFF}}, error));   // -128
  EXPECT_FALSE(applyGather(gather, {1}, {{0x80, 0x00, 0x00, 0x00}}, error));  // 128
  EXPECT_NE(error.find("through Mmad"), std::string::npos) << error;
}

// An index byte is four s32 of L0C, each 3 - a 2-bit index: s32 3, 2, 1, 0 at fields 0..3 make
// the indices 0, 1, 2, 3, the byte 0b11'10'01'00. Anything outside [0, 3] is an error.
TEST(AscendcPlan, AnIndexByteIsFourS32OfMmadWithSparse) {
  std::vector<GatherRun> gather;
  for (std::int64_t f = 0; f < 4; ++f)
    gather.push_back({0, 0, 1, GatherRun::Index0 + f, 0, 4 * f, 4});
  const isa::Bytes out{3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0};
  std::string error;
  const auto byte = applyGather(gather, {1}, {out}, error);
  ASSERT_TRUE(byte) << error;
  EXPECT_EQ(byte->at(0).at(0), 0xE4);
  isa::Bytes bad = out;
  bad[0] = 4;
  EXPECT_FALSE(applyGather(gather, {1}, {bad}, error));
  EXPECT_NE(error.find("no index gives"), std::string::npos) << error;
}

// No legal sparse case is left out for its index buffer: the runs write it with
// LoadDataWithSparse and read it back through MmadWithSparse, and none of them is given an index
// image or reads one out.
TEST(AscendcPlan, IndexBufferCasesAllGoToTheBoard) {
  std::size_t observeIdx = 0;
  for (const char* file : {"load_sparse.a2.csv", "mmad_sparse.a2.csv"}) {
    for (const Row& row : golden(file)) {
      if (row.c.rejection) continue;
      const BoardPlan plan = planForBoard(row.c.program);
      ASSERT_FALSE(plan.skip) << file << " " << row.caseId << ": " << *plan.skip;
      const bool indexKinds = std::any_of(plan.gather.begin(), plan.gather.end(), [](auto& g) {
        return g.kind >= GatherRun::Index0 && g.kind <= GatherRun::Index3;
      });
      const bool observes =
          std::any_of(row.c.program.observe.begin(), row.c.program.observe.end(),
                      [](const isa::Region& r) { return r.memory == isa::Memory::SparseIndex; });
      EXPECT_EQ(indexKinds, observes) << row.caseId;
      observeIdx += observes ? 1 : 0;
    }
  }
  EXPECT_GT(observeIdx, 5u);
}

// The reasons a case is left out name what the board or the API lacks.
TEST(AscendcPlan, LeftOutCasesSayWhy) {
  std::set<std::string> reasons;
  for (const char* file : {"mmad.950.csv", "load_sparse.a2.csv", "load3d_v2pro.a2.csv",
                           "load2d.legacy.csv", "load2d_v2.950.csv"}) {
    for (const Row& row : golden(file)) {
      if (row.c.rejection) continue;
      const BoardPlan plan = planForBoard(row.c.program);
      if (plan.skip) reasons.insert(*plan.skip);
    }
  }
  auto any = [&](const std::string& needle) {
    return std::any_of(reasons.begin(), reasons.end(),
                       [&](const std::string& r) { return r.find(needle) != std::string::npos; });
  };
  EXPECT_TRUE(any("no f32 Mmad writes"));
  EXPECT_TRUE(any("load3d_v2pro has no documented call on dav-2201"));
  EXPECT_TRUE(any("profile legacy is not a target"));
  EXPECT_TRUE(any("observes L1, which dav-3510 cannot copy out"));
}

// The layout header names every field of every descriptor at its index, and the type lists the
// export checks are the ones the kernel is compiled with.
TEST(AscendcPlan, LayoutHeaderFollowsTheDescriptors) {
  const std::string h = ascendcLayoutHeader();
  EXPECT_NE(h.find("constexpr int64_t CCK_LOAD2D_REPEAT_TIMES = 5;"), std::string::npos);
  EXPECT_NE(h.find("constexpr int64_t CCK_MMAD_B_DTYPE = 14;"), std::string::npos);
  EXPECT_NE(h.find("constexpr int64_t CCK_NFIELDS_LOAD3D_V2 = 28;"), std::string::npos);
  for (const ApiTypeList& l : apiTypeLists()) {
    EXPECT_NE(h.find("#define " + std::string(l.macro) + "(X)"), std::string::npos) << l.macro;
  }
}

}  // namespace
}  // namespace cubecheck::vec
