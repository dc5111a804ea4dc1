#include "oracle/mx.hpp"

#include <cmath>

#include "oracle/lowprec.hpp"

namespace cubecheck::oracle {

MatrixD mxScaled(const MatrixD& values, const ElemMatrix& scales, bool bSide, E8M0Zero zero) {
  MatrixD out = values;
  for (Eigen::Index r = 0; r < values.rows(); ++r) {
    for (Eigen::Index c = 0; c < values.cols(); ++c) {
      const std::uint32_t s = bSide ? scales(r / kMxBlock, c) : scales(r, c / kMxBlock);
      const bool zeroed = s == 0 && zero == E8M0Zero::Zero;
      out(r, c) = zeroed ? 0.0 : values(r, c) * e8m0Value(static_cast<std::uint8_t>(s));
    }
  }
  return out;
}

isa::Bytes mxScaleImage(const ElemMatrix& scales, bool bSide, std::uint8_t pad) {
  // The scale matrix in its storage orientation: rows along M (A) or N (B), two K blocks per
  // fractal row. A's is the scales as given, B's their transpose; both are then Zz with 16 x 2
  // fractals: B's Nn order is Zz of the transpose.
  const ElemMatrix s = bSide ? ElemMatrix(scales.transpose()) : scales;
  const Eigen::Index rows = (s.rows() + 15) / 16 * 16, blocks = s.cols();
  const Eigen::Index fractalsPerRow = (blocks + 1) / 2;
  isa::Bytes out(static_cast<std::size_t>(rows / 16 * fractalsPerRow * 32), pad);
  for (Eigen::Index r = 0; r < s.rows(); ++r) {
    for (Eigen::Index b = 0; b < blocks; ++b) {
      const Eigen::Index fractal = (r / 16) * fractalsPerRow + b / 2;
      const Eigen::Index inside = (r % 16) * 2 + b % 2;
      out[static_cast<std::size_t>(fractal * 32 + inside)] = static_cast<std::uint8_t>(s(r, b));
    }
  }
  return out;
}

}  // namespace cubecheck::oracle
