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

struct SparseCheckResult {
  Eigen::Index k = 0, n = 0;
  std::array<std::size_t, 16> maskCounts{};  ///< groups per mask (maskName order)
  std::vector<SparseFinding> violations;     ///< groups with 3 or 4 non-zeros
  std::vector<SparseFinding> differences;    ///< the given encoding multiplies something else
  std::vector<std::string> problems;         ///< undefined indices and the like
  bool checkedEncoding = false;
  bool clean() const { return violations.empty() && differences.empty() && problems.empty(); }
};

/// Checks B (K x N, K a multiple of 4); with dense (K/2 x N) and index (K/2 x N, values 0..3)
/// also checks that they decompress to B' (B truncated to its first two non-zeros per group).
/// Throws std::invalid_argument when the shapes do not fit together.
SparseCheckResult checkSparse(const oracle::MatrixS8& b, const oracle::MatrixS8* dense,
                              const IndexMatrix* index);

/// The report as a person reads it; at most `maxLines` findings of each kind.
std::string formatSparseCheck(const SparseCheckResult& r, std::size_t maxLines = 20);

}  // namespace cubecheck::gen
