#include <iomanip>
#include <sstream>

#include "oracle/expected.hpp"
#include "oracle/tile.hpp"

namespace cubecheck::oracle {
namespace {

std::string hexElement(const isa::Bytes& bytes, std::size_t at, int width) {
  std::ostringstream os;
  os << "0x" << std::hex << std::setfill('0');
  for (int i = width - 1; i >= 0; --i) {  // little-endian element, most significant byte first
    os << std::setw(2) << int{bytes[at + i]};
  }
  return os.str();
}

/// The four little-endian bytes at `at` are an f32 zero of either sign.
bool isZero(const isa::Bytes& bytes, std::size_t at) {
  return bytes[at] == 0 && bytes[at + 1] == 0 && bytes[at + 2] == 0 && (bytes[at + 3] & 0x7F) == 0;
}

}  // namespace

std::string locate(const isa::Region& region, const RegionFormat& f, std::uint64_t offset) {
  const std::uint64_t addr = region.addr + offset;
  std::ostringstream os;
  os << isa::nameOf(region.memory) << "+0x" << std::hex << addr << std::dec;
  if (addr < f.origin) {
    os << " (before the destination)";
    return os.str();
  }
  const std::uint64_t rel = addr - f.origin;
  const std::uint64_t inner = rel % f.fractalBytes;
  const std::uint64_t rowBytes = f.fractalBytes / 16;  // 16 rows (or columns on the B side)
  const int bits = isa::bitsOf(f.dtype);
  const std::uint64_t line = inner / rowBytes;
  const std::uint64_t lane = (inner % rowBytes) * 8 / bits;  // element (first of two for b4)
  os << " fractal " << rel / f.fractalBytes;
  // A byte of a 4-bit type holds two elements: name both.
  auto lanes = [&] {
    os << lane;
    if (bits == 4) os << '-' << lane + 1;
  };
  if (f.bSide) {
    os << " k ";
    lanes();
    os << " n " << line;
  } else {
    os << " row " << line << " col ";
    lanes();
  }
  return os.str();
}

Comparison compareExact(const isa::Program& program, const Expected& expected,
                        const isa::Observed& observed, bool strayOnly, int maxLines) {
  Comparison c;
  std::ostringstream os;
  int lines = 0;
  for (std::size_t r = 0; r < program.observe.size(); ++r) {
    const isa::Region& region = program.observe[r];
    const isa::Bytes& exp = expected.regions[r];
    const isa::Bytes& obs = observed[r];
    const isa::Bytes& written = expected.written[r];
    const RegionFormat& fmt = expected.formats[r];
    const std::uint8_t* masked = expected.dontCare.empty() ? nullptr : expected.dontCare[r].data();
    const isa::Segment* initial =
        isa::findSegment(program.segments, region.memory, region.addr, region.size);
    bool anyWritten = false;
    bool footprintChanges = false;
    // Don't-care bytes aside, equal: the common case, where only the vacuity check needs a look
    // at the footprint.
    bool equal = masked == nullptr && exp == obs;
    if (masked != nullptr) {
      equal = exp.size() == obs.size();
      for (std::size_t j = 0; j < exp.size() && equal; ++j) {
        equal = masked[j] != 0 || exp[j] == obs[j];
      }
    }
    if (equal) {
      const std::uint8_t* init =
          initial == nullptr ? nullptr : initial->bytes.data() + (region.addr - initial->addr);
      for (std::size_t j = 0; j < exp.size() && !footprintChanges; ++j) {
        if (written[j] == 0 || (masked != nullptr && masked[j] != 0)) continue;
        anyWritten = true;
        footprintChanges = init != nullptr && init[j] != exp[j];
      }
      if (anyWritten && !footprintChanges) c.vacuous = true;
      continue;
    }
    const int width = isa::bitsOf(fmt.dtype) <= 8 ? 1 : isa::bitsOf(fmt.dtype) / 8;
    // Compare element by element from the format's origin so a line names one element.
    const std::uint64_t phase = (region.addr >= fmt.origin ? region.addr - fmt.origin : 0) % width;
    for (std::size_t i = 0; i < exp.size();) {
      std::size_t w = static_cast<std::size_t>(width);
      if (i == 0 && phase != 0) w = width - phase;
      if (i + w > exp.size()) w = exp.size() - i;
      bool differs = false;
      bool inside = false;
      for (std::size_t j = i; j < i + w; ++j) {
        if (masked != nullptr && masked[j] != 0) continue;
        inside = inside || written[j] != 0;
        if (written[j] != 0) {
          anyWritten = true;
          if (initial != nullptr && initial->bytes[region.addr - initial->addr + j] != exp[j]) {
            footprintChanges = true;
          }
        }
        if (strayOnly && written[j] != 0) continue;
        if (exp[j] != obs[j]) {
          differs = true;
          (written[j] != 0 ? c.wrongBytes : c.strayBytes) += 1;
        }
      }
      // OPEN-15: a zero result matches either zero. Only a whole element the Mmad writes
      // qualifies; its differing bytes were the sign bit alone.
      if (differs && fmt.signlessZero && w == 4 && inside && isZero(exp, i) && isZero(obs, i)) {
        differs = false;
        (written[i + 3] != 0 ? c.wrongBytes : c.strayBytes) -= 1;  // the sign byte
      }
      if (differs && lines < maxLines) {
        os << "  " << locate(region, fmt, i) << ": expected "
           << hexElement(exp, i, static_cast<int>(w)) << " observed "
           << hexElement(obs, i, static_cast<int>(w))
           << (inside ? "" : "  <- stray write outside the footprint") << '\n';
        ++lines;
      }
      i += w;
    }
    if (anyWritten && !footprintChanges) c.vacuous = true;
  }
  c.equal = c.wrongBytes == 0 && c.strayBytes == 0;
  if (!c.equal) {
    std::ostringstream head;
    head << c.wrongBytes << " wrong byte(s) inside the footprint, " << c.strayBytes
         << " stray byte(s) outside it";
    if (lines == maxLines) head << " (first " << maxLines << " differing elements shown)";
    head << ":\n";
    c.report = head.str() + os.str();
  }
  return c;
}

}  // namespace cubecheck::oracle
