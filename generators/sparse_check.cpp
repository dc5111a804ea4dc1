#include "generators/sparse_check.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "oracle/layout.hpp"
#include "oracle/sparse.hpp"

namespace cubecheck::gen {
namespace {

template <class M>
std::string groupValues(const M& m, Eigen::Index g, Eigen::Index n) {
  std::ostringstream os;
  os << '[' << int{m(4 * g, n)} << ' ' << int{m(4 * g + 1, n)} << ' ' << int{m(4 * g + 2, n)} << ' '
     << int{m(4 * g + 3, n)} << ']';
  return os.str();
}

}  // namespace

SparseCheckResult checkSparse(const oracle::MatrixS8& b, const oracle::MatrixS8* dense,
                              const IndexMatrix* index) {
  if (b.rows() % 4 != 0) {
    throw std::invalid_argument("B has " + std::to_string(b.rows()) +
                                " rows (K); K must be a multiple of 4 for 2:4 groups");
  }
  SparseCheckResult r;
  r.k = b.rows();
  r.n = b.cols();
  for (Eigen::Index n = 0; n < b.cols(); ++n) {
    for (Eigen::Index g = 0; g < b.rows() / 4; ++g) {
      const int mask = maskOf(b, g, n);
      r.maskCounts[static_cast<std::size_t>(mask)] += 1;
      if (__builtin_popcount(mask) > 2 && r.violationCount++ < kKeptFindings) {
        r.violations.push_back({g, n,
                                groupValues(b, g, n) + " has " +
                                    std::to_string(__builtin_popcount(mask)) +
                                    " non-zeros; the hardware uses the first two"});
      }
    }
  }
  if (dense == nullptr || index == nullptr) return r;
  if (dense->rows() * 2 != b.rows() || dense->cols() != b.cols() ||
      index->rows() != dense->rows() || index->cols() != dense->cols()) {
    throw std::invalid_argument("dense B and index must be (K/2) x N = " +
                                std::to_string(b.rows() / 2) + " x " + std::to_string(b.cols()));
  }
  r.checkedEncoding = true;
  const Decompressed got = decompress(*dense, *index);
  r.problems = got.problems;
  const oracle::MatrixS8 want = oracle::truncate24(b);
  for (Eigen::Index n = 0; n < b.cols(); ++n) {
    for (Eigen::Index g = 0; g < b.rows() / 4; ++g) {
      if (got.b.col(n).segment(4 * g, 4) == want.col(n).segment(4 * g, 4).cast<int>()) continue;
      if (r.differenceCount++ >= kKeptFindings) continue;
      // The spec's encoding of this one group, for the message.
      const Densified spec = densify(b.block(4 * g, n, 4, 1));
      std::ostringstream os;
      os << "B " << groupValues(b, g, n) << " is multiplied as " << groupValues(got.b, g, n)
         << ": dense (" << int{(*dense)(2 * g, n)} << ", " << int{(*dense)(2 * g + 1, n)}
         << ") index (" << int{(*index)(2 * g, n)} << ", " << int{(*index)(2 * g + 1, n)}
         << "); the spec encodes dense (" << int{spec.dense(0, 0)} << ", " << int{spec.dense(1, 0)}
         << ") index (" << int{spec.index(0, 0)} << ", " << int{spec.index(1, 0)} << ")";
      if (maskOf(b, g, n) == 0b1000) os << " (the vendor samples' 0 0 0 X encoding, OPEN-2)";
      r.differences.push_back({g, n, os.str()});
    }
  }
  return r;
}

std::size_t znDenseBytes(Eigen::Index k, Eigen::Index n) {
  const auto kd = static_cast<std::size_t>(k / 2);
  return (kd + 31) / 32 * ((static_cast<std::size_t>(n) + 15) / 16) * 512;
}

ZnBuffers fromZn(const std::vector<std::uint8_t>& dense, const std::vector<std::uint8_t>& index,
                 Eigen::Index k, Eigen::Index n) {
  const std::size_t want = znDenseBytes(k, n);
  if (dense.size() != want) {
    throw std::invalid_argument("dense B in Zn fractals for K x N = " + std::to_string(k) + " x " +
                                std::to_string(n) + " is " + std::to_string(want) + " bytes, not " +
                                std::to_string(dense.size()));
  }
  if (index.size() != want / 4) {
    throw std::invalid_argument("the index buffer for K x N = " + std::to_string(k) + " x " +
                                std::to_string(n) + " is " + std::to_string(want / 4) +
                                " bytes (a quarter of dense B), not " +
                                std::to_string(index.size()));
  }
  const Eigen::Index kd = k / 2;
  ZnBuffers z{oracle::MatrixS8(kd, n), IndexMatrix(kd, n)};
  for (Eigen::Index c = 0; c < n; ++c) {
    for (Eigen::Index r = 0; r < kd; ++r) {
      const std::uint64_t o =
          oracle::elementOffset(oracle::Layout::Zn, isa::DType::S8, static_cast<std::uint64_t>(kd),
                                static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(r),
                                static_cast<std::uint64_t>(c));
      z.dense(r, c) = static_cast<std::int8_t>(dense[o]);
      z.index(r, c) = static_cast<std::uint8_t>((index[o >> 2] >> (2 * (o & 3))) & 3);
    }
  }
  return z;
}

std::string formatSparseCheck(const SparseCheckResult& r, std::size_t maxLines) {
  std::ostringstream os;
  os << "B: " << r.k << " x " << r.n << ", " << (r.k / 4) * r.n << " groups of four along K\n";
  os << "masks (element 0 first):";
  for (int mask = 0; mask < 16; ++mask) {
    os << (mask % 8 == 0 ? "\n  " : "  ") << maskName(mask) << ' '
       << r.maskCounts[static_cast<std::size_t>(mask)];
  }
  os << '\n';
  auto list = [&](const char* title, const std::vector<SparseFinding>& items, std::size_t total) {
    os << title << ": " << total << '\n';
    for (std::size_t i = 0; i < items.size() && i < maxLines; ++i) {
      os << "  group g " << items[i].group << " (k " << 4 * items[i].group << ".."
         << 4 * items[i].group + 3 << "), column n " << items[i].column << ": " << items[i].what
         << '\n';
    }
    if (total > std::min(items.size(), maxLines)) {
      os << "  ... " << total - std::min(items.size(), maxLines) << " more\n";
    }
  };
  list("2:4 violations", r.violations, r.violationCount);
  if (r.checkedEncoding) {
    list("encoding differences", r.differences, r.differenceCount);
    os << "undefined or ambiguous indices: " << r.problems.size() << '\n';
    for (std::size_t i = 0; i < r.problems.size() && i < maxLines; ++i)
      os << "  " << r.problems[i] << '\n';
  } else {
    os << "encoding: not checked (give --dense and --index to check a compressor's output)\n";
  }
  os << (r.clean() ? "result: clean\n" : "result: FINDINGS\n");
  return os.str();
}

}  // namespace cubecheck::gen
