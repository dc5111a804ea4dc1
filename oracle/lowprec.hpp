// The values of the 950's low-precision element formats (spec 8.1.1, appendix A), decoded by
// table on the oracle side. The reference model has its own decoder (docs/architecture.md, "The one
// rule").
#pragma once

#include <cstdint>

#include "isa/dtype.hpp"

namespace cubecheck::oracle {

/// Whether t is one of spec 8.1.1's element formats: fp8_e4m3fn, fp8_e5m2, hifloat8 and the two
/// fp4x2 types.
bool isLowPrecision(isa::DType t);

/// The value of one element code of a low-precision type: a byte for the 8-bit types, a nibble
/// (0..15) for fp4. NaN codes give a quiet NaN, inf codes +-inf, -0 codes -0.0. Every finite value
/// is a dyadic rational exact in double and in f32.
double lowPrecisionValue(isa::DType t, std::uint8_t code);

/// The code of a finite value of a low-precision type (+0 for zero; for fp4 a nibble). Throws
/// when the value is not exactly one of the type's finite values.
std::uint8_t lowPrecisionCode(isa::DType t, double value);

/// The E8M0 scale 2^(c - 127) for c = 0..254 (0x00 is 2^-127, the default of OPEN-18); NaN for
/// 0xFF.
double e8m0Value(std::uint8_t code);

/// The E8M0 scale's exponent c - 127 (the "value" appendix A's check file lists).
int e8m0Exponent(std::uint8_t code);

}  // namespace cubecheck::oracle
