// The cubecheck binary as a user runs it: exit codes, report files, error messages.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "conformance/families.hpp"
#include "conformance/sha256.hpp"
#include "process.hpp"
#include "scratch.hpp"
#include "vectors/vectors.hpp"

namespace {

using CliRun = cubecheck::test::ProcessRun;

CliRun runCli(const std::string& args) {
  return cubecheck::test::runCubecheck(args);
}

std::filesystem::path tempDir(const char* name) {
  return cubecheck::test::scratchPath(std::string("cli_") + name);
}

TEST(Cli, CertifyReferenceExitsZeroAndWritesReports) {
  const auto dir = tempDir("ok");
  const CliRun r =
      runCli("certify --dut reference --level smoke --seed 9 --quiet --report-dir " + dir.string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("verdict: CONFORMANT"), std::string::npos) << r.out;
  std::ifstream in(dir / "report.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["verdict"], "conformant");
  EXPECT_EQ(j["seed"], 9);
  EXPECT_TRUE(std::filesystem::exists(dir / "junit.xml"));
  std::filesystem::remove_all(dir);
}

// --level lists every level it takes, in its help and in its error.
TEST(Cli, LevelNamesEveryLevel) {
  const CliRun bad = runCli("certify --level bogus --seed 1 --report-dir ''");
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_NE(bad.out.find("use smoke, full or nightly"), std::string::npos) << bad.out;
  const CliRun help = runCli("certify --help");
  const std::size_t at = help.out.find("--level");
  ASSERT_NE(at, std::string::npos) << help.out;
  const std::string line = help.out.substr(at, help.out.find('\n', at) - at);
  for (const char* level : {"smoke", "full", "nightly"}) {
    EXPECT_NE(line.find(level), std::string::npos) << level << " in " << line;
  }
}

TEST(Cli, MutantExitsOneAndPrintsReproduce) {
  const auto dir = tempDir("mutant");
  const CliRun r = runCli(
      "certify --dut mutant:load2d-src-stride-on-dst --level smoke --seed 9 --quiet --report-dir " +
      dir.string());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("reproduce: cubecheck certify --dut 'mutant:load2d-src-stride-on-dst'"),
            std::string::npos);
  std::ifstream in(dir / "report.json");
  EXPECT_EQ(nlohmann::json::parse(in)["verdict"], "nonconformant");
  std::filesystem::remove_all(dir);
}

// nu11 F18: the columns of `mutants --list` had fixed widths, and a family longer than its
// column ran into the description ("load2d_bitmodem_step ..."). Every line is name, family and
// description, at least two spaces apart, each family one of this version's.
TEST(Cli, MutantsListKeepsItsColumnsApart) {
  const CliRun r = runCli("mutants --list");
  ASSERT_EQ(r.status, 0) << r.out;
  std::istringstream lines(r.out);
  std::size_t n = 0;
  for (std::string line; std::getline(lines, line); ++n) {
    std::vector<std::string> columns;
    for (std::size_t at = 0; at < line.size();) {
      const std::size_t gap = line.find("  ", at);
      columns.push_back(line.substr(at, gap - at));
      if (gap == std::string::npos) break;
      at = line.find_first_not_of(' ', gap);
    }
    ASSERT_GE(columns.size(), 3u) << line;
    EXPECT_TRUE(std::find(cubecheck::conf::kFamilyNames.begin(),
                          cubecheck::conf::kFamilyNames.end(),
                          columns[1]) != cubecheck::conf::kFamilyNames.end())
        << "not a family: '" << columns[1] << "' in\n"
        << line;
  }
  EXPECT_GT(n, 10u) << r.out;
}

// nu11 F11: --quiet, which every example of docs/nightly.md uses, also hid the line naming the
// shard a scheduler's task took itself for. It is one line, and printed with --quiet too.
TEST(Cli, AQuietFuzzStillSaysWhichShardItIs) {
  const CliRun r = cubecheck::test::runCommand(
      "env SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=3 " + std::string(CUBECHECK_BINARY) +
      " fuzz --quiet --family load2d --cases 3 --seed 1 --report-dir ''");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("cubecheck: seed 1, shard 1/3 (Slurm job array)"), std::string::npos)
      << r.out;
}

TEST(Cli, UsageErrorsExitTwoWithAHint) {
  CliRun r = runCli("certify --profile 910 --report-dir ''");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("use a2, 950 or legacy"), std::string::npos) << r.out;
  r = runCli("certify --dut nonsense --report-dir ''");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("expected reference, mutant:NAME, exec:PROGRAM"), std::string::npos)
      << r.out;
  r = runCli("certify --family load9d --report-dir ''");
  EXPECT_EQ(r.status, 2);
  r = runCli("certify --seed 12x --report-dir ''");
  EXPECT_EQ(r.status, 2);
  r = runCli("");
  EXPECT_EQ(r.status, 2);
}

void writeFile(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
}

// An option followed by another option has no value: CLI11 took the option as its value
// (`--seed --level smoke` read "--level" as the seed, then refused "smoke"), so the message
// named the wrong word. Said before anything runs, for every command's options; a flag before
// an option, and a value written --option=--x, are not refused by it.
TEST(Cli, AnOptionFollowedByAnOptionIsMissingItsValue) {
  const std::pair<const char*, const char*> refused[] = {
      {"certify --seed --level smoke",
       "cubecheck certify: --seed is missing its value: the next argument, --level, is an option "
       "(give a value that starts with -- as --seed=VALUE)"},
      {"vectors verify --results --dir vectors/golden",
       "cubecheck vectors verify: --results is missing its value"},
      {"fuzz --family --time 1", "cubecheck fuzz: --family is missing its value"},
      {"certify --seed= --level smoke",
       "cubecheck certify: --seed is missing its value: nothing follows '='"},
  };
  CliRun r;
  for (const auto& [args, says] : refused) {
    r = runCli(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(says), std::string::npos) << args << "\n" << r.out;
  }
  r = runCli("certify --quiet --help");
  EXPECT_EQ(r.status, 0) << r.out;
  r = runCli("certify --seed=--level --report-dir ''");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(r.out.find("missing its value"), std::string::npos) << r.out;
}

// Red team (round 8): `--seed ""`, what `--seed "$SEED"` gives with SEED unset, ran with a random
// seed, so a nightly's shards each drew another one. An empty seed is refused in every command
// that takes one; leaving --seed out still draws a random one, printed.
TEST(Cli, AnEmptySeedIsRefused) {
  for (const char* command : {"certify", "fuzz --time 1", "mutants --list"}) {
    const CliRun r = runCli(std::string(command) + " --seed '' --report-dir ''");
    EXPECT_EQ(r.status, 2) << command << "\n" << r.out;
    EXPECT_NE(r.out.find("--seed: an empty seed"), std::string::npos) << command << "\n" << r.out;
  }
}

// A seed past 2^64 - 1 is out of range, not "not a number"; an escape in a bad seed is not echoed
// to the terminal.
TEST(Cli, ASeedOutOfRangeIsSaidToBeOutOfRange) {
  const struct {
    const char* seed;
    const char* says;
  } rows[] = {
      {"18446744073709551616",
       "'18446744073709551616' is out of range: at most 18446744073709551615"},
      {"0x10000000000000000", "'0x10000000000000000' is out of range: at most 0xffffffffffffffff"},
      {"18446744073709551615x", "is not an unsigned 64-bit number (decimal or 0x hex)"},
      {"\"$(printf '7\\033[2J')\"", "'7?[2J' is not an unsigned 64-bit number"},
  };
  for (const auto& row : rows) {
    const CliRun r = runCli(std::string("certify --seed ") + row.seed + " --report-dir ''");
    EXPECT_EQ(r.status, 2) << row.seed << "\n" << r.out;
    EXPECT_NE(r.out.find(row.says), std::string::npos) << row.seed << "\n" << r.out;
    EXPECT_EQ(r.out.find('\033'), std::string::npos) << row.seed;
  }
  EXPECT_EQ(runCli("certify --seed 18446744073709551615 --help").status, 0);
}

