// oracle/: tiles, layouts, the load2d gather and the comparison policy. Expected values here are
// worked out by hand from spec 2-4, never taken from the code under test.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>
#include <vector>

#include "isa/sparse.hpp"
#include "oracle/layout.hpp"
#include "oracle/mmad.hpp"
#include "oracle/oracle.hpp"
#include "oracle/tile.hpp"

namespace cubecheck::oracle {
namespace {

using isa::DType;

TEST(Tile, Int4EvenElementInLowNibble) {
  const std::uint8_t b[2] = {0x21, 0xA9};  // elements 1, 2, 9, 10 (spec 2)
  EXPECT_EQ(readElement(b, 0, DType::S4), 0x1u);
  EXPECT_EQ(readElement(b, 1, DType::S4), 0x2u);
  EXPECT_EQ(readElement(b, 2, DType::S4), 0x9u);
  EXPECT_EQ(readElement(b, 3, DType::S4), 0xAu);
  std::uint8_t out[1] = {0};
  writeElement(out, 1, DType::S4, 0xC);
  writeElement(out, 0, DType::S4, 0x3);
  EXPECT_EQ(out[0], 0xC3);
}

TEST(Tile, MultiByteElementsAreLittleEndian) {
  const std::uint8_t b[4] = {0x34, 0x12, 0x78, 0x56};
  EXPECT_EQ(readElement(b, 0, DType::F16), 0x1234u);
  EXPECT_EQ(readElement(b, 1, DType::F16), 0x5678u);
  EXPECT_EQ(readElement(b, 0, DType::S32), 0x56781234u);
}

TEST(Tile, ASideRowMajorBSideColumnMajor) {
  std::uint8_t bytes[512];
  for (int i = 0; i < 512; ++i) bytes[i] = static_cast<std::uint8_t>(i * 7);
  // int8 on A: 16 x 32, element (r, c) at byte r*32 + c.
  const ElemMatrix a = decodeTile(bytes, DType::S8, false);
  ASSERT_EQ(a.rows(), 16);
  ASSERT_EQ(a.cols(), 32);
  EXPECT_EQ(a(3, 5), bytes[3 * 32 + 5]);
  // int8 on B: 32 (k) x 16 (n), column-major: element (k, n) at byte n*32 + k.
  const ElemMatrix b = decodeTile(bytes, DType::S8, true);
  ASSERT_EQ(b.rows(), 32);
  ASSERT_EQ(b.cols(), 16);
  EXPECT_EQ(b(5, 3), bytes[3 * 32 + 5]);
  // f32 on B: 8 x 16; element (k, n) at bytes (n*8 + k)*4.
  const ElemMatrix f = decodeTile(bytes, DType::F32, true);
  ASSERT_EQ(f.rows(), 8);
  EXPECT_EQ(f(2, 1) & 0xFF, bytes[(1 * 8 + 2) * 4]);
  std::uint8_t back[512];
  encodeTile(b, DType::S8, true, back);
  EXPECT_EQ(0, std::memcmp(back, bytes, 512));
}

TEST(Layout, OffsetsFromSpec3ByHand) {
  // b16, 32 x 32 matrix: R1 = 2, Cc1 = 2.
  // Nz (17, 0): fractal (0*2 + 1) -> 256, inner 1*16 + 0 -> 272.
  EXPECT_EQ(elementOffset(Layout::Nz, DType::F16, 32, 32, 17, 0), 272u);
  // Nz (0, 17): fractal (1*2 + 0) = 2 -> 512, inner 1 -> 513.
  EXPECT_EQ(elementOffset(Layout::Nz, DType::F16, 32, 32, 0, 17), 513u);
  // Zz (0, 17): fractal (0*2 + 1) = 1 -> 256, inner 1 -> 257.
  EXPECT_EQ(elementOffset(Layout::Zz, DType::F16, 32, 32, 0, 17), 257u);
  // Zn of K x N = 32 x 48 int8 (C0 = 32, N1 = 3): (k = 33, n = 17): fractal (1*3 + 1) = 4 ->
  // 4*512 = 2048, inner (17 % 16)*32 + 33 % 32 = 33 -> 2081.
  EXPECT_EQ(elementOffset(Layout::Zn, DType::S8, 32, 48, 33, 17), 2081u);
}

RC_GTEST_PROP(Layout, ZnOfBIsNzOfBTransposed, ()) {
  // spec 3: Zn of B (K x N) is byte-for-byte Nz of B^T (N x K), partial fractals included.
  const DType t = *rc::gen::element(DType::S4, DType::S8, DType::F16, DType::F32);
  const int k = *rc::gen::inRange(1, 100);
  const int n = *rc::gen::inRange(1, 40);
  const std::uint32_t mask = isa::bitsOf(t) == 32 ? 0xFFFFFFFFu : (1u << isa::bitsOf(t)) - 1;
  ElemMatrix b(k, n);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < k; ++i) b(i, j) = *rc::gen::arbitrary<std::uint32_t>() & mask;
  }
  RC_ASSERT(encode(b, Layout::Zn, t, 0xEE) == encode(b.transpose(), Layout::Nz, t, 0xEE));
}

