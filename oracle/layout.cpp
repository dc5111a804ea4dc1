#include "oracle/layout.hpp"

namespace cubecheck::oracle {
using isa::ceilDiv;

void encodeInto(const ElemMatrix& m, Layout layout, isa::DType t, std::uint8_t* dst) {
  const auto rows = static_cast<std::uint64_t>(m.rows());
  const auto cols = static_cast<std::uint64_t>(m.cols());
  // Plain pointers: a byte store may alias any object, so m's and the buffer's own pointers
  // would be loaded again for every element.
  const std::uint32_t* const src = m.data();
  withElementBits(t, [&](auto bits) {
    forEachFractal(layout, static_cast<std::uint64_t>(isa::c0Of(t)), rows, cols,
                   [&](std::uint64_t r, std::uint64_t c, std::uint64_t at, std::uint64_t rowStep,
                       std::uint64_t colStep, std::uint64_t height, std::uint64_t width) {
                     writeBlockAs<decltype(bits)::value>(dst, at, rowStep, colStep, height, width,
                                                         src + c * rows + r, rows);
                   });
  });
}

isa::Bytes encode(const ElemMatrix& m, Layout layout, isa::DType t, std::uint8_t pad) {
  const auto rows = static_cast<std::uint64_t>(m.rows());
  const auto cols = static_cast<std::uint64_t>(m.cols());
  const std::uint64_t c0 = static_cast<std::uint64_t>(isa::c0Of(t));
  const std::uint64_t fractals = layout == Layout::Zn ? ceilDiv(rows, c0) * ceilDiv(cols, 16)
                                                      : ceilDiv(rows, 16) * ceilDiv(cols, c0);
  isa::Bytes out(fractals * 512, pad);
  encodeInto(m, layout, t, out.data());
  return out;
}

ElemMatrix decode(const isa::Bytes& bytes, Layout layout, isa::DType t, Eigen::Index rows,
                  Eigen::Index cols) {
  ElemMatrix m(rows, cols);
  std::uint32_t* const dst = m.data();
  const std::uint8_t* const src = bytes.data();
  const auto ld = static_cast<std::uint64_t>(rows);
  withElementBits(t, [&](auto bits) {
    forEachFractal(
        layout, static_cast<std::uint64_t>(isa::c0Of(t)), ld, static_cast<std::uint64_t>(cols),
        [&](std::uint64_t r, std::uint64_t c, std::uint64_t at, std::uint64_t rowStep,
            std::uint64_t colStep, std::uint64_t height, std::uint64_t width) {
          for (std::uint64_t j = 0; j < width; ++j) {
            std::uint32_t* column = dst + (c + j) * ld + r;
            for (std::uint64_t i = 0; i < height; ++i) {
              column[i] = readElementAs<decltype(bits)::value>(src, at + i * rowStep + j * colStep);
            }
          }
        });
  });
  return m;
}

isa::Bytes encodeNC1HWC0(const ElemMatrix& chw, std::uint64_t h, std::uint64_t w, isa::DType t,
                         std::uint8_t pad) {
  const auto c = static_cast<std::uint64_t>(chw.rows());
  const std::uint64_t c0 = static_cast<std::uint64_t>(isa::c0Of(t));
  isa::Bytes out(ceilDiv(c, c0) * h * w * 32, pad);  // a C0 vector is 32 bytes
  for (std::uint64_t ch = 0; ch < c; ++ch) {
    for (std::uint64_t y = 0; y < h; ++y) {
      for (std::uint64_t x = 0; x < w; ++x) {
        writeElement(out.data(), nc1hwc0Offset(t, h, w, ch, y, x), t,
                     chw(static_cast<Eigen::Index>(ch), static_cast<Eigen::Index>(y * w + x)));
      }
    }
  }
  return out;
}

ElemMatrix decodeNC1HWC0(const isa::Bytes& bytes, std::uint64_t c, std::uint64_t h, std::uint64_t w,
                         isa::DType t) {
  ElemMatrix m(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(h * w));
  for (std::uint64_t ch = 0; ch < c; ++ch) {
    for (std::uint64_t y = 0; y < h; ++y) {
      for (std::uint64_t x = 0; x < w; ++x) {
        m(static_cast<Eigen::Index>(ch), static_cast<Eigen::Index>(y * w + x)) =
            readElement(bytes.data(), nc1hwc0Offset(t, h, w, ch, y, x), t);
      }
    }
  }
  return m;
}

}  // namespace cubecheck::oracle
