// The semantic oracle: what a Program must leave behind, derived from matrices, not bytes.
#pragma once

#include "isa/program.hpp"
#include "oracle/expected.hpp"

namespace cubecheck::oracle {

/// Expected contents of every observed region after the program, for a legal program (the
/// caller guarantees legality; the oracle does not re-derive the legality rules).
Expected expect(const isa::Program& program);

}  // namespace cubecheck::oracle
