// The reference model's decoders of the narrow element formats: f16 (spec 2) and the 950's
// low-precision formats (spec 8.1.1, appendix A): f32 bit patterns built from the codes' bits,
// and appendix A's tables where the format has no regular bit structure. Independent of
// oracle/lowprec (docs/architecture.md, "The one rule").
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

#include "isa/dtype.hpp"

namespace cubecheck::dut {

/// Four f16 bit patterns as the floats they denote, exactly (a NaN keeps its payload, shifted
/// up), in 4-lane vectors (GCC/Clang vector extension) with no branch: the exponent is rebiased
/// from 15 to 127 (to 255 for inf and NaN), and a subnormal's fraction f, worth f 2^-24, is
/// taken as (2^-14 + f 2^-24) - 2^-14 in f32, exact. What a loop over a whole f16 buffer uses.
inline void halfValues4(const std::uint16_t* h, float* out) {
  using U16x4 = std::uint16_t __attribute__((vector_size(8)));
  using U32x4 = std::uint32_t __attribute__((vector_size(16)));
  using F32x4 = float __attribute__((vector_size(16)));
  U16x4 codes;
  std::memcpy(&codes, h, sizeof codes);
  const U32x4 v = __builtin_convertvector(codes, U32x4);  // widened in place, not lane by lane
  const U32x4 sign = (v & 0x8000u) << 16;
  const U32x4 shifted = (v & 0x7FFFu) << 13;  // exponent and fraction
  const U32x4 exponent = shifted & 0x0F800000u;
  const auto special = static_cast<U32x4>(exponent == 0x0F800000u);  // all ones: inf or NaN
  const U32x4 normal = shifted + ((127u - 15u) << 23) + (special & ((128u - 16u) << 23));
  constexpr std::uint32_t kTwoToMinus14 = 113u << 23;
  const U32x4 lifted = shifted + kTwoToMinus14;
  F32x4 subnormal;
  std::memcpy(&subnormal, &lifted, sizeof subnormal);
  subnormal -= std::bit_cast<float>(kTwoToMinus14);
  U32x4 subnormalBits;
  std::memcpy(&subnormalBits, &subnormal, sizeof subnormalBits);
  const auto zeroExponent = static_cast<U32x4>(exponent == 0u);
  const U32x4 result = sign | (subnormalBits & zeroExponent) | (normal & ~zeroExponent);
  std::memcpy(out, &result, sizeof result);
}

/// One f16 bit pattern as the float it denotes (halfValues4's first lane).
inline float halfValue(std::uint16_t h) {
  const std::uint16_t codes[4] = {h, 0, 0, 0};
  float values[4];
  halfValues4(codes, values);
  return values[0];
}

/// One element code (a byte; for fp4 a nibble 0..15) of fp8_e4m3fn, fp8_e5m2, hifloat8,
/// fp4x2_e2m1 or fp4x2_e1m2 as an f32 bit pattern: NaN codes give 0x7FC00000, inf codes
/// 0x7F800000 / 0xFF800000, -0 codes 0x80000000. Throws for any other type.
std::uint32_t lowPrecisionBits(isa::DType t, std::uint8_t code);

/// The same as a float.
float lowPrecisionFloat(isa::DType t, std::uint8_t code);

/// The E8M0 scale 2^(c - 127) as f32 bits (0x00 is the f32 subnormal 2^-127, OPEN-18's default);
/// 0x7FC00000 for 0xFF.
std::uint32_t e8m0Bits(std::uint8_t code);

}  // namespace cubecheck::dut
