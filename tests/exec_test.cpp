// Pluggable DUTs: the examples certified through exec: and plugin:, and hostile DUTs isolated.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "conformance/dut_health.hpp"
#include "conformance/report.hpp"
#include "conformance/report_read.hpp"
#include "conformance/runner.hpp"
#include "dut_adapters/exec_dut.hpp"
#include "dut_adapters/registry.hpp"
#include "scratch.hpp"

namespace cubecheck::conf {
namespace {

RunOptions load2dSmoke(const std::string& spec, const char* property = nullptr) {
  RunOptions o;
  o.level = Level::Smoke;
  o.seed = 21;
  o.families = {"load2d"};
  o.dutSpec = spec;
  if (property != nullptr) o.property = property;
  return o;
}

class ExampleDut : public ::testing::TestWithParam<std::string> {};

TEST_P(ExampleDut, CertifiesLoad2D) {
  auto dut = dut::makeDut(GetParam());
  ASSERT_FALSE(dut->broken().has_value()) << *dut->broken();
  const CertifyResult r = certify(*dut, load2dSmoke(GetParam()));
  const FamilyResult& f = r.families.at(0);
  for (const Failure& x : f.failures) ADD_FAILURE() << x.property << ": " << x.detail;
  EXPECT_EQ(f.verdict(), "conformant");
  EXPECT_GT(f.counts.of(Outcome::Pass), 1000u);
  // It declares rejects_illegal 0, so the illegal-program cases are NotSupported, not passed.
  EXPECT_EQ(
      f.notSupportedReasons.count("DUT does not validate programs (rejects_illegal is false)"), 1u);
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleDut,
                         ::testing::Values(std::string("exec:") + EXAMPLE_C_DUT,
                                           std::string("exec:python3 ") + EXAMPLE_PYTHON_DUT,
                                           std::string("plugin:") + EXAMPLE_PLUGIN_DUT),
                         [](const auto& i) {
                           return i.index == 0   ? std::string("C")
                                  : i.index == 1 ? "Python"
                                                 : "Plugin";
                         });

struct Hostile {
  const char* mode;
  Outcome outcome;   // what the misbehaving programs become
  const char* says;  // a piece of the reason
};

class HostileDut : public ::testing::TestWithParam<Hostile> {};

TEST_P(HostileDut, IsIsolatedReportedAndTheRunGoesOn) {
  const Hostile& h = GetParam();
  const std::string spec = std::string("exec:") + HOSTILE_DUT + " " + h.mode;
  auto dut = dut::makeDut(spec, std::chrono::milliseconds(300));
  const CertifyResult r = certify(*dut, load2dSmoke(spec, "MatchesOracle"));
  const FamilyResult& f = r.families.at(0);
  EXPECT_EQ(f.counts.of(Outcome::Mismatch), 0u) << "a broken DUT is never a Mismatch";
  EXPECT_GT(f.counts.of(h.outcome), 0u);
  EXPECT_GT(f.counts.of(Outcome::Pass), 100u) << "the run goes on after each failure";
  EXPECT_EQ(f.verdict(), "nonconformant");
  ASSERT_FALSE(f.failures.empty());
  EXPECT_EQ(f.failures[0].outcome, h.outcome);
  EXPECT_NE(f.failures[0].detail.find(h.says), std::string::npos) << f.failures[0].detail;
  EXPECT_GT(static_cast<dut::ExecDut&>(*dut).starts(), 1) << "restarted after the failure";
}

INSTANTIATE_TEST_SUITE_P(
    Modes, HostileDut,
    ::testing::Values(Hostile{"crash", Outcome::AdapterError, "killed by signal 11"},
                      Hostile{"hang", Outcome::Timeout, "no answer to program"},
                      Hostile{"garbage", Outcome::AdapterError, "expected a response to program"},
                      // A garbled answer, then an exit: the exit is said too.
                      Hostile{"garbage_exit", Outcome::AdapterError,
                              "(the DUT then exited with status 6)"},
                      Hostile{"short", Outcome::AdapterError, "announced as 999999 bytes"},
                      Hostile{"oversized", Outcome::AdapterError, "announced as 99999999999 bytes"},
                      Hostile{"noise", Outcome::AdapterError, "simulator: tick 42"}),
    [](const auto& i) { return std::string(i.param.mode); });

// A DUT's process holds no descriptor of cubecheck's: not a file cubecheck opened without
// O_CLOEXEC (a report being written), not another DUT's pipes (a plugin: child is forked without
// exec, so O_CLOEXEC does not close them). The plugin's fds mode fails every program unless its
// child holds exactly its own two pipes from descriptor 3 up; the exec: DUT's unless it holds
// none (its pipes are its stdin and stdout).
TEST(DutProcess, InheritsNoDescriptorOfCubecheck) {
  const int file = ::open("/dev/null", O_RDONLY);  // as std::ofstream opens: no O_CLOEXEC
  ASSERT_GE(file, 3);
  auto other = dut::makeDut(std::string("plugin:") + EXAMPLE_PLUGIN_DUT);  // its pipes stay open
  ASSERT_FALSE(other->broken().has_value()) << *other->broken();
  ::setenv("HOSTILE_PLUGIN_MODE", "fds", 1);
  for (const std::string& spec :
       {std::string("plugin:") + HOSTILE_PLUGIN, std::string("exec:") + HOSTILE_DUT + " fds"}) {
    SCOPED_TRACE(spec);
    auto dut = dut::makeDut(spec);
    ASSERT_FALSE(dut->broken().has_value()) << *dut->broken();
    const CertifyResult r = certify(*dut, load2dSmoke(spec, "MatchesOracle"));
    const FamilyResult& f = r.families.at(0);
    EXPECT_EQ(f.counts.of(Outcome::AdapterError), 0u)
        << (f.failures.empty() ? "" : f.failures[0].detail);
    EXPECT_GT(f.counts.of(Outcome::Pass), 100u);
  }
  ::unsetenv("HOSTILE_PLUGIN_MODE");
  ::close(file);
}

// plugin: loads the library in a forked child: its crash or hang is that case's failure, the
// child is restarted and the run goes on, as with exec: (inprocess: would die with it).
TEST(HostilePlugin, CrashAndHangAreIsolatedReportedAndTheRunGoesOn) {
  for (const Hostile& h : {Hostile{"crash", Outcome::AdapterError, "killed by signal 11"},
                           Hostile{"hang", Outcome::Timeout, "no answer to program"}}) {
    SCOPED_TRACE(h.mode);
    ::setenv("HOSTILE_PLUGIN_MODE", h.mode, 1);
    const std::string spec = std::string("plugin:") + HOSTILE_PLUGIN;
    auto dut = dut::makeDut(spec, std::chrono::milliseconds(300));
    ::unsetenv("HOSTILE_PLUGIN_MODE");  // the child has it; nothing else should
    ASSERT_FALSE(dut->broken().has_value()) << *dut->broken();
    const CertifyResult r = certify(*dut, load2dSmoke(spec, "MatchesOracle"));
    const FamilyResult& f = r.families.at(0);
    EXPECT_EQ(f.counts.of(Outcome::Mismatch), 0u);
    EXPECT_GT(f.counts.of(h.outcome), 0u);
    EXPECT_GT(f.counts.of(Outcome::Pass), 100u) << "the run goes on after each failure";
    ASSERT_FALSE(f.failures.empty());
    EXPECT_EQ(f.failures[0].outcome, h.outcome);
    EXPECT_NE(f.failures[0].detail.find(h.says), std::string::npos) << f.failures[0].detail;
    EXPECT_GT(static_cast<dut::ExecDut&>(*dut).starts(), 1) << "restarted after the failure";
  }
}

// A DUT that writes something else than a handshake and exits: the message says how it ended
// (it used to quote the line alone, and a DUT that printed a license error on stdout and exited
// 5 read like a protocol mistake).
TEST(HostileDut, AGarbledHandshakeNamesHowTheDutEnded) {
  auto dut = dut::makeDut(std::string("exec:") + HOSTILE_DUT + " badhello");
  ASSERT_TRUE(dut->broken().has_value());
  EXPECT_NE(dut->broken()->find("got 'license check failed' (the DUT then exited with status 5)"),
            std::string::npos)
      << *dut->broken();
}

TEST(HostileDut, WrongProtocolVersionFailsEveryCaseWithTheReason) {
  const std::string spec = std::string("exec:") + HOSTILE_DUT + " version";
  auto dut = dut::makeDut(spec);
  ASSERT_TRUE(dut->broken().has_value());
  EXPECT_NE(dut->broken()->find("protocol version 3"), std::string::npos) << *dut->broken();
  // The message names the DUT by its command, arguments included (an interpreter alone names none).
  EXPECT_NE(dut->broken()->find(std::string("DUT '") + HOSTILE_DUT + " version' did not start"),
            std::string::npos)
      << *dut->broken();
  const CertifyResult r = certify(*dut, load2dSmoke(spec));
  const FamilyResult& f = r.families.at(0);
  EXPECT_EQ(f.counts.of(Outcome::AdapterError),
            f.counts.total() - f.counts.of(Outcome::NotSupported));
  EXPECT_EQ(f.counts.of(Outcome::Pass), 0u);
  EXPECT_FALSE(r.conformant());
}

// A DUT that answers no program at all: the run stops after kMaxConsecutiveDutFailures
// timeouts, says why, and keeps what it has; it does not spend a timeout on every case.
TEST(HostileDut, MuteDutStopsTheRunAfterAFewTimeouts) {
  const std::string spec = std::string("exec:") + HOSTILE_DUT + " mute";
  auto dut = dut::makeDut(spec, std::chrono::milliseconds(200));
  const auto t0 = std::chrono::steady_clock::now();
  const CertifyResult r = certify(*dut, load2dSmoke(spec));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const FamilyResult& f = r.families.at(0);
  EXPECT_EQ(f.counts.of(Outcome::Timeout), kMaxConsecutiveDutFailures);
  EXPECT_EQ(f.counts.total() - f.counts.of(Outcome::NotSupported), kMaxConsecutiveDutFailures)
      << "nothing ran after the stop";
  EXPECT_NE(r.stoppedEarly.find("5 consecutive timeouts"), std::string::npos) << r.stoppedEarly;
  EXPECT_FALSE(r.conformant());
  // Five timeouts of 200 ms and five restarts; a whole smoke run would take over 1000 timeouts.
  EXPECT_LT(seconds, 5.0);
}

// A DUT that stalls whenever it is restarted: each restart is given the per-program timeout
// (the first start was quick), not the 10 s a first start may take.
TEST(HostileDut, RestartsObeyTheTimeout) {
  const auto marker =
      std::filesystem::temp_directory_path() / ("cubecheck_restall_" + std::to_string(::getpid()));
  std::filesystem::remove(marker);
  const std::string spec = std::string("exec:") + HOSTILE_DUT + " restall " + marker.string();
  auto dut = dut::makeDut(spec, std::chrono::milliseconds(300));
  ASSERT_FALSE(dut->broken().has_value()) << *dut->broken();
  const auto t0 = std::chrono::steady_clock::now();
  const CertifyResult r = certify(*dut, load2dSmoke(spec, "MatchesOracle"));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::filesystem::remove(marker);
  const FamilyResult& f = r.families.at(0);
  ASSERT_FALSE(f.failures.empty());
  EXPECT_NE(f.failures.back().detail.find("no handshake within 300 ms"), std::string::npos)
      << f.failures.back().detail;
  EXPECT_FALSE(r.stoppedEarly.empty());
  EXPECT_EQ(f.counts.total() - f.counts.of(Outcome::NotSupported), kMaxConsecutiveDutFailures);
  EXPECT_LT(seconds, 5.0) << "four restarts of at most 300 ms each, not 10 s each";
}

// A DUT restarted after a crash that declares another version or envelope is another DUT: the
// report names the first start's declarations, so nothing after the change may count.
TEST(HostileDut, ARestartThatDeclaresOtherCapabilitiesStopsTheRun) {
  const std::filesystem::path marker =
      std::filesystem::temp_directory_path() / ("cubecheck_turncoat_" + std::to_string(::getpid()));
  std::filesystem::remove(marker);
  const std::string spec = std::string("exec:") + HOSTILE_DUT + " turncoat " + marker.string();
  auto dut = dut::makeDut(spec);
  ASSERT_FALSE(dut->broken().has_value()) << *dut->broken();
  const CertifyResult r = certify(*dut, load2dSmoke(spec, "MatchesOracle"));
  std::filesystem::remove(marker);
  EXPECT_EQ(r.capabilities.version, "1.0");
  ASSERT_TRUE(dut->broken().has_value());
  EXPECT_NE(dut->broken()->find("declared other capabilities when restarted"), std::string::npos)
      << *dut->broken();
  EXPECT_NE(dut->broken()->find("version 2.0"), std::string::npos) << *dut->broken();
  const FamilyResult& f = r.families.at(0);
  // What the first process answered (at most two programs), the crash, then no case passed: each
  // was an adapter error until the run gave up. The restarted process alone would pass them all.
  EXPECT_LE(f.counts.of(Outcome::Pass), 2u);
  EXPECT_GE(f.counts.of(Outcome::AdapterError), kMaxConsecutiveDutFailures - 1);
  EXPECT_FALSE(r.stoppedEarly.empty());
  EXPECT_NE(r.verdict(), "conformant");
}

// A DUT that starts a child of its own (a wrapper script starting a simulator): MODE PIDFILE
// answers the handshake, starts `sleep 300` (its pid in PIDFILE; its stdin is /dev/null, as for
// any asynchronous command of sh, and its stdout is the DUT's, so it holds cubecheck's pipe) and
// then, by MODE: hang waits for it; exit reads a line of the first program and exits 3; quit
// exits when cubecheck says quit (or closes its input).
std::filesystem::path writeParentDut(const std::filesystem::path& dir) {
  const auto script = dir / "parent_dut.sh";
  std::ofstream(script) << "read hello\n"
                           "printf 'dut 1\\nname parent\\nversion 1.0\\nprofiles a2 950 legacy\\n"
                           "instructions load2d\\ndtypes f16\\nobservable GM L1 L0A L0B\\n"
                           "rejects_illegal 0\\nend\\n'\n"
                           "sleep 300 2>/dev/null &\n"
                           "echo $! > \"$2.tmp\" && mv \"$2.tmp\" \"$2\"\n"
                           "case $1 in\n"
                           "  hang) wait ;;\n"
                           "  exit) read line; exit 3 ;;\n"
                           "  quit) while read line; do [ \"$line\" = quit ] && exit 0; done ;;\n"
                           "esac\n";
  return script;
}

/// The pid the DUT wrote to `file`, waited for up to 10 s; -1 if none came.
pid_t childPid(const std::filesystem::path& file) {
  for (int i = 0; i < 1000; ++i) {
    std::ifstream in(file);
    long pid = -1;
    if (in >> pid && pid > 1) return static_cast<pid_t>(pid);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return -1;
}

/// Whether the process is gone within 2 s: no such process, or a zombie (killed; its new parent,
/// PID 1, may reap it late or, in some containers, never).
bool goneSoon(pid_t pid) {
  for (int i = 0; i < 200; ++i) {
    if (::kill(pid, 0) != 0 && errno == ESRCH) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    std::getline(stat, line);
    const std::size_t paren = line.rfind(')');
    if (paren != std::string::npos && paren + 2 < line.size() && line[paren + 2] == 'Z') {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

/// Asserts the DUT's child is gone; kills it if not, so that a failing test leaves nothing behind.
void expectGone(pid_t pid) {
  ASSERT_GT(pid, 1) << "the DUT wrote no child pid";
  EXPECT_TRUE(goneSoon(pid)) << "the DUT's child " << pid << " outlived it";
  ::kill(pid, SIGKILL);
}

// Every process the DUT started is killed with it: its own process group is killed on a timeout
// (and the DUT restarted for the next case), not only the process cubecheck started.
TEST(DutProcessGroup, ATimeoutKillsEveryProcessTheDutStarted) {
  const auto dir = test::freshDir("pgroup_timeout");
  const auto pids = dir / "child.pid";
  dut::ExecDut dut({"/bin/sh", writeParentDut(dir).string(), "hang", pids.string()},
                   std::chrono::milliseconds(300));
  ASSERT_FALSE(dut.broken().has_value()) << *dut.broken();
  for (int start = 1; start <= 2; ++start) {
    SCOPED_TRACE("start " + std::to_string(start));
    const dut::RunResult r = dut.run(isa::Program{});  // the second restarts the DUT
    const pid_t child = childPid(pids);
    std::filesystem::remove(pids);
    EXPECT_EQ(r.status, dut::RunStatus::Timeout) << r.message;
    expectGone(child);
  }
  EXPECT_EQ(dut.starts(), 2) << "restarted after the first timeout";
  std::filesystem::remove_all(dir);
}

// When cubecheck is done with the DUT (the end of a run), its children go too, even when the DUT
// itself leaves politely on "quit".
TEST(DutProcessGroup, TheEndOfTheRunKillsEveryProcessTheDutStarted) {
  const auto dir = test::freshDir("pgroup_end");
  const auto pids = dir / "child.pid";
  pid_t child = -1;
  {
    dut::ExecDut dut({"/bin/sh", writeParentDut(dir).string(), "quit", pids.string()},
                     std::chrono::milliseconds(5000));
    ASSERT_FALSE(dut.broken().has_value()) << *dut.broken();
    child = childPid(pids);
  }
  expectGone(child);
  std::filesystem::remove_all(dir);
}

// A DUT that exits while a background child still holds its stdout: cubecheck would never see
// end-of-file. The exit is what is reported, at once, not a timeout later, and the child goes.
TEST(DutProcessGroup, AnExitIsReportedAsAnExitWhileAChildHoldsTheOutput) {
  const auto dir = test::freshDir("pgroup_exit");
  const auto pids = dir / "child.pid";
  dut::ExecDut dut({"/bin/sh", writeParentDut(dir).string(), "exit", pids.string()},
                   std::chrono::milliseconds(5000));
  ASSERT_FALSE(dut.broken().has_value()) << *dut.broken();
  const pid_t child = childPid(pids);
  const auto t0 = std::chrono::steady_clock::now();
  const dut::RunResult r = dut.run(isa::Program{});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, dut::RunStatus::AdapterError) << r.message;
  EXPECT_NE(r.message.find("exited with status 3"), std::string::npos) << r.message;
  EXPECT_LT(seconds, 2.0) << "the exit waited for the 5 s timeout";
  expectGone(child);
  std::filesystem::remove_all(dir);
}

// A DUT that closes its output and then stops reading, while cubecheck is still sending it a
// program larger than a pipe holds: it can never answer. The case is its AdapterError at once;
// the send loop used to see the hang-up on every poll and spin past its deadline for as long as
// the DUT lived.
TEST(DutProcessGroup, ADutThatClosedItsOutputIsNotWaitedForForever) {
  const auto dir = test::freshDir("closed_output");
  const auto script = dir / "closer.sh";
  std::ofstream(script) << "read hello\n"
                           "printf 'dut 1\\nname closer\\nversion 1.0\\nprofiles a2 950 legacy\\n"
                           "instructions load2d\\ndtypes f16\\nobservable GM L1 L0A L0B\\n"
                           "rejects_illegal 0\\nend\\n'\n"
                           "exec 1>&-\n"
                           "sleep 300\n";
  dut::ExecDut dut({"/bin/sh", script.string()}, std::chrono::milliseconds(3000));
  ASSERT_FALSE(dut.broken().has_value()) << *dut.broken();
  isa::Program big;
  big.segments.push_back({isa::Memory::GM, 0, isa::Bytes(1 << 20, 0x5A)});  // 2 MiB of hex
  const auto t0 = std::chrono::steady_clock::now();
  const dut::RunResult r = dut.run(big);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.status, dut::RunStatus::AdapterError) << r.message;
  EXPECT_NE(r.message.find("closed its output"), std::string::npos) << r.message;
  EXPECT_LT(seconds, 2.0) << "waited for the 3 s timeout, or longer";
  std::filesystem::remove_all(dir);
}

/// What a cubecheck run interrupted by interruptWhileTheDutHangs did.
struct Interrupted {
  int status = -1;     ///< the exit status, or -1 when it did not exit
  double seconds = 0;  ///< from the signal to the end of cubecheck
  std::string text;    ///< stdout and stderr
};

/// Runs `cubecheck ARGS --dut 'exec:/bin/sh parent_dut.sh hang PIDS' --report-dir DIR/report` as
/// from a terminal (SIGINT and SIGTERM not ignored: a shell's `&` would ignore SIGINT in cubecheck
/// and so in the DUT), and once the DUT has started, the run has marked its report "in progress"
/// (its signal handlers are set moments later) and 300 ms more have passed for the DUT to get its
/// first program, in which it hangs, sends cubecheck `sig`. Returns the DUT's child (for
/// expectGone) through `child`.
Interrupted interruptWhileTheDutHangs(const std::filesystem::path& dir, const std::string& args,
                                      int sig, pid_t& child) {
  const auto pids = dir / "child.pid";
  std::filesystem::remove(pids);
  const std::string dutSpec =
      "exec:/bin/sh " + writeParentDut(dir).string() + " hang " + pids.string();
  const std::string out = (dir / "out.txt").string();
  std::vector<std::string> argv = {
      "sh",
      "-c",
      "exec \"$0\" " + args + " --dut \"$1\" --report-dir \"$3\" >\"$2\" 2>&1",
      CUBECHECK_BINARY,
      dutSpec,
      out,
      (dir / "report").string()};
  std::vector<char*> ptrs;
  for (std::string& a : argv) ptrs.push_back(a.data());
  ptrs.push_back(nullptr);
  posix_spawnattr_t attr;
  ::posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGINT);
  sigaddset(&defaults, SIGTERM);
  ::posix_spawnattr_setsigdefault(&attr, &defaults);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  Interrupted r;
  pid_t cubecheck = -1;
  const int spawned = ::posix_spawn(&cubecheck, "/bin/sh", nullptr, &attr, ptrs.data(), environ);
  ::posix_spawnattr_destroy(&attr);
  if (spawned != 0) return r;
  child = childPid(pids);  // the DUT has started; its first program follows
  for (int i = 0; i < 1000; ++i) {
    std::ifstream in(dir / "report" / "report.json");
    const std::string marked{std::istreambuf_iterator<char>(in), {}};
    if (marked.find("in progress") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  const auto t0 = std::chrono::steady_clock::now();
  ::kill(cubecheck, sig);
  int status = 0;
  if (::waitpid(cubecheck, &status, 0) == cubecheck && WIFEXITED(status)) {
    r.status = WEXITSTATUS(status);
  }
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::ifstream in(out);
  r.text.assign(std::istreambuf_iterator<char>(in), {});
  return r;
}

// The DUT's process group no longer gets the terminal's Ctrl-C: cubecheck passes SIGINT (and
// SIGTERM) on to it, so an interrupted run stops within moments, not a --timeout-ms later, and
// leaves none of the DUT's processes behind.
TEST(DutProcessGroup, AnInterruptedRunLeavesNoProcessOfTheDut) {
  const auto dir = test::freshDir("pgroup_interrupt");
  pid_t child = -1;
  const Interrupted r = interruptWhileTheDutHangs(
      dir, "certify --level smoke --family load2d --quiet --timeout-ms 20000", SIGINT, child);
  EXPECT_EQ(r.status, 130) << r.text;
  EXPECT_LT(r.seconds, 10.0) << "the case in flight waited for its 20 s timeout";
  expectGone(child);
  std::filesystem::remove_all(dir);
}

// nu11 F7: a scheduler's SIGTERM reached the DUT (cubecheck passes it on), which died of it in the
// middle of a case, and that case was booked as an AdapterError of the DUT: a merged nightly then
// read "failures in: pipeline". The case cut short by the stop is counted in no outcome, in
// certify, fuzz and vectors check alike, and the report says how many were cut short.
TEST(DutProcessGroup, TheCaseASignalCutsShortIsNoOutcomeOfTheDut) {
  const auto dir = test::freshDir("cut_short");
  const std::string vectors = CUBECHECK_SOURCE_DIR "/vectors/golden/load2d.a2.csv";
  for (const std::string& command :
       {std::string("certify --level smoke --family load2d --quiet"),
        std::string("fuzz --family load2d --time 600 --seed 1 --quiet"),
        "vectors check " + vectors}) {
    SCOPED_TRACE(command);
    const auto report = dir / "report";
    pid_t child = -1;
    const Interrupted r =
        interruptWhileTheDutHangs(dir, command + " --timeout-ms 20000", SIGTERM, child);
    EXPECT_EQ(r.status, 130) << r.text;
    expectGone(child);
    std::ifstream in(report / "report.json");
    const auto j = nlohmann::json::parse(in, nullptr, false);
    ASSERT_TRUE(j.is_object()) << r.text;
    EXPECT_TRUE(j["interrupted"].get<bool>());
    EXPECT_EQ(j["cases_cut_short"], 1) << r.text;
    for (const auto& f : j["families"]) {
      EXPECT_EQ(f["adapter_errors"], 0) << f["name"] << ": the DUT did nothing wrong\n" << r.text;
      EXPECT_EQ(f["timeouts"], 0) << f["name"];
      EXPECT_TRUE(f["failures"].empty()) << f["failures"].dump(2);
    }
    EXPECT_EQ(r.text.find("AdapterError"), std::string::npos) << r.text;
    EXPECT_NE(r.text.find("1 case(s) in flight when it came were cut short"), std::string::npos)
        << r.text;
    std::filesystem::remove_all(report);
  }
  std::filesystem::remove_all(dir);
}

// nu11 F18: a DUT that did not start was reported as "dut exec:... (python3, )", "certified
// within: profiles none; ...", and the cases it never ran as coverage bins hit. It declared
// nothing, which the envelope says; its program name stands for it without an empty version; no
// bin was hit. The report reads back as written.
TEST(HostileDut, ADutThatDidNotStartDeclaredNothingAndHitNoBin) {
  const std::string spec = "exec:/bin/sh /nonexistent/dut.sh";
  auto dut = dut::makeDut(spec);
  ASSERT_TRUE(dut->broken().has_value());
  const CertifyResult r = certify(*dut, load2dSmoke(spec));
  ASSERT_EQ(r.families.size(), 1u);
  EXPECT_GT(r.families[0].counts.of(Outcome::AdapterError), 0u);
  EXPECT_TRUE(r.families[0].coverage.empty()) << "cases that never ran hit no bin";
  EXPECT_EQ(r.capabilities.notDeclared.rfind(
                "the DUT declared nothing: DUT '/bin/sh /nonexistent/dut.sh' did not start", 0),
            0u)
      << r.capabilities.notDeclared;
  std::ostringstream terminal;
  printReport(terminal, r);
  const std::string text = terminal.str();
  EXPECT_NE(text.find("dut " + spec + " (/bin/sh), profile a2"), std::string::npos) << text;
  EXPECT_NE(text.find("\nenvelope: not declared: the DUT declared nothing: "), std::string::npos)
      << text;
  EXPECT_EQ(text.find("certified within"), std::string::npos) << text;
  EXPECT_EQ(text.find(" coverage ("), std::string::npos) << text;
  EXPECT_EQ(toJson(fromJson(toJson(r), "r.json")), toJson(r)) << "read back as written";
}

TEST(HostileDut, MissingProgramIsAnAdapterErrorNotACrash) {
  auto dut = dut::makeDut("exec:/nonexistent/dut");
  ASSERT_TRUE(dut->broken().has_value());
  EXPECT_NE(dut->broken()->find("status 127"), std::string::npos) << *dut->broken();
  for (const char* spec : {"plugin:/nonexistent/dut.so", "inprocess:/nonexistent/dut.so"}) {
    auto plugin = dut::makeDut(spec);
    ASSERT_TRUE(plugin->broken().has_value()) << spec;
    EXPECT_NE(plugin->broken()->find("cannot load plugin"), std::string::npos) << *plugin->broken();
  }
}

}  // namespace
}  // namespace cubecheck::conf