TEST(Layout, PaddingHoldsThePadByteOnly) {
  ElemMatrix m = ElemMatrix::Constant(17, 3, 0x1);  // b16: 2 x 1 fractals, mostly padding
  const isa::Bytes nz = encode(m, Layout::Nz, DType::F16, 0xAB);
  ASSERT_EQ(nz.size(), 1024u);
  int data = 0;
  for (std::size_t i = 0; i < nz.size(); i += 2) {
    if (nz[i] == 0x01 && nz[i + 1] == 0x00)
      ++data;
    else
      EXPECT_TRUE(nz[i] == 0xAB && nz[i + 1] == 0xAB) << i;
  }
  EXPECT_EQ(data, 17 * 3);
}

isa::Program oneLoad(isa::Load2D l, isa::Bytes src, isa::Bytes dst) {
  isa::Program p;
  p.segments = {{isa::memoryOf(isa::srcOf(l.path)), 0, std::move(src)},
                {isa::memoryOf(isa::dstOf(l.path)), 0, std::move(dst)}};
  p.observe = {{isa::memoryOf(isa::dstOf(l.path)), 0, p.segments[1].bytes.size()}};
  p.instructions = {l};
  return p;
}

TEST(OracleLoad2D, TransposedB16FractalByHand) {
  // Source element (r, c) = r*16 + c as 16-bit little-endian; transposed, dst (r, c) = c*16 + r.
  isa::Bytes src(512);
  for (int i = 0; i < 256; ++i) {
    src[2 * i] = static_cast<std::uint8_t>(i);
    src[2 * i + 1] = 0x40;
  }
  const Expected e =
      expect(oneLoad({isa::Load2DPath::A1toA2, DType::F16, 0, 0, {0, 1, 0, 0, 0, true, 0}}, src,
                     isa::Bytes(512, 0xCC)));
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 16; ++c) {
      EXPECT_EQ(e.regions[0][2 * (r * 16 + c)], c * 16 + r);
      EXPECT_EQ(e.regions[0][2 * (r * 16 + c) + 1], 0x40);
    }
  }
}

TEST(OracleLoad2D, GapLeavesCanaryAndDecrementWalksDown) {
  // GM fractal k holds byte k+1; decrement from 4 by 2, three repeats, dst_gap 1: L1 fractals 0,
  // 2, 4 receive source fractals 4, 2, 0; fractals 1, 3 keep the canary.
  isa::Bytes gm(5 * 512);
  for (int k = 0; k < 5; ++k) std::fill_n(gm.begin() + k * 512, 512, k + 1);
  const Expected e =
      expect(oneLoad({isa::Load2DPath::GMtoA1, DType::S8, 0, 0, {4, 3, 2, 0, 1, false, 1}}, gm,
                     isa::Bytes(5 * 512, 0xCC)));
  const int want[5] = {5, 0xCC, 3, 0xCC, 1};
  for (int f = 0; f < 5; ++f) {
    EXPECT_EQ(e.regions[0][f * 512], want[f]) << f;
    EXPECT_EQ(e.regions[0][f * 512 + 511], want[f]) << f;
    EXPECT_EQ(e.written[0][f * 512], want[f] == 0xCC ? 0 : 1) << f;
  }
}

