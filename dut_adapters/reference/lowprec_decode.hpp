// The reference model's decoders of the 950's low-precision element formats (spec 8.1.1,
// appendix A): f32 bit patterns built from the codes' bits, and appendix A's tables where the
// format has no regular bit structure. Independent of oracle/lowprec (docs/architecture.md, "The
// one rule").
#pragma once

#include <cstdint>

#include "isa/dtype.hpp"

namespace cubecheck::dut {

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
