#include "vectors/vectors.hpp"

#include "vectors/csv_read.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>
#include <type_traits>

#include "conformance/byte_order_mark.hpp"
#include "conformance/families.hpp"
#include "dut_adapters/sanitise.hpp"
#include "isa/text.hpp"

namespace cubecheck::vec {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kColumnCount = 13;
constexpr std::array<const char*, kColumnCount> kColumns{
    "case_id", "family",   "profile",   "property",  "why",     "instructions", "segments",
    "observe", "expected", "footprint", "dont_care", "formats", "policy"};

constexpr char kHex[] = "0123456789abcdef";
/// The formats field's fifth part: f32 results whose zeros compare equal (spec OPEN-15).
constexpr char kSignlessZero[] = "signless_zero";

std::string toHex(const isa::Bytes& b) {
  std::string s;
  s.reserve(2 * b.size());
  for (std::uint8_t v : b) {
    s += kHex[v >> 4];
    s += kHex[v & 15];
  }
  return s;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  while (true) {
    const std::size_t next = s.find(sep, at);
    out.push_back(s.substr(at, next == std::string::npos ? std::string::npos : next - at));
    if (next == std::string::npos) return out;
    at = next + 1;
  }
}

std::string join(const std::vector<std::string>& parts, char sep) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i > 0) out += sep;
    out += parts[i];
  }
  return out;
}

std::string quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

int hexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

/// Whether `hash` can name a sidecar (16 lower-case hex digits); false with `error`.
bool sidecarName(const std::string& hash, std::string& error) {
  if (hash.size() == 16 && hash.find_first_not_of(kHex) == std::string::npos) return true;
  error = "bad sidecar name '" + hash.substr(0, 40) + "'";
  return false;
}

}  // namespace

std::string writeImage(const isa::Bytes& b, const fs::path& binDir) {
  if (b.size() <= kInlineBytes) return "hex:" + toHex(b);
  const std::string h = contentHash(b.data(), b.size());
  const fs::path file = binDir / (h + ".bin");
  if (!fs::exists(file)) {
    fs::create_directories(binDir);
    std::ofstream(file, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  }
  return "bin:" + h;
}

bool readImage(const std::string& s, std::uint64_t size, const fs::path& binDir, isa::Bytes& out,
               std::string& error, std::string* hashOut) {
  if (hashOut != nullptr) hashOut->clear();
  if (s.rfind("hex:", 0) == 0) {
    const std::string h = s.substr(4);
    // A digit that is no hex digit is named first, wherever it is: "hex:zz" is a bad digit at
    // offset 0, not an image of the wrong length (which its length would also make it).
    if (const std::size_t at = h.find_first_not_of(kHex); at != std::string::npos) {
      // The digit itself and where it is (digits counted from 0 after "hex:"): a board's
      // harness that writes upper case is told so.
      const char c = h[at];
      error = "bad hex digit '" + dut::printable(std::string(1, c), 4) + "' at offset " +
              std::to_string(at) +
              (c >= 'A' && c <= 'F' ? " (hex digits are lower case: 0-9, a-f)"
                                    : " (hex digits are 0-9, a-f)");
      return false;
    }
    if (h.size() % 2 != 0) {  // halved, 1023 digits would read as 511 bytes
      error = "hex image of " + std::to_string(h.size()) +
              " digits, an odd number (two digits a byte; the region has " + std::to_string(size) +
              " bytes)";
      return false;
    }
    if (h.size() != 2 * size) {
      error = "hex image of " + std::to_string(h.size() / 2) + " bytes for " + std::to_string(size);
      return false;
    }
    out.resize(size);
    for (std::size_t i = 0; i < size; ++i) {
      out[i] = static_cast<std::uint8_t>(hexDigit(h[2 * i]) << 4 | hexDigit(h[2 * i + 1]));
    }
    return true;
  }
  if (s.rfind("bin:", 0) == 0) {
    const std::string hash = s.substr(4);
    if (!sidecarName(hash, error)) return false;
    const fs::path path = binDir / (hash + ".bin");
    std::error_code ec;
    const auto length = fs::file_size(path, ec);
    std::ifstream in(path, std::ios::binary);
    if (ec || !in) {
      error = "sidecar bin/" + hash + ".bin is missing";
      return false;
    }
    if (length != size) {  // before reading: a sidecar may be any size
      error = "sidecar bin/" + hash + ".bin has " + std::to_string(length) + " bytes, not " +
              std::to_string(size);
      return false;
    }
    out.resize(length);
    in.read(reinterpret_cast<char*>(out.data()), static_cast<std::streamsize>(length));
    if (out.size() != size) {
      error = "sidecar bin/" + hash + ".bin has " + std::to_string(out.size()) + " bytes, not " +
              std::to_string(size);
      return false;
    }
    if (contentHash(out.data(), out.size()) != hash) {
      error = "sidecar bin/" + hash + ".bin does not hash to its name (corrupted)";
      return false;
    }
    if (hashOut != nullptr) *hashOut = hash;
    return true;
  }
  error = "a byte image must start with hex: or bin:";
  return false;
}

namespace {

/// "a+n,b+m" for the runs of non-zero bytes, "-" for none.
std::string ranges(const isa::Bytes& mask) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < mask.size();) {
    if (mask[i] == 0) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < mask.size() && mask[j] != 0) ++j;
    out.push_back(std::to_string(i) + "+" + std::to_string(j - i));
    i = j;
  }
  return out.empty() ? "-" : join(out, ',');
}

