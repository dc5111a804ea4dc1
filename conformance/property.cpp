#include "conformance/property.hpp"

#include <algorithm>

#include "conformance/families.hpp"

namespace cubecheck::conf {

std::uint64_t caseSeed(std::uint64_t seed, std::string_view name, std::uint64_t index) {
  std::uint64_t h = 0xCBF29CE484222325ull;  // FNV-1a 64
  for (unsigned char ch : name) h = (h ^ ch) * 0x100000001B3ull;
  std::uint64_t z = seed ^ h ^ (index * 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

bool isImplemented(std::string_view family) {
  return family == "load2d" || family == "load2d_v2" || family == "load2d_bitmode" ||
         family == "load_sparse" || family == "mmad_sparse" || family == "load3d_v2" ||
         family == "load3d_v2pro" || family == "load3d_v1" || family == "mmad" ||
         family == "mmad_lowprec" || family == "pipeline";
}

void Family::requireSizeBins(const std::vector<std::string>& small,
                             const std::vector<std::string>& all) {
  requiredBins.insert(requiredBins.end(), small.begin(), small.end());
  for (const std::string& b : all) {
    if (std::find(small.begin(), small.end(), b) == small.end()) requiredBinsFull.push_back(b);
  }
}

std::optional<Family> makeFamily(std::string_view family, isa::ProfileId profile,
                                 gen::Sizes sizes) {
  if (family == "load2d") return load2dFamily(profile);
  if (family == "load2d_v2") return load2dV2Family(profile);
  if (family == "load2d_bitmode") return load2dBitModeFamily(profile);
  if (family == "load_sparse") return loadSparseFamily(profile);
  if (family == "mmad_sparse") return mmadSparseFamily(profile, sizes);
  if (family == "load3d_v2") return load3dV2Family(profile);
  if (family == "load3d_v2pro") return load3dV2ProFamily(profile);
  if (family == "load3d_v1") return load3dV1Family(profile);
  if (family == "mmad") return mmadFamily(profile, sizes);
  if (family == "mmad_lowprec") return mmadLowPrecisionFamily(profile, sizes);
  if (family == "pipeline") return pipelineFamily(profile, sizes);
  return std::nullopt;
}

}  // namespace cubecheck::conf
