#include "generators/sparse_check.hpp"

#include <sstream>
#include <stdexcept>

#include "oracle/sparse.hpp"

namespace cubecheck::gen {
namespace {

std::string groupValues(const Eigen::MatrixXi& m, Eigen::Index g, Eigen::Index n) {
  std::ostringstream os;
  os << '[' << m(4 * g, n) << ' ' << m(4 * g + 1, n) << ' ' << m(4 * g + 2, n) << ' '
     << m(4 * g + 3, n) << ']';
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
  const Eigen::MatrixXi bi = b.cast<int>();
  for (Eigen::Index n = 0; n < b.cols(); ++n) {
    for (Eigen::Index g = 0; g < b.rows() / 4; ++g) {
      const int mask = maskOf(b, g, n);
      r.maskCounts[static_cast<std::size_t>(mask)] += 1;
      if (__builtin_popcount(mask) > 2) {
        r.violations.push_back({g, n,
                                groupValues(bi, g, n) + " has " +
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
  const Eigen::MatrixXi want = oracle::truncate24(b).cast<int>();
  const Densified spec = densify(b);
  for (Eigen::Index n = 0; n < b.cols(); ++n) {
    for (Eigen::Index g = 0; g < b.rows() / 4; ++g) {
      if (got.b.col(n).segment(4 * g, 4) == want.col(n).segment(4 * g, 4)) continue;
      std::ostringstream os;
      os << "B " << groupValues(bi, g, n) << " is multiplied as " << groupValues(got.b, g, n)
         << ": dense (" << int{(*dense)(2 * g, n)} << ", " << int{(*dense)(2 * g + 1, n)}
         << ") index (" << int{(*index)(2 * g, n)} << ", " << int{(*index)(2 * g + 1, n)}
         << "); the spec encodes dense (" << int{spec.dense(2 * g, n)} << ", "
         << int{spec.dense(2 * g + 1, n)} << ") index (" << int{spec.index(2 * g, n)} << ", "
         << int{spec.index(2 * g + 1, n)} << ")";
      if (maskOf(b, g, n) == 0b1000) os << " (the vendor samples' 0 0 0 X encoding, OPEN-2)";
      r.differences.push_back({g, n, os.str()});
    }
  }
  return r;
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
  auto list = [&](const char* title, const std::vector<SparseFinding>& items) {
    os << title << ": " << items.size() << '\n';
    for (std::size_t i = 0; i < items.size() && i < maxLines; ++i) {
      os << "  group g " << items[i].group << " (k " << 4 * items[i].group << ".."
         << 4 * items[i].group + 3 << "), column n " << items[i].column << ": " << items[i].what
         << '\n';
    }
    if (items.size() > maxLines) os << "  ... " << items.size() - maxLines << " more\n";
  };
  list("2:4 violations", r.violations);
  if (r.checkedEncoding) {
    list("encoding differences", r.differences);
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
