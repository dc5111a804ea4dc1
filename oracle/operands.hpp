// Where instructions find their operands, stated in the oracle's vocabulary: which logical
// matrix, padded to which whole fractal tiles, in which layout of spec 3.
//
// The reference finds the same bytes through isa's counts (isa::isGemv, isa::mmadARowFractals,
// isa::mmadBBytes, isa::load3dDstFractals). These are the second, independent statement of each,
// used by the oracle and the generators, so that a wrong formula on one side cannot agree with
// itself; tests/hand_worked_test.cpp pins both statements to values worked out by hand from the
// spec (docs/architecture.md#semantics-stated-twice).
#pragma once

#include <cstdint>

#include "isa/program.hpp"
#include "oracle/layout.hpp"

namespace cubecheck::oracle {

/// A logical matrix as an instruction finds it in memory: padded to `rows` x `cols` (whole
/// fractal tiles) and stored in `layout`, or, for a vector, `cols` contiguous elements.
struct OperandLayout {
  bool vector = false;  ///< `cols` elements one after another from the address, no fractals
  Layout layout = Layout::Nz;
  std::uint64_t rows = 0;  ///< the padded matrix; 1 for a vector
  std::uint64_t cols = 0;  ///< the padded matrix; the element count of a vector
  /// Bytes from the operand's address: whole 512-byte fractals, or the vector's elements.
  std::uint64_t bytes(isa::DType t) const;
};

/// Mmad's A (spec 8). With m = 1 it is GEMV (on 950 unless disable_gemv, a flag that exists on
/// 950 only): A is the vector of its k elements. Otherwise A is the m x k matrix with M padded to
/// 16 rows and K to whole C0-wide fractal columns, in L0A's layout (Zz on a2 and legacy, Nz on
/// 950); under k_direction_align (f32 on a2) K is padded to 16 elements instead of to C0 = 8, so
/// that every 16 elements of K take two 16 x 8 fractals.
OperandLayout mmadA(isa::ProfileId profile, const isa::Mmad& x);

/// Mmad's B (spec 8): the k x n matrix with K padded to C0 and N to 16, in Zn.
OperandLayout mmadB(const isa::Mmad& x);

/// What an img2col load of m_extension rows and k_extension columns of X writes (spec 6.1): into
/// L0A the selected block, or its transpose X^T with en_transpose, in L0A's layout with M (or
/// X^T's K) padded to 16 rows; into L0B the operand B[k' = m][n' = k] in Zn, its K' padded to C0
/// and its N' to 16. en_transpose means nothing for L0B.
OperandLayout img2colDestination(isa::ProfileId profile, isa::Load2DPath path, isa::DType t,
                                 bool transpose, std::uint64_t mExtension,
                                 std::uint64_t kExtension);

}  // namespace cubecheck::oracle