TEST(OracleLoad2D, Open9CasesAreUncertifiedOn950Only) {
  isa::Program p = oneLoad({isa::Load2DPath::A1toA2, DType::S8, 0, 0, {1, 1, 2, 0, 0, false, 0}},
                           isa::Bytes(4 * 512, 1), isa::Bytes(512, 2));
  EXPECT_FALSE(expect(p).uncertified.has_value());
  p.profile = isa::ProfileId::Ascend950;
  const Expected e = expect(p);
  ASSERT_TRUE(e.uncertified.has_value());
  EXPECT_NE(e.uncertified->find("OPEN-9"), std::string::npos);
  std::get<isa::Load2D>(p.instructions[0]).params.srcStride = 1;  // readings agree
  EXPECT_FALSE(expect(p).uncertified.has_value());
}

TEST(Compare, NamesWrongValuesAndStrayWrites) {
  isa::Program p = oneLoad({isa::Load2DPath::A1toA2, DType::F16, 0, 512, {0, 1, 0, 0, 0, false, 0}},
                           isa::Bytes(512, 7), isa::Bytes(1536, 0xCC));
  const Expected e = expect(p);
  isa::Observed obs = e.regions;
  EXPECT_TRUE(compareExact(p, e, obs).equal);
  obs[0][512 + 2 * (3 * 16 + 5)] ^= 1;  // fractal 0 of the destination, row 3 col 5
  obs[0][1535] ^= 1;                    // after the footprint
  const Comparison c = compareExact(p, e, obs);
  EXPECT_FALSE(c.equal);
  EXPECT_EQ(c.wrongBytes, 1u);
  EXPECT_EQ(c.strayBytes, 1u);
  EXPECT_NE(c.report.find("fractal 0 row 3 col 5: expected 0x0707 observed 0x0706"),
            std::string::npos)
      << c.report;
  EXPECT_NE(c.report.find("stray write"), std::string::npos) << c.report;
  const Comparison stray = compareExact(p, e, obs, /*strayOnly=*/true);
  EXPECT_EQ(stray.wrongBytes, 0u);
  EXPECT_EQ(stray.strayBytes, 1u);
}

TEST(Compare, FlagsVacuousComparisons) {
  // The destination already holds what the load writes: a DUT doing nothing would pass.
  isa::Program p = oneLoad({isa::Load2DPath::A1toA2, DType::F16, 0, 0, {0, 1, 0, 0, 0, false, 0}},
                           isa::Bytes(512, 7), isa::Bytes(512, 7));
  const Expected e = expect(p);
  EXPECT_TRUE(compareExact(p, e, e.regions).vacuous);
}

}  // namespace
}  // namespace cubecheck::oracle