std::string regionText(isa::Memory m, std::uint64_t addr, std::uint64_t size) {
  return std::string(isa::nameOf(m)) + "@" + std::to_string(addr) + "+" + std::to_string(size);
}

/// A problem in one field of one row.
struct FieldError {
  int column;
  std::string what;
};

template <class T>
bool number(const std::string& s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

/// Why `s` is not a `T` (`what` names it): "WHAT 'S' is not a number" or "WHAT 'S' is out of
/// range for uint64"; empty when it reads, into `out`.
template <class T>
std::string numberProblem(const std::string& what, const std::string& s, T& out) {
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  const bool whole = p == s.data() + s.size() && !s.empty();
  if (ec == std::errc() && whole) return {};
  const std::string quoted = what + " '" + dut::printable(s, 40) + "'";
  if (ec == std::errc::result_out_of_range && whole) {
    return quoted + " is out of range for " + (std::is_signed_v<T> ? "int" : "uint") +
           std::to_string(8 * sizeof(T));
  }
  return quoted + " is not a number";
}

/// "MEM@ADDR+SIZE" inside the memory's capacity on `profile` (GM: kMaxGmRegionBytes), checked
/// before anything of that size is allocated; false with `error`.
bool parseRegion(const std::string& s, const isa::Profile& profile, isa::Region& r,
                 std::string& error) {
  const auto at = s.find('@'), plus = s.find('+');
  auto m = at == std::string::npos ? std::nullopt : isa::parseMemory(s.substr(0, at));
  if (!m || plus == std::string::npos || plus < at) {
    error = "bad region '" + dut::printable(s, 40) + "' (MEM@ADDR+SIZE)";
    return false;
  }
  std::string why = numberProblem("address", s.substr(at + 1, plus - at - 1), r.addr);
  if (why.empty()) why = numberProblem("size", s.substr(plus + 1), r.size);
  if (!why.empty()) {
    error = "bad region '" + dut::printable(s, 40) + "': " + why;
    return false;
  }
  r.memory = *m;
  const std::uint64_t capacity =
      r.memory == isa::Memory::GM ? kMaxGmRegionBytes : profile.capacityOf(r.memory);
  // A GM region's address is not capped here (a wide stride spans gigabytes in a few small
  // segments, and a program's GM reads past 2^48 are its own Capacity violation, spec 1): only
  // its size is.
  const bool gm = r.memory == isa::Memory::GM;
  if (r.size > capacity || (!gm && r.addr > capacity - r.size) ||
      (gm && r.addr > UINT64_MAX - r.size)) {
    error = "region '" + dut::printable(s, 40) + "' does not fit the " + std::to_string(capacity) +
            " bytes of " + std::string(isa::nameOf(r.memory)) +
            (r.memory == isa::Memory::GM ? " a vector row may use" : " on this profile");
    return false;
  }
  return true;
}

bool validUtf8(const std::string& s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    const int n = c < 0x80 ? 0 : (c >> 5) == 6 ? 1 : (c >> 4) == 14 ? 2 : (c >> 3) == 30 ? 3 : -1;
    if (n < 0 || i + static_cast<std::size_t>(n) >= s.size() + (n == 0 ? 1 : 0)) return false;
    for (int k = 1; k <= n; ++k) {
      if ((static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]) >> 6) != 2) return false;
    }
    i += static_cast<std::size_t>(n) + 1;
  }
  return true;
}

class RowParser {
 public:
  explicit RowParser(fs::path binDir) : binDir_(std::move(binDir)) {}

  bool bytes(const std::string& s, std::uint64_t size, isa::Bytes& out, std::string& error) {
    return readImage(s, size, binDir_, out, error);
  }

  bool mask(const std::string& s, std::uint64_t size, isa::Bytes& out, std::string& error) {
    out.assign(size, 0);
    if (s == "-") return true;
    for (const std::string& r : split(s, ',')) {
      const auto plus = r.find('+');
      std::uint64_t a = 0, n = 0;
      const std::string bad = "bad range '" + dut::printable(r, 40) + "' for a " +
                              std::to_string(size) + "-byte region";
      if (plus == std::string::npos) {
        error = bad + " (START+LEN)";
        return false;
      }
      std::string why = numberProblem("start", r.substr(0, plus), a);
      if (why.empty()) why = numberProblem("length", r.substr(plus + 1), n);
      if (!why.empty()) {
        error = bad + ": " + why;
        return false;
      }
      if (a > size || n > size - a) {
        error = bad + ": it ends past the region";
        return false;
      }
      std::fill_n(out.begin() + static_cast<std::ptrdiff_t>(a), n, 1);
    }
    return true;
  }

 private:
  fs::path binDir_;
};

}  // namespace

std::string contentHash(const void* data, std::size_t size) {
  std::uint64_t h = 0xCBF29CE484222325ull;
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < size; ++i) h = (h ^ p[i]) * 0x100000001B3ull;
  std::string s(16, '0');
  for (int i = 15; i >= 0; --i, h >>= 4) s[static_cast<std::size_t>(i)] = kHex[h & 15];
  return s;
}

