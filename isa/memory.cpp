#include "isa/memory.hpp"

#include <array>

namespace cubecheck::isa {
namespace {
constexpr std::array<std::string_view, kMemoryCount> kMemoryNames{
    "GM", "L1", "L0A", "L0B", "L0C", "BT", "IDX", "L0A_MX", "L0B_MX"};
constexpr std::array<std::string_view, 8> kPositionNames{"GM", "A1",  "B1", "A2",
                                                         "B2", "CO1", "BT", "IDX"};
}  // namespace

std::string_view nameOf(Memory m) {
  return kMemoryNames.at(static_cast<std::size_t>(m));
}
std::string_view nameOf(Position p) {
  return kPositionNames.at(static_cast<std::size_t>(p));
}

std::optional<Memory> parseMemory(std::string_view name) {
  for (std::size_t i = 0; i < kMemoryNames.size(); ++i) {
    if (kMemoryNames[i] == name) return static_cast<Memory>(i);
  }
  return std::nullopt;
}

std::optional<Position> parsePosition(std::string_view name) {
  for (std::size_t i = 0; i < kPositionNames.size(); ++i) {
    if (kPositionNames[i] == name) return static_cast<Position>(i);
  }
  return std::nullopt;
}

}  // namespace cubecheck::isa
