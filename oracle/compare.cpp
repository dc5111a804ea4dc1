#include <algorithm>
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

// The two scans below run over whole regions for every case: blocks of bytes accumulated
// without a branch per byte (which the compiler turns into vector code), stopping between blocks.
constexpr std::size_t kScanBlock = 256;

/// Whether a and b agree on every byte whose mask byte is zero.
bool agreeOutside(const std::uint8_t* a, const std::uint8_t* b, const std::uint8_t* mask,
                  std::size_t n) {
  for (std::size_t at = 0; at < n; at += kScanBlock) {
    const std::size_t end = std::min(n, at + kScanBlock);
    std::uint8_t differ = 0;
    for (std::size_t j = at; j < end; ++j) {
      differ |= static_cast<std::uint8_t>((a[j] ^ b[j]) & (mask[j] == 0 ? 0xFF : 0));
    }
    if (differ != 0) return false;
  }
  return true;
}

struct Footprint {
  bool any = false;      ///< some byte is written and not don't-care
  bool changes = false;  ///< one of those differs from its initial image
};

/// The expected bytes' footprint (written, not masked) against the initial image `init`.
template <bool Masked>
Footprint footprintOf(const std::uint8_t* written, const std::uint8_t* mask,
                      const std::uint8_t* init, const std::uint8_t* exp, std::size_t n) {
  Footprint f;
  for (std::size_t at = 0; at < n; at += kScanBlock) {
    const std::size_t end = std::min(n, at + kScanBlock);
    std::uint8_t counted = 0, changed = 0;
    for (std::size_t j = at; j < end; ++j) {
      std::uint8_t in = written[j] != 0 ? 0xFF : 0;
      if constexpr (Masked) in &= mask[j] == 0 ? 0xFF : 0;
      counted |= in;
      changed |= static_cast<std::uint8_t>(in & (init[j] ^ exp[j]));
    }
    f.any = f.any || counted != 0;
    if (changed != 0) {
      f.changes = true;
      return f;
    }
  }
  return f;
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
  std::string shown;  // the differing elements' lines; no stream is built for an equal result
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
    bool equal = masked == nullptr ? exp == obs
                                   : exp.size() == obs.size() &&
                                         agreeOutside(exp.data(), obs.data(), masked, exp.size());
    if (equal) {
      // Without an initial image nothing is known to change: the expected bytes stand in.
      const std::uint8_t* init =
          initial == nullptr ? exp.data() : initial->bytes.data() + (region.addr - initial->addr);
      const Footprint f =
          masked == nullptr
              ? footprintOf<false>(written.data(), masked, init, exp.data(), exp.size())
              : footprintOf<true>(written.data(), masked, init, exp.data(), exp.size());
      if (f.any && !f.changes) c.vacuous = true;
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
        shown += "  " + locate(region, fmt, i) + ": expected " +
                 hexElement(exp, i, static_cast<int>(w)) + " observed " +
                 hexElement(obs, i, static_cast<int>(w)) +
                 (inside ? "" : "  <- stray write outside the footprint") + '\n';
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
    c.report = head.str() + shown;
  }
  return c;
}

}  // namespace cubecheck::oracle
