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
  return std::any_of(std::begin(kFamilies), std::end(kFamilies),
                     [&](const FamilyRow& r) { return r.name == family; });
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
  for (const FamilyRow& row : kFamilies) {
    if (row.name != family) continue;
    Family f = row.make(profile, sizes);
    f.name = std::string(row.name);
    return f;
  }
  return std::nullopt;
}

}  // namespace cubecheck::conf
