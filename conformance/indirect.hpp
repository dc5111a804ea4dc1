// Observation through Mmad: how a DUT that cannot copy L0A/L0B out, nor write them directly (real
// hardware), still gets every load family certified. docs/hardware.md explains the method.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dut_adapters/dut.hpp"
#include "isa/memory.hpp"
#include "isa/program.hpp"

namespace cubecheck::conf {

/// The memories the rewrite can reach indirectly: L0A, L0B and the sparse index buffer. A DUT that
/// does not declare one of them observable is taken not to honour initial images there either (a
/// board fills L0A/L0B only by loads, the index buffer only by LoadDataWithSparse), so both its
/// images and its observed regions go through the rewrite.
bool reachableIndirectly(isa::Memory m);

/// The lowest `align`-aligned address from `from` on where `size` bytes overlap no segment of
/// m, inside its capacity.
std::optional<std::uint64_t> findGap(const std::vector<isa::Segment>& segments, isa::Memory m,
                                     std::uint64_t size, std::uint64_t align,
                                     std::uint64_t capacity, std::uint64_t from = 0);

/// Makes [lo, hi) of m defined in p: the segments of m it overlaps or touches become one, their
/// bytes kept and the rest zero (bytes the original program never defined, which it never reads).
void define(isa::Program& p, isa::Memory m, std::uint64_t lo, std::uint64_t hi);

/// The plain copy of whole fractals into L0A/L0B the profile has: load2d (repeat_times fractals,
/// src_stride 1, dst_gap 0: spec 4) on a2 and legacy; load2d_v2 on 950 (m_step fractals, k_step 1,
/// which reads and writes them in order, spec 5; the load2d emulation there is OPEN-9).
std::string_view plainLoadOpcode(isa::ProfileId prof);

/// Appends the plain loads copying `bytes` (whole fractals, as s8) from `src` in L1, or in GM when
/// `fromGM`, to `dstAddr` in `dst` (L0A or L0B).
void appendPlainLoads(isa::Program& p, isa::Memory dst, std::uint64_t src, std::uint64_t dstAddr,
                      std::uint64_t bytes, bool fromGM);

/// [addr, addr + bytes.size()) of one memory, rounded out to an alignment.
struct Cover {
  std::uint64_t addr = 0;
  isa::Bytes bytes;
};

/// The segments of memory m merged into covers aligned to `align`, sorted by address; bytes no
/// segment defines are 0 (a legal program never reads them). What a board stages, and what the
/// L0C prefix below writes.
std::vector<Cover> coversOf(const std::vector<isa::Segment>& segments, isa::Memory m,
                            std::uint64_t align);

/// A dav-3510 has no documented call that writes L0C, so a board there writes a case's initial
/// L0C image with f32 Mmads of an identity. Those write exactly the words whose bits, read as f32,
/// are +0 or a normal number: products 1 * v and 0 * v are exact and adding zeros to v changes
/// nothing. The other words (-0, subnormal, infinity and NaN patterns) cannot be written.
bool writableByF32Mmad(std::uint32_t word);

/// The writable word put in place of an unwritable one: the exponent moved off 0 (subnormals; -0
/// becomes the negative least normal) or off 255 (infinities and NaNs), sign and fraction kept.
/// It differs from the word in bit 23 alone.
std::uint32_t writableNeighbour(std::uint32_t word);

/// What a program's Mmads make of an initial L0C word (spec 7.4, 8; nothing else writes or reads
/// L0C), in program order, counting only the m x n elements an Mmad computes.
enum class L0cFate : std::uint8_t {
  Kept,            ///< no Mmad writes it: it ends as it began
  Overwritten,     ///< last written from zero or a bias: the end value does not depend on it
  AccumulatedS32,  ///< accumulated onto since, by s32 Mmads only: the end value is it + a sum
  AccumulatedF32,  ///< accumulated onto since, in f32 at least once
};
/// The fate of every word of L0C (index: byte address / 4).
std::vector<L0cFate> l0cFates(const isa::Program& p);

/// Whether an s32 initial L0C word `was` that an Mmad of p accumulates onto may be written as
/// `now` instead (its writableNeighbour) with the result there exactly `now - was` off, so that
/// subtracting it back is exact: no sum onto either can saturate, i.e. |was| and |now| plus the
/// most p's s32 Mmads can add to one word (k * 128 * 128 per Mmad, the s8 extreme) stay inside
/// s32. Then a DUT's answer there, shifted back, is the answer to the original program (a
/// bijection on words, so a wrong answer stays wrong).
bool s32ShiftIsExact(const isa::Program& p, std::uint32_t was, std::uint32_t now);

/// The line IndirectObservation::takeUsed gives for programs whose initial L0C image it wrote so.
inline constexpr const char* kL0cByMmadLine =
    "initial L0C image written by mmad f32 x identity A (the DUT cannot be given L0C)";

/// Prefixes `run` with instructions that write the initial L0C image `l0c` (segments): per chunk
/// of whole 16 x 16 f32 C fractals, a plain load of a 16 x 16 f32 identity into L0A at 0 and of
/// the chunk's words, as a 16 x 16F f32 B, into L0B at 0, and an f32 Mmad (m = k = 16, zero init)
/// writing them at their address; with `resetHf32`, a SetHF32 off first. Every word must be
/// writableByF32Mmad. The run's L0C segments become zeros (the Mmads' bytes); its own loads come
/// after and refill L0A/L0B. The staged bytes take a free L1 gap, or where the run leaves none, a
/// window of its L1 whose own bytes wait in GM and come back by load2d_v2 GM->A1 before the run
/// (`*borrowedL1` set, kBorrowedL1Line). Returns why it cannot be done (L1 too small), or nullopt.
std::optional<std::string> writeL0cByMmad(isa::Program& run, const std::vector<isa::Segment>& l0c,
                                          bool resetHf32, bool* borrowedL1 = nullptr);

/// The line IndirectObservation::takeUsed gives for runs that borrowed an L1 window.
inline constexpr const char* kBorrowedL1Line =
    "L1 staging in a window borrowed from the program (which leaves no free room): its own bytes "
    "restored by load2d_v2 (GM->A1) before it runs";

/// A view of a DUT that observes (and initialises) L0A/L0B the DUT cannot, with instructions the
/// suite certifies elsewhere. A legal program that touches such a memory is rewritten:
/// * its images there are loaded before the program by plain 2D loads (load2d on a2 and legacy,
///   load2d_v2 on 950: m_step fractals, k_step 1) from an L1 image placed where the program
///   defines no L1 byte;
/// * each observed L0A region is read back in a rerun of the program followed by s8 Mmads of the
///   region's fractals against an identity B (m = 16 per fractal, k = n = 32, zero init), so
///   C(i, j) = A(i, j) exactly and every L0A byte comes back as one s32 of L0C; L0B likewise
///   against an identity A (m = k = 32, n = 16 per fractal); as many Mmads and reruns as L0C holds.
/// * index-buffer (IDX) images are written by LoadDataWithSparse from L1, one 128-byte index
///   fractal with the 512 L0B bytes it belongs to (the program's own L0B image there) per load;
/// * each observed 128-byte IDX fractal is read back in a rerun by two MmadWithSparse over its
///   dense fractal (m = 16 groups, k = 64, n = 16), that fractal first overwritten by a plain
///   load with ones on the even (then the odd) dense rows and A holding 3 - j at column 4g + j
///   (then 4g + 1 + j) of row g: C(g, n) is 3 - the slot's index, so index 3 reads 0 in either
///   slot, the same wherever it lies. Index 3 in slot 1 of group 15 names column 64, past A
///   (OPEN-1): a zero fractal follows A and C is 0 there too. Where the index buffer holds an
///   index is seen only as MmadWithSparse reads it (OPEN-4 is not checked).
/// The answer is translated back into the bytes of the original regions, so every comparison
/// (exact, masks, canaries, metamorphic) is unchanged. Illegal programs and programs that touch
/// no such memory go to the DUT as they are. An image of L0A/L0B (or IDX) the DUT may not be given
/// is loaded so even where it observes that memory itself.
/// Every legal program the rewrite builds stays inside what the DUT declared: its instructions,
/// data types and limits, the memories it observes, and images only of memories it may be given
/// (zeros that define addresses its loads fill aside). One that would not (its images staged in
/// GM for a DUT not given GM, say) is not sent: the case is NotSupported with the DUT's reason
/// (kCannot, kNotDeclared, kOutsideLimits: outside its envelope), never a failure of the DUT.
class IndirectObservation final : public dut::Dut {
 public:
  explicit IndirectObservation(dut::Dut& inner);
  /// The DUT's own, with L0A/L0B observable where the rewrite can reach them.
  const dut::Capabilities& capabilities() const override { return caps_; }
  std::optional<std::string> broken() const override { return inner_.broken(); }
  dut::RunResult run(const isa::Program& program) override;

