// The cubecheck binary as a user runs it: exit codes, report files, error messages.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct CliRun {
  int status;
  std::string out;
};

CliRun cubecheck(const std::string& args) {
  const std::string cmd = std::string(CUBECHECK_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  CliRun r{-1, {}};
  if (p == nullptr) return r;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int st = pclose(p);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

std::filesystem::path tempDir(const char* name) {
  auto d = std::filesystem::temp_directory_path() / ("cubecheck_cli_" + std::string(name));
  std::filesystem::remove_all(d);
  return d;
}

TEST(Cli, CertifyReferenceExitsZeroAndWritesReports) {
  const auto dir = tempDir("ok");
  const CliRun r = cubecheck(
      "certify --dut reference --level smoke --seed 9 --quiet --report-dir " + dir.string());
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("verdict: CONFORMANT"), std::string::npos) << r.out;
  std::ifstream in(dir / "report.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_EQ(j["verdict"], "conformant");
  EXPECT_EQ(j["seed"], 9);
  EXPECT_TRUE(std::filesystem::exists(dir / "junit.xml"));
  std::filesystem::remove_all(dir);
}

TEST(Cli, MutantExitsOneAndPrintsReproduce) {
  const auto dir = tempDir("mutant");
  const CliRun r = cubecheck(
      "certify --dut mutant:load2d-src-stride-on-dst --level smoke --seed 9 --quiet --report-dir " +
      dir.string());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("reproduce: cubecheck certify --dut 'mutant:load2d-src-stride-on-dst'"),
            std::string::npos);
  std::ifstream in(dir / "report.json");
  EXPECT_EQ(nlohmann::json::parse(in)["verdict"], "nonconformant");
  std::filesystem::remove_all(dir);
}

TEST(Cli, UsageErrorsExitTwoWithAHint) {
  CliRun r = cubecheck("certify --profile 910 --report-dir ''");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("use a2, 950 or legacy"), std::string::npos) << r.out;
  r = cubecheck("certify --dut nonsense --report-dir ''");
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("expected reference, mutant:NAME, exec:PROGRAM"), std::string::npos)
      << r.out;
  r = cubecheck("certify --family load9d --report-dir ''");
  EXPECT_EQ(r.status, 2);
  r = cubecheck("certify --seed 12x --report-dir ''");
  EXPECT_EQ(r.status, 2);
  r = cubecheck("");
  EXPECT_EQ(r.status, 2);
}

void writeFile(const std::filesystem::path& p, const std::string& text) {
  std::ofstream(p) << text;
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
  CliRun r = cubecheck(b);
  EXPECT_EQ(r.status, 0) << r.out;
  r = cubecheck(b + " --dense " + (dir / "dense_spec.csv").string() + " --index " +
                (dir / "index.csv").string());
  EXPECT_EQ(r.status, 0) << r.out;
  r = cubecheck(b + " --dense " + (dir / "dense_vendor.csv").string() + " --index " +
                (dir / "index.csv").string());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_NE(r.out.find("column n 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("OPEN-2"), std::string::npos) << r.out;
  writeFile(dir / "bad.csv", "1,2\n3,,4\n");
  r = cubecheck("sparse-check --b " + (dir / "bad.csv").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("bad.csv:2:3: expected an integer"), std::string::npos) << r.out;
  writeFile(dir / "b.bin", std::string("\x01\x00\x00\x00", 4));
  r = cubecheck("sparse-check --b " + (dir / "b.bin").string());
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.out.find("needs --shape"), std::string::npos) << r.out;
  r = cubecheck("sparse-check --shape 4x1 --b " + (dir / "b.bin").string());
  EXPECT_EQ(r.status, 0) << r.out;
  std::filesystem::remove_all(dir);
}

TEST(Cli, HelpExitsZero) {
  const CliRun r = cubecheck("certify --help");
  EXPECT_EQ(r.status, 0);
  EXPECT_NE(r.out.find("--profile"), std::string::npos);
}

}  // namespace