namespace cubecheck::oracle {
namespace {

rc::Gen<isa::DType> anyDType() {
  return rc::gen::elementOf(
      std::vector<isa::DType>(isa::kAllDTypes.begin(), isa::kAllDTypes.end()));
}

ElemMatrix randomElements(Eigen::Index rows, Eigen::Index cols, isa::DType t) {
  const std::uint32_t mask = isa::bitsOf(t) == 32 ? 0xFFFFFFFFu : (1u << isa::bitsOf(t)) - 1;
  ElemMatrix m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m(i) = *rc::gen::arbitrary<std::uint32_t>() & mask;
  return m;
}

RC_GTEST_PROP(Layout, EncodeDecodeRoundTripForEveryTypeAndLayout, ()) {
  const isa::DType t = *anyDType();
  const Layout layout = *rc::gen::element(Layout::Nz, Layout::Zz, Layout::Zn);
  const Eigen::Index rows = *rc::gen::inRange(1, 70);  // partial fractals included
  const Eigen::Index cols = *rc::gen::inRange(1, 70);
  const ElemMatrix m = randomElements(rows, cols, t);
  RC_ASSERT(decode(encode(m, layout, t, 0x5A), layout, t, rows, cols) == m);
}

RC_GTEST_PROP(Layout, PaddingIsExactlyWhereNoElementLives, ()) {
  // Every element offset is distinct and inside the buffer; every other element slot keeps the
  // pad, so the padding region is exactly what the formulas leave out.
  const isa::DType t = *anyDType();
  const Layout layout = *rc::gen::element(Layout::Nz, Layout::Zz, Layout::Zn);
  const auto rows = static_cast<std::uint64_t>(*rc::gen::inRange(1, 50));
  const auto cols = static_cast<std::uint64_t>(*rc::gen::inRange(1, 50));
  const isa::Bytes bytes =
      encode(ElemMatrix::Zero(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols)),
             layout, t, 0xFF);
  const std::uint64_t slots = bytes.size() * 8 / static_cast<std::uint64_t>(isa::bitsOf(t));
  std::vector<bool> used(slots, false);
  for (std::uint64_t c = 0; c < cols; ++c) {
    for (std::uint64_t r = 0; r < rows; ++r) {
      const std::uint64_t o = elementOffset(layout, t, rows, cols, r, c);
      RC_ASSERT(o < slots);
      RC_ASSERT(!used[o]);
      used[o] = true;
    }
  }
  for (std::uint64_t o = 0; o < slots; ++o) {
    const std::uint32_t all = isa::bitsOf(t) == 32 ? 0xFFFFFFFFu : (1u << isa::bitsOf(t)) - 1;
    RC_ASSERT(readElement(bytes.data(), o, t) == (used[o] ? 0u : all));
  }
}

TEST(Layout, NC1HWC0ByHand) {
  // f16, C = 20 (C1 = 2, C0 = 16), H = 2, W = 3: element (c 17, y 1, x 2) is at
  // ((1*2 + 1)*3 + 2)*16 + 1 = 177.
  EXPECT_EQ(nc1hwc0Offset(isa::DType::F16, 2, 3, 17, 1, 2), 177u);
  // int8 (C0 = 32): (c 5, y 0, x 1) at 1*32 + 5 = 37.
  EXPECT_EQ(nc1hwc0Offset(isa::DType::S8, 4, 4, 5, 0, 1), 37u);
}

RC_GTEST_PROP(Layout, NC1HWC0RoundTripWithChannelPadding, ()) {
  const isa::DType t = *anyDType();
  const auto c = static_cast<std::uint64_t>(*rc::gen::inRange(1, 80));
  const auto h = static_cast<std::uint64_t>(*rc::gen::inRange(1, 6));
  const auto w = static_cast<std::uint64_t>(*rc::gen::inRange(1, 6));
  const ElemMatrix m =
      randomElements(static_cast<Eigen::Index>(c), static_cast<Eigen::Index>(h * w), t);
  const isa::Bytes bytes = encodeNC1HWC0(m, h, w, t, 0x00);
  RC_ASSERT(bytes.size() == isa::ceilDiv(c, static_cast<std::uint64_t>(isa::c0Of(t))) * h * w * 32);
  RC_ASSERT(decodeNC1HWC0(bytes, c, h, w, t) == m);
}

RC_GTEST_PROP(MmadProduct, InitPlusProductIsRoundedOnceAndSaturated, ()) {
  // C = init + A * B rounded once to f32, saturated (NaN to 0, past FLT_MAX to +-FLT_MAX), on
  // shapes whose element count is and is not a multiple of four. The inits are floats (which
  // the oracle adds in float), or one of them is a double no float holds (which sends the whole
  // matrix through the double route). The double sum below is exact for the drawn inits (fewer
  // than 53 bits); beside 2^-149 or FLT_MAX it rounds, but a double holds more than twice a
  // float's 24 bits plus 2, so rounding it to float still gives the one rounding of the exact sum.
  const int lowA = *rc::gen::inRange(-10, 4), lowB = *rc::gen::inRange(-10, 4);
  const Eigen::Index m = *rc::gen::inRange(1, 10), n = *rc::gen::inRange(1, 10);
  const Eigen::Index k = *rc::gen::inRange(1, 9);
  MatrixD a(m, k), b(k, n), init(m, n);
  for (Eigen::Index i = 0; i < a.size(); ++i) a(i) = std::ldexp(*rc::gen::inRange(-8, 9), lowA);
  for (Eigen::Index i = 0; i < b.size(); ++i) b(i) = std::ldexp(*rc::gen::inRange(-8, 9), lowB);
  const bool oneNotFloat = *rc::gen::arbitrary<bool>();
  for (Eigen::Index i = 0; i < init.size(); ++i) {
    const int e = lowA + lowB + *rc::gen::inRange(-8, 9);
    switch (*rc::gen::inRange(0, 8)) {
      case 0:
        init(i) = *rc::gen::element(INFINITY, -INFINITY, NAN, -0.0, double{FLT_MAX},
                                    double{-FLT_MAX}, 0x1p-149);
        break;
      default:  // a float of up to 24 significant bits near the products' magnitude
        init(i) = std::ldexp(*rc::gen::inRange(-(1 << 24), 1 << 24), e - 24);
    }
  }
  if (oneNotFloat) {  // 26 significant bits: a double, not a float
    init(*rc::gen::inRange<Eigen::Index>(0, init.size())) = std::ldexp((1 << 25) + 1, lowA + lowB);
  }
  const ElemMatrix c = mmadResult(DType::F32, a, b, init);
  const MatrixD exactProduct = a * b;  // integers times 2^(lowA + lowB), below 2^10 of them
  for (Eigen::Index i = 0; i < c.size(); ++i) {
    const double sum = init(i) + exactProduct(i);
    const float expected = std::isnan(sum)  ? 0.0f
                           : sum > FLT_MAX  ? FLT_MAX
                           : sum < -FLT_MAX ? -FLT_MAX
                                            : static_cast<float>(sum);
    const float got = std::bit_cast<float>(c(i));
    RC_ASSERT(got == expected);  // +0 and -0 alike (OPEN-15)
    RC_ASSERT(std::signbit(got) == std::signbit(expected) || got == 0);
  }
}

RC_GTEST_PROP(MmadProduct, IsTheExactSumRoundedOnceAtEveryK, ()) {
  // Elements on grids of 2^lowA and 2^lowB with up to 12 significant bits, K up to 4095: the
  // oracle's product (one float GEMM, float GEMMs of K-blocks summed in double, or a double
  // GEMM, as the magnitudes allow) must be the exact sum rounded once. The exact sum, in units
  // of 2^(lowA + lowB), is below 4095 * 2^24 < 2^53: an int64, then a double exactly.
  const int lowA = *rc::gen::inRange(-20, 4), lowB = *rc::gen::inRange(-20, 4);
  const int bitsA = *rc::gen::inRange(1, 13), bitsB = *rc::gen::inRange(1, 13);
  const Eigen::Index m = *rc::gen::inRange(1, 4), n = *rc::gen::inRange(1, 4);
  const Eigen::Index k = *rc::gen::oneOf(rc::gen::inRange(1, 64), rc::gen::inRange(1000, 4096));
  std::vector<std::int64_t> ua(static_cast<std::size_t>(m * k)),
      ub(static_cast<std::size_t>(k * n));
  for (auto& v : ua) v = *rc::gen::inRange<std::int64_t>(-(1 << bitsA), (1 << bitsA) + 1);
  for (auto& v : ub) v = *rc::gen::inRange<std::int64_t>(-(1 << bitsB), (1 << bitsB) + 1);
  MatrixD a(m, k), b(k, n);
  for (Eigen::Index i = 0; i < m; ++i) {
    for (Eigen::Index kk = 0; kk < k; ++kk) {
      a(i, kk) = std::ldexp(static_cast<double>(ua[static_cast<std::size_t>(i * k + kk)]), lowA);
    }
  }
  for (Eigen::Index kk = 0; kk < k; ++kk) {
    for (Eigen::Index j = 0; j < n; ++j) {
      b(kk, j) = std::ldexp(static_cast<double>(ub[static_cast<std::size_t>(kk * n + j)]), lowB);
    }
  }
  const ElemMatrix c = mmadResult(DType::F32, a, b, MatrixD::Zero(m, n));
  for (Eigen::Index i = 0; i < m; ++i) {
    for (Eigen::Index j = 0; j < n; ++j) {
      std::int64_t units = 0;
      for (Eigen::Index kk = 0; kk < k; ++kk) {
        units +=
            ua[static_cast<std::size_t>(i * k + kk)] * ub[static_cast<std::size_t>(kk * n + j)];
      }
      const auto expected = static_cast<float>(std::ldexp(static_cast<double>(units), lowA + lowB));
      RC_ASSERT(c(i, j) == std::bit_cast<std::uint32_t>(expected));
    }
  }
}

TEST(MmadBits, F16BitsAreEigensRoundingConversion) {
  // bitsOf(F16) converts four values at a time with its own arithmetic; it must give what
  // Eigen::half(float) gives: every f16 but the NaNs gives itself back, and the floats one ulp
  // either side of it and half-way to the next pattern are rounded as Eigen rounds them, as are
  // the infinities, the NaNs and a few values past f16's range.
  std::vector<double> values;
  std::vector<std::uint32_t> expected;
  auto add = [&](float f) {
    values.push_back(f);
    expected.push_back(Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(f)));
  };
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto f =
        static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(static_cast<std::uint16_t>(h)));
    if (std::isnan(f)) continue;
    values.push_back(f);
    expected.push_back(h);
    const auto u = std::bit_cast<std::uint32_t>(f);
    for (const std::uint32_t near : {u + 1, u - 1, u | 0x1000u}) {
      if (!std::isnan(std::bit_cast<float>(near))) add(std::bit_cast<float>(near));
    }
  }
  for (const float f :
       {std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
        std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(), 65519.0f,
        65520.0f, 70000.0f, -1e30f, 0x1p-25f, 0x1p-26f, 1e-40f}) {
    add(f);
  }
  const MatrixD m =
      Eigen::Map<const MatrixD>(values.data(), 1, static_cast<Eigen::Index>(values.size()));
  const ElemMatrix bits = bitsOf(m, DType::F16);
  for (std::size_t i = 0; i < values.size(); ++i) {
    ASSERT_EQ(bits(0, static_cast<Eigen::Index>(i)), expected[i]) << "value " << values[i];
  }
  // The f16s alone, in order, as doubles and as floats: runs of zeros and normal f16s take the
  // conversion's exact path (the runs above, each beside its inexact neighbours, never do), the
  // runs that hold a subnormal or an infinity its rounding path.
  std::vector<double> halves;
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto f =
        static_cast<float>(Eigen::numext::bit_cast<Eigen::half>(static_cast<std::uint16_t>(h)));
    if (!std::isnan(f)) halves.push_back(f);
  }
  const MatrixD hd =
      Eigen::Map<const MatrixD>(halves.data(), 1, static_cast<Eigen::Index>(halves.size()));
  const ElemMatrix fromDoubles = bitsOf(hd, DType::F16);
  const ElemMatrix fromFloats = bitsOf(MatrixF(hd.cast<float>()), DType::F16);
  for (Eigen::Index i = 0; i < hd.size(); ++i) {
    const std::uint32_t h =
        Eigen::numext::bit_cast<std::uint16_t>(Eigen::half(static_cast<float>(hd(i))));
    ASSERT_EQ(fromDoubles(i), h) << "value " << hd(i);
    ASSERT_EQ(fromFloats(i), h) << "value " << hd(i);
  }
}

