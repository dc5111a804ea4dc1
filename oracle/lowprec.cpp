#include "oracle/lowprec.hpp"

#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

namespace cubecheck::oracle {
namespace {

using isa::DType;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

using Table = std::array<double, 256>;

// Spec 8.1.1, one row per format, written as the row states it (never a generic IEEE formula
// with a bias parameter: that gets E1M2 and HiF8 wrong). Each table is built once, then looked up.

Table e4m3Table() {
  Table t{};
  for (int c = 0; c < 256; ++c) {
    const double s = (c & 0x80) != 0 ? -1 : 1;
    const int e = (c >> 3) & 0xF, m = c & 0x7;
    if ((c & 0x7F) == 0x7F) {
      t[c] = kNaN;  // 0x7F, 0xFF; no inf codes
    } else {
      t[c] = s * (e == 0 ? std::ldexp(m, -9) : std::ldexp(8 + m, e - 10));
    }
  }
  return t;
}

Table e5m2Table() {
  Table t{};
  for (int c = 0; c < 256; ++c) {
    const double s = (c & 0x80) != 0 ? -1 : 1;
    const int e = (c >> 2) & 0x1F, m = c & 0x3;
    if (e == 31) {
      t[c] = m == 0 ? s * kInf : kNaN;
    } else {
      t[c] = s * (e == 0 ? std::ldexp(m, -16) : std::ldexp(4 + m, e - 17));
    }
  }
  return t;
}

// HiF8 (spec 8.1.6's bit layout table): the dot field D is a prefix code read from bit 6 down; it
// fixes the width w of the sign-magnitude exponent field E and of the mantissa M.
struct HiF8Class {
  int dotBits;       // bits of D
  int dotValue;      // D's bits as a number
  int exponentBits;  // w
  int mantissaBits;
};
constexpr std::array<HiF8Class, 5> kHiF8Classes{{
    {2, 0b11, 4, 1},
    {2, 0b10, 3, 2},
    {2, 0b01, 2, 3},
    {3, 0b001, 1, 3},
    {4, 0b0001, 0, 3},
}};

double hif8Value(int c) {
  if (c == 0x00) return 0;     // the only zero
  if (c == 0x80) return kNaN;  // no -0: its code is NaN
  if ((c & 0x7F) == 0x6F) return (c & 0x80) != 0 ? -kInf : kInf;
  const double s = (c & 0x80) != 0 ? -1 : 1;
  const int mag = c & 0x7F;  // bits 6..0
  for (const HiF8Class& k : kHiF8Classes) {
    if (mag >> (7 - k.dotBits) != k.dotValue) continue;
    const int rest = mag & ((1 << (7 - k.dotBits)) - 1);
    const int e = rest >> k.mantissaBits, m = rest & ((1 << k.mantissaBits) - 1);
    int ev = 0;
    if (k.exponentBits > 0) {
      // |Ev| = 2^(w-1) + (E & (2^(w-1) - 1)); the MSB of E is the exponent's sign.
      const int half = 1 << (k.exponentBits - 1);
      const int abs = half + (e & (half - 1));
      ev = (e & half) != 0 ? -abs : abs;
    }
    return s * std::ldexp(1 + std::ldexp(m, -k.mantissaBits), ev);
  }
  // D = 0000: denormal 2^(M - 23), M = 1..7 (M = 0 is the zero or NaN handled above).
  return s * std::ldexp(1.0, (mag & 0x7) - 23);
}

Table hif8Table() {
  Table t{};
  for (int c = 0; c < 256; ++c) t[c] = hif8Value(c);
  return t;
}

// fp4: one nibble s ee m (E2M1) or s e mm (E1M2); the upper 240 entries repeat the nibble table.
Table e2m1Table() {
  Table t{};
  for (int c = 0; c < 256; ++c) {
    const int n = c & 0xF, e = (n >> 1) & 0x3, m = n & 0x1;
    const double s = (n & 0x8) != 0 ? -1 : 1;
    t[c] = s * (e == 0 ? m / 2.0 : std::ldexp(2 + m, e - 2));
  }
  return t;
}

Table e1m2Table() {
  Table t{};
  for (int c = 0; c < 256; ++c) {
    const int n = c & 0xF, e = (n >> 2) & 0x1, m = n & 0x3;
    const double s = (n & 0x8) != 0 ? -1 : 1;
    t[c] = s * (e == 0 ? m / 4.0 : (4 + m) / 4.0);  // bias 1 (OPEN-17)
  }
  return t;
}

}  // namespace

bool isLowPrecision(DType t) {
  return t == DType::Fp8E4M3FN || t == DType::Fp8E5M2 || t == DType::HiF8 || t == DType::Fp4E2M1 ||
         t == DType::Fp4E1M2;
}

double lowPrecisionValue(DType t, std::uint8_t code) {
  static const Table e4m3 = e4m3Table(), e5m2 = e5m2Table(), hif8 = hif8Table(), e2m1 = e2m1Table(),
                     e1m2 = e1m2Table();
  switch (t) {
    case DType::Fp8E4M3FN:
      return e4m3[code];
    case DType::Fp8E5M2:
      return e5m2[code];
    case DType::HiF8:
      return hif8[code];
    case DType::Fp4E2M1:
      return e2m1[code & 0xF];
    case DType::Fp4E1M2:
      return e1m2[code & 0xF];
    default:
      throw std::logic_error("oracle::lowPrecisionValue: not a low-precision type");
  }
}

std::uint8_t lowPrecisionCode(DType t, double value) {
  // The inverse of the type's table, built once: each finite value with the first code that has
  // it (a map's keys compare -0 equal to +0, so a zero gets code 0, which precedes the -0 code).
  using Inverse = std::map<double, std::uint8_t>;
  auto inverse = [](DType type) {
    Inverse v;
    for (int c = 0; c < (isa::bitsOf(type) == 4 ? 16 : 256); ++c) {
      const double x = lowPrecisionValue(type, static_cast<std::uint8_t>(c));
      if (std::isfinite(x)) v.emplace(x, static_cast<std::uint8_t>(c));  // keeps the first
    }
    return v;
  };
  static const std::map<DType, Inverse> kInverse = [&] {
    std::map<DType, Inverse> m;
    for (DType type :
         {DType::Fp8E4M3FN, DType::Fp8E5M2, DType::HiF8, DType::Fp4E2M1, DType::Fp4E1M2}) {
      m.emplace(type, inverse(type));
    }
    return m;
  }();
  if (const auto type = kInverse.find(t); type != kInverse.end()) {
    if (const auto it = type->second.find(value); it != type->second.end()) return it->second;
  }
  throw std::logic_error("oracle::lowPrecisionCode: value not exact in the type");
}

int e8m0Exponent(std::uint8_t code) {
  return static_cast<int>(code) - 127;
}

double e8m0Value(std::uint8_t code) {
  static const Table kValues = [] {
    Table t{};
    for (int c = 0; c < 256; ++c) {
      t[c] = c == 0xFF ? kNaN : std::ldexp(1.0, e8m0Exponent(static_cast<std::uint8_t>(c)));
    }
    return t;
  }();
  return kValues[code];
}

}  // namespace cubecheck::oracle