TEST(Cli, SparseCheckFindsTheVendorEncodingAndNamesBadInput) {
  const auto dir = tempDir("sparse");
  std::filesystem::create_directories(dir);
  // Column 0: 0 0 0 5 (the vendor samples encode it as dense (5, 0)); column 1: two non-zeros.
  writeFile(dir / "b.csv", "0,1\n0,0\n0,3\n5,0\n");
  writeFile(dir / "dense_vendor.csv", "5,1\n0,3\n");
  writeFile(dir / "dense_spec.csv", "0,1\n5,3\n");
  writeFile(dir / "index.csv", "0,0\n2,1\n");
  const std::string b = "sparse-check --b " + (dir / "b.csv").string();
  CliRun r = runCli(b);
  EXPECT_EQ(r.status, 0) << r.out;
  r = runCli(b + " --dense " + (dir / "dense_spec.csv").string() + " --index " +
             (dir / "index.csv").string());
  EXPECT_EQ(r.status, 0) << r.out;
  r = runCli(b + " --dense " + (dir / "dense_vendor.csv").string() + " --index " +
             (dir / "index.csv").string());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("column n 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("OPEN-2"), std::string::npos) << r.out;
  writeFile(dir / "bad.csv", "1,2\n3,,4\n");
  r = runCli("sparse-check --b " + (dir / "bad.csv").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("bad.csv:2:3: an empty field is not a number (expected an integer, int8 "
                       "[-128, 127])"),
            std::string::npos)
      << r.out;
  // A byte order mark is named, as in a vector file (the CSV reader skipped it silently).
  writeFile(dir / "bad.csv",
            "\xEF\xBB\xBF"
            "1,2\n3,4\n");
  r = runCli("sparse-check --b " + (dir / "bad.csv").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("bad.csv:1:1: the file starts with a UTF-8 byte order mark"),
            std::string::npos)
      << r.out;
  writeFile(dir / "bad.csv", "1,2\n3,x4\n");
  r = runCli("sparse-check --b " + (dir / "bad.csv").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("bad.csv:2:3: 'x4' is not a number"), std::string::npos) << r.out;
  writeFile(dir / "b.bin", std::string("\x01\x00\x00\x00", 4));
  r = runCli("sparse-check --b " + (dir / "b.bin").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("needs --shape"), std::string::npos) << r.out;
  r = runCli("sparse-check --shape 4x1 --b " + (dir / "b.bin").string());
  EXPECT_EQ(r.status, 0) << r.out;
  std::filesystem::remove_all(dir);
}

TEST(Cli, CertifyEndsWithTheCertificatePaths) {
  const auto dir = tempDir("certificate");
  const CliRun r = runCli(
      "certify --dut reference --level smoke --seed 9 --quiet --family "
      "load2d --report-dir " +
      dir.string());
  EXPECT_EQ(r.status, 0) << r.out;
  // A --family run is partial: the files are named, never called a certificate.
  const std::string last = "report for people (not a certificate): " + dir.string() +
                           "/report.md, " + dir.string() + "/report.html\n";
  ASSERT_GE(r.out.size(), last.size());
  EXPECT_EQ(r.out.substr(r.out.size() - last.size()), last) << r.out;
  EXPECT_TRUE(std::filesystem::exists(dir / "report.md"));
  EXPECT_TRUE(std::filesystem::exists(dir / "report.html"));
  std::filesystem::remove_all(dir);
}

TEST(Cli, ExplainListsTheCatalogueAndOneEntry) {
  CliRun r = runCli("explain");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("mmad/SaturationProbe"), std::string::npos) << r.out;
  r = runCli("explain OPEN-10");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("default reading:"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("docs/spec.md#open-10"), std::string::npos) << r.out;
  r = runCli("explain load2d/RepeatSplit");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("claim:"), std::string::npos) << r.out;
  r = runCli("explain load9d");
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("'load9d'"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("load3d_v2pro"), std::string::npos) << "lists what exists: " << r.out;
  EXPECT_NE(r.out.find("OPEN-11"), std::string::npos) << r.out;
}

TEST(Cli, VectorsCheckNamesEachFailingCaseByItsCaseId) {
  const auto dir = tempDir("vector_ids");
  std::filesystem::path file;
  std::set<std::string> ids;
  for (const cubecheck::vec::Generated& g : cubecheck::vec::generate(1, 1)) {
    if (g.family != "load2d" || g.profile != "a2") continue;
    file = cubecheck::vec::writeFile(dir, g.family, g.profile, g.rows, "test");
    for (const cubecheck::vec::Row& row : g.rows) ids.insert(row.caseId);
  }
  ASSERT_FALSE(file.empty());
  const CliRun r = runCli("vectors check --dut mutant:load2d-dst-gap-ignored --report-dir " +
                          (dir / "report").string() + " " + file.string());
  EXPECT_EQ(r.status, 1) << r.out;
  // Every printed failure names a case of the file, and different failures different cases.
  const std::regex failed("FAILED [^ ]+ case ([^:]+):");
  std::set<std::string> named;
  std::size_t lines = 0;
  for (auto it = std::sregex_iterator(r.out.begin(), r.out.end(), failed);
       it != std::sregex_iterator(); ++it, ++lines) {
    const std::string id = (*it)[1].str();
    EXPECT_EQ(ids.count(id), 1u) << id << " is not a case_id of " << file;
    named.insert(id);
  }
  EXPECT_GE(lines, 2u) << r.out;
  EXPECT_EQ(named.size(), lines);
  std::ifstream in(dir / "report" / "report.json");
  const auto j = nlohmann::json::parse(in);
  const auto& failure = j["families"][0]["failures"][0];
  EXPECT_EQ(ids.count(failure["case_id"].get<std::string>()), 1u) << failure;
  std::filesystem::remove_all(dir);
}

TEST(Cli, HelpExitsZero) {
  const CliRun r = runCli("certify --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--profile"), std::string::npos);
}

// The help of certify and of vectors check/verify said --report-dir holds "report.json and
// junit.xml", and fuzz printed "junit.xml" without its directory: each names every file a run
// writes there, the files taken from what a fuzz run wrote.
TEST(Cli, EveryReportDirHelpAndPathLineNamesEveryFileWritten) {
  const auto dir = tempDir("report_files");
  const CliRun fuzz = runCli(
      "fuzz --dut reference --family load2d --cases 2 --seed 1 --quiet "
      "--report-dir " +
      dir.string());
  ASSERT_EQ(fuzz.status, 0) << fuzz.out;
  std::vector<std::string> written;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (e.is_regular_file() && name[0] != '.') written.push_back(name);  // not .cubecheck.lock
  }
  ASSERT_GE(written.size(), 4u) << "report.json, junit.xml, report.md, report.html";
  for (const std::string& file : written) {
    EXPECT_NE(fuzz.out.find((dir / file).string()), std::string::npos) << file << "\n" << fuzz.out;
    for (const char* command : {"certify", "fuzz", "vectors check", "vectors verify"}) {
      const CliRun help = runCli(std::string(command) + " --help");
      const std::size_t at = help.out.find("--report-dir");
      ASSERT_NE(at, std::string::npos) << command;
      const std::string line = help.out.substr(at, help.out.find("\n  -", at) - at);
      EXPECT_NE(line.find(file), std::string::npos) << command << ": " << line;
    }
  }
  // merge-reports needs --out or --report-dir: its help says so.
  const CliRun merge = runCli("merge-reports --help");
  const std::size_t out = merge.out.find("--out");
  ASSERT_NE(out, std::string::npos) << merge.out;
  EXPECT_NE(merge.out.find("--report-dir or both", out), std::string::npos) << merge.out;
  std::filesystem::remove_all(dir);
}

}  // namespace

// merge-reports as a user runs it: the exit status comes from the merged verdict (0/1), every
// bad input is exit 2 naming the file, and nothing is written on an error.
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

/// Sets a family's count, and its first property's by as much: a report's family counts are its
/// properties' summed (report_read refuses one that does not add up).
/// A family's count `key` set to `value`, its first property's with it, and both case totals, as
/// the report would be written.
void setCount(Json& family, const char* key, long long value) {
  const long long by = value - family[key].get<long long>();
  for (Json* n : {&family[key], &family["properties"][0][key], &family["cases"],
                  &family["properties"][0]["cases"]}) {
    *n = n->get<long long>() + by;
  }
}

/// A file's bytes ("" when it cannot be read).
std::string text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

Json readJson(const fs::path& p) {
  std::ifstream in(p);
  return Json::parse(in);
}

void writeJson(const fs::path& p, const Json& j) {
  std::ofstream(p) << j.dump(2) << '\n';
}

class MergeReports : public ::testing::Test {
 protected:
  /// Two real shards of one fuzz run of the reference (seed 3, load2d, 4 cases per property).
  static void SetUpTestSuite() {
    // One directory per process: ctest runs each test of this suite as its own process, in
    // parallel, and each tears the directory down.
    dir_ = fs::temp_directory_path() / ("cubecheck_merge_test_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    for (int i = 0; i < 2; ++i) {
      const fs::path d = dir_ / ("shard" + std::to_string(i));
      const CliRun r = runCli(
          "fuzz --dut reference --family load2d --cases 4 --seed 3 --quiet "
          "--shard " +
          std::to_string(i) + "/2 --report-dir " + d.string());
      ASSERT_EQ(r.status, 0) << r.out;
      shard_[i] = readJson(d / "report.json");
    }
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static fs::path dir_;
  static Json shard_[2];
};

fs::path MergeReports::dir_;
Json MergeReports::shard_[2];

TEST_F(MergeReports, TakesADirectoryOfShardReports) {
  const fs::path out = dir_ / "merged_from_dir.json";
  const CliRun r = runCli("merge-reports --out " + out.string() + " " + dir_.string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("merged 2 reports"), std::string::npos) << r.out;
  EXPECT_TRUE(fs::exists(out));
}

TEST_F(MergeReports, ShardsRecordTheirPlace) {
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(shard_[i]["shard"]["index"], i);
    EXPECT_EQ(shard_[i]["shard"]["count"], 2);
  }
}

/// One row: how to alter the two shards (or which files to pass), the exit status and what the
/// output must name.
struct Row {
  const char* name;
  std::function<void(Json& a, Json& b)> edit;
  int status;
  std::string mentions;  ///< a substring of the output; "{B}" stands for the second file's path
  bool sameFileTwice = false;
  bool onlyFirst = false;
};