namespace {
/// A segment as the case id names it: where it lies and its bytes' content hash.
struct HashedSegment {
  isa::Region region;
  std::string hash;
};

/// The case id of a program given its segments' content hashes (so a row's can be checked
/// before its sidecars are read).
std::string caseIdWith(const std::string& family, const std::string& profile,
                       const std::vector<isa::Instruction>& instructions,
                       const std::vector<HashedSegment>& segments,
                       const std::vector<isa::Region>& observe) {
  std::string text = family + "\n" + profile + "\n";
  for (const auto& ins : instructions) text += isa::toText(ins) + "\n";
  for (const HashedSegment& s : segments) {
    text += regionText(s.region.memory, s.region.addr, s.region.size) + "=" + s.hash + "\n";
  }
  for (const auto& r : observe) text += regionText(r.memory, r.addr, r.size) + "\n";
  return contentHash(text.data(), text.size());
}
}  // namespace

std::string caseIdOf(const std::string& family, const std::string& profile, const isa::Program& p) {
  std::vector<HashedSegment> segments;
  for (const isa::Segment& s : p.segments) {
    segments.push_back(
        {{s.memory, s.addr, s.bytes.size()}, contentHash(s.bytes.data(), s.bytes.size())});
  }
  return caseIdWith(family, profile, p.instructions, segments, p.observe);
}

std::uint64_t rowPartLimit(isa::ProfileId id) {
  const isa::Profile& prof = isa::profile(id);
  std::uint64_t held = kMaxGmRegionBytes;
  for (int m = 0; m < isa::kMemoryCount; ++m) {
    if (static_cast<isa::Memory>(m) != isa::Memory::GM)
      held += prof.capacity[static_cast<std::size_t>(m)];
  }
  return held;
}

std::uint64_t fileImageLimit() {
  std::uint64_t most = 0;
  for (isa::ProfileId id : isa::kAllProfiles) most = std::max(most, rowPartLimit(id));
  // 64 rows' worth of the largest memories (about 4.3 GB): every row is held until its file is
  // done, so this bounds what one file can make cubecheck allocate, and it stays well above what
  // cubecheck writes itself (`vectors regen --random 100` puts 50 MB of images into its largest
  // file, mmad_mx.950.csv, growing with --random).
  return 64 * most;
}

fs::path writeFile(const fs::path& dir, const std::string& family, const std::string& profile,
                   const std::vector<Row>& rows, const std::string& provenance, bool inputsOnly) {
  fs::create_directories(dir);
  const fs::path bin = dir / "bin";
  std::ostringstream os;
  os << "# cubecheck vectors format " << kFormatVersion << "; " << provenance << "\n";
  for (std::size_t i = 0; i < kColumns.size(); ++i) os << (i ? "," : "") << kColumns[i];
  os << "\n";
  for (const Row& row : rows) {
    const conf::VectorCase& c = row.c;
    std::vector<std::string> ins, segs, obs;
    for (const auto& x : c.program.instructions) ins.push_back(isa::toText(x));
    for (const auto& s : c.program.segments) {
      segs.push_back(regionText(s.memory, s.addr, s.bytes.size()) + "=" + writeImage(s.bytes, bin));
    }
    for (const auto& r : c.program.observe) obs.push_back(regionText(r.memory, r.addr, r.size));
    std::string expected, footprint = "", dontCare = "", formats = "", policy;
    auto describe = [&](const oracle::Expected& e) {
      std::vector<std::string> img, fp, dc, fm;
      for (std::size_t r = 0; r < e.regions.size(); ++r) {
        img.push_back(writeImage(e.regions[r], bin));
        fp.push_back(ranges(e.written[r]));
        dc.push_back(e.dontCare.empty() ? "-" : ranges(e.dontCare[r]));
        const oracle::RegionFormat& f = e.formats[r];
        fm.push_back(std::string(isa::nameOf(f.dtype)) + ":" + (f.bSide ? "B" : "A") + ":" +
                     std::to_string(f.origin) + ":" + std::to_string(f.fractalBytes) +
                     (f.signlessZero ? std::string(":") + kSignlessZero : ""));
      }
      footprint = join(fp, ';');
      dontCare = join(dc, ';');
      formats = join(fm, ';');
      return join(img, ';');
    };
    if (c.rejection) {
      expected = "rejected:" + std::string(isa::nameOf(*c.rejection));
      policy = "reject";
    } else if (c.expected) {
      expected = describe(*c.expected);
      policy = "exact";
    } else {
      std::vector<std::string> alts, names;
      for (const auto& [name, e] : c.alternatives) {
        alts.push_back(describe(e));
        names.push_back(name);
      }
      expected = join(alts, '|');
      // A probe names the reading a DUT follows; other alternatives (OPEN-10's write orders)
      // each certify: `either:`, read back as passes, not probe cases.
      policy = (c.probe ? "probe:" : "either:") + join(names, '|');
    }
    if (inputsOnly) expected = footprint = dontCare = formats = "", policy = "inputs";
    const std::vector<std::string> out{row.caseId, row.family,     row.profile,     row.property,
                                       row.why,    join(ins, ';'), join(segs, ';'), join(obs, ';'),
                                       expected,   footprint,      dontCare,        formats,
                                       policy};
    for (std::size_t i = 0; i < out.size(); ++i) os << (i ? "," : "") << quoted(out[i]);
    os << "\n";
  }
  const fs::path file = dir / (family + "." + profile + ".csv");
  const fs::path tmp = file.string() + ".tmp";
  std::ofstream(tmp, std::ios::binary) << os.str();
  fs::rename(tmp, file);
  return file;
}

