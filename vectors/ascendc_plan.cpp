#include "vectors/ascendc_plan.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <random>
#include <stdexcept>

#include "conformance/indirect.hpp"
#include "oracle/layout.hpp"
#include "vectors/ascendc_api.hpp"

namespace cubecheck::vec {

namespace {

using isa::Memory;
using isa::Program;
using isa::wordAt;

/// Largest GM span (lowest to highest defined GM byte) of one run: the host allocates it whole.
constexpr std::uint64_t kMaxGmSpan = 256ull << 20;
/// Digits of a source id: 4 x 7 bits. Each tag byte is one digit, 0..127, which is valid both as
/// a byte and as the low byte of an s32 in [-128, 127] whose upper bytes are 0.
constexpr int kDigits = 4;
constexpr std::uint64_t kMaxSourceIds = 1ull << (7 * kDigits);
/// The same ids 2 bits a pass, for runs that observe the index buffer: each s32 of such a run is
/// read as 3 - an index (0..3), and an index byte holds four of them.
constexpr int kIndexDigits = 14;
static_assert(2 * kIndexDigits == 7 * kDigits);

/// How the indirect rewrite reads a run's observed bytes (GatherRun's kinds).
enum class RunRead : std::uint8_t {
  Bytes,  ///< as they are
  S32,    ///< as s32 of L0C: an s8 through an identity Mmad
  Index,  ///< as s32 of L0C: 3 - a 2-bit index, through MmadWithSparse
};

/// A DUT with a board's envelope (GM, L1, L0C observable; L0A and L0B neither observable nor
/// given images) that runs nothing: it records the programs the indirect rewrite hands it and
/// answers each observed byte with `fill(run, offset)`, the offset counted across the run's
/// observed regions. Answering with position tags is how planForBoard reads the rewrite's
/// translation without repeating it.
class ProbeDut final : public dut::Dut {
 public:
  using Fill = std::function<std::uint8_t(std::size_t run, std::uint64_t offset)>;

  explicit ProbeDut(isa::ProfileId profile) {
    caps_.name = "ascendc-export probe";
    caps_.version = "-";
    caps_.profiles = {profile};
    caps_.instructions = isa::allOpcodes();
    caps_.dtypes = {isa::kAllDTypes.begin(), isa::kAllDTypes.end()};
    // A board's envelope (L0C given on dav-2201 only: on dav-3510 the rewrite writes it by f32
    // Mmad; the index and scale buffers are written and read by instructions). The bias table is
    // declared observable too, so the rewrite takes its cases: it is staged (through L1) but never
    // copied out, and boardLimit refuses the cases that observe it.
    const conf::BoardEnvelope board = conf::boardEnvelope(profile);
    caps_.observable = board.observable;
    caps_.observable.push_back(Memory::BiasTable);
    caps_.given = board.given;
  }
  const dut::Capabilities& capabilities() const override { return caps_; }

  void start(Fill fill, bool record) {
    fill_ = std::move(fill);
    record_ = record;
    calls_ = 0;
    if (record) runs.clear();
  }
  std::size_t calls() const { return calls_; }

  dut::RunResult run(const Program& p) override {
    const std::size_t k = calls_++;
    if (record_) runs.push_back(p);
    isa::Observed out;
    std::uint64_t offset = 0;
    for (const isa::Region& r : p.observe) {
      isa::Bytes b(r.size);
      for (std::uint64_t i = 0; i < r.size; ++i) b[i] = fill_(k, offset + i);
      out.push_back(std::move(b));
      offset += r.size;
    }
    return dut::RunResult::ok(std::move(out));
  }

  std::vector<Program> runs;