namespace hostile {

struct BadArgs {
  const char* args;  // appended to the binary; every row runs nothing and writes nothing
  const char* says;  // a piece of the message: the option or file it names
};

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
      {"certify --property Bogus --report-dir ''", "MatchesOracle"},
      {"certify --family load2d --property Bogus --report-dir ''", "TransposeInvolution"},
      {"vectors export --dir /no/such/dir --out ", "no vector files in --dir /no/such/dir"},
      {"vectors verify --dir " CUBECHECK_SOURCE_DIR
       "/vectors/golden --results /no/such/results.csv --report-dir ''",
       "--results '/no/such/results.csv'"},
  };
  for (const BadArgs& row : rows) {
    std::string args = row.args;
    if (args.back() == ' ') args += args.find("--out") != std::string::npos ? out : underFile;
    const auto t0 = std::chrono::steady_clock::now();
    const CliRun r = cubecheck(args);
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    EXPECT_EQ(r.status, 2) << args << "\n" << r.out;
    EXPECT_NE(r.out.find(row.says), std::string::npos) << args << "\n" << r.out;
    EXPECT_LT(seconds, 5.0) << args << ": found only after running";
  }
  EXPECT_FALSE(std::filesystem::exists(out)) << "a rejected command wrote output";
  std::filesystem::remove_all(dir);
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
  EXPECT_NE(text.find("INTERRUPTED"), std::string::npos) << text;
  EXPECT_NE(text.find("verdict: NONCONFORMANT"), std::string::npos) << text;
  std::ifstream in(dir / "report.json");
  const auto j = nlohmann::json::parse(in);
  EXPECT_TRUE(j["interrupted"].get<bool>());
  EXPECT_EQ(j["verdict"], "nonconformant");
  ASSERT_FALSE(j["families"].empty()) << "the cases that ran are reported";
  EXPECT_GT(j["families"][0]["passed"].get<int>(), 0);
  std::ifstream md(dir / "report.md");
  const std::string mdText{std::istreambuf_iterator<char>(md), {}};
  EXPECT_NE(mdText.find("INTERRUPTED"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// A DUT's name and version carry escapes, a carriage return and markup that try to forge a
// CONFORMANT verdict: none of it reaches the terminal, report.md or report.html as such. The
// same plugin claims an absurd response size every fifth program: an AdapterError of that case.
TEST(Cli, DutStringsCannotForgeTheReport) {
  const auto dir = tempDir("forge");
  const CliRun r = cubecheck(std::string("certify --dut plugin:") + HOSTILE_PLUGIN +
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
  EXPECT_NE(md.find("# cubecheck certificate: NONCONFORMANT"), std::string::npos);
  EXPECT_EQ(md.find("certificate: CONFORMANT"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// sparse-check: a NUL inside a CSV line is an error at its line and column (it used to end the
// line silently); an upper-case .BIN is read as raw bytes.
TEST(Cli, SparseCheckRejectsNulAndReadsUpperCaseBin) {
  const auto dir = tempDir("sparse_nul");
  std::filesystem::create_directories(dir);
  writeFile(dir / "nul.csv", std::string("0,0,5,6\n0,0\0,5,6,7\n", 20));
  CliRun r = cubecheck("sparse-check --b " + (dir / "nul.csv").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("nul.csv:2:4: a NUL byte"), std::string::npos) << r.out;
  writeFile(dir / "b.BIN", std::string("\x01\x00\x00\x00", 4));
  r = cubecheck("sparse-check --b " + (dir / "b.BIN").string());
  EXPECT_EQ(r.status, 2) << r.out;
  EXPECT_NE(r.out.find("needs --shape"), std::string::npos) << "read as CSV: " << r.out;
  r = cubecheck("sparse-check --shape 4x1 --b " + (dir / "b.BIN").string());
  EXPECT_EQ(r.status, 0) << r.out;
  std::filesystem::remove_all(dir);
}

}  // namespace hostile