namespace {
/// Every message that may quote a file's bytes (names, fields, the CSV library's messages) is
/// escaped and bounded here: a garbage file cannot move the cursor or flood the terminal.
void addError(ReadResult& result, const std::string& message) {
  result.errors.push_back(dut::printable(message, 300));
}

/// The first column of a row that is wrong, and how (columns count from 0).
struct RowError {
  int column = 0;
  std::string what;
};
using RowFields = std::array<std::string, kColumnCount>;

/// The free-text columns (family, property, why): shown in terminals and reports, so valid UTF-8
/// with no control character.
std::optional<RowError> checkTexts(const RowFields& f) {
  for (int col : {1, 3, 4}) {
    const std::string& text = f[static_cast<std::size_t>(col)];
    if (!validUtf8(text)) return RowError{col, "not valid UTF-8"};
    if (std::any_of(text.begin(), text.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7F; })) {
      return RowError{col, "contains a control character"};
    }
  }
  return std::nullopt;
}

/// The bytes of images the rows of one file have declared so far (fileImageLimit).
struct FileBudget {
  std::uint64_t declared = 0;
  bool spent = false;  ///< a row went past it: the rest of the file is not read
};

/// Counts `bytes` of images a row declares in `column` (`what`) against rowPartLimit and the
/// file's budget, before any of them is allocated; the error when either is passed.
std::optional<RowError> declare(std::uint64_t bytes, int column, const std::string& what,
                                isa::ProfileId profile, FileBudget& budget) {
  const std::uint64_t part = rowPartLimit(profile);
  if (bytes > part) {
    return RowError{column, "the row's " + what + " declare " + std::to_string(bytes) +
                                " bytes, more than the " + std::to_string(part) +
                                " bytes the memories of profile " +
                                std::string(isa::profile(profile).name) + " hold (GM counted as " +
                                std::to_string(kMaxGmRegionBytes) + "); nothing of them was read"};
  }
  if (bytes > fileImageLimit() - budget.declared) {
    budget.spent = true;
    return RowError{column, "with this row's " + what + " the file's rows declare more than " +
                                std::to_string(fileImageLimit()) +
                                " bytes of images together (64 rows of the largest memories); the "
                                "rest of the file was not read: split it"};
  }
  budget.declared += bytes;
  return std::nullopt;
}

/// How many expected images a row declares per observed region: one per reading of its policy.
std::uint64_t readingsOf(const std::string& policy) {
  if (policy == "exact") return 1;
  if (policy.rfind("probe:", 0) == 0) return split(policy.substr(6), '|').size();
  if (policy.rfind("either:", 0) == 0) return split(policy.substr(7), '|').size();
  return 0;
}

/// Columns family to observe: the program, the case_id checked against its inputs (sidecars by
/// the hash they are named after, so before any is read), then its segments read through
/// `parser`. Every image the row declares is counted against `budget` first.
std::optional<RowError> parseProgram(const RowFields& f, RowParser& parser, Row& row,
                                     FileBudget& budget) {
  if (std::find(conf::kFamilyNames.begin(), conf::kFamilyNames.end(), f[1]) ==
      conf::kFamilyNames.end()) {
    return RowError{1, "unknown family '" + f[1].substr(0, 40) + "'"};
  }
  auto prof = isa::parseProfile(f[2]);
  if (!prof) return RowError{2, "unknown profile '" + f[2].substr(0, 40) + "'"};
  isa::Program& p = row.c.program;
  p.profile = *prof;
  std::string error;
  for (const std::string& line : split(f[5], ';')) {
    auto ins = isa::parseInstruction(line, error);
    if (!ins) return RowError{5, error};
    p.instructions.push_back(*ins);
  }
  std::vector<HashedSegment> hashed;
  std::vector<std::string> images;  // the field of each segment, read once the case_id matches
  std::uint64_t segmentBytes = 0;
  for (const std::string& seg : split(f[6], ';')) {
    if (seg.empty()) continue;
    const auto eq = seg.find('=');
    if (eq == std::string::npos)
      return RowError{6, "bad segment '" + dut::printable(seg, 40) + "'"};
    isa::Region r;
    if (!parseRegion(seg.substr(0, eq), isa::profile(*prof), r, error)) return RowError{6, error};
    hashed.push_back({r, {}});
    images.push_back(seg.substr(eq + 1));
    segmentBytes += r.size;  // each at most 64 MiB, and a line holds at most 2^20 of them
  }
  if (auto e = declare(segmentBytes, 6, "segments", *prof, budget)) return e;
  std::uint64_t observedBytes = 0;
  for (const std::string& o : split(f[7], ';')) {
    isa::Region r;
    if (!parseRegion(o, isa::profile(*prof), r, error)) return RowError{7, error};
    p.observe.push_back(r);
    observedBytes += r.size;
  }
  if (auto e = declare(observedBytes, 7, "observed regions", *prof, budget)) return e;
  if (auto e = declare(readingsOf(f[12]) * observedBytes, 8, "expected images", *prof, budget)) {
    return e;
  }
  // Inline images are short (a line is at most kMaxLine): decoded now, for their hash. A sidecar
  // is named after its hash, which reading it checks.
  std::vector<isa::Bytes> decoded(images.size());
  for (std::size_t i = 0; i < images.size(); ++i) {
    if (images[i].rfind("bin:", 0) == 0) {
      hashed[i].hash = images[i].substr(4);
      if (!sidecarName(hashed[i].hash, error)) return RowError{6, error};
    } else if (parser.bytes(images[i], hashed[i].region.size, decoded[i], error)) {
      hashed[i].hash = contentHash(decoded[i].data(), decoded[i].size());
    } else {
      return RowError{6, error};
    }
  }
  const std::string id = caseIdWith(row.family, f[2], p.instructions, hashed, p.observe);
  if (id != row.caseId) {
    return RowError{0, "case_id " + row.caseId.substr(0, 20) +
                           " does not match the row's inputs (" + id + "): edited or corrupted"};
  }
  for (std::size_t i = 0; i < images.size(); ++i) {
    isa::Segment s{hashed[i].region.memory, hashed[i].region.addr, std::move(decoded[i])};
    if (images[i].rfind("bin:", 0) == 0 &&
        !parser.bytes(images[i], hashed[i].region.size, s.bytes, error)) {
      return RowError{6, error};
    }
    p.segments.push_back(std::move(s));
  }
  return std::nullopt;
}

