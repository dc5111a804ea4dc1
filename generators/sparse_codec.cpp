// The 2:4 codec of spec 7: densifying a sparse B into its kept values and index bits, and back.
#include "generators/sparse.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <ostream>
#include <sstream>

#include "generators/common.hpp"
#include "generators/fill.hpp"
#include "oracle/layout.hpp"

namespace cubecheck::gen {

using isa::Memory;
using isa::ProfileId;

namespace {

std::int8_t nonZero(SplitMix64& g) {
  const std::uint64_t r = g.next();
  switch (r % 16) {
    case 0:
      return -128;
    case 1:
      return 127;
    case 2:
      return -1;
    case 3:
      return 1;
    default: {
      const auto v = static_cast<std::int8_t>(r >> 8);
      return v == 0 ? std::int8_t{2} : v;
    }
  }
}

}  // namespace

oracle::ElemMatrix s8Bits(const oracle::MatrixS8& m) {
  return m.cast<std::uint8_t>().cast<std::uint32_t>();
}

// ---- codec ----

Densified densify(const oracle::MatrixS8& b, DensifyVariant variant) {
  const Eigen::Index k = b.rows(), n = b.cols();
  Densified d{oracle::MatrixS8::Zero(k / 2, n), IndexMatrix::Zero(k / 2, n)};
  for (Eigen::Index c = 0; c < n; ++c) {
    for (Eigen::Index g = 0; g < k / 4; ++g) {
      int pos[4];
      int count = 0;
      for (int j = 0; j < 4; ++j) {
        if (b(4 * g + j, c) != 0) pos[count++] = j;
      }
      std::int8_t v0 = 0, v1 = 0;
      std::uint8_t i0 = 0, i1 = 0;
      if (count == 1 && pos[0] == 3) {
        // 0 0 0 X: slot 1 reads 4g + 1 + 2 = 4g + 3, so X goes to slot 1 (spec 7.2).
        v1 = b(4 * g + 3, c);
        i1 = 2;
        if (variant == DensifyVariant::VendorSample) std::swap(v0, v1);  // (X, 0), index (0, 2)
      } else if (count >= 1) {
        v0 = b(4 * g + pos[0], c);
        i0 = static_cast<std::uint8_t>(pos[0]);
        if (count >= 2) {
          // Only the first two non-zeros count; slot 1 of position p has index p - 1.
          const int second = (variant == DensifyVariant::KeepThird && count >= 3) ? pos[2] : pos[1];
          v1 = b(4 * g + second, c);
          i1 = static_cast<std::uint8_t>(second - 1);
        }
      }
      d.dense(2 * g, c) = v0;
      d.dense(2 * g + 1, c) = v1;
      d.index(2 * g, c) = i0;
      d.index(2 * g + 1, c) = i1;
    }
  }
  return d;
}

Decompressed decompress(const oracle::MatrixS8& dense, const IndexMatrix& index) {
  const Eigen::Index kd = dense.rows(), n = dense.cols();
  Decompressed out{Eigen::MatrixXi::Zero(2 * kd, n), {}};
  Eigen::MatrixXi from = Eigen::MatrixXi::Constant(2 * kd, n, -1);  // which dense row named it
  for (Eigen::Index c = 0; c < n; ++c) {
    for (Eigen::Index r = 0; r < kd; ++r) {
      const int idx = index(r, c);
      const int v = dense(r, c);
      const Eigen::Index g = r / 2;
      const Eigen::Index pos = 4 * g + idx + (r % 2);
      if (idx > 2) {
        std::ostringstream os;
        os << "group (g " << g << ", n " << c << ") slot " << r % 2
           << ": index 3 is undefined (OPEN-1); value " << v;
        out.problems.push_back(os.str());
        continue;
      }
      if (v != 0 && from(pos, c) >= 0 && dense(from(pos, c), c) != 0) {
        std::ostringstream os;
        os << "group (g " << g << ", n " << c << "): both slots name k = " << pos
           << " with non-zero values (OPEN-1 reading decides the result)";
        out.problems.push_back(os.str());
      }
      out.b(pos, c) += v;
      if (v != 0) from(pos, c) = r;
    }
  }
  return out;
}

std::uint8_t packIndexByte(const std::uint8_t idx[4]) {
  return static_cast<std::uint8_t>((idx[0] & 3) | (idx[1] & 3) << 2 | (idx[2] & 3) << 4 |
                                   (idx[3] & 3) << 6);
}

PackedB packB(const Densified& d) {
  const auto kd = static_cast<std::uint64_t>(d.dense.rows());
  const auto n = static_cast<std::uint64_t>(d.dense.cols());
  PackedB p;
  p.dense = oracle::encode(s8Bits(d.dense), oracle::Layout::Zn, isa::DType::S8, 0);  // OPEN-3
  p.index.assign(p.dense.size() / 4, 0);
  oracle::forEachRun(
      oracle::Layout::Zn, isa::DType::S8, kd, n, kd, n,
      [&](std::uint64_t c, std::uint64_t first, std::uint64_t at, std::uint64_t len) {
        for (std::uint64_t i = 0; i < len; ++i) {
          // int8: the element offset is the byte offset o; its index is byte
          // o >> 2, field o & 3.
          const std::uint64_t o = at + i;
          p.index[o >> 2] |= static_cast<std::uint8_t>(
              (d.index(static_cast<Eigen::Index>(first + i), static_cast<Eigen::Index>(c)) & 3)
              << (2 * (o & 3)));
        }
      });
  return p;
}

int maskOf(const oracle::MatrixS8& b, Eigen::Index g, Eigen::Index n) {
  int mask = 0;
  for (int j = 0; j < 4; ++j) {
    if (b(4 * g + j, n) != 0) mask |= 1 << j;
  }
  return mask;
}

std::string maskName(int mask) {
  std::string s;
  for (int j = 0; j < 4; ++j) s += (mask >> j & 1) ? '1' : '0';
  return s;
}

oracle::MatrixS8 random24(int k, int n, std::uint64_t seed) {
  SplitMix64 g(seed);
  oracle::MatrixS8 b = oracle::MatrixS8::Zero(k, n);
  const int groups = (k / 4) * n;
  const int rotate = static_cast<int>(g.below(16));
  for (int t = 0; t < groups; ++t) {
    // The first 16 groups take every mask once, so every case of 16 or more groups has all 16.
    int mask = t < 16 ? (t + rotate) % 16 : static_cast<int>(g.below(16));
    if (groups == 1 && mask == 0) mask = 0b1111;  // never an all-zero operand
    const int c = t / (k / 4);
    const int grp = t % (k / 4);
    for (int j = 0; j < 4; ++j) {
      if (mask >> j & 1) b(4 * grp + j, c) = nonZero(g);
    }
  }
  return b;
}

oracle::MatrixS8 randomS8(int rows, int cols, std::uint64_t seed) {
  SplitMix64 g(seed);
  oracle::MatrixS8 m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    const std::uint64_t r = g.next();
    m(i) = (r % 32 == 0)   ? std::int8_t{-128}
           : (r % 32 == 1) ? std::int8_t{127}
                           : static_cast<std::int8_t>(r >> 8);
  }
  return m;
}

}  // namespace cubecheck::gen
