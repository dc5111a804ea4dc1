// Element data types of the cube pipeline (spec 2; the Load2DBitModeParam page for the 950's 8- and
// 4-bit types).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cubecheck::isa {

/// Every element type a cube instruction can move or multiply. The 950's fp8/hif8/fp4 types are
/// opaque bit patterns: the suite moves them but never interprets their values.
enum class DType : std::uint8_t {
  U8,
  S8,
  U16,
  S16,
  F16,
  BF16,
  U32,
  S32,
  F32,
  S4,         ///< int4, two per byte, element j (even) in the low nibble (spec 2)
  Fp8E5M2,    ///< 950 only, opaque
  Fp8E4M3FN,  ///< 950 only, opaque
  HiF8,       ///< 950 only, opaque
  Fp4E2M1,    ///< 950 only, two per byte, opaque
  Fp4E1M2,    ///< 950 only, two per byte, opaque
};

inline constexpr std::array kAllDTypes{
    DType::U8,      DType::S8,        DType::U16,  DType::S16,     DType::F16,
    DType::BF16,    DType::U32,       DType::S32,  DType::F32,     DType::S4,
    DType::Fp8E5M2, DType::Fp8E4M3FN, DType::HiF8, DType::Fp4E2M1, DType::Fp4E1M2};

/// Size of one element in bits: 4, 8, 16 or 32.
constexpr int bitsOf(DType t) {
  switch (t) {
    case DType::S4:
    case DType::Fp4E2M1:
    case DType::Fp4E1M2:
      return 4;
    case DType::U8:
    case DType::S8:
    case DType::Fp8E5M2:
    case DType::Fp8E4M3FN:
    case DType::HiF8:
      return 8;
    case DType::U16:
    case DType::S16:
    case DType::F16:
    case DType::BF16:
      return 16;
    case DType::U32:
    case DType::S32:
    case DType::F32:
      return 32;
  }
  return 0;
}

/// Elements in one 32-byte fractal row: C0 = 32 B / sizeof(T) (b4: 64, b8: 32, b16: 16, b32: 8).
constexpr int c0Of(DType t) {
  return 256 / bitsOf(t);
}

/// Lower-case name used on the command line, in reports and in vector files ("f16", "s4", ...).
std::string_view nameOf(DType t);

/// Inverse of nameOf; nullopt for an unknown name.
std::optional<DType> parseDType(std::string_view name);

}  // namespace cubecheck::isa