/// Per observed region: footprint and don't-care masks and the region format (columns 9 to 11),
/// the part of an expectation every alternative shares.
std::optional<RowError> parseMasks(const RowFields& f, RowParser& parser, const isa::Program& p,
                                   oracle::Expected& base) {
  const std::vector<std::string> fps = split(f[9], ';'), dcs = split(f[10], ';'),
                                 fms = split(f[11], ';');
  if (fps.size() != p.observe.size() || dcs.size() != p.observe.size() ||
      fms.size() != p.observe.size()) {
    return RowError{8, "expected, footprint, dont_care and formats must describe each of the " +
                           std::to_string(p.observe.size()) + " observed regions"};
  }
  std::string error;
  for (std::size_t r = 0; r < p.observe.size(); ++r) {
    isa::Bytes w, d;
    if (!parser.mask(fps[r], p.observe[r].size, w, error)) return RowError{9, error};
    if (!parser.mask(dcs[r], p.observe[r].size, d, error)) return RowError{10, error};
    const std::vector<std::string> fm = split(fms[r], ':');
    oracle::RegionFormat format;
    if (fm.size() == 4 || fm.size() == 5) {
      std::string why = numberProblem("origin", fm[2], format.origin);
      if (why.empty()) why = numberProblem("fractal bytes", fm[3], format.fractalBytes);
      if (!why.empty())
        return RowError{11, "bad format '" + dut::printable(fms[r], 40) + "': " + why};
    }
    auto t = fm.size() == 4 || fm.size() == 5 ? isa::parseDType(fm[0]) : std::nullopt;
    if (!t || (fm[1] != "A" && fm[1] != "B") || format.fractalBytes == 0 ||
        format.fractalBytes % 16 != 0 || (fm.size() == 5 && fm[4] != kSignlessZero) ||
        (fm.size() == 5 && (*t != isa::DType::F32 || format.fractalBytes != 1024))) {
      return RowError{11, "bad format '" + fms[r].substr(0, 40) + "'"};
    }
    format.dtype = *t;
    format.bSide = fm[1] == "B";
    format.signlessZero = fm.size() == 5;
    base.written.push_back(std::move(w));
    base.dontCare.push_back(std::move(d));
    base.formats.push_back(format);
  }
  return std::nullopt;
}

/// Columns expected and policy: a rejection, an export's missing expectation, the exact
/// expectation or a probe's readings.
std::optional<RowError> parseExpectation(const RowFields& f, RowParser& parser, Row& row) {
  const std::string& policy = f[12];
  if (policy == "reject") {
    const std::string code = f[8].rfind("rejected:", 0) == 0 ? f[8].substr(9) : "";
    row.c.rejection = isa::parseViolationCode(code);
    if (!row.c.rejection) {
      return RowError{8, "expected 'rejected:<Code>', got '" + f[8].substr(0, 40) + "'"};
    }
    return std::nullopt;
  }
  if (policy == "inputs") {  // an export: the program without its expectation
    row.c.uncertified = "inputs only: this file carries no expectation (an export)";
    return std::nullopt;
  }
  std::vector<std::string> names;
  if (policy == "exact") {
    names.push_back("");
  } else if (policy.rfind("probe:", 0) == 0) {
    names = split(policy.substr(6), '|');
    row.c.probe = true;  // a probe's row: which reading, not a pass that certifies
  } else if (policy.rfind("either:", 0) == 0) {
    names = split(policy.substr(7), '|');  // any of them passes, and certifies
  } else {
    return RowError{12, "unknown policy '" + policy.substr(0, 40) + "'"};
  }
  const isa::Program& p = row.c.program;
  const std::vector<std::string> alts = split(f[8], '|');
  if (alts.size() != names.size()) {
    return RowError{8, "expected, footprint, dont_care and formats must describe each of the " +
                           std::to_string(p.observe.size()) + " observed regions"};
  }
  oracle::Expected base;
  if (auto e = parseMasks(f, parser, p, base)) return e;
  std::string error;
  for (std::size_t a = 0; a < alts.size(); ++a) {
    oracle::Expected e = base;
    const std::vector<std::string> imgs = split(alts[a], ';');
    if (imgs.size() != p.observe.size()) {
      return RowError{8, "expected has " + std::to_string(imgs.size()) + " regions, observe " +
                             std::to_string(p.observe.size())};
    }
    for (std::size_t r = 0; r < imgs.size(); ++r) {
      isa::Bytes b;
      if (!parser.bytes(imgs[r], p.observe[r].size, b, error)) return RowError{8, error};
      e.regions.push_back(std::move(b));
    }
    if (policy == "exact") {
      row.c.expected = std::move(e);
    } else {
      row.c.alternatives.emplace_back(names[a], std::move(e));
    }
  }
  return std::nullopt;
}

