// Checked img2col (LoadData 3D V2) cases per second, as ratios against building the case's
// program in the same run. Cases are drawn from the legal a2 generator: maps of up to a few KiB,
// blocks of up to 128 x 64 elements.
#include <benchmark/benchmark.h>

#include "conformance/checks.hpp"
#include "dut_adapters/reference/reference_dut.hpp"
#include "generators/load3d.hpp"
#include "oracle/oracle.hpp"

namespace {

using namespace cubecheck;

const std::vector<gen::Load3DCase>& cases() {
  static const std::vector<gen::Load3DCase> kCases = [] {
    std::vector<gen::Load3DCase> v;
    const auto g = gen::legalLoad3D(isa::ProfileId::A2);
    for (std::uint64_t i = 0; i < 512; ++i) v.push_back(g(rc::Random(i), 50).value());
    return v;
  }();
  return kCases;
}

void BM_Im2col_Baseline_BuildProgram(benchmark::State& state) {
  std::size_t i = 0;
  for (auto _ : state) {
    isa::Program p = gen::buildProgram(cases()[i++ & 511], false);
    benchmark::DoNotOptimize(p.segments.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_Im2col_Baseline_BuildProgram);

void BM_Im2col_ReferenceRun(benchmark::State& state) {
  dut::ReferenceDut ref;
  std::vector<isa::Program> programs;
  for (const auto& c : cases()) programs.push_back(gen::buildProgram(c, false));
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(ref.run(programs[i++ & 511]));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_Im2col_ReferenceRun);

void BM_Im2col_OracleExpect(benchmark::State& state) {
  std::vector<isa::Program> programs;
  for (const auto& c : cases()) programs.push_back(gen::buildProgram(c, false));
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(oracle::expect(programs[i++ & 511]));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_Im2col_OracleExpect);

/// One whole check: program, Eigen im2col oracle, reference run, exact comparison.
void BM_Im2col_CheckedCase(benchmark::State& state) {
  dut::ReferenceDut ref;
  std::size_t i = 0;
  for (auto _ : state) {
    const conf::Verdict v =
        conf::checkAgainstOracle(ref, gen::buildProgram(cases()[i++ & 511], false));
    if (v.outcome != conf::Outcome::Pass && v.outcome != conf::Outcome::NotSupported) {
      state.SkipWithError(v.detail.c_str());
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_Im2col_CheckedCase)->UseRealTime();

}  // namespace
