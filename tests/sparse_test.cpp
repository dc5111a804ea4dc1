// 2:4 sparsity (spec 7): the host codec against the spec's table, worked by hand; the pipeline
// against hand-computed products; broken compressors caught.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>

#include "conformance/families.hpp"
#include "conformance/runner.hpp"
#include "dut_adapters/registry.hpp"
#include "generators/sparse.hpp"
#include "generators/sparse_check.hpp"
#include "oracle/sparse.hpp"
#include "tests/table_extremes.hpp"

namespace cubecheck::gen {
namespace {

struct MaskCase {
  int e[4];      // the group, element 0 first; 11, 22, 33, 44 mark the non-zeros
  int dense[2];  // slot 0, slot 1
  int index[2];  // idx0, idx1
};

// Spec 7.2's table, every one of the 16 zero/non-zero masks; groups with three or four non-zeros
// keep their first two.
const MaskCase kMasks[] = {
    {{0, 0, 0, 0}, {0, 0}, {0, 0}},      {{11, 0, 0, 0}, {11, 0}, {0, 0}},
    {{0, 22, 0, 0}, {22, 0}, {1, 0}},    {{0, 0, 33, 0}, {33, 0}, {2, 0}},
    {{0, 0, 0, 44}, {0, 44}, {0, 2}},    {{11, 22, 0, 0}, {11, 22}, {0, 0}},
    {{11, 0, 33, 0}, {11, 33}, {0, 1}},  {{11, 0, 0, 44}, {11, 44}, {0, 2}},
    {{0, 22, 33, 0}, {22, 33}, {1, 1}},  {{0, 22, 0, 44}, {22, 44}, {1, 2}},
    {{0, 0, 33, 44}, {33, 44}, {2, 2}},  {{11, 22, 33, 0}, {11, 22}, {0, 0}},
    {{11, 22, 0, 44}, {11, 22}, {0, 0}}, {{11, 0, 33, 44}, {11, 33}, {0, 1}},
    {{0, 22, 33, 44}, {22, 33}, {1, 1}}, {{11, 22, 33, 44}, {11, 22}, {0, 0}},
};

TEST(Densify, EveryMaskAsSpec72Says) {
  // All 16 groups side by side in one K = 4 x N = 16 matrix.
  oracle::MatrixS8 b(4, 16);
  for (int n = 0; n < 16; ++n) {
    for (int j = 0; j < 4; ++j) b(j, n) = static_cast<std::int8_t>(kMasks[n].e[j]);
  }
  const Densified d = densify(b);
  for (int n = 0; n < 16; ++n) {
    SCOPED_TRACE("mask " + maskName(maskOf(b, 0, n)));
    EXPECT_EQ(d.dense(0, n), kMasks[n].dense[0]);
    EXPECT_EQ(d.dense(1, n), kMasks[n].dense[1]);
    EXPECT_EQ(d.index(0, n), kMasks[n].index[0]);
    EXPECT_EQ(d.index(1, n), kMasks[n].index[1]);
  }
}

TEST(Densify, BrokenVariantsDifferWhereTheyShould) {
  oracle::MatrixS8 b(4, 2);
  b.col(0) << 0, 0, 0, 5;  // the vendor samples store (5, 0) here
  b.col(1) << 1, 0, 3, 4;  // keep-third takes 4 instead of 3
  const Densified vendor = densify(b, DensifyVariant::VendorSample);
  EXPECT_EQ(vendor.dense(0, 0), 5);
  EXPECT_EQ(vendor.dense(1, 0), 0);
  EXPECT_EQ(vendor.index(1, 0), 2);
  const Densified third = densify(b, DensifyVariant::KeepThird);
  EXPECT_EQ(third.dense(1, 1), 4);
  EXPECT_EQ(third.index(1, 1), 2);
}

TEST(IndexCodec, SeedExampleIs0x49) {
  // Seed 000: indices 1 2 0 1 0 2 1 0 are stored as "1 0 2 1" and "0 1 2 0", MSB first.
  const std::uint8_t first[4] = {1, 2, 0, 1};
  const std::uint8_t second[4] = {0, 2, 1, 0};
  EXPECT_EQ(packIndexByte(first), 0x49);   // 01 00 10 01
  EXPECT_EQ(packIndexByte(second), 0x18);  // 00 01 10 00
}

TEST(IndexCodec, IndexByteFollowsTheDenseByte) {
  // One dense fractal: K/2 = 32, N = 16. Dense byte (n0, kd0) is at n0*32 + kd0 (Zn) and its
  // index at byte n0*8 + kd0/4, field kd0 % 4 (spec 7.2).
  Densified d{oracle::MatrixS8::Zero(32, 16), IndexMatrix::Zero(32, 16)};
  d.dense(5, 3) = 7;
  d.index(5, 3) = 2;
  d.index(6, 3) = 1;
  d.index(0, 15) = 1;
  const PackedB p = packB(d);
  ASSERT_EQ(p.dense.size(), 512u);
  ASSERT_EQ(p.index.size(), 128u);
  EXPECT_EQ(p.dense[3 * 32 + 5], 7);
  EXPECT_EQ(p.index[3 * 8 + 1], (2 << 2) | (1 << 4));  // kd 5 -> field 1, kd 6 -> field 2
  EXPECT_EQ(p.index[15 * 8 + 0], 1);
  int nonzero = 0;
  for (std::uint8_t b : p.index) nonzero += b != 0;
  EXPECT_EQ(nonzero, 2);
}

RC_GTEST_PROP(Densify, DecompressGivesTruncatedB, ()) {
  const int k = 4 * *rc::gen::inRange(1, 40);
  const int n = *rc::gen::inRange(1, 40);
  const oracle::MatrixS8 b = random24(k, n, *rc::gen::arbitrary<std::uint64_t>());
  const Densified d = densify(b);
  const Decompressed back = decompress(d.dense, d.index);
  RC_ASSERT(back.problems.empty());
  RC_ASSERT(back.b == oracle::truncate24(b).cast<int>());
}

TEST(Random24, EveryMaskInEveryCaseOfSixteenGroups) {
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    const oracle::MatrixS8 b = random24(64, 1, seed);  // exactly 16 groups
    bool seen[16] = {};
    for (int g = 0; g < 16; ++g) seen[maskOf(b, g, 0)] = true;
    for (int m = 0; m < 16; ++m) EXPECT_TRUE(seen[m]) << "seed " << seed << " mask " << maskName(m);
  }
  EXPECT_NE(random24(4, 1, 7), oracle::MatrixS8::Zero(4, 1));
}

TEST(Oracle, VendorMinimalCaseIsTwenty) {
  // Spec 7.2: A = [1, 2, 3, 4], group [0, 0, 0, 5]: the golden is 4 * 5 = 20.
  oracle::MatrixS8 a(2, 4);
  a << 1, 2, 3, 4, 1, 2, 3, 4;
  oracle::MatrixS8 b(4, 1);
  b << 0, 0, 0, 5;
  const oracle::MatrixS32 c = oracle::sparseMatmul(a, b, oracle::MatrixS32::Zero(2, 1));
  EXPECT_EQ(c(0, 0), 20);
  // Three non-zeros: only the first two count. [2, 3, 5, 0] . [1, 2, 3, 4] -> 2*1 + 3*2 = 8.
  b << 2, 3, 5, 0;
  EXPECT_EQ(oracle::sparseMatmul(a, b, oracle::MatrixS32::Zero(2, 1))(1, 0), 8);
  // Saturation once at the end (OPEN-7 default).
  EXPECT_EQ(oracle::sparseMatmul(a, b, oracle::MatrixS32::Constant(2, 1, INT32_MAX - 1))(0, 0),
            INT32_MAX);
}

SparseMmadCase pipelineCase(std::uint64_t seed, DensifyVariant v) {
  SparseMmadCase c;
  c.m = 16;
  c.k = 64;
  c.n = 16;
  c.idxAddr = 1024;
  c.contentSeed = seed;
  c.variant = v;
  return c;
}

TEST(Pipeline, ReferenceMatchesTheOracleWithTheSpecCompressor) {
  auto ref = dut::makeDut("reference");
  for (std::uint64_t seed = 0; seed < 10; ++seed) {
    const conf::Verdict v =
        conf::checkSparsePipeline(*ref, pipelineCase(seed, DensifyVariant::Spec));
    EXPECT_EQ(v.outcome, conf::Outcome::Pass) << v.detail;
  }
}

TEST(Pipeline, BrokenCompressorsAreCaught) {
  // 64 x 16 = 256 groups cycle through every mask, so 0 0 0 X and 3+ non-zero groups occur.
  auto ref = dut::makeDut("reference");
  for (DensifyVariant v : {DensifyVariant::VendorSample, DensifyVariant::KeepThird}) {
    const conf::Verdict r = conf::checkSparsePipeline(*ref, pipelineCase(3, v));
    EXPECT_EQ(r.outcome, conf::Outcome::Mismatch) << static_cast<int>(v);
  }
}

TEST(Pipeline, HandMadeProgramGivesHandComputedC) {
  // M = 2, K = 4, N = 1: A rows [1 2 3 4] and [-1 -2 -3 -4], B group [0 0 0 5].
  SparseMmadCase c;
  c.m = 2;
  c.k = 4;
  c.n = 1;
  c.idxAddr = 1024;
  SparseOperands o;
  o.a.resize(2, 4);
  o.a << 1, 2, 3, 4, -1, -2, -3, -4;
  o.b.resize(4, 1);
  o.b << 0, 0, 0, 5;
  o.c0 = oracle::MatrixS32::Zero(2, 1);
  o.bias = oracle::MatrixS32::Zero(1, 1);
  auto ref = dut::makeDut("reference");
  for (auto [variant, want] :
       {std::pair{DensifyVariant::Spec, 20}, std::pair{DensifyVariant::VendorSample, 5}}) {
    const isa::Program p = buildProgram(c, o, packB(densify(o.b, variant)));
    const dut::RunResult r = ref->run(p);
    ASSERT_EQ(r.status, dut::RunStatus::Ok) << r.message;
    // C(0, 0) and C(1, 0) are the first two int32 of row 0 and row 1 of the Nz fractal.
    const std::uint64_t base = c.cAddr - p.observe[0].addr;
    std::int32_t c00, c10;
    std::memcpy(&c00, r.observed[0].data() + base, 4);
    std::memcpy(&c10, r.observed[0].data() + base + 64, 4);
    EXPECT_EQ(c00, want);
    EXPECT_EQ(c10, -want);
  }
}

// Hostile input: index 3 (OPEN-1, undefined) in slot 1 of the last group names A(m, 4g + 4) =
// A(m, k) when k fills A's fractals: past A's row. The reference must stay inside its memory and
// answer the same every time; it reads that element as 0. With A, B all ones and every index 3,
// slot 0 gives 16 (A(m, 4g + 3)) and slot 1 gives 15 (A(m, 4g + 4) of groups 0..14).
TEST(Pipeline, IndexThreeInTheLastGroupReadsNothingPastA) {
  isa::Program p;
  p.profile = isa::ProfileId::A2;
  p.segments = {{isa::Memory::L0A, 0, isa::Bytes(1024, 1)},
                {isa::Memory::L0B, 0, isa::Bytes(512, 1)},
                {isa::Memory::SparseIndex, 0, isa::Bytes(128, 0xFF)},
                {isa::Memory::L0C, 0, isa::Bytes(1024, 0)}};
  isa::MmadSparse x;
  x.m = 16;
  x.k = 64;
  x.n = 16;
  x.cmatrixInitVal = true;
  p.instructions = {x};
  p.observe = {{isa::Memory::L0C, 0, 1024}};
  auto ref = dut::makeDut("reference");
  const dut::RunResult r = ref->run(p);
  ASSERT_EQ(r.status, dut::RunStatus::Ok) << r.message;
  for (std::size_t at = 0; at < 1024; at += 4) {
    std::int32_t c = 0;
    std::memcpy(&c, r.observed[0].data() + at, 4);
    ASSERT_EQ(c, 31) << "C word " << at / 4;
  }
}

TEST(SparseCheck, FindsViolationsAndTheVendorEncoding) {
  oracle::MatrixS8 b(4, 2);
  b.col(0) << 0, 0, 0, 5;
  b.col(1) << 1, 2, 3, 0;
  const Densified vendor = densify(b, DensifyVariant::VendorSample);
  const SparseCheckResult r = checkSparse(b, &vendor.dense, &vendor.index);
  ASSERT_EQ(r.violations.size(), 1u);
  EXPECT_EQ(r.violations[0].column, 1);
  ASSERT_EQ(r.differences.size(), 1u);
  EXPECT_EQ(r.differences[0].column, 0);
  EXPECT_NE(r.differences[0].what.find("OPEN-2"), std::string::npos);
  const Densified spec = densify(b);
  EXPECT_TRUE(checkSparse(b, &spec.dense, &spec.index).differences.empty());
  EXPECT_THROW(checkSparse(oracle::MatrixS8::Zero(6, 1), nullptr, nullptr), std::invalid_argument);
}

// Every checked field of LoadDataWithSparse at the extremes its cases could hold and stay legal
// (start_index bounded by L1 once the load moves data; the ignored fields anything), except
// if_transpose: the load never transposes (spec 7.3), so no case stays legal with it set.
TEST(LoadSparseGen, BoundaryTableHoldsEachFieldAtItsLegalExtremes) {
  const isa::ProfileId id = isa::ProfileId::A2;
  std::vector<isa::Instruction> table;
  for (const LoadSparseCase& c : loadSparseBoundaries(id)) {
    table.emplace_back(c.load);
    isa::LoadSparse t = c.load;
    t.params.ifTranspose = true;
    const auto v = isa::validate(isa::profile(id), t);
    ASSERT_TRUE(v.has_value()) << c;
    EXPECT_EQ(v->code, isa::ViolationCode::TransposePath) << c;
  }
  const auto moves = [](const isa::Instruction& i) {
    return std::get<isa::LoadSparse>(i).params.repeatTimes > 0;
  };
  for (const std::string& m : testing::missedExtremes(id, table, moves)) ADD_FAILURE() << m;
}

TEST(SparseFamilies, NotSupportedOn950NeverPassed) {
  auto ref = dut::makeDut("reference");
  conf::RunOptions o;
  o.profile = isa::ProfileId::Ascend950;
  o.level = conf::Level::Smoke;
  o.families = {"load_sparse", "mmad_sparse"};
  const conf::CertifyResult r = conf::certify(*ref, o);
  ASSERT_EQ(r.families.size(), 2u);
  for (const auto& f : r.families) {
    EXPECT_EQ(f.counts.of(conf::Outcome::Pass), 0u);
    EXPECT_EQ(f.counts.of(conf::Outcome::NotSupported), f.counts.total());
    EXPECT_EQ(f.verdict(), "not certified");
  }
}

TEST(SparseFamilies, Open1ProbeReportsTheProseReading) {
  auto ref = dut::makeDut("reference");
  conf::RunOptions o;
  o.level = conf::Level::Smoke;
  o.families = {"mmad_sparse"};
  o.property = "Open1Probe";
  const conf::CertifyResult r = conf::certify(*ref, o);
  ASSERT_EQ(r.families.at(0).probes.size(), 1u);
  EXPECT_NE(r.families[0].probes.begin()->first.find("prose reading"), std::string::npos);
}

}  // namespace
}  // namespace cubecheck::gen
