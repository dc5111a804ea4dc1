// A Program: initial memory images, an instruction list, the regions to observe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "isa/load2d.hpp"
#include "isa/load2d_v2.hpp"
#include "isa/load3d.hpp"
#include "isa/load_mx.hpp"
#include "isa/memory.hpp"
#include "isa/mmad.hpp"
#include "isa/profile.hpp"
#include "isa/sparse.hpp"
#include "isa/violation.hpp"

namespace cubecheck::isa {

using Bytes = std::vector<std::uint8_t>;

/// The 32-bit word at byte `at` of b, little-endian: how every memory image and observed region
/// holds an s32 or f32 (spec 2). Bounds-checked.
inline std::uint32_t wordAt(const Bytes& b, std::size_t at) {
  return std::uint32_t{b.at(at)} | std::uint32_t{b.at(at + 1)} << 8 |
         std::uint32_t{b.at(at + 2)} << 16 | std::uint32_t{b.at(at + 3)} << 24;
}
/// Writes w as the 32-bit word at byte `at` of b, little-endian. Bounds-checked.
inline void putWord(Bytes& b, std::size_t at, std::uint32_t w) {
  for (std::size_t i = 0; i < 4; ++i) b.at(at + i) = static_cast<std::uint8_t>(w >> (8 * i));
}

/// Initial contents of [addr, addr + bytes.size()) in one memory. A program defines only the bytes
/// it needs (GM is unbounded, so a large src_stride is a few small segments, not gigabytes);
/// reading bytes no segment defines is an error, not a zero.
struct Segment {
  Memory memory = Memory::GM;
  std::uint64_t addr = 0;
  Bytes bytes;
};

/// A range whose final contents the DUT reports after the last instruction.
struct Region {
  Memory memory = Memory::GM;
  std::uint64_t addr = 0;
  std::uint64_t size = 0;  ///< bytes

  friend bool operator==(const Region&, const Region&) = default;
};

/// Every instruction the suite can express. Later families add alternatives here.
using Instruction =
    std::variant<Load2D, LoadSparse, MmadSparse, LoadV2, LoadBitMode, Load3DV2, Load3DV2Pro,
                 Load3DV1, SetFmatrix, SetPadding, Mmad, SetHF32, SetHiF8Mode, MmadMx, LoadMxScale>;

/// Lambdas overloaded into one visitor for std::visit over Instruction.
template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

/// The legality rules of whichever instruction this is.
std::optional<Violation> validate(const Profile& profile, const Instruction& instruction);
std::string describe(const Instruction& instruction);

struct Program {
  ProfileId profile = ProfileId::A2;
  std::vector<Segment> segments;  ///< non-overlapping within a memory
  std::vector<Instruction> instructions;
  std::vector<Region> observe;  ///< each inside one segment
};

/// The observed contents, one byte vector per Program::observe entry, in the same order.
using Observed = std::vector<Bytes>;

/// The opcode a DUT declares to run this instruction: "load2d" (LoadData with LoadData2DParams).
std::string_view opcodeOf(const Instruction& instruction);

/// Every opcode of Instruction, in the variant's order: what a DUT that runs everything declares.
std::vector<std::string> allOpcodes();

/// The element type the instruction moves or consumes; nullopt for one that has none
/// (SetFmatrix).
std::optional<DType> dtypeOf(const Instruction& instruction);

/// The segment holding all of [addr, addr + size) in memory m, or nullptr.
const Segment* findSegment(const std::vector<Segment>& segments, Memory m, std::uint64_t addr,
                           std::uint64_t size);
Segment* findSegment(std::vector<Segment>& segments, Memory m, std::uint64_t addr,
                     std::uint64_t size);

/// Checks what every instruction relies on: segments inside capacity and not overlapping,
/// observed regions inside a segment. nullopt when well formed.
std::optional<Violation> validateStructure(const Program& program);

/// Every rule a program can be checked against before it runs, in the order a validating DUT
/// meets them: validateStructure, then each instruction's validate(), then the Load3D
/// feature-map rules (validateFeatureMap) of each V2/V2Pro load against the FMATRIX or FMATRIX_B
/// value the instructions before it wrote (spec 6.2), which is UndefinedMemory where no
/// instruction before it wrote FMATRIX (FMATRIX_B) or PADDING: a program starts with every
/// register unwritten. Reads of bytes no segment defines are left to execution. nullopt when
/// legal.
std::optional<Violation> validateProgram(const Program& program);

}  // namespace cubecheck::isa
