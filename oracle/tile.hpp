// Fractal tiles as Eigen matrices of element bit patterns (spec 2).
#pragma once

#include <Eigen/Core>
#include <bit>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "isa/dtype.hpp"

namespace cubecheck::oracle {

/// Element bit patterns (zero-extended to 32 bits). The oracle reasons about elements, never about
/// byte offsets inside a fractal.
using ElemMatrix = Eigen::Matrix<std::uint32_t, Eigen::Dynamic, Eigen::Dynamic>;

/// A-side fractals are 16 rows (M) x C0 columns (K), row-major; B-side fractals are C0 rows (K) x
/// 16 columns (N), column-major: the same 512 bytes read two ways (spec 2).
struct TileShape {
  int rows;
  int cols;
  bool columnMajor;
};

TileShape tileShape(isa::DType t, bool bSide);

/// The 512-byte fractal at `bytes` as a matrix of the dtype's tile shape.
ElemMatrix decodeTile(const std::uint8_t* bytes, isa::DType t, bool bSide);

/// Writes `tile` (of the dtype's tile shape) as 512 bytes at `out`.
void encodeTile(const ElemMatrix& tile, isa::DType t, bool bSide, std::uint8_t* out);

/// Reads element number `linear` (in storage order) of width bitsOf(t) from `bytes`; int4 and fp4
/// keep even elements in the low nibble (spec 2).
std::uint32_t readElement(const std::uint8_t* bytes, std::size_t linear, isa::DType t);
void writeElement(std::uint8_t* bytes, std::size_t linear, isa::DType t, std::uint32_t value);

/// readElement and writeElement for a width known where they are called (4, 8, 16 or 32 bits),
/// little-endian: what loops over many elements of one type use.
template <int Bits>
std::uint32_t readElementAs(const std::uint8_t* bytes, std::size_t linear) {
  if constexpr (Bits == 4) {
    return (bytes[linear / 2] >> (4 * (linear % 2))) & 0xFu;
  } else if constexpr (std::endian::native == std::endian::little) {
    // The host's own order is the buffers' one: one load, where a byte loop is not always merged.
    using Word = std::conditional_t<Bits == 8, std::uint8_t,
                                    std::conditional_t<Bits == 16, std::uint16_t, std::uint32_t>>;
    Word v;
    std::memcpy(&v, bytes + Bits / 8 * linear, sizeof v);
    return v;
  } else {
    std::uint32_t v = 0;
    for (int i = 0; i < Bits / 8; ++i) v |= std::uint32_t{bytes[Bits / 8 * linear + i]} << (8 * i);
    return v;
  }
}
template <int Bits>
void writeElementAs(std::uint8_t* bytes, std::size_t linear, std::uint32_t value) {
  if constexpr (Bits == 4) {
    const int shift = 4 * static_cast<int>(linear % 2);
    std::uint8_t& b = bytes[linear / 2];
    b = static_cast<std::uint8_t>((b & ~(0xFu << shift)) | ((value & 0xFu) << shift));
  } else if constexpr (std::endian::native == std::endian::little) {
    using Word = std::conditional_t<Bits == 8, std::uint8_t,
                                    std::conditional_t<Bits == 16, std::uint16_t, std::uint32_t>>;
    const auto v = static_cast<Word>(value);
    std::memcpy(bytes + Bits / 8 * linear, &v, sizeof v);
  } else {
    for (int i = 0; i < Bits / 8; ++i) {
      bytes[Bits / 8 * linear + i] = static_cast<std::uint8_t>(value >> (8 * i));
    }
  }
}

/// f(std::integral_constant<int, bitsOf(t)>{}): one call, with the element width as a constant.
template <typename F>
decltype(auto) withElementBits(isa::DType t, F&& f) {
  switch (isa::bitsOf(t)) {
    case 4:
      return f(std::integral_constant<int, 4>{});
    case 8:
      return f(std::integral_constant<int, 8>{});
    case 16:
      return f(std::integral_constant<int, 16>{});
    default:
      return f(std::integral_constant<int, 32>{});
  }
}

}  // namespace cubecheck::oracle