TEST_F(MergeReports, ExitStatusComesFromTheMergedVerdictAndBadInputsAreNamed) {
  auto family = [](Json& j) -> Json& { return j["families"][0]; };
  const std::vector<Row> rows{
      // The shards are --family load2d fuzz runs: the merge line says what the report says.
      {"two passing shards", [](Json&, Json&) {}, 0,
       ": PARTIAL RUN (--family load2d), not a certificate; what ran found no failure in "},
      // The case: every passing family says "conformant", so searching the text for it
      // passed a run with a failing shard.
      {"a failing shard",
       [&](Json&, Json& b) {
         setCount(family(b), "failed", 1);
         family(b)["verdict"] = "nonconformant";
         b["verdict"] = "nonconformant";
       },
       1, "; what ran found failures in "},
      {"a failure count under a conformant verdict",
       [&](Json&, Json& b) { setCount(family(b), "adapter_errors", 2); }, 1,
       "; what ran found failures in "},
      {"declined cases (a count the verdict helper adds)",
       [&](Json&, Json& b) { setCount(family(b), "declined", 3); }, 1,
       "; what ran found failures in "},
      // A written verdict worse than the shard's fields (or unknown) is something the report
      // model cannot reproduce: refused, never read as better than it says.
      {"a family verdict this version does not know",
       [&](Json&, Json& b) { family(b)["verdict"] = "not certified within the envelope"; }, 2,
       "{B}: field 'families[0].verdict' says 'not certified within the envelope'"},
      {"a top-level verdict worse than the fields give",
       [](Json&, Json& b) { b["verdict"] = "not certified"; }, 2,
       "{B}: field 'verdict' says 'not certified'"},
      {"malformed JSON", [](Json&, Json& b) { b = "truncated"; }, 2, "{B}: not JSON"},
      {"no families", [](Json&, Json& b) { b.erase("families"); }, 2, "{B}: not a cubecheck"},
      {"another seed", [](Json&, Json& b) { b["seed"] = 4; }, 2, "{B}: from another run"},
      {"another level", [](Json&, Json& b) { b["level"] = "smoke"; }, 2, "{B}: from another run"},
      {"another DUT", [](Json&, Json& b) { b["dut"] = "mutant:writes-nothing"; }, 2,
       "{B}: from another run"},
      // As a run on 950 writes it: the open points are those the family rests on there.
      {"another profile",
       [&](Json&, Json& b) {
         b["profile"] = "950";
         family(b)["open_points"] =
             cubecheck::conf::makeFamily(family(b)["name"].get<std::string>(),
                                         cubecheck::isa::ProfileId::Ascend950,
                                         cubecheck::gen::Sizes::Mixed)
                 ->openPoints;
       },
       2, "{B}: from another run"},
      {"another cubecheck version", [](Json&, Json& b) { b["tool_version"] = "0.0.9"; }, 2,
       ": tool_version 0.0.9 instead of "},
      {"another spec", [](Json&, Json& b) { b["spec_sha256"] = std::string(64, '0'); }, 2,
       ": spec_sha256 00000000"},
      // The red team's case: the same --dut string, but the DUT now another build declaring
      // less; the merge would name the first shard's DUT and envelope for cases never run.
      {"another DUT version", [](Json&, Json& b) { b["dut_capabilities"]["version"] = "0.9"; }, 2,
       "{B}: from another run than "},
      {"another DUT version, named",
       [](Json&, Json& b) { b["dut_capabilities"]["version"] = "0.9"; }, 2,
       ": dut_capabilities.version 0.9 instead of "},
      // As that build's run writes it: its envelope text names only load2d.
      {"a narrower envelope",
       [](Json&, Json& b) {
         b["dut_capabilities"]["instructions"] = Json::array({"load2d"});
         std::string& within = b["envelope"]["certified_within"].get_ref<std::string&>();
         within = std::regex_replace(within, std::regex("; instructions [^;]*;"),
                                     "; instructions load2d;");
       },
       2, ": dut_capabilities.instructions load2d instead of "},
      {"other sizes", [](Json&, Json& b) { b["draws"]["sizes"] = "small"; }, 2,
       ": draws.sizes small instead of mixed"},
      {"another case budget", [](Json&, Json& b) { b["draws"]["case_budget"] = 400; }, 2,
       ": draws.case_budget 400 instead of 4"},
      {"another time budget", [](Json&, Json& b) { b["draws"]["time_budget_seconds"] = 0.001; }, 2,
       ": draws.time_budget_seconds 0.001 instead of 20"},
      // Its families are not the ones its filter leaves: refused when read (merge_test checks
      // that shards of runs with other filters are told apart).
      {"another family filter",
       [](Json&, Json& b) {
         b["scope"]["filters"] = Json::array({"--family mmad", "--shard 1/2"});
       },
       2, "{B}: not a cubecheck report.json: field 'families' lacks mmad"},
      {"a shard that ran no case",
       [&](Json&, Json& b) {
         const char* counts[] = {"cases",    "passed",          "passed_no_op",  "probe_cases",
                                 "failed",   "declined",        "not_supported", "adapter_errors",
                                 "timeouts", "nondeterministic"};
         for (Json& p : family(b)["properties"]) {
           for (const char* key : counts) p[key] = 0;
           p["seconds"] = 0;
         }
         for (const char* key : counts) family(b)[key] = 0;
         for (const char* key : {"coverage", "coverage_passed"}) family(b)[key] = Json::object();
         family(b)["reach"] = Json::array();
         family(b)["verdict"] = "not certified";
         b["verdict"] = "not certified";
         b["headline"] = "";
       },
       1, "shard 1/2 ({B}) ran no case though it had cases to draw"},
      {"a run in progress, or killed",
       [](Json&, Json& b) {
         b = {{"tool", "cubecheck"},
              {"verdict", "in progress"},
              {"headline", "RUN IN PROGRESS (started x, pid 1, command y)"}};
       },
       2, "{B}: no verdict: RUN IN PROGRESS"},
      {"another shard count",
       [](Json&, Json& b) {
         b["shard"]["count"] = 3;
         b["scope"]["filters"][1] = "--shard 1/3";  // as that run writes it
       },
       2, "{B}: shard of 3"},
      {"a shard index out of range", [](Json&, Json& b) { b["shard"]["index"] = 2; }, 2,
       "{B}: shard 2/2"},
      {"the same shard in two files", [](Json& a, Json& b) { b = a; }, 2,
       "{B}: shard 0/2 given twice"},
      {"the same file twice", [](Json&, Json&) {}, 2, "given twice", true},
      {"a missing shard", [](Json&, Json&) {}, 2, "shard(s) 1 of 2 missing", false, true},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    Json a = shard_[0], b = shard_[1];
    row.edit(a, b);
    const fs::path pa = dir_ / "a.json", pb = dir_ / "b.json", out = dir_ / "merged.json";
    fs::remove(out);
    writeJson(pa, a);
    if (b.is_string()) {
      std::ofstream(pb) << shard_[1].dump(2).substr(0, 200);  // cut mid-document
    } else {
      writeJson(pb, b);
    }
    const std::string files =
        pa.string() + (row.onlyFirst ? "" : " " + (row.sameFileTwice ? pa : pb).string());
    const CliRun r = runCli("merge-reports --out " + out.string() + " " + files);
    EXPECT_EQ(r.status, row.status) << r.out;
    std::string mentions = row.mentions;
    if (const auto at = mentions.find("{B}"); at != std::string::npos) {
      mentions.replace(at, 3, pb.string());
    }
    EXPECT_NE(r.out.find(mentions), std::string::npos) << r.out;
    EXPECT_EQ(fs::exists(out), row.status != 2) << "an error writes nothing";
    if (row.status == 0) {
      const Json m = readJson(out);
      EXPECT_EQ(m["verdict"], "conformant");
      // Counts are summed over the shards.
      EXPECT_EQ(m["families"][0]["cases"].get<std::uint64_t>(),
                a["families"][0]["cases"].get<std::uint64_t>() +
                    b["families"][0]["cases"].get<std::uint64_t>());
    }
    if (row.status == 1) {
      EXPECT_EQ(readJson(out)["verdict"], "nonconformant");
    }
  }
}

// The line merge-reports ends its text with says the merged verdict as the report does: the
// shards are --family load2d fuzz runs, so PARTIAL RUN and no failure found, never a bare
// CONFORMANT; and the exit status is the shards' own (0: what ran found no failure).
TEST_F(MergeReports, SaysTheMergedVerdictAsTheReportDoes) {
  const fs::path out = dir_ / "merged_line.json";
  const CliRun r = runCli("merge-reports --out " + out.string() + " " + (dir_ / "shard0").string() +
                          " " + (dir_ / "shard1").string());
  ASSERT_EQ(r.status, 0) << r.out;
  const std::string headline = readJson(out)["headline"].get<std::string>();
  EXPECT_EQ(headline.rfind("PARTIAL RUN (--family load2d), not a certificate", 0), 0u) << headline;
  EXPECT_NE(r.out.find("\nmerged 2 reports into " + out.string() + ": " + headline + "\n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("CONFORMANT"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  family "), std::string::npos) << "per family, not per file\n" << r.out;
}