 private:
  dut::Capabilities caps_;
  Fill fill_;
  bool record_ = false;
  std::size_t calls_ = 0;
};

std::uint64_t observedBytes(const Program& p) {
  std::uint64_t n = 0;
  for (const isa::Region& r : p.observe) n += r.size;
  return n;
}

bool legal(const Program& p) {
  if (isa::validateStructure(p)) return false;
  for (const isa::Instruction& i : p.instructions) {
    if (isa::validate(isa::profile(p.profile), i)) return false;
  }
  return true;
}

/// Why the original program cannot be run on a board whatever the rewrite does, or nullopt.
std::optional<std::string> boardLimit(const Program& p) {
  const bool on950 = p.profile == isa::ProfileId::Ascend950;
  for (const isa::Region& r : p.observe) {
    if (r.memory == Memory::BiasTable) {
      return "observes " + std::string(isa::nameOf(r.memory)) +
             ", which no documented Ascend C call copies out";
    }
    if (r.memory == Memory::L1 && on950) {
      return "observes L1, which dav-3510 cannot copy out (its L1 -> GM path was removed)";
    }
  }
  if (on950) {
    for (const isa::Segment& s : p.segments) {
      if (s.memory != Memory::L0C) continue;
      if (s.addr % 4 != 0 || s.bytes.size() % 4 != 0) {
        return "needs an initial L0C image that is not whole words, and dav-3510 writes L0C "
               "only by Mmad";
      }
      for (std::size_t i = 0; i < s.bytes.size(); i += 4) {
        if (!conf::writableByF32Mmad(wordAt(s.bytes, i))) {
          return "needs initial L0C words no f32 Mmad writes (-0, subnormal, infinity or NaN "
                 "patterns), and dav-3510 writes L0C only by Mmad";
        }
      }
    }
  }
  return std::nullopt;
}

/// Why a run cannot go through the exported kernel, or nullopt.
std::optional<std::string> runLimit(const Program& run) {
  for (const isa::Instruction& ins : run.instructions) {
    std::string gap = apiGap(run.profile, ins);
    if (!gap.empty()) return gap;
  }
  const GmSpan span = gmSpanOf(run);
  if (span.end - span.origin > kMaxGmSpan) {
    return "its GM operands span " + std::to_string(span.end - span.origin) +
           " bytes, more than the " + std::to_string(kMaxGmSpan) + " a run may allocate";
  }
  return std::nullopt;
}

/// The case's observed bytes, concatenated, from one pass of the rewrite.
isa::Bytes flatten(const isa::Observed& o) {
  isa::Bytes all;
  for (const isa::Bytes& b : o) all.insert(all.end(), b.begin(), b.end());
  return all;
}

/// Merges per-byte sources into runs of the gather map.
std::vector<GatherRun> compress(const std::vector<GatherRun>& perByte) {
  std::vector<GatherRun> out;
  for (const GatherRun& g : perByte) {
    if (!out.empty()) {
      GatherRun& last = out.back();
      const bool sameRegion = last.region == g.region && last.dstOffset + last.count == g.dstOffset;
      const bool sameSource = last.kind == g.kind && last.run == g.run;
      if (sameRegion && sameSource && g.kind == GatherRun::Zero) {
        ++last.count;
        continue;
      }
      if (sameRegion && sameSource) {
        const std::int64_t step = g.srcOffset - (last.srcOffset + (last.count - 1) * last.srcStep);
        if (last.count == 1 && step > 0) last.srcStep = step;
        if (step == last.srcStep) {
          ++last.count;
          continue;
        }
      }
    }
    out.push_back(g);
  }
  return out;
}

}  // namespace

GmSpan gmSpanOf(const Program& run) {
  GmSpan span{UINT64_MAX, 0};
  for (const isa::Segment& s : run.segments) {
    if (s.memory != Memory::GM) continue;
    span.origin = std::min(span.origin, s.addr / 512 * 512);
    span.end = std::max(span.end, s.addr + s.bytes.size());
  }
  if (span.end == 0) return {0, 0};
  // A load's source address may lie below the bytes it reads (start_index fractals on, or
  // decrementing): the kernel forms the tensor there, so the span holds it too.
  for (const isa::Instruction& ins : run.instructions) {
    std::visit(
        [&span](const auto& i) {
          if constexpr (requires { i.path; }) {
            if (isa::srcOf(i.path) == isa::Position::GM) {
              span.origin = std::min(span.origin, i.srcAddr / 512 * 512);
            }
          }
        },
        ins);
  }
  return span;
}

std::optional<isa::Observed> applyGather(const std::vector<GatherRun>& gather,
                                         const std::vector<std::uint64_t>& regionSizes,
                                         const std::vector<isa::Bytes>& runOutputs,
                                         std::string& error) {
  isa::Observed out;
  for (std::uint64_t size : regionSizes) out.emplace_back(size, 0);
  for (const GatherRun& g : gather) {
    isa::Bytes& dst = out.at(static_cast<std::size_t>(g.region));
    for (std::int64_t i = 0; i < g.count; ++i) {
      std::uint8_t& to = dst.at(static_cast<std::size_t>(g.dstOffset + i));
      if (g.kind == GatherRun::Zero) {
        to = 0;
        continue;
      }
      const isa::Bytes& src = runOutputs.at(static_cast<std::size_t>(g.run));
      const auto at = static_cast<std::size_t>(g.srcOffset + i * g.srcStep);
      if (g.kind == GatherRun::Byte) {
        to = src.at(at);
        continue;
      }
      const auto v = static_cast<std::int32_t>(isa::wordAt(src, at));
      if (g.kind >= GatherRun::Index0 && g.kind <= GatherRun::Index3) {
        if (v < 0 || v > 3) {
          error = "observing the index buffer through MmadWithSparse: an s32 of L0C is " +
                  std::to_string(v) +
                  ", which no index gives (MmadWithSparse, LoadDataWithSparse, the plain load or "
                  "the L0C readout is wrong)";
          return std::nullopt;
        }
        to = static_cast<std::uint8_t>(to | (3 - v) << (2 * (g.kind - GatherRun::Index0)));
        continue;
      }
      if (v < -128 || v > 127) {
        error = "observing L0A/L0B through Mmad: an s32 of L0C is " + std::to_string(v) +
                ", which no s8 times an identity gives (the s8 Mmad, the plain load or the "
                "L0C readout is wrong)";
        return std::nullopt;
      }
      to = static_cast<std::uint8_t>(v);
    }
  }
  return out;
}

BoardPlan planForBoard(const Program& program) {
  BoardPlan plan;
  auto skip = [&plan](std::string why) {
    plan.runs.clear();
    plan.gather.clear();
    plan.l0cByMmad = false;
    plan.restsOn.clear();
    plan.skip = std::move(why);
    return plan;
  };
  if (!legal(program)) return skip("an illegal program: a board has no rejection to report");
  if (ascendcArch(program.profile) == nullptr) {
    return skip("profile " + std::string(isa::profile(program.profile).name) +
                " is not a target of the Ascend C export (dav-2201 and dav-3510 only)");
  }
  if (auto why = boardLimit(program)) return skip(*why);

  ProbeDut probe(program.profile);
  conf::IndirectObservation view(probe);
  std::vector<std::uint64_t> base;  // first source id of each run
  auto pass = [&](ProbeDut::Fill fill, bool record) {
    probe.start(std::move(fill), record);
    dut::RunResult r = view.run(program);
    // A refused answer stops the rewrite early; every accepted pass runs every program.
    if (!record && r.status == dut::RunStatus::Ok && probe.calls() != probe.runs.size()) {
      throw std::logic_error("the indirect rewrite ran a different number of programs per pass");
    }
    return r;
  };

  // The programs, with zeros everywhere (valid both as bytes and as s32 of observed s8).
  dut::RunResult first = pass([](std::size_t, std::uint64_t) { return std::uint8_t{0}; }, true);
  if (first.status == dut::RunStatus::Unsupported) return skip(first.message);
  if (first.status != dut::RunStatus::Ok) {
    throw std::logic_error("the indirect rewrite failed on a probe: " + first.message);
  }
  // On dav-3510 the rewrite itself writes the initial L0C image by f32 Mmad (the probe cannot be
  // given L0C there), and says so.
  plan.restsOn = view.takeUsed();
  plan.l0cByMmad = plan.restsOn.count(conf::kL0cByMmadLine) != 0;
  for (const Program& run : probe.runs) {
    if (auto why = runLimit(run)) return skip(*why);
  }
  std::uint64_t ids = 1;  // id 0: no source
  for (const Program& run : probe.runs) {
    base.push_back(ids);
    ids += observedBytes(run);
  }
  if (ids > kMaxSourceIds) return skip("observes more bytes than the gather map can address");
  // A run is read as s32 when 0x01 in all four bytes of its words (16843009) is refused, and as
  // indices when an s32 of 4 (an s8, but no index) is refused too.
  std::vector<RunRead> reads;
  for (std::size_t k = 0; k < probe.runs.size(); ++k) {
    const dut::RunResult r = pass(
        [k](std::size_t run, std::uint64_t) { return static_cast<std::uint8_t>(run == k); }, false);
    reads.push_back(r.status == dut::RunStatus::Ok ? RunRead::Bytes : RunRead::S32);
    if (reads.back() == RunRead::Bytes) continue;
    const dut::RunResult four = pass(
        [k](std::size_t run, std::uint64_t offset) {
          return static_cast<std::uint8_t>(run == k && offset % 4 == 0 ? 4 : 0);
        },
        false);
    if (four.status != dut::RunStatus::Ok) reads.back() = RunRead::Index;
  }
  // Each output byte's source id, 7 bits per pass. Index runs answer 3 (index 0) throughout, so
  // the bytes they make read 0: no source here.
  auto tagged = [&](const ProbeDut::Fill& fill) {
    const dut::RunResult r = pass(fill, false);
    if (r.status != dut::RunStatus::Ok) {
      throw std::logic_error("the indirect rewrite refused a tagged answer: " + r.message);
    }
    return flatten(r.observed);
  };
  std::vector<std::uint64_t> sourceOf;
  for (int d = 0; d < kDigits; ++d) {
    const isa::Bytes out = tagged([&, d](std::size_t run, std::uint64_t offset) {
      if (reads[run] != RunRead::Bytes && offset % 4 != 0) return std::uint8_t{0};
      if (reads[run] == RunRead::Index) return std::uint8_t{3};
      return static_cast<std::uint8_t>((base[run] + offset) >> (7 * d) & 127);
    });
    sourceOf.resize(out.size(), 0);
    for (std::size_t i = 0; i < out.size(); ++i) sourceOf[i] |= std::uint64_t{out[i]} << (7 * d);
  }
  // The four sources of each index byte, one per 2-bit field, 2 bits of each id per pass: a
  // source answers 3 - digit, so the field reads the digit. Every other run answers 0.
  std::vector<std::array<std::uint64_t, 4>> fieldSources(sourceOf.size(), {0, 0, 0, 0});
  const bool anyIndex = std::find(reads.begin(), reads.end(), RunRead::Index) != reads.end();
  for (int d = 0; anyIndex && d < kIndexDigits; ++d) {
    const isa::Bytes out = tagged([&, d](std::size_t run, std::uint64_t offset) {
      if (reads[run] != RunRead::Index || offset % 4 != 0) return std::uint8_t{0};
      return static_cast<std::uint8_t>(3 - ((base[run] + offset) >> (2 * d) & 3));
    });
    for (std::size_t i = 0; i < out.size(); ++i) {
      for (std::size_t f = 0; f < 4; ++f) {
        fieldSources[i][f] |= std::uint64_t{out[i] >> (2 * f) & 3u} << (2 * d);
      }
    }
  }
  auto runOf = [&base](std::uint64_t id) {
    return static_cast<std::size_t>(std::upper_bound(base.begin(), base.end(), id) - base.begin() -
                                    1);
  };
  std::vector<std::uint64_t> regionSizes;
  for (const isa::Region& r : program.observe) regionSizes.push_back(r.size);
  std::vector<GatherRun> perByte;
  std::array<std::vector<GatherRun>, 4> perField;  // index bytes, one list per field
  std::size_t at = 0;
  for (std::size_t region = 0; region < regionSizes.size(); ++region) {
    for (std::uint64_t i = 0; i < regionSizes[region]; ++i, ++at) {
      GatherRun g;
      g.region = static_cast<std::int64_t>(region);
      g.dstOffset = static_cast<std::int64_t>(i);
      g.count = 1;
      const std::uint64_t id = sourceOf.at(at);
      const std::array<std::uint64_t, 4>& fields = fieldSources.at(at);
      const auto fed = std::count_if(fields.begin(), fields.end(), [](auto f) { return f != 0; });
      if (fed != 0) {
        if (fed != 4 || id != 0) {
          throw std::logic_error("an index byte of the indirect rewrite has other sources");
        }
        for (std::size_t f = 0; f < 4; ++f) {
          const std::size_t k = runOf(fields[f]);
          g.kind = GatherRun::Index0 + static_cast<std::int64_t>(f);
          g.run = static_cast<std::int64_t>(k);
          g.srcOffset = static_cast<std::int64_t>(fields[f] - base[k]);
          perField[f].push_back(g);
        }
      } else if (id == 0) {
        g.kind = GatherRun::Zero;
        perByte.push_back(g);
      } else {
        const std::size_t k = runOf(id);
        g.run = static_cast<std::int64_t>(k);
        g.srcOffset = static_cast<std::int64_t>(id - base[k]);
        g.kind = reads[k] == RunRead::S32 ? GatherRun::S32 : GatherRun::Byte;
        perByte.push_back(g);
      }
    }
  }
  for (const std::vector<GatherRun>& f : perField)
    perByte.insert(perByte.end(), f.begin(), f.end());
  plan.gather = compress(perByte);
  plan.runs = probe.runs;
  plan.throughMmad =
      std::any_of(reads.begin(), reads.end(), [](RunRead r) { return r != RunRead::Bytes; });
  auto inL0 = [](Memory m) { return m == Memory::L0A || m == Memory::L0B; };
  plan.rewritten = std::any_of(program.segments.begin(), program.segments.end(),
                               [&](const isa::Segment& s) { return inL0(s.memory); }) ||
                   std::any_of(program.observe.begin(), program.observe.end(),
                               [&](const isa::Region& r) { return inL0(r.memory); });

  // The map must reproduce the rewrite on arbitrary valid answers, signs included.
  std::mt19937 rng(0xC0BEu);
  std::vector<isa::Bytes> outputs;
  for (std::size_t k = 0; k < plan.runs.size(); ++k) {
    isa::Bytes b(observedBytes(plan.runs[k]));
    for (std::size_t i = 0; i < b.size(); i += reads[k] == RunRead::Bytes ? 1 : 4) {
      const auto v = static_cast<std::uint8_t>(reads[k] == RunRead::Index ? rng() % 4 : rng());
      b[i] = v;
      if (reads[k] == RunRead::S32) {
        std::fill_n(b.begin() + static_cast<long>(i) + 1, 3, v & 0x80 ? 0xFF : 0);
      }
    }
    outputs.push_back(std::move(b));
  }
  const dut::RunResult check =
      pass([&](std::size_t run, std::uint64_t offset) { return outputs[run][offset]; }, false);
  std::string error;
  const std::optional<isa::Observed> mapped = applyGather(plan.gather, regionSizes, outputs, error);
  if (check.status != dut::RunStatus::Ok || !mapped || *mapped != check.observed) {
    throw std::logic_error("the gather map read off the indirect rewrite does not reproduce it");
  }
  return plan;
}

L0cAdjustment adjustL0cForBoard(conf::VectorCase& c) {
  L0cAdjustment out;
  if (c.program.profile != isa::ProfileId::Ascend950 || c.rejection) return out;
  // The initial L0C words a result depends on through an Mmad that accumulates onto them (spec
  // 7.4, 8; a K split accumulates onto its own first tile, not onto the image).
  const std::vector<conf::L0cFate> fates = conf::l0cFates(c.program);
  // An Mmad adds into C element by element, and nothing moves L0C elsewhere: a word read as an
  // init reaches no byte of the result but its own four. So a replaced word read that way matters
  // only where those bytes are compared (observed, written, not don't-care).
  auto compared = [&c](std::uint64_t at) {
    const oracle::Expected* e = c.expected               ? &*c.expected
                                : c.alternatives.empty() ? nullptr
                                                         : &c.alternatives.front().second;
    if (e == nullptr) return false;
    for (std::size_t r = 0; r < c.program.observe.size(); ++r) {
      const isa::Region& region = c.program.observe[r];
      if (region.memory != Memory::L0C) continue;
      for (std::uint64_t a = at; a < at + 4; ++a) {
        if (a < region.addr || a >= region.addr + region.size) continue;
        const std::uint64_t b = a - region.addr;
        const bool dontCare =
            !e->dontCare.empty() && !e->dontCare.at(r).empty() && e->dontCare[r].at(b) != 0;
        if (e->written.at(r).at(b) != 0 && !dontCare) return true;
      }
    }
    return false;
  };
  Program p = c.program;
  bool readsReplaced = false;
  // Words s32 Mmads accumulate onto, replaced where conf::s32ShiftIsExact: the result there is
  // the golden one plus (new - old), modulo 2^32.
  std::vector<std::pair<std::uint64_t, std::uint32_t>> shifted;
  for (isa::Segment& s : p.segments) {
    if (s.memory != Memory::L0C || s.addr % 4 != 0 || s.bytes.size() % 4 != 0) continue;
    for (std::size_t i = 0; i < s.bytes.size(); i += 4) {
      const std::uint32_t w = wordAt(s.bytes, i);
      if (conf::writableByF32Mmad(w)) continue;
      const std::uint32_t now = conf::writableNeighbour(w);
      isa::putWord(s.bytes, i, now);
      ++out.replacedWords;
      const std::uint64_t at = s.addr + i;
      const conf::L0cFate fate = fates.at(at / 4);
      const bool partly = std::any_of(
          c.program.observe.begin(), c.program.observe.end(), [at](const isa::Region& r) {
            return r.memory == Memory::L0C && at + 4 > r.addr && at < r.addr + r.size &&
                   (at < r.addr || at + 4 > r.addr + r.size);
          });
      if (fate == conf::L0cFate::AccumulatedS32 && !partly &&
          conf::s32ShiftIsExact(c.program, w, now)) {
        shifted.emplace_back(at, now - w);
        continue;
      }
      const bool read =
          fate == conf::L0cFate::AccumulatedS32 || fate == conf::L0cFate::AccumulatedF32;
      readsReplaced = readsReplaced || (read && compared(at));
    }
  }
  if (out.replacedWords == 0) return out;
  if (readsReplaced) {
    out.skip =
        "an Mmad accumulates onto initial L0C words no f32 Mmad writes (-0, subnormal, infinity "
        "or NaN patterns), and dav-3510 writes L0C only by Mmad";
    return out;
  }
  // Every compared byte an instruction writes comes out as before; a byte none writes keeps its
  // initial value, which is now the new one.
  conf::VectorCase adjusted = c;
  adjusted.program = std::move(p);
  const Program& now = adjusted.program;
  auto carry = [&](oracle::Expected& e) {
    for (std::size_t r = 0; r < e.regions.size(); ++r) {
      const isa::Region& region = now.observe.at(r);
      if (region.memory != Memory::L0C) continue;
      for (const auto& [at, delta] : shifted) {
        if (at < region.addr || at + 4 > region.addr + region.size) continue;  // not observed
        const std::size_t b = at - region.addr;
        isa::putWord(e.regions[r], b, wordAt(e.regions[r], b) + delta);
      }
      for (std::size_t b = 0; b < e.regions[r].size(); ++b) {
        if (e.written.at(r).at(b) != 0) continue;
        const std::uint64_t addr = region.addr + b;
        for (std::size_t k = 0; k < now.segments.size(); ++k) {
          const isa::Segment& is = now.segments[k];
          if (is.memory != Memory::L0C || addr < is.addr || addr >= is.addr + is.bytes.size()) {
            continue;
          }
          const isa::Segment& was = c.program.segments[k];
          if (e.regions[r][b] != was.bytes[addr - was.addr]) return false;
          e.regions[r][b] = is.bytes[addr - is.addr];
        }
      }
    }
    return true;
  };
  bool ok = !adjusted.expected || carry(*adjusted.expected);
  for (auto& [name, e] : adjusted.alternatives) ok = ok && carry(e);
  if (!ok) {
    throw std::logic_error(
        "a vector's expectation does not keep the initial L0C bytes no instruction writes");
  }
  c = std::move(adjusted);
  return out;
}

}  // namespace cubecheck::vec
