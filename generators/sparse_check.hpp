// The standalone 2:4 check behind `cubecheck sparse-check`: violations of the 2:4 rule in a B
// matrix, and differences between someone's dense B + index and what the spec's encoding means.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "generators/sparse.hpp"

namespace cubecheck::gen {

struct SparseFinding {
  Eigen::Index group = 0;   ///< rows 4g .. 4g+3 of B
  Eigen::Index column = 0;  ///< n
  std::string what;
};

/// Findings of each kind kept with their text; the rest are counted (a wrong compressor can
/// differ in millions of groups, and nobody reads past the first few).
inline constexpr std::size_t kKeptFindings = 1000;

struct SparseCheckResult {
  Eigen::Index k = 0, n = 0;
  std::array<std::size_t, 16> maskCounts{};  ///< groups per mask (maskName order)
  /// Groups with 3 or 4 non-zeros: the first kKeptFindings, and how many there are in all.
  std::vector<SparseFinding> violations;
  std::size_t violationCount = 0;
  /// Groups the given encoding multiplies as something else: the first kKeptFindings, and all.
  std::vector<SparseFinding> differences;
  std::size_t differenceCount = 0;
  std::vector<std::string> problems;  ///< undefined indices and the like
  bool checkedEncoding = false;
  bool clean() const { return violationCount == 0 && differenceCount == 0 && problems.empty(); }
};

/// Checks B (K x N, K a multiple of 4); with dense (K/2 x N) and index (K/2 x N, values 0..3)
/// also checks that they decompress to B' (B truncated to its first two non-zeros per group).
/// Throws std::invalid_argument when the shapes do not fit together.
SparseCheckResult checkSparse(const oracle::MatrixS8& b, const oracle::MatrixS8* dense,
                              const IndexMatrix* index);

/// Bytes of the dense-B buffer LoadDataWithSparse reads from L1 for a K x N B (spec 7.2): Zn
/// fractals of the (K/2) x N int8 matrix, ceil(K/64) x ceil(N/16) fractals of 512 bytes (the
/// vendor compressor's (ceil(K/64), ceil(N/16), 16, 32) array). The index buffer is a quarter.
std::size_t znDenseBytes(Eigen::Index k, Eigen::Index n);

struct ZnBuffers {
  oracle::MatrixS8 dense;  ///< (K/2) x N
  IndexMatrix index;       ///< (K/2) x N, values 0..3
};

/// Reads the dense and index buffers exactly as LoadDataWithSparse reads them (the index of the
/// dense byte at offset o is field o & 3 of index byte o >> 2), dropping the padding. Throws
/// std::invalid_argument when a buffer's size is not the one K x N needs.
ZnBuffers fromZn(const std::vector<std::uint8_t>& dense, const std::vector<std::uint8_t>& index,
                 Eigen::Index k, Eigen::Index n);

/// The report as a person reads it; at most `maxLines` findings of each kind.
std::string formatSparseCheck(const SparseCheckResult& r, std::size_t maxLines = 20);

}  // namespace cubecheck::gen
