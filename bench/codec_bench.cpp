// Layout codec throughput, elements per second per data type, against a memcpy of the same
// bytes in the same run (the floor any codec has to pay).
#include <benchmark/benchmark.h>

#include <cstring>

#include "generators/fill.hpp"
#include "oracle/layout.hpp"

namespace {

using namespace cubecheck;

oracle::ElemMatrix matrixOf(isa::DType t, int rows, int cols) {
  gen::SplitMix64 g(7);
  const std::uint32_t mask = isa::bitsOf(t) == 32 ? 0xFFFFFFFFu : (1u << isa::bitsOf(t)) - 1;
  oracle::ElemMatrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m(i) = static_cast<std::uint32_t>(g.next()) & mask;
  return m;
}

void BM_Baseline_Memcpy256x256(benchmark::State& state) {
  const auto t = static_cast<isa::DType>(state.range(0));
  const std::size_t bytes = 256 * 256 * static_cast<std::size_t>(isa::bitsOf(t)) / 8;
  std::vector<std::uint8_t> a(bytes, 1), b(bytes);
  for (auto _ : state) {
    std::memcpy(b.data(), a.data(), bytes);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 256 * 256);
  state.SetLabel(std::string(isa::nameOf(t)));
}

void BM_EncodeNz256x256(benchmark::State& state) {
  const auto t = static_cast<isa::DType>(state.range(0));
  const oracle::ElemMatrix m = matrixOf(t, 256, 256);
  for (auto _ : state) benchmark::DoNotOptimize(oracle::encode(m, oracle::Layout::Nz, t));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 256 * 256);
  state.SetLabel(std::string(isa::nameOf(t)));
}

void BM_DecodeNz256x256(benchmark::State& state) {
  const auto t = static_cast<isa::DType>(state.range(0));
  const isa::Bytes bytes = oracle::encode(matrixOf(t, 256, 256), oracle::Layout::Nz, t);
  for (auto _ : state)
    benchmark::DoNotOptimize(oracle::decode(bytes, oracle::Layout::Nz, t, 256, 256));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * 256 * 256);
  state.SetLabel(std::string(isa::nameOf(t)));
}

void perType(benchmark::internal::Benchmark* b) {
  for (isa::DType t : {isa::DType::S4, isa::DType::S8, isa::DType::F16, isa::DType::F32}) {
    b->Arg(static_cast<int>(t));
  }
}

BENCHMARK(BM_Baseline_Memcpy256x256)->Apply(perType);
BENCHMARK(BM_EncodeNz256x256)->Apply(perType);
BENCHMARK(BM_DecodeNz256x256)->Apply(perType);

}  // namespace