// A merged report was not run here: every format names the files it was made from with their
// SHA-256, so a hand-edited input cannot come out as a first-hand run, and reading the merged
// report back keeps them.
TEST_F(MergeReports, NamesItsInputsByTheirSha256) {
  const fs::path reports = dir_ / "merged-named";
  fs::remove_all(reports);
  const fs::path a = dir_ / "shard0" / "report.json", b = dir_ / "shard1" / "report.json";
  const CliRun r = runCli("merge-reports --report-dir " + reports.string() + " " + a.string() +
                          " " + b.string());
  ASSERT_EQ(r.status, 0) << r.out;
  const Json m = readJson(reports / "report.json");
  ASSERT_EQ(m["merged_from"].size(), 2u) << m.dump(1);
  const std::string md = text(reports / "report.md"), html = text(reports / "report.html");
  EXPECT_NE(md.find("by cubecheck merge-reports from 2 report.json file(s), not run here"),
            std::string::npos)
      << md.substr(0, 2000);
  EXPECT_NE(r.out.find("merged by cubecheck merge-reports from 2"), std::string::npos) << r.out;
  for (std::size_t i = 0; i < 2; ++i) {
    const fs::path in = i == 0 ? a : b;
    const std::string sum = cubecheck::conf::sha256Hex(text(in));
    EXPECT_EQ(m["merged_from"][i]["file"], in.string());
    EXPECT_EQ(m["merged_from"][i]["sha256"], sum);
    EXPECT_NE(r.out.find(in.string() + ", SHA-256 " + sum), std::string::npos) << r.out;
    for (const std::string* t : {&md, &html}) {  // the path as each format escapes it
      EXPECT_NE(t->find(", SHA-256 " + sum), std::string::npos) << *t;
    }
  }
  // Read back (a merge of the merge): parsed, and an edited digest is refused.
  const CliRun again = runCli("merge-reports --out " + (dir_ / "again.json").string() + " " +
                              (reports / "report.json").string());
  EXPECT_EQ(again.status, 0) << again.out;
  Json bad = m;
  bad["merged_from"][0]["sha256"] = "not a digest";
  {
    std::ofstream o(dir_ / "bad_merged.json");
    o << bad.dump();
  }
  const CliRun refused = runCli("merge-reports --out " + (dir_ / "x.json").string() + " " +
                                (dir_ / "bad_merged.json").string());
  EXPECT_EQ(refused.status, 2) << refused.out;
  EXPECT_NE(refused.out.find("merged_from"), std::string::npos) << refused.out;
}

// --report-dir writes every format through the writers certify uses, from the merged model: the
// same report.json as --out, and a certificate for the whole run.
TEST_F(MergeReports, ReportDirHoldsEveryFormatOfTheMergedRun) {
  const fs::path out = dir_ / "merged_out.json", reports = dir_ / "merged-reports";
  fs::remove_all(reports);
  const std::string inputs = " " + (dir_ / "shard0").string() + " " + (dir_ / "shard1").string();
  const CliRun r =
      runCli("merge-reports --out " + out.string() + " --report-dir " + reports.string() + inputs);
  ASSERT_EQ(r.status, 0) << r.out;
  for (const char* file : {"report.json", "junit.xml", "report.md", "report.html"}) {
    EXPECT_TRUE(fs::exists(reports / file)) << file;
  }
  EXPECT_EQ(text(reports / "report.json"), text(out));
  // The certificate is the last thing printed, as certify prints it.
  // The shards are --family load2d fuzz runs: the merge is no certificate.
  const std::string last =
      "report for people (not a certificate): " + (reports / "report.md").string() + ", " +
      (reports / "report.html").string() + "\n";
  ASSERT_GE(r.out.size(), last.size());
  EXPECT_EQ(r.out.substr(r.out.size() - last.size()), last) << r.out;
  const Json m = readJson(reports / "report.json");
  EXPECT_EQ(m["shard"]["count"], 1) << "the merge is the whole run";
  EXPECT_EQ(m["scope"]["filters"], Json::array({"--family load2d"})) << "the shards' own filter";
  const std::string md = text(reports / "report.md");
  EXPECT_NE(md.find(m["headline"].get<std::string>()), std::string::npos) << md;
  EXPECT_NE(text(reports / "junit.xml").find("<testsuite name=\"load2d\""), std::string::npos);

  // Only --report-dir is enough; neither is a usage error that writes nothing.
  fs::remove_all(reports);
  EXPECT_EQ(runCli("merge-reports --report-dir " + reports.string() + inputs).status, 0);
  EXPECT_TRUE(fs::exists(reports / "report.html"));
  const CliRun neither = runCli("merge-reports" + inputs);
  EXPECT_EQ(neither.status, 2) << neither.out;
  EXPECT_NE(neither.out.find("--out FILE, --report-dir DIR"), std::string::npos) << neither.out;
  // A bad input leaves no report directory behind.
  fs::remove_all(reports);
  writeJson(dir_ / "bad.json", Json::object());
  const CliRun bad = runCli("merge-reports --report-dir " + reports.string() + " " +
                            (dir_ / "bad.json").string() + inputs);
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_FALSE(fs::exists(reports));
}

// Each fuzz shard keeps its own regression vectors: the merge combines them into one set with
// its own manifest, one row per case, and a shard whose set does not read refuses the merge.
TEST(MergeRegressions, TheShardsRegressionVectorsBecomeOneSet) {
  const fs::path d =
      fs::temp_directory_path() / ("cubecheck_merge_regressions_" + std::to_string(::getpid()));
  fs::remove_all(d);
  std::set<std::string> ids;
  for (int i = 0; i < 2; ++i) {
    const fs::path shard = d / ("shard" + std::to_string(i));
    const CliRun r = runCli(
        "fuzz --dut mutant:load2d-last-repeat-dropped --family load2d --cases 4 --seed 3 --quiet "
        "--shard " +
        std::to_string(i) + "/2 --report-dir " + shard.string());
    ASSERT_EQ(r.status, 1) << r.out;
    for (const fs::path& f : cubecheck::vec::vectorFiles(shard / "regressions")) {
      for (const auto& row : cubecheck::vec::readFile(f).rows) ids.insert(row.caseId);
    }
  }
  ASSERT_FALSE(ids.empty());
  const std::string inputs =
      " " + (d / "shard0" / "report.json").string() + " " + (d / "shard1" / "report.json").string();
  const fs::path merged = d / "merged";
  const CliRun r = runCli("merge-reports --report-dir " + merged.string() + inputs);
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("regression vectors: " + std::to_string(ids.size()) + " case(s) from 2"),
            std::string::npos)
      << r.out;
  const std::vector<fs::path> files = cubecheck::vec::vectorFiles(merged / "regressions");
  EXPECT_TRUE(cubecheck::vec::checkSet(files, true).errors.empty());
  std::set<std::string> mergedIds;
  for (const fs::path& f : files) {
    for (const auto& row : cubecheck::vec::readFile(f).rows) mergedIds.insert(row.caseId);
  }
  EXPECT_EQ(mergedIds, ids);
  // A damaged set beside one shard: refused, naming it, and nothing written.
  const fs::path damaged = cubecheck::vec::vectorFiles(d / "shard1" / "regressions").front();
  std::ofstream(damaged, std::ios::app) << "not,a,row\n";
  const CliRun bad = runCli("merge-reports --report-dir " + (d / "merged2").string() + inputs);
  EXPECT_EQ(bad.status, 2) << bad.out;
  EXPECT_NE(bad.out.find("the regression vectors beside " +
                         (d / "shard1" / "report.json").string() + " do not read"),
            std::string::npos)
      << bad.out;
  EXPECT_FALSE(fs::exists(d / "merged2"));
  fs::remove_all(d);
}

TEST_F(MergeReports, AnUnwritableOutIsRefusedBeforeAnythingIsWritten) {
  const fs::path pa = dir_ / "a.json", pb = dir_ / "b.json";
  writeJson(pa, shard_[0]);
  writeJson(pb, shard_[1]);
  const std::string inputs = " " + pa.string() + " " + pb.string();
  const fs::path noDir = dir_ / "no-such-dir" / "m.json";
  CliRun r = runCli("merge-reports --out " + noDir.string() + inputs);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("--out " + noDir.string()), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("merged"), std::string::npos) << r.out;

  r = runCli("merge-reports --out " + dir_.string() + inputs);  // a directory
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("is a directory"), std::string::npos) << r.out;

  // The output named as one of the inputs would destroy a shard.
  r = runCli("merge-reports --out " + pb.string() + inputs);
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_EQ(readJson(pb), shard_[1]) << "the input is untouched";
}

}  // namespace
namespace hostile {

struct BadArgs {
  std::string args;  // appended to the binary; every row runs nothing and writes nothing
  std::string says;  // a piece of the message: the option or file it names
};

/// Each row is a usage error (exit 2) naming what it says, found before anything runs: a row
/// ending in a space is completed with `out` (after --out) or `underFile`; nothing writes `out`.
void expectRefusedUpFront(const std::vector<BadArgs>& rows, const std::string& out,
                          const std::string& underFile) {
  for (const BadArgs& row : rows) {
    std::string args = row.args;
    if (args.back() == ' ') args += args.find("--out") != std::string::npos ? out : underFile;
    const auto t0 = std::chrono::steady_clock::now();
    const CliRun r = runCli(args);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(row.says), std::string::npos) << args << "\n" << r.out;
    EXPECT_LT(seconds, 5.0) << args << ": found only after running";
  }
  EXPECT_FALSE(std::filesystem::exists(out)) << "a rejected command wrote output";
}

