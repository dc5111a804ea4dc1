// sparse-check on the vendors' own buffers: dense B and indices as the Zn bytes LoadDataWithSparse
// reads from L1, the weight as (n, k), .npy files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "generators/sparse.hpp"
#include "generators/sparse_check.hpp"
#include "oracle/sparse.hpp"
#include "process.hpp"
#include "scratch.hpp"

namespace cubecheck {
namespace {

// Spec 7.2, written here from the text rather than through the layout codec: dense byte (kd, n)
// of a (K/2) x N matrix lives in fractal (kd / 32, n / 16), fractals ordered by kd block then n
// block, at n % 16 * 32 + kd % 32 inside; its index is field o & 3 of index byte o >> 2.
std::size_t znOffset(std::size_t kd, std::size_t n, std::size_t nCols) {
  const std::size_t n1 = (nCols + 15) / 16;
  return ((kd / 32) * n1 + n / 16) * 512 + (n % 16) * 32 + kd % 32;
}

struct ZnFiles {
  std::vector<std::uint8_t> dense, index;
};

ZnFiles toZn(const gen::Densified& d) {
  const auto kd = static_cast<std::size_t>(d.dense.rows());
  const auto n = static_cast<std::size_t>(d.dense.cols());
  ZnFiles z;
  z.dense.assign((kd + 31) / 32 * ((n + 15) / 16) * 512, 0);
  z.index.assign(z.dense.size() / 4, 0);
  for (std::size_t c = 0; c < n; ++c) {
    for (std::size_t r = 0; r < kd; ++r) {
      const std::size_t o = znOffset(r, c, n);
      z.dense[o] = static_cast<std::uint8_t>(d.dense(r, c));
      z.index[o >> 2] |= static_cast<std::uint8_t>(d.index(r, c) << (2 * (o & 3)));
    }
  }
  return z;
}

void write(const std::filesystem::path& p, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(p, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()),
             static_cast<std::streamsize>(bytes.size()));
}

/// A .npy (format 1.0) of an int8 matrix in C order, as numpy.save writes it.
void writeNpy(const std::filesystem::path& p, const oracle::MatrixS8& m) {
  std::string header = "{'descr': '|i1', 'fortran_order': False, 'shape': (" +
                       std::to_string(m.rows()) + ", " + std::to_string(m.cols()) + "), }";
  while ((10 + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string file = std::string("\x93NUMPY\x01\x00", 8);
  file += static_cast<char>(header.size() & 0xFF);
  file += static_cast<char>(header.size() >> 8);
  file += header;
  for (Eigen::Index r = 0; r < m.rows(); ++r) {
    for (Eigen::Index c = 0; c < m.cols(); ++c) file += static_cast<char>(m(r, c));
  }
  std::ofstream(p, std::ios::binary) << file;
}

std::filesystem::path tempDir(const std::string& name) {
  return test::freshDir("sparse_" + name);
}

TEST(SparseLayout, ZnBuffersWorkedByHand) {
  // K = 4, N = 17: column 0 is the group [0 0 0 5] (dense (0, 5), index (0, 2), spec 7.2's table),
  // column 16 the group [7 0 0 0] (dense (7, 0), index (0, 0)). With N1 = 2 fractals of 16
  // columns, column 16 is in fractal 1 at byte 512; dense (1, 0) is byte 1, its index is field 1
  // of index byte 0.
  std::vector<std::uint8_t> dense(1024, 0), index(256, 0);
  dense[1] = 5;
  index[0] = 2 << 2;
  dense[512] = 7;
  const gen::ZnBuffers z = gen::fromZn(dense, index, 4, 17);
  EXPECT_EQ(z.dense(0, 0), 0);
  EXPECT_EQ(z.dense(1, 0), 5);
  EXPECT_EQ(z.index(1, 0), 2);
  EXPECT_EQ(z.dense(0, 16), 7);
  EXPECT_EQ(z.index(0, 16), 0);
  EXPECT_THROW(gen::fromZn(std::vector<std::uint8_t>(1000), index, 4, 17), std::invalid_argument);
}

TEST(SparseLayout, VendorBuffersAndAnNkWeightNeedNoConversion) {
  const auto dir = tempDir("vendor");
  const int k = 192, n = 40;  // partial fractals in both directions
  const oracle::MatrixS8 b = oracle::truncate24(gen::random24(k, n, 5));
  const gen::Densified d = gen::densify(b);
  ZnFiles z = toZn(d);
  write(dir / "dense.bin", z.dense);
  write(dir / "index.bin", z.index);
  writeNpy(dir / "weight_nk.npy", b.transpose());
  const std::string common = "sparse-check --b " + (dir / "weight_nk.npy").string() +
                             " --b-layout nk --dense " + (dir / "dense.bin").string() +
                             " --index " + (dir / "index.bin").string();

  test::ProcessRun clean = test::runCubecheck(common + " --layout zn");
  EXPECT_EQ(clean.status, 0) << clean.out;
  EXPECT_NE(clean.out.find("encoding differences: 0"), std::string::npos) << clean.out;

  // Without --layout zn the sizes do not fit a row-major dense B: the error says which layout
  // they do fit.
  test::ProcessRun wrongLayout = test::runCubecheck(common);
  EXPECT_EQ(wrongLayout.status, 2) << wrongLayout.out;
  EXPECT_NE(wrongLayout.out.find("--layout zn"), std::string::npos) << wrongLayout.out;

  // One index bit flipped: dense (2g, col) of group g = 5, column 33 (fractal 1 of 16 columns).
  const std::size_t o = znOffset(2 * 5, 33, n);
  z.index[o >> 2] ^= static_cast<std::uint8_t>(1u << (2 * (o & 3)));
  write(dir / "index.bin", z.index);
  test::ProcessRun flipped = test::runCubecheck(common + " --layout zn");
  EXPECT_EQ(flipped.status, 1) << flipped.out;
  EXPECT_NE(flipped.out.find("group g 5 (k 20..23), column n 33"), std::string::npos)
      << flipped.out;
}

TEST(SparseLayout, UpperCaseBinIsRaw) {
  const auto dir = tempDir("upper");
  const oracle::MatrixS8 b = oracle::truncate24(gen::random24(8, 4, 1));
  std::vector<std::uint8_t> bytes;
  for (Eigen::Index r = 0; r < b.rows(); ++r) {
    for (Eigen::Index c = 0; c < b.cols(); ++c) bytes.push_back(static_cast<std::uint8_t>(b(r, c)));
  }
  write(dir / "B.BIN", bytes);
  test::ProcessRun r =
      test::runCubecheck("sparse-check --shape 8x4 --b " + (dir / "B.BIN").string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("B: 8 x 4"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace cubecheck
