// MmadMx's scales on the oracle side (spec 8.1.4, 8.1.5): which E8M0 scale multiplies which
// element, and where the scales lie, stated as matrices of scale fractals. The reference reads
// the same bytes through its own address formula (docs/architecture.md, "semantics stated
// twice").
#pragma once

#include <cstdint>

#include "isa/program.hpp"
#include "oracle/mmad.hpp"
#include "oracle/tile.hpp"

namespace cubecheck::oracle {

/// Elements of K that share one E8M0 scale (spec 8.1: per 32 K elements).
inline constexpr Eigen::Index kMxBlock = 32;

/// What E8M0 code 0x00 is (OPEN-18): 2^-127 (the default, spec 8.1.1) or zero.
enum class E8M0Zero : std::uint8_t { TwoToMinus127, Zero };

/// The values an MmadMx multiplies: A (m x k) with its scales (m x k/32; element (i, kk) scaled
/// by 2^(s(i, kk/32) - 127)), or B (k x n, bSide) with its scales (k/32 x n; element (kk, j) by
/// 2^(s(kk/32, j) - 127)). Every result is exact in double for the scales the suite certifies.
/// `zero` says how a scale code 0x00 is read.
MatrixD mxScaled(const MatrixD& values, const ElemMatrix& scales, bool bSide,
                 E8M0Zero zero = E8M0Zero::TwoToMinus127);

/// The image of MmadMx's scales in L0A_MX (A's, an m x k/32 matrix of codes) or L0B_MX (B's,
/// k/32 x n, bSide) from the operand's address / 16. The scales form a matrix of 16 x 2 scale
/// fractals (A: 16 rows of M by 2 blocks of K, 32 bytes, row-major inside, fractals row-major
/// in Zz order, M padded to 16) or of 2 x 16 fractals (B: 2 blocks of K by 16 columns of N,
/// stored column-major inside as 16 pairs, fractals column-major in Nn order, N padded to 16).
/// Padding cells hold `pad`.
isa::Bytes mxScaleImage(const ElemMatrix& scales, bool bSide, std::uint8_t pad);

}  // namespace cubecheck::oracle
