// cubecheck: the command line.
#include <signal.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <set>
#include <sstream>
#include <type_traits>

#include "cli/args.hpp"
#include "cli/ascendc_export_cmd.hpp"
#include "cli/exit_codes.hpp"
#include "cli/export_cmd.hpp"
#include "cli/fingerprint_cmd.hpp"
#include "cli/run_marker.hpp"
#include "cli/sparse_check_cmd.hpp"
#include "conformance/build_info.hpp"
#include "conformance/dut_health.hpp"
#include "conformance/explain.hpp"
#include "conformance/families.hpp"
#include "conformance/fuzz.hpp"
#include "conformance/indirect.hpp"
#include "conformance/merge.hpp"
#include "conformance/report.hpp"
#include "conformance/runner.hpp"
#include "conformance/sha256.hpp"
#include "conformance/shard.hpp"
#include "dut_adapters/exec_dut.hpp"
#include "dut_adapters/registry.hpp"
#include "dut_adapters/sanitise.hpp"
#include "vectors/ascendc_plan.hpp"
#include "vectors/vectors.hpp"

namespace {

using namespace cubecheck;

using cli::kExitConformant;
using cli::kExitInternal;
using cli::kExitInterrupted;
using cli::kExitNonconformant;
using cli::kExitUsage;

/// The integer an option of type V is read into (an optional<unsigned> reads an unsigned).
template <class V>
struct IntegerOf {
  using type = V;
};
template <class V>
struct IntegerOf<std::optional<V>> {
  using type = V;
};

/// An option read into an integer, its text checked as typed first (cli::parseInteger): a number
/// its type cannot hold, 99999999999999999999 say, is a usage error naming the option and the
/// text, where CLI11 alone would read the largest value. Handed on in plain decimal, so CLI11
/// does not read 010 as octal 8.
template <class V>
CLI::Option* addInteger(CLI::App* app, const std::string& name, V& value, const std::string& help) {
  using T = typename IntegerOf<V>::type;
  static_assert(std::is_integral_v<T> &&
                std::numeric_limits<T>::max() <= std::numeric_limits<long long>::max());
  const CLI::Validator fits(
      [](std::string& text) {
        std::string error;
        const std::optional<long long> v = cli::parseInteger(text, std::numeric_limits<T>::min(),
                                                             std::numeric_limits<T>::max(), error);
        if (v) text = std::to_string(*v);
        return v ? std::string() : error;
      },
      "");
  return app->add_option(name, value, help)->transform(fits);
}

/// An option that takes a value, followed by an argument that starts with "--": CLI11 takes
/// that argument as the value (`certify --seed --level smoke` read "--level" as the seed and
/// then refused "smoke"), so the message was about the wrong word. Found before CLI11 parses:
/// the command (e.g. "certify") and what is wrong, or nullopt. A value that does start with
/// "--" is still given as --option=VALUE.
std::optional<std::pair<std::string, std::string>> optionMissingItsValue(CLI::App& app, int argc,
                                                                         char** argv) {
  CLI::App* current = &app;
  std::string command;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--") return std::nullopt;  // what follows is positional
    if (arg.rfind("-", 0) != 0) {
      try {
        current = current->get_subcommand(arg);
        command += (command.empty() ? "" : " ") + arg;
      } catch (const CLI::OptionNotFound&) {
        // a positional argument
      }
      continue;
    }
    if (arg.rfind("--", 0) != 0) continue;
    const std::size_t eq = arg.find('=');
    const std::string name = arg.substr(0, eq);
    const CLI::Option* option = current->get_option_no_throw(name);
    if (option == nullptr || option->get_items_expected_min() == 0) continue;  // a flag
    if (eq != std::string::npos) {
      // --seed=VALUE carries its value; --seed= (a script's --seed="$SEED" with SEED unset)
      // carries none, and CLI11 would take the next argument for it.
      if (eq + 1 < arg.size()) continue;
      return std::pair{command, name + " is missing its value: nothing follows '='"};
    }
    if (i + 1 >= argc) return std::nullopt;  // CLI11 says it is missing
    const std::string next = argv[i + 1];
    if (next.rfind("--", 0) == 0) {
      return std::pair{
          command, arg + " is missing its value: the next argument, " + dut::printable(next, 60) +
                       ", is an option (give a value that starts with -- as " + arg + "=VALUE)"};
    }
    ++i;  // the value
  }
  return std::nullopt;
}

int usageError(std::string_view command, const std::string& error) {
  std::cerr << "cubecheck " << command << ": " << error << '\n';
  return kExitUsage;
}

/// The last lines of a run that wrote --report-dir: the files, report.md and report.html named a
/// certificate only when they are one (a complete certify or replay run that finished).
void printReportPaths(const std::string& dir, const conf::CertifyResult& r) {
  const bool certificate = r.reportKind() == "certificate";
  std::cout << "reports: " << dir << "/report.json, " << dir << "/junit.xml"
            << (conf::specBeside(r) ? ", " + dir + "/spec.md (the spec they cite)" : std::string())
            << '\n'
            << (certificate ? "certificate: " : "report for people (not a certificate): ") << dir
            << "/report.md, " << dir << "/report.html\n";
}

/// A finished (or partial) run's exit status: interrupted 130, cubecheck's own error 3, else
/// conformant 0 / nonconformant 1.
int exitCodeOf(const conf::CertifyResult& r) {
  if (r.interrupted) return kExitInterrupted;
  if (!r.internalError.empty()) return kExitInternal;
  return r.conformant() ? kExitConformant : kExitNonconformant;
}

/// The command line as typed (cli::commandLine), for the report a run writes as it starts.
std::string gCommandLine;

/// Before any case runs: the files the command writes into the report directory replaced by
/// "run in progress" and an earlier run's regressions moved aside (cli/run_marker.hpp). No
/// directory: nothing.
/// Holds an explicit --regression-dir as a report directory is held (cli::holdDirectory): a
/// second run writing regression vectors into it would replace the first's files.
void holdRegressionDir(const std::string& regressionDir) {
  if (regressionDir.empty()) return;
  std::filesystem::create_directories(regressionDir);
  cli::holdDirectory(regressionDir, "--regression-dir", gCommandLine);
}

/// `partial`: the run's report will not be a whole certificate (a filter, named files), so an
/// earlier certificate in the directory is moved aside rather than replaced (cli::startReportDir).
void startReports(const std::string& reportDir, const std::string& command, bool partial,
                  const std::vector<std::filesystem::path>& inputs = {},
                  const std::vector<std::string>& files = cli::kReportFiles,
                  const std::string& reportCommand = {}) {
  if (reportDir.empty()) return;
  const std::string moved =
      cli::startReportDir(reportDir, command, gCommandLine, partial, inputs, files, reportCommand);
  if (!moved.empty()) std::cerr << "cubecheck " << command << ": " << moved << '\n';
}

/// Once a run's reports are written: an earlier certificate set aside until the run had its own
/// is dropped when it has one, and kept (saying where) when it does not (cli::settleEarlier...).
void settleReports(const std::string& reportDir, const std::string& command,
                   const conf::CertifyResult& r) {
  const std::string kept =
      cli::settleEarlierCertificate(reportDir, r.reportKind() == "certificate");
  if (!kept.empty()) std::cerr << "cubecheck " << command << ": " << kept << '\n';
}

std::atomic<bool> gStop{false};
extern "C" void onStopSignal(int sig) {
  gStop.store(true);
  dut::interruptDuts(sig);
}

/// SIGINT and SIGTERM set gStop: the run stops before its next case and writes what it has. They
/// are passed on to the DUT's process group, which the terminal's Ctrl-C does not reach: a DUT
/// they end ends the case in flight at once, not a --timeout-ms later.
void catchStopSignals() {
  struct sigaction sa {};
  sa.sa_handler = onStopSignal;
  ::sigaction(SIGINT, &sa, nullptr);
  ::sigaction(SIGTERM, &sa, nullptr);
  // A closed terminal's SIGHUP likewise, unless it is ignored (nohup): it no longer reaches the
  // DUT's process group by itself, and a simulator the DUT started would outlive the run.
  struct sigaction hup {};
  if (::sigaction(SIGHUP, nullptr, &hup) == 0 && hup.sa_handler != SIG_IGN) {
    ::sigaction(SIGHUP, &sa, nullptr);
  }
}

std::function<void(const std::string&)> progressPrinter(bool quiet) {
  if (quiet) return {};
  const bool tty = isatty(STDERR_FILENO) != 0;
  return [tty](const std::string& line) {
    if (tty) {
      std::cerr << '\r' << std::left << std::setw(79) << line << std::flush;
    } else {
      std::cerr << line << '\n';
    }
  };
}

