#include "isa/violation.hpp"

namespace cubecheck::isa {

std::string_view nameOf(ViolationCode c) {
  switch (c) {
    case ViolationCode::PathUnsupported:
      return "PathUnsupported";
    case ViolationCode::DTypeUnsupported:
      return "DTypeUnsupported";
    case ViolationCode::Range:
      return "Range";
    case ViolationCode::Alignment:
      return "Alignment";
    case ViolationCode::Capacity:
      return "Capacity";
    case ViolationCode::TransposePath:
      return "TransposePath";
    case ViolationCode::TransposeType:
      return "TransposeType";
    case ViolationCode::DecrementUnderflow:
      return "DecrementUnderflow";
    case ViolationCode::UndefinedMemory:
      return "UndefinedMemory";
  }
  return "?";
}

std::optional<ViolationCode> parseViolationCode(std::string_view name) {
  for (int c = 0; c <= static_cast<int>(ViolationCode::UndefinedMemory); ++c) {
    if (nameOf(static_cast<ViolationCode>(c)) == name) return static_cast<ViolationCode>(c);
  }
  return std::nullopt;
}

}  // namespace cubecheck::isa
