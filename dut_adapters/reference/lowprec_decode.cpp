#include "dut_adapters/reference/lowprec_decode.hpp"

#include <array>
#include <bit>
#include <cmath>
#include <stdexcept>

namespace cubecheck::dut {
namespace {

constexpr std::uint32_t kNaNBits = 0x7FC00000u;
constexpr std::uint32_t kInfBits = 0x7F800000u;
constexpr std::uint32_t kSignBit = 0x80000000u;

/// A small float format with an IEEE-like bit layout (fp8 e4m3fn / e5m2) re-packed into f32:
/// normal codes keep their mantissa bits and move the exponent from `bias` to 127; subnormal
/// codes are normalised by shifting the mantissa up to its leading one.
std::uint32_t repack(std::uint32_t sign, int e, std::uint32_t m, int mantBits, int bias) {
  if (e == 0 && m == 0) return sign;
  if (e == 0) {
    int shift = 0;
    while ((m & (1u << mantBits)) == 0) {
      m <<= 1;
      ++shift;
    }
    m &= (1u << mantBits) - 1;
    e = 1 - shift;
  }
  const auto exp = static_cast<std::uint32_t>(e - bias + 127);
  return sign | exp << 23 | m << (23 - mantBits);
}

std::uint32_t e4m3Bits(std::uint8_t c) {
  if ((c & 0x7F) == 0x7F) return kNaNBits;
  return repack(c & 0x80 ? kSignBit : 0, (c >> 3) & 0xF, c & 0x7u, 3, 7);
}

std::uint32_t e5m2Bits(std::uint8_t c) {
  const std::uint32_t sign = c & 0x80 ? kSignBit : 0;
  if (((c >> 2) & 0x1F) == 0x1F) return (c & 0x3) == 0 ? sign | kInfBits : kNaNBits;
  return repack(sign, (c >> 2) & 0x1F, c & 0x3u, 2, 15);
}

/// Appendix A's hifloat8 table for codes 0x00..0x7F as k * 2^E (k odd, or 0); the negative half
/// is the same with the sign set, except 0x80 (NaN). 0x6F, marked {0, 99}, is +inf.
struct Dyadic {
  int k;
  int e;
};
constexpr std::array<Dyadic, 128> kHiF8Table{{
    // 0x0_
    {0, 0},
    {1, -22},
    {1, -21},
    {1, -20},
    {1, -19},
    {1, -18},
    {1, -17},
    {1, -16},
    {1, 0},
    {9, -3},
    {5, -2},
    {11, -3},
    {3, -1},
    {13, -3},
    {7, -2},
    {15, -3},
    // 0x1_
    {1, 1},
    {9, -2},
    {5, -1},
    {11, -2},
    {3, 0},
    {13, -2},
    {7, -1},
    {15, -2},
    {1, -1},
    {9, -4},
    {5, -3},
    {11, -4},
    {3, -2},
    {13, -4},
    {7, -3},
    {15, -4},
    // 0x2_
    {1, 2},
    {9, -1},
    {5, 0},
    {11, -1},
    {3, 1},
    {13, -1},
    {7, 0},
    {15, -1},
    {1, 3},
    {9, 0},
    {5, 1},
    {11, 0},
    {3, 2},
    {13, 0},
    {7, 1},
    {15, 0},
    // 0x3_
    {1, -2},
    {9, -5},
    {5, -4},
    {11, -5},
    {3, -3},
    {13, -5},
    {7, -4},
    {15, -5},
    {1, -3},
    {9, -6},
    {5, -5},
    {11, -6},
    {3, -4},
    {13, -6},
    {7, -5},
    {15, -6},
    // 0x4_
    {1, 4},
    {5, 2},
    {3, 3},
    {7, 2},
    {1, 5},
    {5, 3},
    {3, 4},
    {7, 3},
    {1, 6},
    {5, 4},
    {3, 5},
    {7, 4},
    {1, 7},
    {5, 5},
    {3, 6},
    {7, 5},
    // 0x5_
    {1, -4},
    {5, -6},
    {3, -5},
    {7, -6},
    {1, -5},
    {5, -7},
    {3, -6},
    {7, -7},
    {1, -6},
    {5, -8},
    {3, -7},
    {7, -8},
    {1, -7},
    {5, -9},
    {3, -8},
    {7, -9},
    // 0x6_
    {1, 8},
    {3, 7},
    {1, 9},
    {3, 8},
    {1, 10},
    {3, 9},
    {1, 11},
    {3, 10},
    {1, 12},
    {3, 11},
    {1, 13},
    {3, 12},
    {1, 14},
    {3, 13},
    {1, 15},
    {0, 99},
    // 0x7_
    {1, -8},
    {3, -9},
    {1, -9},
    {3, -10},
    {1, -10},
    {3, -11},
    {1, -11},
    {3, -12},
    {1, -12},
    {3, -13},
    {1, -13},
    {3, -14},
    {1, -14},
    {3, -15},
    {1, -15},
    {3, -16},
}};

std::uint32_t hif8Bits(std::uint8_t c) {
  if (c == 0x80) return kNaNBits;
  const std::uint32_t sign = c & 0x80 ? kSignBit : 0;
  const Dyadic d = kHiF8Table[c & 0x7F];
  if (d.e == 99) return sign | kInfBits;
  return sign | std::bit_cast<std::uint32_t>(std::ldexp(static_cast<float>(d.k), d.e));
}

/// Appendix A's fp4 nibble tables (0x0..0x7; 0x8..0xF are the negatives, 0x8 is -0).
constexpr std::array<float, 8> kE2M1{0, 0.5f, 1, 1.5f, 2, 3, 4, 6};
constexpr std::array<float, 8> kE1M2{0, 0.25f, 0.5f, 0.75f, 1, 1.25f, 1.5f, 1.75f};  // OPEN-17

std::uint32_t fp4Bits(const std::array<float, 8>& table, std::uint8_t nibble) {
  return (nibble & 0x8 ? kSignBit : 0) | std::bit_cast<std::uint32_t>(table[nibble & 0x7]);
}

}  // namespace

std::uint32_t lowPrecisionBits(isa::DType t, std::uint8_t code) {
  switch (t) {
    case isa::DType::Fp8E4M3FN:
      return e4m3Bits(code);
    case isa::DType::Fp8E5M2:
      return e5m2Bits(code);
    case isa::DType::HiF8:
      return hif8Bits(code);
    case isa::DType::Fp4E2M1:
      return fp4Bits(kE2M1, code & 0xF);
    case isa::DType::Fp4E1M2:
      return fp4Bits(kE1M2, code & 0xF);
    default:
      throw std::logic_error("reference: not a low-precision element type");
  }
}

float lowPrecisionFloat(isa::DType t, std::uint8_t code) {
  return std::bit_cast<float>(lowPrecisionBits(t, code));
}

std::uint32_t e8m0Bits(std::uint8_t code) {
  if (code == 0xFF) return kNaNBits;
  if (code == 0) return 0x00400000u;  // 2^-127: the f32 subnormal with the top fraction bit
  return std::uint32_t{code} << 23;
}

}  // namespace cubecheck::dut