/// Cases per second of each family, one terminal line (report.json has it per family too): what
/// a run's budget buys, family by family, for nightly fuzzing to plan with.
void printRates(const conf::CertifyResult& r) {
  std::ostringstream os;
  os << "cases/s:";
  for (const conf::FamilyResult& f : r.families) {
    if (const std::optional<double> rate = f.casesPerSecond()) {
      os << "  " << f.name << ' ' << std::fixed << std::setprecision(0) << *rate;
    }
  }
  std::cerr << os.str() << '\n';
}

struct CommonOptions {
  std::string profile = "a2";
  std::string level = "full";
  std::string seedText;
  std::string sizes;  ///< empty: mixed, large at nightly
};

bool resolve(const CommonOptions& c, conf::RunOptions& o, std::string& error) {
  auto p = isa::parseProfile(c.profile);
  if (!p) {
    error = "unknown profile '" + c.profile + "': use a2, 950 or legacy";
    return false;
  }
  auto l = conf::parseLevel(c.level);
  if (!l) {
    error = "unknown level '" + c.level + "': use smoke, full or nightly";
    return false;
  }
  o.profile = *p;
  o.level = *l;
  const std::string sizes =
      c.sizes.empty() ? (*l == conf::Level::Nightly ? "large" : "mixed") : c.sizes;
  auto s = gen::parseSizes(sizes);
  if (!s) {
    error = "unknown --sizes '" + c.sizes + "': use small, mixed or large";
    return false;
  }
  o.sizes = *s;
  if (c.seedText.empty()) {
    o.seed = (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  } else {
    const auto seed = cli::parseUnsigned("--seed", c.seedText, error);
    if (!seed) return false;
    o.seed = *seed;
  }
  return true;
}

/// The waivers of --waivers FILE for `command`, or an error message naming the file and field;
/// no file: none.
std::optional<std::vector<conf::Waiver>> loadWaivers(const std::string& file, std::string& error) {
  if (file.empty()) return std::vector<conf::Waiver>{};
  if (!cli::checkNotDirectory("--waivers", file, "give the JSON file of waivers", error)) {
    return std::nullopt;
  }
  std::ifstream in(file);
  if (!in) {
    error = "--waivers " + file + ": cannot be read";
    return std::nullopt;
  }
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  try {
    return conf::parseWaivers(text, file);
  } catch (const conf::WaiverError& e) {
    error = std::string("--waivers ") + e.what();
    return std::nullopt;
  }
}

/// Writes one file of a regression corpus and the manifest over every file the run wrote to
/// `dir` (`written`), so the corpus replays as a whole set (docs/vectors.md).
void writeCorpusFile(const std::filesystem::path& dir, const std::string& family,
                     const std::string& profile, const std::vector<vec::Row>& rows,
                     const std::string& provenance, std::set<std::filesystem::path>& written) {
  written.insert(vec::writeFile(dir, family, profile, rows, provenance));
  vec::writeManifest(dir, {written.begin(), written.end()});
}

int runCertify(const std::string& dutSpec, conf::RunOptions o, const std::string& reportDir,
               bool quiet, long long timeoutMs, const std::string& regressionDir,
               std::vector<conf::Waiver> waivers) {
  std::string error;
  if (!cli::checkExecProgram(dutSpec, error)) return usageError("certify", error);
  std::unique_ptr<dut::Dut> dut;
  try {
    dut = dut::makeDut(dutSpec, std::chrono::milliseconds(timeoutMs));
  } catch (const std::invalid_argument& e) {
    std::cerr << "cubecheck certify: " << e.what() << '\n';
    return kExitUsage;
  }
  if (!cli::checkFamilies(o.families, error)) return usageError("certify", error);
  if (o.property && !cli::checkProperty(*o.property, o.families, o.profile, error)) {
    return usageError("certify", error);
  }
  if (!cli::checkWritableDir("--report-dir", reportDir, error) ||
      !cli::checkWritableDir("--regression-dir", regressionDir, error)) {
    return usageError("certify", error);
  }
  std::unique_ptr<dut::Dut> narrowed;
  if (!o.given.empty() && o.observable.empty()) {
    return usageError("certify", "--given narrows a board rehearsal: it needs --observable");
  }
  if (!o.observable.empty()) {
    std::vector<isa::Memory> observable, given;
    for (auto [list, into, name] : {std::tuple{&o.observable, &observable, "--observable"},
                                    std::tuple{&o.given, &given, "--given"}}) {
      try {
        if (!list->empty()) *into = conf::parseMemoryList(*list);
      } catch (const std::invalid_argument& e) {
        std::cerr << "cubecheck certify: " << name << ": " << e.what() << '\n';
        return kExitUsage;
      }
    }
    narrowed = std::make_unique<conf::NarrowedDut>(*dut, observable, given);
  }
  o.dutSpec = dutSpec;
  holdRegressionDir(regressionDir);
  startReports(reportDir, "certify", !o.families.empty() || o.property || o.caseIndex);
  conf::WaiverSet waiverSet(std::move(waivers), conf::todayUtc(), dutSpec,
                            dut->capabilities().name);
  if (!waiverSet.empty()) o.waivers = &waiverSet;
  o.progress = progressPrinter(quiet);
  // Each failing case goes into the regression corpus as soon as it is found: the file is
  // rewritten whole (temporary name, then rename), so a killed run leaves a readable corpus.
  std::map<std::string, std::vector<vec::Row>> corpus;
  std::set<std::filesystem::path> corpusFiles;
  if (!regressionDir.empty()) {
    o.onFailure = [&corpus, &corpusFiles, &regressionDir, &o](const std::string& family,
                                                              const conf::Failure& f) {
      if (!f.vector) return;
      const std::string profile(isa::profile(o.profile).name);
      vec::Row row{
          vec::caseIdOf(family, profile, f.vector->program),        family,   profile, f.property,
          "regression: " + f.detail.substr(0, f.detail.find('\n')), *f.vector};
      auto& rows = corpus[family];
      for (const vec::Row& r : rows) {
        if (r.caseId == row.caseId) return;
      }
      rows.push_back(std::move(row));
      writeCorpusFile(regressionDir, family, profile, rows,
                      "regression corpus of cubecheck certify --dut '" + o.dutSpec + "' --seed " +
                          std::to_string(o.seed),
                      corpusFiles);
    };
  }
  if (!quiet) std::cerr << "cubecheck: seed " << o.seed << '\n';
  catchStopSignals();
  o.stop = &gStop;
  const conf::CertifyResult r = conf::certify(narrowed ? *narrowed : *dut, o);
  if (o.progress && isatty(STDERR_FILENO)) std::cerr << '\r' << std::string(79, ' ') << '\r';
  conf::printReport(std::cout, r);
  if (!quiet) printRates(r);
  if (!reportDir.empty()) {
    conf::writeReports(reportDir, r);
    settleReports(reportDir, "certify", r);
    // The certificate people read comes last, where the eye lands.
    printReportPaths(reportDir, r);
  }
  return exitCodeOf(r);
}

/// The width of a column of `list` (each entry's `field`): its longest entry and two spaces, so
/// no entry runs into the next column.
template <class List, class Field>
int columnWidth(const List& list, Field field, std::size_t least) {
  std::size_t width = least;
  for (const auto& m : list) width = std::max(width, (m.*field).size());
  return static_cast<int>(width + 2);
}

int runMutants(conf::RunOptions o, bool list, const std::string& reportDir) {
  // Mutants and readings in one table: the widest name and family of either set the columns.
  const int nameWidth = std::max(columnWidth(dut::mutants(), &dut::Mutant::name, 6),
                                 columnWidth(dut::readings(), &dut::Mutant::name, 6));
  if (list) {
    const int familyWidth = std::max(columnWidth(dut::mutants(), &dut::Mutant::family, 6),
                                     columnWidth(dut::readings(), &dut::Mutant::family, 6));
    for (const dut::Mutant& m : dut::mutants()) {
      std::cout << std::left << std::setw(nameWidth) << m.name << std::setw(familyWidth) << m.family
                << m.description << '\n';
    }
    // Not mutants: other readings of open points, which certify with the probe naming them.
    for (const dut::Reading& m : dut::readings()) {
      std::cout << std::left << std::setw(nameWidth) << m.name << std::setw(familyWidth) << m.family
                << m.description << " (conformant)\n";
    }
    return kExitConformant;
  }
  // A mutants run writes only report.json: that, not a certify's other files, is marked.
  startReports(reportDir, "mutants", false, {}, {"report.json"});
  std::cout << std::left << std::setw(nameWidth) << "mutant" << std::setw(8) << "killed"
            << std::right << std::setw(7) << "cases" << std::setw(9) << "seconds"
            << "  first failure (shrunk)\n";
  nlohmann::ordered_json report;
  report["seed"] = o.seed;
  report["level"] = conf::nameOf(o.level);
  report["mutants"] = nlohmann::ordered_json::array();
  std::size_t survivors = 0;
  std::vector<double> killSeconds;
  for (const dut::Mutant& m : dut::mutants()) {
    const std::string spec = "mutant:" + std::string(m.name);
    std::unique_ptr<dut::Dut> d = dut::makeDut(spec);
    // A fault in an instruction only a board's rewrite runs is run as a board would run it.
    const conf::BoardEnvelope board = conf::boardEnvelope(m.profile);
    conf::NarrowedDut narrowed(*d, board.observable, board.given);
    dut::Dut& target = m.throughBoard ? static_cast<dut::Dut&>(narrowed) : *d;
    conf::RunOptions mo = o;
    mo.profile = m.profile;
    mo.families = {std::string(m.family)};
    mo.dutSpec = spec;
    mo.stopAtFirstFailure = true;
    const conf::CertifyResult r = conf::certify(target, mo);
    const conf::FamilyResult& f = r.families.at(0);
    // Killed means a case failed; NotSupported everywhere would kill nothing.
    const bool killed = f.counts.failures() > 0;
    survivors += killed ? 0 : 1;
    const conf::Failure* first = f.failures.empty() ? nullptr : &f.failures.front();
    if (killed) killSeconds.push_back(r.seconds);
    std::cout << std::left << std::setw(nameWidth) << m.name << std::setw(8)
              << (killed ? "yes" : "NO") << std::right << std::setw(7)
              << (killed ? f.casesToFirstFailure : f.counts.total()) << std::setw(9) << std::fixed
              << std::setprecision(2) << r.seconds << "  "
              << (first ? first->property + ": " + first->caseText : std::string("-")) << '\n';
    nlohmann::ordered_json j;
    j["name"] = m.name;
    j["family"] = m.family;
    j["profile"] = isa::profile(m.profile).name;
    j["description"] = m.description;
    j["killed"] = killed;
    j["cases_to_first_failure"] = f.casesToFirstFailure;
    j["seconds"] = r.seconds;
    if (first) {
      j["property"] = first->property;
      j["counterexample"] = first->caseText;
      j["detail"] = first->detail;
      j["reproduce"] = first->reproduce;
    }
    report["mutants"].push_back(j);
  }
  std::sort(killSeconds.begin(), killSeconds.end());
  const double median = killSeconds.empty() ? 0 : killSeconds[killSeconds.size() / 2];
  std::cout << '\n'
            << dut::mutants().size() - survivors << " of " << dut::mutants().size()
            << " mutants killed; median time to kill " << std::setprecision(3) << median << " s\n";
  report["killed"] = dut::mutants().size() - survivors;
  report["median_seconds_to_kill"] = median;
  if (!reportDir.empty()) {
    cli::replaceFile(
        std::filesystem::path(reportDir) / "report.json",
        report.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + '\n');
    std::cout << "report: " << reportDir << "/report.json\n";
  }
  return survivors == 0 ? kExitConformant : kExitNonconformant;
}

/// What every case of a `vectors verify` of an export-ascendc set rests on besides its own
/// instructions (beside what its board plan adds: vec::BoardPlan::restsOn).
constexpr const char* kBoardKernelLine =
    "ran on a board through the exported Ascend C kernel: images staged by DataCopy, L0C read "
    "back by Fixpipe and L1 by DataCopy (docs/hardware.md)";
/// ... and of a `vectors verify` of any other set: its results came from a harness of the user's.
constexpr const char* kOwnHarnessLine =
    "answered by a harness cubecheck did not write (the results of a vectors export), which "
    "stages and reads back each memory with instructions not known here";

/// ... and of a set without a manifest: nothing says whose harness wrote its results.
constexpr const char* kUnnamedHarnessLine =
    "answered by a harness the set does not name (it has no manifest, so not even whether "
    "cubecheck's exported kernel ran it), which stages and reads back each memory with "
    "instructions not known here";

/// What a replay reads and how it reports.
struct Replay {
  std::vector<std::filesystem::path> files;
  bool wholeDir = true;  ///< `files` are every vector file of --dir (none named)
  std::string caseFilter;
  std::string reportDir;
  std::string reproducePrefix;
  std::vector<std::string> inputErrors;  ///< found before the replay (a results file's)
  /// Why the replay is narrower than its input, beside --case and the set's own (a results
  /// file's results for cases not replayed, set aside): part of the run's scope.
  std::vector<std::string> narrowed = {};
  /// --expect-digest: the digest the replayed set must have (the one published with it), or
  /// empty. Any other digest, or none (no manifest), is an input error.
  std::string expectDigest = {};
  /// The DUT answers from results recorded earlier (`vectors verify`): nothing runs, so every
  /// row is compared however many errors it holds in a row; only a live DUT (`vectors check`)
  /// is given up on after conf::FailureStreak's consecutive timeouts or adapter errors.
  bool recorded = false;
};

/// Named FILES of a set replay only some of it: the case ids of the other vector files of their
/// directories (the rest of their sets), each with the first file holding it.
std::map<std::string, std::string> casesOfOtherFiles(
    const std::vector<std::filesystem::path>& files) {
  std::map<std::filesystem::path, std::set<std::filesystem::path>> named;  // dir -> names
  for (const auto& file : files) {
    named[file.has_parent_path() ? file.parent_path() : "."].insert(file.filename());
  }
  std::map<std::string, std::string> out;
  for (const auto& [dir, names] : named) {
    for (const auto& other : vec::vectorFiles(dir)) {
      if (names.contains(other.filename())) continue;
      for (const vec::Row& row : vec::readFile(other).rows) out.emplace(row.caseId, other.string());
    }
  }
  return out;
}

/// What certify says of `family` on `profile`, given to the replay's family of a file that holds
/// its rows: the open points its verdict rests on, its provisional mark, its properties' claims.
/// A replay checks the same semantics, so its report says the same of them.
void describeAsCertify(conf::FamilyResult& fr, const std::string& family,
                       const std::string& profile,
                       std::set<std::pair<std::string, std::string>>& described) {
  if (!described.emplace(family, profile).second) return;
  const std::optional<isa::ProfileId> id = isa::parseProfile(profile);
  if (!id) return;
  const std::optional<conf::Family> f = conf::makeFamily(family, *id, gen::Sizes::Mixed);
  if (!f) return;
  for (const std::string& open : f->openPoints) {
    if (std::find(fr.openPoints.begin(), fr.openPoints.end(), open) == fr.openPoints.end()) {
      fr.openPoints.push_back(open);
    }
  }
  if (fr.provisional.empty()) fr.provisional = f->provisional;
  for (conf::PropertyResult& pr : fr.properties) {
    if (!pr.summary.empty()) continue;
    for (const auto& prop : f->properties) {
      if (prop->name() == pr.name) pr.summary = prop->summary();
    }
  }
}

/// For a --case no replayed row has: "; FILE has it: ..." when another file of the named files'
/// directories holds it, else empty.
std::string caseElsewhere(const Replay& in) {
  if (in.wholeDir) return {};
  const auto cases = casesOfOtherFiles(in.files);
  const auto it = cases.find(in.caseFilter);
  if (it == cases.end()) return {};
  return "; " + dut::printable(it->second, 200) + " has it: name that file, or give --dir";
}

/// Replays vector rows against a DUT; reports as certify does, one "family" per file. Every
/// input error (file, row, sidecar, manifest, results, a row twice) is part of the result: the
/// run is then not certified.
int replayVectors(dut::Dut& dut, const std::string& dutSpec, Replay in,
                  std::vector<conf::Waiver> waivers = {}) {
  conf::WaiverSet waiverSet(std::move(waivers), conf::todayUtc(), dutSpec, dut.capabilities().name);
  conf::CertifyResult r;
  r.command = in.reproducePrefix.starts_with("cubecheck vectors verify") ? "vectors verify"
                                                                         : "vectors check";
  const vec::SetCheck set = vec::checkSet(in.files, in.wholeDir);
  startReports(in.reportDir, r.command,
               !in.caseFilter.empty() || !set.partial.empty() || !in.narrowed.empty(), in.files);
  r.dutSpec = dutSpec;
  r.capabilities = conf::declaredCapabilities(dut);
  r.vectorSet = conf::CertifyResult::VectorSet{set.digest, {}, set.sourceDigest, set.subset};
  r.inputErrors = std::move(in.inputErrors);
  r.inputErrors.insert(r.inputErrors.end(), set.errors.begin(), set.errors.end());
  std::string expected = in.expectDigest;  // hex digits in either case
  std::transform(expected.begin(), expected.end(), expected.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (!expected.empty() && set.digest != expected) {
    r.inputErrors.push_back(
        "--expect-digest " + dut::printable(in.expectDigest, 40) + ": " +
        (set.digest.empty() ? std::string("the files replayed have no manifest, so no digest")
                            : "the set replayed has digest " + set.digest) +
        ": it is not the set published with that digest (a file or row added, removed or "
        "edited, or the manifest deleted)");
  }
  if (!in.caseFilter.empty()) r.scope.filters.push_back("--case " + in.caseFilter);
  r.scope.filters.insert(r.scope.filters.end(), set.partial.begin(), set.partial.end());
  r.scope.filters.insert(r.scope.filters.end(), in.narrowed.begin(), in.narrowed.end());
  r.scope.complete = r.scope.filters.empty();
  std::map<std::string, std::string> firstAt;  // case id -> FILE:LINE of its first row
  const auto start = std::chrono::steady_clock::now();
  catchStopSignals();
  conf::FailureStreak streak;
  std::size_t variants = 0;  // replayed rows that are board variants (vectors export-ascendc)
  for (const auto& file : in.files) {
    if (r.interrupted || !r.stoppedEarly.empty() || !r.internalError.empty()) break;
    // Results of a board: through the exported kernel (an export-ascendc set, whose plan for
    // each case says what it rests on), or through a harness of the user's own (any other set).
    // What checkSet read of the file's directory: whether it has a manifest, and its note.
    const auto kind = set.exportKindOf.find(file.has_parent_path() ? file.parent_path() : ".");
    const bool setHasManifest = kind != set.exportKindOf.end();
    const bool boardKernel = in.recorded && setHasManifest && kind->second == "export-ascendc";
    vec::ReadResult rr = vec::readFile(file);
    r.inputErrors.insert(r.inputErrors.end(), rr.errors.begin(), rr.errors.end());
    conf::FamilyResult fr;
    fr.name = dut::printable(file.filename().string(), 200);
    std::set<std::pair<std::string, std::string>> described;  // (family, profile) of its rows
    for (std::size_t i = 0; i < rr.rows.size(); ++i) {
      const vec::Row& row = rr.rows[i];
      const std::string at = file.string() + ":" + std::to_string(rr.lines[i]);
      if (auto [first, fresh] = firstAt.emplace(row.caseId, at); !fresh) {
        r.inputErrors.push_back(dut::printable(at + ":1: column case_id: case " + row.caseId +
                                                   " is also the row at " + first->second +
                                                   ": a duplicated row (replayed once; remove one)",
                                               300));
        continue;
      }
      auto& profiles = r.vectorSet->profiles;
      if (std::find(profiles.begin(), profiles.end(), row.profile) == profiles.end()) {
        profiles.push_back(row.profile);
      }
      if (!in.caseFilter.empty() && row.caseId != in.caseFilter) continue;
      if (gStop.load()) {
        r.interrupted = true;
        break;
      }
      if (auto p = isa::parseProfile(row.profile)) r.profile = *p;
      conf::Verdict v;
      try {
        v = conf::checkVector(dut, row.c);
        if (gStop.load()) {
          // The signal came while the row ran, and was passed on to the DUT's process group:
          // what the row ended in is not the DUT's doing, so it is counted in no outcome.
          ++r.casesCutShort;
          r.interrupted = true;
          break;
        }
        if (in.recorded && v.outcome != conf::Outcome::NotSupported) {
          if (!boardKernel) {
            // No export note: a published set (a harness of the user's), or a set without a
            // manifest, which names nothing (an unverified export among them).
            ++fr.indirect[setHasManifest ? kOwnHarnessLine : kUnnamedHarnessLine];
          } else {
            ++fr.indirect[kBoardKernelLine];
            for (const std::string& line : vec::planForBoard(row.c.program).restsOn) {
              ++fr.indirect[line];
            }
          }
        }
      } catch (const std::exception& e) {
        r.internalError = fr.name + " case " + row.caseId + ": " + e.what();
        break;
      }
      if (row.why.find(vec::kBoardVariantMark) != std::string::npos) ++variants;
      if (!in.recorded && streak.record(v.outcome)) {
        r.stoppedEarly = conf::FailureStreak::reason(v.detail);
      }
      auto prop =
          std::find_if(fr.properties.begin(), fr.properties.end(),
                       [&](const conf::PropertyResult& p) { return p.name == row.property; });
      if (prop == fr.properties.end()) {
        fr.properties.push_back({row.property, "", {}, 0});
        prop = fr.properties.end() - 1;
        described.erase({row.family, row.profile});  // a new property: its claim too
      }
      describeAsCertify(fr, row.family, row.profile, described);
      if (fr.record(*prop, v, {})) {
        conf::Failure failure{row.property,
                              0,
                              v.outcome,
                              row.why,
                              v.detail,
                              in.reproducePrefix + " " + cli::shellWord(file.string()) +
                                  " --case " + cli::shellWord(row.caseId),
                              0,
                              std::nullopt};
        failure.caseId = row.caseId;
        waiverSet.apply(row.family, fr, *prop, failure);
        fr.keep(std::move(failure));
      }
      if (!r.stoppedEarly.empty()) break;
    }
    // No row ran (every one NotSupported): the verdict rests on no open point
    // (conf::openPointsThatRan; rows carry no tags, so a file's rows rest on all of its family's).
    if (fr.nothingInside()) fr.openPoints.clear();
    r.families.push_back(std::move(fr));
  }
  if (variants > 0) {
    std::string& subset = r.vectorSet->subset;
    subset += (subset.empty() ? "" : "; ") + std::to_string(variants) +
              " of the replayed cases are board variants, new programs made from cases of the "
              "source (their why names which; SKIPPED.md says why)";
  }
  const bool finished = !r.interrupted && r.stoppedEarly.empty() && r.internalError.empty();
  if (finished && !in.caseFilter.empty() && !firstAt.contains(in.caseFilter)) {
    r.inputErrors.push_back("--case " + dut::printable(in.caseFilter, 100) +
                            ": no row of the replayed files has this case_id (the first column)" +
                            caseElsewhere(in) + "; nothing was replayed");
  }
  waiverSet.report(r);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  conf::printReport(std::cout, r);
  if (!in.reportDir.empty()) {
    conf::writeReports(in.reportDir, r);
    settleReports(in.reportDir, r.command, r);
    printReportPaths(in.reportDir, r);
  }
  return exitCodeOf(r);
}

/// The FILES named to `vectors check` or `vectors verify` are files that exist: a directory named
/// there is what --dir takes.
bool checkVectorFiles(const std::vector<std::string>& files, std::string& error) {
  for (const std::string& f : files) {
    std::error_code ec;
    if (!std::filesystem::exists(f, ec)) {
      error = "vector file '" + dut::printable(f, 200) +
              "' does not exist: name files that exist, or give --dir DIR to replay every .csv "
              "of a directory";
      return false;
    }
    if (!cli::checkNotDirectory("vector file", f,
                                "give it as --dir " + cli::shellWord(f) +
                                    " to replay every .csv in it, or name its files",
                                error)) {
      return false;
    }
  }
  return true;
}

std::vector<std::filesystem::path> filesOf(const std::string& dir,
                                           const std::vector<std::string>& files) {
  if (!files.empty()) return {files.begin(), files.end()};
  return vec::vectorFiles(dir);
}

int runFuzz(const std::string& dutSpec, const conf::RunOptions& base, double seconds,
            long long cases, const std::string& shard, std::optional<unsigned> shardCount,
            const std::string& reportDir, const std::string& regressionDir, bool quiet,
            long long timeoutMs, std::vector<conf::Waiver> waivers) {
  conf::FuzzOptions o;
  o.profile = base.profile;
  o.seed = base.seed;
  o.sizes = base.sizes;
  o.families = base.families;
  o.shrinkBudget = base.shrinkBudget;
  o.dutSpec = dutSpec;
  o.budget = std::chrono::milliseconds(static_cast<long long>(seconds * 1000));
  if (cases > 0) o.maxCases = static_cast<std::uint64_t>(cases);
  std::string error;
  const std::optional<conf::Shard> sh = conf::resolveShard(
      shard, shardCount, [](const char* n) { return std::getenv(n); }, error);
  if (!sh) {
    std::cerr << "cubecheck fuzz: " << error << '\n';
    return kExitUsage;
  }
  o.shardIndex = sh->index;
  o.shardCount = sh->count;
  if (!sh->statusFile.empty()) {
    // Bazel runs every case in every shard unless the runner says, by this file, that it shards.
    std::ofstream(sh->statusFile, std::ios::app);
  }
  if (!cli::checkFamilies(o.families, error) || !cli::checkSeconds("--time", seconds, error) ||
      !cli::checkRange("--cases", cases, 0, std::numeric_limits<long long>::max(), error) ||
      !cli::checkExecProgram(dutSpec, error) ||
      !cli::checkWritableDir("--report-dir", reportDir, error) ||
      !cli::checkWritableDir("--regression-dir", regressionDir, error)) {
    return usageError("fuzz", error);
  }
  std::unique_ptr<dut::Dut> dut;
  try {
    dut = dut::makeDut(dutSpec, std::chrono::milliseconds(timeoutMs));
  } catch (const std::invalid_argument& e) {
    std::cerr << "cubecheck fuzz: " << e.what() << '\n';
    return kExitUsage;
  }
  holdRegressionDir(regressionDir);
  startReports(reportDir, "fuzz", false);
  conf::WaiverSet waiverSet(std::move(waivers), conf::todayUtc(), dutSpec,
                            dut->capabilities().name);
  if (!waiverSet.empty()) o.waivers = &waiverSet;
  o.progress = progressPrinter(quiet);
  // Every distinct failure becomes a regression vector at once, one row per signature (the
  // smallest case found for it replaces a larger one); the file is rewritten whole under a
  // temporary name, so an interrupted run leaves it readable.
  std::map<std::string, std::map<std::string, vec::Row>> corpus;  // family -> signature -> row
  std::set<std::filesystem::path> corpusFiles;
  std::set<std::string> announced;
  const std::string dir =
      regressionDir.empty() ? (reportDir.empty() ? "" : reportDir + "/regressions") : regressionDir;
  o.onNewFailure = [&](const std::string& family, const conf::Failure& f) {
    if (!quiet && announced.insert(f.signature).second)
      std::cerr << "\nnew failure in " << family << '/' << f.property << ": " << f.reproduce
                << '\n';
    if (dir.empty() || !f.vector) return;
    const std::string profile(isa::profile(o.profile).name);
    auto& bySignature = corpus[family];
    bySignature.insert_or_assign(
        f.signature,
        vec::Row{vec::caseIdOf(family, profile, f.vector->program), family, profile, f.property,
                 "fuzz: " + f.detail.substr(0, f.detail.find('\n')), *f.vector});
    std::vector<vec::Row> rows;
    for (const auto& entry : bySignature) rows.push_back(entry.second);
    writeCorpusFile(dir, family, profile, rows,
                    "fuzz regressions of --dut '" + dutSpec + "' --seed " + std::to_string(o.seed),
                    corpusFiles);
  };
  catchStopSignals();
  o.stop = &gStop;
  // One line, printed with --quiet too: a scheduler's log must show which shard the task took
  // itself for (docs/nightly.md).
  std::cerr << "cubecheck: seed " << o.seed << ", shard " << o.shardIndex << "/" << o.shardCount
            << " (" << sh->source << "), budget " << seconds << " s"
            << (cases > 0 ? ", " + std::to_string(cases) + " cases per property" : "") << '\n';
  conf::CertifyResult r = conf::fuzz(*dut, o);
  r.interrupted = gStop.load();
  if (o.progress && isatty(STDERR_FILENO)) std::cerr << '\n';
  conf::printReport(std::cout, r);
  if (!quiet) printRates(r);
  if (!reportDir.empty()) {
    conf::writeReports(reportDir, r);
    printReportPaths(reportDir, r);
  }
  if (!dir.empty() && !corpus.empty()) std::cout << "regression vectors: " << dir << '\n';
  return exitCodeOf(r);
}

/// Why `out` cannot be written, or empty: checked before anything is read or written, so a
/// bad --out loses nothing.
std::string unwritable(const std::filesystem::path& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(out, ec)) return "is a directory";
  const fs::path parent = out.has_parent_path() ? out.parent_path() : fs::path(".");
  if (!fs::is_directory(parent, ec)) return "its directory " + parent.string() + " does not exist";
  if (fs::exists(out, ec) ? ::access(out.c_str(), W_OK) != 0
                          : ::access(parent.c_str(), W_OK | X_OK) != 0) {
    return "not writable";
  }
  return {};
}

/// merge-reports: exit 0/1 from the merged verdict, 2 naming the file for any bad input.
/// The report files named: a file as it is; a directory as every report.json in it and in its
/// immediate subdirectories (one per shard, as docs/nightly.md lays them out), in name order.
std::vector<std::string> reportFiles(const std::vector<std::string>& inputs) {
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    if (std::filesystem::exists(std::filesystem::path(in) / "report.json", ec)) {
      found.push_back((std::filesystem::path(in) / "report.json").string());
    }
    for (const auto& e : std::filesystem::directory_iterator(in, ec)) {
      const auto r = e.path() / "report.json";
      if (e.is_directory(ec) && std::filesystem::exists(r, ec)) found.push_back(r.string());
    }
    std::sort(found.begin(), found.end());
    if (found.empty()) found.push_back(in);  // read as a file: the error names it
    files.insert(files.end(), found.begin(), found.end());
  }
  return files;
}