RC_GTEST_PROP(MmadProduct, AsFloatsAndGridOfAreTheElementwiseStatement, ()) {
  // gridOf reads four elements at a time with bit tricks, and asFloats uses it; each must say
  // what a loop over the elements says. gridOf, on floats: a grid exactly when every element is
  // finite. asFloats, on doubles: floats exactly when every element converts to float and back
  // unchanged and is finite. Both: the largest magnitude, and the least lowestBitExponent over
  // the nonzero elements. Elements of every kind, in matrices of every size up to 9 x 9 (so every
  // tail length).
  const auto rows = *rc::gen::inRange<Eigen::Index>(1, 10);
  const auto cols = *rc::gen::inRange<Eigen::Index>(1, 10);
  const auto anyFloatBits = rc::gen::map(rc::gen::arbitrary<std::uint32_t>(), [](std::uint32_t u) {
    return static_cast<double>(std::bit_cast<float>(u));  // any class: NaN, inf, subnormal
  });
  const auto subnormal = rc::gen::map(rc::gen::inRange<std::uint32_t>(1, 0x800000), [](auto u) {
    return static_cast<double>(std::bit_cast<float>(u));
  });
  const auto powerOfTwo = rc::gen::map(rc::gen::inRange(-149, 128), [](int e) {
    return std::ldexp(1.0, e);  // 2^128 is no float
  });
  const auto notAFloat = rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), [](std::uint64_t u) {
    return std::bit_cast<double>(u);  // almost never a float
  });
  const auto nearAFloat = rc::gen::map(rc::gen::arbitrary<float>(), [](float f) {
    return std::nextafter(static_cast<double>(f), 0.0);
  });
  const auto element = rc::gen::weightedOneOf<double>(
      {{20, anyFloatBits},
       {10, subnormal},
       {10, powerOfTwo},
       {10, rc::gen::element(0.0, -0.0)},
       {1, notAFloat},
       {1, nearAFloat},
       {1, rc::gen::element(static_cast<double>(FLT_MAX), 0x1p-150, 1e-300, 1e300)}});
  MatrixD m(rows, cols);
  for (Eigen::Index i = 0; i < m.size(); ++i) m(i) = *element;
  bool floats = true;
  Grid grid;
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    const double v = m(i);
    floats = floats && std::isfinite(v) && static_cast<double>(static_cast<float>(v)) == v;
    if (!floats) break;
    grid.max = std::max(grid.max, std::fabs(v));
    if (v != 0) grid.low = std::min(grid.low, lowestBitExponent(v));
  }
  const Eigen::MatrixXf asFloat = m.cast<float>();
  bool finite = true;
  Grid floatGrid;
  for (Eigen::Index i = 0; i < asFloat.size(); ++i) {
    const double v = asFloat(i);
    finite = finite && std::isfinite(v);
    floatGrid.max = std::max(floatGrid.max, std::fabs(v));
    if (v != 0) floatGrid.low = std::min(floatGrid.low, lowestBitExponent(v));
  }
  const std::optional<Grid> g = gridOf(asFloat);
  RC_ASSERT(g.has_value() == finite);
  if (finite) {
    RC_ASSERT(g->max == floatGrid.max);
    RC_ASSERT(g->low == floatGrid.low);
  }
  const std::optional<FloatOperand> f = asFloats(m);
  RC_ASSERT(f.has_value() == floats);
  if (!floats) return;
  RC_ASSERT(f->values == m.cast<float>());
  RC_ASSERT(f->grid.max == grid.max);
  RC_ASSERT(f->grid.low == grid.low);
}