/// Rows are short (big images live in sidecars): a line past kMaxLine bytes is damage, not data.
/// False (with the error added) when the file cannot be opened or has such a line.
bool linesAreShort(const fs::path& file, ReadResult& result) {
  const std::string name = file.string();
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    addError(result, name + ": cannot open");
    return false;
  }
  std::size_t line = 1, length = 0;
  for (std::istreambuf_iterator<char> it(in), end; it != end; ++it) {
    if (*it == '\n') {
      ++line;
      length = 0;
    } else if (++length > kMaxLine) {
      addError(result, name + ":" + std::to_string(line) + ":" + std::to_string(kMaxLine + 1) +
                           ": line longer than " + std::to_string(kMaxLine) +
                           " bytes; the file is skipped");
      return false;
    }
  }
  return true;
}

/// Line 1 must be the provenance comment of this format: a file without it was not written by
/// cubecheck (or lost its first line), and one of another format is not read as this one.
/// False for an empty file, which holds nothing more to read.
bool checkProvenance(const fs::path& file, ReadResult& result) {
  std::ifstream in(file, std::ios::binary);
  std::string first;
  if (!std::getline(in, first)) {
    addError(result, file.string() +
                         ":1:1: the file is empty: a vector file holds its provenance line, the "
                         "header and its rows (regenerate it, or remove it from the set)");
    return false;
  }
  const std::string prefix = "# cubecheck vectors format ";
  // A provenance error is the file's, not a row's: the rows that parse are still replayed.
  const std::string stillRead = " (its rows that parse were still read and replayed)";
  if (conf::startsWithByteOrderMark(first)) {
    addError(result, file.string() + ":1:1: " +
                         conf::byteOrderMarkMessage("save it without one, or regenerate it") +
                         stillRead);
    return true;
  }
  if (first.rfind(prefix, 0) != 0) {
    addError(result, file.string() + ":1:1: no provenance line ('" + prefix +
                         std::to_string(kFormatVersion) +
                         "; ...'): the file is not as cubecheck wrote it (restore its first line "
                         "or regenerate it)" +
                         stillRead);
    return true;
  }
  const std::string version = first.substr(prefix.size(), first.find(';') - prefix.size());
  if (version != std::to_string(kFormatVersion)) {
    addError(result, file.string() + ":1:" + std::to_string(prefix.size() + 1) + ": format " +
                         version + ", this cubecheck reads format " +
                         std::to_string(kFormatVersion));
  }
  return true;
}

}  // namespace

ReadResult readFile(const fs::path& file) {
  ReadResult result;
  const std::string name = file.string();
  if (!linesAreShort(file, result)) return result;
  if (!checkProvenance(file, result)) return result;
  RowParser parser(file.parent_path() / "bin");
  FileBudget budget;
  csv::readRows(
      file, kColumns,
      [&](const RowFields& f, std::size_t line) {
        Row row;
        row.caseId = f[0];
        row.family = f[1];
        row.profile = f[2];
        row.property = f[3];
        row.why = f[4];
        std::optional<RowError> e = checkTexts(f);
        if (!e) e = parseProgram(f, parser, row, budget);
        if (!e) e = parseExpectation(f, parser, row);
        if (e) {
          addError(result, name + ":" + std::to_string(line) + ":" + std::to_string(e->column + 1) +
                               ": column " + kColumns[static_cast<std::size_t>(e->column)] + ": " +
                               e->what);
          return !budget.spent;
        }
        result.rows.push_back(std::move(row));
        result.lines.push_back(line);
        return true;
      },
      [&](const std::string& error) { addError(result, error); });
  return result;
}

std::vector<fs::path> vectorFiles(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.is_regular_file() && e.path().extension() == ".csv") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

