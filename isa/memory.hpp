// Memories and buffer positions of the cube pipeline (spec 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace cubecheck::isa {

/// The bytes of one L0A/L0B/L1 fractal: what a load moves per repeat (spec 2, 4). The one home of
/// this number: nothing else spells 512.
inline constexpr std::uint64_t kFractalBytes = 512;

/// a / b rounded up: how many fractals, blocks or bytes hold a things of b.
constexpr std::uint64_t ceilDiv(std::uint64_t a, std::uint64_t b) {
  return (a + b - 1) / b;
}

/// A physical memory: what a Program's images and observed regions are addressed in. A1 and B1
/// are both L1; A2 is L0A, B2 is L0B, CO1 is L0C.
enum class Memory : std::uint8_t {
  GM,           ///< global memory: unbounded, byte-aligned addresses
  L1,           ///< positions A1 and B1
  L0A,          ///< position A2
  L0B,          ///< position B2
  L0C,          ///< position CO1
  BiasTable,    ///< Mmad bias table (spec 7.4, 8)
  SparseIndex,  ///< 2:4 index buffer, no address of its own (spec 7.3)
  L0AMx,        ///< 950: A's E8M0 MX scales, read by MmadMx at the L0A address / 16
  L0BMx,        ///< 950: B's E8M0 MX scales, read by MmadMx at the L0B address / 16
};

inline constexpr int kMemoryCount = 9;
static_assert(static_cast<int>(Memory::L0BMx) + 1 == kMemoryCount, "a memory without a count");

/// Every memory, in enum order: what a DUT that observes everything (the reference, recorded
/// results) declares, so a memory added above reaches them without another list to edit.
inline std::vector<Memory> allMemories() {
  std::vector<Memory> out;
  for (int i = 0; i < kMemoryCount; ++i) out.push_back(static_cast<Memory>(i));
  return out;
}

/// The TPosition names an instruction uses for its operands.
enum class Position : std::uint8_t { GM, A1, B1, A2, B2, CO1, BiasTable, SparseIndex };

constexpr Memory memoryOf(Position p) {
  switch (p) {
    case Position::GM:
      return Memory::GM;
    case Position::A1:
    case Position::B1:
      return Memory::L1;
    case Position::A2:
      return Memory::L0A;
    case Position::B2:
      return Memory::L0B;
    case Position::CO1:
      return Memory::L0C;
    case Position::BiasTable:
      return Memory::BiasTable;
    case Position::SparseIndex:
      return Memory::SparseIndex;
  }
  return Memory::GM;
}

/// True for the positions whose fractals are read as B operands (K rows x 16 columns, stored
/// column-major inside the fractal, spec 2).
constexpr bool isBSide(Position p) {
  return p == Position::B1 || p == Position::B2;
}

std::string_view nameOf(Memory m);
std::string_view nameOf(Position p);
std::optional<Memory> parseMemory(std::string_view name);
std::optional<Position> parsePosition(std::string_view name);

}  // namespace cubecheck::isa
