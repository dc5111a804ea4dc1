// The host side of the 2:4 pipeline (spec 7): sparse matrix generators, the densifier and index
// codec, and the LoadDataWithSparse / MmadWithSparse programs built from them.
#pragma once

#include <rapidcheck.h>

#include <Eigen/Core>
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "generators/common.hpp"
#include "isa/program.hpp"
#include "isa/sparse.hpp"
#include "oracle/sparse.hpp"

namespace cubecheck::gen {

using IndexMatrix = Eigen::Matrix<std::uint8_t, Eigen::Dynamic, Eigen::Dynamic>;

/// How a host compressor encodes a group. Only Spec is right; the others reproduce known faults
/// so the tests can show the suite catches them.
enum class DensifyVariant {
  Spec,          ///< spec 7.2, including 0 0 0 X -> dense (0, X), index (0, 2)
  VendorSample,  ///< the vendor samples' 0 0 0 X -> dense (X, 0), index (0, 2) (OPEN-2)
  KeepThird,     ///< keeps the third non-zero in slot 1 instead of the second
};

/// Dense B (K/2 x N) and its 2-bit indices (K/2 x N, values 0..2): dense row 2g + s is slot s of
/// group g.
struct Densified {
  oracle::MatrixS8 dense;
  IndexMatrix index;
};

/// Compresses a K x N int8 matrix (K a multiple of 4) group by group along K.
Densified densify(const oracle::MatrixS8& b, DensifyVariant variant = DensifyVariant::Spec);

/// What the hardware multiplies by: the K x N matrix whose row 4g + pos holds the dense values
/// that name it (slot 0: pos = idx; slot 1: pos = 1 + idx), summed where two slots name the same
/// row. Problems (index 3, two slots on one row with both non-zero) are listed, not thrown.
struct Decompressed {
  Eigen::MatrixXi b;
  std::vector<std::string> problems;
};
Decompressed decompress(const oracle::MatrixS8& dense, const IndexMatrix& index);

/// Four 2-bit indices in one byte, index j in bits [2j+1 : 2j] (spec 7.2).
std::uint8_t packIndexByte(const std::uint8_t idx[4]);

/// Dense B laid out as Zn of a (K/2) x N int8 matrix (padding zero: OPEN-3) and its index bytes:
/// the index of dense byte o is byte o >> 2, field o & 3 (spec 7.2).
struct PackedB {
  isa::Bytes dense;
  isa::Bytes index;
};
PackedB packB(const Densified& d);

/// The 2:4 mask of a group: bit j set when element j (k = 4g + j) is non-zero.
int maskOf(const oracle::MatrixS8& b, Eigen::Index g, Eigen::Index n);
std::string maskName(int mask);  ///< "0101" = elements 1 and 3 non-zero, element 0 first

/// A K x N int8 matrix whose groups (column-major order) cycle through all 16 masks first, then
/// draw masks uniformly; non-zero values favour -128, 127, -1 and 1. Never all zero.
oracle::MatrixS8 random24(int k, int n, std::uint64_t seed);
/// A rows x cols int8 matrix from the seed, -128 and 127 included.
oracle::MatrixS8 randomS8(int rows, int cols, std::uint64_t seed);
/// An int8 matrix as the byte patterns oracle::encode stores.
oracle::ElemMatrix s8Bits(const oracle::MatrixS8& m);

// ---- LoadDataWithSparse cases ----

struct LoadSparseCase {
  isa::ProfileId profile = isa::ProfileId::A2;
  isa::LoadSparse load;
  std::uint64_t contentSeed = 0;
  std::string why;
};
std::ostream& operator<<(std::ostream& os, const LoadSparseCase& c);
/// Dense and index fractals (with a fractal of margin) in L1; the L0B and index-buffer
/// destinations with canary margins, both observed.
isa::Program buildProgram(const LoadSparseCase& c);
std::vector<std::string> tagsOf(const LoadSparseCase& c);
rc::Gen<LoadSparseCase> legalLoadSparse(isa::ProfileId profile);
std::vector<LoadSparseCase> loadSparseBoundaries(isa::ProfileId profile);

struct IllegalLoadSparseCase {
  LoadSparseCase c;
  isa::ViolationCode expected = isa::ViolationCode::Range;
};
std::ostream& operator<<(std::ostream& os, const IllegalLoadSparseCase& c);
rc::Gen<IllegalLoadSparseCase> illegalLoadSparse(isa::ProfileId profile);

// ---- the sparse pipeline: LoadDataWithSparse then MmadWithSparse ----

enum class InitMode { Zero, Accumulate, Bias };

struct SparseMmadCase {
  isa::ProfileId profile = isa::ProfileId::A2;
  std::uint16_t m = 16, k = 64, n = 16;
  InitMode init = InitMode::Zero;
  bool ignoredSource = false;  ///< cmatrix_source drawn when cmatrix_init_val makes it irrelevant
  std::uint8_t unitFlag = 0;
  std::uint64_t aAddr = 0, bAddr = 0, cAddr = 0;  ///< L0A, L0B, L0C
  std::uint64_t srcAddr = 0, idxAddr = 0;         ///< L1: dense and index bases
  std::uint16_t startIndex = 0;                   ///< first dense fractal relative to srcAddr
  bool saturate = false;  ///< operands >= 0 and init near INT32_MAX: the sum must saturate
  std::uint64_t contentSeed = 0;
  DensifyVariant variant = DensifyVariant::Spec;  ///< the host compressor that packed B
  std::string why;
};
std::ostream& operator<<(std::ostream& os, const SparseMmadCase& c);

/// The logical operands of a case, all from its seed: A (M x K), B (K x N, 2:4 with every mask),
/// the initial C (M x N, what init selects) and the bias row (1 x N).
struct SparseOperands {
  oracle::MatrixS8 a;
  oracle::MatrixS8 b;
  oracle::MatrixS32 c0;    ///< L0C contents before the multiply (Accumulate)
  oracle::MatrixS32 bias;  ///< 1 x N
  /// The init matrix the spec selects: zero, c0, or bias broadcast over rows.
  oracle::MatrixS32 init(InitMode mode) const;
};
SparseOperands operandsOf(const SparseMmadCase& c);

/// Dense fractals of B in L0B for the case's dimensions: ceil(K/64) * ceil16(N).
std::uint64_t denseFractals(const SparseMmadCase& c);
/// How many LoadDataWithSparse calls load B' (at most denseFractals): 1, 2 or 3, from the
/// content seed. Several calls split the fractals in order, to adjacent L0B addresses, each from
/// its own start_index (spec 7.3: each call writes its fractals' indices; none clears another's).
std::uint64_t sparseLoadCalls(const SparseMmadCase& c);

/// The program: B densified by the case's compressor, dense and index fractals in L1, A in Zz
/// in L0A, C (or canary) in Nz in L0C, the bias row at bias-table address 0 (OPEN-6); then
/// LoadDataWithSparse and MmadWithSparse; L0C with a canary margin is observed.
isa::Program buildProgram(const SparseMmadCase& c);
/// The same program from given operands (A, C0 and the bias are taken from `o`) and a given
/// packed B, in place of what the case's seed and compressor produce.
isa::Program buildProgram(const SparseMmadCase& c, const SparseOperands& o, const PackedB& packed);
std::vector<std::string> tagsOf(const SparseMmadCase& c);
/// The largest m, n or k (field 'm', 'n', 'k') of a legal MmadWithSparse on the profile, the
/// other two at their smallest (m 2, k 4, n 1); 0 where the profile has no sparse Mmad.
std::uint16_t sparseLargest(isa::ProfileId profile, char dim);
/// Every size bin of m, n and k up to sparseLargest; smallOnly keeps those Sizes::Small draws.
std::vector<std::string> sparseSizeBins(isa::ProfileId profile, bool smallOnly);
/// Legal by construction; with allowNoOp some cases have m, k or n = 0. Sizes steers the draws
/// between the small classes and those up to what L0A, L0B and L0C hold.
rc::Gen<SparseMmadCase> legalSparseMmad(isa::ProfileId profile, bool allowNoOp = true,
                                        Sizes sizes = Sizes::Mixed);
std::vector<SparseMmadCase> sparseMmadBoundaries(isa::ProfileId profile);

struct IllegalSparseMmadCase {
  SparseMmadCase c;
  isa::MmadSparse mmad;  ///< the broken instruction that replaces the legal one
  isa::ViolationCode expected = isa::ViolationCode::Range;
};
std::ostream& operator<<(std::ostream& os, const IllegalSparseMmadCase& c);
rc::Gen<IllegalSparseMmadCase> illegalSparseMmad(isa::ProfileId profile);
/// The MmadWithSparse instruction of a legal case.
isa::MmadSparse mmadOf(const SparseMmadCase& c);

}  // namespace cubecheck::gen
