// Golden vectors: deterministic regeneration, replay, export/verify, and a corpus of malformed
// files that must each be named with file and line.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <functional>
#include <map>
#include <random>
#include <set>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "conformance/families.hpp"
#include "conformance/indirect.hpp"
#include "conformance/sha256.hpp"
#include "dut_adapters/registry.hpp"
#include "isa/profile.hpp"
#include "process.hpp"
#include "scratch.hpp"
#include "vectors/vectors.hpp"

namespace cubecheck::vec {
namespace {
namespace fs = std::filesystem;

fs::path fresh(const std::string& name) {
  return test::freshDir("vectors_" + name);
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

void spit(const fs::path& p, const std::string& s) {
  std::ofstream(p, std::ios::binary) << s;
}

std::vector<fs::path> writeAll(const fs::path& dir, std::uint64_t seed, int random) {
  std::vector<fs::path> files;
  for (const Generated& g : generate(seed, random)) {
    files.push_back(writeFile(dir, g.family, g.profile, g.rows, "test"));
  }
  return files;
}

TEST(Vectors, RegenerationIsByteIdentical) {
  const fs::path a = fresh("regen_a"), b = fresh("regen_b");
  const auto fa = writeAll(a, 5, 2);
  const auto fb = writeAll(b, 5, 2);
  ASSERT_EQ(fa.size(), fb.size());
  ASSERT_GE(fa.size(), 7u);  // every landed family on each of its profiles
  for (std::size_t i = 0; i < fa.size(); ++i) EXPECT_EQ(slurp(fa[i]), slurp(fb[i])) << fa[i];
  std::size_t sidecars = 0;
  for (const auto& e : fs::directory_iterator(a / "bin")) {
    EXPECT_EQ(slurp(e.path()), slurp(b / "bin" / e.path().filename()));
    ++sidecars;
  }
  EXPECT_GT(sidecars, 0u);
  const std::string text = slurp(fa[0]);
  EXPECT_EQ(text.find("# cubecheck vectors format 1; test\n"), 0u) << "provenance first";
}

TEST(Vectors, ReplayPassesTheReferenceAndFailsAMutant) {
  const fs::path d = fresh("replay");
  auto ref = dut::makeDut("reference");
  auto mutant = dut::makeDut("mutant:sparse-slot1-no-offset");
  std::size_t rows = 0, caught = 0;
  for (const fs::path& f : writeAll(d, 1, 1)) {
    const ReadResult r = readFile(f);
    EXPECT_TRUE(r.errors.empty()) << r.errors.front();
    for (const Row& row : r.rows) {
      ++rows;
      EXPECT_EQ(conf::checkVector(*ref, row.c).outcome, conf::Outcome::Pass)
          << f << " " << row.caseId;
      if (row.family == "mmad_sparse" && row.property == "MatchesOracle") {
        caught += conf::checkVector(*mutant, row.c).outcome == conf::Outcome::Mismatch;
      }
    }
  }
  EXPECT_GT(rows, 100u);
  EXPECT_GT(caught, 5u);
}

// The published golden set replays every mutant of the zoo to a failure, but those whose fault
// its rows cannot show (each with the reason): a replay is only a regression check, but one
// that a broken DUT of a known kind passes checks less than it claims. Rows run in file order
// on one DUT, as `vectors check` runs them. No reading the suite certifies fails it.
TEST(Vectors, TheGoldenSetFailsEveryMutantItsRowsCanShowAndNoReading) {
  const std::map<std::string, std::string> unseen{
      {"load2d-stray-write-far",
       "writes 4 KiB past the destination, outside every row's observed regions (certify's "
       "NoStrayWrites observes whole segments)"},
      {"mmad-adds-toward-zero",
       "shows against BoundedError's derived bound only, which has no vector form (rows are "
       "compared exactly)"},
  };
  std::vector<Row> rows;
  for (const fs::path& f : vectorFiles(fs::path(CUBECHECK_SOURCE_DIR) / "vectors" / "golden")) {
    ReadResult r = readFile(f);
    ASSERT_TRUE(r.errors.empty()) << r.errors.front();
    for (Row& row : r.rows) rows.push_back(std::move(row));
  }
  ASSERT_GT(rows.size(), 1000u);
  for (const dut::Mutant& m : dut::mutants()) {
    const std::string name(m.name);
    if (m.throughBoard) continue;  // its instruction runs only in a board's rewrite
    auto d = dut::makeDut("mutant:" + name);
    bool failed = false;
    for (const Row& row : rows) {
      if (row.profile != isa::profile(m.profile).name) continue;
      const conf::Outcome o = conf::checkVector(*d, row.c).outcome;
      failed = o != conf::Outcome::Pass && o != conf::Outcome::NotSupported;
      if (failed) break;
    }
    if (auto why = unseen.find(name); why != unseen.end()) {
      EXPECT_FALSE(failed) << name << " is listed as unseen (" << why->second
                           << ") but the golden set shows it: take it off the list";
    } else {
      EXPECT_TRUE(failed) << name << " (" << m.description
                          << ") passes a replay of the golden set: add a boundary-table case "
                             "that shows it";
    }
  }
  // And every reading the suite certifies (another reading of an open point, unspecified bytes
  // written) replays the set without a failure.
  for (const dut::Reading& reading : dut::readings()) {
    auto d = dut::makeDut("mutant:" + std::string(reading.name));
    for (const Row& row : rows) {
      const conf::Verdict v = conf::checkVector(*d, row.c);
      EXPECT_TRUE(v.outcome == conf::Outcome::Pass || v.outcome == conf::Outcome::NotSupported)
          << reading.name << " fails " << row.family << "." << row.profile << " " << row.caseId
          << ": " << v.detail.substr(0, 300);
    }
  }
}

TEST(Vectors, ExportThenVerifyResultsWrittenByAHarness) {
  const fs::path d = fresh("golden"), out = fresh("export"), res = fresh("results");
  writeAll(d, 2, 1);
  // What `cubecheck vectors export` writes: the programs without their expectations.
  for (const fs::path& f : vectorFiles(d)) {
    const ReadResult r = readFile(f);
    writeFile(out, r.rows[0].family, r.rows[0].profile, r.rows, "export", true);
  }
  // The "board harness": reads only the export, runs each program, records what it observed.
  auto board = dut::makeDut("reference");
  std::vector<std::pair<std::string, Recorded>> results;
  for (const fs::path& f : vectorFiles(out)) {
    for (const Row& row : readFile(f).rows) {
      EXPECT_TRUE(row.c.uncertified.has_value());  // an export carries no expectation
      const dut::RunResult run = board->run(row.c.program);
      Recorded rec{run.status == dut::RunStatus::Ok
                       ? "ok"
                       : "rejected:" + std::string(isa::nameOf(run.violation->code)),
                   run.observed};
      results.emplace_back(row.caseId, std::move(rec));
    }
  }
  writeResults(res / "results.csv", results);
  std::map<std::string, std::vector<std::uint64_t>> sizes;
  std::vector<Row> golden;
  for (const fs::path& f : vectorFiles(d)) {
    for (Row& row : readFile(f).rows) {
      for (const auto& r : row.c.program.observe) sizes[row.caseId].push_back(r.size);
      golden.push_back(std::move(row));
    }
  }
  ResultsRead read = readResults(res / "results.csv", sizes);
  ASSERT_TRUE(read.errors.empty()) << read.errors.front();
  RecordedDut recorded(read.byCase, "results.csv");
  for (const Row& row : golden) {
    EXPECT_EQ(conf::checkVector(recorded, row.c).outcome, conf::Outcome::Pass) << row.caseId;
  }
  // One wrong byte in one recorded region is caught.
  auto it = std::find_if(read.byCase.begin(), read.byCase.end(),
                         [](const auto& kv) { return kv.second.status == "ok"; });
  ASSERT_NE(it, read.byCase.end());
  it->second.observed[0][it->second.observed[0].size() / 2] ^= 0x10;
  RecordedDut tampered(read.byCase, "tampered");
  std::size_t mismatches = 0;
  for (const Row& row : golden)
    mismatches += conf::checkVector(tampered, row.c).outcome == conf::Outcome::Mismatch;
  EXPECT_EQ(mismatches, 1u);
}

using CliRun = test::ProcessRun;

/// The cubecheck binary with `args`, as a user runs it (stdout and stderr together).
CliRun runBinary(const std::string& args) {
  return test::runCubecheck(args);
}

/// What a perfect board writes back for every row of `files`: the reference model's answers.
std::vector<std::pair<std::string, Recorded>> boardResults(const std::vector<fs::path>& files) {
  auto board = dut::makeDut("reference");
  std::vector<std::pair<std::string, Recorded>> results;
  for (const fs::path& f : files) {
    for (const Row& row : readFile(f).rows) {
      const dut::RunResult run = board->run(row.c.program);
      results.emplace_back(
          row.caseId, Recorded{run.status == dut::RunStatus::Ok
                                   ? "ok"
                                   : "rejected:" + std::string(isa::nameOf(run.violation->code)),
                               run.observed});
    }
  }
  return results;
}

// vectors verify: results a perfect board would write back for the shipped golden set pass
// (they did not while a case_id was in a file twice), and the reproduce line a failure prints
// runs as printed.
TEST(Vectors, VerifyPassesPerfectBoardResultsAndItsReproduceLineRuns) {
  const fs::path dir = fresh("verify_cli");
  const std::string golden = std::string(CUBECHECK_SOURCE_DIR) + "/vectors/golden";
  std::vector<std::pair<std::string, Recorded>> results = boardResults(vectorFiles(golden));
  ASSERT_GT(results.size(), 100u);
  writeResults(dir / "results.csv", results);
  CliRun r = runBinary("vectors verify --dir " + golden + " --results " +
                       (dir / "results.csv").string() + " --report-dir ''");
  EXPECT_EQ(r.status, 0) << r.out.substr(r.out.size() > 3000 ? r.out.size() - 3000 : 0);
  // One recorded region wrong: exit 1, and the printed reproduce line reruns
  // exactly that case (exit 1 again, one case), not a usage error.
  // An Mmad product's (not a no-op: a run whose only pass is a no-op certifies nothing).
  std::string product;
  for (const fs::path& f : vectorFiles(golden)) {
    for (const Row& row : readFile(f).rows) {
      if (product.empty() && row.family == "mmad" && row.property == "MatchesOracle") {
        product = row.caseId;
      }
    }
  }
  auto ok = std::find_if(results.begin(), results.end(),
                         [&](const auto& kv) { return kv.first == product; });
  ASSERT_NE(ok, results.end());
  ASSERT_EQ(ok->second.status, "ok");
  for (std::uint8_t& b : ok->second.observed[0]) b ^= 0x10;  // no mask covers a whole region
  writeResults(dir / "bad.csv", results);
  r = runBinary("vectors verify --dir " + golden + " --results " + (dir / "bad.csv").string() +
                " --report-dir ''");
  EXPECT_EQ(r.status, 1) << r.out;
  const std::size_t at = r.out.find("reproduce: cubecheck ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const std::size_t from = at + std::string("reproduce: cubecheck ").size();
  const std::string line = r.out.substr(from, r.out.find('\n', from) - from);
  EXPECT_NE(line.find("--case " + ok->first), std::string::npos) << line;
  r = runBinary(line + " --report-dir ''");
  EXPECT_EQ(r.status, 1) << line << "\n" << r.out;
  EXPECT_NE(r.out.find("FAILED"), std::string::npos) << r.out;
  // The board's answer put right, the same line passes: the results of the other files' cases
  // are set aside, not "in no vector file" (every one of them was an input error), and the run
  // stays partial.
  for (std::uint8_t& b : ok->second.observed[0]) b ^= 0x10;
  writeResults(dir / "bad.csv", results);
  r = runBinary(line + " --report-dir ''");
  EXPECT_EQ(r.status, 0) << line << "\n"
                         << r.out.substr(r.out.size() > 3000 ? r.out.size() - 3000 : 0);
  EXPECT_EQ(r.out.find("INPUT ERROR"), std::string::npos) << r.out.substr(0, 3000);
  EXPECT_NE(r.out.find("verdict: PARTIAL RUN (--case " + ok->first), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("set aside unread"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

/// A small valid file to break in various ways.
fs::path sample(const fs::path& dir) {
  for (const Generated& g : generate(3, 1)) {
    if (g.family == "load_sparse") return writeFile(dir, g.family, g.profile, g.rows, "sample");
  }
  return {};
}

struct Broken {
  const char* name;
  std::function<std::string(std::string)> edit;
  const char* says;
};

class MalformedFile : public ::testing::TestWithParam<Broken> {};

/// Whether `error` starts "FILE:LINE:COLUMN: ", both numbers from 1.
bool namesLineAndColumn(const std::string& error, const std::string& file) {
  if (error.rfind(file + ":", 0) != 0) return false;
  std::size_t at = file.size() + 1;
  for (int part = 0; part < 2; ++part) {
    const std::size_t digits = at;
    while (at < error.size() && std::isdigit(static_cast<unsigned char>(error[at]))) ++at;
    if (at == digits || error[digits] == '0' || at >= error.size() || error[at] != ':') {
      return false;
    }
    ++at;
  }
  return error.compare(at, 1, " ") == 0;
}

TEST_P(MalformedFile, IsNamedWithFileAndLineAndTheOtherFilesStillRun) {
  const Broken& b = GetParam();
  const fs::path d = fresh(std::string("malformed_") + b.name);
  const fs::path good = sample(d);
  const fs::path bad = d / "broken.csv";
  spit(bad, b.edit(slurp(good)));
  const ReadResult r = readFile(bad);
  ASSERT_FALSE(r.errors.empty()) << b.name << " was accepted";
  EXPECT_NE(r.errors[0].find(bad.string()), std::string::npos) << r.errors[0];
  EXPECT_NE(r.errors[0].find(b.says), std::string::npos) << r.errors[0];
  for (const std::string& e : r.errors) {
    // Every error of a damaged file names its line and column: FILE:LINE:COLUMN: (never the CSV
    // library's "line -1", nor a message without a column).
    EXPECT_TRUE(namesLineAndColumn(e, bad.string())) << b.name << ": " << e;
    // Escaped and bounded (vectors.cpp addError): printable ASCII, at most 300 bytes and "...".
    EXPECT_LE(e.size(), 303u);
    for (char c : e) EXPECT_TRUE(c >= 0x20 && c < 0x7F) << b.name << ": " << e;
  }
  // The good file beside it reads and replays in full.
  const ReadResult ok = readFile(good);
  EXPECT_TRUE(ok.errors.empty());
  auto ref = dut::makeDut("reference");
  for (const Row& row : ok.rows)
    EXPECT_EQ(conf::checkVector(*ref, row.c).outcome, conf::Outcome::Pass);
}

std::string replaceFirst(std::string s, const std::string& from, const std::string& to) {
  const auto at = s.find(from);
  if (at != std::string::npos) s.replace(at, from.size(), to);
  return s;
}

/// The text of data row n (1-based, after the comment and the header).
/// Past the last line: 0, as find's npos + 1. (std::find, not string::find: GCC 12 at -O3 takes
/// the inlined char_traits::find for a read of an uninitialised value and -Werror stops the
/// release build.)
std::size_t rowStart(const std::string& s, int n) {
  std::size_t at = 0;
  for (int i = 0; i < n + 1; ++i) {
    const auto nl =
        std::find(s.begin() + static_cast<std::ptrdiff_t>(std::min(at, s.size())), s.end(), '\n');
    at = nl == s.end() ? 0 : static_cast<std::size_t>(nl - s.begin()) + 1;
  }
  return at;
}

/// `s` with the first segment image of its first row (a sidecar) inlined as the hex digits
/// `hexOf` gives for its size in bytes.
std::string inlineFirstSegment(const std::string& s,
                               const std::function<std::string(std::size_t)>& hexOf) {
  const auto at = s.find("=bin:", rowStart(s, 1));
  const auto plus = s.rfind('+', at);
  const std::size_t bytes = std::stoul(s.substr(plus + 1, at - plus - 1));
  return s.substr(0, at) + "=hex:" + hexOf(bytes) + s.substr(at + 21);
}

INSTANTIATE_TEST_SUITE_P(
    Corpus, MalformedFile,
    ::testing::Values(
        Broken{"truncated", [](std::string s) { return s.substr(0, rowStart(s, 3) + 40); },
               "broken.csv:5:4: column property: the quote at byte 39 of the line is not closed"},
        Broken{"bad_hex",
               [](std::string s) {
                 return inlineFirstSegment(s, [](std::size_t bytes) {
                   std::string hex(2 * bytes, '0');  // the right length, one digit bad
                   hex[7] = 'z';
                   return hex;
                 });
               },
               "column segments: bad hex digit 'z' at offset 7 (hex digits are 0-9, a-f)"},
        // An upper-case digit is named as such: it read as "bad hex digit at offset 6".
        Broken{"upper_case_hex",
               [](std::string s) {
                 return inlineFirstSegment(s, [](std::size_t bytes) {
                   std::string hex(2 * bytes, '0');
                   hex[6] = 'A';
                   return hex;
                 });
               },
               "bad hex digit 'A' at offset 6 (hex digits are lower case: 0-9, a-f)"},
        // nu11 F13: a bad digit in an image of the wrong length read "hex image of 1 bytes for
        // 512", not the digit: the digits are checked first.
        Broken{"bad_hex_of_the_wrong_length",
               [](std::string s) {
                 return inlineFirstSegment(s, [](std::size_t) { return std::string("zz"); });
               },
               "broken.csv:3:7: column segments: bad hex digit 'z' at offset 0 (hex digits are "
               "0-9, a-f)"},
        // A number that does not fit its column read as "bad region '...'", as a word would.
        Broken{"address_out_of_range",
               [](std::string s) {
                 return replaceFirst(s, "\"L0B@0+512;IDX@0+128\"",
                                     "\"L0B@99999999999999999999+512;IDX@0+128\"");
               },
               "column observe: bad region 'L0B@99999999999999999999+512': address "
               "'99999999999999999999' is out of range for uint64"},
        Broken{"size_not_a_number",
               [](std::string s) {
                 return replaceFirst(s, "\"L0B@0+512;IDX@0+128\"", "\"L0B@0+5x2;IDX@0+128\"");
               },
               "column observe: bad region 'L0B@0+5x2': size '5x2' is not a number"},
        Broken{
            "footprint_out_of_range",
            [](std::string s) {
              return replaceFirst(s, "\"0+512;0+128\"", "\"0+99999999999999999999;0+128\"");
            },
            "column footprint: bad range '0+99999999999999999999' for a 1024-byte region: length "
            "'99999999999999999999' is out of range for uint64"},
        // The CSV reader ends a line at a NUL byte: it was "Escaped string was not closed".
        Broken{"nul_byte", [](std::string s) { return s.insert(rowStart(s, 2) + 5, 1, '\0'); },
               "broken.csv:4:1: column case_id: a NUL byte (byte 6 of the line)"},
        Broken{"nul_in_header", [](std::string s) { return s.insert(rowStart(s, 0) + 3, 1, '\0'); },
               "broken.csv:2:1: the header is missing or wrong: line 2 should name the columns "
               "case_id,family,...,policy (13 columns); it has a NUL byte (byte 4)"},
        // The header was "Extra column ... in header of file", with no line.
        Broken{"no_header",
               [](std::string s) { return s.substr(0, rowStart(s, 0)) + s.substr(rowStart(s, 1)); },
               "broken.csv:2:1: the header is missing or wrong: line 2 should name the columns "
               "case_id,family,...,policy (13 columns); field 1 is \""},
        // Binary garbage: its quote not closed was reported "in line -1".
        Broken{"random_bytes",
               [](std::string) {
                 std::mt19937 bits(1);
                 std::string s(3000, '\0');
                 for (char& c : s) c = static_cast<char>(bits() & 0xFF);
                 return s;
               },
               "broken.csv:1:1: no provenance line"},
        // An empty file was "no provenance line", then "line 1 should name the columns".
        Broken{"empty", [](std::string) { return std::string(); },
               "broken.csv:1:1: the file is empty"},
        // An editor's byte order mark read as "no provenance line ... restore its first line".
        Broken{"byte_order_mark", [](std::string s) { return "\xEF\xBB\xBF" + s; },
               "broken.csv:1:1: the file starts with a UTF-8 byte order mark (bytes EF BB BF)"},
        // Halved, 1023 digits read as "hex image of 511 bytes for 512".
        Broken{"odd_hex_digits",
               [](std::string s) {
                 return inlineFirstSegment(
                     s, [](std::size_t bytes) { return std::string(2 * bytes - 1, '0'); });
               },
               "broken.csv:3:7: column segments: hex image of 1023 digits, an odd number"},
        Broken{"wrong_column_count",
               [](std::string s) {
                 const auto at = rowStart(s, 2);
                 return s.substr(0, at) + "\"x\",\"y\"\n" + s.substr(at);
               },
               "broken.csv:4:3: column profile is missing: the line has 2 fields, a row has 13"},
        Broken{"unknown_family",
               [](std::string s) { return replaceFirst(s, ",\"load_sparse\",", ",\"load9d\","); },
               "unknown family"},
        Broken{"hash_mismatch",
               [](std::string s) {
                 const auto at = rowStart(s, 1) + 1;  // first character of the case_id
                 s[at] = s[at] == '0' ? '1' : '0';
                 return s;
               },
               "does not match the row's inputs"},
        Broken{"over_long_line",
               [](std::string s) {
                 const auto at = rowStart(s, 1);
                 return s.substr(0, at) + std::string(3 << 20, 'a') + "\n" + s.substr(at);
               },
               ":3:1048577: line longer than"},
        Broken{"non_utf8",
               [](std::string s) {
                 return replaceFirst(s, "one dense fractal", "one \xff\xfe fractal");
               },
               "not valid UTF-8"},
        // Issue 15: a short row announcing a huge region is refused before the region is
        // allocated (it used to take 2 GB and seconds): L0B holds 64 KiB on a2 (spec 1).
        Broken{"region_past_capacity",
               [](std::string s) {
                 return replaceFirst(s, "\"L0B@0+512;IDX@0+128\"", "\"L0B@0+536870912;IDX@0+128\"");
               },
               "does not fit the 65536 bytes of L0B on this profile"},
        Broken{"gm_region_past_cap",
               [](std::string s) {
                 return replaceFirst(s, "\"L0B@0+512;IDX@0+128\"", "\"GM@0+4294967296\"");
               },
               "does not fit the 67108864 bytes of GM a vector row may use"},
        // Escape sequences and carriage returns in a text column never reach a terminal.
        Broken{"control_characters",
               [](std::string s) {
                 return replaceFirst(s, "one dense fractal", "one \x1b[2J\rverdict: CONFORMANT");
               },
               "column why: contains a control character"}),
    [](const auto& i) { return std::string(i.param.name); });

TEST(Vectors, CorruptedSidecarIsNamed) {
  const fs::path d = fresh("sidecar");
  const fs::path f = sample(d);
  for (const auto& e : fs::directory_iterator(d / "bin")) {
    std::string s = slurp(e.path());
    s[0] = static_cast<char>(s[0] ^ 1);
    spit(e.path(), s);
    break;
  }
  const ReadResult r = readFile(f);
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors[0].find("does not hash to its name"), std::string::npos) << r.errors[0];
}

// A row is checked against its case_id before a sidecar is read: a sidecar cannot cost anything
// for a row that is not the published one.
TEST(Vectors, TheCaseIdIsCheckedBeforeAnySidecarIsRead) {
  const fs::path d = fresh("case_id_first");
  const fs::path f = sample(d);
  fs::remove_all(d / "bin");
  std::string s = slurp(f);
  ASSERT_NE(s.find("=bin:", rowStart(s, 1)), std::string::npos);  // row 1 names a sidecar
  s[rowStart(s, 1) + 1] = s[rowStart(s, 1) + 1] == '0' ? '1' : '0';
  spit(f, s);
  const ReadResult r = readFile(f);
  ASSERT_FALSE(r.errors.empty());
  EXPECT_NE(r.errors[0].find(":3:1: column case_id"), std::string::npos) << r.errors[0];
}

/// A vector file of `rows` rows, each with `segments` L1 segments of `size` bytes naming a
/// sidecar that does not exist, and a case_id that matches nothing: a reader that read (or
/// allocated) a segment before refusing the row would say the sidecar is missing.
std::string rowsOfSegments(int rows, std::uint64_t segments, std::uint64_t size) {
  std::string segs;
  for (std::uint64_t i = 0; i < segments; ++i) {
    segs += (i ? ";" : "") + std::string("L1@0+") + std::to_string(size) + "=bin:00000000000000aa";
  }
  std::string out =
      "# cubecheck vectors format 1; test\ncase_id,family,profile,property,why,"
      "instructions,segments,observe,expected,footprint,dont_care,formats,policy\n";
  for (int i = 0; i < rows; ++i) {
    out +=
        "\"0123456789abcdef\",\"load2d\",\"a2\",\"MatchesOracle\",\"x\","
        "\"load2d GMtoA1 u8 0 0 0 1 1 0 0 0 0\",\"" +
        segs + "\",\"L1@0+32\",\"hex:" + std::string(64, '0') +
        "\",\"-\",\"-\",\"u8:A:0:512\",\"exact\"\n";
  }
  return out;
}

// A short row naming one sidecar many times declares more than the profile's memories hold: it
// is refused, with file, line and column, before any of it is allocated (it used to allocate
// every segment first and die of std::bad_alloc with no line).
TEST(Vectors, ARowDeclaringMoreThanTheMemoriesHoldIsRefusedBeforeReading) {
  const fs::path d = fresh("row_limit");
  const std::uint64_t l1 = isa::profile(isa::ProfileId::A2).capacityOf(isa::Memory::L1);
  const std::uint64_t fit = rowPartLimit(isa::ProfileId::A2) / l1;  // whole L1s in one row
  ASSERT_GT(fit, 1u);
  spit(d / "big.csv", rowsOfSegments(1, fit + 1, l1));
  ReadResult r = readFile(d / "big.csv");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find("big.csv:3:7: column segments: the row's segments declare " +
                             std::to_string((fit + 1) * l1) + " bytes, more than the " +
                             std::to_string(rowPartLimit(isa::ProfileId::A2))),
            std::string::npos)
      << r.errors[0];
  // As many as the memories hold pass this check (and fail on the case_id, before any sidecar).
  spit(d / "big.csv", rowsOfSegments(1, fit, l1));
  r = readFile(d / "big.csv");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find(":3:1: column case_id"), std::string::npos) << r.errors[0];
}

// Rows that each fit but together declare more than a file may stop the file: every row read is
// held until the file is done.
TEST(Vectors, AFileDeclaringMoreThanItsLimitIsNotReadPastIt) {
  const fs::path d = fresh("file_limit");
  const std::uint64_t l1 = isa::profile(isa::ProfileId::A2).capacityOf(isa::Memory::L1);
  const std::uint64_t perRow = rowPartLimit(isa::ProfileId::A2) / l1;
  const std::uint64_t rowBytes = perRow * l1 + 32 + 32;  // segments, observed, expected
  const auto fitting = static_cast<int>(fileImageLimit() / rowBytes);
  spit(d / "many.csv", rowsOfSegments(fitting + 3, perRow, l1));
  const ReadResult r = readFile(d / "many.csv");
  ASSERT_EQ(r.errors.size(), static_cast<std::size_t>(fitting) + 1) << r.errors.back();
  for (int i = 0; i < fitting; ++i) {
    EXPECT_NE(r.errors[static_cast<std::size_t>(i)].find("column case_id"), std::string::npos)
        << r.errors[static_cast<std::size_t>(i)];
  }
  EXPECT_NE(r.errors.back().find("many.csv:" + std::to_string(fitting + 3) + ":"),
            std::string::npos)
      << r.errors.back();
  EXPECT_NE(r.errors.back().find("the file's rows declare more than " +
                                 std::to_string(fileImageLimit()) + " bytes of images together"),
            std::string::npos)
      << r.errors.back();
  EXPECT_NE(r.errors.back().find("the rest of the file was not read"), std::string::npos);
}

// ---- The set as a whole: input errors are part of the result, the manifest guards the set. ----

/// A small set: load2d on a2 and on 950, with its manifest (as `vectors regen` writes it).
std::vector<fs::path> smallSet(const fs::path& dir) {
  static const std::vector<Generated> generated = [] {
    std::vector<Generated> out;
    for (Generated& g : generate(1, 1)) {
      if (g.family == "load2d" && (g.profile == "a2" || g.profile == "950"))
        out.push_back(std::move(g));
    }
    return out;
  }();
  std::vector<fs::path> files;
  for (const Generated& g : generated) {
    files.push_back(writeFile(dir, g.family, g.profile, g.rows, "test"));
  }
  writeManifest(dir, files);
  return files;
}

/// Data row n (1-based) of a vector file's text, without its newline.
std::string rowText(const std::string& s, int n) {
  const std::size_t at = rowStart(s, n);
  return s.substr(at, s.find('\n', at) - at);
}

/// Replaces data row n with `with` (empty: deletes the row).
std::string replaceRow(const std::string& s, int n, const std::string& with) {
  const std::size_t at = rowStart(s, n), next = s.find('\n', at) + 1;
  return s.substr(0, at) + (with.empty() ? "" : with + "\n") + s.substr(next);
}

struct Reports {
  CliRun run;
  nlohmann::json json;
  std::string md, html, junit;
};

Reports replay(const std::string& args, const fs::path& reportDir) {
  Reports r{runBinary(args + " --report-dir " + reportDir.string()), {}, {}, {}, {}};
  std::ifstream in(reportDir / "report.json");
  if (in) r.json = nlohmann::json::parse(in);
  r.md = slurp(reportDir / "report.md");
  r.html = slurp(reportDir / "report.html");
  r.junit = slurp(reportDir / "junit.xml");
  return r;
}

/// Every format says the run is no certificate and names `error`.
void expectInputError(const Reports& r, const std::string& error) {
  EXPECT_EQ(r.run.status, 1) << r.run.out;
  EXPECT_NE(r.json["verdict"], "conformant") << r.json["headline"];
  EXPECT_EQ(r.json["headline"].get<std::string>().find("CONFORMANT for"), std::string::npos)
      << r.json["headline"];
  bool named = false;
  for (const auto& e : r.json["input_errors"])
    named |= e.get<std::string>().find(error) != std::string::npos;
  EXPECT_TRUE(named) << error << " not in " << r.json["input_errors"];
  EXPECT_NE(r.md.find("Input errors"), std::string::npos);
  EXPECT_EQ(r.md.find("CONFORMANT for"), std::string::npos) << r.md.substr(0, 400);
  EXPECT_NE(r.html.find("Input errors"), std::string::npos);
  EXPECT_NE(r.junit.find("<failure message=\"input error"), std::string::npos) << r.junit;
  EXPECT_NE(r.run.out.find("INPUT ERROR"), std::string::npos) << r.run.out;
  // A replay whose other rows passed says it is incomplete, never that it passed.
  EXPECT_EQ(r.json["headline"].get<std::string>().find("REPLAY PASSED"), std::string::npos)
      << r.json["headline"];
}

// F1: a row whose case_id was edited is not replayed; it used to vanish from a CONFORMANT
// certificate. Now every report lists it and the run is not certified.
TEST(VectorSet, AnEditedCaseIdIsAnInputErrorInEveryReport) {
  const fs::path d = fresh("set_case_id");
  const fs::path f = smallSet(d).front();
  std::string s = slurp(f);
  s[rowStart(s, 2) + 1] = s[rowStart(s, 2) + 1] == '0' ? '1' : '0';
  spit(f, s);
  writeManifest(d, vectorFiles(d));  // only the row is wrong, not the set
  const Reports r = replay("vectors check --dut reference --dir " + d.string(), d / "report");
  expectInputError(r, f.string() + ":4:1: column case_id");
  EXPECT_EQ(r.json["scope"]["complete"], true);
}

// A --case naming no row replays nothing: an input error in every report, never a run that
// merely had nothing to do (which used to say "no case ran").
TEST(VectorSet, ACaseIdNamingNoRowIsAnInputError) {
  const fs::path d = fresh("set_no_such_case");
  smallSet(d);
  const Reports r =
      replay("vectors check --dut reference --dir " + d.string() + " --case 0123456789abcdef",
             d / "report");
  expectInputError(r, "--case 0123456789abcdef: no row of the replayed files has this case_id");
}

// F1: a line the CSV parser refuses mid-file is reported and the rows after it are read.
TEST(VectorSet, ABadLineMidFileIsReportedAndTheRestIsRead) {
  const fs::path d = fresh("set_bad_line");
  const fs::path good = sample(d);
  const std::size_t rows = readFile(good).rows.size();
  ASSERT_GE(rows, 4u);
  for (const std::string& bad : {std::string("\"x\",\"y\""), std::string("\"x\",\"y")}) {
    const std::string s = slurp(good);
    spit(d / "broken.csv", s.substr(0, rowStart(s, 2)) + bad + "\n" + s.substr(rowStart(s, 2)));
    const ReadResult r = readFile(d / "broken.csv");
    ASSERT_EQ(r.errors.size(), 1u) << bad;
    EXPECT_EQ(r.errors[0].find((d / "broken.csv").string() + ":4:"), 0u) << r.errors[0];
    EXPECT_TRUE(namesLineAndColumn(r.errors[0], (d / "broken.csv").string())) << r.errors[0];
    EXPECT_NE(r.errors[0].find("reading goes on with the next line"), std::string::npos);
    EXPECT_EQ(r.rows.size(), rows) << "every other row is read: " << bad;
  }
}

// F2: editing an expectation (not part of the case id), deleting a row, deleting a file or
// adding one are each named against the manifest.
/// `text` with every LF line end made CRLF.
std::string crlf(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
  return out;
}

TEST(VectorSet, TheManifestCatchesEditedDeletedAndUnlistedFiles) {
  struct Edit {
    const char* name;
    std::function<void(const std::vector<fs::path>&)> apply;
    const char* says;
  };
  const std::vector<Edit> edits{
      {"expected_zeroed",
       [](const std::vector<fs::path>& files) {
         // The first exact row's expected images zeroed (what a DUT that zeroes its output
         // would then match), written back as cubecheck writes: the case id is unchanged.
         ReadResult r = readFile(files[0]);
         const auto row = std::find_if(r.rows.begin(), r.rows.end(),
                                       [](const Row& x) { return x.c.expected.has_value(); });
         ASSERT_NE(row, r.rows.end());
         for (isa::Bytes& b : row->c.expected->regions) std::fill(b.begin(), b.end(), 0);
         writeFile(files[0].parent_path(), row->family, row->profile, r.rows, "test");
       },
       "(the file was edited)"},
      {"row_deleted",
       [](const std::vector<fs::path>& files) {
         spit(files[0], replaceRow(slurp(files[0]), 2, ""));
       },
       "rows; the manifest lists"},
      {"file_deleted", [](const std::vector<fs::path>& files) { fs::remove(files[1]); },
       "is listed but missing"},
      {"file_added",
       [](const std::vector<fs::path>& files) {
         fs::copy_file(files[0], files[0].parent_path() / "load2d.legacy.csv");
       },
       "not listed in"},
      // nu11 F13: a byte order mark made the provenance line the header and the header a row:
      // "has 66 rows; the manifest lists 65". The rows are counted as the reader reads them
      // (readFile names the mark itself); the bytes changed.
      {"byte_order_mark",
       [](const std::vector<fs::path>& files) { spit(files[0], "\xEF\xBB\xBF" + slurp(files[0])); },
       "(the file was edited)"},
      {"crlf_line_ends",
       [](const std::vector<fs::path>& files) { spit(files[0], crlf(slurp(files[0]))); },
       "(the file was edited)"},
  };
  for (const Edit& e : edits) {
    const fs::path d = fresh(std::string("set_") + e.name);
    const std::vector<fs::path> files = smallSet(d);
    const SetCheck before = checkSet(vectorFiles(d), true);
    EXPECT_TRUE(before.errors.empty()) << e.name << ": " << before.errors.front();
    EXPECT_TRUE(before.partial.empty()) << e.name;
    e.apply(files);
    const SetCheck after = checkSet(vectorFiles(d), true);
    ASSERT_EQ(after.errors.size(), 1u) << e.name;
    EXPECT_NE(after.errors[0].find(e.says), std::string::npos) << e.name << ": " << after.errors[0];
    EXPECT_EQ(after.digest, before.digest) << "the manifest itself did not change";
  }
}

// nu11 F13, as docs/vectors.md says: a vector file with CRLF line ends is read as with LF, its
// rows all there, and the manifest, CRLF or not, names each converted file as edited (its bytes
// changed): with a CRLF manifest every file read as "not listed" and "listed but missing".
TEST(VectorSet, CrlfLineEndsReplayAndTheManifestNamesEachConvertedFile) {
  const fs::path d = fresh("set_crlf");
  const std::vector<fs::path> files = smallSet(d);
  const ReadResult lf = readFile(files[0]);
  const SetCheck before = checkSet(vectorFiles(d), true);
  ASSERT_TRUE(before.errors.empty());
  spit(files[0], crlf(slurp(files[0])));
  spit(d / kManifestName, crlf(slurp(d / kManifestName)));
  const ReadResult read = readFile(files[0]);
  EXPECT_TRUE(read.errors.empty()) << read.errors.front();
  ASSERT_EQ(read.rows.size(), lf.rows.size());
  for (std::size_t i = 0; i < lf.rows.size(); ++i)
    EXPECT_EQ(read.rows[i].caseId, lf.rows[i].caseId);
  const SetCheck after = checkSet(vectorFiles(d), true);
  ASSERT_EQ(after.errors.size(), 1u) << after.errors.front();
  EXPECT_NE(after.errors[0].find(files[0].filename().string() + " hashes to "), std::string::npos)
      << after.errors[0];
  EXPECT_NE(after.errors[0].find("(the file was edited)"), std::string::npos);
  EXPECT_NE(after.digest, before.digest) << "the manifest's bytes changed";
}

// F2 end to end: the mutant's failing rows deleted used to give CONFORMANT, exit 0.
TEST(VectorSet, DeletedFailingRowsDoNotMakeAMutantConformant) {
  const fs::path d = fresh("set_deleted_rows");
  const fs::path f = smallSet(d).front();  // load2d.950.csv
  fs::remove(d / "load2d.950.csv");
  writeManifest(d, vectorFiles(d));
  const std::string mutant = "--dut mutant:load2d-dst-gap-ignored --dir " + d.string();
  Reports r = replay("vectors check " + mutant, d / "r1");
  ASSERT_EQ(r.run.status, 1) << r.run.out;
  std::string s = slurp(d / "load2d.a2.csv");
  std::set<std::string> failing;
  for (const auto& x : r.json["families"][0]["failures"]) failing.insert(x["case_id"]);
  ASSERT_FALSE(failing.empty());
  for (int n = 1; rowStart(s, n) < s.size();) {
    if (failing.count(rowText(s, n).substr(1, 16)) != 0) {
      s = replaceRow(s, n, "");
    } else {
      ++n;
    }
  }
  spit(d / "load2d.a2.csv", s);
  r = replay("vectors check " + mutant, d / "r2");
  expectInputError(r, "rows added or deleted");
  EXPECT_EQ(r.json["families"][0]["failures"].size(), 0u) << "the failing rows are gone";
  (void)f;
}

// F2: no manifest, or some of a set's files: replayed, but a partial run, never a certificate.
TEST(VectorSet, WithoutAManifestOrWithPartOfASetTheRunIsPartial) {
  const fs::path d = fresh("set_partial");
  const std::vector<fs::path> files = smallSet(d);
  const SetCheck some = checkSet({files[0]}, false);
  EXPECT_TRUE(some.errors.empty());
  ASSERT_EQ(some.partial.size(), 1u);
  EXPECT_NE(some.partial[0].find("1 of 2 files of the set"), std::string::npos) << some.partial[0];
  // A file the manifest does not list is no file of the set: it is not counted as one.
  const fs::path stray = d / "stray.a2.csv";
  fs::copy_file(files[0], stray);
  const SetCheck withStray = checkSet({files[0], stray}, false);
  ASSERT_EQ(withStray.partial.size(), 1u);
  EXPECT_NE(withStray.partial[0].find("1 of 2 files of the set"), std::string::npos)
      << withStray.partial[0];
  fs::remove(stray);
  fs::remove(d / kManifestName);
  const Reports r = replay("vectors check --dut reference --dir " + d.string(), d / "report");
  EXPECT_EQ(r.run.status, 0) << r.run.out;
  EXPECT_EQ(r.json["scope"]["complete"], false);
  EXPECT_NE(r.json["headline"].get<std::string>().find("PARTIAL RUN (no manifest in"),
            std::string::npos)
      << r.json["headline"];
  EXPECT_EQ(r.json["vector_set"]["digest"], "");
  EXPECT_NE(r.md.find("no manifest: nothing says the set is whole"), std::string::npos);
  EXPECT_EQ(r.md.find("cubecheck certificate"), std::string::npos);
}

// A CI gate that passes the published digest fails when the set replayed is not that set: a
// file and the manifest deleted together (a partial run, which alone exits 0), or a manifest
// rewritten over an edited set. The published set itself passes, its digest in either case.
TEST(VectorSet, ExpectDigestFailsOnAnyOtherSet) {
  const fs::path d = fresh("set_expect_digest");
  const std::vector<fs::path> files = smallSet(d);
  const std::string manifest = slurp(d / kManifestName);
  const std::string digest = contentHash(manifest.data(), manifest.size());
  std::string upper = digest;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  const std::string check = "vectors check --dut reference --dir " + d.string();
  Reports r = replay(check + " --expect-digest " + upper, d / "r1");
  EXPECT_EQ(r.run.status, 0) << r.run.out;
  EXPECT_EQ(r.json["verdict"], "conformant") << r.json["headline"];
  fs::remove(files[0]);
  writeManifest(d, vectorFiles(d));  // a consistent set, but another one
  r = replay(check + " --expect-digest " + digest, d / "r2");
  expectInputError(r, "--expect-digest " + digest + ": the set replayed has digest");
  fs::remove(d / kManifestName);
  r = replay(check, d / "r3");
  EXPECT_EQ(r.run.status, 0) << "without the option a partial run exits by what ran";
  r = replay(check + " --expect-digest " + digest, d / "r4");
  expectInputError(r, "no manifest, so no digest");
}

// F2: a whole set's report names its digest and every profile, the same in every format, and no
// level or seed (a replay has neither).
TEST(VectorSet, AReportNamesTheDigestAndEveryProfileAlike) {
  const fs::path d = fresh("set_profiles");
  smallSet(d);
  const std::string manifest = slurp(d / kManifestName);
  const std::string digest = contentHash(manifest.data(), manifest.size());
  const Reports r = replay("vectors check --dut reference --dir " + d.string(), d / "report");
  EXPECT_EQ(r.run.status, 0) << r.run.out;
  EXPECT_EQ(r.json["verdict"], "conformant");
  EXPECT_EQ(r.json["scope"]["complete"], true);
  EXPECT_EQ(r.json["vector_set"]["digest"], digest);
  EXPECT_EQ(r.json["profiles"], nlohmann::json::array({"950", "a2"}));
  EXPECT_FALSE(r.json.contains("level"));
  EXPECT_FALSE(r.json.contains("seed"));
  EXPECT_NE(r.md.find("profiles 950, a2"), std::string::npos);
  EXPECT_NE(r.md.find("digest " + digest), std::string::npos);
  EXPECT_EQ(r.md.find("seed"), std::string::npos);
  EXPECT_NE(r.junit.find("cubecheck reference 950, a2"), std::string::npos)
      << r.junit.substr(0, 300);
  EXPECT_NE(r.run.out.find("profiles 950, a2"), std::string::npos);
}

// F2: a row twice in a set, and a file without its provenance line, are input errors.
TEST(VectorSet, ADuplicatedRowAndAMissingProvenanceAreInputErrors) {
  const fs::path d = fresh("set_duplicate");
  const fs::path f = smallSet(d).back();
  std::string s = slurp(f);
  spit(f, s + rowText(s, 1) + "\n");
  writeManifest(d, vectorFiles(d));
  Reports r = replay("vectors check --dut reference --dir " + d.string(), d / "r1");
  expectInputError(r, "a duplicated row");
  spit(f, s.substr(s.find('\n') + 1));
  writeManifest(d, vectorFiles(d));
  r = replay("vectors check --dut reference --dir " + d.string(), d / "r2");
  expectInputError(r, ":1:1: no provenance line");
}

// F1, F8: in a results file, a case id no vector file has, or two results for one case (an
// error then an ok used to certify), are input errors.
TEST(VectorSet, VerifyReportsUnknownAndDuplicatedResults) {
  const fs::path d = fresh("set_verify");
  const std::vector<fs::path> files = smallSet(d);
  const std::vector<std::pair<std::string, Recorded>> results = boardResults(files);
  const std::string verify = "vectors verify --dir " + d.string() + " --results ";
  const fs::path res = fresh("set_verify_results");  // a results file is no vector file of the set
  writeResults(res / "good.csv", results);
  Reports r = replay(verify + (res / "good.csv").string(), res / "r0");
  ASSERT_EQ(r.run.status, 0) << r.run.out;
  auto unknown = results;
  unknown.emplace_back("0123456789abcdef", Recorded{"error:not in the set", {}});
  writeResults(res / "unknown.csv", unknown);
  r = replay(verify + (res / "unknown.csv").string(), res / "r1");
  expectInputError(r, "case_id 0123456789abcdef is in no vector file");
  auto twice = results;
  const auto ok = std::find_if(twice.begin(), twice.end(),
                               [](const auto& kv) { return kv.second.status == "ok"; });
  ASSERT_NE(ok, twice.end());
  twice.insert(ok, {ok->first, Recorded{"error:board crashed", {}}});
  writeResults(res / "twice.csv", twice);
  r = replay(verify + (res / "twice.csv").string(), res / "r2");
  expectInputError(r, "has a second result");
  // One file of the set named: the other file's results are set aside, a partial run, exit 0;
  // an id of no file of the set is still an input error.
  const std::string one = "vectors verify " + files[0].string() + " --results ";
  r = replay(one + (res / "good.csv").string(), res / "r3");
  EXPECT_EQ(r.run.status, 0) << r.run.out;
  EXPECT_EQ(r.json["input_errors"].size(), 0u) << r.json["input_errors"];
  EXPECT_EQ(r.json["report_kind"], "partial_run");
  r = replay(one + (res / "unknown.csv").string(), res / "r4");
  expectInputError(r, "case_id 0123456789abcdef is in no vector file");
  EXPECT_EQ(r.json["input_errors"].size(), 1u) << r.json["input_errors"];
}

// A verify certificate is judged against expectations published with the set: every format a
// person or a tool reads says so, and that it rests on the results being the board's own.
TEST(VectorSet, VerifySaysItsExpectationsArePublished) {
  const fs::path d = fresh("set_published");
  const std::vector<fs::path> files = smallSet(d);
  const fs::path res = fresh("set_published_results");
  writeResults(res / "good.csv", boardResults(files));
  const Reports r =
      replay("vectors verify --dir " + d.string() + " --results " + (res / "good.csv").string(),
             res / "r");
  ASSERT_EQ(r.run.status, 0) << r.run.out;
  ASSERT_EQ(r.json["report_kind"], "certificate");
  const std::string says = "published with the vector set";
  const std::string restsOn = "rests on the results file being what the board computed";
  const std::string json = r.json["vector_set"].value("expectations", "");
  EXPECT_NE(json.find(says), std::string::npos) << r.json["vector_set"];
  EXPECT_NE(json.find(restsOn), std::string::npos) << json;
  for (const std::string& text : {r.md, r.html}) {
    EXPECT_NE(text.find("Expectations"), std::string::npos) << text.substr(0, 2000);
    EXPECT_NE(text.find(says), std::string::npos) << text.substr(0, 2000);
    EXPECT_NE(text.find(restsOn), std::string::npos) << text.substr(0, 2000);
  }
  // New user (round 10): "Determinism: 0 case(s) run twice more and compared ... 0 answered
  // differently" read as a check that passed, where a replay runs nothing again.
  EXPECT_NE(r.md.find("not checked: the results file holds one answer per case"),
            std::string::npos);
  // ... and the certificate names the results file by its bytes, not only its path.
  EXPECT_EQ(r.json["dut_capabilities"]["version"],
            "results file SHA-256 " + conf::sha256Hex(slurp(res / "good.csv")));
  EXPECT_EQ(r.md.find("run twice more"), std::string::npos);
  // A replay says it is none in its own words, not this certificate's.
  const Reports c = replay("vectors check --dut reference --dir " + d.string(), res / "c");
  EXPECT_FALSE(c.json["vector_set"].contains("expectations")) << c.json["vector_set"];
  EXPECT_NE(c.md.find("not checked: a replay runs each row once"), std::string::npos);
}

// A results file is read as a vector file is: a line that is no row (a NUL byte, a quote not
// closed) is named with its line and column and the lines after it are read (they used to be
// dropped: "the rest of the file was not read"), and a file without its header names line 1
// and the columns it should have.
TEST(VectorSet, AResultsFileNamesTheLineAndColumnOfEachBadLine) {
  const fs::path d = fresh("results_lines");
  const std::map<std::string, std::vector<std::uint64_t>> sizes{{"aaaa", {}}, {"bbbb", {}}};
  const fs::path res = d / "results.csv";
  const std::string aaaa = "\"aaaa\",\"rejected:Capacity\",\"\"\n";
  const std::string bbbb = "\"bbbb\",\"rejected:Capacity\",\"\"\n";
  spit(res, "case_id,status,observed\n" + aaaa + std::string("\"bb\0b\",\"ok\",\"\"\n", 15) +
                "\"cc\",\"ok\n" + bbbb);
  ResultsRead r = readResults(res, sizes);
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_NE(
      r.errors[0].find(res.string() + ":3:1: column case_id: a NUL byte (byte 4 of the line)"),
      std::string::npos)
      << r.errors[0];
  EXPECT_NE(r.errors[1].find(res.string() +
                             ":4:2: column status: the quote at byte 6 of the line is not closed"),
            std::string::npos)
      << r.errors[1];
  EXPECT_EQ(r.byCase.count("aaaa"), 1u);
  EXPECT_EQ(r.byCase.count("bbbb"), 1u) << "the line after the bad ones is read";
  spit(res, aaaa + bbbb);
  r = readResults(res, sizes);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].find(res.string() +
                             ":1:1: the header is missing or wrong: line 1 should name the columns "
                             "case_id,status,observed (3 columns); field 1 is \"aaaa\""),
            std::string::npos)
      << r.errors[0];
}

// A results file and a manifest saved with a UTF-8 byte order mark are named, as a vector
// file's is (the CSV reader skipped it silently); the results' rows are still read.
TEST(VectorSet, AByteOrderMarkInAResultsFileOrAManifestIsNamed) {
  const fs::path d = fresh("results_bom");
  const std::map<std::string, std::vector<std::uint64_t>> sizes{{"aaaa", {}}};
  const fs::path res = d / "results.csv";
  const std::string text = "case_id,status,observed\n\"aaaa\",\"rejected:Capacity\",\"\"\n";
  spit(res, text);
  EXPECT_TRUE(readResults(res, sizes).errors.empty());
  spit(res, "\xEF\xBB\xBF" + text);
  const ResultsRead r = readResults(res, sizes);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].rfind(res.string() +
                                  ":1:1: the file starts with a UTF-8 byte order mark (bytes EF "
                                  "BB BF)",
                              0),
            0u)
      << r.errors[0];
  EXPECT_EQ(r.byCase.count("aaaa"), 1u) << "the rows are still read";