TEST(MmadProduct, HF32RoundingPastFltMaxIsNotTakenInFloat) {
  // HF32 rounds FLT_MAX up to 2^128, a value no float holds: the product must not go through a
  // float GEMM. A = (FLT_MAX, 2^116, ..., 2^116), B(kk) = (1 + kk % 3) 2^-100, K = 4095: by hand,
  // C = 2^28 + 2^16 (sum over kk = 1..4094 of 1 + kk % 3), exact in double, rounded once.
  const Eigen::Index k = 4095;
  MatrixD a(1, k), b(k, 1);
  std::int64_t units = std::int64_t{1} << 12;  // of 2^16: 2^128 x 2^-100 = 2^12 x 2^16
  for (Eigen::Index kk = 0; kk < k; ++kk) {
    a(0, kk) = kk == 0 ? static_cast<double>(FLT_MAX) : std::ldexp(1.0, 116);
    b(kk, 0) = std::ldexp(static_cast<double>(1 + kk % 3), -100);
    if (kk > 0) units += 1 + kk % 3;
  }
  const Hf32Reading hf32 = defaultHf32(0);
  const ElemMatrix c = mmadResult(DType::F32, a, b, MatrixD::Zero(1, 1), Saturation::Final, &hf32);
  const auto expected = static_cast<float>(std::ldexp(static_cast<double>(units), 16));
  EXPECT_EQ(c(0, 0), std::bit_cast<std::uint32_t>(expected));
}

