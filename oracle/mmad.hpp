// The semantics of dense Mmad on logical matrices (spec 8, 9): what C must be, from the values of
// A, B and the init, never from the bytes of a program.
#pragma once

#include <Eigen/Core>
#include <climits>
#include <concepts>
#include <cstdint>
#include <optional>
#include <string>

#include "isa/dtype.hpp"
#include "isa/program.hpp"
#include "oracle/expected.hpp"
#include "oracle/tile.hpp"

namespace cubecheck::oracle {

/// Operand and init values; every value the suite draws is exactly representable in double.
using MatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic>;
/// Operand values that are floats: every value of a dense Mmad operand type (s4, s8, f16, bf16,
/// f32) is one. Half the bytes of MatrixD, and no conversion before a float product.
using MatrixF = Eigen::MatrixXf;

/// How int32 accumulation saturates (OPEN-7): once at the end (the default), or after every
/// partial sum in ascending k starting from the init. Wrap is no reading of OPEN-7 (spec 8:
/// integers saturate): the exact sum modulo 2^32, so that a probe can name a DUT that wraps.
enum class Saturation { Final, PerPartialSum, Wrap };

/// One reading of HF32 (OPEN-7: its width on a2 is undocumented, and the two trans-mode pages
/// disagree on mode 1): fraction bits kept, and how f32 is rounded to them.
struct Hf32Reading {
  int fractionBits = 11;
  enum class Round {
    NearestEven,
    NearestAway,
    NearestTowardZero,
    TowardZero
  } round = Round::NearestEven;
  std::string name() const;
};
/// The suite's default: 11 fraction bits; mode 0 nearest-even, mode 1 nearest, ties away.
Hf32Reading defaultHf32(std::uint8_t transMode);

/// `v` rounded to the reading's HF32 (by scaling, not by bit masks).
double roundHf32(double v, const Hf32Reading& r);

/// Element values from bit patterns of type t (integers sign-extended; f16/bf16 via Eigen).
MatrixD valuesOf(const ElemMatrix& bits, isa::DType t);
/// Bit patterns of values of type t; the values must be representable.
ElemMatrix bitsOf(const MatrixD& values, isa::DType t);
ElemMatrix bitsOfFloats(const MatrixF& values, isa::DType t);
/// The same for floats; a template, so that any other expression still converts to MatrixD.
template <std::same_as<MatrixF> Matrix>
ElemMatrix bitsOf(const Matrix& values, isa::DType t) {
  return bitsOfFloats(values, t);
}

/// log2 of the largest power of two dividing the finite v != 0 (its last significant bit), read
/// off its bits: v = significand 2^(exponent - 1075), the significand with its implicit bit.
int lowestBitExponent(double v);

/// Where the lowest set bit of a matrix's elements lies and how large they get: every element is
/// an integer multiple of 2^low, none above max in magnitude (low is INT_MAX when all are 0).
struct Grid {
  int low = INT_MAX;
  double max = 0;
};
/// The grid of a matrix of floats, when every element is finite; empty otherwise.
std::optional<Grid> gridOf(const MatrixF& m);
/// A matrix whose every element is a finite float: the floats, and their grid.
struct FloatOperand {
  Eigen::MatrixXf values;
  Grid grid;
};
/// The matrix as floats with its grid, when each element converts to float and back unchanged
/// and is finite; empty otherwise. mmadResult's product runs in float only on such operands.
std::optional<FloatOperand> asFloats(const MatrixD& m);

/// C = init + A * B (spec 8) as accumulator bit patterns (s32 for s8/s4, f32 otherwise): the
/// exact sum (int64 or double), saturated to int32 per `sat`, or converted to f32 with the
/// saturation mode (+-inf to +-FLT_MAX, NaN to 0). With `hf32`, f32 operands are first rounded.
/// A and B hold values of type t (for s8 and s4, integers in its range: the type alone bounds
/// the product's terms, and the elements are not scanned).
ElemMatrix mmadResult(isa::DType t, const MatrixD& a, const MatrixD& b, const MatrixD& init,
                      Saturation sat = Saturation::Final, const Hf32Reading* hf32 = nullptr);
/// The same on operands held as floats.
ElemMatrix mmadResult(isa::DType t, const MatrixF& a, const MatrixF& b, const MatrixD& init,
                      Saturation sat = Saturation::Final, const Hf32Reading* hf32 = nullptr);

/// The expectation for an L0C region after a Mmad writing C (m x n accumulator bit patterns) at
/// cAddr: the region's initial bytes with C's Nz fractals in place; cells of the C footprint
/// outside m x n are don't-care (OPEN-8); nothing else changes. Where the program's Mmads
/// multiply floats, C's format is f32 with +0 and -0 compared equal (OPEN-15).
Expected expectC(const isa::Program& program, std::size_t region, const ElemMatrix& c,
                 std::uint64_t cAddr);

}  // namespace cubecheck::oracle
