// libFuzzer harness for the vector-file reader: any bytes, as a vector file with or without a
// sidecar directory, must give rows or file/line errors, never a crash, a hang or a leak.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "vectors/vectors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::filesystem::path dir = [] {
    auto d =
        std::filesystem::temp_directory_path() / ("cubecheck_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d / "bin");
    return d;
  }();
  const auto file = dir / "input.csv";
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  const cubecheck::vec::ReadResult r = cubecheck::vec::readFile(file);
  // Whatever was accepted must be well formed enough to describe itself again.
  for (const auto& row : r.rows) {
    if (row.caseId.size() != 16) __builtin_trap();
  }
  return 0;
}