namespace {

std::string slurp(const fs::path& file, bool& ok) {
  std::ifstream in(file, std::ios::binary);
  ok = static_cast<bool>(in);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// A vector file's entry as it is on disk: its content hash and its data rows (lines after the
/// header that are neither empty nor comments).
struct Entry {
  std::string hash;
  std::size_t rows = 0;
  std::size_t line = 0;  ///< of the manifest that lists it
};

/// The rows are counted as the reader reads the file: a byte order mark before the provenance
/// line (reported by readFile) does not make that line the header, nor the header a row, and a
/// line's CR (CRLF line ends, which the CSV reader drops) does not make an empty line a row. The
/// hash is of the bytes as they are.
Entry describe(const std::string& text) {
  Entry e{contentHash(text.data(), text.size()), 0, 0};
  bool header = true;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (header && conf::startsWithByteOrderMark(line)) line.erase(0, conf::kUtf8Bom.size());
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    if (header) {
      header = false;
    } else {
      ++e.rows;
    }
  }
  return e;
}

constexpr const char* kManifestHeader =
    "# cubecheck vector set manifest 1: per vector file, FNV-1a 64 of its bytes, its rows, its "
    "name\n";

}  // namespace

std::string writeManifest(const fs::path& dir, const std::vector<fs::path>& files,
                          const std::string& note) {
  std::vector<std::string> names;
  for (const fs::path& f : files) names.push_back(f.filename().string());
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string text = kManifestHeader;
  if (!note.empty()) {
    if (note.find_first_of("\r\n") != std::string::npos)
      throw std::invalid_argument("a manifest note is one line");
    text += "# " + note + "\n";
  }
  for (const std::string& n : names) {
    bool ok = false;
    const Entry e = describe(slurp(dir / n, ok));
    if (!ok) throw std::runtime_error("cannot read " + (dir / n).string() + " for the manifest");
    text += e.hash + " " + std::to_string(e.rows) + " " + n + "\n";
  }
  const fs::path file = dir / kManifestName, tmp = file.string() + ".tmp";
  std::ofstream(tmp, std::ios::binary) << text;
  fs::rename(tmp, file);
  return contentHash(text.data(), text.size());
}

namespace {
constexpr std::string_view kNoteSet = " of the vector set of digest ";
constexpr std::string_view kNoteKinds[] = {"export-ascendc", "inputs export"};
}  // namespace

std::string exportNote(const ExportSource& source) {
  return source.kind + std::string(kNoteSet) + source.digest + ": " + std::to_string(source.kept) +
         " of its " + std::to_string(source.total) + " cases";
}

std::optional<ExportSource> parseExportNote(const std::string& note) {
  for (std::string_view kind : kNoteKinds) {
    const std::string lead = std::string(kind) + std::string(kNoteSet);
    if (!note.starts_with(lead)) continue;
    ExportSource out{std::string(kind), note.substr(lead.size(), 16)};
    if (out.digest.size() != 16 ||
        out.digest.find_first_not_of("0123456789abcdef") != std::string::npos) {
      return std::nullopt;
    }
    // What follows the digest: ": K of its N cases", or nothing (an earlier cubecheck's export),
    // or something else (a damaged note): then how much went in is not known.
    const std::string rest = note.substr(lead.size() + 16);
    const std::string of = " of its ";
    const auto at = rest.find(of), end = rest.rfind(" cases");
    out.counted = rest.starts_with(": ") && at != std::string::npos && end != std::string::npos &&
                  end + 6 == rest.size() && at < end && number(rest.substr(2, at - 2), out.kept) &&
                  number(rest.substr(at + of.size(), end - at - of.size()), out.total);
    if (!out.counted) out.kept = out.total = 0;
    return out;
  }
  return std::nullopt;
}

