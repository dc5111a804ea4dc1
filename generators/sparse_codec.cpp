// The 2:4 codec of spec 7: densifying a sparse B into its kept values and index bits, and back.
#include "generators/sparse.hpp"

#include <algorithm>
#include <array>
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

namespace {

/// Where a group's two dense slots take their values from (a position 0-3 of the group, or -1 for
/// a zero) and the index each slot gets, for the group's non-zero mask (bit j: position j).
struct Slots {
  int from[2] = {-1, -1};
  std::uint8_t index[2] = {0, 0};
};

Slots slotsOf(int mask, DensifyVariant variant) {
  int pos[4];
  int count = 0;
  for (int j = 0; j < 4; ++j) {
    if (mask >> j & 1) pos[count++] = j;
  }
  Slots s;
  if (count == 1 && pos[0] == 3) {
    // 0 0 0 X: slot 1 reads 4g + 1 + 2 = 4g + 3, so X goes to slot 1 (spec 7.2).
    s.from[1] = 3;
    s.index[1] = 2;
    if (variant == DensifyVariant::VendorSample) std::swap(s.from[0], s.from[1]);  // (X, 0), (0, 2)
  } else if (count >= 1) {
    s.from[0] = pos[0];
    s.index[0] = static_cast<std::uint8_t>(pos[0]);
    if (count >= 2) {
      // Only the first two non-zeros count; slot 1 of position p has index p - 1.
      const int second = (variant == DensifyVariant::KeepThird && count >= 3) ? pos[2] : pos[1];
      s.from[1] = second;
      s.index[1] = static_cast<std::uint8_t>(second - 1);
    }
  }
  return s;
}

}  // namespace

Densified densify(const oracle::MatrixS8& b, DensifyVariant variant) {
  const Eigen::Index k = b.rows(), n = b.cols();
  // The rule above for each of the 16 masks, worked out once.
  std::array<Slots, 16> slots;
  for (int mask = 0; mask < 16; ++mask)
    slots[static_cast<std::size_t>(mask)] = slotsOf(mask, variant);
  Densified d{oracle::MatrixS8::Zero(k / 2, n), IndexMatrix::Zero(k / 2, n)};
  for (Eigen::Index c = 0; c < n; ++c) {
    for (Eigen::Index g = 0; g < k / 4; ++g) {
      const Slots& s = slots[static_cast<std::size_t>(maskOf(b, g, c))];
      for (int slot = 0; slot < 2; ++slot) {
        // Read unconditionally, kept or dropped without a branch: the masks are random.
        const std::int8_t v = b(4 * g + std::max(s.from[slot], 0), c);
        d.dense(2 * g + slot, c) = s.from[slot] < 0 ? std::int8_t{0} : v;
        d.index(2 * g + slot, c) = s.index[slot];
      }
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
  // Group t is group grp of column c, t = c (k / 4) + grp.
  for (int c = 0, t = 0; c < n; ++c) {
    for (int grp = 0; grp < k / 4; ++grp, ++t) {
      // The first 16 groups take every mask once, so every case of 16 or more groups has all 16.
      int mask = t < 16 ? (t + rotate) % 16 : static_cast<int>(g.below(16));
      if (groups == 1 && mask == 0) mask = 0b1111;  // never an all-zero operand
      for (int j = 0; j < 4; ++j) {
        if (mask >> j & 1) b(4 * grp + j, c) = nonZero(g);
      }
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
