// Which memories an instruction writes: everything else a program holds must end as it began.
#pragma once

#include <vector>

#include "isa/program.hpp"

namespace cubecheck::isa {

/// The memories the instruction may write (its destinations; none for the register setters):
/// every other memory of a program must end as it began, a load's source included.
inline std::vector<Memory> writtenMemories(const Instruction& instruction) {
  return std::visit(
      Overloaded{[](const LoadSparse&) {
                   return std::vector<Memory>{Memory::L0B, Memory::SparseIndex};  // spec 7.3
                 },
                 [](const Mmad&) { return std::vector<Memory>{Memory::L0C}; },
                 [](const MmadMx&) { return std::vector<Memory>{Memory::L0C}; },
                 [](const LoadMxScale& l) { return std::vector<Memory>{mxBufferOf(l)}; },
                 [](const MmadSparse&) { return std::vector<Memory>{Memory::L0C}; },
                 [](const auto& i) -> std::vector<Memory> {
                   if constexpr (requires { i.path; }) {
                     return {memoryOf(dstOf(i.path))};
                   } else {
                     return {};  // SetFmatrix, SetPadding, SetHF32 write registers only
                   }
                 }},
      instruction);
}

}  // namespace cubecheck::isa
