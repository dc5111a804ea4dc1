#include "oracle/tile.hpp"

namespace cubecheck::oracle {

TileShape tileShape(isa::DType t, bool bSide) {
  const int c0 = isa::c0Of(t);
  return bSide ? TileShape{c0, 16, true} : TileShape{16, c0, false};
}

std::uint32_t readElement(const std::uint8_t* bytes, std::size_t linear, isa::DType t) {
  switch (isa::bitsOf(t)) {
    case 4:
      return (bytes[linear / 2] >> (4 * (linear % 2))) & 0xFu;
    case 8:
      return bytes[linear];
    case 16:
      return std::uint32_t{bytes[2 * linear]} | std::uint32_t{bytes[2 * linear + 1]} << 8;
    default:
      return std::uint32_t{bytes[4 * linear]} | std::uint32_t{bytes[4 * linear + 1]} << 8 |
             std::uint32_t{bytes[4 * linear + 2]} << 16 |
             std::uint32_t{bytes[4 * linear + 3]} << 24;
  }
}

void writeElement(std::uint8_t* bytes, std::size_t linear, isa::DType t, std::uint32_t value) {
  switch (isa::bitsOf(t)) {
    case 4: {
      const int shift = 4 * static_cast<int>(linear % 2);
      std::uint8_t& b = bytes[linear / 2];
      b = static_cast<std::uint8_t>((b & ~(0xFu << shift)) | ((value & 0xFu) << shift));
      return;
    }
    case 8:
      bytes[linear] = static_cast<std::uint8_t>(value);
      return;
    case 16:
      bytes[2 * linear] = static_cast<std::uint8_t>(value);
      bytes[2 * linear + 1] = static_cast<std::uint8_t>(value >> 8);
      return;
    default:
      for (int i = 0; i < 4; ++i)
        bytes[4 * linear + i] = static_cast<std::uint8_t>(value >> (8 * i));
      return;
  }
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