  const fs::path set = fresh("manifest_bom");
  const std::vector<fs::path> files = smallSet(set);
  const fs::path manifest = set / kManifestName;
  EXPECT_TRUE(checkSet(files, true).errors.empty());
  spit(manifest, "\xEF\xBB\xBF" + slurp(manifest));
  const SetCheck c = checkSet(files, true);
  ASSERT_EQ(c.errors.size(), 1u);
  EXPECT_NE(c.errors[0].find("vectors.manifest:1:1: the file starts with a UTF-8 byte order mark"),
            std::string::npos)
      << c.errors[0];
}

// A malformed image in a results file names its column and the character at fault, as in a
// vector file: it read "FILE:2:3: region 0: bad hex digit at offset 0".
TEST(VectorSet, AResultsFileNamesABadHexDigitAndItsColumn) {
  const fs::path d = fresh("results_hex");
  const std::map<std::string, std::vector<std::uint64_t>> sizes{{"aaaa", {2}}, {"bbbb", {2}}};
  const fs::path res = d / "results.csv";
  spit(res, "case_id,status,observed\n\"aaaa\",\"ok\",\"hex:0g00\"\n\"bbbb\",\"bad\",\"\"\n");
  const ResultsRead r = readResults(res, sizes);
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_NE(r.errors[0].find(res.string() +
                             ":2:3: column observed: region 0: bad hex digit 'g' at offset 1"),
            std::string::npos)
      << r.errors[0];
  EXPECT_NE(r.errors[1].find(res.string() + ":3:2: column status: status must be ok"),
            std::string::npos)
      << r.errors[1];
}