// Issue 15's table, the command-line rows: each is a usage error (exit 2) naming what is wrong,
// found before any case runs (so each row takes well under a second).
TEST(Cli, HostileArgumentsAreUsageErrorsUpFront) {
  const auto dir = tempDir("hostile_args");
  std::filesystem::create_directories(dir);
  writeFile(dir / "file", "x");  // a report directory below a regular file cannot be created
  const std::string underFile = (dir / "file" / "reports").string();
  const std::string out = (dir / "out").string();
  const std::vector<BadArgs> rows{
      {"certify --seed -1 --report-dir ''", "--seed '-1'"},
      {"certify --seed 18446744073709551616 --report-dir ''", "--seed '18446744073709551616'"},
      {"fuzz --shard 1/-2 --report-dir ''", "shard '1/-2'"},
      {"fuzz --cases -1 --report-dir ''", "--cases -1"},
      {"fuzz --cases 0 --report-dir ''", "--cases 0"},  // was a run without a case budget
      {"certify --case -5 --report-dir ''", "--case -5"},
      {"certify --timeout-ms 0 --report-dir ''", "--timeout-ms 0"},
      {"certify --timeout-ms -1 --report-dir ''", "--timeout-ms -1"},
      {"vectors check --timeout-ms 0 --report-dir ''", "--timeout-ms 0"},
      {"fuzz --time -5 --report-dir ''", "--time -5"},
      {"fuzz --time 0 --report-dir ''", "--time 0"},
      {"fuzz --time nan --report-dir ''", "--time"},
      {"fuzz --time inf --report-dir ''", "--time"},
      {"vectors regen --random -1 --out ", "--random -1"},
      {"certify --report-dir ", "--report-dir"},
      {"fuzz --report-dir ", "--report-dir"},
      {"mutants --report-dir ", "--report-dir"},
      {"certify --dut 'exec:/no/such/program --flag' --report-dir ''", "'/no/such/program'"},
      {"fuzz --dut 'exec:no-such-program-on-path' --report-dir ''", "'no-such-program-on-path'"},
      {"certify --family nope --report-dir ''", "unknown family 'nope'; families are load2d"},
      {"fuzz --family nope --report-dir ''", "unknown family 'nope'; families are load2d"},
      // Run twice, its cases would count twice in one report.
      {"certify --family mmad --family load2d --family mmad --report-dir ''",
       "--family mmad is given twice; give each family once"},
      {"fuzz --family load2d --family load2d --report-dir ''",
       "--family load2d is given twice; give each family once"},
      {"certify --property Bogus --report-dir ''", "MatchesOracle"},
      {"certify --family load2d --property Bogus --report-dir ''", "TransposeInvolution"},
      {"vectors export --dir /no/such/dir --out ", "no vector files in --dir /no/such/dir"},
      // An export of nothing: legacy is no board target, and no file is load3d_v1 on a2.
      {"vectors export-ascendc --family load3d_v1 --dir " CUBECHECK_SOURCE_DIR
       "/vectors/golden --out ",
       "nothing to export: each of the"},
      {"vectors export-ascendc --family load3d_v1 --profile a2 --dir " CUBECHECK_SOURCE_DIR
       "/vectors/golden --out ",
       "nothing to export: no vector file"},
      {"vectors verify --dir " CUBECHECK_SOURCE_DIR
       "/vectors/golden --results /no/such/results.csv --report-dir ''",
       "--results '/no/such/results.csv'"},
  };
  expectRefusedUpFront(rows, out, underFile);
  std::filesystem::remove_all(dir);
}

// A directory given where a file is read opened as a file, and its first read threw: the run
// ended as an internal error (exit 3). Each is a usage error naming the argument and what to
// give instead.
TEST(Cli, ADirectoryGivenAsAFileIsAUsageError) {
  const auto dir = tempDir("directory_as_file");
  const fs::path a2 = dir / "a2";
  std::filesystem::create_directories(a2);
  writeFile(dir / "file", "x");
  const std::string d = a2.string();
  const std::string golden = " --dir " CUBECHECK_SOURCE_DIR "/vectors/golden";
  const std::vector<BadArgs> rows{
      {"vectors check --dut reference --report-dir '' " + d, "--dir " + d},
      {"vectors verify --results " + (dir / "file").string() + " --report-dir '' " + d,
       "--dir " + d},
      {"vectors verify --results " + d + " --report-dir ''" + golden, "--results '" + d + "'"},
      {"vectors check --waivers " + d + " --report-dir ''" + golden, "--waivers '" + d + "'"},
      {"certify --level smoke --waivers " + d + " --report-dir ''", "--waivers '" + d + "'"},
      {"fuzz --time 1 --waivers " + d + " --report-dir ''", "--waivers '" + d + "'"},
      {"merge-reports --out " + (dir / "m.json").string() + " " + d, d + " is a directory"},
      {"sparse-check --b " + d, "--b '" + d + "'"},
      {"sparse-check --b " + (dir / "file").string() + " --dense " + d + " --index " + d,
       "--dense '" + d + "'"},
  };
  expectRefusedUpFront(rows, (dir / "out").string(), "");
  for (const BadArgs& row : rows) {
    EXPECT_EQ(runCli(row.args).out.find("internal error"), std::string::npos) << row.args;
  }
  std::filesystem::remove_all(dir);
}

// A named vector file that does not exist was replayed as a partial run, counted as one more
// file of the set ("1 of 19 files" of a set of 18) and called "not part of the set (remove it)".
// It is a usage error naming the file.
TEST(Cli, ANamedVectorFileThatDoesNotExistIsAUsageError) {
  const auto dir = tempDir("absent_vector_file");
  std::filesystem::create_directories(dir);
  writeFile(dir / "results.csv", "case_id,status,observed\n");
  const std::string absent = CUBECHECK_SOURCE_DIR "/vectors/golden/absent.a2.csv";
  const std::string says = "vector file '" + absent + "' does not exist";
  const std::vector<BadArgs> rows{
      {"vectors check --dut reference --report-dir '' " + absent, says},
      {"vectors verify --results " + (dir / "results.csv").string() + " --report-dir '' " + absent,
       says},
  };
  expectRefusedUpFront(rows, (dir / "out").string(), "");
  std::filesystem::remove_all(dir);
}

// A number its option's type cannot hold was clamped (CLI11 reads 99999999999999999999 as the
// largest long long) and the run went on with that. Every integer option of every command, and
// --time, refuses it as typed, as it refuses a non-number: exit 2 before anything runs, naming
// the option and the text.
TEST(Cli, NumbersThatDoNotFitTheirOptionAreRefusedAsTyped) {
  const auto dir = tempDir("overflow_args");
  const std::string out = (dir / "out").string();
  const std::string big = "99999999999999999999";
  // Each integer option of each command, then past the least of a long long, past an unsigned
  // and an int, a double's overflow, not a number, not decimal.
  const std::vector<std::pair<std::string, std::string>> typed{
      {"certify --case", big},
      {"certify --timeout-ms", big},
      {"certify --shrink-ms", big},
      {"fuzz --cases", big},
      {"fuzz --timeout-ms", big},
      {"vectors check --timeout-ms", big},
      {"fingerprint --timeout-ms", big},
      {"certify --case", "-" + big},
      {"fuzz --shard-count", "4294967296"},
      {"fuzz --shard-count", "-4294967295"},
      {"vectors regen --random", "2147483648"},
      {"fuzz --time", "1e400"},
      {"certify --case", "12abc"},
      {"certify --case", "0x10"}};
  std::vector<BadArgs> rows;
  for (const auto& [option, value] : typed) {
    const bool regen = option.rfind("vectors regen", 0) == 0;
    rows.push_back({option + " " + value + (regen ? " --out " : " --report-dir ''"),
                    option.substr(option.find("--")) + ": '" + value + "'"});
  }
  // The options read as text first refuse it too.
  rows.push_back({"fuzz --seed " + big + " --report-dir ''", "--seed '" + big + "'"});
  rows.push_back({"mutants --seed " + big, "--seed '" + big + "'"});
  rows.push_back({"fuzz --shard " + big + "/4 --report-dir ''", big + "/4"});
  expectRefusedUpFront(rows, out, out);
  // A leading zero is decimal, as typed, not octal: --case 010 is case 10.
  const CliRun r = runCli(
      "certify --dut reference --level smoke --seed 1 --quiet --family load2d "
      "--property MatchesOracle --case 010 --report-dir ''");
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("--case 10"), std::string::npos) << r.out;
  std::filesystem::remove_all(dir);
}

// A run killed outright (SIGKILL: the OOM killer, a lost node, a CI hard timeout) cannot write
// its reports. The report directory held an earlier CONFORMANT certificate and an earlier fuzz's
// regressions: once the new run has started, neither reads as this run's. Every format says the
// run is in progress with no verdict, junit fails, merge-reports refuses the report, and the old
// regressions are kept, moved aside.
TEST(Cli, AKilledRunLeavesNoEarlierVerdictBehind) {
  const auto dir = tempDir("killed");
  const CliRun first =
      runCli("certify --dut reference --level smoke --seed 1 --quiet --report-dir " + dir.string());
  ASSERT_EQ(first.status, 0) << first.out;
  ASSERT_EQ(readJson(dir / "report.json")["verdict"], "conformant");
  fs::create_directories(dir / "regressions");
  writeFile(dir / "regressions" / "load2d.a2.csv", "# fuzz regressions of an earlier run\n");
  // Started, then killed as soon as its start is on disk (or after 60 s: the test then fails).
  const std::string cmd =
      "sh -c '\"" + std::string(CUBECHECK_BINARY) +
      "\" certify --dut mutant:mmad-init-ignored --level full --seed 1 --quiet --report-dir " +
      dir.string() + " >/dev/null 2>&1 & pid=$!; i=0; while [ $i -lt 600 ] && ! grep -q " +
      "\"in progress\" " + (dir / "report.json").string() +
      "; do sleep 0.1; i=$((i+1)); done; kill -KILL $pid; wait $pid; echo killed $?'";
  const CliRun killed = cubecheck::test::runCommand(cmd);
  EXPECT_NE(killed.out.find("killed 137"), std::string::npos)
      << "SIGKILLed mid-run: " << killed.out;
  const Json j = readJson(dir / "report.json");
  EXPECT_EQ(j["verdict"], "in progress");
  EXPECT_NE(j["headline"].get<std::string>().find("RUN IN PROGRESS (started "), std::string::npos);
  EXPECT_NE(j["headline"].get<std::string>().find("mutant:mmad-init-ignored"), std::string::npos)
      << "names the command";
  for (const char* file : {"report.json", "report.md", "report.html", "junit.xml"}) {
    const std::string t = text(dir / file);
    EXPECT_EQ(t.find("CONFORMANT"), std::string::npos) << file << ":\n" << t;
    EXPECT_EQ(t.find("\"conformant\""), std::string::npos) << file << ":\n" << t;
  }
  EXPECT_NE(text(dir / "report.md").find("RUN IN PROGRESS"), std::string::npos);
  EXPECT_NE(text(dir / "junit.xml").find("failures=\"1\""), std::string::npos);
  const CliRun merge = runCli("merge-reports --out " + (dir / "m.json").string() + " " +
                              (dir / "report.json").string());
  EXPECT_EQ(merge.status, 2) << merge.out;
  EXPECT_NE(merge.out.find("no verdict"), std::string::npos) << merge.out;
  // The earlier regressions: not beside the new report, not lost.
  EXPECT_FALSE(fs::exists(dir / "regressions")) << "an earlier run's corpus as if this run's";
  std::vector<fs::path> aside;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().rfind("regressions.earlier-", 0) == 0) aside.push_back(e);
  }
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_EQ(text(aside[0] / "load2d.a2.csv"), "# fuzz regressions of an earlier run\n");
  fs::remove_all(dir);
}

