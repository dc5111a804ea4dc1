// Checked sparse pipeline cases per second at M = N = K = 128 (issue target: >= 500 per core;
// the vendor's numpy golden flow checks 18.6 per second, docs/architecture.md). Read against
// BM_Baseline_BuildSparseProgram from the same run.
#include <benchmark/benchmark.h>

#include "conformance/families.hpp"
#include "dut_adapters/reference/reference_dut.hpp"
#include "generators/sparse.hpp"
#include "oracle/sparse.hpp"

namespace {

using namespace cubecheck;

gen::SparseMmadCase cube128(std::uint64_t seed) {
  gen::SparseMmadCase c;
  c.m = c.k = c.n = 128;
  c.init = gen::InitMode::Accumulate;
  c.idxAddr = 32 * 512;
  c.contentSeed = seed;
  return c;
}

/// Drawing the operands and packing B, A and C into their buffers: the least any check needs.
void BM_Baseline_BuildSparseProgram(benchmark::State& state) {
  std::uint64_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(gen::buildProgram(cube128(i++)));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_Baseline_BuildSparseProgram)->Unit(benchmark::kMicrosecond);

void BM_OracleSparseMatmul128(benchmark::State& state) {
  const gen::SparseOperands o = gen::operandsOf(cube128(1));
  for (auto _ : state) benchmark::DoNotOptimize(oracle::sparseMatmul(o.a, o.b, o.c0));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_OracleSparseMatmul128)->Unit(benchmark::kMicrosecond);

void BM_ReferenceSparsePipeline128(benchmark::State& state) {
  dut::ReferenceDut ref;
  const isa::Program p = gen::buildProgram(cube128(1));
  for (auto _ : state) benchmark::DoNotOptimize(ref.run(p));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_ReferenceSparsePipeline128)->Unit(benchmark::kMicrosecond);

/// The whole check: build, run the reference, compute C = init + A*B', compare.
void BM_CheckedSparsePipeline128(benchmark::State& state) {
  dut::ReferenceDut ref;
  std::uint64_t i = 0;
  for (auto _ : state) {
    const conf::Verdict v = conf::checkSparsePipeline(ref, cube128(i++));
    if (v.outcome != conf::Outcome::Pass) state.SkipWithError(v.detail.c_str());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_CheckedSparsePipeline128)->Unit(benchmark::kMicrosecond);

}  // namespace
