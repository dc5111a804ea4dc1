#include "oracle/sparse.hpp"

#include <stdexcept>

namespace cubecheck::oracle {

MatrixS8 truncate24(const MatrixS8& b) {
  if (b.rows() % 4 != 0) throw std::invalid_argument("truncate24: K is not a multiple of 4");
  MatrixS8 out = b;
  for (Eigen::Index n = 0; n < b.cols(); ++n) {
    for (Eigen::Index g = 0; g < b.rows(); g += 4) {
      auto group = out.col(n).segment(g, 4);
      int kept = 0;
      for (Eigen::Index j = 0; j < 4; ++j) {
        if (group(j) == 0) continue;
        if (kept < 2)
          ++kept;
        else
          group(j) = 0;  // a third or fourth non-zero is dropped
      }
    }
  }
  return out;
}

MatrixS32 denseMatmulS8(const MatrixS8& a, const MatrixS8& b, const MatrixS32& init) {
  if (a.cols() != b.rows() || init.rows() != a.rows() || init.cols() != b.cols()) {
    throw std::invalid_argument("denseMatmulS8: shapes do not match");
  }
  // Every partial sum of A*B is an integer of magnitude <= K * 128 * 128 (architecture.md
  // performance notes). Below 2^24 float holds each one exactly, so the product is exact whatever
  // order Eigen sums in; up to K = 4095 (< 2^27) double does. The init is added in 64 bits and the
  // result saturated once to int32 (OPEN-7 default).
  const bool floatExact = a.cols() * 128 * 128 < (Eigen::Index{1} << 24);
  Eigen::Matrix<std::int64_t, Eigen::Dynamic, Eigen::Dynamic> sum;
  if (floatExact) {
    const Eigen::MatrixXf af = a.cast<float>();
    const Eigen::MatrixXf bf = b.cast<float>();
    const Eigen::MatrixXf p = af * bf;
    sum = p.cast<std::int64_t>();
  } else {
    const Eigen::MatrixXd ad = a.cast<double>();
    const Eigen::MatrixXd bd = b.cast<double>();
    const Eigen::MatrixXd p = ad * bd;
    sum = p.cast<std::int64_t>();
  }
  sum += init.cast<std::int64_t>();
  return sum.cwiseMax(std::int64_t{INT32_MIN})
      .cwiseMin(std::int64_t{INT32_MAX})
      .cast<std::int32_t>();
}

MatrixS32 sparseMatmul(const MatrixS8& a, const MatrixS8& b, const MatrixS32& init) {
  return denseMatmulS8(a, truncate24(b), init);
}

}  // namespace cubecheck::oracle
