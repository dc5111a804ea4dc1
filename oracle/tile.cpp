#include "oracle/tile.hpp"

namespace cubecheck::oracle {

TileShape tileShape(isa::DType t, bool bSide) {
  const int c0 = isa::c0Of(t);
  return bSide ? TileShape{c0, 16, true} : TileShape{16, c0, false};
}

std::uint32_t readElement(const std::uint8_t* bytes, std::size_t linear, isa::DType t) {
  return withElementBits(
      t, [&](auto bits) { return readElementAs<decltype(bits)::value>(bytes, linear); });
}

void writeElement(std::uint8_t* bytes, std::size_t linear, isa::DType t, std::uint32_t value) {
  withElementBits(t,
                  [&](auto bits) { writeElementAs<decltype(bits)::value>(bytes, linear, value); });
}

ElemMatrix decodeTile(const std::uint8_t* bytes, isa::DType t, bool bSide) {
  const TileShape s = tileShape(t, bSide);
  ElemMatrix m(s.rows, s.cols);
  for (int r = 0; r < s.rows; ++r) {
    for (int c = 0; c < s.cols; ++c) {
      const std::size_t linear =
          s.columnMajor ? std::size_t(c) * s.rows + r : std::size_t(r) * s.cols + c;
      m(r, c) = readElement(bytes, linear, t);
    }
  }
  return m;
}

void encodeTile(const ElemMatrix& tile, isa::DType t, bool bSide, std::uint8_t* out) {
  const TileShape s = tileShape(t, bSide);
  for (int r = 0; r < s.rows; ++r) {
    for (int c = 0; c < s.cols; ++c) {
      const std::size_t linear =
          s.columnMajor ? std::size_t(c) * s.rows + r : std::size_t(r) * s.cols + c;
      writeElement(out, linear, t, tile(r, c));
    }
  }
}

}  // namespace cubecheck::oracle