// A results file says what a board answered, not what it supports: vectors verify claims no
// envelope for it. Every format says the envelope was not declared and why, none says "certified
// within" or lists capabilities as if declared, and merge-reports reads the report back as it
// is. A replay against a DUT that declares its envelope (vectors check) still prints it.
TEST(VectorSet, VerifyClaimsNoEnvelopeTheResultsDidNotDeclare) {
  const fs::path d = fresh("set_envelope");
  const std::vector<fs::path> files = smallSet(d);
  const fs::path res = fresh("set_envelope_results");
  writeResults(res / "good.csv", boardResults(files));
  Reports r =
      replay("vectors verify --dir " + d.string() + " --results " + (res / "good.csv").string(),
             res / "r");
  ASSERT_EQ(r.run.status, 0) << r.run.out;
  const nlohmann::json& envelope = r.json["envelope"];
  EXPECT_EQ(envelope["declared"], false) << envelope;
  EXPECT_FALSE(envelope.contains("certified_within")) << envelope;
  const std::string why = envelope.value("not_declared", "");
  EXPECT_NE(why.find("results of a board run"), std::string::npos) << envelope;
  EXPECT_NE(why.find("good.csv"), std::string::npos) << "names the results file: " << why;
  for (const char* list : {"profiles", "instructions", "dtypes", "observable", "given"}) {
    EXPECT_FALSE(r.json["dut_capabilities"].contains(list)) << list << " written as declared";
  }
  for (const auto& [name, text] : {std::pair<std::string, std::string>{"terminal", r.run.out},
                                   {"report.md", r.md},
                                   {"report.html", r.html}}) {
    EXPECT_EQ(text.find("ertified within"), std::string::npos) << name;
    EXPECT_NE(text.find("nvelope: not declared: results of a board run"), std::string::npos)
        << name << ":\n"
        << text.substr(0, 1500);
  }
  const CliRun merged = runBinary("merge-reports --out " + (res / "merged.json").string() + " " +
                                  (res / "r" / "report.json").string());
  ASSERT_EQ(merged.status, 0) << merged.out;
  std::ifstream in(res / "merged.json");
  const nlohmann::json m = nlohmann::json::parse(in);
  EXPECT_EQ(m["envelope"], envelope) << "read back as written";
  EXPECT_EQ(m["dut_capabilities"], r.json["dut_capabilities"]);

  const Reports declared = replay("vectors check --dut reference --dir " + d.string(), res / "c");
  ASSERT_EQ(declared.run.status, 0) << declared.run.out;
  EXPECT_EQ(declared.json["envelope"]["declared"], true);
  // A replay of the published expectations certifies nothing (a DUT that reads them passes):
  // the DUT's declarations are what it declares, and no profile is certified.
  EXPECT_NE(declared.md.find("DUT declares (envelope): profiles"), std::string::npos);
  EXPECT_EQ(declared.md.find("Profile certified"), std::string::npos);
  EXPECT_EQ(declared.json["report_kind"], "replay");
}

