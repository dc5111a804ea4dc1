// The semantics of 2:4 structured sparsity on logical matrices (spec 7): what C must be, from A
// and the original B, never from packed bytes.
#pragma once

#include <Eigen/Core>
#include <cstdint>

namespace cubecheck::oracle {

using MatrixS8 = Eigen::Matrix<std::int8_t, Eigen::Dynamic, Eigen::Dynamic>;
using MatrixS32 = Eigen::Matrix<std::int32_t, Eigen::Dynamic, Eigen::Dynamic>;

/// B' of spec 7.2: every group of four consecutive elements along K (rows 4g..4g+3 of a column)
/// keeps its first two non-zeros (lowest k) and drops the rest. K must be a multiple of 4.
MatrixS8 truncate24(const MatrixS8& b);

/// C = init + A * B' (spec 7.4), int8 products accumulated exactly and saturated once to int32
/// (OPEN-7 default). A is M x K, B is K x N (the original, uncompressed operand), init M x N.
MatrixS32 sparseMatmul(const MatrixS8& a, const MatrixS8& b, const MatrixS32& init);

/// C = init + A * B for int8 operands, exact, saturated once to int32.
MatrixS32 denseMatmulS8(const MatrixS8& a, const MatrixS8& b, const MatrixS32& init);

}  // namespace cubecheck::oracle