  /// What the programs run since the last call rested on, one line per kind, e.g. "observed L0A
  /// through mmad s8 x identity B loaded by load2d (B1toB2)"; empty when all were direct.
  std::set<std::string> takeUsed();

 private:
  dut::Dut& inner_;
  dut::Capabilities caps_;
  std::set<std::string> used_;
  bool writesL0c_ = false;  ///< the DUT's initial L0C images are written by f32 Mmad
};

/// A DUT seen as one that observes (and can be given images of) fewer memories: what `certify
/// --observable [--given]` wraps, so a simulator rehearses a board run. `given`, when not empty,
/// lists the memories it may be given images of (a board: GM, L1, the bias table, and L0C on a2
/// only); empty, the observable ones. Segments it may not be given are filled with a scramble
/// pattern instead of their bytes, as a board would hold whatever was there; observing outside
/// the list is Unsupported. An illegal program goes through unchanged: a rejection observes
/// nothing.
class NarrowedDut final : public dut::Dut {
 public:
  NarrowedDut(dut::Dut& inner, std::vector<isa::Memory> observable,
              std::vector<isa::Memory> given = {});
  const dut::Capabilities& capabilities() const override { return caps_; }
  std::optional<std::string> broken() const override { return inner_.broken(); }
  dut::RunResult run(const isa::Program& program) override;

 private:
  dut::Dut& inner_;
  dut::Capabilities caps_;
};

/// What a board of `profile` declares (docs/hardware.md): it observes GM, L1 and L0C, and may be
/// given images of GM, L1 and the bias table, and of L0C where a documented call writes it (not
/// on dav-3510). What `certify --observable GM,L1,L0C --given ...` rehearses, and how the zoo
/// runs a mutant of an instruction only a board's rewrite uses (dut::Mutant::throughBoard).
struct BoardEnvelope {
  std::vector<isa::Memory> observable;
  std::vector<isa::Memory> given;
};
BoardEnvelope boardEnvelope(isa::ProfileId profile);

/// Parses "GM,L1,L0C" (memory names as isa::nameOf prints them); throws std::invalid_argument
/// naming the bad entry.
std::vector<isa::Memory> parseMemoryList(const std::string& list);

}  // namespace cubecheck::conf
