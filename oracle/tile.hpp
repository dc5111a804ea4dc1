// Fractal tiles as Eigen matrices of element bit patterns (spec 2).
#pragma once

#include <Eigen/Core>
#include <cstdint>

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

}  // namespace cubecheck::oracle