// New user (round 10): a filtered run, or another command's report, written into a directory
// holding a certificate replaced it: the signed certificate was gone. Such a run now moves the
// certificate aside, whole, and says where; a run of the same command and whole scope replaces
// it as before. A replay's reproduce line (--case) writes no report unless --report-dir is given.
TEST(Cli, APartialRunOrAnotherCommandDoesNotReplaceACertificate) {
  const auto dir = tempDir("certificate_aside");
  fs::remove_all(dir);
  const std::string into = " --report-dir " + dir.string();
  ASSERT_EQ(runCli("certify --level smoke --seed 3 --quiet" + into).status, 0);
  ASSERT_EQ(readJson(dir / "report.json")["report_kind"], "certificate");
  auto aside = [&] {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().filename().string().starts_with("certificate.earlier-")) out.push_back(e);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  // The same command, whole: replaced, nothing set aside.
  ASSERT_EQ(runCli("certify --level smoke --seed 3 --quiet" + into).status, 0);
  EXPECT_TRUE(aside().empty());
  const std::string certificate = text(dir / "report.json");
  // A partial run: the certificate moves, every file of it, and the run says where.
  CliRun r = runCli("certify --level smoke --seed 3 --family load2d --quiet" + into);
  ASSERT_EQ(r.status, 0) << r.out;
  ASSERT_EQ(aside().size(), 1u);
  EXPECT_NE(r.out.find("moved to " + aside()[0].string() +
                       ": a partial run does not replace a certificate"),
            std::string::npos)
      << r.out;
  for (const char* file : {"report.json", "report.md", "report.html", "junit.xml"}) {
    EXPECT_TRUE(fs::exists(aside()[0] / file)) << file;
  }
  EXPECT_TRUE(text(aside()[0] / "report.json") == certificate) << "not the certificate, whole";
  EXPECT_EQ(readJson(dir / "report.json")["report_kind"], "partial_run");
  // A partial report is no certificate: the next partial run replaces it.
  ASSERT_EQ(runCli("certify --level smoke --seed 3 --family mmad --quiet" + into).status, 0);
  EXPECT_EQ(aside().size(), 1u);
  // Another command's report over a certificate: set aside too.
  ASSERT_EQ(runCli("certify --level smoke --seed 3 --quiet" + into).status, 0);
  const std::string golden = std::string(CUBECHECK_SOURCE_DIR) + "/vectors/golden";
  r = runCli("vectors check --dut reference --dir " + golden + into);
  ASSERT_EQ(r.status, 0) << r.out;
  ASSERT_EQ(aside().size(), 2u);
  EXPECT_NE(r.out.find("a vectors check report does not replace a certify certificate"),
            std::string::npos)
      << r.out;
  // A replay's --case run with no --report-dir writes nothing (the default directory included).
  const auto cwd = tempDir("certificate_aside_cwd");
  fs::remove_all(cwd);
  fs::create_directories(cwd);
  const std::string id = readJson(dir / "report.json")["families"][0]["name"];  // any text
  r = cubecheck::test::runCommand("cd " + cwd.string() + " && " + CUBECHECK_BINARY +
                                  " vectors check --dut reference --dir " + golden + " --case " +
                                  id);
  EXPECT_EQ(r.status, 1) << r.out;  // no row has that id: an input error
  EXPECT_FALSE(fs::exists(cwd / "cubecheck-report")) << r.out;
  fs::remove_all(dir);
  fs::remove_all(cwd);
}

// mutants and merge-reports --out write report.json alone. Into a directory holding another
// run's report.md, report.html and junit.xml they left those describing that run beside the new
// report.json (a certificate's report.md still said CONFORMANT). The earlier run's files move,
// whole, to report.earlier-TIME/ (certificate.earlier-TIME/ for a certificate); a report.json
// with no such files beside it is written as before.
TEST(Cli, AReportJsonAloneNeverSitsBesideAnotherRunsReports) {
  const auto dir = tempDir("report_json_alone");
  fs::remove_all(dir);
  const std::vector<std::string> others{"report.md", "report.html", "junit.xml"};
  // The directories in `d` whose names begin with `stem`.
  const auto aside = [](const fs::path& d, const std::string& stem) {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(d)) {
      if (e.is_directory() && e.path().filename().string().starts_with(stem)) out.push_back(e);
    }
    return out;
  };
  const auto expectMoved = [&](const fs::path& d, const std::string& stem,
                               const std::string& earlierJson, const CliRun& r) {
    const std::vector<fs::path> moved = aside(d, stem);
    ASSERT_EQ(moved.size(), 1u) << r.out;
    EXPECT_EQ(text(moved[0] / "report.json"), earlierJson) << "not the earlier run's, whole";
    for (const std::string& f : others) {
      EXPECT_FALSE(fs::exists(d / f)) << f << " left beside the new report.json";
      EXPECT_TRUE(fs::exists(moved[0] / f)) << f;
    }
    EXPECT_NE(r.out.find("moved to " + moved[0].string()), std::string::npos) << r.out;
  };

  // mutants into a partial certify run's directory (no certificate: nothing moved it before).
  const fs::path m = dir / "mutants";
  ASSERT_EQ(
      runCli("certify --family load2d --level smoke --seed 3 --quiet --report-dir " + m.string())
          .status,
      0);
  const std::string partial = text(m / "report.json");
  ASSERT_EQ(readJson(m / "report.json")["report_kind"], "partial_run");
  CliRun r = runCli("mutants --seed 3 --report-dir " + m.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(readJson(m / "report.json").contains("mutants"));
  expectMoved(m, "report.earlier-", partial, r);
  EXPECT_NE(r.out.find("a mutants run writes only report.json there"), std::string::npos) << r.out;

  // merge-reports --out DIR/report.json into a copy of a certificate's directory.
  const fs::path cert = dir / "certificate", copy = dir / "copy";
  ASSERT_EQ(runCli("certify --level smoke --seed 3 --quiet --report-dir " + cert.string()).status,
            0);
  ASSERT_EQ(readJson(cert / "report.json")["report_kind"], "certificate");
  fs::copy(cert, copy, fs::copy_options::recursive);
  const std::string certificate = text(copy / "report.json");
  r = runCli("merge-reports --out " + (copy / "report.json").string() + " " +
             (cert / "report.json").string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_TRUE(readJson(copy / "report.json").contains("merged_from"));
  expectMoved(copy, "certificate.earlier-", certificate, r);

  // --out report.json with no other report file beside it: written, nothing else touched.
  const fs::path plain = dir / "plain";
  fs::create_directories(plain);
  r = runCli("merge-reports --out " + (plain / "report.json").string() + " " +
             (cert / "report.json").string());
  ASSERT_EQ(r.status, 0) << r.out;
  std::vector<std::string> names;
  for (const auto& e : fs::directory_iterator(plain)) names.push_back(e.path().filename());
  EXPECT_EQ(names, std::vector<std::string>{"report.json"});
  fs::remove_all(dir);
}

// Random draws of a property with few distinct programs repeat earlier cases (load3d_v1's
// illegal programs do within four draws): regen leaves the repeats out and says so, instead of
// refusing to write anything, and no file holds a case twice.
TEST(Cli, RegenLeavesOutRandomDrawsThatRepeatACase) {
  const auto dir = tempDir("regen_repeats");
  const CliRun r = runCli("vectors regen --random 4 --out " + dir.string());
  ASSERT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("random draws repeated an earlier case and were left out"),
            std::string::npos)
      << r.out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().extension() != ".csv") continue;
    std::ifstream in(e.path());
    std::set<std::string> ids;
    std::string line;
    while (std::getline(in, line)) {
      if (line.empty() || line[0] != '"') continue;  // comments and the header
      const std::string id = line.substr(0, line.find(','));
      EXPECT_TRUE(ids.insert(id).second) << e.path() << " holds " << id << " twice";
    }
  }
  fs::remove_all(dir);
}