namespace {

/// One directory's part of checkSet.
void checkDir(const fs::path& dir, const std::vector<fs::path>& files, bool wholeDir, SetCheck& out,
              std::vector<std::string>& digests, std::vector<std::string>& sources) {
  const fs::path manifest = dir / kManifestName;
  const std::string mname = manifest.string();
  bool ok = false;
  const std::string text = slurp(manifest, ok);
  if (!ok) {
    out.partial.push_back("no manifest in " + dir.string() + ": nothing says the set is whole");
    return;
  }
  digests.push_back(contentHash(text.data(), text.size()));
  out.exportKindOf[dir] = "";
  std::map<std::string, Entry> listed;
  std::istringstream in(text);
  std::size_t lineNo = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNo;
    // Read as the vector files are: a CRLF line end's CR is not part of the name it ends (the
    // digest, of the bytes, still differs from the published one).
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (lineNo == 1 && conf::startsWithByteOrderMark(line)) {
      out.errors.push_back(
          mname +
          ":1:1: " + conf::byteOrderMarkMessage("save it without one, or regenerate the set"));
      line.erase(0, conf::kUtf8Bom.size());
    }
    if (line.starts_with("# ")) {
      if (const std::optional<ExportSource> from = parseExportNote(line.substr(2))) {
        sources.push_back(from->digest);
        out.exportKindOf[dir] = from->kind;
        const std::string what =
            dir.string() + " is an " + from->kind + " of the vector set of digest " + from->digest;
        if (from->kind == "inputs export") {
          // Its rows carry no expectation: nothing to verify results against.
          out.errors.push_back(mname + ":" + std::to_string(lineNo) + ":3: " + what +
                               ", whose rows carry no expectation: replay or verify against "
                               "that set itself (vectors verify --dir SET --results FILE)");
        } else if (!from->counted) {
          out.subset += (out.subset.empty() ? "" : "; ") + what +
                        ": how many of its cases went in is not recorded (an export by an "
                        "earlier cubecheck, or an edited note), so it is taken for a part of "
                        "it (its SKIPPED.md says what was left out)";
        } else if (from->kept > from->total) {
          out.errors.push_back(mname + ":" + std::to_string(lineNo) + ":3: the note says " +
                               std::to_string(from->kept) + " of its " +
                               std::to_string(from->total) +
                               " cases, more than the set has: the manifest was edited "
                               "(export the set again)");
        } else if (from->kept < from->total) {
          out.subset += (out.subset.empty() ? "" : "; ") + what + ": " +
                        std::to_string(from->kept) + " of its " + std::to_string(from->total) +
                        " cases of the profile as they are, the rest left out by the export or run "
                        "as board variants of theirs (its SKIPPED.md says which and why)";
        }
      }
    }
    if (line.empty() || line[0] == '#') continue;
    const auto a = line.find(' '), b = a == std::string::npos ? a : line.find(' ', a + 1);
    Entry e;
    e.line = lineNo;
    if (b == std::string::npos || a != 16 || !number(line.substr(a + 1, b - a - 1), e.rows)) {
      out.errors.push_back(
          mname + ":" + std::to_string(lineNo) +
          ":1: not 'HASH ROWS NAME': the manifest is damaged (regenerate the set)");
      continue;
    }
    e.hash = line.substr(0, a);
    if (!listed.emplace(line.substr(b + 1), e).second) {
      out.errors.push_back(mname + ":" + std::to_string(lineNo) + ":" + std::to_string(b + 2) +
                           ": " + line.substr(b + 1) + " is listed twice");
    }
  }
  std::set<std::string> seen;
  for (const fs::path& f : files) {
    const std::string name = f.filename().string();
    const auto it = listed.find(name);
    // Counted only when listed: "K of N files of the set" counts the set's files.
    if (it != listed.end()) seen.insert(name);
    if (it == listed.end()) {
      out.errors.push_back(f.string() + ": not listed in " + mname +
                           ": not part of the set (remove it, or regenerate the set)");
      continue;
    }
    bool read = false;
    const Entry now = describe(slurp(f, read));
    if (!read) continue;  // readFile reports it
    const std::string where = mname + ":" + std::to_string(it->second.line) + ": " + name;
    if (now.rows != it->second.rows) {
      out.errors.push_back(where + " has " + std::to_string(now.rows) +
                           " rows; the manifest lists " + std::to_string(it->second.rows) +
                           " (rows added or deleted)");
    } else if (now.hash != it->second.hash) {
      out.errors.push_back(where + " hashes to " + now.hash + "; the manifest lists " +
                           it->second.hash + " (the file was edited)");
    }
  }
  std::size_t absent = 0;
  for (const auto& [name, e] : listed) {
    if (seen.count(name) != 0) continue;
    ++absent;
    if (wholeDir) {
      out.errors.push_back(mname + ":" + std::to_string(e.line) + ": " + name +
                           " is listed but missing from " + dir.string() +
                           " (its rows were not replayed)");
    }
  }
  if (!wholeDir && absent > 0) {
    out.partial.push_back(std::to_string(seen.size()) + " of " +
                          std::to_string(seen.size() + absent) + " files of the set in " +
                          dir.string());
  }
}

}  // namespace

SetCheck checkSet(const std::vector<fs::path>& files, bool wholeDir) {
  std::map<fs::path, std::vector<fs::path>> byDir;
  for (const fs::path& f : files) {
    byDir[f.has_parent_path() ? f.parent_path() : fs::path(".")].push_back(f);
  }
  SetCheck out;
  std::vector<std::string> digests, sources;
  for (const auto& [dir, inDir] : byDir) checkDir(dir, inDir, wholeDir, out, digests, sources);
  if (byDir.size() > 1)
    out.partial.push_back("files of " + std::to_string(byDir.size()) + " directories, not one set");
  out.digest = join(digests, ',');
  out.sourceDigest = join(sources, ',');
  for (std::string& p : out.partial) p = dut::printable(p, 300);
  out.subset = dut::printable(out.subset, 600);
  for (std::string& e : out.errors) e = dut::printable(e, 300);
  return out;
}

SourceSet readSet(const fs::path& dir) {
  SourceSet out;
  out.files = vectorFiles(dir);
  SetCheck set = checkSet(out.files, true);
  out.digest = std::move(set.digest);
  out.errors = std::move(set.errors);
  std::map<std::string, std::string> firstAt;  // case id -> FILE:LINE of its first row
  for (const fs::path& f : out.files) {
    out.read.push_back(readFile(f));
    const ReadResult& rr = out.read.back();
    out.errors.insert(out.errors.end(), rr.errors.begin(), rr.errors.end());
    for (std::size_t i = 0; i < rr.rows.size(); ++i) {
      const std::string at = f.string() + ":" + std::to_string(rr.lines[i]);
      const auto [first, fresh] = firstAt.emplace(rr.rows[i].caseId, at);
      if (fresh) continue;
      out.errors.push_back(dut::printable(at + ":1: column case_id: case " + rr.rows[i].caseId +
                                              " is also the row at " + first->second +
                                              ": a duplicated row (remove one)",
                                          300));
    }
  }
  return out;
}

}  // namespace cubecheck::vec
