#include "isa/dtype.hpp"

namespace cubecheck::isa {

std::string_view nameOf(DType t) {
  switch (t) {
    case DType::U8:
      return "u8";
    case DType::S8:
      return "s8";
    case DType::U16:
      return "u16";
    case DType::S16:
      return "s16";
    case DType::F16:
      return "f16";
    case DType::BF16:
      return "bf16";
    case DType::U32:
      return "u32";
    case DType::S32:
      return "s32";
    case DType::F32:
      return "f32";
    case DType::S4:
      return "s4";
    case DType::Fp8E5M2:
      return "fp8_e5m2";
    case DType::Fp8E4M3FN:
      return "fp8_e4m3fn";
    case DType::HiF8:
      return "hif8";
    case DType::Fp4E2M1:
      return "fp4x2_e2m1";
    case DType::Fp4E1M2:
      return "fp4x2_e1m2";
  }
  return "?";
}

std::optional<DType> parseDType(std::string_view name) {
  for (DType t : kAllDTypes) {
    if (nameOf(t) == name) return t;
  }
  return std::nullopt;
}

}  // namespace cubecheck::isa
