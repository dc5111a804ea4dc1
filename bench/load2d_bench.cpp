// Checked LoadData2D cases per second (issue target: >= 20,000 per core for cases of up to 16
// fractals). Figures are meant as ratios against BM_Baseline_BuildProgram, measured in the same
// run: building a case's buffers is the least any checker must do.
#include <benchmark/benchmark.h>

#include "conformance/checks.hpp"
#include "dut_adapters/reference/reference_dut.hpp"
#include "dut_adapters/registry.hpp"
#include "generators/load2d.hpp"
#include "oracle/oracle.hpp"

namespace {

using namespace cubecheck;

/// 1024 legal a2 cases of 1 to 16 fractals, drawn once.
const std::vector<gen::Load2DCase>& cases() {
  static const std::vector<gen::Load2DCase> kCases = [] {
    std::vector<gen::Load2DCase> v;
    const auto g = gen::legalLoad2D(isa::ProfileId::A2, {{}, 1, 16, std::nullopt});
    for (std::uint64_t i = 0; i < 1024; ++i) v.push_back(g(rc::Random(i), 50).value());
    return v;
  }();
  return kCases;
}

void BM_Baseline_BuildProgram(benchmark::State& state) {
  std::size_t i = 0;
  for (auto _ : state) {
    isa::Program p = gen::buildProgram(cases()[i++ & 1023]);
    benchmark::DoNotOptimize(p.segments.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_Baseline_BuildProgram);

void BM_ReferenceRun(benchmark::State& state) {
  dut::ReferenceDut ref;
  std::vector<isa::Program> programs;
  for (const auto& c : cases()) programs.push_back(gen::buildProgram(c));
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(ref.run(programs[i++ & 1023]));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_ReferenceRun);

void BM_OracleExpect(benchmark::State& state) {
  std::vector<isa::Program> programs;
  for (const auto& c : cases()) programs.push_back(gen::buildProgram(c));
  std::size_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(oracle::expect(programs[i++ & 1023]));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_OracleExpect);

/// The whole check of one drawn case: program, oracle, reference run, exact comparison.
void BM_CheckedLoad2DCase(benchmark::State& state) {
  dut::ReferenceDut ref;
  std::size_t i = 0;
  for (auto _ : state) {
    const conf::Verdict v = conf::checkAgainstOracle(ref, gen::buildProgram(cases()[i++ & 1023]));
    if (v.outcome != conf::Outcome::Pass) state.SkipWithError(v.detail.c_str());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_CheckedLoad2DCase)->UseRealTime();

/// The same check through exec: and the example C DUT (a separate process, pipes, the wire
/// protocol): to be read as a ratio to BM_CheckedLoad2DCase.
void BM_CheckedLoad2DCase_ExecExampleC(benchmark::State& state) {
  auto dut = dut::makeDut(std::string("exec:") + EXAMPLE_C_DUT);
  std::size_t i = 0;
  for (auto _ : state) {
    const conf::Verdict v = conf::checkAgainstOracle(*dut, gen::buildProgram(cases()[i++ & 1023]));
    if (v.outcome != conf::Outcome::Pass) state.SkipWithError(v.detail.c_str());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_CheckedLoad2DCase_ExecExampleC)->UseRealTime();

/// The same library as a plugin (a forked child serving it over pipes) and in process (no
/// pipes): what isolating a plugin costs per case.
void checkedThrough(benchmark::State& state, const std::string& spec) {
  auto dut = dut::makeDut(spec);
  std::size_t i = 0;
  for (auto _ : state) {
    const conf::Verdict v = conf::checkAgainstOracle(*dut, gen::buildProgram(cases()[i++ & 1023]));
    if (v.outcome != conf::Outcome::Pass) state.SkipWithError(v.detail.c_str());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
void BM_CheckedLoad2DCase_PluginExampleC(benchmark::State& state) {
  checkedThrough(state, std::string("plugin:") + EXAMPLE_PLUGIN_DUT);
}
BENCHMARK(BM_CheckedLoad2DCase_PluginExampleC)->UseRealTime();
void BM_CheckedLoad2DCase_InprocessExampleC(benchmark::State& state) {
  checkedThrough(state, std::string("inprocess:") + EXAMPLE_PLUGIN_DUT);
}
BENCHMARK(BM_CheckedLoad2DCase_InprocessExampleC)->UseRealTime();

/// The same, including the RapidCheck draw of the case (as the runner does it).
void BM_DrawnAndCheckedLoad2DCase(benchmark::State& state) {
  dut::ReferenceDut ref;
  const auto g = gen::legalLoad2D(isa::ProfileId::A2, {{}, 1, 16, std::nullopt});
  std::uint64_t i = 0;
  for (auto _ : state) {
    const gen::Load2DCase c = g(rc::Random(i++), 50).value();
    const conf::Verdict v = conf::checkAgainstOracle(ref, gen::buildProgram(c));
    if (v.outcome != conf::Outcome::Pass) state.SkipWithError(v.detail.c_str());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_DrawnAndCheckedLoad2DCase);

}  // namespace

BENCHMARK_MAIN();