TEST(MmadExpected, AnEmptyCLeavesNothingUndefined) {
  // A C with one zero dimension has no footprint: nothing in the region is don't-care.
  isa::Program p;
  p.segments.push_back({isa::Memory::L0C, 0, isa::Bytes(2048, 0x5A)});
  p.observe = {{isa::Memory::L0C, 0, 2048}};
  for (const auto& [rows, cols] : {std::pair<Eigen::Index, Eigen::Index>{0, 5}, {7, 0}, {0, 0}}) {
    const Expected e = expectC(p, 0, ElemMatrix(rows, cols), 0);
    EXPECT_TRUE(e.dontCare.empty()) << rows << " x " << cols;
    EXPECT_EQ(e.regions.at(0), p.segments[0].bytes);
  }
}

// OPEN-15: float Mmad's C compares +0 and -0 as equal, and nothing else loosens: a nonzero
// element differing in its sign bit alone, an integer C, and a stray -0 outside C still fail.
TEST(MmadExpected, ZeroSignIsFreeForFloatCOnly) {
  for (const DType t : {DType::F16, DType::S8}) {
    isa::Program p;
    p.segments.push_back({isa::Memory::L0C, 0, isa::Bytes(2048, 0x5A)});
    p.observe = {{isa::Memory::L0C, 0, 2048}};
    isa::Mmad x;
    x.dtype = t;
    x.m = x.n = 16;
    x.k = 32;
    p.instructions.push_back(x);
    ElemMatrix c = ElemMatrix::Constant(16, 16, 0x3F800000u);  // 1.0f (or int 1065353216)
    c(0, 0) = 0;                                               // +0 at byte 0 of fractal 0
    const Expected e = expectC(p, 0, c, 0);
    const bool isFloat = t == DType::F16;
    EXPECT_EQ(e.formats[0].signlessZero, isFloat);
    EXPECT_EQ(e.formats[0].dtype, isFloat ? DType::F32 : DType::S32);
    isa::Observed obs = e.regions;
    obs[0][3] = 0x80;  // -0 where +0 is expected
    EXPECT_EQ(compareExact(p, e, obs).equal, isFloat) << isa::nameOf(t);
    obs = e.regions;
    obs[0][4 + 3] ^= 0x80;  // -1.0 where 1.0 is expected
    EXPECT_FALSE(compareExact(p, e, obs).equal) << isa::nameOf(t);
    obs = e.regions;
    std::fill_n(obs[0].begin() + 1024, 4, 0);
    obs[0][1024 + 3] = 0x80;  // a stray -0 past C's one fractal
    const Comparison stray = compareExact(p, e, obs);
    EXPECT_FALSE(stray.equal);
    EXPECT_EQ(stray.strayBytes, 4u);
  }
}

}  // namespace
}  // namespace cubecheck::oracle
