// What a board runs for one vector case, and how its answers become the case's observed regions.
// A board cannot be given L0A/L0B images nor copy L0A/L0B out, so a case that touches them runs in
// the rewritten form of conformance/indirect.hpp: the rewrite itself decides the programs, and the
// translation of their outputs back into the case's regions is read off it (ascendc_plan.cpp) as
// a gather map the host program applies. The board's own limits (what the documented Ascend C
// calls can stage, read out and type) decide which cases are exported at all.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "conformance/vector_case.hpp"
#include "isa/program.hpp"

namespace cubecheck::vec {

/// One run of the gather map: `count` bytes of the case's observed region `region` from
/// `dstOffset` on, taken from the concatenated observed regions of run `run`, starting at
/// `srcOffset` and `srcStep` bytes apart.
struct GatherRun {
  enum Kind : std::int64_t {
    Byte = 0,  ///< the byte as the board reported it
    S32 = 1,   ///< an s32 of L0C that must lie in [-128, 127]; its low byte (through Mmad)
    Zero = 2,  ///< no source: the rewrite leaves the byte 0
    /// Index0 + f: an s32 of L0C that must lie in [0, 3], read through MmadWithSparse as 3 - a
    /// 2-bit index; it is OR-ed into bits 2f + 1:2f of the byte, and four such runs (f = 0..3)
    /// make one index byte (conformance/indirect.hpp).
    Index0 = 3,
    Index3 = 6,
  };
  std::int64_t region = 0;
  std::int64_t dstOffset = 0;
  std::int64_t count = 0;
  std::int64_t kind = Byte;
  std::int64_t run = 0;
  std::int64_t srcOffset = 0;
  std::int64_t srcStep = 1;
};

/// Words per GatherRun in the exported gather file, in the member order above.
inline constexpr int kGatherWords = 7;

struct BoardPlan {
  std::vector<isa::Program> runs;  ///< the programs a board runs, in order
  std::vector<GatherRun> gather;   ///< how their outputs make the case's observed regions
  bool rewritten = false;          ///< L0A/L0B images or regions: the indirect rewrite runs
  bool throughMmad = false;        ///< some run observes L0A/L0B through Mmad
  /// dav-3510: the runs write the initial L0C image with f32 Mmads of an identity first.
  bool l0cByMmad = false;
  /// What the case's verdict rests on besides its own instructions, as conf::IndirectObservation
  /// says it (one line per kind: the loads and Mmads that stage and observe L0A/L0B/IDX, L0C
  /// written by Mmad); empty when the case runs as it is.
  std::set<std::string> restsOn;
  /// Why the case cannot run on a board through the exported kernel; then runs is empty.
  std::optional<std::string> skip;
};

/// The board plan of a legal program (illegal ones have nothing a board can report: the caller
/// leaves them out). Throws std::logic_error when the gather map read off the rewrite does not
/// reproduce it (a defect of this code, never of the case).
BoardPlan planForBoard(const isa::Program& program);

/// What adjustL0cForBoard did to a case.
struct L0cAdjustment {
  std::size_t replacedWords = 0;    ///< initial L0C words replaced by writable ones
  std::optional<std::string> skip;  ///< why the case cannot run on a board this way
};

/// Makes a dav-3510 case's initial L0C image one a board can write. Each unwritable word becomes a
/// writable neighbour (the exponent moved off 0 or 255; -0 becomes the negative least normal),
/// which is sound only where no instruction's result depends on it: the oracle must give the same
/// bytes for every byte an instruction writes (canaries and C areas a zero-initialised Mmad
/// overwrites qualify; a C area an f32 Mmad accumulates onto does not, and the case is then left
/// out with the reason). Bytes no instruction writes keep their initial value, so the expectation
/// takes the new words there. A word s32 Mmads accumulate onto is replaced where
/// conf::s32ShiftIsExact, and the expectation there shifted by the same difference. The program and
/// expectation of `c` are changed in place only when the adjustment succeeds; other profiles and
/// cases without L0C images are untouched.
L0cAdjustment adjustL0cForBoard(conf::VectorCase& c);

/// The GM a run addresses, 512-byte aligned below: its GM images and every GM operand address.
/// The host allocates [origin, end) and the kernel addresses GM relative to origin.
struct GmSpan {
  std::uint64_t origin = 0;
  std::uint64_t end = 0;
};
GmSpan gmSpanOf(const isa::Program& run);

/// Applies a gather map to the runs' outputs (each run's observed regions concatenated), as the
/// exported host program does; nullopt with `error` when an S32 source lies outside [-128, 127] or
/// an index source outside [0, 3].
std::optional<isa::Observed> applyGather(const std::vector<GatherRun>& gather,
                                         const std::vector<std::uint64_t>& regionSizes,
                                         const std::vector<isa::Bytes>& runOutputs,
                                         std::string& error);

}  // namespace cubecheck::vec
