// Golden-vector replay: parsing throughput (bytes of CSV and sidecars per second) and checked
// cases per second against the reference, over the checked-in vectors/golden. The baseline is
// reading the same bytes into memory without parsing.
#include <benchmark/benchmark.h>

#include <fstream>

#include "dut_adapters/reference/reference_dut.hpp"
#include "vectors/vectors.hpp"

namespace {

using namespace cubecheck;
namespace fs = std::filesystem;

std::int64_t goldenBytes() {
  std::int64_t n = 0;
  for (const auto& e : fs::recursive_directory_iterator(GOLDEN_DIR)) {
    if (e.is_regular_file()) n += static_cast<std::int64_t>(e.file_size());
  }
  return n;
}

void BM_Baseline_ReadGoldenBytes(benchmark::State& state) {
  for (auto _ : state) {
    for (const auto& e : fs::recursive_directory_iterator(GOLDEN_DIR)) {
      if (!e.is_regular_file()) continue;
      std::ifstream in(e.path(), std::ios::binary);
      std::string s{std::istreambuf_iterator<char>(in), {}};
      benchmark::DoNotOptimize(s.data());
    }
  }
  state.SetBytesProcessed(state.iterations() * goldenBytes());
}
BENCHMARK(BM_Baseline_ReadGoldenBytes)->Unit(benchmark::kMillisecond);

void BM_ParseGoldenVectors(benchmark::State& state) {
  std::size_t rows = 0;
  for (auto _ : state) {
    for (const auto& f : vec::vectorFiles(GOLDEN_DIR)) rows += vec::readFile(f).rows.size();
  }
  state.SetBytesProcessed(state.iterations() * goldenBytes());
  state.counters["cases/s"] =
      benchmark::Counter(static_cast<double>(rows), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ParseGoldenVectors)->Unit(benchmark::kMillisecond);

void BM_ReplayGoldenVectorsReference(benchmark::State& state) {
  std::vector<vec::Row> rows;
  for (const auto& f : vec::vectorFiles(GOLDEN_DIR)) {
    for (auto& r : vec::readFile(f).rows) rows.push_back(std::move(r));
  }
  dut::ReferenceDut ref;
  for (auto _ : state) {
    for (const auto& r : rows) benchmark::DoNotOptimize(conf::checkVector(ref, r.c));
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(rows.size()));
}
BENCHMARK(BM_ReplayGoldenVectorsReference)->Unit(benchmark::kMillisecond);

}  // namespace
