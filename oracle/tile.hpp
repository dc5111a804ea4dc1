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

/// Writes the height x width block of a column-major matrix whose column j starts at
/// src + j * ld, Bits wide, into cells at + i * rowStep + j * colStep of `bytes`: writeElementAs
/// for each element. Where a block row's cells are consecutive (colStep 1, the Nz and Zz
/// fractals), 32-bit elements go four rows by four columns at a time and 16-bit ones four rows
/// by eight columns, transposed in 4-lane vectors (GCC/Clang vector extension): a row of a
/// fractal is then a few vector stores, not one store per element; 8-bit ones a row at a time.
/// Where a column's cells are consecutive (rowStep 1, Zn), a column is one narrowing copy.
template <int Bits>
void writeBlockAs(std::uint8_t* bytes, std::uint64_t at, std::uint64_t rowStep,
                  std::uint64_t colStep, std::uint64_t height, std::uint64_t width,
                  const std::uint32_t* src, std::uint64_t ld) {
  std::uint64_t done = 0;  // the columns written a block at a time, all rows of them
  if constexpr (Bits != 4) {
    if (rowStep == 1) {  // a column's cells are consecutive (Zn): a narrowing copy
      for (; done < width; ++done) {
        const std::uint32_t* column = src + done * ld;
        std::uint8_t* to = bytes + Bits / 8 * (at + done * colStep);
        for (std::uint64_t i = 0; i < height; ++i) writeElementAs<Bits>(to, i, column[i]);
      }
    }
  }
  if constexpr (Bits == 8) {
    if (colStep == 1 && done < width) {  // a row's cells are consecutive (Nz, Zz): rows in turn
      for (std::uint64_t i = 0; i < height; ++i) {
        std::uint8_t* to = bytes + at + i * rowStep;
        for (std::uint64_t j = 0; j < width; ++j)
          to[j] = static_cast<std::uint8_t>(src[j * ld + i]);
      }
      done = width;
    }
  }
  if constexpr ((Bits == 16 || Bits == 32) && std::endian::native == std::endian::little) {
    using U32x4 = std::uint32_t __attribute__((vector_size(16)));
    using U16x8 = std::uint16_t __attribute__((vector_size(16)));
    // Rows i..i+3 of columns j..j+3, as four vectors of one row each.
    auto rowsOf = [&](std::uint64_t i, std::uint64_t j, U32x4* row) {
      U32x4 c[4];
      for (std::uint64_t q = 0; q < 4; ++q) std::memcpy(&c[q], src + (j + q) * ld + i, 16);
      const U32x4 lo01 = __builtin_shufflevector(c[0], c[1], 0, 4, 1, 5);
      const U32x4 hi01 = __builtin_shufflevector(c[0], c[1], 2, 6, 3, 7);
      const U32x4 lo23 = __builtin_shufflevector(c[2], c[3], 0, 4, 1, 5);
      const U32x4 hi23 = __builtin_shufflevector(c[2], c[3], 2, 6, 3, 7);
      row[0] = __builtin_shufflevector(lo01, lo23, 0, 1, 4, 5);
      row[1] = __builtin_shufflevector(lo01, lo23, 2, 3, 6, 7);
      row[2] = __builtin_shufflevector(hi01, hi23, 0, 1, 4, 5);
      row[3] = __builtin_shufflevector(hi01, hi23, 2, 3, 6, 7);
    };
    constexpr std::uint64_t kWide = Bits == 32 ? 4 : 8;  // columns of a block
    if (colStep == 1 && height % 4 == 0) {
      for (; done + kWide <= width; done += kWide) {
        for (std::uint64_t i = 0; i < height; i += 4) {
          U32x4 left[4];
          rowsOf(i, done, left);
          if constexpr (Bits == 32) {
            for (std::uint64_t r = 0; r < 4; ++r) {
              std::memcpy(bytes + 4 * (at + (i + r) * rowStep + done), &left[r], 16);
            }
          } else {
            U32x4 right[4];
            rowsOf(i, done + 4, right);
            for (std::uint64_t r = 0; r < 4; ++r) {
              U16x8 l, h;
              std::memcpy(&l, &left[r], 16);
              std::memcpy(&h, &right[r], 16);
              // the low halves of eight 32-bit lanes
              const U16x8 halves = __builtin_shufflevector(l, h, 0, 2, 4, 6, 8, 10, 12, 14);
              std::memcpy(bytes + 2 * (at + (i + r) * rowStep + done), &halves, 16);
            }
          }
        }
      }
    }
  }
  for (std::uint64_t j = done; j < width; ++j) {
    const std::uint32_t* column = src + j * ld;
    for (std::uint64_t i = 0; i < height; ++i) {
      writeElementAs<Bits>(bytes, at + i * rowStep + j * colStep, column[i]);
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