// One report (or regression) directory, one writer: while another run holds the directory's
// lock, every command that writes reports or regression vectors there exits 2 naming that run
// and touches nothing; once it is released, the directory is free again.
TEST(Cli, AReportDirAnotherRunHoldsIsRefused) {
  const auto dir = tempDir("held");
  const auto other = tempDir("held_other");
  const CliRun first = runCli(
      "certify --dut reference --level smoke --seed 1 --quiet --report-dir " + other.string());
  ASSERT_EQ(first.status, 0) << first.out;
  fs::create_directories(dir);
  const std::string holder = "pid 1, started 2026-12-01T02:00:00Z, command cubecheck fuzz";
  writeFile(dir / ".cubecheck.lock", holder + "\n");
  writeFile(dir / "report.json", "left alone\n");
  const int fd = ::open((dir / ".cubecheck.lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  const std::string to = " --report-dir " + dir.string();
  for (const std::string& args :
       {"certify --dut reference --level smoke --seed 1 --quiet" + to,
        "fuzz --dut reference --cases 5 --seed 1 --quiet" + to, "mutants --seed 1" + to,
        "merge-reports" + to + " " + (other / "report.json").string(),
        "vectors check --dir " CUBECHECK_SOURCE_DIR "/vectors/golden" + to,
        "fingerprint --dut reference" + to,
        "certify --dut reference --level smoke --seed 1 --quiet --report-dir '' --regression-dir " +
            dir.string(),
        "fuzz --dut reference --cases 5 --seed 1 --quiet --report-dir '' --regression-dir " +
            dir.string()}) {
    const CliRun r = runCli(args);
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("is in use by another cubecheck run (" + holder + ")"), std::string::npos)
        << args << "\n"
        << r.out;
    std::ifstream in(dir / "report.json");
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "left alone\n") << args;
  }
  ::close(fd);
  const CliRun after = runCli("certify --dut reference --level smoke --seed 1 --quiet" + to);
  EXPECT_EQ(after.status, 0) << after.out;
  EXPECT_EQ(readJson(dir / "report.json")["verdict"], "conformant");
  fs::remove_all(dir);
  fs::remove_all(other);
}

/// The directories in `dir` whose names start with `stem`.
std::vector<fs::path> setAside(const fs::path& dir, const std::string& stem) {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().starts_with(stem)) out.push_back(e.path());
  }
  return out;
}

// nu11 F17: `fingerprint` wrote fingerprint.json of one DUT beside another run's certificate in
// the default report directory, and a later certify moved its certificate aside but left the
// fingerprint. A directory describes one run: fingerprint moves another run's reports aside as
// every command does (a certificate whole, to certificate.earlier-TIME), and every other command
// moves an earlier fingerprint.json aside with them.
TEST(Cli, AFingerprintNeverSharesADirectoryWithAnotherRunsReports) {
  const auto dir = tempDir("fingerprint_aside");
  const std::string into = " --report-dir " + dir.string();
  ASSERT_EQ(runCli("certify --level smoke --seed 3 --quiet" + into).status, 0);
  const std::string certificate = text(dir / "report.json");
  const CliRun fingerprint = runCli("fingerprint --dut reference" + into);
  EXPECT_EQ(fingerprint.status, 0) << fingerprint.out;
  EXPECT_TRUE(fs::exists(dir / "fingerprint.json"));
  for (const char* name : {"report.json", "report.md", "report.html", "junit.xml"}) {
    EXPECT_FALSE(fs::exists(dir / name)) << name << " of the certify run stayed beside it";
  }
  const std::vector<fs::path> kept = setAside(dir, "certificate.earlier-");
  ASSERT_EQ(kept.size(), 1u) << fingerprint.out;
  EXPECT_EQ(text(kept[0] / "report.json"), certificate) << "the certificate, whole";
  EXPECT_NE(fingerprint.out.find("a fingerprint report does not replace a certify certificate"),
            std::string::npos)
      << fingerprint.out;

  const std::string measured = text(dir / "fingerprint.json");
  const CliRun again = runCli("certify --level smoke --seed 3 --family load2d --quiet" + into);
  EXPECT_EQ(again.status, 0) << again.out;
  EXPECT_FALSE(fs::exists(dir / "fingerprint.json")) << "left beside the certify run's reports";
  const std::vector<fs::path> earlier = setAside(dir, "report.earlier-");
  ASSERT_EQ(earlier.size(), 1u) << again.out;
  EXPECT_EQ(text(earlier[0] / "fingerprint.json"), measured);
  EXPECT_NE(again.out.find("the earlier fingerprint.json would have gone on describing another "
                           "run"),
            std::string::npos)
      << again.out;
  fs::remove_all(dir);
}

/// Runs cubecheck with `args` in a process group of its own, waits until `watched` says "in
/// progress" (at most 60 s: the test then fails), and SIGKILLs the group, cubecheck and any DUT it
/// started: a run killed outright. Its output says "killed 137" when the kill landed mid-run.
CliRun killedOnceInProgress(const std::string& args, const fs::path& watched) {
  return cubecheck::test::runCommand(
      "sh -c 'setsid \"" + std::string(CUBECHECK_BINARY) + "\" " + args +
      " >/dev/null 2>&1 & pid=$!; i=0; while [ $i -lt 600 ] && ! grep -q \"in progress\" " +
      watched.string() +
      " 2>/dev/null; do sleep 0.1; i=$((i+1)); done; kill -KILL -$pid; wait $pid; echo killed $?'");
}

// Review: whether a run would replace a certificate was decided when it started, from its
// filters, so a whole run of the same command that then did not finish (killed, interrupted)
// lost the certificate. It is now set aside until the run has written its own, and kept when the
// run never does. A damaged earlier report.json does not stop a run either.
TEST(Cli, AWholeRunThatDoesNotFinishKeepsTheCertificateItWouldReplace) {
  const auto dir = tempDir("certificate_kept");
  fs::remove_all(dir);
  const std::string into = " --report-dir " + dir.string();
  ASSERT_EQ(runCli("certify --level smoke --seed 3 --quiet" + into).status, 0);
  const std::string certificate = text(dir / "report.json");
  const CliRun killed =
      killedOnceInProgress("certify --level full --seed 1 --quiet" + into, dir / "report.json");
  EXPECT_NE(killed.out.find("killed 137"), std::string::npos) << killed.out;
  std::vector<fs::path> aside;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.path().filename().string().starts_with("certificate.earlier-")) aside.push_back(e);
  }
  ASSERT_EQ(aside.size(), 1u);
  EXPECT_TRUE(text(aside[0] / "report.json") == certificate) << "not the certificate, whole";
  for (const std::string damaged : {"{\"report_kind\": 7, \"command\": null}", "[1, 2]",
                                    "{\"report_kind\": \"certificate\","}) {
    std::ofstream(dir / "report.json") << damaged;
    const CliRun r = runCli("certify --level smoke --seed 3 --family load2d --quiet" + into);
    EXPECT_EQ(r.status, 0) << damaged << "\n" << r.out;
  }
  fs::remove_all(dir);
}

