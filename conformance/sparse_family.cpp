// Properties of the 2:4 pipeline (spec 7): LoadDataWithSparse alone, and LoadDataWithSparse +
// MmadWithSparse against C = init + A * B' computed from the logical operands.
#include <sstream>

#include "conformance/checks.hpp"
#include "conformance/families.hpp"
#include "generators/sparse.hpp"
#include "oracle/layout.hpp"
#include "oracle/mmad.hpp"
#include "oracle/oracle.hpp"
#include "oracle/sparse.hpp"

namespace cubecheck::conf {
namespace {

using gen::IllegalLoadSparseCase;
using gen::IllegalSparseMmadCase;
using gen::LoadSparseCase;
using gen::SparseMmadCase;

std::string notOnProfile(isa::ProfileId p) {
  return "profile " + std::string(isa::profile(p).name) +
         " has no LoadDataWithSparse / MmadWithSparse (spec 1)";
}

/// The observed L0C region (region 0) after C is written at cAddr; an empty C for a no-op.
oracle::Expected expectC(const isa::Program& p, const oracle::MatrixS32& c, std::uint64_t cAddr,
                         bool noOp) {
  return oracle::expectC(
      p, 0, noOp ? oracle::ElemMatrix() : oracle::ElemMatrix(c.cast<std::uint32_t>()), cAddr);
}

/// Spec 7.4 from the logical operands: C = init + A * B' with B' = B truncated to the first two
/// non-zeros of every group; any zero dimension is a no-op.
}  // namespace

VectorCase sparsePipelineVector(const SparseMmadCase& c) {
  const gen::SparseOperands o = gen::operandsOf(c);
  const bool noOp = c.m == 0 || c.k == 0 || c.n == 0;
  isa::Program p = gen::buildProgram(
      c, o, c.k == 0 || c.n == 0 ? gen::PackedB{} : gen::packB(gen::densify(o.b, c.variant)));
  const oracle::MatrixS32 want =
      noOp ? oracle::MatrixS32() : oracle::sparseMatmul(o.a, o.b, o.init(c.init));
  oracle::Expected e = expectC(p, want, c.cAddr, noOp);
  return expectationVector(std::move(p), std::move(e));
}

Verdict checkSparsePipeline(dut::Dut& d, const SparseMmadCase& c) {
  return checkVector(d, sparsePipelineVector(c));
}

namespace {

/// OPEN-1: index pair (2, 0) with a non-zero slot-1 value. The prose gives slot 1 = A[4g + 1];
/// the table can be read as both slots on A[4g + 2]. Either reading passes; the note says which.
struct ProbeCase {
  SparseMmadCase c;
  int group = 0;
  int column = 0;
  std::int8_t x = 1, y = 1;  ///< slot 0 and slot 1 values, small enough that x + y fits int8
};
std::ostream& operator<<(std::ostream& os, const ProbeCase& p) {
  return os << p.c << " probe: group " << p.group << " column " << p.column << " dense ("
            << int{p.x} << ", " << int{p.y} << ") index (2, 0)";
}

rc::Gen<ProbeCase> probeCases(isa::ProfileId profile) {
  return rc::gen::exec([profile] {
    ProbeCase p;
    p.c.profile = profile;
    p.c.idxAddr = 2 * 512;
    p.c.contentSeed = *rc::gen::arbitrary<std::uint64_t>();
    p.c.why = "OPEN-1 interpretation probe";
    p.group = *rc::gen::inRange(0, 16);
    p.column = *rc::gen::inRange(0, 16);
    p.x = static_cast<std::int8_t>(*rc::gen::inRange(1, 60));
    p.y = static_cast<std::int8_t>(*rc::gen::inRange(1, 60));
    return p;
  });
}

VectorCase open1ProbeVector(const ProbeCase& p) {
  gen::SparseOperands o = gen::operandsOf(p.c);
  const int g = p.group, n = p.column;
  // Make the two readings distinguishable in row 0 of A.
  o.a(0, 4 * g + 1) =
      static_cast<std::int8_t>(o.a(0, 4 * g + 2) == 127 ? 126 : o.a(0, 4 * g + 2) + 1);
  gen::Densified dz = gen::densify(o.b);
  dz.dense(2 * g, n) = p.x;
  dz.dense(2 * g + 1, n) = p.y;
  dz.index(2 * g, n) = 2;
  dz.index(2 * g + 1, n) = 0;
  // The logical B each reading implies, built from B' (not from the packed bytes).
  oracle::MatrixS8 prose = oracle::truncate24(o.b);
  prose.col(n).segment(4 * g, 4).setZero();
  oracle::MatrixS8 table = prose;
  prose(4 * g + 2, n) = p.x;
  prose(4 * g + 1, n) = p.y;
  table(4 * g + 2, n) = static_cast<std::int8_t>(p.x + p.y);
  VectorCase v;
  v.probe = true;
  v.program = gen::buildProgram(p.c, o, gen::packB(dz));
  const oracle::MatrixS32 zero = oracle::MatrixS32::Zero(16, 16);
  v.alternatives.emplace_back(
      "OPEN-1: prose reading (slot 1 reads A[4g+1+idx1])",
      expectC(v.program, oracle::denseMatmulS8(o.a, prose, zero), p.c.cAddr, false));
  v.alternatives.emplace_back(
      "OPEN-1: table reading (index pair (2, 0) reads A[4g+2] twice)",
      expectC(v.program, oracle::denseMatmulS8(o.a, table, zero), p.c.cAddr, false));
  return v;
}

}  // namespace

Family loadSparseFamily(isa::ProfileId profile) {
  Family f;
  f.title = "LoadDataWithSparse (2:4 dense values and indices into L0B)";
  f.spec = {"spec 7.1", "spec 7.3"};
  f.openPoints = {"OPEN-4", "OPEN-5"};
  f.requiredBins = {"repeat:0",
                    "repeat:1",
                    "repeat:2+",
                    "dst:ends_at_capacity",
                    "ignored_fields:nonzero",
                    "illegal:TransposePath",
                    "illegal:Capacity"};
  if (!isa::hasSparse(profile)) f.unsupported = notOnProfile(profile);
  const isa::ProfileId gp = isa::hasSparse(profile) ? profile : isa::ProfileId::A2;
  f.properties.push_back(TypedProperty<LoadSparseCase>::fromVector(
      "MatchesOracle",
      "a legal load puts the dense fractals in L0B and the index fractals at L0B "
      "address / 4 (OPEN-4), ignores src_stride and dst_gap (OPEN-5), and leaves the "
      "canaries unchanged",
      gen::loadSparseBoundaries(gp), gen::legalLoadSparse(gp), 300,
      [](const LoadSparseCase& c) { return oracleVector(gen::buildProgram(c)); },
      [](const LoadSparseCase& c) { return gen::tagsOf(c); }));
  f.properties.push_back(TypedProperty<IllegalLoadSparseCase>::fromVector(
      std::string(kRejectsIllegal),
      "a load that transposes, is not int8, is misaligned or over capacity is rejected "
      "with that rule's violation code instead of being executed",
      std::vector<IllegalLoadSparseCase>{}, gen::illegalLoadSparse(gp), 100,
      [](const IllegalLoadSparseCase& c) {
        return rejectionVector(gen::buildProgram(c.c), c.expected);
      },
      [](const IllegalLoadSparseCase& c) {
        return std::vector<std::string>{"illegal:" + std::string(isa::nameOf(c.expected))};
      }));
  f.properties.push_back(noStrayWrites(
      gen::legalLoadSparse(gp), 40, [](const LoadSparseCase& c) { return gen::buildProgram(c); }));
  return f;
}

Family mmadSparseFamily(isa::ProfileId profile, gen::Sizes sizes) {
  Family f;
  f.title = "LoadDataWithSparse then MmadWithSparse (2:4 structured sparsity)";
  f.spec = {"spec 7", "spec 8", "spec 9"};
  f.openPoints = {"OPEN-1", "OPEN-2", "OPEN-3", "OPEN-4", "OPEN-6", "OPEN-8"};
  // Every one of the 16 zero/non-zero masks, every init mode, the edges (spec 7).
  for (int mask = 0; mask < 16; ++mask) f.requiredBins.push_back("mask:" + gen::maskName(mask));
  for (const char* bin :
       {"init:zero", "init:accumulate", "init:bias", "zero_dimension", "m:partial_fractal",
        "n:partial_fractal", "k:not_multiple_of_64", "saturation", "group:3+_nonzeros",
        "probe:OPEN-1", "illegal:Range", "load_sparse:split"}) {
    f.requiredBins.emplace_back(bin);
  }
  if (!isa::hasSparse(profile)) f.unsupported = notOnProfile(profile);
  const isa::ProfileId gp = isa::hasSparse(profile) ? profile : isa::ProfileId::A2;
  f.requireSizeBins(gen::sparseSizeBins(gp, true), gen::sparseSizeBins(gp, false));
  f.properties.push_back(TypedProperty<SparseMmadCase>::fromVector(
      "MatchesOracle",
      "LoadDataWithSparse then MmadWithSparse leave C = init + A * B' computed from the "
      "logical operands, for every 2:4 mask and init mode",
      gen::sparseMmadBoundaries(gp), gen::legalSparseMmad(gp, true, sizes), 150,
      sparsePipelineVector, [](const SparseMmadCase& c) { return gen::tagsOf(c); }));
  f.properties.push_back(TypedProperty<IllegalSparseMmadCase>::fromVector(
      std::string(kRejectsIllegal),
      "an MmadWithSparse with m = 1, a bad unit_flag, k > 4095, or misaligned or "
      "oversized operands is rejected with that rule's violation code instead of being "
      "executed",
      std::vector<IllegalSparseMmadCase>{}, gen::illegalSparseMmad(gp), 100,
      [](const IllegalSparseMmadCase& c) {
        isa::Program p = gen::buildProgram(c.c);
        p.instructions.back() = c.mmad;
        return rejectionVector(std::move(p), c.expected);
      },
      [](const IllegalSparseMmadCase& c) {
        return std::vector<std::string>{"illegal:" + std::string(isa::nameOf(c.expected))};
      }));
  f.properties.push_back(TypedProperty<ProbeCase>::fromVector(
      "Open1Probe",
      "OPEN-1 probe: with index pair (2, 0) and a non-zero slot-1 value, C equals the "
      "prose or the table reading and the report names which",
      std::vector<ProbeCase>{}, probeCases(gp), 10, open1ProbeVector,
      [](const ProbeCase&) { return std::vector<std::string>{"probe:OPEN-1"}; }));
  return f;
}

}  // namespace cubecheck::conf