// A DUT that reads the set's published expectations and answers with them passes every row, so
// `vectors check` is a regression check: every format says so, none calls it a certificate, and
// each file's family still says what certify says of it (open points, provisional, claims).
TEST(VectorSet, CheckIsAReplayNeverACertificate) {
  const std::string out = test::freshDir("replay_kind").string();
  const CliRun run =
      runBinary("vectors check --dut reference --dir " + std::string(CUBECHECK_SOURCE_DIR) +
                "/vectors/golden --report-dir " + out);
  ASSERT_EQ(run.status, 0) << run.out;
  EXPECT_NE(run.out.find("verdict: REPLAY PASSED in "), std::string::npos) << run.out;
  EXPECT_EQ(run.out.find("certificate: "), std::string::npos) << run.out;
  std::ifstream in(out + "/report.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  EXPECT_EQ(j["report_kind"], "replay");
  std::ifstream mdIn(out + "/report.md");
  const std::string md((std::istreambuf_iterator<char>(mdIn)), std::istreambuf_iterator<char>());
  EXPECT_EQ(md.rfind("# cubecheck replay (not a certificate): REPLAY PASSED", 0), 0u) << md;
  EXPECT_EQ(md.find("CONFORMANT"), std::string::npos) << md.substr(0, 2000);
  EXPECT_EQ(md.find("cubecheck certificate"), std::string::npos);
  // What certify says of each file's family, from the family itself.
  for (const auto& f : j["families"]) {
    const std::string file = f["name"];
    const std::string family = file.substr(0, file.find('.'));
    const std::string profile =
        file.substr(file.find('.') + 1, file.rfind('.') - file.find('.') - 1);
    const auto desc = conf::makeFamily(family, *isa::parseProfile(profile), gen::Sizes::Mixed);
    ASSERT_TRUE(desc.has_value()) << file;
    EXPECT_EQ(f["open_points"].get<std::vector<std::string>>(), desc->openPoints) << file;
    EXPECT_EQ(f.value("provisional", std::string()), desc->provisional) << file;
    for (const auto& p : f["properties"]) {
      const auto prop = std::find_if(desc->properties.begin(), desc->properties.end(),
                                     [&](const auto& q) { return q->name() == p["name"]; });
      ASSERT_NE(prop, desc->properties.end()) << file << " " << p["name"];
      EXPECT_EQ(p["summary"], (*prop)->summary()) << file;
    }
  }
  std::filesystem::remove_all(out);
}

// H1: an export reads a set and writes a new one, so it checks its source as `vectors check
// --dir` does. A set that is not the one its manifest lists, or whose rows do not all read, is
// refused (exit 2, the error named, nothing written); it used to come back as a new set, whole
// by its own manifest, and verify called a replay of that a complete run.
TEST(VectorSet, ExportsRefuseASourceThatIsNotThePublishedSet) {
  struct Damage {
    const char* name;
    std::function<void(const fs::path&, const std::vector<fs::path>&)> apply;
    const char* says;
  };
  const std::vector<Damage> damages{
      {"row_deleted",
       [](const fs::path&, const std::vector<fs::path>& files) {
         spit(files[0], replaceRow(slurp(files[0]), 2, ""));
       },
       "rows; the manifest lists"},
      {"sidecar_missing",
       [](const fs::path& d, const std::vector<fs::path>&) {
         ASSERT_TRUE(fs::exists(d / "bin"));
         fs::remove(fs::directory_iterator(d / "bin")->path());
       },
       "is missing"},
      {"every_row_bad_no_manifest",
       [](const fs::path& d, const std::vector<fs::path>& files) {
         fs::remove(d / kManifestName);
         for (const fs::path& f : files) {
           std::string s = slurp(f);
           for (int n = 1; rowStart(s, n) != 0 && rowStart(s, n) < s.size(); ++n) {
             char& c = s[rowStart(s, n) + 1];
             c = c == '0' ? '1' : '0';
           }
           spit(f, s);
         }
       },
       "does not match the row's inputs"},
  };
  for (const Damage& dmg : damages) {
    for (const char* command : {"vectors export", "vectors export-ascendc"}) {
      const fs::path d = fresh(std::string("export_src_") + dmg.name);
      dmg.apply(d, smallSet(d));
      const fs::path out = d / "out";
      const CliRun r =
          runBinary(std::string(command) + " --dir " + d.string() + " --out " + out.string());
      EXPECT_EQ(r.status, 2) << dmg.name << ", " << command << "\n" << r.out;
      EXPECT_NE(r.out.find(dmg.says), std::string::npos) << dmg.name << ", " << command << "\n"
                                                         << r.out;
      EXPECT_NE(r.out.find("nothing written"), std::string::npos) << r.out;
      EXPECT_FALSE(fs::exists(out)) << dmg.name << ", " << command << ": wrote " << out;
    }
  }
}

// H1: an export names the digest of the set it read and of the set it wrote, and carries the
// source's into its manifest (and the board project's README), so a signer compares it with the
// published one. A source without a manifest is exported as UNVERIFIED and its export gets no
// manifest: a replay of it is partial.
TEST(VectorSet, AnExportCarriesItsSourceDigestAndAnUnverifiedOneStaysPartial) {
  const fs::path d = fresh("export_digest");
  smallSet(d);
  const std::string m = slurp(d / kManifestName), source = contentHash(m.data(), m.size());
  const fs::path board = d / "board", inputs = d / "inputs";
  const auto digestOf = [](const fs::path& manifest) {
    const std::string text = slurp(manifest);
    return contentHash(text.data(), text.size());
  };

  CliRun r = runBinary("vectors export-ascendc --dir " + d.string() + " --out " + board.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("Source: the vector set of digest " + source), std::string::npos) << r.out;
  for (const char* profile : {"a2", "950"}) {
    const fs::path manifest = board / "vectors" / profile / kManifestName;
    ASSERT_TRUE(fs::exists(manifest)) << manifest;
    EXPECT_NE(slurp(manifest).find("digest " + source), std::string::npos) << slurp(manifest);
    EXPECT_NE(r.out.find(std::string("vectors/") + profile + "/ digest " + digestOf(manifest)),
              std::string::npos)
        << r.out;
  }
  EXPECT_NE(slurp(board / "README.md").find("digest " + source), std::string::npos);
  Reports v = replay("vectors check --dut reference --dir " + (board / "vectors" / "a2").string(),
                     d / "r_board");
  EXPECT_EQ(v.json["scope"]["complete"], true) << v.run.out;

  r = runBinary("vectors export --dir " + d.string() + " --out " + inputs.string());
  ASSERT_EQ(r.status, 0) << r.out;
  ASSERT_TRUE(fs::exists(inputs / kManifestName));
  EXPECT_NE(slurp(inputs / kManifestName).find("digest " + source), std::string::npos);
  EXPECT_NE(r.out.find("digest " + source), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exported set digest " + digestOf(inputs / kManifestName)),
            std::string::npos)
      << r.out;

  // The same files, their manifest gone; exported anew (an --out in use is refused).
  fs::remove(d / kManifestName);
  fs::remove_all(board);
  fs::remove_all(inputs);
  r = runBinary("vectors export-ascendc --dir " + d.string() + " --out " + board.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("UNVERIFIED"), std::string::npos) << r.out;
  EXPECT_NE(slurp(board / "README.md").find("UNVERIFIED"), std::string::npos);
  for (const char* profile : {"a2", "950"}) {
    EXPECT_FALSE(fs::exists(board / "vectors" / profile / kManifestName)) << profile;
  }
  v = replay("vectors check --dut reference --dir " + (board / "vectors" / "a2").string(),
             d / "r_unverified");
  EXPECT_EQ(v.run.status, 0) << v.run.out;
  EXPECT_EQ(v.json["scope"]["complete"], false) << v.run.out;
  r = runBinary("vectors export --dir " + d.string() + " --out " + inputs.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("UNVERIFIED"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(inputs / kManifestName));
}

// Review: an export into the --out of an earlier one left that one's files beside the new ones
// (vector files and manifests of other profiles, cases/, a board's results in out/), and a verify
// of the project then failed in ways that named none of it. An --out that holds anything is
// refused, naming what it holds, and nothing in it is touched; an empty one is used.
TEST(VectorSet, AnExportIntoADirectoryInUseIsRefusedAndTouchesNothing) {
  const fs::path d = fresh("export_reuse");
  smallSet(d);
  for (const std::string command : {"vectors export", "vectors export-ascendc"}) {
    const fs::path out = d / "out-dir";
    fs::remove_all(out);
    fs::create_directories(out);  // empty: used
    CliRun r = runBinary(command + " --dir " + d.string() + " --out " + out.string());
    ASSERT_EQ(r.status, 0) << command << "\n" << r.out;
    std::map<fs::path, std::string> before;
    fs::create_directories(out / "out");
    spit(out / "out" / "results-a2.csv", "case_id,status,observed\n");
    for (const auto& e : fs::recursive_directory_iterator(out)) {
      if (e.is_regular_file()) before[e.path()] = slurp(e.path());
    }
    r = runBinary(command + " --dir " + d.string() + " --out " + out.string());
    EXPECT_EQ(r.status, 2) << command << "\n" << r.out;
    EXPECT_NE(r.out.find("--out " + out.string() + " already holds"), std::string::npos)
        << command << "\n"
        << r.out;
    EXPECT_NE(r.out.find("out/ may hold a board's results"), std::string::npos) << r.out;
    std::map<fs::path, std::string> after;
    for (const auto& e : fs::recursive_directory_iterator(out)) {
      if (e.is_regular_file()) after[e.path()] = slurp(e.path());
    }
    EXPECT_EQ(after, before) << command << ": a refused export changed its --out";
  }
}

// Red team (round 8): a board export leaves cases out (SKIPPED.md), yet `vectors verify` on it
// said "Scope: complete run" and named only the exported set's digest, so a certificate of part of
// a set read as one of all of it. The export's manifest now says what it was made from and how
// much of it went in; the report names the source's digest and, when only part went in, the
// subset, in its headline and scope. An inputs export (no expectations) is no set to replay.
TEST(VectorSet, AReplayOfAnExportNamesItsSourceAndTheSubsetItHolds) {
  const fs::path d = fresh("export_subset");
  smallSet(d);
  const std::string m = slurp(d / kManifestName), source = contentHash(m.data(), m.size());
  std::size_t a2Rows = 0;
  for (const fs::path& f : vectorFiles(d)) {
    if (f.filename().string().find(".a2.") != std::string::npos) a2Rows += readFile(f).rows.size();
  }
  const fs::path board = d / "board";
  CliRun r = runBinary("vectors export-ascendc --profile a2 --dir " + d.string() + " --out " +
                       board.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const fs::path set = board / "vectors" / "a2";
  std::size_t kept = 0;
  for (const fs::path& f : vectorFiles(set)) kept += readFile(f).rows.size();
  ASSERT_LT(kept, a2Rows) << "the export leaves the illegal (rejection) cases out";
  const std::optional<ExportSource> note = [&]() -> std::optional<ExportSource> {
    std::istringstream in(slurp(set / kManifestName));
    for (std::string line; std::getline(in, line);) {
      if (line.starts_with("# ")) {
        if (auto n = parseExportNote(line.substr(2))) return n;
      }
    }
    return std::nullopt;
  }();
  ASSERT_TRUE(note.has_value()) << slurp(set / kManifestName);
  EXPECT_EQ(note->kind, "export-ascendc");
  EXPECT_EQ(note->digest, source);
  EXPECT_EQ(note->kept, kept);
  EXPECT_EQ(note->total, a2Rows);

  const Reports v = replay("vectors check --dut reference --dir " + set.string(), d / "r_subset");
  EXPECT_EQ(v.run.status, 0) << v.run.out;
  EXPECT_EQ(v.json["vector_set"]["source_digest"], source) << v.json["vector_set"];
  const std::string part =
      std::to_string(kept) + " of its " + std::to_string(a2Rows) + " cases of the profile";
  EXPECT_NE(v.json["vector_set"]["subset"].get<std::string>().find(part), std::string::npos)
      << v.json["vector_set"];
  EXPECT_NE(v.md.find("is an export-ascendc of the vector set of digest " + source + ": " + part),
            std::string::npos)
      << v.md;  // (the path before it is escaped for markdown)
  EXPECT_NE(v.md.find("says it was exported from the vector set of digest " + source +
                      ", which is not checked here"),
            std::string::npos);

  // An export by an earlier cubecheck (a note without K and N) is taken for a part of its source;
  // a note claiming more cases than the source has is an edited manifest.
  const std::string manifest = slurp(set / kManifestName);
  const std::string counted =
      ": " + std::to_string(kept) + " of its " + std::to_string(a2Rows) + " cases";
  ASSERT_NE(manifest.find(counted), std::string::npos) << manifest;
  std::string legacy = manifest;
  legacy.erase(legacy.find(counted), counted.size());
  spit(set / kManifestName, legacy);
  const Reports old = replay("vectors check --dut reference --dir " + set.string(), d / "r_old");
  EXPECT_EQ(old.run.status, 0) << old.run.out;
  EXPECT_NE(old.json["vector_set"]["subset"].get<std::string>().find("is not recorded"),
            std::string::npos)
      << old.json["vector_set"];
  std::string inflated = manifest;
  inflated.replace(
      inflated.find(counted), counted.size(),
      ": " + std::to_string(a2Rows + 1) + " of its " + std::to_string(a2Rows) + " cases");
  spit(set / kManifestName, inflated);
  expectInputError(replay("vectors check --dut reference --dir " + set.string(), d / "r_more"),
                   "cases, more than the set has: the manifest was edited");

  // The whole of a profile exported is no subset, and still names its source.
  const fs::path whole = fresh("export_whole");
  const Reports w = replay("vectors check --dut reference --dir " + d.string(), whole / "r");
  EXPECT_FALSE(w.json["vector_set"].contains("subset"));
  EXPECT_FALSE(w.json["vector_set"].contains("source_digest"));

  const fs::path inputs = d / "inputs";
  r = runBinary("vectors export --dir " + d.string() + " --out " + inputs.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const Reports in = replay("vectors check --dut reference --dir " + inputs.string(), d / "r_in");
  expectInputError(in, (inputs / kManifestName).string() + ":2:3: " + inputs.string() +
                           " is an inputs export of the vector set of digest " + source);
}

// Review: a 950 board runs a case whose initial L0C it cannot write as a variant, a program of
// its own. The export's note counted those among the source's cases that went in, so an export
// leaving nothing else out would have read "N of its N". K now counts the cases exported as they
// are, and SKIPPED.md names each variant beside the case it replaces.
TEST(VectorSet, AnExportDoesNotCountBoardVariantsAsTheSourcesCases) {
  const fs::path d = fresh("export_variants");
  std::size_t sourceRows = 0;
  std::vector<fs::path> files;
  for (const Generated& g : generate(1, 0)) {
    if (g.family != "mmad" || g.profile != "950") continue;
    files.push_back(writeFile(d, g.family, g.profile, g.rows, "test"));
    sourceRows += g.rows.size();
  }
  ASSERT_EQ(files.size(), 1u);
  const std::string source = writeManifest(d, files);
  const fs::path board = d / "board";
  const CliRun r = runBinary("vectors export-ascendc --profile 950 --dir " + d.string() +
                             " --out " + board.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const fs::path set = board / "vectors" / "950";
  std::size_t rows = 0;
  std::vector<std::string> variants;
  for (const fs::path& f : vectorFiles(set)) {
    for (const Row& row : readFile(f).rows) {
      ++rows;
      if (row.why.find("[board variant of ") != std::string::npos) variants.push_back(row.caseId);
    }
  }
  ASSERT_FALSE(variants.empty()) << "the 950 Mmad boundary cases hold unwritable L0C words";
  std::optional<ExportSource> note;
  std::istringstream in(slurp(set / kManifestName));
  for (std::string line; std::getline(in, line) && !note;) {
    if (line.starts_with("# ")) note = parseExportNote(line.substr(2));
  }
  ASSERT_TRUE(note.has_value()) << slurp(set / kManifestName);
  EXPECT_EQ(note->digest, source);
  EXPECT_EQ(note->total, sourceRows);
  EXPECT_EQ(note->kept, rows - variants.size());
  const std::string skipped = slurp(board / "SKIPPED.md");
  ASSERT_NE(skipped.find("# Cases run as board variants"), std::string::npos) << skipped;
  for (const std::string& id : variants) EXPECT_NE(skipped.find(id), std::string::npos) << id;
  const Reports v = replay("vectors check --dut reference --dir " + set.string(), d / "r");
  EXPECT_EQ(v.run.status, 0) << v.run.out;
  EXPECT_NE(v.json["vector_set"]["subset"].get<std::string>().find(
                std::to_string(rows - variants.size()) + " of its " + std::to_string(sourceRows) +
                " cases of the profile as they are"),
            std::string::npos)
      << v.json["vector_set"];
}

// New user (round 10): a `vectors verify` of a board's results said nothing of what the board
// kernel observed through (its report.json's empty indirect_observations even read as "observed
// directly"), and listed OPEN-4 as certified though a board sees the index buffer only through
// MmadWithSparse. Each case of an export-ascendc set now lists what its board plan rests on, a
// set the board kernel did not run says its harness is not cubecheck's, and OPEN-4 is not
// checked where the index buffer was observed that way.
TEST(VectorSet, AVerifyOfBoardResultsSaysWhatEachCaseRestedOn) {
  const fs::path d = fresh("verify_rests_on"), res = fresh("verify_rests_on_results");
  std::vector<fs::path> files;
  std::map<std::string, std::size_t> rowsOf;  // family.profile -> rows
  for (const Generated& g : generate(1, 0)) {
    const std::string name = g.family + "." + g.profile;
    if (name != "load2d.a2" && name != "load_sparse.a2" && name != "mmad.950") continue;
    files.push_back(writeFile(d, g.family, g.profile, g.rows, "test"));
    rowsOf[name] = g.rows.size();
  }
  ASSERT_EQ(files.size(), 3u);
  writeManifest(d, files);
  const fs::path board = d / "board";
  const CliRun r = runBinary("vectors export-ascendc --profile a2 --profile 950 --dir " +
                             d.string() + " --out " + board.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string kernel = "ran on a board through the exported Ascend C kernel";
  for (const std::string profile : {"a2", "950"}) {
    const fs::path set = board / "vectors" / profile;
    const std::vector<fs::path> exported = vectorFiles(set);
    writeResults(res / ("results-" + profile + ".csv"), boardResults(exported));
    const Reports v = replay("vectors verify --dir " + set.string() + " --results " +
                                 (res / ("results-" + profile + ".csv")).string(),
                             res / ("r-" + profile));
    ASSERT_EQ(v.run.status, 0) << v.run.out;
    for (const auto& f : v.json["families"]) {
      const std::string name = f["name"];
      std::size_t ran = 0;
      for (const fs::path& e : exported) {
        if (e.filename() == name) ran = readFile(e).rows.size();
      }
      ASSERT_GT(ran, 0u) << name;
      const auto& rests = f["indirect_observations"];
      ASSERT_TRUE(rests.contains(kernel + ": images staged by DataCopy, L0C read back by Fixpipe "
                                          "and L1 by DataCopy (docs/hardware.md)"))
          << name << " " << rests;
      auto countOf = [&](const std::string& start) {
        std::size_t n = 0;
        for (const auto& [line, cases] : rests.items()) {
          if (line.starts_with(start)) n = std::max<std::size_t>(n, cases.get<std::size_t>());
        }
        return n;
      };
      EXPECT_EQ(countOf(kernel), ran) << name;
      if (name.starts_with("load2d")) {
        EXPECT_GT(countOf("observed L0A through mmad s8"), 0u) << rests;
      }
      if (name.starts_with("mmad")) {
        EXPECT_GT(countOf(conf::kL0cByMmadLine), 0u) << rests;
      }
      if (name.starts_with("load_sparse")) {
        EXPECT_GT(countOf("observed IDX through mmad_sparse"), 0u) << rests;
        ASSERT_TRUE(f["open_points_not_checked"].contains("OPEN-4")) << f;
        EXPECT_NE(v.md.find("OPEN-4"), std::string::npos);
        EXPECT_NE(v.md.find("Not checked here: in "), std::string::npos) << v.md;
      } else {
        EXPECT_TRUE(f["open_points_not_checked"].empty()) << f;
      }
    }
    if (profile == "950") {
      EXPECT_NE(v.json["vector_set"]["subset"].get<std::string>().find(
                    "of the replayed cases are board variants"),
                std::string::npos)
          << v.json["vector_set"];
    }
  }
  // The set itself, verified with results a harness of the user's wrote: that is what it says.
  writeResults(res / "results-own.csv", boardResults(files));
  const Reports own = replay(
      "vectors verify --dir " + d.string() + " --results " + (res / "results-own.csv").string(),
      res / "r-own");
  ASSERT_EQ(own.run.status, 0) << own.run.out;
  for (const auto& f : own.json["families"]) {
    const std::string name = f["name"];
    const std::string key = name.substr(0, name.size() - 4);  // less ".csv"
    ASSERT_EQ(f["indirect_observations"].size(), 1u) << f["indirect_observations"];
    EXPECT_EQ(f["indirect_observations"].begin().value(), rowsOf.at(key)) << name;
    EXPECT_TRUE(f["indirect_observations"].begin().key().starts_with(
        "answered by a harness cubecheck did not write"));
  }
  // A live replay of the same set observes directly: nothing to list.
  const Reports live = replay("vectors check --dut reference --dir " + d.string(), res / "r-live");
  for (const auto& f : live.json["families"]) EXPECT_TRUE(f["indirect_observations"].empty());
}

// Review: a case whose alternatives each certify (OPEN-10's write orders) was written with
// policy probe:, so a replay of a regression file holding one counted its pass as a probe case.
// A probe's row keeps probe:, another's is either:, and each reads back as what it was.
TEST(VectorSet, AProbesRowAndACertifyingAlternativesRowReadBackAsWhatTheyAre) {
  const fs::path golden = fs::path(CUBECHECK_SOURCE_DIR) / "vectors" / "golden";
  std::optional<Row> probe;
  for (const fs::path& f : vectorFiles(golden)) {
    for (const Row& r : readFile(f).rows) {
      if (r.c.probe && !probe) probe = r;
    }
  }
  ASSERT_TRUE(probe.has_value()) << "the golden set holds probe rows";
  Row either = *probe;
  either.c.probe = false;
  const fs::path dir = fresh("either_policy");
  for (const Row& row : {*probe, either}) {
    const fs::path sub = dir / (row.c.probe ? "probe" : "either");
    const fs::path f = writeFile(sub, row.family, row.profile, {row}, "test");
    EXPECT_NE(slurp(f).find(row.c.probe ? ",\"probe:" : ",\"either:"), std::string::npos)
        << slurp(f);
    const ReadResult back = readFile(f);
    ASSERT_TRUE(back.errors.empty()) << back.errors.front();
    ASSERT_EQ(back.rows.size(), 1u);
    EXPECT_EQ(back.rows[0].c.probe, row.c.probe);
    EXPECT_EQ(back.rows[0].c.alternatives.size(), row.c.alternatives.size());
  }
}

TEST(VectorSet, AnExportNoteReadsBackAndNothingElseReadsAsOne) {
  const ExportSource s{"export-ascendc", "0123456789abcdef", 7, 12};
  const std::optional<ExportSource> back = parseExportNote(exportNote(s));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(back->kind, s.kind);
  EXPECT_EQ(back->digest, s.digest);
  EXPECT_EQ(back->kept, 7u);
  EXPECT_EQ(back->total, 12u);
  EXPECT_TRUE(back->counted);
  // An export's note whose counts do not read (an earlier cubecheck wrote none) is still one,
  // of a part of its source of unknown size.
  for (const char* uncounted :
       {"export-ascendc of the vector set of digest 0123456789abcdef",
        "export-ascendc of the vector set of digest 0123456789abcdef: 7 of its 12 cases!",
        "export-ascendc of the vector set of digest 0123456789abcdef: x of its 12 cases"}) {
    const std::optional<ExportSource> n = parseExportNote(uncounted);
    ASSERT_TRUE(n.has_value()) << uncounted;
    EXPECT_FALSE(n->counted) << uncounted;
    EXPECT_EQ(n->digest, "0123456789abcdef");
  }
  for (const char* other :
       {"test", "export-ascendc of the vector set of digest 0123: 7 of its 12 cases",
        "export-ascendc of the vector set of digest 0123456789abcdeX",
        "board of the vector set of digest 0123456789abcdef: 7 of its 12 cases"}) {
    EXPECT_FALSE(parseExportNote(other).has_value()) << other;
  }
}

// Red team: `vectors verify` stopped after 5 consecutive `error:` results ("RUN STOPPED ... the
// remaining cases were not run"), a rule for a live DUT that hangs or crashes. A results file is
// already written and costs nothing to check: a board reset in rows 4-8 threw away the other 57
// results of its file. Every recorded result is compared and counted, in a whole-set replay and
// in one of named files; the errors still make the run fail.
TEST(VectorSet, VerifyComparesEveryRecordedResultAfterAStreakOfErrors) {
  const fs::path dir = fresh("verify_streak");
  const fs::path golden = fs::path(CUBECHECK_SOURCE_DIR) / "vectors" / "golden";
  const auto all = vectorFiles(golden);
  for (const auto& [mode, files] :
       {std::pair<std::string, std::vector<fs::path>>{"--dir " + golden.string(), all},
        {(golden / "load2d.a2.csv").string(), {golden / "load2d.a2.csv"}}}) {
    SCOPED_TRACE(mode);
    std::vector<Row> order;  // the rows in the order the replay checks them
    for (const fs::path& f : files) {
      for (Row& row : readFile(f).rows) order.push_back(std::move(row));
    }
    // What a perfect board wrote back for the whole set, by case id (a file's order is not
    // the replay's).
    std::map<std::string, Recorded> results;
    for (auto& [id, rec] : boardResults(all)) results.emplace(id, std::move(rec));
    // Rows 4-10 of the replay: more errors in a row than a live DUT is given.
    constexpr std::size_t kFirstError = 3, kErrors = 7;
    static_assert(kErrors > 5);
    for (std::size_t i = kFirstError; i < kFirstError + kErrors; ++i) {
      results.at(order[i].caseId) = Recorded{"error:board reset", {}};
    }
    // Correct rows after the streak, then one wrong answer of a later row.
    std::string wrong;
    for (std::size_t i = kFirstError + kErrors + 5; i < order.size() && wrong.empty(); ++i) {
      Recorded& rec = results.at(order[i].caseId);
      if (order[i].property == "MatchesOracle" && rec.status == "ok") {
        for (std::uint8_t& b : rec.observed[0]) b ^= 0x10;  // no mask covers a whole region
        wrong = order[i].caseId;
      }
    }
    ASSERT_FALSE(wrong.empty()) << "no MatchesOracle row after the streak";
    writeResults(dir / "results.csv", {results.begin(), results.end()});
    const Reports r =
        replay("vectors verify --results " + (dir / "results.csv").string() + " " + mode,
               dir / ("report_" + std::to_string(files.size())));
    EXPECT_EQ(r.run.status, 1) << r.run.out;
    EXPECT_EQ(r.run.out.find("RUN STOPPED"), std::string::npos) << r.run.out;
    EXPECT_EQ(r.json.value("stopped_early", ""), "");
    std::size_t cases = 0, passed = 0, failed = 0, adapterErrors = 0;
    bool wrongReported = false;
    for (const auto& f : r.json["families"]) {
      cases += f["cases"].get<std::size_t>();
      // The probe rows' passes are counted apart (probe_cases), not in passed.
      passed += f["passed"].get<std::size_t>() + f["probe_cases"].get<std::size_t>();
      failed += f["failed"].get<std::size_t>();
      adapterErrors += f["adapter_errors"].get<std::size_t>();
      for (const auto& x : f.value("failures", nlohmann::json::array())) {
        wrongReported |= x["case_id"] == wrong && x["outcome"] == "Mismatch";
      }
    }
    EXPECT_EQ(cases, order.size()) << "every recorded result is compared";
    EXPECT_EQ(adapterErrors, kErrors);
    EXPECT_EQ(failed, 1u);
    EXPECT_EQ(passed, order.size() - kErrors - 1) << "the correct rows after the streak pass";
    EXPECT_TRUE(wrongReported) << wrong << " not reported as a Mismatch";
    EXPECT_NE(r.json["verdict"], "conformant");
  }
  // A live DUT is still given up on: `vectors check` of a DUT that fails every case (it speaks
  // another protocol version) stops after the streak.
  const Reports live = replay("vectors check --dut 'exec:" + std::string(HOSTILE_DUT) +
                                  " version' --dir " + golden.string(),
                              dir / "report_live");
  EXPECT_EQ(live.run.status, 1) << live.run.out;
  EXPECT_NE(live.json.value("stopped_early", "").find("5 consecutive"), std::string::npos)
      << live.run.out;
  std::size_t liveCases = 0;
  for (const auto& f : live.json["families"]) liveCases += f["cases"].get<std::size_t>();
  EXPECT_EQ(liveCases, 5u);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cubecheck::vec
