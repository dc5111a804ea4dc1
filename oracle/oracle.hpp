// The semantic oracle: what a Program must leave behind, derived from matrices, not bytes.
#pragma once

#include "isa/program.hpp"
#include "oracle/expected.hpp"

namespace cubecheck::oracle {

/// OPEN-10: the order in which one LoadData2DParamsV2 / Load2DBitModeParam call writes its
/// destination fractals, which decides who wins where fractals collide (dst_stride below a
/// column's fractal count, with two or more destination columns).
enum class V2Order {
  ColumnByColumn,  ///< the default: columns ascend, so the later column wins
  RowByRow,        ///< rows ascend, columns inside a row: the earlier column wins
};

/// Expected contents of every observed region after the program, for a legal program (the
/// caller guarantees legality; the oracle does not re-derive the legality rules).
Expected expect(const isa::Program& program, V2Order order = V2Order::ColumnByColumn);

}  // namespace cubecheck::oracle