// Every command that writes into a report directory marks what it will write "in progress"
// before it starts, as certify does (above): mutants' report.json, fingerprint's
// fingerprint.json (another run's report.json beside it moves aside, below), and
// merge-reports --report-dir's four reports, so a kill part-way never leaves an earlier verdict
// looking current. merge-reports is killed by the file size limit while it writes the merged
// report.json, which is larger than the limit; its in-progress reports are not.
TEST(Cli, EveryCommandWritingAReportDirMarksItFirst) {
  const auto dir = tempDir("killed_others");
  auto expectInProgress = [](const Json& j, const std::string& command) {
    EXPECT_EQ(j["verdict"], "in progress") << j.dump(2);
    EXPECT_EQ(j["command"], command);
    EXPECT_EQ(j["report_kind"], "in_progress");
  };

  // mutants: an earlier mutants report.json, then a run killed mid-way.
  const fs::path mutants = dir / "mutants";
  fs::create_directories(mutants);
  writeJson(mutants / "report.json", Json{{"killed", 1}, {"mutants", Json::array()}});
  CliRun killed = killedOnceInProgress(
      "mutants --level full --seed 1 --report-dir " + mutants.string(), mutants / "report.json");
  EXPECT_NE(killed.out.find("killed 137"), std::string::npos)
      << "SIGKILLed mid-run: " << killed.out;
  expectInProgress(readJson(mutants / "report.json"), "mutants");
  EXPECT_FALSE(fs::exists(mutants / "junit.xml")) << "mutants writes only report.json";

  // fingerprint, against a DUT that declares float Mmad and answers no program: killed while it
  // waits for the first.
  const fs::path fp = dir / "fingerprint";
  fs::create_directories(fp);
  const fs::path stall = dir / "stall_dut.sh";
  std::ofstream(stall) << "#!/bin/sh\nread greeting\nprintf 'dut 1\\nname stall\\nversion 1\\n"
                          "profiles a2\\ninstructions load2d mmad set_hf32\\ndtypes f16 bf16 "
                          "f32\\nobservable GM L1 L0A L0B L0C\\nrejects_illegal 0\\nend\\n'\n"
                          "exec sleep 600\n";
  fs::permissions(stall, fs::perms::owner_all);
  writeJson(fp / "fingerprint.json", Json{{"dut", "an earlier run"}});
  const std::string certified = "{\"verdict\": \"conformant\"}\n";
  std::ofstream(fp / "report.json") << certified;
  killed = killedOnceInProgress("fingerprint --dut exec:" + stall.string() +
                                    " --timeout-ms 600000 --report-dir " + fp.string(),
                                fp / "fingerprint.json");
  EXPECT_NE(killed.out.find("killed 137"), std::string::npos)
      << "SIGKILLed mid-run: " << killed.out;
  expectInProgress(readJson(fp / "fingerprint.json"), "fingerprint");
  EXPECT_FALSE(fs::exists(fp / "report.json")) << "another run's report, moved aside";

  // merge-reports --report-dir over an earlier run's reports.
  const fs::path merged = dir / "merged";
  std::vector<std::string> shards;
  for (int i = 0; i < 2; ++i) {
    const fs::path d = dir / ("shard" + std::to_string(i));
    const CliRun r =
        runCli("fuzz --dut reference --family load2d --cases 4 --seed 3 --quiet " +
               std::string("--shard ") + std::to_string(i) + "/2 --report-dir " + d.string());
    ASSERT_EQ(r.status, 0) << r.out;
    shards.push_back((d / "report.json").string());
  }
  const std::string inputs = shards[0] + " " + shards[1];
  CliRun earlier = runCli(
      "fuzz --dut reference --family load2d --cases 4 --seed 1 --quiet "
      "--report-dir " +
      merged.string());
  ASSERT_EQ(earlier.status, 0) << earlier.out;
  ASSERT_EQ(readJson(merged / "report.json")["verdict"], "conformant");
  const CliRun whole =
      runCli("merge-reports --out " + (dir / "whole.json").string() + " " + inputs);
  ASSERT_EQ(whole.status, 0) << whole.out;
  constexpr std::uintmax_t kLimit = 4 * 1024;  // bash's ulimit -f 4: 4 KiB
  ASSERT_GT(fs::file_size(dir / "whole.json"), kLimit) << "the limit must stop the merge";
  killed = cubecheck::test::runCommand("bash -c 'ulimit -f 4; \"" + std::string(CUBECHECK_BINARY) +
                                       "\" merge-reports --report-dir " + merged.string() + " " +
                                       inputs + " >/dev/null 2>&1; echo status $?'");
  EXPECT_NE(killed.out.find("status 153"), std::string::npos)
      << "SIGXFSZ (25) while writing the merged report.json: " << killed.out;
  expectInProgress(readJson(merged / "report.json"), "merge-reports");
  for (const char* file : {"report.md", "report.html", "junit.xml"}) {
    const std::string t = text(merged / file);
    EXPECT_NE(t.find("RUN IN PROGRESS"), std::string::npos) << file << ":\n" << t;
  }
  // Not killed, it replaces the marks with the merged reports.
  const CliRun done = runCli("merge-reports --report-dir " + merged.string() + " " + inputs);
  EXPECT_EQ(done.status, 0) << done.out;
  EXPECT_EQ(readJson(merged / "report.json")["verdict"], "conformant");
  EXPECT_EQ(text(merged / "report.md").find("RUN IN PROGRESS"), std::string::npos);
  fs::remove_all(dir);
}

// Ctrl-C during certify: the run stops before its next case, writes every report of what ran,
// marked interrupted, and exits 130.
TEST(Cli, InterruptedCertifyWritesWhatItHas) {
  const auto dir = tempDir("interrupt");
  const std::string cmd = "sh -c '\"" + std::string(CUBECHECK_BINARY) +
                          "\" certify --level full --seed 3 --quiet --report-dir " + dir.string() +
                          " & pid=$!; sleep 2; kill -INT $pid; wait $pid' 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string text;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) text.append(buf, n);
  const int st = pclose(p);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 130) << text;
  // The headline leads with what stopped the run, never NONCONFORMANT with "conformant: ...".
  EXPECT_NE(text.find("verdict: INTERRUPTED, not a certificate; what ran found "),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("conformant:"), std::string::npos) << text;
  std::ifstream in(dir / "report.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_TRUE(j["interrupted"].get<bool>());
  EXPECT_EQ(j["verdict"], "nonconformant");
  ASSERT_FALSE(j["families"].empty()) << "the cases that ran are reported";
  EXPECT_GT(j["families"][0]["passed"].get<int>(), 0);
  std::ifstream md(dir / "report.md");
  const std::string mdText{std::istreambuf_iterator<char>(md), {}};
  EXPECT_NE(mdText.find("INTERRUPTED"), std::string::npos);
  EXPECT_EQ(mdText.find("Scope: complete run"), std::string::npos) << mdText;
  // junit.xml fails the run: its exit status is not 0.
  std::ifstream junit(dir / "junit.xml");
  const std::string junitText{std::istreambuf_iterator<char>(junit), {}};
  EXPECT_NE(junitText.find("<testcase classname=\"cubecheck run\" name=\"run finished\""),
            std::string::npos)
      << junitText;
  const std::size_t top = junitText.find("<testsuites ");
  ASSERT_NE(top, std::string::npos) << junitText;
  EXPECT_EQ(junitText.substr(top, junitText.find('\n', top) - top).find("failures=\"0\""),
            std::string::npos)
      << junitText;
  std::filesystem::remove_all(dir);
}

// A DUT's name and version carry escapes, a carriage return and markup that try to forge a
// CONFORMANT verdict: none of it reaches the terminal, report.md or report.html as such. The
// same plugin claims an absurd response size every fifth program: an AdapterError of that case.
TEST(Cli, DutStringsCannotForgeTheReport) {
  const auto dir = tempDir("forge");
  const CliRun r = runCli(std::string("certify --dut plugin:") + HOSTILE_PLUGIN +
                          " --family load2d --property MatchesOracle --level smoke --seed 5 "
                          "--quiet --report-dir " +
                          dir.string());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_EQ(r.out.find('\x1b'), std::string::npos) << "an escape reached the terminal";
  EXPECT_EQ(r.out.find('\r'), std::string::npos) << "a carriage return reached the terminal";
  EXPECT_EQ(r.out.find("\nverdict: CONFORMANT"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("reported a response of"), std::string::npos) << r.out;
  auto slurp = [](const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string{std::istreambuf_iterator<char>(in), {}};
  };
  for (const char* name : {"report.md", "report.html", "report.json", "junit.xml"}) {
    const std::string text = slurp(dir / name);
    ASSERT_FALSE(text.empty()) << name;
    EXPECT_EQ(text.find('\x1b'), std::string::npos) << name;
    EXPECT_EQ(text.find('\r'), std::string::npos) << name;
  }
  // JSON holds the name as data; the documents a browser or Markdown viewer renders escape it.
  for (const char* name : {"report.md", "report.html"}) {
    EXPECT_EQ(slurp(dir / name).find("<script>"), std::string::npos) << name;
  }
  const std::string md = slurp(dir / "report.md");
  EXPECT_EQ(md.find("**bold**"), std::string::npos) << "markup in a DUT name must be escaped";
  // A filtered run: the heading says PARTIAL RUN and what ran, never a certificate.
  EXPECT_NE(md.find("# cubecheck PARTIAL RUN"), std::string::npos) << md;
  EXPECT_NE(md.find("what ran is nonconformant"), std::string::npos) << md;
  EXPECT_EQ(md.find("certificate: CONFORMANT"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// sparse-check: a NUL inside a CSV line is an error at its line and column (it used to end the
// line silently); an upper-case .BIN is read as raw bytes.
TEST(Cli, SparseCheckRejectsNulAndReadsUpperCaseBin) {
  const auto dir = tempDir("sparse_nul");
  std::filesystem::create_directories(dir);
  writeFile(dir / "nul.csv", std::string("0,0,5,6\n0,0\0,5,6,7\n", 20));
  CliRun r = runCli("sparse-check --b " + (dir / "nul.csv").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("nul.csv:2:4: a NUL byte"), std::string::npos) << r.out;
  writeFile(dir / "b.BIN", std::string("\x01\x00\x00\x00", 4));
  r = runCli("sparse-check --b " + (dir / "b.BIN").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("needs --shape"), std::string::npos) << "read as CSV: " << r.out;
  r = runCli("sparse-check --shape 4x1 --b " + (dir / "b.BIN").string());
  EXPECT_EQ(r.status, 0) << r.out;
  std::filesystem::remove_all(dir);
}

// sparse-check quotes a number of a CSV file as written: strtol read 99999999999999999999 as
// 9223372036854775807, and the error quoted that. A .npy shape whose element count overflows
// (2^32 x 2^32 wrapped to 0 elements, read as a 0 x 0 matrix) is refused.
TEST(Cli, SparseCheckQuotesOverflowingNumbersAsWritten) {
  const auto dir = tempDir("sparse_overflow");
  std::filesystem::create_directories(dir);
  writeFile(dir / "big.csv", "0,0\n0,99999999999999999999\n");
  CliRun r = runCli("sparse-check --b " + (dir / "big.csv").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("big.csv:2:3: 99999999999999999999 is out of range for int8 [-128, 127]"),
            std::string::npos)
      << r.out;
  const std::string header =
      "{'descr': '|i1', 'fortran_order': False, 'shape': (4294967296, 4294967296), }\n";
  std::string npy = std::string("\x93NUMPY\x01\x00", 8);
  npy += static_cast<char>(header.size() & 0xFF);
  npy += static_cast<char>(header.size() >> 8);
  writeFile(dir / "wrap.npy", npy + header);
  r = runCli("sparse-check --b " + (dir / "wrap.npy").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("wrap.npy: shape (4294967296, 4294967296) is too large"), std::string::npos)
      << r.out;
  std::filesystem::remove_all(dir);
}

}  // namespace hostile
