// Checked Mmad cases per second at 16^3 and 128^3 for every operand type, and the oracle's
// GEMM against Eigen's own dense product on the same shapes. Read the figures as ratios against
// the baselines measured in the same run (building the program; Eigen's float product).
#include <benchmark/benchmark.h>

#include "conformance/checks.hpp"
#include "conformance/runner.hpp"
#include "dut_adapters/reference/reference_dut.hpp"
#include "generators/mmad.hpp"
#include "oracle/mmad.hpp"

namespace {

using namespace cubecheck;

/// As the CLI runs (conf::keepFreedMemoryForReuse), before any benchmark.
const bool kAllocatorTuned = [] {
  conf::keepFreedMemoryForReuse();
  return true;
}();

const isa::DType kTypes[] = {isa::DType::S8, isa::DType::S4, isa::DType::F16, isa::DType::BF16,
                             isa::DType::F32};

gen::MmadCase caseOf(const benchmark::State& state) {
  gen::MmadCase c;
  c.dtype = kTypes[state.range(0)];
  c.m = c.k = c.n = static_cast<std::uint16_t>(state.range(1));
  c.init = isa::MmadInit::Accumulate;
  c.contentSeed = 42;
  return c;
}

void typeArgs(benchmark::internal::Benchmark* b) {
  for (int t = 0; t < 5; ++t) {
    for (int size : {16, 128}) b->Args({t, size});
  }
}

void BM_Mmad_Baseline_BuildProgram(benchmark::State& state) {
  const gen::MmadCase c = caseOf(state);
  for (auto _ : state) benchmark::DoNotOptimize(gen::buildProgram(c));
  state.SetLabel(std::string(isa::nameOf(c.dtype)));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_Mmad_Baseline_BuildProgram)->Apply(typeArgs);

/// One whole check: program, expected C from the logical operands, reference run, comparison.
void checkEachIteration(benchmark::State& state, const gen::MmadCase& c) {
  dut::ReferenceDut ref;
  for (auto _ : state) {
    const gen::MmadOperands o = gen::operandsOf(c);
    isa::Program p = gen::buildProgram(c, o);
    const oracle::Expected e = oracle::expectC(p, 0, gen::expectedC(c, o), c.cAddr);
    const conf::Verdict v = conf::checkExpected(ref, p, e);
    if (v.outcome != conf::Outcome::Pass) state.SkipWithError(v.detail.c_str());
  }
}

void BM_Mmad_CheckedCase(benchmark::State& state) {
  const gen::MmadCase c = caseOf(state);
  checkEachIteration(state, c);
  state.SetLabel(std::string(isa::nameOf(c.dtype)));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_Mmad_CheckedCase)->Apply(typeArgs)->UseRealTime();

/// The oracle's product (exact in double, then converted) on n^3 f32 operands.
void BM_Mmad_OracleGemm(benchmark::State& state) {
  const auto n = static_cast<Eigen::Index>(state.range(0));
  const oracle::MatrixD a = oracle::MatrixD::Random(n, n), b = oracle::MatrixD::Random(n, n);
  const oracle::MatrixD init = oracle::MatrixD::Zero(n, n);
  for (auto _ : state) benchmark::DoNotOptimize(oracle::mmadResult(isa::DType::F32, a, b, init));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_Mmad_OracleGemm)->Arg(16)->Arg(128);

/// Baseline: Eigen's own float product of the same shapes.
void BM_Mmad_Baseline_EigenGemm(benchmark::State& state) {
  const auto n = static_cast<Eigen::Index>(state.range(0));
  const Eigen::MatrixXf a = Eigen::MatrixXf::Random(n, n), b = Eigen::MatrixXf::Random(n, n);
  Eigen::MatrixXf c(n, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_Mmad_Baseline_EigenGemm)->Arg(16)->Arg(128);

/// The largest shapes the generators draw (the a2 boundary table's largest-that-fits cases and
/// k = 4095), each checked whole, beside Eigen's float product of the same m x k x n: read
/// BM_Mmad_CheckedCase_Largest/<case> against BM_Mmad_Baseline_EigenGemm_Shape/<case>.
const bool kLargestRegistered = [] {
  for (const gen::MmadCase& table : gen::mmadBoundaries(isa::ProfileId::A2)) {
    if (table.why.find("largest") == std::string::npos &&
        table.why.find("its maximum") == std::string::npos) {
      continue;
    }
    gen::MmadCase c = table;
    c.init = isa::MmadInit::Accumulate;
    const std::string shape = std::string(isa::nameOf(c.dtype)) + "_" + std::to_string(c.m) + "x" +
                              std::to_string(c.k) + "x" + std::to_string(c.n);
    benchmark::RegisterBenchmark(("BM_Mmad_CheckedCase_Largest/" + shape).c_str(),
                                 [c](benchmark::State& state) { checkEachIteration(state, c); })
        ->UseRealTime();
    benchmark::RegisterBenchmark(("BM_Mmad_Baseline_EigenGemm_Shape/" + shape).c_str(),
                                 [c](benchmark::State& state) {
                                   const Eigen::MatrixXf a = Eigen::MatrixXf::Random(c.m, c.k),
                                                         b = Eigen::MatrixXf::Random(c.k, c.n);
                                   Eigen::MatrixXf r(c.m, c.n);
                                   for (auto _ : state) {
                                     r.noalias() = a * b;
                                     benchmark::DoNotOptimize(r.data());
                                   }
                                 });
  }
  return true;
}();

}  // namespace