/// Reads `file` whole; nullopt when it cannot be opened.
std::optional<std::string> readWhole(const std::string& file) {
  std::ifstream f(file);
  if (!f) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

/// merge-reports: the shards read into the report model, merged, and written by the writers every
/// command uses (--out: report.json; --report-dir: all four formats). Exit 0/1 from the merged
/// model's verdict, 2 naming the file for any bad input; nothing is written on an error.
int runMerge(const std::vector<std::string>& named, const std::string& out,
             const std::string& reportDir) {
  namespace fs = std::filesystem;
  const std::vector<std::string> inputs = reportFiles(named);
  std::string error;
  if (out.empty() && reportDir.empty()) {
    return usageError("merge-reports", "give --out FILE, --report-dir DIR or both");
  }
  if (!out.empty()) {
    if (const std::string why = unwritable(out); !why.empty()) {
      return usageError("merge-reports", "--out " + out + ": " + why);
    }
  }
  std::vector<conf::CertifyResult> shards;
  std::vector<conf::CertifyResult::MergedInput> mergedFrom;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!out.empty() && fs::exists(out, ec) && fs::equivalent(in, out, ec)) {
      return usageError("merge-reports", "--out " + out + " is the input " + in);
    }
    const fs::path written = fs::path(reportDir) / "report.json";
    if (!reportDir.empty() && fs::exists(written, ec) && fs::equivalent(in, written, ec)) {
      return usageError("merge-reports", "--report-dir " + reportDir + " holds the input " + in);
    }
    if (fs::is_directory(in, ec)) {
      return usageError("merge-reports",
                        in + " is a directory holding no report.json, and none of its "
                             "subdirectories holds one: name the shards' report.json files, or "
                             "the directory holding them");
    }
    const std::optional<std::string> text = readWhole(in);
    if (!text) return usageError("merge-reports", "cannot read " + in);
    mergedFrom.push_back({in, conf::sha256Hex(*text)});
    try {
      shards.push_back(conf::fromJson(*text, in));
    } catch (const conf::MergeError& e) {
      return usageError("merge-reports", e.what());
    }
  }
  conf::CertifyResult merged;
  try {
    merged = conf::mergeResults(std::move(shards), inputs);
  } catch (const conf::MergeError& e) {
    return usageError("merge-reports", e.what());
  }
  // Not run here: every format names the files it was made from, by their SHA-256.
  merged.mergedFrom = std::move(mergedFrom);
  // The shards' regression vectors (each fuzz shard keeps its own in REPORT_DIR/regressions):
  // read now, so a damaged set refuses the merge before anything is written, and written into
  // --report-dir's regressions below, one row per case, so that a night leaves one set to replay.
  std::map<std::pair<std::string, std::string>, std::map<std::string, vec::Row>> regressionRows;
  std::vector<std::string> regressionSources;
  if (!reportDir.empty()) {
    for (const std::string& in : inputs) {
      std::error_code ec;
      const fs::path dir =
          (fs::path(in).has_parent_path() ? fs::path(in).parent_path() : fs::path(".")) /
          "regressions";
      if (!fs::is_directory(dir, ec)) continue;
      const std::vector<fs::path> files = vec::vectorFiles(dir);
      if (files.empty()) continue;
      std::vector<std::string> errors = vec::checkSet(files, true).errors;
      for (const fs::path& file : files) {
        vec::ReadResult rr = vec::readFile(file);
        errors.insert(errors.end(), rr.errors.begin(), rr.errors.end());
        for (vec::Row& row : rr.rows) {
          regressionRows[{row.family, row.profile}].emplace(row.caseId, std::move(row));
        }
      }
      if (!errors.empty()) {
        return usageError("merge-reports",
                          "the regression vectors beside " + in + " do not read (" +
                              std::to_string(errors.size()) + " error(s)), the first: " +
                              errors.front() + "; replay them with vectors check --dir " +
                              dir.string() + " to see every one, or move them away");
      }
      regressionSources.push_back(dir.string());
    }
  }
  // Created only now: a bad input leaves no directory behind.
  if (!cli::checkWritableDir("--report-dir", reportDir, error)) {
    return usageError("merge-reports", error);
  }
  // Written over an earlier run's reports: they say "in progress" until the merged ones are all
  // written, so a merge killed part-way leaves no earlier verdict beside half of the new one.
  std::vector<std::filesystem::path> inputPaths(inputs.begin(), inputs.end());
  // An earlier certificate there is compared with the merged report's own command.
  startReports(reportDir, "merge-reports", merged.reportKind() != "certificate", inputPaths,
               cli::kReportFiles, merged.command);
  // --out DIR/report.json beside an earlier run's report.md, report.html, junit.xml or
  // fingerprint.json: those would go on describing that run beside the merged report.json. DIR is
  // started as a report directory the merge writes report.json into: they move aside with the
  // earlier report.json.
  std::error_code ec;
  if (const fs::path outDir = fs::path(out).has_parent_path() ? fs::path(out).parent_path() : ".";
      !out.empty() && fs::path(out).filename() == "report.json" &&
      !(!reportDir.empty() && fs::equivalent(outDir, reportDir, ec)) &&
      std::any_of(cli::kRunFiles.begin(), cli::kRunFiles.end(), [&](const std::string& f) {
        return f != "report.json" && fs::exists(outDir / f, ec);
      })) {
    startReports(outDir.string(), "merge-reports", merged.reportKind() != "certificate", inputPaths,
                 {"report.json"}, merged.command);
  }
  if (!out.empty()) {
    std::ofstream o(out);
    o << conf::toJson(merged);
    o.close();
    if (!o) return usageError("merge-reports", "--out " + out + ": write failed");
  }
  if (!reportDir.empty()) {
    try {
      conf::writeReports(reportDir, merged);
    } catch (const std::exception& e) {
      return usageError("merge-reports", std::string("--report-dir: ") + e.what());
    }
    settleReports(reportDir, "merge-reports", merged);
    std::set<fs::path> written;
    std::size_t rows = 0;
    for (const auto& [key, byCase] : regressionRows) {
      std::vector<vec::Row> list;
      for (const auto& [id, row] : byCase) list.push_back(row);
      rows += list.size();
      writeCorpusFile(fs::path(reportDir) / "regressions", key.first, key.second, list,
                      "regressions of " + std::to_string(regressionSources.size()) +
                          " merged report(s), one row per case",
                      written);
    }
    if (rows > 0) {
      std::cout << "regression vectors: " << rows << " case(s) from " << regressionSources.size()
                << " shard(s)' regressions in " << (fs::path(reportDir) / "regressions").string()
                << '\n';
    }
  }
  if (!out.empty()) {
    settleReports(fs::path(out).has_parent_path() ? fs::path(out).parent_path().string() : ".",
                  "merge-reports", merged);
  }
  conf::printReport(std::cout, merged);
  // The merged report's own headline: a partial merge says PARTIAL RUN, a fuzz merge what it
  // found, never a bare CONFORMANT the report does not say.
  std::cout << "\nmerged " << inputs.size() << " reports into "
            << (out.empty()         ? reportDir
                : reportDir.empty() ? out
                                    : out + " and " + reportDir)
            << ": " << merged.headline() << '\n';
  if (!reportDir.empty()) {
    printReportPaths(reportDir, merged);
  }
  return merged.conformant() ? kExitConformant : kExitNonconformant;
}

}  // namespace

