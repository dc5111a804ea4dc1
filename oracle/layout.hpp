// Matrix layouts of spec 3: where element (r, c) of a logical matrix lives.
#pragma once

#include <algorithm>
#include <cstdint>

#include "isa/dtype.hpp"
#include "isa/program.hpp"
#include "oracle/tile.hpp"

namespace cubecheck::oracle {

enum class Layout {
  Nz,  ///< fractals column-major, 16 x C0 row-major inside (L1 default; L0A on 950)
  Zz,  ///< fractals row-major, 16 x C0 row-major inside (L0A on a2)
  Zn,  ///< of a K x N matrix: C0 x 16 fractals, column-major inside, fractal order by k-block (L0B)
};

/// Element offset of (r, c) in an R x Cc matrix stored in `layout` (spec 3 table) with fractal
/// width c0. For Zn, r is k and c is n of a K x N matrix. (Inline: layouts are walked a run at
/// a time, and a call per run cost as much as the run.)
inline std::uint64_t elementOffsetC0(Layout layout, std::uint64_t c0, std::uint64_t rows,
                                     std::uint64_t cols, std::uint64_t r, std::uint64_t c) {
  switch (layout) {
    case Layout::Nz: {
      const std::uint64_t r1 = isa::ceilDiv(rows, 16);
      return ((c / c0) * r1 + r / 16) * 16 * c0 + (r % 16) * c0 + c % c0;
    }
    case Layout::Zz: {
      const std::uint64_t cc1 = isa::ceilDiv(cols, c0);
      return ((r / 16) * cc1 + c / c0) * 16 * c0 + (r % 16) * c0 + c % c0;
    }
    case Layout::Zn: {  // r = k, c = n
      const std::uint64_t n1 = isa::ceilDiv(cols, 16);
      return ((r / c0) * n1 + c / 16) * 16 * c0 + (c % 16) * c0 + r % c0;
    }
  }
  return 0;
}

/// The same with the dtype's fractal width. L0C holds 4-byte elements in 16 x 16 fractals
/// (C0 = 16, spec 2), not the 16 x 8 a 4-byte type has elsewhere: it uses elementOffsetC0.
inline std::uint64_t elementOffset(Layout layout, isa::DType t, std::uint64_t rows,
                                   std::uint64_t cols, std::uint64_t r, std::uint64_t c) {
  return elementOffsetC0(layout, static_cast<std::uint64_t>(isa::c0Of(t)), rows, cols, r, c);
}

/// Calls f(o, first, at, len) for every run of up to C0 elements along the fractal's inner
/// dimension (columns for Nz and Zz, rows for Zn) of a rows x cols matrix in `layout`: elements
/// (o, first + i) (Nz, Zz) or (first + i, o) (Zn), i < len, are consecutive in storage from
/// element offset `at`. The runs cover extentRows x extentCols (the matrix, or its grid padded
/// to whole fractals). Along a row (a column, for Zn) successive runs lie a fixed distance apart,
/// taken from elementOffset itself, so the layout is stated there alone.
template <typename F>
void forEachRun(Layout layout, isa::DType t, std::uint64_t rows, std::uint64_t cols,
                std::uint64_t extentRows, std::uint64_t extentCols, F&& f) {
  const std::uint64_t c0 = static_cast<std::uint64_t>(isa::c0Of(t));
  const bool runsDown = layout == Layout::Zn;
  const std::uint64_t outer = runsDown ? extentCols : extentRows;
  const std::uint64_t inner = runsDown ? extentRows : extentCols;
  auto offset = [&](std::uint64_t o, std::uint64_t i) {
    return runsDown ? elementOffset(layout, t, rows, cols, i, o)
                    : elementOffset(layout, t, rows, cols, o, i);
  };
  const std::uint64_t step = inner > c0 ? offset(0, c0) - offset(0, 0) : 0;
  for (std::uint64_t o = 0; o < outer; ++o) {
    std::uint64_t at = offset(o, 0);
    for (std::uint64_t first = 0; first < inner; first += c0, at += step) {
      f(o, first, at, std::min(c0, inner - first));
    }
  }
}

/// Calls f(r, c, at, rowStep, colStep, height, width) for every fractal of a rows x cols matrix
/// in `layout` with fractal width c0 (16 x c0 for Nz and Zz, c0 x 16 for Zn): its elements
/// (r + i, c + j), i < height, j < width (the part inside the matrix), lie at element offset
/// at + i rowStep + j colStep. The fractals come a column of them at a time, top to bottom, so
/// that a caller walking each one column by column reads a column-major matrix in order. The
/// offsets are elementOffsetC0's, so the layout is stated there alone.
template <typename F>
void forEachFractal(Layout layout, std::uint64_t c0, std::uint64_t rows, std::uint64_t cols,
                    F&& f) {
  const std::uint64_t height = layout == Layout::Zn ? c0 : 16;
  const std::uint64_t width = layout == Layout::Zn ? 16 : c0;
  auto offset = [&](std::uint64_t r, std::uint64_t c) {
    return elementOffsetC0(layout, c0, rows, cols, r, c);
  };
  const std::uint64_t rowStep = offset(1, 0) - offset(0, 0);
  const std::uint64_t colStep = offset(0, 1) - offset(0, 0);
  for (std::uint64_t c = 0; c < cols; c += width) {
    for (std::uint64_t r = 0; r < rows; r += height) {
      f(r, c, offset(r, c), rowStep, colStep, std::min(height, rows - r),
        std::min(width, cols - c));
    }
  }
}

/// Bytes of the whole padded matrix (whole fractals) in `layout`; padding cells hold `pad`
/// repeated in every byte.
isa::Bytes encode(const ElemMatrix& m, Layout layout, isa::DType t, std::uint8_t pad = 0);

/// m's cells written in `layout` into the buffer at `dst` (which holds its whole fractals); the
/// padding cells are left as they are.
void encodeInto(const ElemMatrix& m, Layout layout, isa::DType t, std::uint8_t* dst);

/// The inverse of encode: the rows x cols matrix stored in `bytes` in `layout`.
ElemMatrix decode(const isa::Bytes& bytes, Layout layout, isa::DType t, Eigen::Index rows,
                  Eigen::Index cols);

/// Feature maps (spec 3): a C x H x W tensor as a C x (H*W) matrix, column h*W + w, stored as
/// NC1HWC0, F[c1][h][w][c0] with C0 = 32 B / sizeof(T), C1 = ceil(C/C0); channels past C hold
/// `pad`.
inline std::uint64_t nc1hwc0Offset(isa::DType t, std::uint64_t h, std::uint64_t w, std::uint64_t c,
                                   std::uint64_t y, std::uint64_t x) {
  const std::uint64_t c0 = static_cast<std::uint64_t>(isa::c0Of(t));
  return (((c / c0) * h + y) * w + x) * c0 + c % c0;
}
isa::Bytes encodeNC1HWC0(const ElemMatrix& chw, std::uint64_t h, std::uint64_t w, isa::DType t,
                         std::uint8_t pad = 0);
ElemMatrix decodeNC1HWC0(const isa::Bytes& bytes, std::uint64_t c, std::uint64_t h, std::uint64_t w,
                         isa::DType t);

}  // namespace cubecheck::oracle
