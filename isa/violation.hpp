// Why a program is illegal: the closed list of reasons a DUT may give when it rejects one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cubecheck::isa {

enum class ViolationCode : std::uint8_t {
  PathUnsupported,     ///< the profile has no such data path for the instruction
  DTypeUnsupported,    ///< the profile has no such data type
  Range,               ///< a field outside its documented range
  Alignment,           ///< a start address not aligned as spec 1 requires
  Capacity,            ///< a footprint that ends past the memory's capacity
  TransposePath,       ///< transpose requested on a path that cannot transpose
  TransposeType,       ///< transpose of a type other than 16-bit (spec 4)
  DecrementUnderflow,  ///< addr_mode decrement walks below fractal 0
  UndefinedMemory,     ///< the program reads or observes bytes it never defined
};

struct Violation {
  ViolationCode code;
  std::string
      message;  ///< names the field, its value and the rule, e.g. "dst 0x10 not 512-B aligned"
};

std::string_view nameOf(ViolationCode c);

/// Inverse of nameOf; nullopt for an unknown name.
std::optional<ViolationCode> parseViolationCode(std::string_view name);

}  // namespace cubecheck::isa