int main(int argc, char** argv) {
  conf::keepFreedMemoryForReuse();
  gCommandLine = cli::commandLine(argc, argv);
  CLI::App app{
      "cubecheck: conformance and differential tests for the Ascend cube pipeline\n"
      "(LoadData 2D/3D, LoadDataWithSparse, Mmad, MmadWithSparse).\n"
      "Exit status: 0 conformant / all mutants killed, 1 nonconformant / a mutant survived,\n"
      "2 usage error, 3 internal error, 130 interrupted (SIGINT/SIGTERM)."};
  app.require_subcommand(1);
  app.set_version_flag("--version", "cubecheck " + std::string(conf::kToolVersion) +
                                        "\ndocs/spec.md SHA-256 " + std::string(conf::kSpecSha256));

  CommonOptions common;
  std::string dutSpec = "reference";
  std::string reportDir = "cubecheck-report";
  // Every file certify, fuzz, vectors check and verify write there (cli::kReportFiles).
  std::string reportDirHelp = "where ";
  for (std::size_t i = 0; i < cli::kReportFiles.size(); ++i) {
    reportDirHelp += (i == 0                             ? ""
                      : i + 1 < cli::kReportFiles.size() ? ", "
                                                         : " and ") +
                     cli::kReportFiles[i];
  }
  reportDirHelp += " go, with spec.md, the spec they cite; '' to write none";
  std::vector<std::string> families;
  std::string property;
  long long caseIndex = -1;
  bool quiet = false;
  long long shrinkMs = 2000;
  long long timeoutMs = 10000;

  // `--seed ""` (a script's `--seed "$SEED"` with SEED unset) is no seed: refused, where leaving
  // --seed out draws a random one.
  const CLI::Validator seedGiven(
      [](std::string& s) {
        return s.empty() ? std::string(
                               "an empty seed: give a number, or leave --seed out for a random "
                               "seed (printed)")
                         : std::string();
      },
      "", "");
  CLI::App* certify = app.add_subcommand(
      "certify", "run the conformance suite against a DUT and print a certificate");
  certify
      ->add_option(
          "--dut", dutSpec,
          "DUT spec: reference | mutant:NAME | 'exec:PROGRAM [ARGS...]' | plugin:PATH.so | "
          "inprocess:PATH.so")
      ->capture_default_str();
  addInteger(certify, "--timeout-ms", timeoutMs,
             "per-program time limit for exec: and plugin: DUTs")
      ->capture_default_str();
  certify->add_option("--profile", common.profile, "chip profile: a2 | 950 | legacy")
      ->capture_default_str();
  certify
      ->add_option("--level", common.level,
                   "case budget: smoke (seconds) | full | nightly (more cases, large sizes)")
      ->capture_default_str();
  certify
      ->add_option("--seed", common.seedText,
                   "run seed (decimal or 0x hex); random and printed when omitted")
      ->check(seedGiven);
  certify->add_option("--sizes", common.sizes,
                      "size draws: small | mixed (default) | large (default at nightly)");
  certify->add_option("--report-dir", reportDir, reportDirHelp)->capture_default_str();
  certify->add_option("--family", families, "only these families (repeatable)");
  certify->add_option("--property", property, "only this property (e.g. MatchesOracle)");
  addInteger(certify, "--case", caseIndex, "only this case index (as a reproduce line gives it)");
  addInteger(certify, "--shrink-ms", shrinkMs, "time cap for shrinking one failure, ms")
      ->capture_default_str();
  certify->add_flag("--quiet", quiet, "no progress lines on stderr");
  std::string regressionDir;
  certify->add_option("--regression-dir", regressionDir,
                      "write every failing case as a vector row here, as it is found "
                      "('cubecheck vectors check --dir DIR' replays them)");
  std::string waiversFile;
  const char* waiversHelp =
      "JSON file of waivers: failures reported as waived with their reason (docs/report.md)";
  certify->add_option("--waivers", waiversFile, waiversHelp);
  std::string observable, given;
  certify->add_option("--observable", observable,
                      "narrow the memories the DUT observes and may be given images of, e.g. "
                      "GM,L1,L0C to rehearse a board (docs/hardware.md)");
  certify->add_option("--given", given,
                      "with --observable: the memories the DUT may be given images of (default: "
                      "the observable ones), e.g. GM,L1,BT for a 950 board, which reads L0C but "
                      "cannot write it, and stages the bias table it cannot read");

  bool list = false;
  CLI::App* mutantsCmd = app.add_subcommand(
      "mutants", "run the suite against each deliberately broken reference; all must be killed");
  mutantsCmd->add_option("--level", common.level, "smoke (default) | full | nightly");
  // A mutant should die within seconds: the mutant run defaults to smoke, certify to full.
  mutantsCmd->preparse_callback([&common](std::size_t) { common.level = "smoke"; });
  mutantsCmd->add_option("--seed", common.seedText, "run seed; random and printed when omitted")
      ->check(seedGiven);
  mutantsCmd->add_flag("--list", list, "list the mutants and exit");
  std::string mutantsReportDir;
  mutantsCmd->add_option("--report-dir", mutantsReportDir, "write DIR/report.json");

  cli::SparseCheckArgs sparse;
  CLI::App* sparseCheck = app.add_subcommand(
      "sparse-check",
      "check a B matrix for 2:4 violations and, with --dense/--index, a compressor's encoding");
  sparseCheck
      ->add_option("--b", sparse.b, "B (K x N int8): .csv (one row per line), .bin (raw) or .npy")
      ->required();
  sparseCheck->add_option("--shape", sparse.shape, "KxN of B, required for a .bin B");
  sparseCheck
      ->add_option("--b-layout", sparse.bLayout,
                   "kn: the file holds B as K x N; nk: the weight as (n, k), N x K")
      ->capture_default_str();
  sparseCheck->add_option("--dense", sparse.dense,
                          "dense B: (K/2) x N int8 (.csv, .bin, .npy), or Zn bytes (--layout zn)");
  sparseCheck->add_option("--index", sparse.index,
                          "indices of the dense B: .csv of 0..3, or .bin/.npy packed four per "
                          "byte, index j in bits 2j+1:2j, in the dense B's order");
  sparseCheck
      ->add_option("--layout", sparse.layout,
                   "row-major: dense and index as (K/2) x N matrices; zn: the L1 bytes "
                   "LoadDataWithSparse reads (dense Zn fractals of 16 x 32, index a "
                   "quarter of that, four per byte in the same order)")
      ->capture_default_str();

  CLI::App* vectors = app.add_subcommand(
      "vectors", "golden vector files: regen, check, export, export-ascendc, verify");
  vectors->require_subcommand(1);
  std::string vecDir = "vectors/golden", vecOut, resultsFile, caseId, expectDigest;
  const char* expectDigestHelp =
      "the set's published digest (regen and export print it): another digest, or no manifest, "
      "is an input error (exit 1), so a CI gate fails on a set that is not the published one";
  std::vector<std::string> vecFiles;
  int randomPerProperty = 3;
  std::string vecSeed = "1";
  CLI::App* regen = vectors->add_subcommand(
      "regen", "write the vector files: same version and arguments, same bytes on any machine");
  regen->add_option("--out", vecOut, "output directory (default: vectors/golden)");
  regen->add_option("--seed", vecSeed, "seed of the random sample")->capture_default_str();
  addInteger(regen, "--random", randomPerProperty, "random cases per property")
      ->capture_default_str();
  CLI::App* check = vectors->add_subcommand("check", "replay vector files against a DUT");
  check->add_option("--dut", dutSpec, "DUT spec, as for certify")->capture_default_str();
  check->add_option("--dir", vecDir, "directory of vector files")->capture_default_str();
  check->add_option("files", vecFiles, "vector files (default: every .csv of --dir)");
  check->add_option("--case", caseId, "only the case with this case_id");
  check->add_option("--expect-digest", expectDigest, expectDigestHelp);
  check->add_option("--report-dir", reportDir, reportDirHelp)->capture_default_str();
  addInteger(check, "--timeout-ms", timeoutMs, "per-program limit for exec: and plugin: DUTs");
  check->add_option("--waivers", waiversFile, waiversHelp);
  CLI::App* exportCmd = vectors->add_subcommand(
      "export", "write the inputs a board harness needs (programs without expectations)");
  exportCmd->add_option("--dir", vecDir, "directory of vector files")->capture_default_str();
  exportCmd->add_option("--out", vecOut, "output directory: new or empty")->required();
  CLI::App* verify = vectors->add_subcommand(
      "verify", "compare results a board harness wrote back (case_id,status,observed)");
  verify->add_option("--dir", vecDir, "directory of vector files")->capture_default_str();
  verify->add_option("--results", resultsFile, "the harness's results CSV")->required();
  verify->add_option("files", vecFiles, "vector files (default: every .csv of --dir)");
  verify->add_option("--case", caseId, "only the case with this case_id");
  verify->add_option("--expect-digest", expectDigest, expectDigestHelp);
  verify->add_option("--report-dir", reportDir, reportDirHelp)->capture_default_str();
  cli::ExportAscendcArgs ascendc;
  CLI::App* exportAscendc = cli::addExportAscendc(*vectors, ascendc);

  double fuzzSeconds = 20;
  long long fuzzCases = 0;
  std::string shard, fuzzRegressions;
  std::optional<unsigned> shardCount;
  CLI::App* fuzzCmd = app.add_subcommand(
      "fuzz",
      "random cases across all families until the budget is spent; failures shrunk, "
      "deduplicated and kept as regression vectors");
  fuzzCmd->add_option("--dut", dutSpec, "DUT spec, as for certify")->capture_default_str();
  // Checked as typed: CLI11 would read 1e400 as infinity, and the error would quote "inf".
  const CLI::Validator fitsADouble(
      [](std::string& text) {
        double v = 0;
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        return ec == std::errc::result_out_of_range
                   ? "'" + dut::printable(text, 40) + "' does not fit a double"
                   : std::string();
      },
      "");
  fuzzCmd->add_option("--time", fuzzSeconds, "budget in seconds")
      ->capture_default_str()
      ->check(fitsADouble);
  addInteger(fuzzCmd, "--cases", fuzzCases,
             "budget in cases per property, over all shards (deterministic runs)");
  fuzzCmd->add_option("--seed", common.seedText, "run seed; random and printed when omitted")
      ->check(seedGiven);
  fuzzCmd->add_option("--profile", common.profile, "chip profile")->capture_default_str();
  fuzzCmd->add_option("--sizes", common.sizes, "size draws: small | mixed (default) | large");
  fuzzCmd->add_option("--family", families, "only these families (repeatable)");
  fuzzCmd->add_option(
      "--shard", shard,
      "I/N: this machine's share; default from the scheduler's variables "
      "(Slurm arrays, Kubernetes indexed jobs, Bazel, GoogleTest; docs/nightly.md)");
  addInteger(fuzzCmd, "--shard-count", shardCount,
             "N shards in all, for a Kubernetes indexed job (JOB_COMPLETION_INDEX)")
      ->check(CLI::PositiveNumber);
  fuzzCmd->add_option("--report-dir", reportDir, reportDirHelp)->capture_default_str();
  fuzzCmd->add_option("--regression-dir", fuzzRegressions,
                      "where distinct failures go as vector rows (default REPORT_DIR/regressions)");
  addInteger(fuzzCmd, "--timeout-ms", timeoutMs, "per-program limit for exec: and plugin: DUTs");
  fuzzCmd->add_option("--waivers", waiversFile, waiversHelp);
  fuzzCmd->add_flag("--quiet", quiet, "no progress lines on stderr");
  CLI::App* fingerprintCmd = app.add_subcommand(
      "fingerprint",
      "how a DUT computes float Mmad: products, accumulator width, order, rounding, subnormals");
  fingerprintCmd->add_option("--dut", dutSpec, "DUT spec, as for certify")->capture_default_str();
  fingerprintCmd->add_option("--profile", common.profile, "chip profile")->capture_default_str();
  fingerprintCmd->add_option("--report-dir", reportDir, "writes DIR/fingerprint.json")
      ->capture_default_str();
  addInteger(fingerprintCmd, "--timeout-ms", timeoutMs,
             "per-program limit for exec: and plugin: DUTs");
  std::vector<std::string> mergeInputs;
  std::string mergeOut;
  std::string mergeReportDir;
  CLI::App* merge = app.add_subcommand(
      "merge-reports", "combine the report.json files of shards into the whole run's reports");
  merge->add_option("--out", mergeOut,
                    "write the merged report.json here (give --out, --report-dir or both)");
  merge->add_option("--report-dir", mergeReportDir,
                    "write the merged report.json, report.md, report.html and junit.xml here "
                    "(give --out, --report-dir or both)");
  merge
      ->add_option("reports", mergeInputs,
                   "report.json files of the shards, or directories holding them (DIR/report.json "
                   "and DIR/*/report.json)")
      ->required();
  std::string explainName;
  CLI::App* explainCmd = app.add_subcommand(
      "explain", "what each family and property claims, the spec it rests on, its open points");
  explainCmd->add_option("name", explainName,
                         "one family, property (FAMILY/PROPERTY) or open point (OPEN-n); none "
                         "prints the whole catalogue");

  if (const auto missing = optionMissingItsValue(app, argc, argv)) {
    std::cerr << "cubecheck" << (missing->first.empty() ? "" : " " + missing->first) << ": "
              << missing->second << '\n';
    return kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitUsage;
  }

  try {
    if (*explainCmd) {
      if (explainName.empty()) {
        std::cout << conf::explainCatalogue();
        return kExitConformant;
      }
      const conf::Explanation e = conf::explain(explainName);
      (e.found ? std::cout : std::cerr) << (e.found ? "" : "cubecheck explain: ") << e.text;
      return e.found ? kExitConformant : kExitUsage;
    }
    conf::RunOptions o;
    std::string error;
    if (!resolve(common, o, error)) {
      std::cerr << "cubecheck: " << error << '\n';
      return kExitUsage;
    }
    // Values no run can use are usage errors before anything runs (cli/args.hpp), a bad waiver
    // file among them.
    std::vector<conf::Waiver> waivers;
    for (CLI::App* sub : {certify, check, fuzzCmd}) {
      if (!*sub) continue;
      const std::string name = sub == check ? "vectors check" : sub->get_name();
      if (!cli::checkRange("--timeout-ms", timeoutMs, 1, cli::kMaxTimeoutMs, error) ||
          !cli::checkRange("--shrink-ms", shrinkMs, 0, cli::kMaxTimeoutMs, error)) {
        return usageError(name, error);
      }
      std::optional<std::vector<conf::Waiver>> loaded = loadWaivers(waiversFile, error);
      if (!loaded) return usageError(name, error);
      waivers = std::move(*loaded);
    }
    if (*certify && certify->count("--case") > 0 &&
        !cli::checkRange("--case", caseIndex, 0, std::numeric_limits<long long>::max(), error)) {
      return usageError("certify", error);
    }
    // --cases 0 is a budget of no case, not "no case budget": refused like any bad number.
    if (*fuzzCmd && fuzzCmd->count("--cases") > 0 &&
        !cli::checkRange("--cases", fuzzCases, 1, std::numeric_limits<long long>::max(), error)) {
      return usageError("fuzz", error + " (omit --cases for a time budget alone)");
    }
    if (*mutantsCmd && !cli::checkWritableDir("--report-dir", mutantsReportDir, error)) {
      return usageError("mutants", error);
    }
    o.shrinkBudget = std::chrono::milliseconds(shrinkMs);
    if (*sparseCheck) return cli::runSparseCheck(sparse);
    if (*fuzzCmd) {
      o.families = families;
      return runFuzz(dutSpec, o, fuzzSeconds, fuzzCases, shard, shardCount, reportDir,
                     fuzzRegressions, quiet, timeoutMs, std::move(waivers));
    }
    if (*fingerprintCmd) {
      return cli::runFingerprint(dutSpec, o.profile, reportDir,
                                 std::chrono::milliseconds(timeoutMs), gCommandLine);
    }
    if (*merge) return runMerge(mergeInputs, mergeOut, mergeReportDir);
    if (*regen) {
      const auto seedValue = cli::parseUnsigned("--seed", vecSeed, error);
      if (!seedValue ||
          !cli::checkRange("--random", randomPerProperty, 0, cli::kMaxRegenRandom, error)) {
        return usageError("vectors regen", error);
      }
      const std::uint64_t seed = *seedValue;
      const std::string out = vecOut.empty() ? "vectors/golden" : vecOut;
      const std::string provenance = "generator cubecheck " + std::string(conf::kToolVersion) +
                                     "; arguments: vectors regen --seed " + vecSeed + " --random " +
                                     std::to_string(randomPerProperty);
      std::size_t rows = 0;
      const std::vector<vec::Generated> generated = vec::generate(seed, randomPerProperty);
      // Two rows with one case id are one case run twice, and a board's results could not tell
      // them apart. vec::generate leaves out a random draw that repeats an earlier case; two
      // table entries that are one case are a generator defect. Nothing is written.
      for (const vec::Generated& g : generated) {
        std::map<std::string, const vec::Row*> seen;
        for (const vec::Row& row : g.rows) {
          auto [at, fresh] = seen.emplace(row.caseId, &row);
          if (fresh) continue;
          std::cerr << "cubecheck vectors regen: internal error: " << g.family << "." << g.profile
                    << " has case_id " << row.caseId << " twice (" << at->second->property << ", "
                    << at->second->why << "; " << row.property << ", " << row.why
                    << "); nothing written\n";
          return kExitInternal;
        }
      }
      std::vector<std::filesystem::path> written;
      for (const vec::Generated& g : generated) {
        written.push_back(vec::writeFile(out, g.family, g.profile, g.rows, provenance));
        std::cout << written.back().string() << ": " << g.rows.size() << " cases";
        if (g.repeatedDraws > 0) {
          std::cout << " (" << g.repeatedDraws
                    << " random draws repeated an earlier case and were left out)";
        }
        std::cout << '\n';
        rows += g.rows.size();
      }
      const std::string digest = vec::writeManifest(out, written);
      std::cout << rows << " cases written; set digest " << digest << " ("
                << (std::filesystem::path(out) / vec::kManifestName).string()
                << "; publish it with the set)\n";
      return kExitConformant;
    }
    // A reproduce run (--case) must not write over the real report: no report unless asked.
    for (CLI::App* replayCmd : {check, verify}) {
      if (*replayCmd && !caseId.empty() && replayCmd->get_option("--report-dir")->count() == 0) {
        reportDir.clear();
      }
    }
    if (*check) {
      if (!checkVectorFiles(vecFiles, error) || !cli::checkExecProgram(dutSpec, error) ||
          !cli::checkWritableDir("--report-dir", reportDir, error)) {
        return usageError("vectors check", error);
      }
      std::unique_ptr<dut::Dut> d;
      try {
        d = dut::makeDut(dutSpec, std::chrono::milliseconds(timeoutMs));
      } catch (const std::invalid_argument& e) {
        std::cerr << "cubecheck vectors check: " << e.what() << '\n';
        return kExitUsage;
      }
      const auto files = filesOf(vecDir, vecFiles);
      if (files.empty()) {
        std::cerr << "cubecheck vectors check: no vector files in " << vecDir << '\n';
        return kExitUsage;
      }
      Replay in{files,
                vecFiles.empty(),
                caseId,
                reportDir,
                "cubecheck vectors check --dut " + cli::shellWord(dutSpec) +
                    (check->count("--timeout-ms") > 0 ? " --timeout-ms " + std::to_string(timeoutMs)
                                                      : std::string()),
                {}};
      in.expectDigest = expectDigest;
      return replayVectors(*d, dutSpec, std::move(in), std::move(waivers));
    }
    if (*exportCmd) return cli::runExportInputs(vecDir, vecOut);
    if (*exportAscendc) return cli::runExportAscendc(ascendc);
    if (*verify) {
      if (!checkVectorFiles(vecFiles, error)) return usageError("vectors verify", error);
      const auto files = filesOf(vecDir, vecFiles);
      if (files.empty()) return usageError("vectors verify", "no vector files in --dir " + vecDir);
      if (!cli::checkReadable("--results", resultsFile, error) ||
          !cli::checkWritableDir("--report-dir", reportDir, error)) {
        return usageError("vectors verify", error);
      }
      // The results read are those of the cases replayed. A narrowed run (FILES naming some of
      // a set, --case) leaves out cases of the set whose results a board's file holds all the
      // same: those are set aside, not input errors; an id of no file of the set still is one.
      std::map<std::string, std::vector<std::uint64_t>> sizes;
      std::set<std::string> notReplayed;
      for (const auto& file : files) {
        for (const vec::Row& row : vec::readFile(file).rows) {
          if (!caseId.empty() && row.caseId != caseId) {
            notReplayed.insert(row.caseId);
            continue;
          }
          // Assigned, not appended: a case id in two rows is still one case of so many regions.
          std::vector<std::uint64_t>& regions = sizes[row.caseId];
          regions.clear();
          for (const auto& reg : row.c.program.observe) regions.push_back(reg.size);
        }
      }
      if (!vecFiles.empty()) {
        for (const auto& [id, file] : casesOfOtherFiles(files)) notReplayed.insert(id);
      }
      for (const auto& [id, regions] : sizes) notReplayed.erase(id);
      vec::ResultsRead results = vec::readResults(resultsFile, sizes, notReplayed);
      // The certificate names the results by their bytes, not only their path.
      const std::optional<std::string> resultsText = readWhole(resultsFile);
      vec::RecordedDut d(
          std::move(results.byCase), resultsFile,
          resultsText ? "results file SHA-256 " + conf::sha256Hex(*resultsText) : std::string("-"));
      Replay in{files,
                vecFiles.empty(),
                caseId,
                reportDir,
                "cubecheck vectors verify --results " + cli::shellWord(resultsFile),
                std::move(results.errors)};
      in.recorded = true;
      in.expectDigest = expectDigest;
      if (results.setAside > 0) {
        in.narrowed.push_back(std::to_string(results.setAside) +
                              " result(s) of cases of the set not replayed, set aside unread");
      }
      return replayVectors(d, "recorded:" + resultsFile, std::move(in));
    }
    if (*certify) {
      o.families = families;
      if (!property.empty()) o.property = property;
      if (caseIndex >= 0) o.caseIndex = static_cast<std::size_t>(caseIndex);
      o.observable = observable;
      o.given = given;
      // A reproduce run must not write over the real certificate: no report unless asked.
      if (o.caseIndex && certify->get_option("--report-dir")->count() == 0) reportDir.clear();
      return runCertify(dutSpec, o, reportDir, quiet, timeoutMs, regressionDir, std::move(waivers));
    }
    if (!list) std::cerr << "cubecheck: seed " << o.seed << '\n';
    return runMutants(o, list, mutantsReportDir);
  } catch (const cli::ReportDirInUse& e) {
    std::cerr << "cubecheck: " << e.what() << '\n';
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "cubecheck: internal error: " << e.what() << '\n';
    return kExitInternal;
  } catch (...) {
    std::cerr << "cubecheck: internal error: an exception of unknown type\n";
    return kExitInternal;
  }
}
